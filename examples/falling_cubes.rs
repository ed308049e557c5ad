//! The classic sparse-set ECS demo: cubes falling under gravity.
//!
//! Every cube has a `Transform`, a `RigidBody` and a `Gravity`. Each frame:
//!
//! 1. `gravity` accelerates every rigid body (a `for` loop over `query_mut`);
//! 2. `integrate` moves and spins every cube (`for_each` over `query_mut`,
//!    a dense walk: `Transform` and `RigidBody` are an owning group);
//! 3. `recycle` despawns the cubes that fell below the floor and spawns new
//!    ones at the top, through a `Commands` buffer filled while the world is
//!    borrowed by a query, then applied;
//!
//! and the schedule times each system. At the end it prints entity counts and
//! the min / median / max time of every system.
//!
//! ```text
//! cargo run --release --example falling_cubes -- --frames 600 --entities 10000
//! ```

use std::process::ExitCode;

use typed_ecs::prelude::*;
use typed_ecs::schedule::ScheduleStats;

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

world! {
    /// A box of falling cubes. `integrate` joins transforms and bodies
    /// every frame, so they are an owning group: that join walks two
    /// packed slices.
    #[derive(Debug, Clone)]
    pub struct CubeWorld<Transform, RigidBody, Gravity>;
    group (Transform, RigidBody);
}

/// A small deterministic generator, so every run falls the same way.
struct Rng(u64);

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

fn gravity(world: &mut CubeWorld) {
    for (_cube, (body, gravity)) in world.query_mut::<(&mut RigidBody, &Gravity)>() {
        body.velocity[1] -= gravity.0 * DT;
    }
}

fn integrate(world: &mut CubeWorld) {
    world
        .query_mut::<(&mut Transform, &RigidBody)>()
        .for_each(|_cube, (transform, body)| {
            for axis in 0..3 {
                transform.position[axis] += body.velocity[axis] * DT;
                transform.rotation[axis] += body.spin[axis] * DT;
            }
        });
}

/// Counts of what `recycle` did over the run.
#[derive(Debug, Default, Clone, Copy)]
struct Recycled {
    despawned: u64,
    spawned: u64,
}

/// Makes the recycle system: a closure that keeps its command buffer (reused
/// every frame, so it allocates only while growing) and its random generator.
fn recycle(totals: std::rc::Rc<std::cell::Cell<Recycled>>) -> impl FnMut(&mut CubeWorld) {
    let mut commands = Commands::new();
    let mut rng = Rng(0x5eed_cafe);
    move |world: &mut CubeWorld| {
        let mut fallen = 0;
        for (cube, transform) in world.query::<&Transform>() {
            if transform.position[1] < FLOOR {
                commands.despawn(cube);
                commands.spawn_with(rng.cube());
                fallen += 1;
            }
        }
        let report = world.apply(&mut commands);
        assert!(
            report.is_clean(),
            "recycling failed: {:?}",
            report.rejected()
        );
        let mut recycled = totals.get();
        recycled.despawned += fallen;
        recycled.spawned += report.spawned().len() as u64;
        totals.set(recycled);
    }
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

    let totals = std::rc::Rc::new(std::cell::Cell::new(Recycled::default()));
    let mut schedule = Schedule::new();
    schedule
        .add_system_named("gravity", gravity)
        .add_system_named("integrate", integrate)
        .add_system_named("recycle", recycle(totals.clone()))
        .add_sync_point();

    let mut stats = ScheduleStats::with_window(options.frames.max(1) as usize);
    for _ in 0..options.frames {
        schedule.run_timed(&mut world, &mut stats);
    }

    let recycled = totals.get();
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
    ExitCode::SUCCESS
}
