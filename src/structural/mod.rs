//! The one path of every structural change: the only code that adds a
//! value to a storage, takes one out of it, or makes or frees an entity.
//!
//! | change | entry point | used by |
//! |---|---|---|
//! | add or replace one value | [`add`] | `add`, `try_add`, `insert`, the sync point, `Commands` (both through `deferred::apply`) |
//! | remove one value | [`remove`] | `remove`, the sync point, `Commands` |
//! | spawn with a bundle | [`spawn_with`] | `spawn_with`, `try_spawn_with` |
//! | spawn many | [`batch::spawn`] | `spawn_batch`, `try_spawn_batch`, `extend`, `try_extend` |
//! | despawn | [`despawn::despawn`], [`despawn::despawn_batch`] | `despawn`, `despawn_batch`, the sync point, `Commands` |
//! | remove everything of one entity | [`despawn::remove_all`] | `remove_all` |
//! | empty the world | [`despawn::clear`] | `clear` |
//! | a loaded world | [`loaded`] | loading (feature `serde`) |
//!
//! What must react to a change (owning groups today; hooks and relation
//! cleanup as they come) hangs off [`react`], which these entry points call
//! at fixed points: after values were added, before values are removed,
//! after a world was emptied or loaded. No other code calls it, and no
//! other code calls the storage's or the allocator's membership methods
//! (`tests/architecture.rs` checks both), so a new reaction is one change
//! in `react.rs`.
//!
//! Values taken out are dropped only once every storage is consistent
//! again (see [`EachStorage`](crate::plumbing::EachStorage)), so a
//! panicking `Drop` cannot leave the world half-updated.

pub(crate) mod batch;
mod bundle;
pub(crate) mod despawn;
pub(crate) mod react;
pub(crate) mod related;

/// Runs a batch of changes with the world's hooks held back, then runs
/// them once (see [`react::batched`]): a sync point's, a command buffer's.
pub(crate) use react::batched;
/// A sync point's reactions: the hooks of what is pending, and the
/// `on_change` hooks (see [`react::settle_sync`]).
pub(crate) use react::settle_sync as sync_point;
/// The world's hooks held back while it lives (the hooks' own driver).
pub(crate) use react::Held;

use crate::entity::OutOfIndices;
use crate::in_step;
use crate::plumbing::BundleParts;
use crate::plumbing::{ColumnAccess, Storages};
pub(crate) use crate::queue::OnPresent;
use crate::seal::TOKEN;
use crate::Entity;

/// Adds `value` to `entity`, which the caller knows is alive. Brings `C`'s
/// storage in step first (a storage gains entries only in step with its
/// world). `Ok(Some(old))`: a value replaced; `Err(value)`: the entity has
/// one and `on_present` rejects.
#[inline]
pub(crate) fn add<W: ColumnAccess<C>, C>(
    world: &mut W,
    entity: Entity,
    value: C,
    on_present: OnPresent,
) -> Result<Option<C>, C> {
    crate::in_step::sync::<W, C>(world);
    let storage = world.sparse_map_mut();
    let old = match on_present {
        OnPresent::Reject => {
            storage.insert_new(entity, value)?;
            None
        }
        OnPresent::Replace => storage.insert(entity, value),
    };
    if old.is_none() {
        react::added::<W, (C,), _>(world, core::iter::once(entity));
    } else {
        react::replaced::<W, (C,)>(world, entity);
    }
    react::settle(world);
    Ok(old)
}

/// Removes `entity`'s `C`. A storage not in step keeps the value of an
/// entity that is not alive (the world drops it when it brings the storage
/// in step).
#[inline]
pub(crate) fn remove<W: ColumnAccess<C>, C>(world: &mut W, entity: Entity) -> Option<C> {
    let value = take::<W, C>(world, entity);
    react::removed_returned::<W, C>(world, entity, value)
}

/// Removes `entity`'s `C` for a caller that does not want the value (a
/// queued removal): it goes to `C`'s `on_remove` hooks, or is dropped.
/// `true` if the entity had one.
#[inline]
pub(crate) fn discard<W: ColumnAccess<C>, C>(world: &mut W, entity: Entity) -> bool {
    match take::<W, C>(world, entity) {
        Some(value) => {
            react::removed::<W, C>(world, entity, value);
            react::settle(world);
            true
        }
        None => false,
    }
}

/// Takes `entity`'s `C` out of its storage (see [`remove`]).
#[inline]
fn take<W: ColumnAccess<C>, C>(world: &mut W, entity: Entity) -> Option<C> {
    react::leaving::<W, (C,)>(world, entity);
    let (entities, storage) = ColumnAccess::<C>::split(world);
    let alive = in_step::alive_in(storage, entities);
    storage.remove_in(entity, alive)
}

/// Makes a new entity, after bringing every storage in step (a storage
/// from elsewhere may hold the handle about to be made).
#[inline]
pub(crate) fn spawn<W: Storages>(world: &mut W) -> Result<Entity, OutOfIndices> {
    crate::in_step::sync_all(world);
    world.allocator_mut(TOKEN).try_alloc()
}

/// Makes a new entity with the values of `bundle`, or hands the bundle
/// back when the world is out of entity indices.
#[inline]
pub(crate) fn spawn_with<W: Storages, B: BundleParts<W>>(
    world: &mut W,
    bundle: B,
) -> Result<Entity, (OutOfIndices, B)> {
    match spawn(world) {
        Ok(entity) => {
            bundle.insert_into(world, entity, TOKEN);
            react::added::<W, B, _>(world, core::iter::once(entity));
            react::settle(world);
            Ok(entity)
        }
        Err(error) => Err((error, bundle)),
    }
}

/// A world just loaded (its storages made from saved parts): the
/// reactions to a load run (its owning groups are packed).
#[cfg(feature = "serde")]
pub(crate) fn loaded<W: Storages>(world: &mut W) {
    react::loaded(world);
}
