//! What reacts to a structural change, called by the rest of
//! [`structural`](super) at fixed points and by nothing else: after
//! values were added, before values are removed, after values were taken
//! out, at the end of each change, after a load. The owning groups react
//! (see [`group`](crate::group)), and the world's hooks (see `hooks.rs`):
//! what they must see waits in the world's own queue ([`Pending`], and the
//! removed values by component), and the end of each change runs it
//! ([`settle`]) unless a caller holds it back to run it once for a batch
//! ([`batched`]). In a world without hooks every hook line here is a
//! constant `false` branch: the code is today's.
//!
//! [`Pending`]: crate::plumbing::Pending

use crate::indices::{contains, overlaps};
use crate::plumbing::BundleParts;
use crate::plumbing::{ColumnAccess, Storages};
use crate::seal::TOKEN;
use crate::Entity;

/// After `entities` gained the components of the bundle `B` (each value is
/// in its storage, and none replaced one).
#[inline]
pub(crate) fn added<W, B, E>(world: &mut W, entities: E)
where
    W: Storages,
    B: BundleParts<W>,
    E: ExactSizeIterator<Item = Entity> + Clone,
{
    if const { W::HOOKED && B::INDICES.len() == 1 && contains(W::ON_ADD, B::INDICES[0]) } {
        // One component, hooked: its list, with no search.
        list_added::<W, E>(world, B::INDICES[0], entities.clone());
    } else if const { W::HOOKED && overlaps(W::ON_ADD, B::INDICES) } {
        for &index in B::INDICES {
            if contains(W::ON_ADD, index) {
                list_added::<W, E>(world, index, entities.clone());
            }
        }
    }
    crate::group::entered::<W, B, E>(world, entities);
}

/// After `entity`'s `C` was replaced by a new value: no entity gained or
/// lost anything, so only the groups look.
#[inline]
pub(crate) fn replaced<W: Storages, B: BundleParts<W>>(world: &mut W, entity: Entity) {
    crate::group::entered::<W, B, _>(world, core::iter::once(entity));
}

/// Lists `entities` for the `on_add` hooks of the component at `index`.
#[inline]
fn list_added<W: Storages, E: Iterator<Item = Entity>>(world: &mut W, index: usize, entities: E) {
    let pending = &mut world.queued(TOKEN).pending;
    pending.dirty = true;
    if pending.added.len() <= index {
        pending.added.resize_with(W::FIELDS.len(), Default::default);
    }
    pending.added[index].extend(entities);
}

/// Before `entity` loses the components of the bundle `B` (each value is
/// still in its storage).
#[inline]
pub(crate) fn leaving<W: Storages, B: BundleParts<W>>(world: &mut W, entity: Entity) {
    crate::group::leaving::<W, B>(world, entity);
}

/// Before `entity` loses every component (a despawn, `remove_all`).
#[inline]
pub(crate) fn leaving_all<W: Storages>(world: &mut W, entity: Entity) {
    crate::group::leaving_all(world, entity);
}

/// After `entity`'s `C` was taken out, with the world consistent, when no
/// caller wants the value (a despawn, a queued removal, `clear`): it waits
/// for `C`'s `on_remove` hooks, or is dropped now.
#[inline]
pub(crate) fn removed<W: ColumnAccess<C>, C>(world: &mut W, entity: Entity, value: C) {
    if W::REMOVE_HOOKED {
        world.queued(TOKEN).pending.dirty = true;
        world.pending_removed().push((entity, value));
    } else {
        drop(value);
    }
}

/// After `entity`'s `C` was taken out for `remove`, which hands it back:
/// `C`'s `on_remove` hooks see it first, right away.
#[inline]
pub(crate) fn removed_returned<W: ColumnAccess<C>, C>(
    world: &mut W,
    entity: Entity,
    value: Option<C>,
) -> Option<C> {
    if !W::REMOVE_HOOKED {
        return value;
    }
    let value = value?;
    let batch = [(entity, value)];
    world.run_remove_hooks(&batch);
    settle(world);
    let [(_, value)] = batch;
    Some(value)
}

/// At the end of a change: runs the hooks of what is pending, unless a
/// caller holds them back.
#[inline]
pub(crate) fn settle<W: Storages>(world: &mut W) {
    if W::HOOKED {
        let pending = &world.queued_ref(TOKEN).pending;
        if pending.hold == 0 && pending.dirty {
            world.settle(false, TOKEN);
        }
    }
}

/// At a sync point: [`settle`], and the `on_change` hooks.
#[inline]
pub(crate) fn settle_sync<W: Storages>(world: &mut W) {
    if W::HOOKED && world.queued_ref(TOKEN).pending.hold == 0 {
        world.settle(true, TOKEN);
    }
}

/// Runs `f`, a batch of changes, holding the hooks back, then runs them
/// once for the whole batch. A panic in `f` lets go of the hooks; what it
/// left pending runs at the next change.
#[inline]
pub(crate) fn batched<W: Storages, R>(world: &mut W, f: impl FnOnce(&mut W) -> R) -> R {
    if !W::HOOKED {
        return f(world);
    }
    let out = {
        let held = Held::new(world);
        f(&mut *held.world)
    };
    settle(world);
    out
}

/// The hooks of a world held back while it lives.
pub(crate) struct Held<'a, W: Storages> {
    pub(crate) world: &'a mut W,
}

impl<'a, W: Storages> Held<'a, W> {
    /// Holds back `world`'s hooks.
    #[inline]
    pub(crate) fn new(world: &'a mut W) -> Self {
        world.queued(TOKEN).pending.hold += 1;
        Held { world }
    }
}

impl<W: Storages> Drop for Held<'_, W> {
    #[inline]
    fn drop(&mut self) {
        self.world.queued(TOKEN).pending.hold -= 1;
    }
}

/// After a world was loaded: its storages were made from saved parts.
#[cfg(feature = "serde")]
pub(crate) fn loaded<W: Storages>(world: &mut W) {
    // Loaded storages carry no group marks: pack the groups now.
    crate::group::refresh(world);
}
