//! The falling-cubes demo of the article typed_ecs's design started from,
//! translated line for line: Austin Morlan, "A Simple Entity Component System
//! (ECS) [C++]" (2019), section *Demo*.
//!
//! The article's demo gives each of 10,000 cubes a `Gravity`, a `RigidBody`
//! and a `Transform`, then runs `PhysicsSystem::Update(dt)` in a loop, with
//! `dt` measured by a clock around the update. This program does the same,
//! with the same random ranges drawn from the same generator, so its numbers
//! can be set next to the article's program. (`falling_cubes` is a different,
//! richer demo: fixed time step, spinning cubes, recycling through
//! `Commands`, an owning group.)
//!
//! ```text
//! cargo run --release --example seed_cubes -- [--frames 1000] [--entities 10000] [--fixed-dt SECONDS] [--draw-order gcc|clang]
//! ```
//!
//! It prints the frames, the cubes, the average update time, the first cube
//! as created, and a checksum (the sum of every coordinate of every position,
//! in creation order, in `f64`) at the start and at the end. The article's
//! listings, put together with a three-float `Vec3` and built with g++ 12
//! (`-O2`, libstdc++), print the same checksums: 1629.571564 at the start
//! and, after `--frames 1000 --fixed-dt 0.016`, -6998377.430859.
//! `cargo test --release --example seed_cubes` checks the generator against
//! the C++ standard and libstdc++.
//!
//! # What it keeps from the article
//!
//! - **10,000 cubes** by default, as the article's text says ("a demo that
//!   instantiates 10,000 cubes"). Its listings size everything by
//!   `MAX_ENTITIES`, which the *Entity* section sets to 5,000, and `main`
//!   makes `std::vector<Entity> entities(MAX_ENTITIES)`; `--entities 5000`
//!   runs that reading.
//! - **The components** of the demo: `Gravity { force: Vec3 }`,
//!   `RigidBody { velocity, acceleration }` and
//!   `Transform { position, rotation, scale }`, all `Vec3` of `f32` (the
//!   demo's `Transform` has a `Vec3 rotation`, not the `Quat` of the
//!   article's first sketch).
//! - **The update**, position before velocity:
//!   `transform.position += rigidBody.velocity * dt;` then
//!   `rigidBody.velocity += gravity.force * dt;`.
//! - **The random set-up**, value for value. `std::default_random_engine` is
//!   libstdc++'s `minstd_rand0` (x ← 16807·x mod (2³¹ − 1), default seed 1)
//!   and `uniform_real_distribution<float>` is libstdc++'s
//!   `generate_canonical` scaled to the range; both are written out below
//!   ([`MinstdRand0`], [`UniformRealDistribution`]) instead of taken from a
//!   crate, because only these exact algorithms reproduce the article's
//!   cubes. One scale in [3, 5) is drawn once for every cube; then, for each
//!   cube, gravity y in [-10, -1), the position in [-100, 100)³ and the
//!   rotation in [0, 3)³.
//! - **The order of the draws.** C++ leaves unspecified the order in which
//!   the three arguments of `Vec3(randPosition(generator), …)` are
//!   evaluated. g++ evaluates them last to first (z, y, x), clang first to
//!   last. The default, `--draw-order gcc`, is g++'s, libstdc++'s own
//!   compiler: checked against the article's `main` built with g++ 12, the
//!   first cube is gravity -8.81616, position (6.553444, -8.269974,
//!   51.121063). `--draw-order clang` gives clang's.
//! - **The clock.** As in the listing, the clock brackets the update alone,
//!   so `dt` is the time the previous update took (some tens of
//!   microseconds, and 0 for the first frame): the cubes barely move. Runs
//!   with a measured `dt` end at different positions; `--fixed-dt 0.016`
//!   steps every frame by that amount instead, so two runs (or this program
//!   and a C++ build of the article's listings) can be compared to the last
//!   bit. The clock still times the update.
//! - **The loop** runs `--frames N` times (default 1,000) instead of
//!   `while (!quit)`, and nothing is drawn: the article's program also had
//!   a rendering system, which the article leaves out of its listings.
//!
//! # From the article's code to typed_ecs
//!
//! | the article (C++) | here |
//! |---|---|
//! | `Coordinator gCoordinator; gCoordinator.Init();` | `let mut world = CubeWorld::with_capacity(n);` |
//! | `RegisterComponent<Gravity>()`, `<RigidBody>()`, `<Transform>()` | `world! { pub struct CubeWorld<Gravity, RigidBody, Transform>; }` |
//! | `RegisterSystem<PhysicsSystem>()`, its `Signature` and `SetSystemSignature` | the query's type: `query_mut::<(&mut RigidBody, &mut Transform, &Gravity)>()` |
//! | `PhysicsSystem::mEntities`, a `std::set<Entity>` updated on every `AddComponent` | nothing to keep up to date: the query finds the entities that have all three when it runs |
//! | `gCoordinator.CreateEntity()` | `world.spawn()` |
//! | `gCoordinator.AddComponent(entity, Gravity{…})` | `world.add(entity, Gravity { … })` (or all three at once: `world.spawn_with((gravity, rigid_body, transform))`) |
//! | `gCoordinator.GetComponent<RigidBody>(entity)`, for each entity of `mEntities` | the query's item: `(rigid_body, transform, gravity)` |
//! | `physicsSystem->Update(dt)` | `physics_system_update(&mut world, dt)` |
//! | `std::chrono::high_resolution_clock::now()` | `std::time::Instant::now()` |
//! | `std::default_random_engine`, `std::uniform_real_distribution<float>` | [`MinstdRand0`], [`UniformRealDistribution`] |
//! | `while (!quit)` | `for _ in 0..frames` |
//!
//! Two typed_ecs tools are left out on purpose. A `Schedule` runs systems
//! that take only the world; the article's system takes `dt` as an argument,
//! so the loop calls the system function directly, as the article calls
//! `Update`. And the three components are not an owning group: the
//! article's component arrays are independent packed arrays, each found
//! through an entity-to-index map, and that is what typed_ecs's storages are
//! without a group (a packed array and a sparse index per component; the
//! query looks each cube up in the other two). An owning group would go
//! further than the article, keeping the three arrays in step so the query
//! walks them side by side; `falling_cubes` shows one.

use std::ops::{AddAssign, Mul};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use typed_ecs::prelude::*;

/// The article's `Vec3` (its listings leave the math classes out): three
/// `f32`, added and scaled component by component.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

impl Vec3 {
    pub const fn new(x: f32, y: f32, z: f32) -> Self {
        Vec3 { x, y, z }
    }
}

impl Mul<f32> for Vec3 {
    type Output = Vec3;

    fn mul(self, k: f32) -> Vec3 {
        Vec3::new(self.x * k, self.y * k, self.z * k)
    }
}

impl AddAssign for Vec3 {
    fn add_assign(&mut self, other: Vec3) {
        self.x += other.x;
        self.y += other.y;
        self.z += other.z;
    }
}

/// `struct Gravity { Vec3 force; };`
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gravity {
    pub force: Vec3,
}

/// `struct RigidBody { Vec3 velocity; Vec3 acceleration; };` (the demo
/// never reads `acceleration`; it is kept so each cube carries the same data).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidBody {
    pub velocity: Vec3,
    pub acceleration: Vec3,
}

/// `struct Transform { Vec3 position; Vec3 rotation; Vec3 scale; };`
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub position: Vec3,
    pub rotation: Vec3,
    pub scale: Vec3,
}

world! {
    /// The article's `Coordinator` with its three registered components.
    pub struct CubeWorld<Gravity, RigidBody, Transform>;
}

/// The article's `PhysicsSystem::Update(float dt)`: every entity that has a
/// `RigidBody`, a `Transform` and a `Gravity` moves, then accelerates.
fn physics_system_update(world: &mut CubeWorld, dt: f32) {
    world
        .query_mut::<(&mut RigidBody, &mut Transform, &Gravity)>()
        .for_each(|_entity, (rigid_body, transform, gravity)| {
            transform.position += rigid_body.velocity * dt;

            rigid_body.velocity += gravity.force * dt;
        });
}

/// libstdc++'s `std::default_random_engine`, which is `std::minstd_rand0`:
/// the Lehmer generator x ← 16807·x mod (2³¹ − 1). A default-constructed
/// engine, like the article's `generator`, starts from seed 1, so its
/// first outputs are 16807, 282475249, 1622650073.
struct MinstdRand0 {
    state: u32,
}

impl MinstdRand0 {
    const MULTIPLIER: u64 = 16_807;
    const MODULUS: u64 = (1 << 31) - 1;
    /// `min()`: 0 never comes out of a Lehmer generator.
    const MIN: u32 = 1;
    /// `max()`.
    const MAX: u32 = (1 << 31) - 2;

    /// The engine as `std::default_random_engine generator;` makes it.
    fn new() -> Self {
        MinstdRand0 { state: 1 }
    }

    /// `generator()`: the next value, in `MIN..=MAX`.
    fn next_u32(&mut self) -> u32 {
        // Both factors are below 2^31, so the product fits in a u64 and the
        // remainder below 2^31 fits in a u32.
        self.state = (u64::from(self.state) * Self::MULTIPLIER % Self::MODULUS) as u32;
        self.state
    }
}

/// libstdc++'s `std::uniform_real_distribution<float>(a, b)` drawing from a
/// [`MinstdRand0`]: `generate_canonical<float, 24>(generator) * (b - a) + a`,
/// all in `f32`.
struct UniformRealDistribution {
    a: f32,
    b: f32,
}

impl UniformRealDistribution {
    fn new(a: f32, b: f32) -> Self {
        UniformRealDistribution { a, b }
    }

    /// `distribution(generator)`.
    fn sample(&self, generator: &mut MinstdRand0) -> f32 {
        generate_canonical(generator) * (self.b - self.a) + self.a
    }
}

/// libstdc++'s `std::generate_canonical<float, 24>` for an engine whose range
/// R = max − min + 1 is 2³¹ − 2. log₂ R rounds down to 30 bits, enough for
/// a float's 24, so it takes one draw: `float(x - min) / float(R)`, where
/// `float(R)` rounds to 2³¹. A result that rounds up to 1 becomes the float
/// just below 1 (`std::nextafter(1.0f, 0.0f)`), as libstdc++ has done since
/// the standard was fixed to exclude 1.
fn generate_canonical(generator: &mut MinstdRand0) -> f32 {
    const RANGE: u32 = MinstdRand0::MAX - MinstdRand0::MIN + 1;
    let canonical = (generator.next_u32() - MinstdRand0::MIN) as f32 / RANGE as f32;
    if canonical >= 1.0 {
        1.0 - f32::EPSILON / 2.0
    } else {
        canonical
    }
}

/// In which order the three draws of `Vec3(rand(g), rand(g), rand(g))` are
/// made: C++ leaves it to the compiler.
#[derive(Debug, Clone, Copy, PartialEq)]
enum DrawOrder {
    /// g++: last argument first (z, y, x).
    Gcc,
    /// clang: first argument first (x, y, z).
    Clang,
}

/// `Vec3(draw(), draw(), draw())` as the chosen compiler evaluates it.
fn vec3_of_draws(order: DrawOrder, mut draw: impl FnMut() -> f32) -> Vec3 {
    match order {
        DrawOrder::Gcc => {
            let z = draw();
            let y = draw();
            let x = draw();
            Vec3::new(x, y, z)
        }
        DrawOrder::Clang => {
            let x = draw();
            let y = draw();
            let z = draw();
            Vec3::new(x, y, z)
        }
    }
}

/// The sum of every coordinate of every position, in creation order, in
/// `f64`: a short fingerprint of where the cubes are.
fn positions_checksum(world: &CubeWorld, entities: &[Entity]) -> f64 {
    entities
        .iter()
        .filter_map(|&entity| world.get::<Transform>(entity))
        .map(|transform| {
            let p = transform.position;
            f64::from(p.x) + f64::from(p.y) + f64::from(p.z)
        })
        .sum()
}

struct Options {
    frames: u32,
    entities: u32,
    fixed_dt: Option<f32>,
    draw_order: DrawOrder,
}

const USAGE: &str =
    "usage: seed_cubes [--frames N] [--entities N] [--fixed-dt SECONDS] [--draw-order gcc|clang]\n\
    (defaults: 1000 frames, 10000 cubes, dt measured each frame, g++'s draw order)";

fn whole_number(flag: &str, value: &str) -> Result<u32, String> {
    value
        .parse()
        .map_err(|_| format!("`{flag}` needs a whole number, not `{value}`"))
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        frames: 1_000,
        entities: 10_000,
        fixed_dt: None,
        draw_order: DrawOrder::Gcc,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("`{flag}` needs a value"));
        match flag.as_str() {
            "--help" | "-h" => return Err(String::new()),
            "--frames" => options.frames = whole_number(&flag, &value()?)?,
            "--entities" => options.entities = whole_number(&flag, &value()?)?,
            "--fixed-dt" => {
                let value = value()?;
                let dt = value
                    .parse::<f32>()
                    .ok()
                    .filter(|dt| dt.is_finite())
                    .ok_or_else(|| format!("`--fixed-dt` needs seconds, not `{value}`"))?;
                options.fixed_dt = Some(dt);
            }
            "--draw-order" => {
                options.draw_order = match value()?.as_str() {
                    "gcc" => DrawOrder::Gcc,
                    "clang" => DrawOrder::Clang,
                    other => {
                        return Err(format!("`--draw-order` is `gcc` or `clang`, not `{other}`"))
                    }
                }
            }
            other => return Err(format!("unknown option `{other}`")),
        }
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
            eprintln!("{USAGE}");
            return if message.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
    };
    let order = options.draw_order;

    let mut world = CubeWorld::with_capacity(options.entities as usize);

    let mut entities = Vec::with_capacity(options.entities as usize);

    let mut generator = MinstdRand0::new();
    let rand_position = UniformRealDistribution::new(-100.0, 100.0);
    let rand_rotation = UniformRealDistribution::new(0.0, 3.0);
    let rand_scale = UniformRealDistribution::new(3.0, 5.0);
    let rand_gravity = UniformRealDistribution::new(-10.0, -1.0);

    let scale = rand_scale.sample(&mut generator);

    for _ in 0..options.entities {
        let entity = world.spawn();

        world.add(
            entity,
            Gravity {
                force: Vec3::new(0.0, rand_gravity.sample(&mut generator), 0.0),
            },
        );

        world.add(
            entity,
            RigidBody {
                velocity: Vec3::new(0.0, 0.0, 0.0),
                acceleration: Vec3::new(0.0, 0.0, 0.0),
            },
        );

        world.add(
            entity,
            Transform {
                position: vec3_of_draws(order, || rand_position.sample(&mut generator)),
                rotation: vec3_of_draws(order, || rand_rotation.sample(&mut generator)),
                scale: Vec3::new(scale, scale, scale),
            },
        );

        entities.push(entity);
    }

    let start_checksum = positions_checksum(&world, &entities);
    let first = entities.first().map(|&entity| {
        (
            world.get::<Gravity>(entity).copied(),
            world.get::<Transform>(entity).copied(),
        )
    });

    let mut dt = options.fixed_dt.unwrap_or(0.0);
    let mut simulated = 0.0f64;
    let mut updating = Duration::ZERO;

    for _ in 0..options.frames {
        let start_time = Instant::now();

        physics_system_update(&mut world, dt);

        let stop_time = Instant::now();

        simulated += f64::from(dt);
        let took = stop_time - start_time;
        updating += took;
        dt = options.fixed_dt.unwrap_or(took.as_secs_f32());
    }

    let average = if options.frames == 0 {
        "no update ran".to_string()
    } else {
        let micros = updating.as_secs_f64() * 1e6 / f64::from(options.frames);
        format!("{micros:.1} µs per update")
    };
    println!(
        "{} frames of {} cubes: {average}, {simulated:.6} s simulated ({}); positions checksum {:.6}",
        options.frames,
        options.entities,
        match options.fixed_dt {
            Some(dt) => format!("fixed dt {dt} s"),
            None => "dt measured each frame".to_string(),
        },
        positions_checksum(&world, &entities),
    );
    println!("positions checksum at the start: {start_checksum:.6} ({order:?} draw order)");
    if let Some((Some(gravity), Some(transform))) = first {
        println!(
            "first cube as created: gravity {:?}, position {:?}, rotation {:?}, scale {}",
            gravity.force.y,
            (
                transform.position.x,
                transform.position.y,
                transform.position.z
            ),
            (
                transform.rotation.x,
                transform.rotation.y,
                transform.rotation.z
            ),
            transform.scale.x,
        );
    }
    ExitCode::SUCCESS
}

/// The generator against what the C++ standard and libstdc++ say:
/// `cargo test --release --example seed_cubes`.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minstd_rand0_matches_its_definition() {
        let mut generator = MinstdRand0::new();
        let first: Vec<u32> = (0..3).map(|_| generator.next_u32()).collect();
        assert_eq!(first, [16_807, 282_475_249, 1_622_650_073]);
        // [rand.predef]: "The 10000th consecutive invocation of a
        // default-constructed object of type minstd_rand0 shall produce the
        // value 1043618065."
        let mut generator = MinstdRand0::new();
        let ten_thousandth = (0..10_000).map(|_| generator.next_u32()).last();
        assert_eq!(ten_thousandth, Some(1_043_618_065));
    }

    /// The sum, in `float`, of the first million draws of
    /// `uniform_real_distribution<float>(0, 1)` from a default
    /// `minstd_rand0`, as g++ 12 with libstdc++ computes it.
    #[test]
    fn uniform_real_distribution_matches_libstdcxx() {
        let mut generator = MinstdRand0::new();
        let unit = UniformRealDistribution::new(0.0, 1.0);
        let mut sum = 0.0f32;
        for _ in 0..1_000_000 {
            let x = unit.sample(&mut generator);
            assert!((0.0..1.0).contains(&x), "{x} is outside [0, 1)");
            sum += x;
        }
        assert_eq!(sum, 500_028.53);
    }

    /// The article's set-up for one cube, as its `main` built with g++ 12
    /// creates it.
    #[test]
    fn the_first_cube_is_the_articles() {
        let mut generator = MinstdRand0::new();
        let scale = UniformRealDistribution::new(3.0, 5.0).sample(&mut generator);
        let gravity = UniformRealDistribution::new(-10.0, -1.0).sample(&mut generator);
        let position = vec3_of_draws(DrawOrder::Gcc, || {
            UniformRealDistribution::new(-100.0, 100.0).sample(&mut generator)
        });
        let rotation = vec3_of_draws(DrawOrder::Gcc, || {
            UniformRealDistribution::new(0.0, 3.0).sample(&mut generator)
        });
        assert_eq!(scale, 3.000_015_7);
        assert_eq!(gravity, -8.816_16);
        assert_eq!(position, Vec3::new(6.553_444, -8.269_974, 51.121_063));
        assert_eq!(rotation, Vec3::new(2.036_594_2, 0.141_133_84, 0.656_877_5));
    }
}
