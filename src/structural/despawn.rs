//! Taking everything away from one entity (a despawn, `remove_all`), from
//! many, or from the whole world: each a visitor over every storage that
//! detaches values and drops them only once every storage is consistent, so
//! a panicking `Drop` cannot leave a world half-updated.

use alloc::vec::Vec;

use super::{react, related};
use crate::in_step;
use crate::plumbing::{Column, ColumnAccess, EachStorage, Storages};
use crate::relation::Denied;
use crate::seal::TOKEN;
use crate::Entity;

/// `despawn`: every group lets the entity out, every storage detaches its
/// values and queued changes, the allocator retires it, and only then are
/// the values dropped. Storages in step stay in step (they are stamped with
/// what the allocator will be once the entity is freed); one that is not
/// stays behind, to be brought in step when the world next uses it.
/// `false`, changing nothing, if `entity` is not alive.
///
/// In a world with relations, the entities the relations' `despawn`
/// policies take go too (each source before its target), every link of
/// each is undone first, and a `deny` relation refuses the whole despawn,
/// changing nothing (see [`related`](super::related)).
#[inline]
pub(crate) fn despawn<W: Storages>(world: &mut W, entity: Entity) -> Result<bool, Denied> {
    if !world.allocator(TOKEN).is_alive(entity) {
        return Ok(false);
    }
    if W::RELATED {
        let taken = related::cascade(world, entity)?;
        if let [one] = taken[..] {
            related::unlink_all(world, one);
        } else {
            // Many: one batch (the stamps renewed once, the hooks run once).
            react::batched(world, |world| {
                let mut batch = Batch {
                    world,
                    despawned: 0,
                };
                taken.into_iter().for_each(|one| batch.take_alive(one));
            });
            return Ok(true);
        }
    }
    react::leaving_all(world, entity);
    world.each(&mut Despawn::<true>(entity), TOKEN);
    react::settle(world);
    Ok(true)
}

/// `despawn_batch`: [`despawn`] for each alive entity of `entities`, in
/// order, with the stamps renewed once for them all (see [`Batch`]).
/// Returns how many were despawned; one not alive at its turn (stale, or
/// despawned earlier in the batch) is skipped.
#[inline]
pub(crate) fn despawn_batch<W: Storages>(
    world: &mut W,
    entities: impl IntoIterator<Item = Entity>,
) -> usize {
    react::batched(world, |world| {
        let mut batch = Batch {
            world,
            despawned: 0,
        };
        entities.into_iter().for_each(|entity| {
            if !batch.world.allocator(TOKEN).is_alive(entity) {
                return;
            }
            if W::RELATED {
                // Each with what its relations take; one a `deny` relation
                // refuses stays.
                let Ok(taken) = related::cascade(batch.world, entity) else {
                    return;
                };
                taken.into_iter().for_each(|one| batch.take_alive(one));
                return;
            }
            batch.take(entity);
        });
        batch.despawned
    })
}

/// Despawns one entity (see [`despawn`]). `ALONE`: stamps the storages and
/// the allocator for this one retirement; else a [`Batch`] does it, once,
/// for all its entities.
struct Despawn<const ALONE: bool>(Entity);

impl<W: Storages, const ALONE: bool> EachStorage<W> for Despawn<ALONE> {
    type Out<C> = (Option<C>, Option<C>);

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) -> (Option<C>, Option<C>) {
        // A change queued for it in the world's own queue goes with it.
        let queued = C::queue(&mut world.queued(TOKEN).queues, TOKEN).cancel(self.0);
        let (entities, storage) = C::split(world, TOKEN);
        let value = storage.remove(self.0);
        if ALONE {
            in_step::keep_retiring(entities, storage);
        }
        (value, queued)
    }

    #[inline]
    fn done(&mut self, world: &mut W) {
        if ALONE {
            in_step::keep_queued_retiring(world);
            // `despawn` checked it is alive.
            world.allocator_mut(TOKEN).free_alive(self.0);
        } else {
            // `despawn_batch` checked it is alive.
            world.allocator_mut(TOKEN).free_keeping_stamp(self.0);
        }
    }

    #[inline(always)]
    fn finish<C: Column<W>>(&mut self, world: &mut W, (value, queued): (Option<C>, Option<C>)) {
        if let Some(value) = value {
            react::removed::<W, C>(world, self.0, value);
        }
        drop(queued);
    }
}

/// A batch of despawns in progress. Each entity is despawned whole (the
/// storages hold only alive entities throughout), but the allocator keeps
/// its stamp until the batch ends: then (or while a panic unwinds, from
/// the iterator or a component's `Drop`) the storages in step are stamped
/// with the next stamp and the allocator takes it, once, so a storage that
/// was away from the world during the batch is still known to be behind.
struct Batch<'a, W: Storages> {
    world: &'a mut W,
    despawned: usize,
}

impl<W: Storages> Batch<'_, W> {
    /// Despawns `entity`, which is alive (its links undone first, in a
    /// world with relations).
    #[inline]
    fn take(&mut self, entity: Entity) {
        // Counted first: if a `Drop` panics, the guard still sees it.
        self.despawned += 1;
        if W::RELATED {
            related::unlink_all(self.world, entity);
        }
        react::leaving_all(self.world, entity);
        self.world.each(&mut Despawn::<false>(entity), TOKEN);
    }

    /// [`take`](Self::take) for an entity a relation's despawn took, if it
    /// is still alive (an earlier despawn of the batch may have taken it).
    fn take_alive(&mut self, entity: Entity) {
        if self.world.allocator(TOKEN).is_alive(entity) {
            self.take(entity);
        }
    }
}

impl<W: Storages> Drop for Batch<'_, W> {
    fn drop(&mut self) {
        if self.despawned > 0 {
            in_step::retired_batch(self.world);
        }
    }
}

/// `remove_all`: every group lets the entity out, every storage detaches
/// its value (its queued changes stay), then the values are dropped.
/// `false`, changing nothing, if `entity` is not alive.
pub(crate) fn remove_all<W: Storages>(world: &mut W, entity: Entity) -> bool {
    if !world.allocator(TOKEN).is_alive(entity) {
        return false;
    }
    react::leaving_all(world, entity);
    world.each(&mut RemoveAll(entity), TOKEN);
    react::settle(world);
    true
}

/// Detaches one entity's values (see [`remove_all`]).
struct RemoveAll(Entity);

impl<W: Storages> EachStorage<W> for RemoveAll {
    type Out<C> = Option<C>;

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) -> Option<C> {
        // The entity is alive: the plain removal finds what the world sees.
        C::field_mut(world, TOKEN).remove(self.0)
    }

    #[inline(always)]
    fn finish<C: Column<W>>(&mut self, world: &mut W, value: Option<C>) {
        if let Some(value) = value {
            react::removed::<W, C>(world, self.0, value);
        }
    }
}

/// `clear`: empties every storage and queue, retires every entity, then
/// drops what was taken. Every storage ends in step.
pub(crate) fn clear<W: Storages>(world: &mut W) {
    world.each(&mut Clear, TOKEN);
    react::settle(world);
}

/// Empties one storage at a time (see [`clear`]).
struct Clear;

impl<W: Storages> EachStorage<W> for Clear {
    /// The values taken, if `C` has `on_remove` hooks their entities
    /// (`None`: a dead one's, in a storage not in step), and the values
    /// queued.
    type Out<C> = (Vec<C>, Vec<Option<Entity>>, Vec<C>);

    fn visit<C: Column<W>>(&mut self, world: &mut W) -> Self::Out<C> {
        let queued = C::queue(&mut world.queued(TOKEN).queues, TOKEN).take();
        let (entities, storage) = C::split(world, TOKEN);
        let owners = if <W as ColumnAccess<C>>::REMOVE_HOOKED {
            let stored = storage.entities().iter();
            stored.map(|&e| entities.is_alive(e).then_some(e)).collect()
        } else {
            Vec::new()
        };
        let taken = storage.take_all();
        in_step::keep_emptied(entities, storage);
        (taken, owners, queued)
    }

    fn done(&mut self, world: &mut W) {
        W::despawns(&mut world.queued(TOKEN).queues, TOKEN).clear();
        in_step::keep_queued_emptied(world);
        world.allocator_mut(TOKEN).clear();
        if W::RELATED {
            related::clear(world);
        }
    }

    fn finish<C: Column<W>>(&mut self, world: &mut W, (taken, owners, queued): Self::Out<C>) {
        drop(queued);
        if owners.is_empty() {
            drop(taken);
        } else {
            // Values and entities are parallel (the dense arrays).
            for (owner, value) in owners.into_iter().zip(taken) {
                match owner {
                    Some(entity) => react::removed::<W, C>(world, entity, value),
                    None => drop(value),
                }
            }
        }
    }
}
