//! The classic sparse-set ECS demo: cubes falling under gravity.
//!
//! Every cube has a `Transform`, a `RigidBody` and a `Gravity`. The world
//! also holds three *resources*, values that belong to no cube: the `Time`
//! (the frame length and a frame counter), the `Rng` that makes new cubes,
//! and the `Recycled` totals. Each frame:
//!
//! 1. `gravity` accelerates every rigid body (a `for` loop over a `join`);
//! 2. `integrate` moves and spins every cube (`for_each` over a `join`, a
//!    dense walk: `Transform` and `RigidBody` are an owning group);
//! 3. a stage of two systems that touch disjoint data, so they may run at
//!    the same time: `recycle` queues the despawn of the cubes that fell
//!    below the floor, and the spawn of new ones at the top, in its
//!    `Commands`; `tick` advances the clock;
//! 4. a sync point applies `recycle`'s commands, and the main loop checks
//!    its report (`last_reports`): nothing rejected, and how many cubes
//!    were made;
//!
//! and the schedule times each system. At the end it prints entity counts and
//! the min / median / max time of every system.
//!
//! ```text
//! cargo run --release --example falling_cubes -- --frames 600 --entities 10000
//! ```

use std::process::ExitCode;

use typed_ecs::named;
use typed_ecs::prelude::*;
use typed_ecs::ScheduleStats;

/// Seconds per frame (60 frames per second).
const DT: f32 = 1.0 / 60.0;
/// Cubes below this height are recycled.
const FLOOR: f32 = 0.0;
/// New cubes appear between this height and twice it.
const SKY: f32 = 100.0;

/// Where a cube is, and how it is turned (radians about each axis).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub position: [f32; 3],
    pub rotation: [f32; 3],
}

/// How a cube moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidBody {
    pub velocity: [f32; 3],
    pub spin: [f32; 3],
}

/// Downward acceleration, in m/s² (cubes on other planets fall differently).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gravity(pub f32);

/// The clock: how long a frame is, and how many have run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Time {
    pub dt: f32,
    pub frame: u64,
}

/// A resource must be `Default`: `CubeWorld::new()` starts it that way.
impl Default for Time {
    fn default() -> Self {
        Time { dt: DT, frame: 0 }
    }
}

/// Counts of what `recycle` did over the run: `despawned` counted by the
/// system as it queues them, `spawned` by the main loop from what the sync
/// point reports it made.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Recycled {
    pub despawned: u64,
    pub spawned: u64,
}

world! {
    /// A box of falling cubes. `integrate` joins transforms and bodies
    /// every frame, so they are an owning group: that join walks two
    /// packed slices.
    #[derive(Debug, Clone)]
    pub struct CubeWorld<Transform, RigidBody, Gravity>;
    // One value each for the whole world, in the fields `world.time`,
    // `world.rng` and `world.recycled`.
    resources { time: Time, rng: Rng, recycled: Recycled }
    group (Transform, RigidBody);
}

/// A small deterministic generator, so every run falls the same way.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rng(pub u64);

impl Rng {
    fn next_f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.next_f32()
    }

    fn cube(&mut self) -> (Transform, RigidBody, Gravity) {
        let transform = Transform {
            position: [
                self.range(-50.0, 50.0),
                self.range(SKY, 2.0 * SKY),
                self.range(-50.0, 50.0),
            ],
            rotation: [0.0; 3],
        };
        let body = RigidBody {
            velocity: [
                self.range(-1.0, 1.0),
                self.range(-5.0, 0.0),
                self.range(-1.0, 1.0),
            ],
            spin: [
                self.range(-3.0, 3.0),
                self.range(-3.0, 3.0),
                self.range(-3.0, 3.0),
            ],
        };
        (transform, body, Gravity(self.range(9.0, 10.6)))
    }
}

// Systems: plain functions whose parameters say what they touch. The
// schedule hands each its part of the world: `&mut SparseMap<RigidBody>`
// is the world's `rigid_body` field, `&Time` its `time` resource. No
// system can reach anything it did not ask for.

/// Accelerates every rigid body: writes bodies, reads gravities and the
/// clock. One storage written, so a plain `for` loop works.
fn gravity(bodies: &mut SparseMap<RigidBody>, gravities: &SparseMap<Gravity>, time: &Time) {
    for (_cube, (body, gravity)) in join((bodies, gravities)) {
        body.velocity[1] -= gravity.0 * time.dt;
    }
}

/// Moves and spins every cube. The join is exactly the owning group, so
/// `for_each` walks the two packed slices side by side.
fn integrate(transforms: &mut SparseMap<Transform>, bodies: &SparseMap<RigidBody>, time: &Time) {
    join((transforms, bodies)).for_each(|_cube, (transform, body)| {
        for axis in 0..3 {
            transform.position[axis] += body.velocity[axis] * time.dt;
            transform.rotation[axis] += body.spin[axis] * time.dt;
        }
    });
}

/// Replaces every cube that fell below the floor with a new one at the
/// top. It only reads transforms: the despawns and spawns go into its
/// `Commands`, a buffer the system keeps (so it allocates only while
/// growing), applied by the next sync point.
fn recycle(
    transforms: &SparseMap<Transform>,
    rng: &mut Rng,
    recycled: &mut Recycled,
    commands: &mut Commands<CubeWorld>,
) {
    for (cube, transform) in transforms.iter() {
        if transform.position[1] < FLOOR {
            commands.despawn(cube);
            commands.spawn_with(rng.cube());
            recycled.despawned += 1;
        }
    }
}

/// Advances the clock by one frame.
fn tick(time: &mut Time) {
    time.frame += 1;
}

struct Options {
    frames: u32,
    entities: u32,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        frames: 600,
        entities: 10_000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let target = match flag.as_str() {
            "--frames" => &mut options.frames,
            "--entities" => &mut options.entities,
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown option `{other}`")),
        };
        let value = args
            .next()
            .ok_or_else(|| format!("`{flag}` needs a number"))?;
        *target = value
            .parse()
            .map_err(|_| format!("`{flag}` needs a whole number, not `{value}`"))?;
    }
    Ok(options)
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("error: {message}");
            }
            eprintln!("usage: falling_cubes [--frames N] [--entities N]   (defaults: 600 frames, 10000 cubes)");
            return if message.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
    };

    let mut world = CubeWorld::with_capacity(options.entities as usize);
    let mut rng = Rng(42);
    for _ in 0..options.entities {
        world.spawn_with(rng.cube());
    }
    // Resources are public fields: seed the generator that makes new cubes.
    world.rng = Rng(0x5eed_cafe);

    // Steps run in the order they are added. `recycle` reads transforms and
    // writes two resources, `tick` writes a third: nothing in common, so
    // they may share a stage (the compiler checks it). `gravity` writes the
    // bodies that `integrate` reads, so those two must run one after the
    // other. `named` gives each system a short name for the timings.
    let mut schedule = Schedule::new();
    schedule
        .add_system_named("gravity", gravity)
        .add_system_named("integrate", integrate)
        .add_systems((named("recycle", recycle), named("tick", tick)))
        .add_sync_point();

    let mut stats = ScheduleStats::with_window(options.frames.max(1) as usize);
    for _ in 0..options.frames {
        schedule.run_timed(&mut world, &mut stats);
        // What the sync point applied, per system: every command must have
        // gone through, and the spawns are counted from what was made.
        for (system, report) in schedule.last_reports() {
            assert!(
                report.is_clean(),
                "{system}: recycling failed: {:?}",
                report.rejected()
            );
            world.recycled.spawned += report.spawned().len() as u64;
        }
    }

    let recycled = world.recycled;
    let lowest = world
        .transform
        .values()
        .iter()
        .map(|t| t.position[1])
        .fold(f32::INFINITY, f32::min);
    println!(
        "{} frames of {} cubes: {} alive at the end, {} fell through the floor and {} were respawned",
        options.frames,
        options.entities,
        world.entity_count(),
        recycled.despawned,
        recycled.spawned
    );
    println!(
        "storages: {} transforms, {} rigid bodies, {} gravities; lowest cube at {lowest:.2} m",
        world.size::<Transform>(),
        world.size::<RigidBody>(),
        world.size::<Gravity>()
    );
    println!();
    print!("{stats}");

    assert_eq!(
        world.entity_count(),
        options.entities as usize,
        "recycling keeps the count"
    );
    assert_eq!(
        world.time.frame,
        u64::from(options.frames),
        "one tick a frame"
    );
    ExitCode::SUCCESS
}
