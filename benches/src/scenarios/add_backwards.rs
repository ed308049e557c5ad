//! `add_backwards`: `n` entities (100,000) with `A`, spawned in a fresh
//! world; timed: add `B` to every one, from the last spawned to the first
//! (a loop over a list of handles in reverse, or handles recycled last
//! freed first). Setup (a fresh world) is not timed; every run needs a
//! fresh one, since what it measures is the storage of `B` growing.
//!
//! A sparse set's index grows at the front here: each new page of it holds
//! smaller entity indices than every page made before it.
//!
//! - typed_ecs: `world.add(e, B)` per entity.
//! - hecs: `insert_one` per entity.
//! - bevy: `entity_mut(e).insert(B)` per entity (`B` in a table, bevy's
//!   default, like every shared type).
//! - shipyard: in one `world.run`, `EntitiesView::add_component(e, &mut
//!   ViewMut<B>, B)` per entity.
//! - sparsey: `world.insert(e, (B,))` per entity.
//! - specs: one `WriteStorage<B>` (`VecStorage`), `insert(e, B)` per entity.
//! - raw: a `Vec<Option<B>>` indexed by the handles (`usize`s), made with
//!   room for every entity, filled from the back.

use crate::components::*;
use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "add_backwards",
    what:
        "add B to 100,000 entities holding A, from the last spawned to the first, in a fresh world",
    sizes: &[100_000],
    size_note: "",
    test_size: 5_000,
    fresh_state: true,
    impls: crate::impls![typed_ecs, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "Everybody adds one at a time. `B` uses bevy's default table storage.",
};

/// The value of the `B` added to the `i`-th entity spawned.
fn b(i: usize) -> B {
    B((i % 16) as f32)
}

fn check(entities: usize, with_b: usize, sum: f64) -> Check {
    vec![
        ("entities", entities as f64),
        ("with B", with_b as f64),
        ("sum of B", sum),
    ]
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! { pub struct AbWorld<A, B>; }

    pub struct State {
        world: AbWorld,
        entities: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = AbWorld::new();
        let entities = (0..n).map(|_| world.spawn_with((A(0.0),))).collect();
        State { world, entities }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate().rev() {
                self.world.add(e, b(i));
            }
        }
        fn check(&self) -> Check {
            let sum = self.world.b.values().iter().map(|b| f64::from(b.0)).sum();
            check(self.world.entity_count(), self.world.size::<B>(), sum)
        }
    }
}

pub mod hecs {
    use super::*;
    use ::hecs::{Entity, World};

    pub struct State {
        world: World,
        entities: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let entities = world.spawn_batch((0..n).map(|_| (A(0.0),))).collect();
        State { world, entities }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate().rev() {
                self.world.insert_one(e, b(i)).unwrap();
            }
        }
        fn check(&self) -> Check {
            let mut query = self.world.query::<&B>();
            let (count, sum) = query
                .iter()
                .fold((0, 0.0), |(n, s), b| (n + 1, s + f64::from(b.0)));
            check(self.world.len() as usize, count, sum)
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{entity::Entity, world::World};

    pub struct State {
        world: World,
        entities: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let entities = world.spawn_batch((0..n).map(|_| (A(0.0),))).collect();
        State { world, entities }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate().rev() {
                self.world.entity_mut(e).insert(b(i));
            }
        }
        fn check(&self) -> Check {
            let (count, sum) = self
                .world
                .try_query::<&B>()
                .map(|mut q| {
                    q.iter(&self.world)
                        .fold((0, 0.0), |(n, s), b| (n + 1, s + f64::from(b.0)))
                })
                .unwrap_or((0, 0.0));
            check(super::super::bevy_alive(&self.world), count, sum)
        }
    }
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{EntitiesView, EntityId, View, ViewMut, World};

    pub struct State {
        world: World,
        entities: Vec<EntityId>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let entities = world.bulk_add_entity((0..n).map(|_| (A(0.0),))).collect();
        State { world, entities }
    }

    impl Instance for State {
        fn run(&mut self) {
            let entities = &self.entities;
            self.world.run(|all: EntitiesView, mut bs: ViewMut<B>| {
                for (i, &e) in entities.iter().enumerate().rev() {
                    all.add_component(e, &mut bs, b(i));
                }
            });
        }
        fn check(&self) -> Check {
            self.world.run(|all: EntitiesView, bs: View<B>| {
                let sum = bs.as_slice().iter().map(|b| f64::from(b.0)).sum();
                check(all.iter().count(), bs.len(), sum)
            })
        }
    }
}

pub mod sparsey {
    use super::*;
    use ::sparsey::{Entity, World};

    pub struct State {
        world: World,
        entities: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::builder().register::<A>().register::<B>().build();
        let entities = world.extend((0..n).map(|_| (A(0.0),))).to_vec();
        State { world, entities }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate().rev() {
                self.world.insert(e, (b(i),));
            }
        }
        fn check(&self) -> Check {
            let bs = self.world.borrow::<B>();
            let sum = bs.as_slice().iter().map(|b| f64::from(b.0)).sum();
            check(self.world.entities().len(), bs.len(), sum)
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Entity, Join, World, WorldExt};

    pub struct State {
        world: World,
        entities: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<A>();
        world.register::<B>();
        let entities = (0..n)
            .map(|_| world.create_entity().with(A(0.0)).build())
            .collect();
        State { world, entities }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut bs = self.world.write_storage::<B>();
            for (i, &e) in self.entities.iter().enumerate().rev() {
                bs.insert(e, b(i)).unwrap();
            }
        }
        fn check(&self) -> Check {
            let bs = self.world.read_storage::<B>();
            let (count, sum) = (&bs)
                .join()
                .fold((0, 0.0), |(n, s), b| (n + 1, s + f64::from(b.0)));
            check(self.world.entities().join().count(), count, sum)
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        a: Vec<A>,
        b: Vec<Option<B>>,
        /// The handles: indices into the columns.
        entities: Vec<usize>,
    }

    pub fn setup(n: usize) -> State {
        State {
            a: vec![A(0.0); n],
            b: vec![None; n],
            entities: (0..n).collect(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate().rev() {
                self.b[e] = Some(b(i));
            }
        }
        fn check(&self) -> Check {
            let present = self.b.iter().flatten();
            let sum = present.clone().map(|b| f64::from(b.0)).sum();
            check(self.a.len(), present.count(), sum)
        }
    }
}
