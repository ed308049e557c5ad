//! `add_remove`: `n` entities (10,000) with `A`; timed: add `B` to every
//! entity, then remove `B` from every entity. Every implementation gets
//! the removed values back and sums them (the same small work for all, and
//! what lets the tests see that the adds and removes happened).
//!
//! - typed_ecs: `world.add(e, B)` per entity, then `world.remove::<B>(e)`.
//! - hecs: `insert_one`, then `remove_one::<B>`.
//! - bevy: `world.insert_batch(..)` (bevy's batch insert), then
//!   `entity_mut(e).take::<B>()` per entity (there is no batch removal).
//!   `B` uses bevy's default table storage, like every shared type: bevy's
//!   sparse-set storage would suit this pattern better.
//! - shipyard: in one `world.run`, `EntitiesView::add_component(e, &mut
//!   ViewMut<B>, B)`, then `ViewMut<B>::remove(e)`.
//! - sparsey: `world.insert(e, (B,))`, then `world.remove::<(B,)>(e)`.
//! - specs: one `WriteStorage<B>`: `insert(e, B)`, then `remove(e)`.
//! - raw: a `Vec<Option<B>>` indexed by the handles (`usize`s): `Some`,
//!   then `take()`.

use crate::components::*;
use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "add_remove",
    what: "add B to every entity holding A, then remove B from every one",
    sizes: &[10_000],
    size_note: "",
    test_size: 100,
    fresh_state: false,
    impls: crate::impls![
        typed_ecs,
        typed_ecs_grouped,
        hecs,
        bevy,
        shipyard,
        sparsey,
        specs,
        raw
    ],
    notes: "bevy adds with `insert_batch`; everybody else adds one at a time. \
            `B` uses bevy's default table storage.",
};

/// The value of the `B` added to the `i`-th entity.
fn b(i: usize) -> B {
    B((i % 16) as f32)
}

fn check(entities: usize, with_a: usize, with_b: usize, removed_sum: f64) -> Check {
    vec![
        ("entities", entities as f64),
        ("with A", with_a as f64),
        ("with B", with_b as f64),
        ("sum of removed B", removed_sum),
    ]
}

/// typed_ecs's implementation, over a world that declares `$group`
/// (nothing, or an owning group of both components): the same code, so
/// the rows differ only by the group.
macro_rules! typed_ecs_impl {
    ($($group:tt)*) => {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! { pub struct AbWorld<A, B>; $($group)* }

    pub struct State {
        world: AbWorld,
        entities: Vec<Entity>,
        removed: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = AbWorld::new();
        let entities = (0..n).map(|_| world.spawn_with((A(0.0),))).collect();
        State {
            world,
            entities,
            removed: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate() {
                self.world.add(e, b(i));
            }
            let mut removed = 0.0;
            for &e in &self.entities {
                removed += self.world.remove::<B>(e).unwrap().0;
            }
            self.removed += f64::from(removed);
        }
        fn check(&self) -> Check {
            check(
                self.world.entity_count(),
                self.world.size::<A>(),
                self.world.size::<B>(),
                self.removed,
            )
        }
        fn addresses(&self) -> Vec<(&'static str, usize)> {
            vec![
                ("B.entities", self.world.b.entities().as_ptr() as usize),
                ("B.values", self.world.b.values().as_ptr() as usize),
                ("A.entities", self.world.a.entities().as_ptr() as usize),
                ("handles", self.entities.as_ptr() as usize),
            ]
        }
    }
    };
}

pub mod typed_ecs {
    typed_ecs_impl!();
}

/// typed_ecs with both components in an owning group: what declaring the
/// group costs this work (issue 14, item 3).
pub mod typed_ecs_grouped {
    typed_ecs_impl!(group (A, B););
}

pub mod hecs {
    use super::*;
    use ::hecs::{Entity, World};

    pub struct State {
        world: World,
        entities: Vec<Entity>,
        removed: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let entities = world.spawn_batch((0..n).map(|_| (A(0.0),))).collect();
        State {
            world,
            entities,
            removed: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate() {
                self.world.insert_one(e, b(i)).unwrap();
            }
            let mut removed = 0.0;
            for &e in &self.entities {
                removed += self.world.remove_one::<B>(e).unwrap().0;
            }
            self.removed += f64::from(removed);
        }
        fn check(&self) -> Check {
            check(
                self.world.len() as usize,
                self.world.query::<&A>().iter().count(),
                self.world.query::<&B>().iter().count(),
                self.removed,
            )
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{entity::Entity, world::World};

    pub struct State {
        world: World,
        entities: Vec<Entity>,
        removed: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let entities = world.spawn_batch((0..n).map(|_| (A(0.0),))).collect();
        State {
            world,
            entities,
            removed: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.world
                .insert_batch(self.entities.iter().enumerate().map(|(i, &e)| (e, b(i))));
            let mut removed = 0.0;
            for &e in &self.entities {
                removed += self.world.entity_mut(e).take::<B>().unwrap().0;
            }
            self.removed += f64::from(removed);
        }
        fn check(&self) -> Check {
            let count = |q: Option<usize>| q.unwrap_or(0);
            check(
                super::super::bevy_alive(&self.world),
                count(
                    self.world
                        .try_query::<&A>()
                        .map(|mut q| q.iter(&self.world).count()),
                ),
                count(
                    self.world
                        .try_query::<&B>()
                        .map(|mut q| q.iter(&self.world).count()),
                ),
                self.removed,
            )
        }
    }
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{EntitiesView, EntityId, Remove, View, ViewMut, World};

    pub struct State {
        world: World,
        entities: Vec<EntityId>,
        removed: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let entities = world.bulk_add_entity((0..n).map(|_| (A(0.0),))).collect();
        State {
            world,
            entities,
            removed: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let entities = &self.entities;
            let removed = self.world.run(|all: EntitiesView, mut bs: ViewMut<B>| {
                for (i, &e) in entities.iter().enumerate() {
                    all.add_component(e, &mut bs, b(i));
                }
                let mut removed = 0.0;
                for &e in entities {
                    removed += bs.remove(e).unwrap().0;
                }
                removed
            });
            self.removed += f64::from(removed);
        }
        fn check(&self) -> Check {
            self.world
                .run(|all: EntitiesView, a: View<A>, bs: View<B>| {
                    check(all.iter().count(), a.len(), bs.len(), self.removed)
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
        removed: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::builder().register::<A>().register::<B>().build();
        let entities = world.extend((0..n).map(|_| (A(0.0),))).to_vec();
        State {
            world,
            entities,
            removed: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate() {
                self.world.insert(e, (b(i),));
            }
            let mut removed = 0.0;
            for &e in &self.entities {
                removed += self.world.remove::<(B,)>(e).0.unwrap().0;
            }
            self.removed += f64::from(removed);
        }
        fn check(&self) -> Check {
            check(
                self.world.entities().len(),
                self.world.borrow::<A>().len(),
                self.world.borrow::<B>().len(),
                self.removed,
            )
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Entity, Join, World, WorldExt};

    pub struct State {
        world: World,
        entities: Vec<Entity>,
        removed: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<A>();
        world.register::<B>();
        let entities = (0..n)
            .map(|_| world.create_entity().with(A(0.0)).build())
            .collect();
        State {
            world,
            entities,
            removed: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut bs = self.world.write_storage::<B>();
            for (i, &e) in self.entities.iter().enumerate() {
                bs.insert(e, b(i)).unwrap();
            }
            let mut removed = 0.0;
            for &e in &self.entities {
                removed += bs.remove(e).unwrap().0;
            }
            self.removed += f64::from(removed);
        }
        fn check(&self) -> Check {
            check(
                self.world.entities().join().count(),
                self.world.read_storage::<A>().join().count(),
                self.world.read_storage::<B>().join().count(),
                self.removed,
            )
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
        removed: f64,
    }

    pub fn setup(n: usize) -> State {
        State {
            a: vec![A(0.0); n],
            b: vec![None; n],
            entities: (0..n).collect(),
            removed: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate() {
                self.b[e] = Some(b(i));
            }
            let mut removed = 0.0;
            for &e in &self.entities {
                removed += self.b[e].take().unwrap().0;
            }
            self.removed += f64::from(removed);
        }
        fn check(&self) -> Check {
            check(
                self.a.len(),
                self.a.len(),
                self.b.iter().flatten().count(),
                self.removed,
            )
        }
    }
}
