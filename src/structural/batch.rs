//! Spawning many entities at once: the one routine behind
//! [`spawn_batch`](crate::World::spawn_batch),
//! [`try_spawn_batch`](crate::World::try_spawn_batch),
//! [`try_extend`](crate::World::try_extend) and the `Extend` impl that
//! `world!` writes. They differ only in what they keep of the entities
//! made (a [`Spawned`]): the handles, or how many.

use alloc::vec::Vec;
use core::iter::{Chain, Once};
use core::marker::PhantomData;
use core::num::NonZeroU32;

use super::react;
use crate::entity::{Fresh, OutOfIndices};
use crate::error::SpawnError;
use crate::plumbing::BundleParts;
use crate::plumbing::Storages;
use crate::seal::TOKEN;
use crate::Entity;

/// What a batch spawn keeps of the entities it makes, in order.
pub(crate) trait Spawned {
    /// Entities that reuse free indices.
    fn reused(&mut self, entities: &[Entity]);
    /// A run of entities at new indices.
    fn fresh(&mut self, fresh: Fresh);
}

/// The handles, for `spawn_batch`.
impl Spawned for Vec<Entity> {
    #[inline]
    fn reused(&mut self, entities: &[Entity]) {
        self.extend_from_slice(entities);
    }
    #[inline]
    fn fresh(&mut self, fresh: Fresh) {
        self.extend(fresh.iter());
    }
}

/// How many, for `extend`.
impl Spawned for usize {
    #[inline]
    fn reused(&mut self, entities: &[Entity]) {
        *self += entities.len();
    }
    #[inline]
    fn fresh(&mut self, fresh: Fresh) {
        *self += fresh.len as usize;
    }
}

/// The bundles a batch spawn did not make, the one that did not fit first.
pub(crate) type Rest<B, I> = Chain<Once<B>, I>;

/// How many entities that reuse free indices a batch spawn makes before it
/// attaches their values (their handles wait in a buffer on the stack).
const CHUNK: usize = 64;

/// Spawns one entity per bundle of `bundles` and records them in `spawned`,
/// or stops at the first bundle for which the world has no entity index
/// left and returns the error with the bundles not spawned.
///
/// Reserves room once (from the iterator's size hint, capped at what the
/// world can still spawn, and only if the memory is there) and brings the
/// storages in step once. Then it pushes each bundle's values, and
/// attaches them to their entities a chunk at a time ([`Pending`]): first
/// the entities that reuse free indices, then (in a growing world, from
/// the start) one run of entities at consecutive new indices, made and
/// indexed together.
/// The world's hooks run once, for the whole batch, at the end.
#[inline]
pub(crate) fn spawn<W, B, I, S>(
    world: &mut W,
    bundles: I,
    spawned: &mut S,
) -> Result<(), SpawnError<Rest<B, I>>>
where
    W: Storages,
    B: BundleParts<W>,
    I: Iterator<Item = B>,
    S: Spawned,
{
    react::batched(world, |world| spawn_held(world, bundles, spawned))
}

/// [`spawn`], the hooks held back.
fn spawn_held<W, B, I, S>(
    world: &mut W,
    mut bundles: I,
    spawned: &mut S,
) -> Result<(), SpawnError<Rest<B, I>>>
where
    W: Storages,
    B: BundleParts<W>,
    I: Iterator<Item = B>,
    S: Spawned,
{
    // A guess, from the iterator: never more than the world can still
    // spawn, and never failing (a size hint may be wrong, or huge).
    let expected = bundles
        .size_hint()
        .0
        .min(world.allocator(TOKEN).spawnable());
    // Once for the batch: nothing can replace a storage until it returns.
    crate::in_step::sync_all(world);
    world.allocator_mut(TOKEN).reserve_guess(expected);
    B::reserve(world, expected, TOKEN);
    let mut pending = Pending::<W, B, S> {
        world,
        spawned,
        reused: [FILLER; CHUNK],
        reused_len: 0,
        fresh_len: 0,
        bundle: PhantomData,
    };
    // Each bundle takes one free index. A plain loop: internal iteration
    // through `by_ref()` kept the iterator's state in memory, and measured
    // about 5% slower on despawn_churn's frame.
    for _ in 0..pending.world.allocator(TOKEN).free_count() {
        let Some(bundle) = bundles.next() else {
            return Ok(());
        };
        if let Err((error, bundle)) = pending.reuse(bundle) {
            return Err(rest(error, bundle, bundles));
        }
    }
    // No index is free: the rest get new ones, in order.
    pending.flush();
    let room = pending.world.allocator(TOKEN).fresh_room();
    // Internal iteration: the bundle goes from the iterator to the storages
    // without a copy in between (with `next()`, copying a wide bundle on
    // the stack stalled store forwarding: about half of simple_insert).
    bundles.by_ref().take(room as usize).for_each(|bundle| {
        bundle.push_values(pending.world, TOKEN);
        pending.fresh_len += 1;
    });
    if pending.fresh_len < room {
        return Ok(());
    }
    match bundles.next() {
        None => Ok(()),
        // `pending` attaches what it holds as it goes out of scope.
        Some(bundle) => Err(rest(
            pending.world.allocator(TOKEN).out_of_indices(),
            bundle,
            bundles,
        )),
    }
}

/// The error for a batch that ran out of entity indices at `bundle`.
#[cold]
fn rest<B, I: Iterator<Item = B>>(
    error: OutOfIndices,
    bundle: B,
    bundles: I,
) -> SpawnError<Rest<B, I>> {
    SpawnError::new(error).with_bundle(core::iter::once(bundle).chain(bundles))
}

/// What fills the unused part of [`Pending::reused`].
const FILLER: Entity = Entity::new(0, NonZeroU32::MIN);

/// A batch spawn in progress: the values of its latest entities are pushed
/// but not attached yet. [`flush`](Pending::flush) attaches them (every
/// storage gives them their entities and the groups take them in); so does
/// dropping it, after the last bundle or while a panic in the iterator
/// unwinds, so the entities made before the panic stay, with their
/// components, as after as many `spawn_with` calls.
struct Pending<'a, W: Storages, B: BundleParts<W>, S: Spawned> {
    world: &'a mut W,
    spawned: &'a mut S,
    /// Entities made at free indices, their values pushed: the first
    /// `reused_len`.
    reused: [Entity; CHUNK],
    reused_len: usize,
    /// Entities at new indices whose values are pushed, after those of
    /// `reused`: the allocator makes them in [`flush`](Pending::flush).
    fresh_len: u32,
    bundle: PhantomData<fn(B)>,
}

impl<W: Storages, B: BundleParts<W>, S: Spawned> Pending<'_, W, B, S> {
    /// Makes an entity at a free index for `bundle` and pushes its values.
    #[inline]
    fn reuse(&mut self, bundle: B) -> Result<(), (OutOfIndices, B)> {
        debug_assert_eq!(self.fresh_len, 0);
        let entity = match self.world.allocator_mut(TOKEN).try_alloc() {
            Ok(entity) => entity,
            Err(error) => return Err((error, bundle)),
        };
        bundle.push_values(self.world, TOKEN);
        self.reused[self.reused_len] = entity;
        self.reused_len += 1;
        if self.reused_len == CHUNK {
            self.flush();
        }
        Ok(())
    }

    /// Attaches the pushed values to their entities: those of `reused`,
    /// then those of a fresh run, which the allocator makes now.
    fn flush(&mut self) {
        if self.reused_len > 0 {
            let reused = &self.reused[..self.reused_len];
            self.reused_len = 0;
            B::attach(self.world, reused, TOKEN);
            react::added::<W, B, _>(self.world, reused.iter().copied());
            self.spawned.reused(reused);
        }
        if self.fresh_len > 0 {
            let fresh = self.world.allocator_mut(TOKEN).alloc_fresh(self.fresh_len);
            self.fresh_len = 0;
            B::attach_fresh(self.world, fresh.start, fresh.len, TOKEN);
            react::added::<W, B, _>(self.world, fresh.iter());
            self.spawned.fresh(fresh);
        }
    }
}

impl<W: Storages, B: BundleParts<W>, S: Spawned> Drop for Pending<'_, W, B, S> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// `Extend::extend` for a world (the impl `world!` writes): spawns one
/// entity per bundle without keeping the handles.
///
/// # Panics
///
/// When the world runs out of entity indices, after spawning what fits
/// (as `spawn_batch` does); `World::try_extend` hands back the rest.
#[track_caller]
pub fn extend<W, B, I>(world: &mut W, bundles: I)
where
    W: Storages,
    B: BundleParts<W>,
    I: IntoIterator<Item = B>,
{
    let () = B::EACH_COMPONENT_ONCE;
    let mut spawned = 0;
    if let Err(error) = spawn(world, bundles.into_iter(), &mut spawned) {
        panic!(
            "{}: {error} (`extend` spawned {spawned} entities and drops the other bundles; \
             `try_extend` hands them back)",
            W::WORLD
        );
    }
}
