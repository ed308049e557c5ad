//! Keeping a world's storages in step with its allocator (see
//! [`SparseMap`](crate::SparseMap), "Storages moved between worlds"): the
//! one module that compares a storage's stamp with its world's.
//!
//! A storage in step holds only alive entities. Before a storage gains
//! entries, and before a spawn, a `query_mut`, the sync point or `apply`, the
//! world brings the storages concerned in step ([`sync`], [`sync_all`]); the
//! per-entity methods that only read or remove check instead (see
//! `SparseMap::get_in`), so that a loop of them never calls code that may
//! write the whole storage; and the read-only views below skip entries of
//! dead entities.

use crate::plumbing::{Column, EachStorage, EachStorageRef, Storages};
use crate::seal::TOKEN;
use crate::Contains;
use alloc::vec::Vec;

/// Brings `C`'s storage in step with the world's allocator: one comparison
/// when it already is.
#[inline]
pub(crate) fn sync<W: Contains<C>, C>(world: &mut W) {
    if !world.sparse_map().is_synced(world.allocator(TOKEN).stamp()) {
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
fn forget_dead<W: Contains<C>, C>(world: &mut W) {
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
        fn done<Outs>(&mut self, world: &mut W, outs: Outs) {
            let (entities, queued) = world.queued_split(TOKEN);
            W::despawns(&mut queued.queues, TOKEN).forget_dead(|entity| entities.is_alive(entity));
            queued.synced = entities.stamp();
            drop(outs);
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
pub(crate) fn live_len<W: Contains<C>, C>(world: &W) -> usize {
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
pub(crate) fn dense_slot<W: Contains<C>, C>(world: &W, index: usize) -> Option<usize> {
    let (entities, storage) = (world.allocator(TOKEN), world.sparse_map());
    if storage.is_synced(entities.stamp()) {
        (index < storage.len()).then_some(index)
    } else {
        storage
            .live_slots(|entity| entities.is_alive(entity))
            .nth(index)
    }
}
