//! [`SparseMap<T>`]: the storage of one component type.
//!
//! A sparse set: a *paged* sparse index from entity index to dense slot, and
//! two packed, parallel dense arrays (the entity in each slot, the value in
//! each slot). Lookups are two array reads and a generation check; iteration
//! is a walk over packed arrays; removal is swap-remove.

use alloc::vec::Vec;
use core::fmt;

use crate::entity::{EntityAllocator, SyncStamp};
use crate::error::AddErrorKind;
use crate::group::{GroupMark, GroupSlot};
use crate::Entity;

/// log2 of the number of entries in one sparse page.
const PAGE_BITS: u32 = 12;
/// Entries per sparse page: 4096 entries of 4 bytes, 16 KiB.
const PAGE_LEN: usize = 1 << PAGE_BITS;
/// Marks an empty sparse entry. Never a dense index: a storage holds at most
/// `u32::MAX` values, so dense indices stop at `u32::MAX - 1`.
const EMPTY: u32 = u32::MAX;

/// Paged sparse index: entity index → dense index, or [`EMPTY`].
///
/// A page is made the first time an index in it is set. The pages live side
/// by side in one array (`arena`), in the order they were made, and a table
/// says where each one is: `table[i]` is the place in `arena` of page
/// `first + i`, or [`NO_PAGE`]. The table spans only the pages in use, so a
/// storage whose only entity has index 1,000,000 holds one page and a
/// one-entry table; and however scattered the indices, the pages stay in one
/// block of memory.
#[derive(Clone, Default)]
struct Pages {
    table: Vec<u32>,
    arena: Vec<[u32; PAGE_LEN]>,
    /// The page number of `table[0]`.
    first: usize,
}

/// A table entry for a page not made yet. Never a place in `arena`, so
/// looking it up finds nothing.
const NO_PAGE: u32 = u32::MAX;

impl Pages {
    /// An index without pages.
    const fn new() -> Self {
        Pages {
            table: Vec::new(),
            arena: Vec::new(),
            first: 0,
        }
    }

    /// The position of `index`'s page in `table` (wrapping past the end
    /// for pages before `first`), and its offset in the page.
    #[inline]
    fn locate(&self, index: u32) -> (usize, usize) {
        (
            ((index >> PAGE_BITS) as usize).wrapping_sub(self.first),
            index as usize & (PAGE_LEN - 1),
        )
    }

    /// The dense index stored for `index`, or [`EMPTY`].
    #[inline]
    fn get(&self, index: u32) -> u32 {
        let (page, offset) = self.locate(index);
        match self.table.get(page) {
            Some(&place) => match self.arena.get(place as usize) {
                Some(page) => page[offset],
                None => EMPTY,
            },
            None => EMPTY,
        }
    }

    /// The entry for `index`, if its page exists.
    #[inline]
    fn entry_mut(&mut self, index: u32) -> Option<&mut u32> {
        let (page, offset) = self.locate(index);
        let &place = self.table.get(page)?;
        Some(&mut self.arena.get_mut(place as usize)?[offset])
    }

    /// Stores `dense` for `index`, making its page on first touch.
    #[inline]
    fn set(&mut self, index: u32, dense: u32) {
        match self.entry_mut(index) {
            Some(entry) => *entry = dense,
            None => self.set_in_new_page(index, dense),
        }
    }

    /// Stores `first_slot + i` for the index of `entities[i]`, page by page
    /// (a batch of spawned entities mostly has consecutive indices).
    fn set_run(&mut self, entities: &[Entity], first_slot: u32) {
        let mut rest = entities;
        let mut slot = first_slot;
        while let Some(&head) = rest.first() {
            let page_number = head.index() >> PAGE_BITS;
            let page = self.page_mut(head.index());
            let mut done = 0;
            for entity in rest {
                if entity.index() >> PAGE_BITS != page_number {
                    break;
                }
                page[entity.index() as usize & (PAGE_LEN - 1)] = slot;
                slot += 1;
                done += 1;
            }
            rest = &rest[done..];
        }
    }

    /// Stores `dense` for `index`, whose page does not exist yet.
    #[cold]
    fn set_in_new_page(&mut self, index: u32, dense: u32) {
        self.page_mut(index)[index as usize & (PAGE_LEN - 1)] = dense;
    }

    /// Makes room for the pages of `entities` more entities with
    /// consecutive indices (a guess for `with_capacity`).
    fn reserve(&mut self, entities: usize) {
        let pages = entities.div_ceil(PAGE_LEN);
        self.table.reserve_exact(pages);
        self.arena.reserve_exact(pages);
    }

    /// The page holding `index`'s entry, made (and the table grown) if
    /// missing.
    fn page_mut(&mut self, index: u32) -> &mut [u32; PAGE_LEN] {
        let page = (index >> PAGE_BITS) as usize;
        if self.table.is_empty() {
            self.first = page;
            // A storage with one page holds a one-entry table.
            self.table.reserve_exact(1);
        } else if page < self.first {
            // Grow the table at the front.
            let extra = self.first - page;
            self.table
                .splice(0..0, core::iter::repeat(NO_PAGE).take(extra));
            self.first = page;
        }
        let slot = page - self.first;
        if self.table.len() <= slot {
            self.table.resize(slot + 1, NO_PAGE);
        }
        if self.table[slot] == NO_PAGE {
            if self.arena.capacity() == 0 {
                self.arena.reserve_exact(1);
            }
            self.table[slot] = self.arena.len() as u32;
            self.arena.push([EMPTY; PAGE_LEN]);
        }
        let place = self.table[slot] as usize;
        &mut self.arena[place]
    }

    /// Clears the entry for `index`, if its page exists.
    #[inline]
    fn clear(&mut self, index: u32) {
        if let Some(entry) = self.entry_mut(index) {
            *entry = EMPTY;
        }
    }

    #[cfg(any(test, feature = "testing"))]
    fn allocated_pages(&self) -> usize {
        self.arena.len()
    }
}

/// The sparse-set core shared by a storage and its pending queues.
///
/// Invariant, for every slot `i < dense.len()`:
/// `sparse[dense[i].index] == i`, `dense.len() == data.len()`, and every
/// sparse entry that is not [`EMPTY`] points at a slot holding an entity of
/// that index. Hence `dense[sparse[e.index]] == e` exactly when `e` is stored.
#[derive(Clone)]
struct SparseSet<T> {
    sparse: Pages,
    dense: Vec<Entity>,
    data: Vec<T>,
}

impl<T> SparseSet<T> {
    const fn new() -> Self {
        SparseSet {
            sparse: Pages::new(),
            dense: Vec::new(),
            data: Vec::new(),
        }
    }

    fn with_capacity(capacity: usize) -> Self {
        SparseSet {
            sparse: {
                let mut pages = Pages::new();
                pages.reserve(capacity);
                pages
            },
            dense: Vec::with_capacity(capacity),
            data: Vec::with_capacity(capacity),
        }
    }

    /// The dense slot of `entity`, if stored (generation checked).
    #[inline]
    fn index_of(&self, entity: Entity) -> Option<usize> {
        let slot = self.sparse.get(entity.index()) as usize;
        match self.dense.get(slot) {
            Some(&stored) if stored == entity => Some(slot),
            _ => None,
        }
    }

    #[inline]
    fn contains(&self, entity: Entity) -> bool {
        self.index_of(entity).is_some()
    }

    #[inline]
    fn get(&self, entity: Entity) -> Option<&T> {
        self.index_of(entity).map(|slot| &self.data[slot])
    }

    #[inline]
    fn get_mut(&mut self, entity: Entity) -> Option<&mut T> {
        self.index_of(entity).map(|slot| &mut self.data[slot])
    }

    /// Stores `value` for `entity`, returning the value it replaces.
    ///
    /// The caller guarantees no *other* generation of `entity`'s index is
    /// stored: a world removes every component before an index is reused,
    /// and brings a storage in step before it adds to it (see "Storages
    /// moved between worlds" on [`SparseMap`]).
    #[inline]
    fn insert(&mut self, entity: Entity, value: T) -> Option<T> {
        match self.insert_new(entity, value) {
            Ok(()) => None,
            Err((slot, value)) => Some(core::mem::replace(&mut self.data[slot], value)),
        }
    }

    /// Stores `value` for `entity` if it has none; otherwise hands it back
    /// with the slot of the value already stored. One sparse lookup. The
    /// caller guarantees what [`insert`](Self::insert) says.
    #[inline]
    fn insert_new(&mut self, entity: Entity, value: T) -> Result<(), (usize, T)> {
        let len = self.dense.len();
        match self.sparse.entry_mut(entity.index()) {
            Some(entry) => {
                let slot = *entry as usize;
                if self.dense.get(slot) == Some(&entity) {
                    return Err((slot, value));
                }
                debug_assert_eq!(
                    *entry,
                    EMPTY,
                    "index {} is stored under another generation",
                    entity.index()
                );
                Self::push(&mut self.dense, &mut self.data, entity, value);
                *entry = len as u32;
            }
            None => {
                Self::push(&mut self.dense, &mut self.data, entity, value);
                self.sparse.set_in_new_page(entity.index(), len as u32);
            }
        }
        Ok(())
    }

    /// Appends a slot.
    #[inline]
    fn push(dense: &mut Vec<Entity>, data: &mut Vec<T>, entity: Entity, value: T) {
        if dense.len() == dense.capacity() {
            Self::grow(dense, data);
        }
        dense.push(entity);
        data.push(value);
    }

    /// Makes room for one more slot. A storage's first slot is allocated
    /// alone, so a storage with one value holds one dense entry.
    #[cold]
    fn grow(dense: &mut Vec<Entity>, data: &mut Vec<T>) {
        assert!(
            dense.len() < EMPTY as usize,
            "a storage holds at most u32::MAX - 1 values"
        );
        if dense.capacity() == 0 {
            dense.reserve_exact(1);
            data.reserve_exact(1);
        } else {
            dense.reserve(1);
            data.reserve(1);
        }
    }

    /// Removes `entity`'s value by swap-remove: the last slot moves into the
    /// hole. The storage is consistent before the value is returned, so a
    /// panicking `Drop` of the value cannot leave it half-updated.
    #[inline]
    fn remove(&mut self, entity: Entity) -> Option<T> {
        self.remove_with_slot(entity).map(|(_, value)| value)
    }

    /// Like [`remove`](Self::remove), also saying which dense slot the
    /// value was in. Two sparse lookups: the entity's and the moved one's.
    #[inline]
    fn remove_with_slot(&mut self, entity: Entity) -> Option<(usize, T)> {
        self.remove_if(entity, || true)
    }

    /// Like [`remove_with_slot`](Self::remove_with_slot), if `keep` (asked
    /// once `entity` is found) says to.
    #[inline]
    fn remove_if(&mut self, entity: Entity, keep: impl FnOnce() -> bool) -> Option<(usize, T)> {
        let entry = self.sparse.entry_mut(entity.index())?;
        let slot = *entry as usize;
        if self.dense.get(slot) != Some(&entity) || !keep() {
            return None;
        }
        *entry = EMPTY;
        let last = self.dense.len() - 1;
        if slot != last {
            let moved = self.dense[last];
            if let Some(entry) = self.sparse.entry_mut(moved.index()) {
                *entry = slot as u32;
            }
        }
        self.dense.swap_remove(slot);
        Some((slot, self.data.swap_remove(slot)))
    }

    /// Swaps the entities (and values) in dense slots `a` and `b`, keeping
    /// the sparse index in step. Both slots must exist.
    #[inline]
    fn swap(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        self.dense.swap(a, b);
        self.data.swap(a, b);
        self.sparse.set(self.dense[a].index(), a as u32);
        self.sparse.set(self.dense[b].index(), b as u32);
    }

    /// Reverses the dense order and re-indexes every slot, so that
    /// [`pop`](Self::pop) takes the entries out in the order they were
    /// stored. The set is consistent before and after.
    fn reverse(&mut self) {
        if self.dense.len() > 1 {
            self.dense.reverse();
            self.data.reverse();
            self.sparse.set_run(&self.dense, 0);
        }
    }

    /// Takes the entry in the last dense slot out. Nothing else moves, so the
    /// set stays consistent: a queue applied by popping its entries one at a
    /// time keeps the ones not popped yet, whatever happens in between.
    #[inline]
    fn pop(&mut self) -> Option<(Entity, T)> {
        let (entity, value) = self.dense.pop().zip(self.data.pop())?;
        self.sparse.clear(entity.index());
        Some((entity, value))
    }

    /// Empties the set and returns the values, for the caller to drop once
    /// every other storage is consistent too.
    fn take(&mut self) -> Vec<T> {
        for &entity in &self.dense {
            self.sparse.clear(entity.index());
        }
        self.dense.clear();
        core::mem::take(&mut self.data)
    }

    /// Checks the invariant above, saying what breaks it.
    fn check_invariants(&self, what: &str) -> Result<(), alloc::string::String> {
        use alloc::format;
        if self.dense.len() != self.data.len() {
            return Err(format!("{what}: dense and data lengths differ"));
        }
        for (slot, &entity) in self.dense.iter().enumerate() {
            if self.sparse.get(entity.index()) as usize != slot {
                return Err(format!(
                    "{what}: sparse[{entity:?}] does not point at its dense slot {slot}"
                ));
            }
        }
        let mut set_entries = 0;
        for page in &self.sparse.arena {
            set_entries += page.iter().filter(|&&slot| slot != EMPTY).count();
        }
        if set_entries != self.dense.len() {
            return Err(format!("{what}: sparse entries that point nowhere"));
        }
        Ok(())
    }
}

/// The storage of one component type: which entities have a `T`, and their
/// values, packed.
///
/// Each field of a [`world!`](crate::world) struct is one `SparseMap`. Use it
/// directly to iterate one component fast (`values_mut()` is a plain slice),
/// or to borrow two components' storages at once, since they are distinct
/// fields. Adding goes through the world, which checks that the entity is
/// alive; removing and reading can be done here as well.
///
/// # Layout and invariant
///
/// * `sparse`: entity index → dense slot, in pages of 4096 entries allocated
///   on first touch;
/// * `dense`: the entity in each slot;
/// * `data`: the value in each slot, parallel to `dense`.
///
/// For every stored entity `e`: `dense[sparse[e.index]] == e` and its value is
/// `data[sparse[e.index]]`. `len()` is the dense length. A lookup checks the
/// whole handle, generation included, so a stale handle finds nothing.
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
///   brings it in step: every value and queued change whose entity is not
///   alive in this world is dropped (exactly once) and the stamp renewed.
///   Entries whose entity *is* alive here are kept: moving a storage
///   between two worlds with the same entities (a world and its clone)
///   keeps everything. Spawning checks every storage first, so a stored
///   handle that this world has not handed out yet never becomes a new
///   entity's component.
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
pub struct SparseMap<T> {
    set: SparseSet<T>,
    /// Values queued by `add_deferred`, applied at the next sync point.
    pending_adds: SparseSet<T>,
    /// Entities queued by `remove_deferred`, applied at the next sync point.
    pending_removes: SparseSet<()>,
    /// This storage's place in an owning group of its world, if any: the
    /// first `group.len` slots hold the group's entities, in the same order
    /// as in the group's other storages (see [`crate::group`]).
    group: GroupSlot,
    /// The allocator this storage was last brought in step with, and that
    /// allocator's free epoch then. While it equals the stamp of its world's
    /// allocator, every entity stored or queued here is alive.
    synced: SyncStamp,
}

impl<T> Default for SparseMap<T> {
    fn default() -> Self {
        Self::new()
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
        SparseMap {
            set: SparseSet::new(),
            pending_adds: SparseSet::new(),
            pending_removes: SparseSet::new(),
            group: GroupSlot::new(),
            synced: SyncStamp::NONE,
        }
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
        SparseMap {
            set: SparseSet::with_capacity(capacity),
            pending_adds: SparseSet::new(),
            pending_removes: SparseSet::new(),
            group: GroupSlot::new(),
            synced: SyncStamp::NONE,
        }
    }

    /// Number of values stored (the dense length). Queued changes do not count
    /// until they are applied.
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
        self.set.get_mut(entity)
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
    #[inline]
    pub fn remove(&mut self, entity: Entity) -> Option<T> {
        let (slot, value) = self.set.remove_with_slot(entity)?;
        self.group.leave_prefix_unannounced(slot);
        Some(value)
    }

    // ----- for a world (see "Storages moved between worlds") -----
    //
    // The world's per-entity methods take these: the entity's slot, as the
    // world sees it. If this storage is not in step with the world's
    // allocator, an entry counts only if its entity is alive. The check is
    // made once the lookup has found the entity, and only reads: a loop of
    // such calls keeps the storage's fields in registers.

    /// The dense slot of `entity` as the world whose allocator is
    /// `entities` sees it.
    #[inline]
    fn index_of_in(&self, entity: Entity, entities: &EntityAllocator) -> Option<usize> {
        let slot = self.set.index_of(entity)?;
        if self.is_synced(entities.stamp()) || entities.is_alive(entity) {
            Some(slot)
        } else {
            None
        }
    }

    /// `entity`'s value as the world whose allocator is `entities` sees it.
    #[inline]
    pub(crate) fn get_in(&self, entity: Entity, entities: &EntityAllocator) -> Option<&T> {
        let slot = self.index_of_in(entity, entities)?;
        Some(&self.set.data[slot])
    }

    /// `entity`'s value, mutably, as the world whose allocator is
    /// `entities` sees it.
    #[inline]
    pub(crate) fn get_mut_in(
        &mut self,
        entity: Entity,
        entities: &EntityAllocator,
    ) -> Option<&mut T> {
        let slot = self.index_of_in(entity, entities)?;
        Some(&mut self.set.data[slot])
    }

    /// Removes `entity`'s value as the world whose allocator is `entities`
    /// sees it: an entry it does not see stays (the world drops it when it
    /// brings the storage in step).
    #[inline]
    pub(crate) fn remove_in(&mut self, entity: Entity, entities: &EntityAllocator) -> Option<T> {
        let in_step = self.is_synced(entities.stamp());
        let (slot, value) = self
            .set
            .remove_if(entity, || in_step || entities.is_alive(entity))?;
        self.group.leave_prefix_unannounced(slot);
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
        IterMut {
            entities: self.set.dense.iter(),
            values: self.set.data.iter_mut(),
        }
    }

    /// Checks the storage's invariant (see the type docs) and panics with a
    /// description of the first violation. Test support (feature `testing`).
    ///
    /// ```
    /// # use typed_ecs::SparseMap;
    /// SparseMap::<u8>::new().assert_invariants();
    /// ```
    #[cfg(any(test, feature = "testing"))]
    pub fn assert_invariants(&self) {
        if let Err(problem) = self.check() {
            panic!("{problem}");
        }
    }

    /// Checks the storage's own invariant (see the type docs) for its
    /// values, its queued adds and its queued removals.
    pub(crate) fn check(&self) -> Result<(), alloc::string::String> {
        self.set.check_invariants("values")?;
        self.pending_adds.check_invariants("queued adds")?;
        self.pending_removes.check_invariants("queued removals")
    }

    /// Every entity stored or queued here, with what it is (for messages).
    pub(crate) fn all_entries(&self) -> impl Iterator<Item = (&'static str, Entity)> + '_ {
        let tag = |what: &'static str| move |&entity: &Entity| (what, entity);
        self.set
            .dense
            .iter()
            .map(tag("holds"))
            .chain(
                self.pending_adds
                    .dense
                    .iter()
                    .map(tag("has a queued add for")),
            )
            .chain(
                self.pending_removes
                    .dense
                    .iter()
                    .map(tag("has a queued removal for")),
            )
    }

    /// Number of sparse pages allocated. Test support (feature `testing`).
    ///
    /// ```
    /// # use typed_ecs::SparseMap;
    /// assert_eq!(SparseMap::<u8>::new().sparse_pages(), 0);
    /// ```
    #[cfg(any(test, feature = "testing"))]
    pub fn sparse_pages(&self) -> usize {
        self.set.sparse.allocated_pages()
    }

    // ----- saving and loading -----

    /// The stored `(entities, values)` and the queued adds', for saving.
    #[cfg(feature = "serde")]
    pub(crate) fn pairs(&self) -> [(&[Entity], &[T]); 2] {
        [
            (&self.set.dense, &self.set.data),
            (&self.pending_adds.dense, &self.pending_adds.data),
        ]
    }

    /// The entities with a queued removal, for saving.
    #[cfg(feature = "serde")]
    pub(crate) fn pending_remove_entities(&self) -> &[Entity] {
        &self.pending_removes.dense
    }

    /// Rebuilds a storage from saved parts, or says what is wrong with them:
    /// no list may hold one index twice (one entity twice, or two
    /// generations of one index), nor a command buffer's reserved handle.
    #[cfg(feature = "serde")]
    pub(crate) fn from_parts(
        values: Vec<(Entity, T)>,
        adds: Vec<(Entity, T)>,
        removes: Vec<Entity>,
    ) -> Result<Self, alloc::string::String> {
        fn fill<V>(
            set: &mut SparseSet<V>,
            what: &str,
            items: impl IntoIterator<Item = (Entity, V)>,
        ) -> Result<(), alloc::string::String> {
            for (entity, value) in items {
                if entity.is_reserved() {
                    return Err(alloc::format!("{what} hold the reserved handle {entity:?}"));
                }
                if set.sparse.get(entity.index()) != EMPTY {
                    return Err(alloc::format!(
                        "{what} hold entity index {} twice",
                        entity.index()
                    ));
                }
                set.insert(entity, value);
            }
            Ok(())
        }
        let mut map = SparseMap::with_capacity(values.len());
        fill(&mut map.set, "the values", values)?;
        fill(&mut map.pending_adds, "the queued adds", adds)?;
        fill(
            &mut map.pending_removes,
            "the queued removals",
            removes.into_iter().map(|e| (e, ())),
        )?;
        Ok(map)
    }

    // ----- used by the world, which checks liveness first -----

    /// Adds or replaces `entity`'s value. The world checks `entity` is
    /// alive, and brings the storage in step first.
    #[inline]
    pub(crate) fn insert(&mut self, entity: Entity, value: T) -> Option<T> {
        self.set.insert(entity, value)
    }

    /// Adds the value of an entity that was just spawned, so has no value
    /// here (nor does any other generation of its index).
    #[inline]
    pub(crate) fn push_fresh(&mut self, entity: Entity, value: T) {
        debug_assert_eq!(self.set.sparse.get(entity.index()), EMPTY);
        let slot = self.set.dense.len() as u32;
        SparseSet::push(&mut self.set.dense, &mut self.set.data, entity, value);
        self.set.sparse.set(entity.index(), slot);
    }

    /// The first half of a batch spawn's insert: the value of the next
    /// entity to [`attach`](Self::attach), pushed alone. Until the attach,
    /// `values()` is longer than `entities()`.
    #[inline]
    pub(crate) fn push_value(&mut self, value: T) {
        self.set.data.push(value);
    }

    /// The second half of a batch spawn's insert: gives the values pushed by
    /// [`push_value`](Self::push_value) their entities, just spawned, in
    /// order, and indexes them.
    pub(crate) fn attach(&mut self, entities: &[Entity]) {
        let base = self.set.dense.len();
        assert!(
            base + entities.len() < EMPTY as usize,
            "a storage holds at most u32::MAX - 1 values"
        );
        debug_assert_eq!(self.set.data.len(), base + entities.len());
        self.set.dense.extend_from_slice(entities);
        self.set.sparse.set_run(entities, base as u32);
    }

    /// Adds `entity`'s value if it has none, or hands `value` back. The
    /// world checks `entity` is alive, and brings the storage in step first.
    #[inline]
    pub(crate) fn insert_new(&mut self, entity: Entity, value: T) -> Result<(), T> {
        self.set
            .insert_new(entity, value)
            .map_err(|(_, value)| value)
    }

    /// Queues `value` to be added to `entity` at the next sync point, or says
    /// why it cannot be and hands it back.
    pub(crate) fn queue_add(&mut self, entity: Entity, value: T) -> Result<(), (AddErrorKind, T)> {
        if self.pending_adds.contains(entity) {
            return Err((AddErrorKind::AlreadyQueued, value));
        }
        if self.set.contains(entity) && !self.pending_removes.contains(entity) {
            return Err((AddErrorKind::AlreadyPresent, value));
        }
        self.pending_adds.insert(entity, value);
        Ok(())
    }

    /// Queues the removal of `entity`'s value at the next sync point.
    pub(crate) fn queue_remove(&mut self, entity: Entity) {
        self.pending_removes.insert(entity, ());
    }

    /// Applies the queued removals, in the order queued. Each value is
    /// dropped only after the storage is consistent again, and each removal
    /// leaves the queue before its value is dropped: if that `Drop` panics,
    /// the removals not applied yet stay queued.
    pub(crate) fn apply_removals(&mut self) {
        if !self.ready_pending_removes() {
            return;
        }
        while let Some(entity) = self.pop_pending_remove() {
            drop(self.remove(entity));
        }
    }

    /// Applies the queued additions, in the order queued. An entity that
    /// gained the component after the add was queued has it replaced; if
    /// the replaced value's `Drop` panics, the additions not applied yet
    /// stay queued.
    pub(crate) fn apply_additions(&mut self) {
        if !self.ready_pending_adds() {
            return;
        }
        while let Some((entity, value)) = self.pending_adds.pop() {
            drop(self.set.insert(entity, value));
        }
    }

    /// Detaches everything stored or queued for `entity` (its value and any
    /// queued add), for the caller to drop once every storage is consistent.
    #[inline]
    pub(crate) fn purge(&mut self, entity: Entity) -> (Option<T>, Option<T>) {
        // The queues are usually empty: skip their lookups then.
        if !self.pending_removes.dense.is_empty() {
            self.pending_removes.remove(entity);
        }
        let queued = if self.pending_adds.dense.is_empty() {
            None
        } else {
            self.pending_adds.remove(entity)
        };
        (self.remove(entity), queued)
    }

    /// Empties the storage and its queues, returning the values for the caller
    /// to drop once every storage is consistent.
    pub(crate) fn take_all(&mut self) -> (Vec<T>, Vec<T>) {
        self.pending_removes.take();
        // Every storage of the world is emptied together, so a group stays
        // consistent: its prefix is empty in each of them.
        self.set_group_len(0);
        (self.set.take(), self.pending_adds.take())
    }

    // ----- keeping in step with the world (see the type docs) -----

    /// `true` if this storage is in step with the allocator whose stamp is
    /// `stamp`: then every entity it stores or queues is alive there.
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

    /// The entities stored or queued here that `is_alive` rejects: what
    /// [`resync`](Self::resync) removes.
    pub(crate) fn dead_entries(&self, is_alive: impl Fn(Entity) -> bool) -> Vec<Entity> {
        self.all_entries()
            .map(|(_, entity)| entity)
            .filter(|&entity| !is_alive(entity))
            .collect()
    }

    /// Brings the storage in step with an allocator: removes every value,
    /// queued add and queued removal of the entities in `dead` (found by
    /// [`dead_entries`](Self::dead_entries)), then records `stamp`. Returns
    /// the removed values, for the caller to drop once everything is
    /// consistent. A grouped entity removed this way makes the group wait
    /// for a rebuild, as any removal straight from a storage does.
    #[cold]
    pub(crate) fn resync(&mut self, dead: &[Entity], stamp: SyncStamp) -> Vec<T> {
        let mut removed = Vec::new();
        for &entity in dead {
            self.pending_removes.remove(entity);
            removed.extend(self.pending_adds.remove(entity));
            removed.extend(self.remove(entity));
        }
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

    // ----- owning groups (see `crate::group`) -----

    /// This storage's place in an owning group.
    #[inline]
    pub(crate) fn group_mark(&self) -> GroupMark {
        self.group.0
    }

    /// Sets this storage's place in an owning group.
    #[inline]
    pub(crate) fn set_group_mark(&mut self, mark: GroupMark) {
        self.group.0 = mark;
    }

    /// Sets the length of this storage's owning group.
    #[inline]
    pub(crate) fn set_group_len(&mut self, len: usize) {
        self.group.0.len = len as u32;
    }

    /// Swaps the values (and entities) in dense slots `a` and `b`.
    #[inline]
    pub(crate) fn swap_slots(&mut self, a: usize, b: usize) {
        self.set.swap(a, b);
    }

    // ----- the sync point: queues applied one entry at a time -----

    /// Readies the queued removals to be taken out in the order they were
    /// queued by [`pop_pending_remove`](Self::pop_pending_remove). Returns
    /// `false`, doing nothing, when none is queued.
    #[inline]
    pub(crate) fn ready_pending_removes(&mut self) -> bool {
        if self.pending_removes.dense.is_empty() {
            return false;
        }
        self.pending_removes.reverse();
        true
    }

    /// Takes the next queued removal out of the queue (the first queued,
    /// after [`ready_pending_removes`](Self::ready_pending_removes)). The
    /// queue stays consistent, holding the removals not taken yet.
    #[inline]
    pub(crate) fn pop_pending_remove(&mut self) -> Option<Entity> {
        self.pending_removes.pop().map(|(entity, ())| entity)
    }

    /// Readies the queued additions to be taken out in the order they were
    /// queued by [`pop_pending_add`](Self::pop_pending_add). Returns
    /// `false`, doing nothing, when none is queued.
    #[inline]
    pub(crate) fn ready_pending_adds(&mut self) -> bool {
        if self.pending_adds.dense.is_empty() {
            return false;
        }
        self.pending_adds.reverse();
        true
    }

    /// Takes the next queued addition out of the queue; see
    /// [`pop_pending_remove`](Self::pop_pending_remove).
    #[inline]
    pub(crate) fn pop_pending_add(&mut self) -> Option<(Entity, T)> {
        self.pending_adds.pop()
    }
}

/// A mutable view of a [`SparseMap`]: its values can be changed, but not
/// which entities have one. This is what a mutable query holds for each
/// `&mut C`; make one with `(&mut map).into()` or [`SparseMap::view_mut`].
///
/// It splits the map into a shared sparse index, a shared entity array and a
/// mutable value array, so the entity array can drive a query while values
/// are handed out.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::sparse_map::ViewMut;
///
/// struct Hp(i32);
/// world! { struct Game<Hp>; }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((Hp(1),));
/// let mut view: ViewMut<'_, Hp> = world.hp.view_mut();
/// view.get_mut(e).unwrap().0 += 1;
/// assert_eq!(view.entities(), &[e]);
/// assert_eq!(world.hp.get(e).unwrap().0, 2);
/// ```
pub struct ViewMut<'w, T> {
    sparse: &'w Pages,
    /// The entities of the slots this view covers: all of the storage's,
    /// or, inside a parallel walk, a window of them.
    dense: &'w [Entity],
    data: &'w mut [T],
    /// The storage slot of `dense[0]` (0 unless the view is a window).
    offset: usize,
    group: GroupMark,
}

impl<T> SparseMap<T> {
    /// A view that can change values but not membership. See [`ViewMut`].
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
        ViewMut {
            sparse: &self.set.sparse,
            dense: &self.set.dense,
            data: &mut self.set.data,
            offset: 0,
            group: self.group.0,
        }
    }
}

impl<'w, T> From<&'w mut SparseMap<T>> for ViewMut<'w, T> {
    #[inline]
    fn from(map: &'w mut SparseMap<T>) -> Self {
        map.view_mut()
    }
}

impl<'w, T> ViewMut<'w, T> {
    /// Number of values.
    ///
    /// ```
    /// # use typed_ecs::SparseMap;
    /// let mut map = SparseMap::<u8>::new();
    /// assert_eq!(map.view_mut().len(), 0);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.dense.len()
    }

    /// `true` when there are no values.
    ///
    /// ```
    /// # use typed_ecs::SparseMap;
    /// let mut map = SparseMap::<u8>::new();
    /// assert!(map.view_mut().is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.dense.is_empty()
    }

    /// The entity in each dense slot, borrowed for the whole view lifetime.
    ///
    /// ```
    /// # use typed_ecs::SparseMap;
    /// let mut map = SparseMap::<u8>::new();
    /// assert!(map.view_mut().entities().is_empty());
    /// ```
    #[inline]
    pub fn entities(&self) -> &'w [Entity] {
        self.dense
    }

    /// The slot of `entity` in this view, if it has a value here
    /// (generation checked).
    #[inline]
    fn index_of(&self, entity: Entity) -> Option<usize> {
        let slot = (self.sparse.get(entity.index()) as usize).wrapping_sub(self.offset);
        match self.dense.get(slot) {
            Some(&stored) if stored == entity => Some(slot),
            _ => None,
        }
    }

    /// `true` if `entity` has a value.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(1),));
    /// assert!(world.hp.view_mut().contains(e));
    /// ```
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.index_of(entity).is_some()
    }

    /// `entity`'s value, if it has one.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(1),));
    /// assert_eq!(world.hp.view_mut().get(e).map(|hp| hp.0), Some(1));
    /// ```
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&T> {
        self.index_of(entity).map(|slot| &self.data[slot])
    }

    /// `entity`'s value, mutably, trying dense slot `slot` first (see
    /// [`SparseMap::index_of_at`]).
    #[inline]
    pub(crate) fn get_mut_at(&mut self, entity: Entity, slot: usize) -> Option<&mut T> {
        let slot = match self.dense.get(slot) {
            Some(&stored) if stored == entity => slot,
            _ => self.index_of(entity)?,
        };
        self.data.get_mut(slot)
    }

    /// `entity`'s value, mutably, if it has one.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(1),));
    /// world.hp.view_mut().get_mut(e).unwrap().0 = 7;
    /// assert_eq!(world.hp.get(e).map(|hp| hp.0), Some(7));
    /// ```
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Option<&mut T> {
        self.index_of(entity).map(|slot| &mut self.data[slot])
    }

    /// `entity`'s value, mutably for the whole view lifetime, consuming the view.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(1),));
    /// let hp: &mut Hp = world.hp.view_mut().into_mut(e).unwrap();
    /// hp.0 = 3;
    /// ```
    #[inline]
    pub fn into_mut(self, entity: Entity) -> Option<&'w mut T> {
        let slot = self.index_of(entity)?;
        self.data.get_mut(slot)
    }

    /// The entity array and the value array, for walking both in step.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; }
    /// let mut world = Game::new();
    /// world.spawn_with((Hp(1),));
    /// let (entities, values) = world.hp.view_mut().into_slices();
    /// assert_eq!(entities.len(), values.len());
    /// ```
    #[inline]
    pub fn into_slices(self) -> (&'w [Entity], &'w mut [T]) {
        (self.dense, self.data)
    }

    /// The storage's place in an owning group, as it was when the view was made.
    #[inline]
    pub(crate) fn group_mark(&self) -> GroupMark {
        self.group
    }

    /// The first `len` values, mutably, for the whole view lifetime.
    ///
    /// # Panics
    ///
    /// If the view holds fewer than `len` values (callers check first).
    #[inline]
    pub(crate) fn into_values_prefix(self, len: usize) -> &'w mut [T] {
        &mut self.data[..len]
    }

    /// Splits the view into the windows of slots `..mid` and `mid..`, for a
    /// parallel walk. Each window finds only the entities in its slots.
    #[inline]
    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
        let mid = mid.min(self.dense.len());
        let (dense_a, dense_b) = self.dense.split_at(mid);
        let (data_a, data_b) = self.data.split_at_mut(mid);
        (
            ViewMut {
                sparse: self.sparse,
                dense: dense_a,
                data: data_a,
                offset: self.offset,
                group: self.group,
            },
            ViewMut {
                sparse: self.sparse,
                dense: dense_b,
                data: data_b,
                offset: self.offset + mid,
                group: self.group,
            },
        )
    }
}

impl<T: fmt::Debug> fmt::Debug for ViewMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.dense.iter().zip(self.data.iter()))
            .finish()
    }
}

/// Prints the stored values as a map from entity to value, plus the number of
/// queued changes.
impl<T: fmt::Debug> fmt::Debug for SparseMap<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()?;
        let (adds, removes) = (
            self.pending_adds.dense.len(),
            self.pending_removes.dense.len(),
        );
        if adds + removes > 0 {
            write!(f, " (queued: {adds} adds, {removes} removes)")?;
        }
        Ok(())
    }
}

impl<'a, T> IntoIterator for &'a SparseMap<T> {
    type Item = (Entity, &'a T);
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut SparseMap<T> {
    type Item = (Entity, &'a mut T);
    type IntoIter = IterMut<'a, T>;

    fn into_iter(self) -> IterMut<'a, T> {
        self.iter_mut()
    }
}

/// Writes an iterator over a storage's entity array and value array in step.
macro_rules! pair_iter {
    ($(#[$meta:meta])* $name:ident, $values:ident, $($value_ref:tt)+) => {
        $(#[$meta])*
        #[derive(Debug)]
        pub struct $name<'a, T> {
            entities: core::slice::Iter<'a, Entity>,
            values: core::slice::$values<'a, T>,
        }

        impl<'a, T> Iterator for $name<'a, T> {
            type Item = (Entity, $($value_ref)+ T);

            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                Some((*self.entities.next()?, self.values.next()?))
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                self.values.size_hint()
            }
        }

        impl<T> DoubleEndedIterator for $name<'_, T> {
            #[inline]
            fn next_back(&mut self) -> Option<Self::Item> {
                Some((*self.entities.next_back()?, self.values.next_back()?))
            }
        }

        impl<T> ExactSizeIterator for $name<'_, T> {}
        impl<T> core::iter::FusedIterator for $name<'_, T> {}
    };
}

pair_iter!(
    /// Iterator over `(Entity, &T)` of a [`SparseMap`], made by [`SparseMap::iter`].
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(f32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(3.0),));
    /// let iter: typed_ecs::sparse_map::Iter<'_, Pos> = world.pos.iter();
    /// assert_eq!(iter.len(), 1);
    /// ```
    Iter, Iter, &'a
);

pair_iter!(
    /// Iterator over `(Entity, &mut T)` of a [`SparseMap`], made by
    /// [`SparseMap::iter_mut`], and of a query over one `&mut T`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(f32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(3.0),));
    /// let iter: typed_ecs::sparse_map::IterMut<'_, Pos> = world.pos.iter_mut();
    /// assert_eq!(iter.len(), 1);
    /// ```
    IterMut, IterMut, &'a mut
);

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            entities: self.entities.clone(),
            values: self.values.clone(),
        }
    }
}

impl<'w, T> ViewMut<'w, T> {
    /// Iterates over `(entity, &mut value)` for the whole view lifetime,
    /// consuming the view.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; }
    /// let mut world = Game::new();
    /// world.spawn_with((Hp(1),));
    /// for (_, hp) in world.hp.view_mut().into_iter_mut() {
    ///     hp.0 += 1;
    /// }
    /// assert_eq!(world.hp.values()[0].0, 2);
    /// ```
    #[inline]
    pub fn into_iter_mut(self) -> IterMut<'w, T> {
        IterMut {
            entities: self.dense.iter(),
            values: self.data.iter_mut(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EntityAllocator;
    use std::collections::HashMap;
    use std::format;

    #[test]
    fn insert_get_remove() {
        let mut entities = EntityAllocator::new();
        let (a, b, c) = (entities.alloc(), entities.alloc(), entities.alloc());
        let mut map = SparseMap::new();
        assert_eq!(map.insert(a, "a"), None);
        assert_eq!(map.insert(b, "b"), None);
        assert_eq!(map.insert(c, "c"), None);
        assert_eq!(map.insert(b, "B"), Some("b"));
        assert_eq!(map.remove(a), Some("a"));
        // swap-remove moved c into slot 0
        assert_eq!(map.entities(), &[c, b]);
        assert_eq!(map.values(), &["c", "B"]);
        assert_eq!(map.get(a), None);
        assert_eq!(map.get(c), Some(&"c"));
        map.assert_invariants();
    }

    #[test]
    fn stale_handle_finds_nothing() {
        let mut entities = EntityAllocator::new();
        let a = entities.alloc();
        let mut map = SparseMap::new();
        map.insert(a, 1);
        map.remove(a);
        entities.free(a);
        let reused = entities.alloc();
        assert_eq!(reused.index(), a.index());
        map.insert(reused, 2);
        assert_eq!(map.get(a), None);
        assert!(!map.contains(a));
        assert_eq!(map.remove(a), None);
        assert_eq!(map.get(reused), Some(&2));
    }

    #[test]
    fn sparse_index_is_paged() {
        let far = Entity::from_bits(1_000_000 | (1 << 32)).unwrap();
        let mut map = SparseMap::new();
        map.insert(far, 7u8);
        assert_eq!(map.sparse_pages(), 1);
        assert_eq!(map.get(far), Some(&7));
        // The page table spans only the pages in use.
        assert_eq!(map.set.sparse.table.len(), 1);
        assert_eq!(map.set.sparse.table.capacity(), 1);
        assert_eq!(map.set.sparse.arena.capacity(), 1);
        // A storage of one value holds one dense entry.
        assert_eq!((map.set.dense.capacity(), map.set.data.capacity()), (1, 1));
        let near = Entity::from_bits(1 << 32).unwrap();
        assert_eq!(map.get(near), None);
        map.insert(near, 1);
        assert_eq!(map.sparse_pages(), 2);
        // Growing at the front keeps every entry where it was.
        assert_eq!(map.set.sparse.table.len(), 1_000_000 / PAGE_LEN + 1);
        assert_eq!(map.get(far), Some(&7));
        assert_eq!(map.get(near), Some(&1));
        let middle = Entity::from_bits(500_000 | (1 << 32)).unwrap();
        map.insert(middle, 2);
        assert_eq!(map.sparse_pages(), 3);
        assert_eq!(map.remove(far), Some(7));
        assert_eq!(map.get(middle), Some(&2));
        map.assert_invariants();
    }

    #[test]
    fn largest_index_works() {
        let last = Entity::from_bits(u64::from(u32::MAX - 1) | (1 << 32)).unwrap();
        let mut map = SparseMap::new();
        map.insert(last, ());
        assert!(map.contains(last));
        assert_eq!(map.remove(last), Some(()));
        map.assert_invariants();
    }

    #[test]
    fn queued_changes_apply_removals_then_additions() {
        let mut entities = EntityAllocator::new();
        let (a, b) = (entities.alloc(), entities.alloc());
        let mut map = SparseMap::new();
        map.insert(a, 1);
        assert!(matches!(
            map.queue_add(a, 2),
            Err((AddErrorKind::AlreadyPresent, 2))
        ));
        map.queue_remove(a);
        map.queue_add(a, 3).unwrap();
        assert!(matches!(
            map.queue_add(a, 4),
            Err((AddErrorKind::AlreadyQueued, 4))
        ));
        map.queue_add(b, 5).unwrap();
        assert_eq!(map.get(a), Some(&1), "nothing moves before the sync point");
        map.apply_removals();
        map.apply_additions();
        assert_eq!(map.get(a), Some(&3));
        assert_eq!(map.get(b), Some(&5));
        map.assert_invariants();
        // the queues are empty and reusable
        map.queue_remove(b);
        map.apply_removals();
        map.apply_additions();
        assert_eq!(map.entities(), &[a]);
        map.assert_invariants();
    }

    /// The sync point takes queued changes one at a time, first queued
    /// first, and the queue holds a consistent rest after every step (what a
    /// panicking `Drop` between two steps leaves).
    #[test]
    fn queues_pop_in_the_order_queued_and_stay_consistent() {
        let mut entities = EntityAllocator::new();
        let e: std::vec::Vec<Entity> = (0..6).map(|_| entities.alloc()).collect();
        // An index on another page, so the re-indexing crosses pages.
        let far = Entity::new(3 * PAGE_LEN as u32 + 7, core::num::NonZeroU32::MIN);
        let mut map = SparseMap::new();
        for (value, &entity) in [e[3], e[0], far, e[5], e[1]].iter().enumerate() {
            map.queue_add(entity, value).unwrap();
            map.queue_remove(entity);
        }
        assert!(map.ready_pending_adds() && map.ready_pending_removes());
        assert_eq!(map.pop_pending_add(), Some((e[3], 0)));
        assert_eq!(map.pop_pending_remove(), Some(e[3]));
        map.assert_invariants();
        // A despawn in between takes its entity's queued changes out.
        assert_eq!(map.purge(far), (None, Some(2)));
        map.assert_invariants();
        assert_eq!(map.pop_pending_add(), Some((e[0], 1)));
        map.assert_invariants();
        // Readying again (the next sync point) keeps every entry.
        assert!(map.ready_pending_adds());
        let mut rest = std::vec::Vec::new();
        while let Some((entity, _)) = map.pop_pending_add() {
            rest.push(entity);
            map.assert_invariants();
        }
        rest.sort();
        assert_eq!(rest, [e[1], e[5]]);
        assert!(!map.ready_pending_adds());
        let mut removes: std::vec::Vec<Entity> =
            core::iter::from_fn(|| map.pop_pending_remove()).collect();
        removes.sort();
        assert_eq!(removes, [e[0], e[1], e[5]]);
        assert!(!map.ready_pending_removes());
        map.assert_invariants();
    }

    #[test]
    fn purge_detaches_value_and_queued_add() {
        let mut entities = EntityAllocator::new();
        let a = entities.alloc();
        let mut map = SparseMap::new();
        map.insert(a, 1);
        map.queue_remove(a);
        map.queue_add(a, 2).unwrap();
        assert_eq!(map.purge(a), (Some(1), Some(2)));
        map.apply_removals();
        map.apply_additions();
        assert!(map.is_empty());
        map.assert_invariants();
    }

    #[test]
    fn resync_drops_what_the_allocator_says_is_dead() {
        let mut entities = EntityAllocator::new();
        let (a, b, c) = (entities.alloc(), entities.alloc(), entities.alloc());
        let mut map = SparseMap::new();
        map.insert(a, 1);
        map.insert(b, 2);
        map.insert(c, 3);
        map.queue_remove(b);
        map.queue_add(c, 30).unwrap_err();
        map.queue_remove(c);
        map.queue_add(c, 30).unwrap();
        assert!(
            !map.is_synced(entities.stamp()),
            "a new storage is in step with nothing"
        );
        entities.free(b);
        entities.free(c);
        let alive = |e| entities.is_alive(e);
        let mut dead = map.dead_entries(alive);
        dead.sort();
        dead.dedup();
        assert_eq!(dead, [b, c]);
        assert_eq!(
            map.live_slots(alive)
                .map(|slot| map.entities()[slot])
                .collect::<Vec<_>>(),
            [a]
        );
        let mut removed = map.resync(&dead, entities.stamp());
        removed.sort();
        assert_eq!(removed, [2, 3, 30], "values and queued adds, once each");
        assert!(map.is_synced(entities.stamp()));
        assert_eq!(map.entities(), &[a]);
        map.assert_invariants();
        assert!(map.dead_entries(|e| entities.is_alive(e)).is_empty());
    }

    #[test]
    fn lookups_for_a_world_skip_the_dead_until_in_step() {
        let mut entities = EntityAllocator::new();
        let (a, b) = (entities.alloc(), entities.alloc());
        let mut map = SparseMap::new();
        map.insert(a, 1);
        map.insert(b, 2);
        map.set_synced(entities.stamp());
        entities.free(b); // while the storage was not watching
        assert!(!map.is_synced(entities.stamp()));
        assert_eq!(map.get_in(a, &entities), Some(&1));
        assert_eq!(map.get_in(b, &entities), None);
        assert_eq!(map.get_mut_in(b, &entities), None);
        assert_eq!(map.remove_in(b, &entities), None);
        assert_eq!(map.len(), 2, "nothing removed for a dead entity");
        assert_eq!(map.remove_in(a, &entities), Some(1));
        // In step, a lookup takes the storage's word for it.
        map.set_synced(entities.stamp());
        assert_eq!(map.get_in(b, &entities), Some(&2));
    }

    #[test]
    fn debug_prints_a_map() {
        let mut entities = EntityAllocator::new();
        let a = entities.alloc();
        let mut map = SparseMap::new();
        map.insert(a, 'x');
        assert_eq!(format!("{map:?}"), "{0v1: 'x'}");
        map.queue_remove(a);
        assert_eq!(format!("{map:?}"), "{0v1: 'x'} (queued: 0 adds, 1 removes)");
    }

    /// A seeded random run of inserts, removes, recycles and queued changes,
    /// checked step by step against a `HashMap` model.
    #[test]
    fn random_operations_match_hashmap_model() {
        let mut rng = crate::test_rng::Rng::new(0x5eed_0002);
        let mut entities = EntityAllocator::new();
        let mut live: Vec<Entity> = Vec::new();
        let mut map: SparseMap<u64> = SparseMap::new();
        let mut model: HashMap<Entity, u64> = HashMap::new();
        for step in 0..50_000u64 {
            match rng.below(10) {
                0 | 1 => live.push(entities.alloc()),
                2 if !live.is_empty() => {
                    // despawn: the world purges before freeing the index
                    let e = live.swap_remove(rng.below(live.len()));
                    let (value, queued) = map.purge(e);
                    assert_eq!(value, model.remove(&e));
                    assert_eq!(queued, None);
                    entities.free(e);
                }
                3..=5 if !live.is_empty() => {
                    let e = live[rng.below(live.len())];
                    assert_eq!(map.insert(e, step), model.insert(e, step));
                }
                6 | 7 if !live.is_empty() => {
                    let e = live[rng.below(live.len())];
                    assert_eq!(map.remove(e), model.remove(&e));
                }
                8 if !live.is_empty() => {
                    let e = live[rng.below(live.len())];
                    if let Some(v) = map.get_mut(e) {
                        *v += 1;
                        *model.get_mut(&e).unwrap() += 1;
                    }
                }
                _ => {
                    // a batch of queued changes and a sync point
                    let mut removes = Vec::new();
                    let mut adds = Vec::new();
                    for _ in 0..rng.below(8) {
                        if live.is_empty() {
                            break;
                        }
                        let e = live[rng.below(live.len())];
                        if rng.below(2) == 0 {
                            map.queue_remove(e);
                            removes.push(e);
                        } else if map.queue_add(e, step).is_ok() {
                            adds.push(e);
                        }
                    }
                    map.apply_removals();
                    map.apply_additions();
                    for e in removes {
                        model.remove(&e);
                    }
                    for e in adds {
                        model.insert(e, step);
                    }
                }
            }
            assert_eq!(map.len(), model.len());
            if step % 1000 == 0 {
                map.assert_invariants();
            }
        }
        map.assert_invariants();
        for (&e, v) in &model {
            assert_eq!(map.get(e), Some(v));
        }
        for (e, v) in map.iter() {
            assert_eq!(model.get(&e), Some(v));
        }
    }
}
