//! Changes that happen later, and the one add and one removal that every
//! change goes through.
//!
//! [`add_now`] and [`remove_now`] are the only places a component is added
//! to or removed from a live entity: `World::add`, `insert` and `remove`, the
//! sync point ([`World::finalize_updates`]) and [`World::apply`] of a
//! [`Commands`](crate::Commands) buffer all call them, so owning groups are
//! kept packed the same way on every path.
//!
//! Two ways to defer a change exist, because they are made in two
//! situations:
//!
//! * **The world's own queues** (`add_deferred`, `remove_deferred`,
//!   `despawn_deferred`), filled while you hold the world. Each queued
//!   change is checked *when it is queued*, so a mistake comes back at once,
//!   with your value (`try_add_deferred` returns an [`AddError`]).
//! * **A [`Commands`](crate::Commands) buffer**, filled while the world is
//!   borrowed (inside a query) and applied with `world.apply`. Nothing can be
//!   checked when a command is queued, so every command is checked *when it
//!   is applied*, and each one that cannot be is listed in the
//!   [`ApplyReport`](crate::commands::ApplyReport).
//!
//! Both apply removals (every storage, in declaration order, each in the
//! order queued), then additions (likewise), then despawns; a buffer makes
//! its spawns first, so its reserved handles are real by then. The rules:
//!
//! | the entity, when the change is applied | world queue: add | world queue: remove | world queue: despawn | `Commands::add` | `Commands::remove` | `Commands::despawn` |
//! |---|---|---|---|---|---|---|
//! | is dead | dropped with the entity's other components | nothing | nothing | rejected: `DeadEntity` | rejected: `DeadEntity` | rejected: `DeadEntity` |
//! | has the component, its removal queued before | replaced | removed | — | replaced | removed | — |
//! | has the component, no removal queued | replaced (see below) | removed | — | rejected: `AlreadyPresent` | removed | — |
//! | lacks the component | added | nothing | — | added | nothing | — |
//!
//! The one difference in outcome is the third row: a world queue accepted
//! the add only if the entity had no component (or had its removal queued),
//! so the component it has now was added *after* the add was queued, by an
//! immediate `add` or `insert` or by a command; the queued value, checked
//! and accepted, replaces it. A command was never checked, so it is
//! rejected and reported, with nothing lost but the value it carried. Rows
//! one and three also differ in whether you are told: a world queue has no
//! report, and a queued add of an entity that is despawned is dropped with
//! the entity's other components, as documented on `despawn`.

pub(crate) mod queue;

use crate::error::AddErrorKind;
use crate::indices;
use crate::world::storages::{Column, ColumnOf, EachStorage, Storages};
use crate::{Contains, Entity};

/// What [`add_now`] does when the entity already has the component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OnPresent {
    /// Hand the new value back (`add`, `Commands::add`).
    Reject,
    /// Replace the old value and return it (`insert`, the sync point).
    Replace,
}

/// Adds `value` to `entity`, which the caller knows is alive, keeping the
/// world's groups packed. Brings `C`'s storage in step first (a storage
/// gains entries only in step with its world). `Ok(Some(old))`: a value
/// replaced; `Err(value)`: the entity has one and `on_present` rejects.
#[inline]
pub(crate) fn add_now<W: Contains<C>, C>(
    world: &mut W,
    entity: Entity,
    value: C,
    on_present: OnPresent,
) -> Result<Option<C>, C> {
    crate::world::sync::<W, C>(world);
    let storage = world.sparse_map_mut();
    let old = match on_present {
        OnPresent::Reject => {
            storage.insert_new(entity, value)?;
            None
        }
        OnPresent::Replace => storage.insert(entity, value),
    };
    crate::group::entered::<W, (C,), _>(world, core::iter::once(entity));
    Ok(old)
}

/// Removes `entity`'s `C`, keeping the world's groups packed. A storage not
/// in step keeps the value of an entity that is not alive (the world drops
/// it when it brings the storage in step).
#[inline]
pub(crate) fn remove_now<W: Contains<C>, C>(world: &mut W, entity: Entity) -> Option<C> {
    crate::group::leaving::<W, (C,)>(world, entity);
    let (entities, storage) = ColumnOf::<C>::split(world);
    storage.remove_in(entity, entities)
}

// ----- the world's queues -----

/// Queues `value` to be added to `entity`, which the caller knows is alive,
/// at the next sync point; or says why not and hands it back.
pub(crate) fn queue_add<W: Contains<C>, C>(
    world: &mut W,
    entity: Entity,
    value: C,
) -> Result<(), (AddErrorKind, C)> {
    crate::world::sync::<W, C>(world);
    world.sparse_map_mut().queue_add(entity, value)
}

/// Queues the removal of `entity`'s `C`, which the caller knows is alive.
pub(crate) fn queue_remove<W: Contains<C>, C>(world: &mut W, entity: Entity) {
    crate::world::sync::<W, C>(world);
    world.sparse_map_mut().queue_remove(entity);
}

/// Applies the queued removals of `C`, in the order queued. Each removal
/// leaves the queue before its value is dropped, so a panicking `Drop`
/// leaves the rest queued.
pub(crate) fn apply_removals<W: Contains<C>, C>(world: &mut W) {
    if !const { indices::contains(W::GROUPED, <W as Contains<C>>::INDEX) } {
        // No group to keep packed: the storage applies them itself.
        world.sparse_map_mut().apply_removals();
        return;
    }
    if !world.sparse_map_mut().ready_pending_removes() {
        return;
    }
    while let Some(entity) = world.sparse_map_mut().pop_pending_remove() {
        drop(remove_now::<W, C>(world, entity));
    }
}

/// Applies the queued additions of `C`, in the order queued: each replaces
/// a value the entity gained since it was queued (see the module docs). Each
/// addition leaves the queue before a replaced value is dropped.
pub(crate) fn apply_additions<W: Contains<C>, C>(world: &mut W) {
    if !const { indices::contains(W::GROUPED, <W as Contains<C>>::INDEX) } {
        world.sparse_map_mut().apply_additions();
        return;
    }
    if !world.sparse_map_mut().ready_pending_adds() {
        return;
    }
    while let Some((entity, value)) = world.sparse_map_mut().pop_pending_add() {
        let replaced = add_now::<W, C>(world, entity, value, OnPresent::Replace);
        drop(replaced);
    }
}

/// Applies every storage's queued removals, then every storage's queued
/// additions (the first two steps of the sync point).
pub(crate) struct ApplyQueues {
    /// `false`: removals; `true`: additions.
    pub(crate) additions: bool,
}

impl<W: Storages> EachStorage<W> for ApplyQueues {
    type Out<C> = ();

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) {
        if self.additions {
            apply_additions::<W, C>(world);
        } else {
            apply_removals::<W, C>(world);
        }
    }
}
