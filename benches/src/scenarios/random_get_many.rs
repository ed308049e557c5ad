//! `random_get_many`: the entities and lookups of `random_get` (`n`
//! entities, 100,000, with `(Position, Velocity)`; `n / 10` lookups through
//! live handles in a fixed-seed random order), but each lookup reads both
//! components: timed, summing `position.x + velocity.x` (the sum goes
//! through `black_box`).
//!
//! - typed_ecs: `world.get_many::<(&Position, &Velocity)>(e)`.
//! - hecs: one `world.view::<(&Position, &Velocity)>()`, then `view.get(e)`.
//! - bevy: a `QueryState<(&Position, &Velocity)>` made in setup; in the
//!   run, `state.query(&world)` once, then `query.get(e)`.
//! - shipyard: a `View<Position>` and a `View<Velocity>`, then
//!   `(&positions, &velocities).get(e)`.
//! - sparsey: `world.query_one::<(&Position, &Velocity)>()` once, then
//!   `get(e)`.
//! - specs: a `ReadStorage` of each, then `get(e)` on both.
//! - raw: two `Vec`s indexed by the handles (`usize`s; no generation
//!   check).

use super::random_get::chosen;
use crate::components::*;
use crate::{Check, Instance, Scenario};
use std::hint::black_box;

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "random_get_many",
    what: "10,000 lookups of (Position, Velocity), in random order, among 100,000 entities \
           with both",
    sizes: &[100_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: crate::impls![typed_ecs, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "",
};

/// What each lookup adds to the sum.
#[inline]
fn value(position: &Position, velocity: &Velocity) -> f32 {
    position.0[0] + velocity.0[0]
}

fn check(total: f64, lookups: usize) -> Check {
    vec![("lookups", lookups as f64), ("sum of x", total)]
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! { pub struct MoveWorld<Position, Velocity>; }

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
                let (p, v) = self.world.get_many::<(&Position, &Velocity)>(e).unwrap();
                sum += value(p, v);
            }
            self.total += f64::from(black_box(sum));
        }
        fn check(&self) -> Check {
            check(self.total, self.handles.len())
        }
    }
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
            let view = self.world.view::<(&Position, &Velocity)>();
            let mut sum = 0.0f32;
            for &e in &self.handles {
                let (p, v) = view.get(e).unwrap();
                sum += value(p, v);
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
        query: QueryState<(&'static Position, &'static Velocity)>,
        handles: Vec<Entity>,
        total: f64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<Entity> = world.spawn_batch((0..n).map(moving_entity)).collect();
        let query = world.query::<(&Position, &Velocity)>();
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
                let (p, v) = query.get(e).unwrap();
                sum += value(p, v);
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
            let (positions, velocities) = self
                .world
                .borrow::<(View<Position>, View<Velocity>)>()
                .unwrap();
            let mut sum = 0.0f32;
            for &e in &self.handles {
                let (p, v) = (&positions, &velocities).get(e).unwrap();
                sum += value(p, v);
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
            let mut query = self.world.query_one::<(&Position, &Velocity)>();
            let mut sum = 0.0f32;
            for &e in &self.handles {
                let (p, v) = query.get(e).unwrap();
                sum += value(p, v);
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
    use ::specs::{Builder, Entity, ReadStorage, World, WorldExt};

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
            let (positions, velocities) = self
                .world
                .system_data::<(ReadStorage<Position>, ReadStorage<Velocity>)>();
            let mut sum = 0.0f32;
            for &e in &self.handles {
                sum += value(positions.get(e).unwrap(), velocities.get(e).unwrap());
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
        velocities: Vec<Velocity>,
        handles: Vec<usize>,
        total: f64,
    }

    pub fn setup(n: usize) -> State {
        let all: Vec<usize> = (0..n).collect();
        State {
            positions: (0..n).map(|i| moving_entity(i).0).collect(),
            velocities: (0..n).map(|i| moving_entity(i).1).collect(),
            handles: chosen(&all),
            total: 0.0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut sum = 0.0f32;
            for &e in &self.handles {
                sum += value(&self.positions[e], &self.velocities[e]);
            }
            self.total += f64::from(black_box(sum));
        }
        fn check(&self) -> Check {
            check(self.total, self.handles.len())
        }
    }
}
