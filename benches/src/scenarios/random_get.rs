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
//!
//! `random_get_many` shares the worlds and the handles ([`Lookups`], each
//! implementation's `spawn`): only what a lookup reads differs.

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

/// The state of `random_get` and of `random_get_many`, whose runs differ
/// only in what a lookup reads: a world of moving entities, the handles to
/// look up in it, in lookup order, and the total of the runs' sums.
pub(crate) struct Lookups<W, H> {
    world: W,
    handles: Vec<H>,
    total: f64,
}

impl<W, H: Copy> Lookups<W, H> {
    /// `world`, whose entities' handles are `all`, in spawn order.
    fn new(world: W, all: &[H]) -> Self {
        Lookups {
            handles: picks(all.len()).into_iter().map(|i| all[i]).collect(),
            world,
            total: 0.0,
        }
    }

    /// One run: `borrow` takes what the lookups need from the world, once,
    /// and returns the lookup, what one handle adds to the sum; the sum
    /// over the handles goes through `black_box` into the total.
    #[inline]
    pub(crate) fn run<'w, L: FnMut(H) -> f32>(&'w mut self, borrow: impl FnOnce(&'w mut W) -> L) {
        let mut lookup = borrow(&mut self.world);
        let mut sum = 0.0f32;
        for &e in &self.handles {
            sum += lookup(e);
        }
        self.total += f64::from(black_box(sum));
    }

    pub(crate) fn check(&self) -> Check {
        vec![
            ("lookups", self.handles.len() as f64),
            ("sum of x", self.total),
        ]
    }
}

/// An implementation's `State`, over the `Lookups<$world, $handle>` that
/// the `spawn` in scope makes; its `setup`; and its `Instance`, whose run
/// is [`Lookups::run`] with `$borrow`.
macro_rules! lookups_state {
    ($world:ty, $handle:ty, $borrow:expr) => {
        pub struct State(Lookups<$world, $handle>);

        pub fn setup(n: usize) -> State {
            State(spawn(n))
        }

        impl Instance for State {
            fn run(&mut self) {
                self.0.run($borrow);
            }
            fn check(&self) -> Check {
                self.0.check()
            }
        }
    };
}
pub(crate) use lookups_state;

/// typed_ecs's implementation, over a world that declares `$group`
/// (nothing, or an owning group of both components): the same code, so
/// the rows differ only by the group.
macro_rules! typed_ecs_impl {
    ($($group:tt)*) => {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! { pub struct MoveWorld<Position, Velocity>; $($group)* }

    /// The world, spawned one entity at a time, and its lookups.
    pub(crate) fn spawn(n: usize) -> Lookups<MoveWorld, Entity> {
        let mut world = MoveWorld::new();
        let all: Vec<Entity> = (0..n).map(|i| world.spawn_with(moving_entity(i))).collect();
        Lookups::new(world, &all)
    }

    lookups_state!(MoveWorld, Entity, |world| {
        move |e| world.get::<Position>(e).unwrap().0[0]
    });
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

    pub(crate) fn spawn(n: usize) -> Lookups<World, Entity> {
        let mut world = World::new();
        let all: Vec<Entity> = world.spawn_batch((0..n).map(moving_entity)).collect();
        Lookups::new(world, &all)
    }

    lookups_state!(World, Entity, |world| {
        let view = world.view::<&Position>();
        move |e| view.get(e).unwrap().0[0]
    });
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{
        entity::Entity,
        query::{QueryData, QueryState},
        world::World,
    };

    /// The world, and the state of a query `D` made after the spawns (as a
    /// system keeps its query state).
    pub(crate) fn spawn<D: QueryData + 'static>(
        n: usize,
    ) -> Lookups<(World, QueryState<D>), Entity> {
        let mut world = World::new();
        let all: Vec<Entity> = world.spawn_batch((0..n).map(moving_entity)).collect();
        let query = world.query::<D>();
        Lookups::new((world, query), &all)
    }

    lookups_state!((World, QueryState<&'static Position>), Entity, |(
        world,
        state,
    )| {
        let query = state.query(world);
        move |e| query.get(e).unwrap().0[0]
    });
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{EntityId, Get, View, World};

    pub(crate) fn spawn(n: usize) -> Lookups<World, EntityId> {
        let mut world = World::new();
        let all: Vec<EntityId> = world.bulk_add_entity((0..n).map(moving_entity)).collect();
        Lookups::new(world, &all)
    }

    lookups_state!(World, EntityId, |world| {
        let view = world.borrow::<View<Position>>().unwrap();
        move |e| (&view).get(e).unwrap().0[0]
    });
}

pub mod sparsey {
    use super::*;
    use ::sparsey::{Entity, World};

    pub(crate) fn spawn(n: usize) -> Lookups<World, Entity> {
        let mut world = World::builder()
            .register::<Position>()
            .register::<Velocity>()
            .build();
        let all = world.extend((0..n).map(moving_entity)).to_vec();
        Lookups::new(world, &all)
    }

    lookups_state!(World, Entity, |world| {
        let view = world.borrow::<Position>();
        move |e| view.get(e).unwrap().0[0]
    });
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Entity, World, WorldExt};

    pub(crate) fn spawn(n: usize) -> Lookups<World, Entity> {
        let mut world = World::new();
        world.register::<Position>();
        world.register::<Velocity>();
        let all: Vec<Entity> = (0..n)
            .map(|i| {
                let (p, v) = moving_entity(i);
                world.create_entity().with(p).with(v).build()
            })
            .collect();
        Lookups::new(world, &all)
    }

    lookups_state!(World, Entity, |world| {
        let storage = world.read_storage::<Position>();
        move |e| storage.get(e).unwrap().0[0]
    });
}

pub mod raw {
    use super::*;

    /// Each component in a `Vec`, indexed by spawn order.
    pub(crate) type Columns = (Vec<Position>, Vec<Velocity>);

    pub(crate) fn spawn(n: usize) -> Lookups<Columns, usize> {
        let all: Vec<usize> = (0..n).collect();
        let columns = (
            (0..n).map(|i| moving_entity(i).0).collect(),
            (0..n).map(|i| moving_entity(i).1).collect(),
        );
        Lookups::new(columns, &all)
    }

    lookups_state!(Columns, usize, |(positions, _)| move |e| positions[e].0[0]);
}
