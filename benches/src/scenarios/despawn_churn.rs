//! `despawn_churn`: `n` entities (100,000) with `(Position, Velocity)`;
//! timed: one frame that despawns the `n / 10` (10,000) oldest entities
//! (first in, first out) and spawns as many new ones, so the world stays
//! at `n` and repeated frames are a steady state. Each new entity's
//! position carries its spawn number, so the tests can see which entities
//! are alive.
//!
//! - typed_ecs: `world.despawn(e)` per entity, then `spawn_batch`; in
//!   [`SCENARIO_BATCH`] (`despawn_churn_batch`), `despawn_batch` of the
//!   oldest, then `spawn_batch`, the others unchanged.
//! - hecs: `despawn` per entity, then `spawn_batch`.
//! - bevy: `world.despawn(e)` per entity, then `spawn_batch`.
//! - shipyard: `delete_entity` per entity, then `bulk_add_entity`.
//! - sparsey: `destroy` per entity, then `extend`.
//! - specs: `world.delete_entities(&batch)` (specs's batch delete), then
//!   `create_entity()..build()` in a loop.
//! - raw: two `VecDeque`s: `pop_front` ×10,000, `push_back` ×10,000.
//!
//! Every ECS keeps its live handles in a `VecDeque`, oldest first.

use super::sum;
use crate::components::*;
use crate::{Check, Instance, Scenario};
use std::collections::VecDeque;

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "despawn_churn",
    what: "one frame of 100,000 entities with (Position, Velocity): despawn the 10,000 oldest, spawn 10,000",
    sizes: &[100_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: crate::impls![typed_ecs, typed_ecs_grouped, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "specs deletes with its batch `delete_entities`, the others one entity at a time; \
            specs spawns one at a time, the others with their batch spawn.",
};

/// `despawn_churn` with typed_ecs's batch despawn, against the same peers
/// (none of which but specs has a batch despawn of a list of entities).
pub const SCENARIO_BATCH: Scenario = Scenario {
    name: "despawn_churn_batch",
    what: "the frame of `despawn_churn` (100,000 entities with (Position, Velocity): despawn \
           the 10,000 oldest, spawn 10,000), typed_ecs despawning with `despawn_batch`",
    sizes: &[100_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: crate::impls![typed_ecs = batch, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "typed_ecs despawns the oldest with one `despawn_batch`; the others as in \
            `despawn_churn` (specs with its batch `delete_entities`, the others one entity at \
            a time: they have no batch despawn of a list of entities).",
};

/// Shared by every implementation: the live handles, oldest first, and
/// the next spawn number.
pub struct Churn<H> {
    live: VecDeque<H>,
    next: usize,
    per_frame: usize,
}

impl<H> Churn<H> {
    fn new(n: usize, spawn: impl FnMut(usize) -> H) -> Self {
        Churn {
            live: (0..n).map(spawn).collect(),
            next: n,
            per_frame: n / 10,
        }
    }

    /// The oldest handles, to despawn this frame.
    fn oldest(&mut self) -> std::collections::vec_deque::Drain<'_, H> {
        self.live.drain(..self.per_frame)
    }

    /// The spawn numbers of this frame's new entities.
    fn fresh(&mut self) -> std::ops::Range<usize> {
        let range = self.next..self.next + self.per_frame;
        self.next = range.end;
        range
    }
}

fn check<'a>(alive: usize, positions: impl IntoIterator<Item = &'a Position>) -> Check {
    let positions: Vec<&Position> = positions.into_iter().collect();
    vec![
        ("alive", alive as f64),
        ("with Position", positions.len() as f64),
        ("sum of x", sum(&positions, |p| p.0[0])),
    ]
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
        pub(super) world: MoveWorld,
        pub(super) churn: Churn<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = MoveWorld::new();
        let churn = Churn::new(n, |i| world.spawn_with(moving_entity(i)));
        State { world, churn }
    }

    impl Instance for State {
        fn run(&mut self) {
            for e in self.churn.oldest() {
                self.world.despawn(e);
            }
            let fresh = self.churn.fresh();
            let spawned = self.world.spawn_batch(fresh.map(moving_entity));
            self.churn.live.extend(spawned);
        }
        fn check(&self) -> Check {
            check(self.world.entity_count(), self.world.position.values())
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

/// typed_ecs with its batch despawn, for [`SCENARIO_BATCH`]: the state
/// of [`typed_ecs`], another frame.
pub mod batch {
    use super::*;
    use ::typed_ecs::prelude::*;

    pub struct State(super::typed_ecs::State);

    pub fn setup(n: usize) -> State {
        State(super::typed_ecs::setup(n))
    }

    impl Instance for State {
        fn run(&mut self) {
            let super::typed_ecs::State { world, churn } = &mut self.0;
            world.despawn_batch(churn.oldest());
            let fresh = churn.fresh();
            let spawned = world.spawn_batch(fresh.map(moving_entity));
            churn.live.extend(spawned);
        }
        fn check(&self) -> Check {
            self.0.check()
        }
    }
}

pub mod hecs {
    use super::*;
    use ::hecs::{Entity, World};

    pub struct State {
        world: World,
        churn: Churn<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<Entity> = world.spawn_batch((0..n).map(moving_entity)).collect();
        let churn = Churn::new(n, |i| all[i]);
        State { world, churn }
    }

    impl Instance for State {
        fn run(&mut self) {
            for e in self.churn.oldest() {
                self.world.despawn(e).unwrap();
            }
            let fresh = self.churn.fresh();
            let spawned = self.world.spawn_batch(fresh.map(moving_entity));
            self.churn.live.extend(spawned);
        }
        fn check(&self) -> Check {
            let mut query = self.world.query::<&Position>();
            check(self.world.len() as usize, query.iter())
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{entity::Entity, world::World};

    pub struct State {
        world: World,
        churn: Churn<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<Entity> = world.spawn_batch((0..n).map(moving_entity)).collect();
        let churn = Churn::new(n, |i| all[i]);
        State { world, churn }
    }

    impl Instance for State {
        fn run(&mut self) {
            for e in self.churn.oldest() {
                self.world.despawn(e);
            }
            let fresh = self.churn.fresh();
            let spawned = self.world.spawn_batch(fresh.map(moving_entity));
            self.churn.live.extend(spawned);
        }
        fn check(&self) -> Check {
            let mut query = self.world.try_query::<&Position>().unwrap();
            check(
                super::super::bevy_alive(&self.world),
                query.iter(&self.world),
            )
        }
    }
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{EntitiesView, EntityId, IntoIter, View, World};

    pub struct State {
        world: World,
        churn: Churn<EntityId>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<EntityId> = world.bulk_add_entity((0..n).map(moving_entity)).collect();
        let churn = Churn::new(n, |i| all[i]);
        State { world, churn }
    }

    impl Instance for State {
        fn run(&mut self) {
            for e in self.churn.oldest() {
                self.world.delete_entity(e);
            }
            let fresh = self.churn.fresh();
            let spawned = self.world.bulk_add_entity(fresh.map(moving_entity));
            self.churn.live.extend(spawned);
        }
        fn check(&self) -> Check {
            self.world
                .run(|all: EntitiesView, p: View<Position>| check(all.iter().count(), (&p).iter()))
        }
    }
}

pub mod sparsey {
    use super::*;
    use ::sparsey::{Entity, World};

    pub struct State {
        world: World,
        churn: Churn<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::builder()
            .register::<Position>()
            .register::<Velocity>()
            .build();
        let all = world.extend((0..n).map(moving_entity)).to_vec();
        let churn = Churn::new(n, |i| all[i]);
        State { world, churn }
    }

    impl Instance for State {
        fn run(&mut self) {
            for e in self.churn.oldest() {
                self.world.destroy(e);
            }
            let fresh = self.churn.fresh();
            let spawned = self.world.extend(fresh.map(moving_entity));
            self.churn.live.extend(spawned.iter().copied());
        }
        fn check(&self) -> Check {
            let positions = self.world.borrow::<Position>();
            check(self.world.entities().len(), positions.as_slice())
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Entity, Join, World, WorldExt};

    pub struct State {
        world: World,
        churn: Churn<Entity>,
        batch: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<Position>();
        world.register::<Velocity>();
        let churn = Churn::new(n, |i| {
            let (p, v) = moving_entity(i);
            world.create_entity().with(p).with(v).build()
        });
        State {
            world,
            churn,
            batch: Vec::new(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.batch.clear();
            self.batch.extend(self.churn.oldest());
            self.world.delete_entities(&self.batch).unwrap();
            for i in self.churn.fresh() {
                let (p, v) = moving_entity(i);
                let e = self.world.create_entity().with(p).with(v).build();
                self.churn.live.push_back(e);
            }
        }
        fn check(&self) -> Check {
            let positions = self.world.read_storage::<Position>();
            check(self.world.entities().join().count(), (&positions).join())
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        positions: VecDeque<Position>,
        velocities: VecDeque<Velocity>,
        next: usize,
        per_frame: usize,
    }

    pub fn setup(n: usize) -> State {
        State {
            positions: (0..n).map(|i| moving_entity(i).0).collect(),
            velocities: (0..n).map(|i| moving_entity(i).1).collect(),
            next: n,
            per_frame: n / 10,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.positions.drain(..self.per_frame);
            self.velocities.drain(..self.per_frame);
            for i in self.next..self.next + self.per_frame {
                let (p, v) = moving_entity(i);
                self.positions.push_back(p);
                self.velocities.push_back(v);
            }
            self.next += self.per_frame;
        }
        fn check(&self) -> Check {
            check(self.positions.len(), &self.positions)
        }
    }
}
