//! `commands_frame`: a frame of a schedule of four systems over `n`
//! entities (10,000), with despawns and spawns through deferred commands
//! (issue 30, target 4: ≤ 0.6× the best peer). Every entity has a
//! [`Position`], a [`Velocity`] and a [`Life`]; timed: one frame, on a
//! state that persists from run to run.
//!
//! The frame, in order:
//!
//! 1. **movement**: position += velocity, every entity.
//! 2. **aging**: life -= 1, every entity.
//! 3. **deaths**: every entity whose life reached 0 is despawned through
//!    deferred commands, and counted in a resource ([`Census`]).
//! 4. **births**: as many entities as died this frame are spawned through
//!    deferred commands, each with the next free id's position and
//!    velocity and a life of [`LIFESPAN`].
//!
//! then the commands are applied. Lives start at `i % LIFESPAN + 1`, so
//! `n / LIFESPAN` entities (100 at 10,000) die and as many are born each
//! frame, and the population stays at `n`. Every value is a function of
//! an entity's id and its age, so all implementations end each frame in
//! the same state.
//!
//! - typed_ecs: a world of the three components and the census; a
//!   `Schedule` of four `add_system`s and `add_sync_point()`, as the
//!   guide writes one: `join((pos, vel))` for movement, `values_mut` for
//!   aging, `&mut Commands<Crowd>`'s `despawn` and `spawn_with` for deaths
//!   and births. No group is declared.
//! - bevy: the same four systems (`Query`, `ResMut<Census>`, `Commands`'s
//!   `entity(e).despawn()` and `spawn`), chained in a `Schedule` on the
//!   `SingleThreadedExecutor` with an explicit `ApplyDeferred` at the end
//!   (the automatic sync points off, so that both apply the commands at
//!   the same place).
//! - hecs: four plain functions over the `World` (`query_mut`) and a
//!   `CommandBuffer` (`despawn`, `spawn`), applied with `run_on` at the
//!   end: the best peer the issue names.
//! - raw: four `Vec`s (positions, velocities, lives, ids) and a `Vec` of
//!   ops; a despawn is a `swap_remove` from each, a spawn a push to each.

use crate::components::{Position, Velocity};
use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "commands_frame",
    what: "one frame of a schedule of four systems (movement, aging, deaths, births) over \
           10,000 entities: 100 despawns and 100 spawns through deferred commands, applied at \
           the frame's end",
    sizes: &[10_000],
    size_note: "",
    test_size: 300,
    fresh_state: false,
    impls: crate::impls![typed_ecs, hecs, bevy, raw],
    notes: "typed_ecs runs its `Schedule` (four systems, a sync point), bevy a chained \
            `Schedule` on its single-threaded executor ending in `ApplyDeferred`, hecs four \
            plain functions and a `CommandBuffer`. shipyard, sparsey and specs are not written \
            (the issue's target names hecs as the best peer).",
};

/// How many frames an entity lives.
pub const LIFESPAN: u32 = 100;

/// Frames left to live.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Life(pub u32);

/// Births and deaths so far, the deaths of this frame, and the next id.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::resource::Resource)]
pub struct Census {
    births: u64,
    deaths: u64,
    died: u64,
    next_id: u64,
}

impl Census {
    /// A census of the first `n` entities.
    fn new(n: usize) -> Self {
        Census {
            next_id: n as u64,
            ..Census::default()
        }
    }

    /// One death.
    fn death(&mut self) {
        self.deaths += 1;
        self.died += 1;
    }

    /// The newborns of this frame, one per death: their ids.
    fn births(&mut self) -> impl Iterator<Item = u64> {
        let first = self.next_id;
        self.next_id += self.died;
        self.births += self.died;
        self.died = 0;
        first..self.next_id
    }
}

/// The entity of id `id`, with `life` to live.
fn entity(id: u64, life: u32) -> (Position, Velocity, Life) {
    let i = id as f32;
    (
        Position([i * 0.25, (id % 13) as f32, -i * 0.125]),
        Velocity([
            ((id % 5) as f32 - 2.0) * 0.5,
            0.25,
            ((id % 3) as f32 - 1.0) * 0.75,
        ]),
        Life(life),
    )
}

/// The `i`th entity at the start.
fn first(i: usize) -> (Position, Velocity, Life) {
    entity(i as u64, i as u32 % LIFESPAN + 1)
}

/// A newborn.
fn newborn(id: u64) -> (Position, Velocity, Life) {
    entity(id, LIFESPAN)
}

/// One step of movement.
fn moved(p: &mut Position, v: &Velocity) {
    for (x, dx) in p.0.iter_mut().zip(v.0) {
        *x += dx;
    }
}

/// The census and sums over the entities.
fn check<'a>(
    census: &Census,
    entities: impl IntoIterator<Item = (&'a Position, &'a Life)>,
) -> Check {
    let (mut alive, mut lives, mut xyz) = (0usize, 0u64, [0.0f64; 3]);
    for (p, life) in entities {
        alive += 1;
        lives += u64::from(life.0);
        for (sum, x) in xyz.iter_mut().zip(p.0) {
            *sum += f64::from(x);
        }
    }
    vec![
        ("alive", alive as f64),
        ("births", census.births as f64),
        ("deaths", census.deaths as f64),
        ("sum of lives", lives as f64),
        ("sum of x", xyz[0]),
        ("sum of y", xyz[1]),
        ("sum of z", xyz[2]),
    ]
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! {
        pub struct Crowd<Position, Velocity, Life>;
        resources { census: Census }
    }

    fn movement(pos: &mut SparseMap<Position>, vel: &SparseMap<Velocity>) {
        join((pos, vel)).for_each(|_, (p, v)| moved(p, v));
    }

    fn aging(lives: &mut SparseMap<Life>) {
        for life in lives.values_mut() {
            life.0 -= 1;
        }
    }

    fn deaths(lives: &SparseMap<Life>, census: &mut Census, commands: &mut Commands<Crowd>) {
        for (e, life) in lives.iter() {
            if life.0 == 0 {
                commands.despawn(e);
                census.death();
            }
        }
    }

    fn births(census: &mut Census, commands: &mut Commands<Crowd>) {
        for id in census.births() {
            commands.spawn_with(newborn(id));
        }
    }

    pub struct State {
        world: Crowd,
        schedule: Schedule<Crowd>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = Crowd::new();
        for i in 0..n {
            world.spawn_with(first(i));
        }
        world.census = Census::new(n);
        let mut schedule = Schedule::new();
        schedule
            .add_system(movement)
            .add_system(aging)
            .add_system(deaths)
            .add_system(births)
            .add_sync_point();
        State { world, schedule }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.schedule.run(&mut self.world);
        }
        fn check(&self) -> Check {
            let w = &self.world;
            check(
                &w.census,
                w.query::<(&Position, &Life)>().map(|(_, pair)| pair),
            )
        }
    }
}

pub mod hecs {
    use super::*;
    use ::hecs::{CommandBuffer, Entity, World};

    fn movement(world: &mut World) {
        for (p, v) in world.query_mut::<(&mut Position, &Velocity)>() {
            moved(p, v);
        }
    }

    fn aging(world: &mut World) {
        for life in world.query_mut::<&mut Life>() {
            life.0 -= 1;
        }
    }

    fn deaths(world: &mut World, census: &mut Census, commands: &mut CommandBuffer) {
        for (e, life) in world.query_mut::<(Entity, &Life)>() {
            if life.0 == 0 {
                commands.despawn(e);
                census.death();
            }
        }
    }

    fn births(census: &mut Census, commands: &mut CommandBuffer) {
        for id in census.births() {
            commands.spawn(newborn(id));
        }
    }

    pub struct State {
        world: World,
        census: Census,
        commands: CommandBuffer,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.spawn_batch((0..n).map(first));
        State {
            world,
            census: Census::new(n),
            commands: CommandBuffer::new(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            movement(&mut self.world);
            aging(&mut self.world);
            deaths(&mut self.world, &mut self.census, &mut self.commands);
            births(&mut self.census, &mut self.commands);
            self.commands.run_on(&mut self.world);
        }
        fn check(&self) -> Check {
            let mut q = self.world.query::<(&Position, &Life)>();
            check(&self.census, q.iter())
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::prelude::*;
    use ::bevy_ecs::schedule::{ScheduleBuildSettings, SingleThreadedExecutor};

    fn movement(mut q: Query<(&mut Position, &Velocity)>) {
        for (mut p, v) in &mut q {
            moved(&mut p, v);
        }
    }

    fn aging(mut lives: Query<&mut Life>) {
        for mut life in &mut lives {
            life.0 -= 1;
        }
    }

    fn deaths(lives: Query<(Entity, &Life)>, mut census: ResMut<Census>, mut commands: Commands) {
        for (e, life) in &lives {
            if life.0 == 0 {
                commands.entity(e).despawn();
                census.death();
            }
        }
    }

    fn births(mut census: ResMut<Census>, mut commands: Commands) {
        for id in census.births() {
            commands.spawn(newborn(id));
        }
    }

    pub struct State {
        world: World,
        schedule: Schedule,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.spawn_batch((0..n).map(first));
        world.insert_resource(Census::new(n));
        let mut schedule = Schedule::default();
        // The sync point where typed_ecs has its own, and nowhere else.
        schedule.set_build_settings(ScheduleBuildSettings {
            auto_insert_apply_deferred: false,
            ..ScheduleBuildSettings::default()
        });
        schedule.add_systems((movement, aging, deaths, births, ApplyDeferred).chain());
        schedule.set_executor(SingleThreadedExecutor::new());
        schedule
            .initialize(&mut world)
            .expect("the schedule builds");
        State { world, schedule }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.schedule.run(&mut self.world);
        }
        fn check(&self) -> Check {
            let w = &self.world;
            let mut q = w.try_query::<(&Position, &Life)>().expect("registered");
            check(w.resource::<Census>(), q.iter(w))
        }
    }
}

pub mod raw {
    use super::*;

    /// A queued change.
    enum Op {
        Despawn(usize),
        Spawn(u64),
    }

    pub struct State {
        positions: Vec<Position>,
        velocities: Vec<Velocity>,
        lives: Vec<Life>,
        census: Census,
        ops: Vec<Op>,
    }

    pub fn setup(n: usize) -> State {
        let (mut positions, mut velocities, mut lives) = (Vec::new(), Vec::new(), Vec::new());
        for (p, v, life) in (0..n).map(first) {
            positions.push(p);
            velocities.push(v);
            lives.push(life);
        }
        State {
            positions,
            velocities,
            lives,
            census: Census::new(n),
            ops: Vec::new(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (p, v) in self.positions.iter_mut().zip(&self.velocities) {
                moved(p, v);
            }
            for life in &mut self.lives {
                life.0 -= 1;
            }
            for (i, life) in self.lives.iter().enumerate() {
                if life.0 == 0 {
                    self.ops.push(Op::Despawn(i));
                    self.census.death();
                }
            }
            for id in self.census.births() {
                self.ops.push(Op::Spawn(id));
            }
            // The despawns were queued in increasing index order: applied
            // from the last, a swap-remove moves no row still to remove.
            for op in self.ops.drain(..).rev() {
                match op {
                    Op::Despawn(i) => {
                        self.positions.swap_remove(i);
                        self.velocities.swap_remove(i);
                        self.lives.swap_remove(i);
                    }
                    Op::Spawn(id) => {
                        let (p, v, life) = newborn(id);
                        self.positions.push(p);
                        self.velocities.push(v);
                        self.lives.push(life);
                    }
                }
            }
        }
        fn check(&self) -> Check {
            check(&self.census, self.positions.iter().zip(&self.lives))
        }
    }
}
