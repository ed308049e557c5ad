//! `fragmented_iter`: 26 component types `A`..`Z`, `n` entities (20) of
//! each, every entity also holding `Data`; timed: data *= 2 over every
//! `Data` ([`double`]). Archetype crates see 26 archetypes here; sparse-set
//! crates see one packed `Data` storage.
//!
//! - typed_ecs: `query_mut::<&mut Data>()` in a `for` loop (a walk of the
//!   packed storage; `Join::for_each` was an order of magnitude slower on
//!   this shape when this was written).
//! - hecs: `query_mut::<&mut Data>()` in a `for` loop.
//! - bevy: a `QueryState<&mut Data>` made in setup, `iter_mut(..).for_each`.
//! - shipyard: `world.run` with `ViewMut<Data>`, `(&mut d).iter().for_each`.
//! - sparsey: `for_each::<&mut Data>`.
//! - specs: `(&mut WriteStorage<Data>).join()`.
//! - raw: one `Vec<Data>` (the letters are 26 other `Vec`s, untouched).

use super::sum;
use crate::components::*;
use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "fragmented_iter",
    what: "data *= 2 over 26 × 20 entities, each holding one of A..Z and Data",
    sizes: &[20],
    size_note: " × 26 types",
    test_size: 4,
    fresh_state: false,
    impls: crate::impls![typed_ecs, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "",
};

fn check<'a>(data: impl IntoIterator<Item = &'a Data>) -> Check {
    let data: Vec<&Data> = data.into_iter().collect();
    vec![
        ("entities", data.len() as f64),
        ("data sum", sum(&data, |d| d.0)),
    ]
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! {
        pub struct FragWorld<
            A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z, Data
        >;
    }

    pub struct State(FragWorld);

    pub fn setup(n: usize) -> State {
        let mut world = FragWorld::new();
        macro_rules! spawn {
            ($($letter:ident),*) => {
                $(for _ in 0..n {
                    world.spawn_with(($letter(0.0), Data(1.0)));
                })*
            };
        }
        crate::letters!(spawn);
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            for (_, d) in self.0.query_mut::<&mut Data>() {
                double(d);
            }
        }
        fn check(&self) -> Check {
            check(self.0.query::<&Data>().map(|(_, d)| d))
        }
    }
}

pub mod hecs {
    use super::*;

    pub struct State(::hecs::World);

    pub fn setup(n: usize) -> State {
        let mut world = ::hecs::World::new();
        macro_rules! spawn {
            ($($letter:ident),*) => {
                $(world.spawn_batch((0..n).map(|_| ($letter(0.0), Data(1.0))));)*
            };
        }
        crate::letters!(spawn);
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            for d in self.0.query_mut::<&mut Data>() {
                double(d);
            }
        }
        fn check(&self) -> Check {
            check(self.0.query::<&Data>().iter())
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{query::QueryState, world::World};

    pub struct State {
        world: World,
        query: QueryState<&'static mut Data>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        macro_rules! spawn {
            ($($letter:ident),*) => {
                $(world.spawn_batch((0..n).map(|_| ($letter(0.0), Data(1.0))));)*
            };
        }
        crate::letters!(spawn);
        let query = world.query::<&mut Data>();
        State { world, query }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.query
                .iter_mut(&mut self.world)
                .for_each(|mut d| double(&mut d));
        }
        fn check(&self) -> Check {
            let mut query = self.world.try_query::<&Data>().unwrap();
            check(query.iter(&self.world))
        }
    }
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{IntoIter, View, ViewMut, World};

    pub struct State(World);

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        macro_rules! spawn {
            ($($letter:ident),*) => {
                $(world.bulk_add_entity((0..n).map(|_| ($letter(0.0), Data(1.0))));)*
            };
        }
        crate::letters!(spawn);
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.0.run(|mut d: ViewMut<Data>| {
                (&mut d).iter().for_each(double);
            });
        }
        fn check(&self) -> Check {
            self.0.run(|d: View<Data>| check((&d).iter()))
        }
    }
}

pub mod sparsey {
    use super::*;
    use ::sparsey::World;

    pub struct State(World);

    pub fn setup(n: usize) -> State {
        let mut builder = World::builder();
        builder.register::<Data>();
        macro_rules! register {
            ($($letter:ident),*) => { $(builder.register::<$letter>();)* };
        }
        crate::letters!(register);
        let mut world = builder.build();
        macro_rules! spawn {
            ($($letter:ident),*) => {
                $(world.extend((0..n).map(|_| ($letter(0.0), Data(1.0))));)*
            };
        }
        crate::letters!(spawn);
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.0.for_each::<&mut Data>(double);
        }
        fn check(&self) -> Check {
            let mut data = Vec::new();
            self.0.for_each::<&Data>(|d| data.push(*d));
            check(&data)
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Join, World, WorldExt};

    pub struct State(World);

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<Data>();
        macro_rules! spawn {
            ($($letter:ident),*) => {
                $(
                    world.register::<$letter>();
                    for _ in 0..n {
                        world.create_entity().with($letter(0.0)).with(Data(1.0)).build();
                    }
                )*
            };
        }
        crate::letters!(spawn);
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut data = self.0.write_storage::<Data>();
            (&mut data).join().for_each(double);
        }
        fn check(&self) -> Check {
            check((&self.0.read_storage::<Data>()).join())
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        data: Vec<Data>,
        /// The letters, one `Vec` each: stored like the others', never read.
        _letters: Vec<Vec<f32>>,
    }

    pub fn setup(n: usize) -> State {
        State {
            data: vec![Data(1.0); 26 * n],
            _letters: vec![vec![0.0; n]; 26],
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.data.iter_mut().for_each(double);
        }
        fn check(&self) -> Check {
            check(&self.data)
        }
    }
}
