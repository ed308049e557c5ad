//! Keeping a world's storages in step with its allocator (see
//! [`SparseMap`](crate::SparseMap), "Storages moved between worlds"): the
//! one module that reads, compares or sets the stamps of storages and of
//! the world's own queue (`tests/architecture.rs` holds it to that). The
//! layers below receive its verdict instead, an [`Alive`]: which entries
//! count.
//!
//! A storage in step holds only alive entities. Before a storage gains
//! entries, and before a spawn, a `query_mut`, the sync point or `apply`, the
//! world brings the storages concerned in step ([`sync`], [`sync_all`]); the
//! per-entity methods that only read or remove check instead (see
//! `SparseMap::get_in`), so that a loop of them never calls code that may
//! write the whole storage; and the read-only views below skip entries of
//! dead entities.

use crate::entity::{Alive, EntityAllocator};
use crate::plumbing::{Column, ColumnAccess, Deferred, EachStorage, EachStorageRef, Storages};
use crate::seal::TOKEN;
use crate::sparse_map::track::Track;
use crate::SparseMap;
use alloc::vec::Vec;

/// Which entries of `storage` count for the world whose allocator is
/// `entities`: the proof the layers below receive instead of a stamp
/// ([`Alive::All`] only if the storage is in step).
#[inline(always)]
pub(crate) fn alive_in<'a, T, K: Track>(
    storage: &SparseMap<T, K>,
    entities: &'a EntityAllocator,
) -> Alive<'a> {
    if storage.is_synced(entities.stamp()) {
        Alive::All
    } else {
        Alive::Check(entities)
    }
}

/// Which entries of `C`'s storage count for `world` (see [`alive_in`]).
#[inline(always)]
pub(crate) fn alive<W: ColumnAccess<C>, C>(world: &W) -> Alive<'_> {
    alive_in(world.sparse_map(), world.allocator(TOKEN))
}

/// Which entries count for `world`, given whether every storage concerned
/// is in step (as a query's terms tell, each through [`is_in_step`]).
#[inline(always)]
pub(crate) fn alive_when<W: Storages>(world: &W, all_in_step: bool) -> Alive<'_> {
    if all_in_step {
        Alive::All
    } else {
        Alive::Check(world.allocator(TOKEN))
    }
}

/// `true` if `C`'s storage is in step with `world`'s allocator.
#[inline(always)]
pub(crate) fn is_in_step<W: ColumnAccess<C>, C>(world: &W) -> bool {
    matches!(alive::<W, C>(world), Alive::All)
}

/// Brings `C`'s storage in step with the world's allocator: one comparison
/// when it already is.
#[inline]
pub(crate) fn sync<W: ColumnAccess<C>, C>(world: &mut W) {
    if !is_in_step::<W, C>(world) {
        forget_dead::<W, C>(world);
    }
}

/// The slow half of [`sync`]: drops every value and queued change of `C`'s
/// storage whose entity is not alive in the world (once the storage is
/// consistent), and stamps the storage in step. Not a structural change of
/// the world: the world never held those values (the storage was away, or
/// came from elsewhere), so nothing reacts to their going.
#[cold]
#[inline(never)]
fn forget_dead<W: ColumnAccess<C>, C>(world: &mut W) {
    let entities = world.allocator(TOKEN);
    let dead = world
        .sparse_map()
        .dead_entries(|entity| entities.is_alive(entity));
    let stamp = entities.stamp();
    drop(world.sparse_map_mut().resync(&dead, stamp));
}

/// Brings the world's own queue in step with its allocator (as a storage,
/// see [`sync`]): one comparison when it already is. The queue checks an
/// entity's generation wherever it looks one up, so this is needed only
/// before it takes a new entry (an entry of a dead entity could hold the
/// index) and before it is applied or checked.
#[inline]
pub(crate) fn sync_queued<W: Storages>(world: &mut W) {
    let (entities, queued) = world.queued_split(TOKEN);
    if queued.synced != entities.stamp() {
        forget_dead_queued(world);
    }
}

/// The slow half of [`sync_queued`]: drops every queued change whose
/// entity is not alive (once every queue is consistent), and stamps the
/// queue in step.
#[cold]
#[inline(never)]
fn forget_dead_queued<W: Storages>(world: &mut W) {
    struct Forget;
    impl<W: Storages> EachStorage<W> for Forget {
        type Out<C> = Vec<C>;
        fn visit<C: Column<W>>(&mut self, world: &mut W) -> Vec<C> {
            let (entities, queued) = world.queued_split(TOKEN);
            C::queue(&mut queued.queues, TOKEN).forget_dead(|entity| entities.is_alive(entity))
        }
        fn done(&mut self, world: &mut W) {
            let (entities, queued) = world.queued_split(TOKEN);
            W::despawns(&mut queued.queues, TOKEN).forget_dead(|entity| entities.is_alive(entity));
            queued.synced = entities.stamp();
        }
    }
    world.each(&mut Forget, TOKEN);
}

/// Brings every storage and the world's own queue in step: one comparison
/// per storage, one branch for all of them, and the work (needed only after
/// storages or allocators were moved) out of line. A spawn calls it: a
/// storage from elsewhere may hold the handle about to be made.
#[inline]
pub(crate) fn sync_all<W: Storages>(world: &mut W) {
    struct AnyStale {
        stale: bool,
    }
    impl<W: Storages> EachStorageRef<W> for AnyStale {
        #[inline]
        fn visit<C: Column<W>>(&mut self, world: &W) {
            // `|`, not `||`: no branch per storage.
            self.stale |= !C::field(world, TOKEN).is_synced(world.allocator(TOKEN).stamp());
        }
    }
    struct Resync;
    impl<W: Storages> EachStorage<W> for Resync {
        type Out<C> = ();
        #[inline]
        fn visit<C: Column<W>>(&mut self, world: &mut W) {
            sync::<W, C>(world);
        }
    }
    #[cold]
    #[inline(never)]
    fn resync_all<W: Storages>(world: &mut W) {
        world.each(&mut Resync, TOKEN);
    }
    let mut any = AnyStale { stale: false };
    world.each_ref(&mut any, TOKEN);
    if any.stale {
        resync_all(world);
    }
    sync_queued(world);
}

/// The number of entries of `C`'s storage as the world sees it: all of
/// them if it is in step with the allocator, else those whose entity is
/// alive.
#[inline]
pub(crate) fn live_len<W: ColumnAccess<C>, C>(world: &W) -> usize {
    let (entities, storage) = (world.allocator(TOKEN), world.sparse_map());
    if storage.is_synced(entities.stamp()) {
        storage.len()
    } else {
        storage
            .live_slots(|entity| entities.is_alive(entity))
            .count()
    }
}

/// The dense slot of the `index`-th entry of `C`'s storage, as the world
/// sees it (see [`live_len`]).
#[inline]
pub(crate) fn dense_slot<W: ColumnAccess<C>, C>(world: &W, index: usize) -> Option<usize> {
    let (entities, storage) = (world.allocator(TOKEN), world.sparse_map());
    if storage.is_synced(entities.stamp()) {
        (index < storage.len()).then_some(index)
    } else {
        storage
            .live_slots(|entity| entities.is_alive(entity))
            .nth(index)
    }
}

// ----- stamping: a storage or queue made, loaded, emptied, or kept -----

/// An empty storage in step with `entities`, with room for `capacity`
/// values (for a new world).
#[inline]
pub fn new_storage<T, K: Track>(entities: &EntityAllocator, capacity: usize) -> SparseMap<T, K> {
    let mut map = if capacity == 0 {
        SparseMap::empty()
    } else {
        SparseMap::empty_with_capacity(capacity)
    };
    map.set_synced(entities.stamp());
    map
}

/// Empty queues, in step with `entities` (for a new world).
#[inline]
pub fn new_deferred<W: Storages>(entities: &EntityAllocator) -> Deferred<W> {
    Deferred {
        queues: W::Queues::default(),
        synced: entities.stamp(),
        pending: crate::plumbing::Pending::default(),
    }
}

/// Stamps `storage` in step with `entities`: only for a caller that has
/// just checked every entity it holds (loading).
#[cfg(feature = "serde")]
#[inline]
pub(crate) fn stamp<T, K: Track>(storage: &mut SparseMap<T, K>, entities: &EntityAllocator) {
    storage.set_synced(entities.stamp());
}

/// Which entries of the world's own queue count (see [`alive_in`]).
#[cfg(any(feature = "testing", feature = "serde"))]
#[inline]
pub(crate) fn queued_alive<W: Storages>(world: &W) -> Alive<'_> {
    let (entities, queued) = (world.allocator(TOKEN), world.queued_ref(TOKEN));
    if queued.synced == entities.stamp() {
        Alive::All
    } else {
        Alive::Check(entities)
    }
}

/// As the allocator retires entities that no storage of the world holds
/// any more (one, or a batch's), before it takes its next stamp: a storage
/// in step stays so, stamped with that next stamp.
#[inline]
pub(crate) fn keep_retiring<T, K: Track>(
    entities: &EntityAllocator,
    storage: &mut SparseMap<T, K>,
) {
    if storage.is_synced(entities.stamp()) {
        storage.set_synced(entities.next_stamp());
    }
}

/// The same for the world's own queue, whose entries of the retired
/// entities were cancelled.
#[inline]
pub(crate) fn keep_queued_retiring<W: Storages>(world: &mut W) {
    let (entities, queued) = world.queued_split(TOKEN);
    if queued.synced == entities.stamp() {
        queued.synced = entities.next_stamp();
    }
}

/// The end of a batch of retirements (`despawn_batch`), during which the
/// allocator kept its stamp: every storage and the queue in step stay so,
/// and the allocator takes its next stamp, once.
pub(crate) fn retired_batch<W: Storages>(world: &mut W) {
    struct KeepInStep;
    impl<W: Storages> EachStorage<W> for KeepInStep {
        type Out<C> = ();
        #[inline]
        fn visit<C: Column<W>>(&mut self, world: &mut W) {
            let (entities, storage) = C::split(world, TOKEN);
            keep_retiring(entities, storage);
        }
    }
    world.each(&mut KeepInStep, TOKEN);
    keep_queued_retiring(world);
    world.allocator_mut(TOKEN).renew_stamp();
}

/// A storage just emptied, as the allocator is about to retire every
/// entity (`clear`): in step with the stamp it takes next.
#[inline]
pub(crate) fn keep_emptied<T, K: Track>(entities: &EntityAllocator, storage: &mut SparseMap<T, K>) {
    storage.set_synced(entities.next_stamp());
}

/// The same for the world's own queue, just emptied.
#[inline]
pub(crate) fn keep_queued_emptied<W: Storages>(world: &mut W) {
    let (entities, queued) = world.queued_split(TOKEN);
    queued.synced = entities.next_stamp();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_storage_is_trusted_only_while_in_step() {
        let mut entities = EntityAllocator::new();
        let (a, b) = (entities.alloc(), entities.alloc());
        let mut map: SparseMap<i32> = new_storage(&entities, 0);
        map.insert(a, 1);
        map.insert(b, 2);
        assert!(matches!(alive_in(&map, &entities), Alive::All));
        // Retiring `b` the world's way keeps the storage in step…
        map.remove(b);
        keep_retiring(&entities, &mut map);
        entities.free(b);
        assert!(matches!(alive_in(&map, &entities), Alive::All));
        // …and behind its back it does not.
        entities.free(a);
        assert!(matches!(alive_in(&map, &entities), Alive::Check(_)));
        assert!(matches!(
            alive_in(&SparseMap::<i32>::new(), &entities),
            Alive::Check(_)
        ));
    }
}
