//! Entity handles and the generational allocator that hands them out.
//!
//! An [`Entity`] is an entity index plus the generation that index had
//! when the handle was made. Despawning bumps the index's
//! generation, so every handle to the old occupant becomes *stale*: it no
//! longer matches, and lookups through it find nothing instead of reading the
//! data of whoever reuses the index.

use alloc::vec::Vec;
use core::fmt;
use core::num::{NonZeroU32, NonZeroU64};

/// A handle to an entity: an index plus a generation.
///
/// Handles are small (8 bytes, and `Option<Entity>` is 8 bytes too), `Copy`,
/// and cheap to hash and compare. A handle outlives the entity it names: once
/// the entity is despawned the handle is *stale* and every lookup through it
/// returns `None`, even after the index has been reused by a new entity.
///
/// `Debug` prints the handle compactly as `{index}v{generation}` (and a
/// handle reserved by a command buffer as `reserved#{n}`, where `n` is its
/// reservation number, never handed out twice in one program).
///
/// A handle does not record which world made it. Used with another world, it
/// names whatever that world has at the same index and generation, or
/// nothing. Keep handles with their world. There is no check, even in debug
/// builds: it would need room the 8-byte handle does not have.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// world! { struct Game<Health>; }
/// struct Health(u32);
///
/// let mut world = Game::new();
/// let e = world.spawn();
/// assert_eq!(format!("{e:?}"), "0v1");
/// assert!(world.despawn(e));
///
/// let reused = world.spawn();
/// assert_eq!(reused.index(), e.index());
/// assert_ne!(reused, e);             // a new generation
/// assert!(!world.is_alive(e));      // the old handle is stale
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entity {
    /// The generation in the high 32 bits (never 0, so neither is the
    /// whole), the index in the low 32: comparing two handles is one
    /// 64-bit comparison, and the index is the low half as it is.
    bits: NonZeroU64,
}

/// Handles sort by index, then generation.
impl Ord for Entity {
    #[inline]
    fn cmp(&self, other: &Entity) -> core::cmp::Ordering {
        (self.index(), self.generation()).cmp(&(other.index(), other.generation()))
    }
}

impl PartialOrd for Entity {
    #[inline]
    fn partial_cmp(&self, other: &Entity) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

static_assertions::assert_eq_size!(Entity, u64);
static_assertions::assert_eq_size!(Option<Entity>, u64);
static_assertions::assert_impl_all!(Entity: Copy, Eq, Ord, core::hash::Hash, Send, Sync, fmt::Debug);

impl Entity {
    /// The index. Indices are reused after despawn, so an index alone
    /// does not identify an entity; use the whole handle for that.
    ///
    /// ```
    /// # use typed_ecs::Entity;
    /// let e = Entity::from_bits(7 | (3 << 32)).unwrap();
    /// assert_eq!(e.index(), 7);
    /// ```
    #[inline]
    pub const fn index(self) -> u32 {
        self.bits.get() as u32
    }

    /// The generation of the index when this handle was made (always ≥ 1).
    ///
    /// ```
    /// # use typed_ecs::Entity;
    /// let e = Entity::from_bits(7 | (3 << 32)).unwrap();
    /// assert_eq!(e.generation(), 3);
    /// ```
    #[inline]
    pub const fn generation(self) -> u32 {
        (self.bits.get() >> 32) as u32
    }

    /// Packs the handle into a `u64`: generation in the high 32 bits, index in
    /// the low 32. The result is never 0 and round-trips through
    /// [`Entity::from_bits`].
    ///
    /// ```
    /// # use typed_ecs::Entity;
    /// let e = Entity::from_bits(0x0000_0002_0000_0005).unwrap();
    /// assert_eq!(e.to_bits(), 0x0000_0002_0000_0005);
    /// assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
    /// ```
    #[inline]
    pub const fn to_bits(self) -> u64 {
        self.bits.get()
    }

    /// Unpacks a handle made by [`Entity::to_bits`]. Returns `None` when the
    /// generation half is 0, which no handle ever has.
    ///
    /// A handle made this way is only as good as the bits: if they did not
    /// come from this world, lookups simply find nothing or another entity.
    ///
    /// ```
    /// # use typed_ecs::Entity;
    /// assert!(Entity::from_bits(5).is_none()); // generation 0
    /// assert_eq!(format!("{:?}", Entity::from_bits(5 | (1 << 32)).unwrap()), "5v1");
    /// ```
    #[inline]
    pub const fn from_bits(bits: u64) -> Option<Entity> {
        if bits >> 32 == 0 {
            return None;
        }
        match NonZeroU64::new(bits) {
            Some(bits) => Some(Entity { bits }),
            None => None,
        }
    }

    #[inline]
    pub(crate) const fn new(index: u32, generation: NonZeroU32) -> Entity {
        let bits = ((generation.get() as u64) << 32) | index as u64;
        match NonZeroU64::new(bits) {
            Some(bits) => Entity { bits },
            // The generation half is not 0.
            None => unreachable!(),
        }
    }

    /// `true` for a handle reserved by [`Commands::spawn`](crate::Commands::spawn)
    /// that has not been turned into a real entity: the world treats it as
    /// not alive. [`ApplyReport::entity`](crate::commands::ApplyReport::entity)
    /// gives the real entity after apply.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    /// struct Pos(f32);
    /// world! { struct Game<Pos>; }
    ///
    /// let mut world = Game::new();
    /// let mut commands = Commands::<Game>::new();
    /// let reserved = commands.spawn();
    /// assert!(reserved.is_reserved());
    /// assert!(format!("{reserved:?}").starts_with("reserved#"));
    /// assert!(!world.spawn().is_reserved());
    /// ```
    #[inline]
    pub const fn is_reserved(self) -> bool {
        self.index() & RESERVED_BIT != 0
    }

    /// The reserved handle carrying the reservation number `number`
    /// (below [`RESERVATION_LIMIT`]): the top index bit set, which no real
    /// entity's index has (see `MAX_SLOTS`), the low 31 bits of `number` in
    /// the rest of the index, and the higher bits, plus one, as the
    /// generation. Distinct numbers make distinct handles.
    ///
    /// # Panics
    ///
    /// If `number` is not below [`RESERVATION_LIMIT`] (the counter that hands
    /// numbers out stops before).
    #[track_caller]
    pub(crate) fn reserved(number: u64) -> Entity {
        assert!(
            number < RESERVATION_LIMIT,
            "reservation number {number} does not fit in an entity handle"
        );
        // Below the limit, `number >> 31` is at most `u32::MAX - 1`.
        let generation = NonZeroU32::MIN.saturating_add((number >> 31) as u32);
        Entity::new(RESERVED_BIT | (number as u32 & !RESERVED_BIT), generation)
    }

    /// For a reserved handle: its reservation number.
    #[inline]
    pub(crate) fn reservation(self) -> Option<u64> {
        self.is_reserved().then(|| {
            (u64::from(self.generation() - 1) << 31) | u64::from(self.index() & !RESERVED_BIT)
        })
    }
}

/// The index bit that marks reserved handles: real indices stay below it.
const RESERVED_BIT: u32 = 1 << 31;

/// Reservation numbers are `0..RESERVATION_LIMIT` (2^63 - 2^31): a reserved
/// handle holds 31 bits of the number in its index and the rest, plus one,
/// in its generation, which stops at `u32::MAX`.
pub(crate) const RESERVATION_LIMIT: u64 = (u32::MAX as u64) << 31;

impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reservation() {
            Some(number) => write!(f, "reserved#{number}"),
            None => write!(f, "{}v{}", self.index(), self.generation()),
        }
    }
}

impl fmt::Display for Entity {
    /// Same as `Debug`: `{index}v{generation}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Which entries of a storage count, as its world sees them: what
/// `in_step` (the one module that compares stamps) hands to the layers
/// below the world instead of a stamp. `All` is its proof that the storage
/// is in step with the world's allocator, so every entity it stores is
/// alive; `Check` says it is not (it was moved, swapped or loaded behind the
/// world's back), so an entry counts only if its entity is alive in
/// `entities`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Alive<'a> {
    /// The storage is in step: every entry counts.
    All,
    /// The storage is not in step: an entry counts if its entity is alive
    /// in this allocator.
    Check(&'a EntityAllocator),
}

impl Alive<'_> {
    /// `true` if an entry of `entity` counts.
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn counts(self, entity: Entity) -> bool {
        match self {
            Alive::All => true,
            Alive::Check(entities) => entities.is_alive(entity),
        }
    }
}

/// Which allocator a storage was last brought in step with, and when. Each
/// allocator takes a new stamp each time it retires entities, and a new one
/// when it is cloned or loaded; no two allocators ever had the same stamp in
/// one program. A storage whose stamp equals its world's allocator's holds
/// only entities that are alive (see [`SparseMap`](crate::SparseMap),
/// "Storages moved between worlds").
///
/// Stamps come in blocks of `2^STAMP_BLOCK_BITS` consecutive numbers, one
/// block per draw from the program-wide counter, so a retirement costs an
/// increment, not an atomic operation.
///
/// "Never in one program" holds on targets with 64-bit atomics. Without
/// them the counter is 32 bits wide (see `unique::next`): after 2^32 blocks
/// (2^32 new, cloned or loaded allocators, or 2^52 retirements) a stamp
/// could come back, and a storage kept aside that long could pass for in
/// step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SyncStamp(u64);

/// log2 of the number of stamps in a block.
const STAMP_BLOCK_BITS: u32 = 20;

impl SyncStamp {
    /// No allocator: what a storage made on its own carries. Never an
    /// allocator's stamp (blocks start at `1 << STAMP_BLOCK_BITS`).
    pub(crate) const NONE: SyncStamp = SyncStamp(0);

    /// The first stamp of a block no allocator has used.
    #[cold]
    fn fresh() -> SyncStamp {
        let block = crate::unique::next();
        assert!(
            block < 1 << (64 - STAMP_BLOCK_BITS),
            "typed_ecs: out of allocator stamps"
        );
        SyncStamp(block << STAMP_BLOCK_BITS)
    }

    /// The stamp after this one: the next in its block, or a fresh block's.
    #[inline]
    fn following(self) -> SyncStamp {
        let next = self.0 + 1;
        if next & ((1 << STAMP_BLOCK_BITS) - 1) == 0 {
            SyncStamp::fresh()
        } else {
            SyncStamp(next)
        }
    }

    /// A first stamp and the one after it, for a new allocator.
    fn pair() -> (SyncStamp, SyncStamp) {
        let first = SyncStamp::fresh();
        (first, first.following())
    }
}

/// Entities at consecutive new indices, each of the first generation: what
/// an allocator with no free index hands out next, in order. A batch spawn
/// makes them together ([`EntityAllocator::alloc_fresh`]) and the storages
/// index them as one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fresh {
    /// The index of the first.
    pub(crate) start: u32,
    /// How many.
    pub(crate) len: u32,
}

impl Fresh {
    /// The generation of every one of them: the first.
    pub(crate) const GENERATION: NonZeroU32 = NonZeroU32::MIN;

    /// The entities, in order.
    #[inline]
    pub(crate) fn iter(self) -> impl ExactSizeIterator<Item = Entity> + Clone {
        (self.start..self.start + self.len).map(|index| Entity::new(index, Self::GENERATION))
    }
}

/// The allocator's record of one index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    /// While alive: the generation of the entity at the index. While free: the
    /// generation the next entity will get. While retired: `u32::MAX`.
    pub(crate) generation: NonZeroU32,
    pub(crate) alive: bool,
}

/// The largest number of indices a world can have: `0..2^31`. Indices
/// with the top bit set are left to reserved handles (see `RESERVED_BIT`).
const MAX_SLOTS: u32 = RESERVED_BIT;

/// Why an allocator could not make an entity: every index up to its limit
/// is alive or retired. [`SpawnError`](crate::SpawnError) carries it to the
/// user, with the components that were not spawned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OutOfIndices {
    /// The allocator's entity limit.
    pub(crate) limit: u32,
    /// How many indices are retired for good.
    pub(crate) retired: u32,
}

impl fmt::Display for OutOfIndices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot spawn: the world is out of entity indices (all {} are alive or retired, {} retired); \
             despawn entities you no longer need, or raise the limit with `set_entity_limit`",
            self.limit, self.retired
        )
    }
}

/// Hands out [`Entity`] handles and tracks which are alive.
///
/// Despawning an entity bumps its index's generation and puts the index on a
/// free list, so the next spawn reuses the index under a new generation. A
/// index whose generation would wrap past `u32::MAX` is *retired*: it is never
/// handed out again, so an old handle can never become valid by accident.
/// Running out of indices is an error ([`SpawnError`](crate::SpawnError)),
/// never a silent wrap.
///
/// Every world generated by [`world!`](macro@crate::world) holds one in its
/// `entities` field. From outside this crate it is read-only: entities are
/// made and retired through the world, which keeps its storages in step.
///
/// Each allocator has an identity of its own, unique in the program: a clone
/// or a loaded allocator gets a new one. The world's storages remember the
/// identity (and the number of despawns) they were last brought in step
/// with, so a storage from elsewhere is noticed and cleaned before use (see
/// [`SparseMap`](crate::SparseMap), "Storages moved between worlds").
/// Assigning another allocator to a world's `entities` field is therefore
/// safe, but it makes every storage foreign to it: each keeps only the
/// entries whose entity the new allocator says is alive. (Assigning an
/// older clone revives the entities despawned since; they come back with
/// no components.)
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32);
/// world! { struct Game<Pos>; }
///
/// let mut world = Game::new();
/// let a = world.spawn();
/// let b = world.spawn_with((Pos(1.0),));
/// world.despawn(a);
/// // Read the allocator while a storage is borrowed mutably.
/// let pos = &mut world.pos;
/// assert!(world.entities.is_alive(b) && !world.entities.is_alive(a));
/// assert_eq!(world.entities.len(), pos.len());
/// ```
pub struct EntityAllocator {
    /// What the storages in step with this allocator carry: renewed each
    /// time entities are retired (`free`, a batch of `free_keeping_stamp`,
    /// `clear`), so a storage stamped earlier may hold entities retired
    /// since.
    /// Program-unique.
    stamp: SyncStamp,
    /// The stamp the next retirement installs, known ahead so that a world
    /// can stamp its storages with it while it detaches an entity.
    next_stamp: SyncStamp,
    slots: Vec<Slot>,
    /// The free (not alive, not retired) indices, reused last-in first-out.
    free: Vec<u32>,
    /// Number of alive entities.
    alive: u32,
    /// Number of indices retired because their generation ran out.
    retired: u32,
    /// Slots may not be created at or past this index (`MAX_SLOTS` normally;
    /// lowered in tests to exercise exhaustion).
    slot_limit: u32,
}

/// A clone is a new allocator, with an identity of its own: storages in step
/// with the original are not in step with the clone until the clone's world
/// has checked them.
impl Clone for EntityAllocator {
    fn clone(&self) -> Self {
        let (stamp, next_stamp) = SyncStamp::pair();
        EntityAllocator {
            stamp,
            next_stamp,
            slots: self.slots.clone(),
            free: self.free.clone(),
            alive: self.alive,
            retired: self.retired,
            slot_limit: self.slot_limit,
        }
    }
}

impl EntityAllocator {
    /// An allocator with no entities.
    pub(crate) fn new() -> Self {
        let (stamp, next_stamp) = SyncStamp::pair();
        EntityAllocator {
            stamp,
            next_stamp,
            slots: Vec::new(),
            free: Vec::new(),
            alive: 0,
            retired: 0,
            slot_limit: MAX_SLOTS,
        }
    }

    /// What a storage in step with this allocator is stamped with.
    #[inline]
    pub(crate) fn stamp(&self) -> SyncStamp {
        self.stamp
    }

    /// The stamp this allocator will have after the next retirement (one
    /// [`free_alive`](Self::free_alive), one batch of
    /// [`free_keeping_stamp`](Self::free_keeping_stamp), or one
    /// [`clear`](Self::clear)):
    /// a world stamps its storages with it while it detaches the entities
    /// it is about to retire.
    #[inline]
    pub(crate) fn next_stamp(&self) -> SyncStamp {
        self.next_stamp
    }

    /// Installs the next stamp: entities are being (or were just) retired.
    #[inline]
    pub(crate) fn renew_stamp(&mut self) {
        self.stamp = self.next_stamp;
        self.next_stamp = self.next_stamp.following();
    }

    /// Makes room for `additional` more entities beyond the free indices.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.slots
            .reserve(additional.saturating_sub(self.free.len()));
    }

    /// Like [`reserve`](Self::reserve), for a guess: room for at most as
    /// many entities as can still be made, and none if the memory is not
    /// there (a batch then grows as it goes, and fails only if a real
    /// entity does not fit).
    pub(crate) fn reserve_guess(&mut self, additional: usize) {
        let new = additional
            .min(self.spawnable())
            .saturating_sub(self.free.len());
        let _ = self.slots.try_reserve(new);
    }

    /// How many more entities can be made: the free indices and the new
    /// ones below the limit.
    #[inline]
    pub(crate) fn spawnable(&self) -> usize {
        self.free.len() + self.fresh_room() as usize
    }

    /// Number of alive entities.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// world.spawn();
    /// assert_eq!(world.entities.len(), 1);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.alive as usize
    }

    /// `true` when no entity is alive.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// assert!(Game::new().entities.is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.alive == 0
    }

    /// `true` if `entity` is alive: its index holds an entity of the same
    /// generation. Stale handles and handles from bits that never came from
    /// this allocator are not alive.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// assert!(world.entities.is_alive(e));
    /// world.despawn(e);
    /// assert!(!world.entities.is_alive(e));
    /// ```
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        match self.slots.get(entity.index() as usize) {
            Some(slot) => slot.alive && slot.generation.get() == entity.generation(),
            None => false,
        }
    }

    /// Makes a new entity, reusing a free index when there is one.
    ///
    /// # Panics
    ///
    /// When every index up to the limit is in use or retired.
    #[cfg(test)]
    #[track_caller]
    pub(crate) fn alloc(&mut self) -> Entity {
        match self.try_alloc() {
            Ok(entity) => entity,
            Err(error) => panic!("{error}"),
        }
    }

    /// Makes a new entity, or returns an error when every index is in use or
    /// retired.
    #[inline]
    pub(crate) fn try_alloc(&mut self) -> Result<Entity, OutOfIndices> {
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            debug_assert!(!slot.alive);
            slot.alive = true;
            self.alive += 1;
            return Ok(Entity::new(index, slot.generation));
        }
        self.alloc_new_slot()
    }

    /// Makes a new entity at a new index (the usual way while a world grows).
    #[inline]
    fn alloc_new_slot(&mut self) -> Result<Entity, OutOfIndices> {
        let index = self.slots.len();
        if index >= self.slot_limit as usize {
            return Err(self.out_of_indices());
        }
        let slot = Slot {
            generation: NonZeroU32::MIN,
            alive: true,
        };
        self.slots.push(slot);
        self.alive += 1;
        Ok(Entity::new(index as u32, slot.generation))
    }

    #[cold]
    pub(crate) fn out_of_indices(&self) -> OutOfIndices {
        OutOfIndices {
            limit: self.slot_limit,
            retired: self.retired,
        }
    }

    /// Retires `entity`: bumps its index's generation so every handle to it
    /// goes stale, and makes the index reusable. Returns `false`, changing
    /// nothing, when `entity` was not alive.
    ///
    /// An index whose generation is already `u32::MAX` is retired for good
    /// instead of being reused.
    ///
    #[cfg(test)]
    pub(crate) fn free(&mut self, entity: Entity) -> bool {
        if !self.is_alive(entity) {
            return false;
        }
        self.free_alive(entity);
        true
    }

    /// Retires `entity`, which the caller checked is alive: bumps its
    /// index's generation so every handle to it goes stale, makes the index
    /// reusable (or retires it for good at generation `u32::MAX`), and
    /// renews the stamp.
    #[inline]
    pub(crate) fn free_alive(&mut self, entity: Entity) {
        debug_assert!(self.is_alive(entity));
        self.renew_stamp();
        self.retire(entity);
    }

    /// Number of free indices: the next spawns reuse them.
    #[inline]
    pub(crate) fn free_count(&self) -> usize {
        self.free.len()
    }

    /// How many entities a [`Fresh`] run may hold: the new indices below
    /// the limit.
    #[inline]
    pub(crate) fn fresh_room(&self) -> u32 {
        self.slot_limit.saturating_sub(self.slots.len() as u32)
    }

    /// Makes the next `len` entities at new indices alive, together. The
    /// caller checked that no index is free and, with
    /// [`fresh_room`](Self::fresh_room), that they fit.
    pub(crate) fn alloc_fresh(&mut self, len: u32) -> Fresh {
        let start = self.slots.len() as u32;
        debug_assert!(self.free.is_empty());
        debug_assert!(u64::from(start) + u64::from(len) <= u64::from(self.slot_limit));
        let slot = Slot {
            generation: NonZeroU32::MIN,
            alive: true,
        };
        self.slots.resize(self.slots.len() + len as usize, slot);
        self.alive += len;
        Fresh { start, len }
    }

    /// Retires `entity`, which the caller checked is alive, like
    /// [`free_alive`](Self::free_alive) but leaving the stamp as it is: for a batch of
    /// despawns, after which the world renews it once
    /// ([`renew_stamp`](Self::renew_stamp)), before any storage away from
    /// the world can come back.
    #[inline]
    pub(crate) fn free_keeping_stamp(&mut self, entity: Entity) {
        debug_assert!(self.is_alive(entity));
        self.retire(entity);
    }

    /// Marks `entity`, which is alive, dead, and recycles or retires its index.
    #[inline]
    fn retire(&mut self, entity: Entity) {
        let slot = &mut self.slots[entity.index() as usize];
        slot.alive = false;
        self.alive -= 1;
        match slot.generation.checked_add(1) {
            Some(next) => {
                slot.generation = next;
                self.free.push(entity.index());
            }
            None => self.retired += 1,
        }
    }

    /// Frees every alive entity (each handle goes stale). Slots are kept for
    /// reuse. One retirement: the stamp becomes
    /// [`next_stamp`](Self::next_stamp).
    pub(crate) fn clear(&mut self) {
        self.renew_stamp();
        for index in 0..self.slots.len() as u32 {
            let slot = self.slots[index as usize];
            if slot.alive {
                self.retire(Entity::new(index, slot.generation));
            }
        }
    }

    /// Iterates over the alive entities, in index order.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let a = world.spawn();
    /// let b = world.spawn();
    /// world.despawn(a);
    /// assert_eq!(world.entities.iter().collect::<Vec<_>>(), [b]);
    /// ```
    pub fn iter(&self) -> EntityIter<'_> {
        EntityIter {
            slots: self.slots.iter().enumerate(),
            remaining: self.alive as usize,
        }
    }

    /// The records and the free list, for saving.
    #[cfg(feature = "serde")]
    pub(crate) fn parts(&self) -> (&[Slot], &[u32]) {
        (&self.slots, &self.free)
    }

    /// Rebuilds an allocator from saved parts, or says which of the
    /// allocator's invariants (see [`check`](Self::check)) they break.
    #[cfg(feature = "serde")]
    pub(crate) fn from_parts(
        slots: Vec<Slot>,
        free: Vec<u32>,
        limit: u32,
    ) -> Result<Self, alloc::string::String> {
        if limit > MAX_SLOTS {
            return Err(alloc::format!(
                "an entity limit of {limit}, more than the {MAX_SLOTS} a world can have"
            ));
        }
        if slots.len() > MAX_SLOTS as usize {
            return Err(alloc::format!(
                "{} slots, more than the {MAX_SLOTS} a world can have",
                slots.len()
            ));
        }
        // The counts are derived; `check` then says whether they fit.
        let alive = slots.iter().filter(|slot| slot.alive).count() as u32;
        let dead = slots.len() as u32 - alive;
        let (stamp, next_stamp) = SyncStamp::pair();
        let allocator = EntityAllocator {
            stamp,
            next_stamp,
            retired: dead.saturating_sub(free.len() as u32),
            slots,
            free,
            alive,
            slot_limit: limit,
        };
        allocator.check()?;
        Ok(allocator)
    }

    /// Number of indices ever used (alive, free or retired).
    #[cfg(test)]
    pub(crate) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    #[cfg(any(test, feature = "testing", feature = "serde"))]
    /// `true` if this allocator has handed out `entity` at some time: its
    /// index exists and has reached the handle's generation (for a free index,
    /// whose generation is the next one to hand out, passed it).
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(crate) fn issued(&self, entity: Entity) -> bool {
        match self.slots.get(entity.index() as usize) {
            None => false,
            Some(slot) if slot.alive || slot.generation == NonZeroU32::MAX => {
                entity.generation() <= slot.generation.get()
            }
            Some(slot) => entity.generation() < slot.generation.get(),
        }
    }

    /// Checks the allocator's invariants, which every path that changes it
    /// keeps (and loading checks), and says which one is broken:
    ///
    /// 1. at most 2^31 indices;
    /// 2. the alive count is the number of alive indices;
    /// 3. the free list names existing dead indices, each once;
    /// 4. every dead index has been used (generation ≥ 2), and one that is
    ///    not free is retired: its generation is `u32::MAX`, and the retired
    ///    count is their number.
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(crate) fn check(&self) -> Result<(), alloc::string::String> {
        use alloc::format;
        if self.slots.len() > MAX_SLOTS as usize {
            return Err(format!("{} slots, more than {MAX_SLOTS}", self.slots.len()));
        }
        let alive = self.slots.iter().filter(|slot| slot.alive).count();
        if alive != self.alive as usize {
            return Err(format!(
                "the alive count is {} but {alive} slots are alive",
                self.alive
            ));
        }
        let mut listed = alloc::vec![false; self.slots.len()];
        for &index in &self.free {
            match self.slots.get(index as usize) {
                None => {
                    return Err(format!(
                        "the free list names slot {index}, which does not exist"
                    ))
                }
                Some(slot) if slot.alive => {
                    return Err(format!("the free list names slot {index}, which is alive"))
                }
                Some(_) if listed[index as usize] => {
                    return Err(format!("the free list names slot {index} twice"))
                }
                Some(_) => listed[index as usize] = true,
            }
        }
        let mut retired = 0u32;
        for (index, slot) in self.slots.iter().enumerate() {
            if slot.alive {
                continue;
            }
            if slot.generation.get() < 2 {
                return Err(format!(
                    "dead slot {index} has generation 1, so it was never used"
                ));
            }
            if !listed[index] {
                if slot.generation != NonZeroU32::MAX {
                    return Err(format!("dead slot {index} is neither free nor retired"));
                }
                retired += 1;
            }
        }
        if retired != self.retired {
            return Err(format!(
                "the retired count is {} but {retired} slots are retired",
                self.retired
            ));
        }
        Ok(())
    }

    /// Checks the allocator's invariants and panics with a description of
    /// the first violation. Test support (feature `testing`).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// Game::new().entities.assert_invariants();
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    #[cfg(any(test, feature = "testing"))]
    pub fn assert_invariants(&self) {
        if let Err(problem) = self.check() {
            panic!("allocator: {problem}");
        }
    }

    /// The number of entity indices this allocator may use: at most this
    /// many entities are alive at once. See [`World::set_entity_limit`](crate::World::set_entity_limit).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let world = Game::new();
    /// assert_eq!(world.entities.limit(), 1 << 31);
    /// ```
    #[inline]
    pub fn limit(&self) -> u32 {
        self.slot_limit
    }

    /// Sets [`limit`](Self::limit), at most 2^31. Indices already in use
    /// stay valid; new ones are not made at or past the limit.
    pub(crate) fn set_limit(&mut self, limit: u32) {
        self.slot_limit = limit.min(MAX_SLOTS);
    }

    /// Moves the generation of every free index forward to at least
    /// `generation`, so tests can reach generation wraparound without
    /// recycling an index 4 billion times. Safe: handles to free indices are
    /// stale, and generations only grow, so none can become valid. Test
    /// support (feature `testing`), not for games.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// world.despawn(e);
    /// world.entities.fast_forward_free_generations(u32::MAX);
    /// assert_eq!(world.spawn().generation(), u32::MAX);
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    #[cfg(feature = "testing")]
    pub fn fast_forward_free_generations(&mut self, generation: u32) {
        if let Some(generation) = NonZeroU32::new(generation) {
            for &index in &self.free {
                let slot = &mut self.slots[index as usize];
                slot.generation = slot.generation.max(generation);
            }
        }
    }
}

/// Prints the records, the free list and the counts; not the identity,
/// which two allocators with the same entities (a world and its clone) do
/// not share.
impl fmt::Debug for EntityAllocator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EntityAllocator")
            .field("slots", &self.slots)
            .field("free", &self.free)
            .field("alive", &self.alive)
            .field("retired", &self.retired)
            .field("slot_limit", &self.slot_limit)
            .finish()
    }
}

/// Iterator over the alive entities of an [`EntityAllocator`], made by
/// [`EntityAllocator::iter`].
///
/// ```
/// # use typed_ecs::prelude::*;
/// # struct Pos(f32);
/// # world! { struct Game<Pos>; }
/// let mut world = Game::new();
/// world.spawn();
/// let iter: typed_ecs::EntityIter<'_> = world.entities.iter();
/// assert_eq!(iter.len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct EntityIter<'a> {
    slots: core::iter::Enumerate<core::slice::Iter<'a, Slot>>,
    remaining: usize,
}

impl Iterator for EntityIter<'_> {
    type Item = Entity;

    fn next(&mut self) -> Option<Entity> {
        for (index, slot) in self.slots.by_ref() {
            if slot.alive {
                self.remaining -= 1;
                return Some(Entity::new(index as u32, slot.generation));
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for EntityIter<'_> {}
impl core::iter::FusedIterator for EntityIter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::string::ToString;
    use std::{format, vec::Vec};

    fn generation(g: u32) -> NonZeroU32 {
        NonZeroU32::new(g).unwrap()
    }

    #[test]
    fn stamps_are_unique_across_blocks_clones_and_retirements() {
        // Across the end of a block: the next stamp opens a fresh block.
        let mut seen = HashSet::new();
        let mut stamp = SyncStamp((3 << STAMP_BLOCK_BITS) - 5);
        for _ in 0..10 {
            assert!(seen.insert(stamp), "{stamp:?} twice");
            assert_ne!(stamp, SyncStamp::NONE);
            stamp = stamp.following();
        }
        assert!(seen.iter().any(|s| s.0 >> STAMP_BLOCK_BITS != 2));
        let mut entities = EntityAllocator::new();
        let e = entities.alloc();
        let before = entities.stamp();
        let next = entities.next_stamp();
        assert!(entities.free(e));
        assert_eq!(entities.stamp(), next);
        assert_ne!(entities.stamp(), before);
        let copy = entities.clone();
        assert!(copy.stamp() != entities.stamp() && copy.next_stamp() != entities.next_stamp());
        assert!(!entities.free(e), "a dead handle changes nothing");
        assert_eq!(entities.stamp(), next);
    }

    #[test]
    fn bits_round_trip_and_debug() {
        let e = Entity::new(3, generation(2));
        assert_eq!(format!("{e:?}"), "3v2");
        assert_eq!(format!("{e}"), "3v2");
        assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
        assert_eq!(e.to_bits(), (2 << 32) | 3);
        assert_eq!(Entity::from_bits(3), None);
        let max = Entity::new(u32::MAX, generation(u32::MAX));
        assert_eq!(Entity::from_bits(max.to_bits()), Some(max));
    }

    /// Reservation numbers round-trip through handles at every boundary of
    /// the encoding, and numbers 2^31 or 2^32 apart (the same index bits)
    /// make different handles.
    #[test]
    fn reservation_numbers_round_trip_and_never_collide() {
        let mut numbers = std::vec![0, 1, 255, 256];
        for base in [1u64 << 31, 1 << 32, 1 << 33, 1 << 62, RESERVATION_LIMIT] {
            numbers.extend([base - 2, base - 1]);
            if base < RESERVATION_LIMIT {
                numbers.extend([base, base + 1]);
            }
        }
        numbers.push(0x1234_5678_9abc_def0 % RESERVATION_LIMIT);
        let mut seen = HashSet::new();
        for &number in &numbers {
            let handle = Entity::reserved(number);
            assert!(handle.is_reserved(), "{number}");
            assert_eq!(handle.reservation(), Some(number));
            assert_eq!(Entity::from_bits(handle.to_bits()), Some(handle));
            assert_eq!(format!("{handle:?}"), format!("reserved#{number}"));
            assert!(seen.insert(handle), "{number} collides");
            for apart in [1u64 << 31, 1 << 32] {
                if let Some(other) = number.checked_add(apart).filter(|&n| n < RESERVATION_LIMIT) {
                    assert_eq!(Entity::reserved(other).index(), handle.index());
                    assert_ne!(Entity::reserved(other), handle, "{number} + {apart}");
                }
            }
        }
        assert_eq!(
            Entity::reserved(RESERVATION_LIMIT - 1).generation(),
            u32::MAX
        );
        // Real handles are not reservations.
        assert_eq!(Entity::new(5, generation(3)).reservation(), None);
        let highest_real = Entity::new(RESERVED_BIT - 1, generation(u32::MAX));
        assert!(!highest_real.is_reserved());
        // Every handle with the reserved bit decodes to a number in range.
        let any = Entity::new(u32::MAX, generation(u32::MAX));
        assert_eq!(any.reservation(), Some(RESERVATION_LIMIT - 1));
    }

    #[test]
    #[should_panic(expected = "does not fit in an entity handle")]
    fn a_reservation_number_past_the_limit_panics() {
        Entity::reserved(RESERVATION_LIMIT);
    }

    #[test]
    fn ordering_is_by_index_then_generation() {
        let a = Entity::new(1, generation(5));
        let b = Entity::new(2, generation(1));
        let c = Entity::new(2, generation(2));
        assert!(a < b && b < c);
    }

    #[test]
    fn despawn_bumps_generation_and_recycles_index() {
        let mut entities = EntityAllocator::new();
        let a = entities.alloc();
        let b = entities.alloc();
        assert!(entities.free(a));
        let c = entities.alloc();
        assert_eq!(c.index(), a.index());
        assert_eq!(c.generation(), a.generation() + 1);
        assert!(!entities.is_alive(a));
        assert!(entities.is_alive(b) && entities.is_alive(c));
        assert_eq!(entities.slot_count(), 2);
        assert_eq!(entities.len(), 2);
    }

    #[test]
    fn free_of_dead_or_foreign_handle_changes_nothing() {
        let mut entities = EntityAllocator::new();
        let a = entities.alloc();
        assert!(!entities.free(Entity::new(a.index(), generation(9))));
        assert!(!entities.free(Entity::new(40, generation(1))));
        assert!(entities.is_alive(a));
        assert_eq!(entities.len(), 1);
    }

    #[test]
    fn slot_whose_generation_would_wrap_is_retired() {
        let mut entities = EntityAllocator::new();
        let a = entities.alloc();
        // Pretend the index has been recycled almost 2^32 times.
        entities.slots[0].generation = generation(u32::MAX - 1);
        let a = Entity::new(a.index(), generation(u32::MAX - 1));
        assert!(entities.free(a));
        let last = entities.alloc();
        assert_eq!(last, Entity::new(0, generation(u32::MAX)));
        assert!(entities.free(last));
        assert_eq!(entities.retired, 1);
        // The retired index is never handed out again.
        let next = entities.alloc();
        assert_eq!(next.index(), 1);
        assert!(!entities.is_alive(last) && !entities.is_alive(a));
        assert_eq!(entities.iter().collect::<Vec<_>>(), [next]);
    }

    #[test]
    fn running_out_of_indices_is_an_error_not_a_wrap() {
        let mut entities = EntityAllocator::new();
        entities.slot_limit = 2;
        let a = entities.alloc();
        let _b = entities.alloc();
        let error = entities.try_alloc().unwrap_err();
        assert!(
            error.to_string().contains("out of entity indices"),
            "{error}"
        );
        entities.free(a);
        // A freed index can still be reused.
        assert_eq!(entities.try_alloc().unwrap().index(), a.index());
    }

    #[test]
    #[should_panic(expected = "out of entity indices")]
    fn alloc_panics_when_out_of_indices() {
        let mut entities = EntityAllocator::new();
        entities.slot_limit = 0;
        entities.alloc();
    }

    #[test]
    fn clear_stales_every_handle() {
        let mut entities = EntityAllocator::new();
        let handles: Vec<_> = (0..10).map(|_| entities.alloc()).collect();
        entities.clear();
        assert!(entities.is_empty());
        assert!(handles.iter().all(|&e| !entities.is_alive(e)));
        let fresh: HashSet<_> = (0..10).map(|_| entities.alloc()).collect();
        assert!(handles.iter().all(|e| !fresh.contains(e)));
        assert_eq!(entities.slot_count(), 10);
    }

    /// A seeded random run of alloc/free against a simple model: the set of
    /// live handles, and every handle ever freed.
    #[test]
    fn random_alloc_free_matches_model() {
        let mut rng = crate::test_rng::Rng::new(0x5eed_0001);
        let mut entities = EntityAllocator::new();
        let mut live: Vec<Entity> = Vec::new();
        let mut dead: HashSet<Entity> = HashSet::new();
        for _ in 0..20_000 {
            if live.is_empty() || rng.index(3) > 0 {
                let e = entities.alloc();
                assert!(!dead.contains(&e), "{e:?} was handed out twice");
                assert!(!live.contains(&e));
                live.push(e);
            } else {
                let e = live.swap_remove(rng.index(live.len()));
                assert!(entities.free(e));
                dead.insert(e);
            }
            assert_eq!(entities.len(), live.len());
        }
        for &e in &live {
            assert!(entities.is_alive(e));
        }
        for &e in &dead {
            assert!(!entities.is_alive(e));
        }
        let mut iterated: Vec<_> = entities.iter().collect();
        iterated.sort();
        live.sort();
        assert_eq!(iterated, live);
    }
}
