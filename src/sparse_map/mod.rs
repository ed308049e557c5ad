//! [`SparseMap<T>`]: the storage of one component type.
//!
//! A sparse set: a *paged* sparse index from entity index to dense slot, and
//! two packed, parallel dense arrays (the entity in each slot, the value in
//! each slot). Lookups are two array reads and a generation check; iteration
//! is a walk over packed arrays; removal is swap-remove.
//!
//! One role per file: `pages` (the paged index), `set` (the sparse set and
//! its invariant), `index` (the paged index alone, entity → number, which a
//! queue keeps beside its list), `mark` (what other layers record in a
//! storage), `view` ([`ViewMut`]) and `iter` (the iterators).

use alloc::vec::Vec;
use core::fmt;
use core::mem;

use crate::entity::{Alive, Fresh, SyncStamp};
use crate::Entity;
use track::{ChangeLog, Filter, Track, Tracked, Untracked};

mod index;
mod iter;
pub(crate) mod line_up;
pub(crate) mod mark;
mod pages;
mod set;
#[cfg(test)]
mod tests;
pub(crate) mod track;
pub(crate) mod view;

pub(crate) use index::EntityIndex;
pub use iter::{Iter, IterMut};
use mark::{Mark, MarkSlot};
use pages::EMPTY;
use set::SparseSet;
pub(crate) use view::Order;
pub(crate) use view::TrackedMarks;
pub use view::{TrackedViewMut, ViewMut};

/// The storage of one component type: which entities have a `T`, and their
/// values, packed.
///
/// Each field of a [`world!`](macro@crate::world) struct is one `SparseMap`. Use it
/// directly to iterate one component fast (`values_mut()` is a plain slice),
/// or to borrow two components' storages at once, since they are distinct
/// fields. Adding goes through the world, which checks that the entity is
/// alive; removing and reading can be done here as well.
///
/// # Layout and invariant
///
/// * `sparse`: entity index → dense slot and the generation stored there,
///   in pages of 2048 entries (16 KiB) made on first touch and kept in one
///   array: with no page missing between the first and the last and the
///   pages in order (pages made in ascending order stay so; others are put
///   in order once an eighth of the pages are new), a lookup reads its
///   entry there with no page table on its way;
/// * `dense`: the entity in each slot;
/// * `data`: the value in each slot, parallel to `dense`.
///
/// A *slot* is a position in the dense arrays: slot `i` holds the entity
/// `dense[i]` and its value `data[i]`.
///
/// The storage's own invariant (checked by `assert_invariants`, feature
/// `testing`, and when a world is loaded):
///
/// 1. For every stored entity `e`: `dense[sparse[e.index]] == e` and its
///    value is `data[sparse[e.index]]`; every other sparse entry is empty.
///    So each entity index is stored at most once, under one generation.
///    `len()` is the dense length. A lookup checks the whole handle,
///    generation included, so a stale handle finds nothing.
/// 2. The storage keeps one opaque *mark* that the world's owning groups
///    write: which packing its first slots belong to, and how many they
///    are. The storage never interprets it. Its own `remove` clears it when
///    the removed slot is one of those first slots, and a clone or a loaded
///    storage has none; a storage swapped in from elsewhere carries another
///    packing's mark, which the group's other storages do not share. So a
///    world never trusts a packing it did not make.
///
/// # What is not promised
///
/// Iteration order is unspecified. Removal is swap-remove: it moves the last
/// value into the hole, so a dense index (`entities()[i]`) is only valid until
/// the next add or remove.
///
/// # Storages moved between worlds
///
/// The fields are public, so a storage can be taken out of its world
/// (`std::mem::take`), cloned from another world, swapped with another
/// world's, loaded on its own, or put back after the world despawned some of
/// its entities. None of that can make the world misbehave:
///
/// * Each storage carries a stamp: the identity of the entity allocator it
///   was last brought in step with, and how many despawns that allocator had
///   done then. A world keeps the stamps of the storages it holds current.
/// * Before a world uses a storage whose stamp is not its own (one from
///   elsewhere, or one that was away while entities were despawned), it
///   brings it in step: every value whose entity is not alive in this world
///   is dropped (exactly once) and the stamp renewed.
///   Entries whose entity *is* alive here are kept: moving a storage
///   between two worlds with the same entities (a world and its clone)
///   keeps everything. Spawning checks every storage first, so a stored
///   handle that this world has not handed out yet never becomes a new
///   entity's component.
/// * The world's own queued changes (`add_deferred`, …) are the world's,
///   not a storage's: they stay with the world, carry a stamp of their own,
///   and are brought in step the same way (before the world queues into
///   them, spawns, or applies them), when the allocator was swapped.
/// * Until then, methods that only read the world (`get`, `has`, `query`,
///   `size`, `entity_at`, …) see the storage as it will be: its entries
///   whose entity is alive. Owning groups are not trusted until their
///   storages are in step.
///
/// This costs one comparison per world call that uses the storage (one per
/// storage for a spawn). The storage's own methods (`iter`, `values`,
/// `entities`, …) always show exactly what it holds.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// #[derive(Debug, PartialEq)]
/// struct Pos(i32);
/// world! { struct Game<Pos>; }
///
/// let mut world = Game::new();
/// let a = world.spawn_with((Pos(1),));
/// let b = world.spawn_with((Pos(2),));
///
/// let taken = std::mem::take(&mut world.pos); // take the storage out…
/// world.despawn(a);                           // …despawn while it is away…
/// world.pos = taken;                          // …and put it back
///
/// assert_eq!(world.pos.len(), 2, "the storage still holds `a`");
/// assert_eq!(world.get::<Pos>(a), None, "but the world does not see it");
/// assert_eq!(world.query::<&Pos>().count(), 1);
/// let fresh = world.spawn(); // reuses `a`'s index: the world cleans up first
/// assert_eq!(world.pos.len(), 1);
/// assert!(!world.has::<Pos>(fresh));
/// assert_eq!(world.get::<Pos>(b), Some(&Pos(2)));
/// ```
///
/// ```
/// use typed_ecs::prelude::*;
///
/// world! { struct Game<Pos>; }
/// #[derive(Debug, PartialEq)]
/// struct Pos(f32);
///
/// let mut world = Game::new();
/// let a = world.spawn_with((Pos(1.0),));
/// let b = world.spawn_with((Pos(2.0),));
///
/// for pos in world.pos.values_mut() {
///     pos.0 *= 10.0;
/// }
/// assert_eq!(world.pos.get(b), Some(&Pos(20.0)));
/// assert_eq!(world.pos.len(), 2);
/// assert_eq!(world.pos.entities(), &[a, b]);
/// ```
#[derive(Clone)]
pub struct SparseMap<T, K: Track = Untracked> {
    set: SparseSet<T>,
    /// What an owning group of its world records about this storage's first
    /// slots (see [`mark`]); the storage only keeps it.
    mark: MarkSlot,
    /// The allocator this storage was last brought in step with, and that
    /// allocator's free epoch then. While it equals the stamp of its world's
    /// allocator, every entity stored here is alive.
    synced: SyncStamp,
    /// What the storage records of its changes: nothing ([`Untracked`]),
    /// or a change log ([`Tracked`](crate::Tracked)).
    track: K,
}

impl<T, K: Track> Default for SparseMap<T, K> {
    fn default() -> Self {
        Self::empty()
    }
}

impl<T> SparseMap<T> {
    /// An empty storage. Allocates nothing.
    ///
    /// ```
    /// # use typed_ecs::SparseMap;
    /// let map = SparseMap::<f32>::new();
    /// assert!(map.is_empty());
    /// ```
    pub const fn new() -> Self {
        Self::empty()
    }

    /// An empty storage with room for `capacity` values before its dense
    /// arrays reallocate.
    ///
    /// ```
    /// # use typed_ecs::SparseMap;
    /// let map = SparseMap::<f32>::with_capacity(100);
    /// assert!(map.is_empty());
    /// ```
    pub fn with_capacity(capacity: usize) -> Self {
        Self::empty_with_capacity(capacity)
    }
}

impl<T, K: Track> SparseMap<T, K> {
    /// An empty storage, tracked or not. Allocates nothing.
    ///
    /// ```
    /// # use typed_ecs::{SparseMap, Tracked};
    /// let map = SparseMap::<f32, Tracked>::empty();
    /// assert!(map.is_empty());
    /// ```
    pub const fn empty() -> Self {
        SparseMap {
            set: SparseSet::new(),
            mark: MarkSlot::new(),
            synced: SyncStamp::NONE,
            track: K::NEW,
        }
    }

    /// An empty storage, tracked or not, with room for `capacity` values
    /// before its dense arrays reallocate.
    ///
    /// ```
    /// # use typed_ecs::{SparseMap, Tracked};
    /// let map = SparseMap::<f32, Tracked>::empty_with_capacity(100);
    /// assert!(map.is_empty());
    /// ```
    pub fn empty_with_capacity(capacity: usize) -> Self {
        SparseMap {
            set: SparseSet::with_capacity(capacity),
            mark: MarkSlot::new(),
            synced: SyncStamp::NONE,
            track: K::NEW,
        }
    }

    /// Number of values stored (the dense length). Changes queued in the
    /// world do not count until they are applied.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(f32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(0.0),));
    /// assert_eq!(world.pos.len(), 1);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.set.dense.len()
    }

    /// `true` when nothing is stored.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(f32);
    /// assert!(Game::new().pos.is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.set.dense.is_empty()
    }

    /// Reserves room for at least `additional` more values.
    ///
    /// ```
    /// # use typed_ecs::SparseMap;
    /// let mut map = SparseMap::<u8>::new();
    /// map.reserve(64);
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        self.set.dense.reserve(additional);
        self.set.data.reserve(additional);
    }

    /// The value in dense slot `slot`, mutably (and, on a tracked storage,
    /// marked: only it is handed out).
    ///
    /// # Panics
    ///
    /// If there is no slot `slot` (callers check first).
    #[inline]
    pub(crate) fn value_mut_at(&mut self, slot: usize) -> &mut T {
        let entity = self.set.dense[slot];
        self.track.changed(slot, entity);
        &mut self.set.data[slot]
    }

    /// Reserves room for `additional` more values if the memory is there,
    /// and for none otherwise: for a batch's guess of its size, which may
    /// be wrong (the batch grows the storage as it goes).
    pub(crate) fn reserve_guess(&mut self, additional: usize) {
        let _ = self.set.dense.try_reserve(additional);
        let _ = self.set.data.try_reserve(additional);
    }

    /// The dense slot of `entity`, trying `slot` first. Storages filled in
    /// the same order keep an entity at the same slot, so a query probes
    /// the driver's position before the sparse lookup; the full handle is
    /// compared, so a wrong guess only costs the fallback.
    #[inline]
    pub(crate) fn index_of_at(&self, entity: Entity, slot: usize) -> Option<usize> {
        match self.set.dense.get(slot) {
            Some(&stored) if stored == entity => Some(slot),
            _ => self.set.index_of(entity),
        }
    }

    /// `true` if `entity` has a value here. A stale handle has none.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(f32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(0.0),));
    /// assert!(world.pos.contains(e));
    /// world.despawn(e);
    /// assert!(!world.pos.contains(e));
    /// ```
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.set.contains(entity)
    }

    /// The value of `entity`, if it has one.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(f32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(3.0),));
    /// assert_eq!(world.pos.get(e), Some(&Pos(3.0)));
    /// ```
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&T> {
        self.set.get(entity)
    }

    /// The value of `entity`, mutably, if it has one.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(f32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(3.0),));
    /// world.pos.get_mut(e).unwrap().0 = 4.0;
    /// assert_eq!(world.pos.get(e), Some(&Pos(4.0)));
    /// ```
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Option<&mut T> {
        let slot = self.set.index_of(entity)?;
        self.track.changed(slot, entity);
        Some(&mut self.set.data[slot])
    }

    /// The values of several entities at once, mutably: `None` if one of
    /// them has no value, or if an entity is named twice (two `&mut` to one
    /// value would alias). For one entity's several components, see
    /// [`World::get_many`](crate::World::get_many).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Hp>; }
    /// # #[derive(Debug, PartialEq)] struct Hp(i32);
    /// let mut world = Game::new();
    /// let attacker = world.spawn_with((Hp(10),));
    /// let target = world.spawn_with((Hp(10),));
    /// if let Some([a, t]) = world.hp.get_many_mut([attacker, target]) {
    ///     t.0 -= 3;
    ///     a.0 += 1;
    /// }
    /// assert_eq!(world.hp.get(target), Some(&Hp(7)));
    /// assert_eq!(world.hp.get_many_mut([attacker, attacker]), None);
    /// ```
    pub fn get_many_mut<const N: usize>(&mut self, entities: [Entity; N]) -> Option<[&mut T; N]> {
        // (dense slot, position in `entities`), by slot.
        let mut order = [(0, 0); N];
        for (position, (pair, &entity)) in order.iter_mut().zip(&entities).enumerate() {
            *pair = (self.set.index_of(entity)?, position);
        }
        order.sort_unstable();
        // Distinct entities have distinct slots, and the other way round.
        if order.windows(2).any(|pair| pair[0].0 == pair[1].0) {
            return None;
        }
        for &(slot, position) in &order {
            self.track.changed(slot, entities[position]);
        }
        // Split the values at each slot, in slot order.
        let mut found: [Option<&mut T>; N] = core::array::from_fn(|_| None);
        let mut rest = &mut self.set.data[..];
        let mut start = 0;
        for (slot, position) in order {
            let (value, tail) = mem::take(&mut rest)[slot - start..].split_first_mut()?;
            found[position] = Some(value);
            rest = tail;
            start = slot + 1;
        }
        Some(found.map(|value| value.expect("every position was filled")))
    }

    /// The dense slot of `entity`'s value: `entities()[i] == entity` and
    /// `values()[i]` is its value. Valid only until the next add or remove.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(f32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(3.0),));
    /// let i = world.pos.index_of(e).unwrap();
    /// assert_eq!(world.pos.entities()[i], e);
    /// ```
    #[inline]
    pub fn index_of(&self, entity: Entity) -> Option<usize> {
        self.set.index_of(entity)
    }

    /// Removes `entity`'s value and returns it. The storage is consistent
    /// before the value is handed back. Swap-remove: the last value moves
    /// into the freed slot.
    ///
    /// In a storage that belongs to an owning group, prefer
    /// [`World::remove`](crate::World::remove): it keeps the group packed.
    /// Removing a grouped entity here is still correct, but the group stops
    /// being used until the world rebuilds it at its next change (an O(n)
    /// pass).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(f32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(3.0),));
    /// assert_eq!(world.pos.remove(e), Some(Pos(3.0)));
    /// assert_eq!(world.pos.remove(e), None);
    /// assert!(world.is_alive(e)); // the entity lives on without a Pos
    /// ```
    #[inline(always)]
    pub fn remove(&mut self, entity: Entity) -> Option<T> {
        let (slot, value) = self.set.remove_with_slot(entity)?;
        self.track.removed(slot, entity);
        self.mark.leave_prefix_unannounced(slot);
        Some(value)
    }

    // ----- for a world (see "Storages moved between worlds") -----
    //
    // The world's per-entity methods take these: the entity's slot, as the
    // world sees it. If this storage is not in step with the world's
    // allocator, an entry counts only if its entity is alive. The check
    // only reads, and it picks one of two lookups before either runs: a loop
    // of such calls keeps the storage's fields in registers, and LLVM can
    // take the check out of the loop.

    /// The dense slot of `entity` as the world sees it (`alive`: which
    /// entries count, from `in_step`).
    #[inline(always)]
    fn index_of_in(&self, entity: Entity, alive: Alive<'_>) -> Option<usize> {
        // The check first, as in `remove_in`: a loop of reads can then be
        // unswitched on it.
        match alive {
            Alive::All => self.set.index_of(entity),
            Alive::Check(entities) => self
                .set
                .index_of(entity)
                .filter(|_| entities.is_alive(entity)),
        }
    }

    /// `entity`'s value as the world sees it (`alive`: which entries
    /// count).
    #[inline(always)]
    pub(crate) fn get_in(&self, entity: Entity, alive: Alive<'_>) -> Option<&T> {
        let slot = self.index_of_in(entity, alive)?;
        Some(&self.set.data[slot])
    }

    /// `entity`'s value, mutably, as the world sees it (`alive`: which
    /// entries count).
    #[inline]
    pub(crate) fn get_mut_in(&mut self, entity: Entity, alive: Alive<'_>) -> Option<&mut T> {
        let slot = self.index_of_in(entity, alive)?;
        self.track.changed(slot, entity);
        Some(&mut self.set.data[slot])
    }

    /// Removes `entity`'s value as the world sees it (`alive`: which
    /// entries count): an entry it does not see stays (the world drops it
    /// when it brings the storage in step).
    ///
    /// The check comes first and picks one of two removals, rather than
    /// sitting inside one: a loop of removals then runs the plain one (LLVM
    /// unswitches the loop on it), with no more instructions than before
    /// storages had stamps.
    ///
    /// Always inlined, as are `insert`, `insert_new` and `remove`: each is
    /// called from several places of the structural path, and LLVM left
    /// them out of line there (a third of an add or a removal).
    #[inline(always)]
    pub(crate) fn remove_in(&mut self, entity: Entity, alive: Alive<'_>) -> Option<T> {
        let (slot, value) = match alive {
            Alive::All => self.set.remove_if(entity, || true)?,
            Alive::Check(entities) => self.set.remove_if(entity, || entities.is_alive(entity))?,
        };
        self.track.removed(slot, entity);
        self.mark.leave_prefix_unannounced(slot);
        Some(value)
    }

    /// The entity in each dense slot, parallel to [`values`](Self::values).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(f32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(3.0),));
    /// assert_eq!(world.pos.entities(), &[e]);
    /// ```
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.set.dense
    }

    /// The storage's dense order and proofs of lining up with others.
    #[inline]
    pub(crate) fn line_up(&self) -> &line_up::LineUp {
        &self.set.line_up
    }

    /// The values, packed, parallel to [`entities`](Self::entities).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(f32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(3.0),));
    /// assert_eq!(world.pos.values(), &[Pos(3.0)]);
    /// ```
    #[inline]
    pub fn values(&self) -> &[T] {
        &self.set.data
    }

    /// The values, packed and mutable: the fastest way to touch every value.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(f32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(3.0),));
    /// world.pos.values_mut().iter_mut().for_each(|p| p.0 += 1.0);
    /// assert_eq!(world.pos.values(), &[Pos(4.0)]);
    /// ```
    #[inline]
    pub fn values_mut(&mut self) -> &mut [T] {
        self.track.changed_all();
        &mut self.set.data
    }

    /// Iterates over `(entity, &value)` in dense order.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(f32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(3.0),));
    /// for (entity, pos) in world.pos.iter() {
    ///     assert_eq!((entity, pos.0), (e, 3.0));
    /// }
    /// ```
    #[inline]
    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            entities: self.set.dense.iter(),
            values: self.set.data.iter(),
        }
    }

    /// Iterates over `(entity, &mut value)` in dense order.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(f32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(3.0),));
    /// for (_entity, pos) in world.pos.iter_mut() {
    ///     pos.0 = -1.0;
    /// }
    /// assert_eq!(world.pos.get(e), Some(&Pos(-1.0)));
    /// ```
    #[inline]
    pub fn iter_mut(&mut self) -> IterMut<'_, T> {
        self.track.changed_all();
        IterMut {
            entities: self.set.dense.iter(),
            values: self.set.data.iter_mut(),
        }
    }

    /// The entities, the values (mutably) and the change record, side by
    /// side: for a walk that marks values itself (see [`Mut`](crate::Mut)).
    #[inline]
    pub(crate) fn parts_mut(&mut self) -> (&[Entity], &mut [T], &mut K) {
        (&self.set.dense, &mut self.set.data, &mut self.track)
    }

    /// Checks the storage's invariant (see the type docs) and panics with a
    /// description of the first violation. Test support (feature `testing`).
    ///
    /// ```
    /// # use typed_ecs::SparseMap;
    /// SparseMap::<u8>::new().assert_invariants();
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    #[cfg(any(test, feature = "testing"))]
    pub fn assert_invariants(&self) {
        if let Err(problem) = self.check() {
            panic!("{problem}");
        }
    }

    /// Checks the storage's own invariant (see the type docs).
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(crate) fn check(&self) -> Result<(), alloc::string::String> {
        self.set.check_invariants("values")?;
        self.track.check(&self.set.dense)
    }

    /// Number of sparse pages allocated. Test support (feature `testing`).
    ///
    /// ```
    /// # use typed_ecs::SparseMap;
    /// assert_eq!(SparseMap::<u8>::new().sparse_pages(), 0);
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    #[cfg(any(test, feature = "testing"))]
    pub fn sparse_pages(&self) -> usize {
        self.set.sparse.allocated_pages()
    }

    // ----- saving and loading -----

    /// The stored entities and values, for saving.
    #[cfg(feature = "serde")]
    pub(crate) fn pairs(&self) -> (&[Entity], &[T]) {
        (&self.set.dense, &self.set.data)
    }

    /// Rebuilds a storage from saved values, or says what is wrong with
    /// them: no index twice (one entity twice, or two generations of one
    /// index), no command buffer's reserved handle.
    #[cfg(feature = "serde")]
    pub(crate) fn from_parts(values: Vec<(Entity, T)>) -> Result<Self, alloc::string::String> {
        let mut map: Self = SparseMap::empty_with_capacity(values.len());
        for (entity, value) in values {
            if entity.is_reserved() {
                return Err(alloc::format!(
                    "the values hold the reserved handle {entity:?}"
                ));
            }
            if map.set.sparse.get(entity.index()) != EMPTY {
                return Err(alloc::format!(
                    "the values hold entity index {} twice",
                    entity.index()
                ));
            }
            map.set.insert(entity, value);
        }
        for &entity in &map.set.dense {
            map.track.pushed(entity);
        }
        map.track.loaded();
        Ok(map)
    }

    // ----- used by the world, which checks liveness first -----

    /// Adds or replaces `entity`'s value. The world checks `entity` is
    /// alive, and brings the storage in step first.
    #[inline(always)]
    pub(crate) fn insert(&mut self, entity: Entity, value: T) -> Option<T> {
        match self.set.insert_new(entity, value) {
            Ok(()) => {
                self.track.pushed(entity);
                None
            }
            Err((slot, value)) => {
                self.track.changed(slot, entity);
                Some(mem::replace(&mut self.set.data[slot], value))
            }
        }
    }

    /// Adds the value of an entity that was just spawned, so has no value
    /// here (nor does any other generation of its index).
    #[inline]
    pub(crate) fn push_fresh(&mut self, entity: Entity, value: T) {
        debug_assert_eq!(self.set.sparse.get(entity.index()), EMPTY);
        let slot = self.set.dense.len() as u32;
        SparseSet::push(&mut self.set.dense, &mut self.set.data, entity, value);
        self.set.sparse.set(entity, slot);
        self.track.pushed(entity);
    }

    /// The first half of a batch spawn's insert: the value of the next
    /// entity to [`attach`](Self::attach) (or
    /// [`attach_fresh`](Self::attach_fresh)), pushed alone. Until the
    /// attach, `values()` is longer than `entities()`.
    #[inline]
    pub(crate) fn push_value(&mut self, value: T) {
        self.set.data.push(value);
    }

    /// The second half of a batch spawn's insert: gives the values pushed by
    /// [`push_value`](Self::push_value) their entities, just spawned, in
    /// order, and indexes them.
    pub(crate) fn attach(&mut self, entities: &[Entity]) {
        let base = self.attach_base(entities.len());
        self.set.dense.extend_from_slice(entities);
        self.set.sparse.set_run(entities, base);
        for &entity in entities {
            self.track.pushed(entity);
        }
    }

    /// [`attach`](Self::attach) for a run of entities at new indices: the
    /// sparse entries are filled a page at a time.
    pub(crate) fn attach_fresh(&mut self, fresh: Fresh) {
        let base = self.attach_base(fresh.len as usize);
        self.set.dense.extend(fresh.iter());
        self.set
            .sparse
            .set_range(fresh.start, fresh.len, Fresh::GENERATION.get(), base);
        for entity in fresh.iter() {
            self.track.pushed(entity);
        }
    }

    /// The first slot of `count` values pushed to be attached.
    #[inline]
    fn attach_base(&self, count: usize) -> u32 {
        let base = self.set.dense.len();
        assert!(
            base + count < EMPTY as usize,
            "a storage holds at most u32::MAX - 1 values"
        );
        debug_assert_eq!(self.set.data.len(), base + count);
        base as u32
    }

    /// Adds `entity`'s value if it has none, or hands `value` back. The
    /// world checks `entity` is alive, and brings the storage in step first.
    #[inline(always)]
    pub(crate) fn insert_new(&mut self, entity: Entity, value: T) -> Result<(), T> {
        self.set
            .insert_new(entity, value)
            .map_err(|(_, value)| value)?;
        self.track.pushed(entity);
        Ok(())
    }

    /// Empties the storage, returning the values for the caller to drop
    /// once every storage is consistent.
    pub(crate) fn take_all(&mut self) -> Vec<T> {
        // Every storage of the world is emptied together, so a marked prefix
        // stays true: it is empty in each of them.
        self.mark.0.prefix = 0;
        self.track.removed_all(&self.set.dense);
        self.set.take()
    }

    /// What the storage records of its changes.
    #[inline]
    pub(crate) fn track_mut(&mut self) -> &mut K {
        &mut self.track
    }

    // ----- keeping in step with the world (see the type docs) -----

    /// `true` if this storage is in step with the allocator whose stamp is
    /// `stamp`: then every entity it stores is alive there.
    #[inline]
    pub(crate) fn is_synced(&self, stamp: SyncStamp) -> bool {
        self.synced == stamp
    }

    /// Records that this storage is in step with the allocator whose stamp
    /// is `stamp`. Only for a world that has just made it so.
    #[inline]
    pub(crate) fn set_synced(&mut self, stamp: SyncStamp) {
        self.synced = stamp;
    }

    /// The entities stored here that `is_alive` rejects: what
    /// [`resync`](Self::resync) removes.
    pub(crate) fn dead_entries(&self, is_alive: impl Fn(Entity) -> bool) -> Vec<Entity> {
        self.set
            .dense
            .iter()
            .copied()
            .filter(|&entity| !is_alive(entity))
            .collect()
    }

    /// Brings the storage in step with an allocator: removes the value of
    /// every entity in `dead` (found by [`dead_entries`](Self::dead_entries)),
    /// then records `stamp`. Returns the removed values, for the caller to
    /// drop once everything is consistent. A grouped entity removed this way
    /// makes the group wait for a rebuild, as any removal straight from a
    /// storage does.
    #[cold]
    pub(crate) fn resync(&mut self, dead: &[Entity], stamp: SyncStamp) -> Vec<T> {
        let removed = dead
            .iter()
            .filter_map(|&entity| self.remove(entity))
            .collect();
        self.synced = stamp;
        removed
    }

    /// The dense slots whose entity `is_alive` accepts, in order: the
    /// storage as a world sees it before it has brought it in step.
    pub(crate) fn live_slots<'a>(
        &'a self,
        is_alive: impl Fn(Entity) -> bool + 'a,
    ) -> impl Iterator<Item = usize> + 'a {
        self.set
            .dense
            .iter()
            .enumerate()
            .filter(move |&(_, &entity)| is_alive(entity))
            .map(|(slot, _)| slot)
    }

    // ----- the mark of another layer (see `mark`) -----

    /// The mark on this storage's first slots.
    #[inline]
    pub(crate) fn mark(&self) -> Mark {
        self.mark.0
    }

    /// Sets the mark on this storage's first slots.
    #[inline]
    pub(crate) fn set_mark(&mut self, mark: Mark) {
        self.mark.0 = mark;
    }

    /// Sets how many first slots the mark covers.
    #[inline]
    pub(crate) fn set_mark_prefix(&mut self, prefix: usize) {
        self.mark.0.prefix = prefix as u32;
    }

    /// Swaps the values (and entities) in dense slots `a` and `b`.
    #[inline]
    pub(crate) fn swap_slots(&mut self, a: usize, b: usize) {
        self.set.swap(a, b);
        self.track.swapped(a, b);
    }
}

/// Prints the stored values as a map from entity to value.
impl<T: fmt::Debug, K: Track> fmt::Debug for SparseMap<T, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<T, K: Track> SparseMap<T, K> {
    /// A view that can change values but not membership. See [`ViewMut`].
    /// On a tracked storage it counts as a change of every value (like
    /// [`values_mut`](Self::values_mut)): a query's `&mut C` marks only the
    /// values it hands out.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; }
    /// let mut world = Game::new();
    /// world.spawn_with((Hp(1),));
    /// assert_eq!(world.hp.view_mut().len(), 1);
    /// ```
    #[inline]
    pub fn view_mut(&mut self) -> ViewMut<'_, T> {
        self.track.changed_all();
        Self::view_of(&mut self.set, self.mark.0)
    }

    /// The view of `set`, which neither marks nor borrows the change record.
    #[inline]
    fn view_of(set: &mut SparseSet<T>, mark: Mark) -> ViewMut<'_, T> {
        ViewMut::new(&set.sparse, &set.dense, &mut set.data, mark, &set.line_up)
    }
}

impl<'w, T, K: Track> From<&'w mut SparseMap<T, K>> for ViewMut<'w, T> {
    #[inline]
    fn from(map: &'w mut SparseMap<T, K>) -> Self {
        map.view_mut()
    }
}

impl<'a, T, K: Track> IntoIterator for &'a SparseMap<T, K> {
    type Item = (Entity, &'a T);
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<'a, T, K: Track> IntoIterator for &'a mut SparseMap<T, K> {
    type Item = (Entity, &'a mut T);
    type IntoIter = IterMut<'a, T>;

    fn into_iter(self) -> IterMut<'a, T> {
        self.iter_mut()
    }
}

// ----- tracked storages: the change log, for queries and observers -----

impl<T> SparseMap<T, Tracked> {
    /// The change log.
    #[inline]
    pub(crate) fn log(&self) -> &ChangeLog {
        &self.track.log
    }

    /// The change log, mutably.
    #[inline]
    pub(crate) fn log_mut(&mut self) -> &mut ChangeLog {
        &mut self.track.log
    }

    /// The entities that may pass `filter` (each once, possibly with
    /// tombstones among them): the log's candidates, or every stored entity.
    #[inline]
    pub(crate) fn changed_candidates(&self, filter: Filter) -> &[Entity] {
        self.track.log.candidates(filter, &self.set.dense)
    }

    /// The dense slot of `entity`, if it is stored and passes `filter`;
    /// `hint` is its place among the candidates when they drive the walk,
    /// else the driver's dense slot (see [`ChangeLog::pass`]).
    #[inline]
    pub(crate) fn changed_slot(
        &self,
        entity: Entity,
        hint: usize,
        filter: Filter,
    ) -> Option<usize> {
        self.track
            .log
            .pass(filter, entity, hint, || self.index_of_at(entity, hint))
    }

    /// A view that marks each value it hands out, with the candidates of
    /// `window` copied aside so that the view can write the log while a walk
    /// follows them.
    #[inline]
    pub(crate) fn tracked_view(
        &mut self,
        filter: Option<Filter>,
    ) -> (TrackedViewMut<'_, T>, &[Entity]) {
        let Tracked { log, scratch } = &mut self.track;
        scratch.clear();
        if let Some(filter) = filter {
            scratch.extend_from_slice(log.candidates(filter, &self.set.dense));
        }
        let view = Self::view_of(&mut self.set, self.mark.0);
        (TrackedViewMut::new(view, log), scratch)
    }
}
