//! `random_get_many`: the entities and lookups of `random_get` (`n`
//! entities, 100,000, with `(Position, Velocity)`; `n / 10` lookups through
//! live handles in a fixed-seed random order), but each lookup reads both
//! components: timed, summing `position.x + velocity.x` (the sum goes
//! through `black_box`).
//!
//! - typed_ecs: one `world.query_mut::<(&Position, &Velocity)>()`, then
//!   `get(e)` on it, as the peers make their view or query once.
//! - typed_ecs_get_many: `world.get_many::<(&Position, &Velocity)>(e)` for
//!   each lookup, the one call for one entity (no query kept between
//!   lookups).
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

use super::random_get::{self, lookups_state, Lookups};
use crate::components::*;
use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "random_get_many",
    what: "10,000 lookups of (Position, Velocity), in random order, among 100,000 entities \
           with both",
    sizes: &[100_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: crate::impls![
        typed_ecs,
        typed_ecs_get_many,
        hecs,
        bevy,
        shipyard,
        sparsey,
        specs,
        raw
    ],
    notes: "typed_ecs makes the query once, as the peers make their view, and looks each \
            entity up with its `get`: the entity's sparse entry in the first storage (slot \
            and generation, read with no page table when the storage has no missing page), \
            then each value at that slot. The second storage's entity is not compared: the \
            query read, when it was made, how far a proof says the second storage holds \
            the first's entities in the same slots (storages spawned together do), and \
            takes the slot unchecked below that. The proof was made by the queries before \
            it: a query whose storages are not all proven counts its lookups, and once they \
            are a quarter of the storage's length the next query made compares the two \
            storages' entities (the first runs of a benchmark). Callgrind counts 30 \
            instructions a lookup (36 when the second storage compared its entity, one \
            more random read; hecs 26, sparsey 33). `typed_ecs_get_many` is the one call \
            for one entity, which keeps nothing between calls and compares the second \
            storage's entity. hecs reads one entity record and both values from the same \
            archetype row; the other sparse sets (shipyard, sparsey, specs) read a sparse \
            entry and a value per component, and sparsey indexes a flat sparse array (no \
            pages) with unchecked reads.",
};

/// What one lookup adds to the sum.
#[inline]
fn value(position: &Position, velocity: &Velocity) -> f32 {
    position.0[0] + velocity.0[0]
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;
    use random_get::typed_ecs::{spawn, MoveWorld};

    lookups_state!(MoveWorld, Entity, |world| {
        let mut both = world.query_mut::<(&Position, &Velocity)>();
        move |e| {
            let (p, v) = both.get(e).unwrap();
            value(p, v)
        }
    });
}

pub mod typed_ecs_get_many {
    use super::*;
    use ::typed_ecs::prelude::*;
    use random_get::typed_ecs::{spawn, MoveWorld};

    lookups_state!(MoveWorld, Entity, |world| {
        move |e| {
            let (p, v) = world.get_many::<(&Position, &Velocity)>(e).unwrap();
            value(p, v)
        }
    });
}

pub mod hecs {
    use super::*;
    use ::hecs::{Entity, World};
    use random_get::hecs::spawn;

    lookups_state!(World, Entity, |world| {
        let view = world.view::<(&Position, &Velocity)>();
        move |e| {
            let (p, v) = view.get(e).unwrap();
            value(p, v)
        }
    });
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{entity::Entity, query::QueryState, world::World};
    use random_get::bevy::spawn;

    type Both = (&'static Position, &'static Velocity);

    lookups_state!((World, QueryState<Both>), Entity, |(world, state)| {
        let query = state.query(world);
        move |e| {
            let (p, v) = query.get(e).unwrap();
            value(p, v)
        }
    });
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{EntityId, Get, View, World};
    use random_get::shipyard::spawn;

    lookups_state!(World, EntityId, |world| {
        let views = world.borrow::<(View<Position>, View<Velocity>)>().unwrap();
        move |e| {
            let (p, v) = (&views.0, &views.1).get(e).unwrap();
            value(p, v)
        }
    });
}

pub mod sparsey {
    use super::*;
    use ::sparsey::{Entity, World};
    use random_get::sparsey::spawn;

    lookups_state!(World, Entity, |world| {
        let mut query = world.query_one::<(&Position, &Velocity)>();
        move |e| {
            let (p, v) = query.get(e).unwrap();
            value(p, v)
        }
    });
}

pub mod specs {
    use super::*;
    use ::specs::{Entity, ReadStorage, World};
    use random_get::specs::spawn;

    lookups_state!(World, Entity, |world| {
        let (positions, velocities) =
            world.system_data::<(ReadStorage<Position>, ReadStorage<Velocity>)>();
        move |e| value(positions.get(e).unwrap(), velocities.get(e).unwrap())
    });
}

pub mod raw {
    use super::*;
    use random_get::raw::{spawn, Columns};

    lookups_state!(Columns, usize, |(positions, velocities)| move |e| {
        value(&positions[e], &velocities[e])
    });
}
