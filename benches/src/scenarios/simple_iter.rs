//! `simple_iter` (and `scaling`): `n` entities (10,000; `scaling`: 1k to
//! 1M) with `(Transform, Position, Rotation, Velocity)`; timed: position +=
//! velocity for every entity ([`integrate`]). `simple_iter_plain` is the
//! same work with no group declared ([`plain`]; sparsey left out).
//!
//! - typed_ecs: a world with the owning group `(Position, Velocity)` (what
//!   a game whose systems join them declares), and
//!   `query_mut::<(&mut Position, &Velocity)>().for_each(..)`.
//! - hecs: `query_mut::<(&mut Position, &Velocity)>()` in a `for` loop.
//! - bevy: a `QueryState<(&mut Position, &Velocity)>` made in setup (a
//!   system keeps its query state the same way), `iter_mut(..).for_each`.
//! - shipyard: `world.run` with `ViewMut<Position>` and `View<Velocity>`,
//!   `(&mut p, &v).iter().for_each(..)`.
//! - sparsey: a world with the group `(Position, Velocity)` (sparsey's way
//!   to pack what a system iterates together), `for_each`.
//! - specs: `(&mut WriteStorage<Position>, &ReadStorage<Velocity>).join()`.
//! - raw: two `Vec`s zipped.

use super::sum;
use crate::components::*;
use crate::{Check, Instance, Scenario};

/// The scenario at 10,000 entities.
pub const SCENARIO: Scenario = Scenario {
    name: "simple_iter",
    what: "position += velocity over every entity of (Transform, Position, Rotation, Velocity)",
    sizes: &[10_000],
    size_note: "",
    test_size: 100,
    fresh_state: false,
    impls: IMPLS,
    notes: "sparsey and typed_ecs declare the group (Position, Velocity). `typed_ecs_generic` is \
            the work in a function generic over the world, `typed_ecs_system` a concrete system \
            in a `Schedule`, `typed_ecs_plugin` a plugin's generic system in a world that takes \
            `Position` and `Velocity` from the plugin.",
};

/// `simple_iter` at 1k, 10k, 100k and 1M entities.
pub const SCENARIO_SCALING: Scenario = Scenario {
    name: "scaling",
    what: "the work of `simple_iter` at 1k, 10k, 100k and 1M entities",
    sizes: &[1_000, 10_000, 100_000, 1_000_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: crate::impls![
        typed_ecs,
        typed_ecs_plain = plain,
        hecs,
        bevy,
        shipyard,
        sparsey,
        specs,
        raw
    ],
    notes: "sparsey and typed_ecs declare the group (Position, Velocity); `typed_ecs_plain` is \
            the world of `simple_iter_plain`, with no group.",
};

/// `simple_iter`'s work on every thread, at 100k: `par_for_each` over
/// the group, and over storages with no group, filled by the same spawns.
pub const SCENARIO_PAR: Scenario = Scenario {
    name: "simple_iter_par",
    what: "the work of `simple_iter` (position += velocity) with each crate's parallel iteration",
    sizes: &[100_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: crate::impls![
        in par: typed_ecs,
        typed_ecs_plain,
        typed_ecs_plain_for_each,
        raw
    ],
    notes: "typed_ecs declares the group (Position, Velocity); `typed_ecs_plain` is the world of \
            `simple_iter_plain` (no group), whose `par_for_each` splits the slots where the two \
            storages hold the same entities as rows; `typed_ecs_plain_for_each` is that world's \
            `for_each` on one thread, for scale. raw: rayon's `par_iter_mut().zip(..)`.",
};

const IMPLS: &[crate::Impl] = crate::impls![
    typed_ecs,
    typed_ecs_generic = generic,
    typed_ecs_system = system,
    typed_ecs_plugin = plugin,
    hecs,
    bevy,
    shipyard,
    sparsey,
    specs,
    raw
];

/// `simple_iter` over a world that declares no group: what a user who
/// never declares one gets.
pub const SCENARIO_PLAIN: Scenario = Scenario {
    name: "simple_iter_plain",
    what: "the work of `simple_iter` (position += velocity over every entity of (Transform, \
           Position, Rotation, Velocity)) with no group declared",
    sizes: &[10_000],
    size_note: "",
    test_size: 100,
    fresh_state: false,
    impls: crate::impls![
        typed_ecs = plain,
        typed_ecs_for = plain_for,
        typed_ecs_in_part = plain_in_part,
        typed_ecs_for_in_part = plain_for_in_part,
        hecs,
        bevy,
        shipyard,
        specs,
        raw
    ],
    notes: "typed_ecs declares no group: `query_mut::<(&mut Position, &Velocity)>().for_each(..)` \
            is driven by one storage; the two list the entities in the same order (each was \
            spawned with one bundle), so it walks them side by side as rows once it has checked, \
            16 entities at a time, that they line up. The storages remember that check: every \
            run after the first, with no entity moved or removed since, skips it. \
            `typed_ecs_for` is the same world walked by a `for` loop over the same query, as \
            hecs's and bevy's are: it asks once whether the storages line up over all of the \
            driver's slots, and walks them as rows if so. `typed_ecs_in_part` and \
            `typed_ecs_for_in_part` walk the same world after the entity spawned at 70% of the \
            run took its `Position` off and back on (the last position moved into its slot, and \
            it went to the end): the storages line up for the first 70% of the slots only; \
            `for_each` walks that part as rows and finds the runs after it that line up again, \
            the `for` loop walks that part as rows and looks the rest up. sparsey is \
            left out: its `simple_iter` world packs the pair in a group, and without one it has \
            no join of its own.",
};

/// Number of entities that matched, and the sum of every position.
pub(crate) fn check<'a>(positions: impl IntoIterator<Item = &'a Position>) -> Check {
    let positions: Vec<&Position> = positions.into_iter().collect();
    vec![
        ("entities", positions.len() as f64),
        ("position sum", sum(&positions, |p| p.0.iter().sum())),
    ]
}

/// typed_ecs's implementation over the world `$world` (the same work with or
/// without a group, tracked or not): spawned one at a time, then
/// `query_mut::<(&mut Position, &Velocity)>().for_each(..)`; with `then
/// method`, `world.method()` after the spawns and after each run (a tracked
/// world's `clear_changes`).
macro_rules! typed_ecs_state {
    ($world:ident $(, then $after:ident)?) => {
        pub struct State(pub(crate) $world);

        pub fn setup(n: usize) -> State {
            let mut world = $world::new();
            for _ in 0..n {
                world.spawn_with(std_entity());
            }
            $(world.$after();)?
            State(world)
        }

        impl Instance for State {
            fn run(&mut self) {
                self.0
                    .query_mut::<(&mut Position, &Velocity)>()
                    .for_each(|_, (p, v)| integrate(p, v));
                $(self.0.$after();)?
            }
            fn check(&self) -> Check {
                check(
                    self.0
                        .query::<(&Position, &Velocity)>()
                        .map(|(_, (p, _))| p),
                )
            }
            fn addresses(&self) -> Vec<(&'static str, usize)> {
                vec![
                    ("Position", self.0.position.values().as_ptr() as usize),
                    ("Velocity", self.0.velocity.values().as_ptr() as usize),
                ]
            }
        }
    };
}

pub(crate) use typed_ecs_state;

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! {
        pub struct StdWorld<Transform, Position, Rotation, Velocity>;
        group (Position, Velocity);
    }

    typed_ecs_state!(StdWorld);
}

/// typed_ecs's world and work, written in a function generic over the
/// world (`W: World + Contains<Position> + Contains<Velocity>`): the same
/// instructions as `typed_ecs` (issue 26's cost item; `counts.sh` shows
/// both rows).
pub mod generic {
    use super::typed_ecs::StdWorld;
    use super::*;
    use ::typed_ecs::prelude::*;

    /// The work, for any world with both components.
    fn step<W: World + Contains<Position> + Contains<Velocity>>(world: &mut W) {
        world
            .query_mut::<(&mut Position, &Velocity)>()
            .for_each(|_, (p, v)| integrate(p, v));
    }

    pub struct State(StdWorld);

    pub fn setup(n: usize) -> State {
        State(super::typed_ecs::setup(n).0)
    }

    impl Instance for State {
        fn run(&mut self) {
            step(&mut self.0);
        }
        fn check(&self) -> Check {
            check(self.0.position.values())
        }
    }
}

/// The work as a concrete system in a `Schedule` (`typed_ecs_plugin`'s
/// baseline).
pub mod system {
    use super::typed_ecs::StdWorld;
    use super::*;
    use ::typed_ecs::prelude::*;

    fn step(pos: &mut SparseMap<Position>, vel: &SparseMap<Velocity>) {
        join((pos, vel)).for_each(|_, (p, v)| integrate(p, v));
    }

    pub struct State(StdWorld, Schedule<StdWorld>);

    pub fn setup(n: usize) -> State {
        let mut schedule = Schedule::new();
        schedule.add_system(step);
        State(super::typed_ecs::setup(n).0, schedule)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.1.run(&mut self.0);
        }
        fn check(&self) -> Check {
            check(self.0.position.values())
        }
    }
}

/// The work as a plugin's system: a world that takes `Position` and
/// `Velocity` from a plugin (declared here, in this crate), whose generic
/// system the plugin adds to the schedule.
pub mod plugin {
    use super::*;
    use ::typed_ecs::prelude::*;

    ::typed_ecs::plugin! {
        /// Moves every body by its velocity.
        pub trait Integrator {
            components (Position, Velocity);
            systems add_integrator;
        }
    }

    fn step<W: Integrator>(pos: &mut StorageOf<W, Position>, vel: &StorageOf<W, Velocity>) {
        join((pos, vel)).for_each(|_, (p, v)| integrate(p, v));
    }

    /// The plugin's system.
    pub fn add_integrator<W: Integrator>(schedule: &mut Schedule<W>) {
        schedule.add_system(step::<W>);
    }

    world! {
        pub struct PluginWorld<Transform, Rotation>;
        plugins (Integrator);
        group (Position, Velocity);
    }

    pub struct State(PluginWorld, Schedule<PluginWorld>);

    pub fn setup(n: usize) -> State {
        let mut world = PluginWorld::new();
        for _ in 0..n {
            world.spawn_with(std_entity());
        }
        let mut schedule = Schedule::new();
        Integrator::add_systems(&mut schedule);
        State(world, schedule)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.1.run(&mut self.0);
        }
        fn check(&self) -> Check {
            check(self.0.position.values())
        }
    }
}

/// typed_ecs without a group, as `typed_ecs` in `simple_iter_plain`.
pub mod plain {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! {
        pub struct PlainWorld<Transform, Position, Rotation, Velocity>;
    }

    typed_ecs_state!(PlainWorld);
}

/// `simple_iter_plain` as a `for` loop: `for (_, (p, v)) in
/// world.query_mut::<(&mut Position, &Velocity)>()`, as hecs's and bevy's
/// are written.
pub mod plain_for {
    use super::plain::PlainWorld;
    use super::*;

    pub struct State(pub(crate) PlainWorld);

    pub fn setup(n: usize) -> State {
        State(super::plain::setup(n).0)
    }

    impl Instance for State {
        fn run(&mut self) {
            for (_, (p, v)) in self.0.query_mut::<(&mut Position, &Velocity)>() {
                integrate(p, v);
            }
        }
        fn check(&self) -> Check {
            check(self.0.position.values())
        }
    }
}

/// `simple_iter_plain`'s world after the entity spawned at 70% took its
/// `Position` off and back on: `Position` and `Velocity` line up in their
/// first 70% of slots only.
fn in_part(n: usize) -> plain::State {
    use ::typed_ecs::prelude::*;
    let mut state = plain::setup(n);
    let world = &mut state.0;
    let moved = world.position.entities()[n * 7 / 10];
    let position = world.remove::<Position>(moved).expect("spawned with one");
    world.add(moved, position);
    state
}

/// [`in_part`]'s world, `for_each` (`plain`'s run).
pub mod plain_in_part {
    pub fn setup(n: usize) -> super::plain::State {
        super::in_part(n)
    }
}

/// [`in_part`]'s world, a `for` loop (`plain_for`'s run).
pub mod plain_for_in_part {
    pub fn setup(n: usize) -> super::plain_for::State {
        super::plain_for::State(super::in_part(n).0)
    }
}

pub mod hecs {
    use super::*;

    pub struct State(::hecs::World);

    pub fn setup(n: usize) -> State {
        let mut world = ::hecs::World::new();
        world.spawn_batch((0..n).map(|_| std_entity()));
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            for (p, v) in self.0.query_mut::<(&mut Position, &Velocity)>() {
                integrate(p, v);
            }
        }
        fn check(&self) -> Check {
            check(
                self.0
                    .query::<(&Position, &Velocity)>()
                    .iter()
                    .map(|(p, _)| p),
            )
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{query::QueryState, world::World};

    pub struct State {
        world: World,
        query: QueryState<(&'static mut Position, &'static Velocity)>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.spawn_batch((0..n).map(|_| std_entity()));
        let query = world.query::<(&mut Position, &Velocity)>();
        State { world, query }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.query
                .iter_mut(&mut self.world)
                .for_each(|(mut p, v)| integrate(&mut p, v));
        }
        fn check(&self) -> Check {
            let mut query = self.world.try_query::<(&Position, &Velocity)>().unwrap();
            check(query.iter(&self.world).map(|(p, _)| p))
        }
    }
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{IntoIter, View, ViewMut, World};

    pub struct State(World);

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.bulk_add_entity((0..n).map(|_| std_entity()));
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.0.run(|mut p: ViewMut<Position>, v: View<Velocity>| {
                (&mut p, &v).iter().for_each(|(p, v)| integrate(p, v));
            });
        }
        fn check(&self) -> Check {
            self.0
                .run(|p: View<Position>, v: View<Velocity>| check((&p, &v).iter().map(|(p, _)| p)))
        }
    }
}

pub mod sparsey {
    use super::*;
    use ::sparsey::World;

    pub struct State(World);

    pub fn setup(n: usize) -> State {
        let mut world = World::builder()
            .add_group::<(Position, Velocity)>()
            .register::<Transform>()
            .register::<Rotation>()
            .build();
        world.extend((0..n).map(|_| std_entity()));
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.0
                .for_each::<(&mut Position, &Velocity)>(|(p, v)| integrate(p, v));
        }
        fn check(&self) -> Check {
            let mut positions = Vec::new();
            self.0
                .for_each::<(&Position, &Velocity)>(|(p, _)| positions.push(*p));
            check(&positions)
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Join, ReadStorage, World, WorldExt, WriteStorage};

    pub struct State(World);

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<Transform>();
        world.register::<Position>();
        world.register::<Rotation>();
        world.register::<Velocity>();
        for _ in 0..n {
            let (t, p, r, v) = std_entity();
            world
                .create_entity()
                .with(t)
                .with(p)
                .with(r)
                .with(v)
                .build();
        }
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            let (mut p, v) = self
                .0
                .system_data::<(WriteStorage<Position>, ReadStorage<Velocity>)>();
            (&mut p, &v).join().for_each(|(p, v)| integrate(p, v));
        }
        fn check(&self) -> Check {
            let (p, v) = self
                .0
                .system_data::<(ReadStorage<Position>, ReadStorage<Velocity>)>();
            check((&p, &v).join().map(|(p, _)| p))
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        pub(crate) positions: Vec<Position>,
        pub(crate) velocities: Vec<Velocity>,
    }

    pub fn setup(n: usize) -> State {
        State {
            positions: (0..n).map(|_| std_entity().1).collect(),
            velocities: (0..n).map(|_| std_entity().3).collect(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (p, v) in self.positions.iter_mut().zip(&self.velocities) {
                integrate(p, v);
            }
        }
        fn check(&self) -> Check {
            check(&self.positions)
        }
        fn addresses(&self) -> Vec<(&'static str, usize)> {
            vec![
                ("Position", self.positions.as_ptr() as usize),
                ("Velocity", self.velocities.as_ptr() as usize),
            ]
        }
    }
}

/// The parallel implementations of `simple_iter_par`.
pub mod par {
    use super::*;

    /// `par_for_each` over the world of `$inner` (a typed_ecs module of
    /// this file whose `State` holds the world).
    macro_rules! par_for_each {
        ($(#[$doc:meta])* $module:ident over $inner:ident) => {
            $(#[$doc])*
            pub mod $module {
                use super::*;

                pub struct State(super::super::$inner::State);

                pub fn setup(n: usize) -> State {
                    State(super::super::$inner::setup(n))
                }

                impl Instance for State {
                    fn run(&mut self) {
                        (self.0)
                            .0
                            .query_mut::<(&mut Position, &Velocity)>()
                            .par_for_each(|_, (p, v)| integrate(p, v));
                    }
                    fn check(&self) -> Check {
                        check((self.0).0.position.values())
                    }
                }
            }
        };
    }

    par_for_each!(
        /// `par_for_each` over the group.
        typed_ecs over typed_ecs
    );
    par_for_each!(
        /// `par_for_each` with no group.
        typed_ecs_plain over plain
    );

    /// The same world's `for_each`, on one thread.
    pub mod typed_ecs_plain_for_each {
        pub use super::super::plain::{setup, State};
    }

    /// rayon over two `Vec`s.
    pub mod raw {
        use super::*;
        use rayon::prelude::*;

        pub struct State(super::super::raw::State);

        pub fn setup(n: usize) -> State {
            State(super::super::raw::setup(n))
        }

        impl Instance for State {
            fn run(&mut self) {
                let raw = &mut self.0;
                raw.positions
                    .par_iter_mut()
                    .zip(&raw.velocities)
                    .for_each(|(p, v)| integrate(p, v));
            }
            fn check(&self) -> Check {
                check(&self.0.positions)
            }
        }
    }
}
