//! `random_get`: `n` entities (100,000) with `(Position, Velocity)`; timed:
//! `n / 10` (10,000) lookups of `Position` through live handles in a
//! random order (a fixed-seed shuffle made in setup: distinct entities),
//! summing `x` (the sum goes through `black_box`).
//!
//! - typed_ecs: `world.get::<Position>(e)`.
//! - hecs: one `world.view::<&Position>()`, then `view.get(e)` (hecs's
//!   fast path for many lookups: one borrow, cached archetype state).
//! - bevy: a `QueryState<&Position>` made in setup; in the run,
//!   `state.query(&world)` once, then `query.get(e)`.
//! - shipyard: one `View<Position>`, then `view.get(e)`.
//! - sparsey: one `world.borrow::<Position>()`, then `get(e)`.
//! - specs: one `ReadStorage<Position>`, then `get(e)`.
//! - raw: a `Vec<Position>` indexed by the handles (`usize`s; no
//!   generation check).

use crate::components::*;
use crate::rng::shuffled;
use crate::{Check, Instance, Scenario};
use std::hint::black_box;

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "random_get",
    what: "10,000 lookups of Position, in random order, among 100,000 entities with (Position, Velocity)",
    sizes: &[100_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: crate::impls![typed_ecs, typed_ecs_grouped, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "",
};

/// The spawn indices to look up: the first tenth of a fixed shuffle.
fn picks(n: usize) -> Vec<usize> {
    let mut order = shuffled(n);
    order.truncate(n / 10);
    order
}

/// The handles to look up, in lookup order (also `random_get_many`'s).
pub(crate) fn chosen<H: Copy>(all: &[H]) -> Vec<H> {
    picks(all.len()).into_iter().map(|i| all[i]).collect()
}

fn check(total: f64, lookups: usize) -> Check {
    vec![("lookups", lookups as f64), ("sum of x", total)]
}

/// typed_ecs's implementation, over a world that declares `$group`
/// (nothing, or an owning group of both components): the same code, so
/// the rows differ only by the group.
macro_rules! typed_ecs_impl {
    ($($group:tt)*) => {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! { pub struct MoveWorld<Position, Velocity>; $($group)* }

    pub struct State {
        world: MoveWorld,
        handles: Vec<Entity>,
        total: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = MoveWorld::new();
        let all: Vec<Entity> = (0..n).map(|i| world.spawn_with(moving_entity(i))).collect();
        State {
            world,
            handles: chosen(&all),
            total: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut sum = 0.0f32;
            for &e in &self.handles {
                sum += self.world.get::<Position>(e).unwrap().0[0];
            }
            self.total += f64::from(black_box(sum));
        }
        fn check(&self) -> Check {
            check(self.total, self.handles.len())
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
    typed_ecs_impl!(group (Position, Velocity););
}

pub mod hecs {
    use super::*;
    use ::hecs::{Entity, World};

    pub struct State {
        world: World,
        handles: Vec<Entity>,
        total: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<Entity> = world.spawn_batch((0..n).map(moving_entity)).collect();
        State {
            world,
            handles: chosen(&all),
            total: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let view = self.world.view::<&Position>();
            let mut sum = 0.0f32;
            for &e in &self.handles {
                sum += view.get(e).unwrap().0[0];
            }
            self.total += f64::from(black_box(sum));
        }
        fn check(&self) -> Check {
            check(self.total, self.handles.len())
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{entity::Entity, query::QueryState, world::World};

    pub struct State {
        world: World,
        query: QueryState<&'static Position>,
        handles: Vec<Entity>,
        total: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<Entity> = world.spawn_batch((0..n).map(moving_entity)).collect();
        let query = world.query::<&Position>();
        State {
            world,
            query,
            handles: chosen(&all),
            total: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let query = self.query.query(&self.world);
            let mut sum = 0.0f32;
            for &e in &self.handles {
                sum += query.get(e).unwrap().0[0];
            }
            self.total += f64::from(black_box(sum));
        }
        fn check(&self) -> Check {
            check(self.total, self.handles.len())
        }
    }
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{EntityId, Get, View, World};

    pub struct State {
        world: World,
        handles: Vec<EntityId>,
        total: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<EntityId> = world.bulk_add_entity((0..n).map(moving_entity)).collect();
        State {
            world,
            handles: chosen(&all),
            total: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let view = self.world.borrow::<View<Position>>().unwrap();
            let mut sum = 0.0f32;
            for &e in &self.handles {
                sum += (&view).get(e).unwrap().0[0];
            }
            self.total += f64::from(black_box(sum));
        }
        fn check(&self) -> Check {
            check(self.total, self.handles.len())
        }
    }
}

pub mod sparsey {
    use super::*;
    use ::sparsey::{Entity, World};

    pub struct State {
        world: World,
        handles: Vec<Entity>,
        total: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::builder()
            .register::<Position>()
            .register::<Velocity>()
            .build();
        let all = world.extend((0..n).map(moving_entity)).to_vec();
        State {
            world,
            handles: chosen(&all),
            total: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let view = self.world.borrow::<Position>();
            let mut sum = 0.0f32;
            for &e in &self.handles {
                sum += view.get(e).unwrap().0[0];
            }
            self.total += f64::from(black_box(sum));
        }
        fn check(&self) -> Check {
            check(self.total, self.handles.len())
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Entity, World, WorldExt};

    pub struct State {
        world: World,
        handles: Vec<Entity>,
        total: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<Position>();
        world.register::<Velocity>();
        let all: Vec<Entity> = (0..n)
            .map(|i| {
                let (p, v) = moving_entity(i);
                world.create_entity().with(p).with(v).build()
            })
            .collect();
        State {
            world,
            handles: chosen(&all),
            total: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let storage = self.world.read_storage::<Position>();
            let mut sum = 0.0f32;
            for &e in &self.handles {
                sum += storage.get(e).unwrap().0[0];
            }
            self.total += f64::from(black_box(sum));
        }
        fn check(&self) -> Check {
            check(self.total, self.handles.len())
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        positions: Vec<Position>,
        _velocities: Vec<Velocity>,
        handles: Vec<usize>,
        total: f64,
    }

    pub fn setup(n: usize) -> State {
        let all: Vec<usize> = (0..n).collect();
        State {
            positions: (0..n).map(|i| moving_entity(i).0).collect(),
            _velocities: (0..n).map(|i| moving_entity(i).1).collect(),
            handles: chosen(&all),
            total: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut sum = 0.0f32;
            for &e in &self.handles {
                sum += self.positions[e].0[0];
            }
            self.total += f64::from(black_box(sum));
        }
        fn check(&self) -> Check {
            check(self.total, self.handles.len())
        }
    }
}
