//! Taking everything away from one entity, or from the whole world: each a
//! visitor over every storage that detaches values and drops them only once
//! every storage is consistent, so a panicking `Drop` cannot leave a world
//! half-updated.

use alloc::vec::Vec;

use super::storages::{Column, EachStorage, Storages};
use crate::Entity;

/// `despawn`: detaches the entity's value and queued changes from every
/// storage, then frees the entity, then drops what was detached. Storages in
/// step stay in step (they are stamped with what the allocator will be once
/// the entity is freed); one that is not stays behind, to be brought in step
/// when the world next uses it.
/// Despawns `entity`: every group lets it out, every storage detaches its
/// values, the allocator retires it, and only then are the values dropped.
/// `false`, changing nothing, if `entity` is not alive.
#[inline]
pub(crate) fn despawn<W: Storages>(world: &mut W, entity: Entity) -> bool {
    if !world.allocator().is_alive(entity) {
        return false;
    }
    crate::group::leaving_all(world, entity);
    world.each(&mut Despawn(entity));
    true
}

struct Despawn(Entity);

impl<W: Storages> EachStorage<W> for Despawn {
    type Out<C> = (Option<C>, Option<C>);

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) -> (Option<C>, Option<C>) {
        let (entities, storage) = C::split(world);
        let detached = storage.purge(self.0);
        if storage.is_synced(entities.stamp()) {
            storage.set_synced(entities.next_stamp());
        }
        detached
    }

    #[inline]
    fn done<Outs>(&mut self, world: &mut W, outs: Outs) {
        world.allocator_mut().free(self.0);
        drop(outs);
    }
}

/// `remove_all`: detaches the entity's values (its queued changes stay).
pub(super) struct RemoveAll(pub(super) Entity);

impl<W: Storages> EachStorage<W> for RemoveAll {
    type Out<C> = Option<C>;

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) -> Option<C> {
        C::field_mut(world).remove(self.0)
    }
}

/// `clear`: empties every storage and queue, retires every entity, then
/// drops what was taken. Every storage ends in step.
pub(super) struct Clear;

impl<W: Storages> EachStorage<W> for Clear {
    type Out<C> = (Vec<C>, Vec<C>);

    fn visit<C: Column<W>>(&mut self, world: &mut W) -> (Vec<C>, Vec<C>) {
        let (entities, storage) = C::split(world);
        let taken = storage.take_all();
        storage.set_synced(entities.next_stamp());
        taken
    }

    fn done<Outs>(&mut self, world: &mut W, outs: Outs) {
        world.allocator_mut().clear();
        drop(outs);
    }
}
