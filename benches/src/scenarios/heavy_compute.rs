//! `heavy_compute` and `heavy_compute_par`: `n` entities (1,000) with
//! `(Transform, Position, Rotation, Velocity)`; timed: for each entity,
//! invert its matrix 100 times, then set the position to the matrix times
//! the position ([`heavy`], as in ecs_bench_suite). The query is
//! `(&mut Position, &mut Transform)`.
//!
//! Single-threaded (`heavy_compute`):
//!
//! - typed_ecs: the owning group `(Position, Transform)` (declared in
//!   `world!`, as a game with this system would),
//!   `query_mut::<(&mut Position, &mut Transform)>().for_each`.
//! - hecs: `query_mut` in a `for` loop.
//! - bevy: a `QueryState` made in setup, `iter_mut(..).for_each`.
//! - shipyard: `world.run` with two `ViewMut`s, `.iter().for_each`.
//! - sparsey: group `(Position, Transform)`, `for_each`.
//! - specs: `(&mut p, &mut t).join()`.
//! - raw: two `Vec`s zipped.
//!
//! Parallel (`heavy_compute_par`), each crate's own parallel API:
//!
//! - typed_ecs: the same group; `par_for_each` on
//!   `(&mut Position, &mut Transform)` splits both storages' packed slots.
//! - hecs: `query_mut(..).into_iter_batched(64)` bridged to rayon with
//!   `par_bridge` (hecs has no rayon support of its own).
//! - bevy: `QueryState::par_iter_mut(..).for_each`. Built without bevy's
//!   `multi_threaded` feature (default features off), this runs on the
//!   calling thread.
//! - shipyard: `(&mut p, &mut t).par_iter().for_each`.
//! - sparsey: group `(Position, Transform)`, `par_for_each`.
//! - specs: `(&mut p, &mut t).par_join().for_each`.
//! - raw: rayon `par_iter_mut().zip(..)`.

use super::sum;
use crate::components::*;
use crate::{Check, Instance, Scenario};

/// The single-threaded scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "heavy_compute",
    what: "per entity: invert the 4×4 matrix 100 times, then position = matrix × position (one thread)",
    sizes: &[1_000],
    size_note: "",
    test_size: 50,
    fresh_state: false,
    impls: crate::impls![typed_ecs, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "sparsey and typed_ecs declare the group (Position, Transform).",
};

/// The parallel scenario.
pub const SCENARIO_PAR: Scenario = Scenario {
    name: "heavy_compute_par",
    what: "the work of `heavy_compute`, with each crate's parallel iteration",
    sizes: &[1_000],
    size_note: "",
    test_size: 50,
    fresh_state: false,
    impls: crate::impls![in par: typed_ecs, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "bevy_ecs is built without its \
            `multi_threaded` feature (default features off), so its `par_iter_mut` runs on one thread. \
            hecs has no parallel API: `into_iter_batched(64)` + rayon's `par_bridge`.",
};

/// Number of entities, and the sums of every position and matrix.
fn check<'a>(items: impl IntoIterator<Item = (&'a Position, &'a Transform)>) -> Check {
    let items: Vec<_> = items.into_iter().collect();
    vec![
        ("entities", items.len() as f64),
        ("position sum", sum(&items, |(p, _)| p.0.iter().sum())),
        (
            "matrix sum",
            sum(&items, |(_, t)| t.0.iter().flatten().sum()),
        ),
    ]
}

/// The single-threaded implementations.
pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! {
        pub struct HeavyWorld<Transform, Position, Rotation, Velocity>;
        group (Position, Transform);
    }

    pub struct State(pub(crate) HeavyWorld);

    pub fn setup(n: usize) -> State {
        let mut world = HeavyWorld::new();
        for _ in 0..n {
            world.spawn_with(heavy_entity());
        }
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.0
                .query_mut::<(&mut Position, &mut Transform)>()
                .for_each(|_, (p, t)| heavy(p, t));
        }
        fn check(&self) -> Check {
            check(self.0.query::<(&Position, &Transform)>().map(|(_, pt)| pt))
        }
    }
}

pub mod hecs {
    use super::*;

    pub struct State(pub(crate) ::hecs::World);

    pub fn setup(n: usize) -> State {
        let mut world = ::hecs::World::new();
        world.spawn_batch((0..n).map(|_| heavy_entity()));
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            for (p, t) in self.0.query_mut::<(&mut Position, &mut Transform)>() {
                heavy(p, t);
            }
        }
        fn check(&self) -> Check {
            check(self.0.query::<(&Position, &Transform)>().iter())
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{query::QueryState, world::World};

    pub struct State {
        pub(crate) world: World,
        pub(crate) query: QueryState<(&'static mut Position, &'static mut Transform)>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.spawn_batch((0..n).map(|_| heavy_entity()));
        let query = world.query::<(&mut Position, &mut Transform)>();
        State { world, query }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.query
                .iter_mut(&mut self.world)
                .for_each(|(mut p, mut t)| heavy(&mut p, &mut t));
        }
        fn check(&self) -> Check {
            let mut query = self.world.try_query::<(&Position, &Transform)>().unwrap();
            check(query.iter(&self.world))
        }
    }
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{IntoIter, View, ViewMut, World};

    pub struct State(pub(crate) World);

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.bulk_add_entity((0..n).map(|_| heavy_entity()));
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.0
                .run(|mut p: ViewMut<Position>, mut t: ViewMut<Transform>| {
                    (&mut p, &mut t).iter().for_each(|(p, t)| heavy(p, t));
                });
        }
        fn check(&self) -> Check {
            self.0
                .run(|p: View<Position>, t: View<Transform>| check((&p, &t).iter()))
        }
    }
}

pub mod sparsey {
    use super::*;
    use ::sparsey::World;

    pub struct State(pub(crate) World);

    pub fn setup(n: usize) -> State {
        let mut world = World::builder()
            .add_group::<(Position, Transform)>()
            .register::<Rotation>()
            .register::<Velocity>()
            .build();
        world.extend((0..n).map(|_| heavy_entity()));
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.0
                .for_each::<(&mut Position, &mut Transform)>(|(p, t)| heavy(p, t));
        }
        fn check(&self) -> Check {
            let mut items = Vec::new();
            self.0
                .for_each::<(&Position, &Transform)>(|(p, t)| items.push((*p, *t)));
            check(items.iter().map(|(p, t)| (p, t)))
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Join, ReadStorage, World, WorldExt, WriteStorage};

    pub struct State(pub(crate) World);

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<Transform>();
        world.register::<Position>();
        world.register::<Rotation>();
        world.register::<Velocity>();
        for _ in 0..n {
            let (t, p, r, v) = heavy_entity();
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
            let (mut p, mut t) = self
                .0
                .system_data::<(WriteStorage<Position>, WriteStorage<Transform>)>();
            (&mut p, &mut t).join().for_each(|(p, t)| heavy(p, t));
        }
        fn check(&self) -> Check {
            let (p, t) = self
                .0
                .system_data::<(ReadStorage<Position>, ReadStorage<Transform>)>();
            check((&p, &t).join())
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        pub(crate) positions: Vec<Position>,
        pub(crate) transforms: Vec<Transform>,
    }

    pub fn setup(n: usize) -> State {
        State {
            positions: (0..n).map(|_| heavy_entity().1).collect(),
            transforms: (0..n).map(|_| heavy_entity().0).collect(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (p, t) in self.positions.iter_mut().zip(&mut self.transforms) {
                heavy(p, t);
            }
        }
        fn check(&self) -> Check {
            check(self.positions.iter().zip(&self.transforms))
        }
    }
}

/// The parallel implementations: the same worlds, each crate's parallel
/// iteration.
pub mod par {
    use super::*;

    /// Wraps a single-threaded state to give it a parallel `run`.
    macro_rules! parallel {
        ($module:ident, |$state:ident| $run:block) => {
            pub mod $module {
                use super::*;

                pub struct State(pub(crate) super::super::$module::State);

                pub fn setup(n: usize) -> State {
                    State(super::super::$module::setup(n))
                }

                impl Instance for State {
                    fn run(&mut self) {
                        let $state = &mut self.0;
                        $run
                    }
                    fn check(&self) -> Check {
                        self.0.check()
                    }
                }
            }
        };
    }

    parallel!(typed_ecs, |s| {
        s.0.query_mut::<(&mut Position, &mut Transform)>()
            .par_for_each(|_, (p, t)| heavy(p, t));
    });

    parallel!(hecs, |s| {
        use rayon::iter::{ParallelBridge, ParallelIterator};
        s.0.query_mut::<(&mut Position, &mut Transform)>()
            .into_iter_batched(64)
            .par_bridge()
            .for_each(|batch| {
                for (p, t) in batch {
                    heavy(p, t);
                }
            });
    });

    parallel!(bevy, |s| {
        // With this crate's `bevy_multi_threaded` feature (for the stage
        // scenarios only, in a process of their own), bevy's `par_iter_mut`
        // needs a task pool: one thread keeps it what it is without.
        #[cfg(feature = "bevy_multi_threaded")]
        bevy_tasks::ComputeTaskPool::get_or_init(|| {
            bevy_tasks::TaskPoolBuilder::new().num_threads(1).build()
        });
        s.query
            .par_iter_mut(&mut s.world)
            .for_each(|(mut p, mut t)| heavy(&mut p, &mut t));
    });

    parallel!(shipyard, |s| {
        use ::shipyard::{IntoIter, ViewMut};
        use rayon::iter::ParallelIterator;
        s.0.run(|mut p: ViewMut<Position>, mut t: ViewMut<Transform>| {
            (&mut p, &mut t).par_iter().for_each(|(p, t)| heavy(p, t));
        });
    });

    parallel!(sparsey, |s| {
        s.0.par_for_each::<(&mut Position, &mut Transform)>(|(p, t)| heavy(p, t));
    });

    parallel!(specs, |s| {
        use ::specs::{ParJoin, WriteStorage};
        use rayon::iter::ParallelIterator;
        let (mut p, mut t) =
            s.0.system_data::<(WriteStorage<Position>, WriteStorage<Transform>)>();
        (&mut p, &mut t).par_join().for_each(|(p, t)| heavy(p, t));
    });

    parallel!(raw, |s| {
        use rayon::prelude::*;
        s.positions
            .par_iter_mut()
            .zip(s.transforms.par_iter_mut())
            .for_each(|(p, t)| heavy(p, t));
    });
}
