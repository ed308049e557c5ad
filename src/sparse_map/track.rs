//! What a storage records of its changes when its world lists the
//! component in `tracked (…);`: the storage's own record, kept as the
//! storage changes. Who looks at it, and how, is
//! [`change`](crate::change)'s.
//!
//! A storage's second type parameter says whether it tracks: [`Untracked`]
//! (the default) records nothing, is zero-sized, and every hook below is an
//! empty inline function, so an untracked storage compiles to exactly the
//! code it would without tracking. [`Tracked`] keeps a change log.
//!
//! # The change log
//!
//! Each tracked storage has its own clock, `now`, a stamp (a `u64`, so it
//! never wraps in practice) that every change made now is recorded under.
//! A change is any hand-out of `&mut` to a value (`get_mut`, a query's
//! `&mut C`, `values_mut`, …; whether or not the value was then written),
//! a replacement (`insert`), and an add. The log records:
//!
//! * an append-only list of `(entity, stamp)` entries, in stamp order, with
//!   at most one *live* entry per stored entity: when an entity changes
//!   again under a newer stamp, its old entry becomes a tombstone and a new
//!   one is appended; a removal tombstones it too. The entries under
//!   stamps every observer has passed (the world's view, and each
//!   registered [`Seen`](crate::system::Seen), and the world's `on_change`
//!   hooks) are dropped from the front, so a log whose observers look
//!   every frame holds a frame or two of changes, not an entry per stored
//!   value; where the windows span more (an observer lags, or values
//!   change in many stamps a frame), tombstones are dropped when they
//!   outnumber the live entries two to one (amortised O(1) per change
//!   either way; see [`ROOM_PER_VALUE`]);
//! * per dense slot: the stamp of the value's latest change (or its add)
//!   and the number of its entry, which is still in the list unless every
//!   observer had passed it, and the stamp it was added under with the
//!   index of its *birth*;
//! * the births: a second list built the same way, of `(entity, stamp)`
//!   entries in stamp order, one appended by each add and tombstoned by
//!   the value's removal (never by a change), so an `Added` filter's
//!   candidates are the values added since its window's start: O(added),
//!   not O(changed). Tombstones are dropped as in the first list;
//! * `all`: a stamp under which *every* value then stored changed at once
//!   (`values_mut`, a whole-storage walk), so that handing out a whole
//!   storage costs O(1) instead of one entry per value;
//! * beside each entry and for `all`, the stamp of the change before it
//!   (`prev`), so that an observer looking now, whose window ends before
//!   the current stamp, still finds a value changed earlier in its window
//!   and again under the current stamp (a value's entry under the current
//!   stamp is always kept);
//! * the entities removed, with the stamp of each removal, in a log
//!   (`log.rs`) that keeps each removal until every observer has passed it.
//!
//! An observer looks at a window of stamps `[since, until)`. The entities
//! changed in it are the live entries from the first stamp `>= since` on
//! (found by binary search), or, if `all` is in the window, every stored
//! entity: either way O(changed), never a scan of the storage. (A window
//! that starts before the entries kept, an observer's first look, takes
//! every stored entity as a candidate, and checks each one's stamps.) The
//! entities added in it are the live births from the first stamp `>=
//! since` on: O(added).
//!
//! Stamps mean something only within one log: the log has an identity (see
//! `log.rs`), new for a new or cloned storage and for a loaded one, and an
//! observer whose window belongs to another identity sees the storage as
//! wholly new.

#[cfg(any(test, feature = "testing", feature = "serde"))]
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::num::NonZeroU32;

use crate::log::Log;
use crate::Entity;

/// What the change log writes over a dead entry: a reserved handle, which
/// no storage ever holds, so it never matches a stored entity.
const TOMBSTONE: Entity = Entity::new(u32::MAX, NonZeroU32::MAX);

/// The hooks a storage calls as it changes. Crate-private: a
/// [`Track`] can be named from outside, but none of this
/// can be called or implemented there.
pub(crate) trait Hooks: Sized {
    /// The record of an empty storage.
    const NEW: Self;
    /// A value was appended to the dense arrays for `entity`.
    fn pushed(&mut self, entity: Entity);
    /// The value in `slot` was handed out mutably or replaced.
    fn changed(&mut self, slot: usize, entity: Entity);
    /// Every value was handed out mutably.
    fn changed_all(&mut self);
    /// The value of `entity` was swap-removed from `slot`.
    fn removed(&mut self, slot: usize, entity: Entity);
    /// Slots `a` and `b` swapped their contents.
    fn swapped(&mut self, a: usize, b: usize);
    /// Every value was taken out; `entities` are the ones that were
    /// stored.
    fn removed_all(&mut self, entities: &[Entity]);
    /// Checks the log against the storage's entities.
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    fn check(&self, dense: &[Entity]) -> Result<(), String>;
    /// Starts a new stamp (see [`ChangeLog::tick`](super::ChangeLog)).
    fn tick(&mut self);
    /// Starts the world's view afresh (see `World::clear_changes`).
    fn clear(&mut self);
    /// A load starts clean: nothing changed in the world's view.
    #[cfg(feature = "serde")]
    fn loaded(&mut self) {
        self.clear();
    }
    /// A schedule's run starts (see `world::changes::run_started`).
    fn run_started(&mut self);
    /// The change record, if the storage keeps one.
    fn tracked_mut(&mut self) -> Option<&mut Tracked>;
}

/// Whether a [`SparseMap`](crate::SparseMap) records changes: [`Untracked`]
/// (the default) or [`Tracked`]. `world!` picks it for each storage from its
/// `tracked (…);` line. Sealed.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{SparseMap, Tracked};
///
/// struct Pos(f32);
/// struct Name(&'static str);
/// world! {
///     struct Game<Pos, Name>;
///     tracked (Pos);
/// }
///
/// let world = Game::new();
/// let _: &SparseMap<Pos, Tracked> = &world.pos;
/// let _: &SparseMap<Name> = &world.name; // untracked: exactly as before
/// ```
pub trait Track: Default + Clone + fmt::Debug + Send + Sync + 'static + Hooks {}

/// A storage that records no change: no stamp, no flag, no branch. The
/// default for every component a world does not list in `tracked (…);`.
///
/// ```
/// use typed_ecs::{SparseMap, Untracked};
///
/// let map: SparseMap<f32, Untracked> = SparseMap::new();
/// assert_eq!(core::mem::size_of::<Untracked>(), 0);
/// # let _ = map;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Untracked;

impl Track for Untracked {}

impl Hooks for Untracked {
    const NEW: Self = Untracked;
    #[inline(always)]
    fn pushed(&mut self, _: Entity) {}
    #[inline(always)]
    fn changed(&mut self, _: usize, _: Entity) {}
    #[inline(always)]
    fn changed_all(&mut self) {}
    #[inline(always)]
    fn removed(&mut self, _: usize, _: Entity) {}
    #[inline(always)]
    fn swapped(&mut self, _: usize, _: usize) {}
    #[inline(always)]
    fn removed_all(&mut self, _: &[Entity]) {}
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    fn check(&self, _: &[Entity]) -> Result<(), String> {
        Ok(())
    }
    #[inline(always)]
    fn tick(&mut self) {}
    #[inline(always)]
    fn clear(&mut self) {}
    #[inline(always)]
    fn run_started(&mut self) {}
    #[inline(always)]
    fn tracked_mut(&mut self) -> Option<&mut Tracked> {
        None
    }
}

/// A storage that records every change, add and removal of its values, for
/// the [`Changed`](crate::query::Changed) and [`Added`](crate::query::Added)
/// query terms, [`World::removed`](crate::World::removed) and a system's
/// [`Seen`](crate::system::Seen). `world!` gives it to the components listed
/// in `tracked (…);`: a log of which values changed under which stamp,
/// read by those observers.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::Changed;
///
/// struct Pos(f32);
/// world! {
///     struct Game<Pos>;
///     tracked (Pos);
/// }
///
/// let mut world = Game::new();
/// let a = world.spawn_with((Pos(0.0),));
/// let b = world.spawn_with((Pos(0.0),));
/// world.clear_changes();
///
/// world.pos.get_mut(b).unwrap().0 = 1.0;
/// let changed: Vec<Entity> = world.query::<Changed<&Pos>>().map(|(e, _)| e).collect();
/// assert_eq!(changed, [b]);
/// # let _ = a;
/// ```
#[derive(Clone, Debug)]
pub struct Tracked {
    pub(crate) log: ChangeLog,
    /// The candidates of a query that reads the log while it writes the
    /// values (`Changed<&mut C>`), copied here first: the writes append to
    /// the log, so they cannot walk it.
    pub(crate) scratch: Vec<Entity>,
}

impl Track for Tracked {}

impl Hooks for Tracked {
    const NEW: Self = Tracked {
        log: ChangeLog::NEW,
        scratch: Vec::new(),
    };
    #[inline]
    fn pushed(&mut self, entity: Entity) {
        self.log.pushed(entity);
    }
    /// Inlined into every `get_mut` and `insert` on a tracked storage, as
    /// the log's own mark is into walks: left to LLVM, a loop of
    /// `get_mut` by handle called it, and the call and the log's fields
    /// reloaded behind it cost 14 of its 96 instructions a write
    /// (`get_mut_tracked`, `BENCHMARKS.md`).
    #[inline(always)]
    fn changed(&mut self, slot: usize, entity: Entity) {
        self.log.changed(slot, entity);
    }
    #[inline]
    fn changed_all(&mut self) {
        self.log.changed_all();
    }
    #[inline]
    fn removed(&mut self, slot: usize, entity: Entity) {
        self.log.removed(slot, entity);
    }
    #[inline]
    fn swapped(&mut self, a: usize, b: usize) {
        self.log.swapped(a, b);
    }
    fn removed_all(&mut self, entities: &[Entity]) {
        self.log.removed_all(entities);
    }
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    fn check(&self, dense: &[Entity]) -> Result<(), String> {
        self.log.check(dense)
    }
    fn tick(&mut self) {
        self.log.tick();
    }
    fn clear(&mut self) {
        self.log.clear();
    }
    fn run_started(&mut self) {
        self.log.run_started();
    }
    #[inline(always)]
    fn tracked_mut(&mut self) -> Option<&mut Tracked> {
        Some(self)
    }
}

/// A window of stamps an observer looks at: `since <= stamp < until`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) since: u64,
    pub(crate) until: u64,
}

impl Window {
    #[inline]
    pub(crate) fn contains(self, stamp: u64) -> bool {
        self.since <= stamp && stamp < self.until
    }
}

/// What a change filter (`Changed`, `Added`) passes: the values whose
/// latest change (or add, if `added`) is in `window`. `from` is where its
/// candidates start in the log (the births, if `added`), `None` if every
/// stored entity is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Filter {
    window: Window,
    added: bool,
    from: Option<usize>,
}

impl Filter {
    /// Whether it is an `Added` filter (its candidates are the births).
    #[inline(always)]
    pub(crate) fn added(&self) -> bool {
        self.added
    }
}

/// The log's stamps and slots from a filter's first candidate on (see
/// [`ChangeLog::tail`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tail<'a> {
    entries: &'a [Entry],
}

/// A log entry's stamp, the stamp of its value's change before it (0 if
/// none; births keep 0), and the dense slot of its value, side by side: a
/// change appends them with one store, and a walk reads them together.
/// The change before is read only for a value changed under the current
/// stamp (see [`ChangeLog::passes`]), whose entry is always kept: it lives
/// here, in log order, not in the slot's record, which a write by handle
/// reaches at a random place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    stamp: u64,
    prev: u64,
    slot: u32,
}

/// The record of a tracked storage. See the [module docs](self).
#[derive(Clone, Debug)]
pub(crate) struct ChangeLog {
    /// The stamp changes made now are recorded under.
    now: u64,
    /// The world's own view: changes under stamps `>= seen`.
    seen: u64,
    /// Every value stored at the time changed under this stamp (0: never),
    /// and under `all_prev` before that.
    all: u64,
    all_prev: u64,
    /// The entries: an entity (or [`TOMBSTONE`]), and beside it its stamp
    /// and the dense slot of a live entry's value, in stamp order. The
    /// entities are a slice of their own: a walk of candidates follows
    /// them. The first `len` of each vector are the entries; the rest is
    /// room for more, so that a change writes two places it knows are
    /// there (one check, `room`) instead of pushing twice (two checks, two
    /// calls to grow that the caller keeps registers for); see
    /// [`entities`](Self::entities) and [`entries`](Self::entries).
    entity_room: Vec<Entity>,
    entry_room: Vec<Entry>,
    len: usize,
    /// The number of entries ever dropped from the front (see
    /// [`make_room`](Self::make_room)): entry `i` of the vectors is the
    /// log's entry `base + i`, which is how the slots' records name them
    /// ([`Latest::entry`]), so dropping the front rewrites no record.
    base: u64,
    /// The stamp from which on the entries are complete: every value whose
    /// latest change is under a stamp `>= history` has its live entry
    /// among them. The entries under older stamps are dropped once every
    /// observer has passed them; a window that starts before `history`
    /// (an observer's first look) takes every stored value as a candidate.
    history: u64,
    /// How many entries there may be before the next append makes room:
    /// the vectors' length, or fewer, to drop the tombstones once they
    /// outnumber the live entries two to one (see
    /// [`make_room`](Self::make_room)).
    room: usize,
    /// The births: an entity (or [`TOMBSTONE`]) and, beside it, the stamp
    /// it was added under and the dense slot of a live birth's value, in
    /// stamp order. Every stored value has one live birth.
    born: Vec<Entity>,
    births: Vec<Entry>,
    /// Per dense slot: its latest change's stamp and the number of that
    /// change's entry (kept, or dropped once every observer passed it),
    /// side by side (a change reads and writes both), and its birth.
    latest: Vec<Latest>,
    added: Vec<Birth>,
    /// Removals, under their stamps; its identity is the whole log's.
    removals: Log<Entity>,
    /// Where the world's `on_change` hooks look from next (`u64::MAX`
    /// while they have not looked): the entries from there on are kept
    /// for them as for a registered observer, without holding the
    /// removals, which they do not read.
    hooks_from: u64,
}

/// A slot's birth: the stamp it was added under and the index of its
/// live entry among the births.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Birth {
    stamp: u64,
    entry: u32,
}

/// A slot's latest change (or its add): its stamp, and the number of its
/// entry in the log (counted from the log's first entry ever: below the
/// log's `base` if every observer has passed it and it was dropped). 16
/// bytes: a write by handle reads and rewrites it at a random place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Latest {
    stamp: u64,
    entry: u64,
}

impl Default for Tracked {
    fn default() -> Self {
        Self::NEW
    }
}

impl ChangeLog {
    const NEW: ChangeLog = ChangeLog {
        now: 1,
        seen: 1,
        all: 0,
        all_prev: 0,
        entity_room: Vec::new(),
        entry_room: Vec::new(),
        len: 0,
        base: 0,
        history: 0,
        room: 0,
        born: Vec::new(),
        births: Vec::new(),
        latest: Vec::new(),
        added: Vec::new(),
        removals: Log::NEW,
        hooks_from: u64::MAX,
    };
}

impl ChangeLog {
    /// The stamp changes are recorded under now.
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        self.now
    }

    /// The log's identity (see the [module docs](self)): 0 if it has never
    /// recorded anything, so it is empty and has no history.
    #[inline]
    pub(crate) fn id(&self) -> u64 {
        self.removals.id()
    }

    /// The log's identity, given now if it had none.
    #[inline]
    pub(crate) fn identify(&mut self) -> u64 {
        self.removals.identify()
    }

    /// The world's own view: everything since the last
    /// [`clear`](Self::clear).
    #[inline]
    pub(crate) fn world_view(&self) -> Window {
        Window {
            since: self.seen,
            until: u64::MAX,
        }
    }

    /// Starts a new stamp: changes from now on are told apart from the
    /// ones before.
    #[inline]
    pub(crate) fn tick(&mut self) {
        self.now += 1;
    }

    /// The world's view starts afresh (see `World::clear_changes`), and the
    /// removals no observer needs any more are dropped (see
    /// [`Log::trim`]).
    pub(crate) fn clear(&mut self) {
        self.tick();
        self.seen = self.now;
        self.removals.trim(self.seen);
    }

    /// A schedule's run starts: the world's view starts afresh. (Each
    /// system's [`Seen`](crate::system::Seen) holds its own place in the
    /// removals.)
    pub(crate) fn run_started(&mut self) {
        self.clear();
    }

    /// The world's `on_change` hooks look from `since` next: the entries
    /// from there on are kept for them (see [`make_room`](Self::make_room)),
    /// the removals are not.
    #[inline]
    pub(crate) fn keep_for_hooks(&mut self, since: u64) {
        self.hooks_from = since;
    }

    /// Registers an observer's `cursor` at `since`, the start of the
    /// window it looks at next: the removals from there on, and the
    /// changes, are kept for it (see [`Log::register`]).
    pub(crate) fn register(&mut self, cursor: &mut Option<crate::log::Cursor>, since: u64) {
        let _ = self.removals.register(cursor, since);
    }

    /// Every value stored changed now.
    #[inline]
    pub(crate) fn changed_all(&mut self) {
        if self.all != self.now {
            self.all_prev = self.all;
            self.all = self.now;
        }
    }

    /// The stamp a change of every value in `window` is seen under: the
    /// latest one before the window's end (see [`before`]).
    #[inline]
    fn all_in(&self, window: Window) -> u64 {
        before(window, self.all, self.all_prev)
    }

    /// The stamp the value in `slot` was added under.
    #[inline]
    pub(crate) fn added_at(&self, slot: usize) -> u64 {
        self.added.get(slot).map_or(0, |birth| birth.stamp)
    }

    /// The change filter for `window`: one binary search for where its
    /// candidates start (among the births, for an `Added` filter: a change
    /// of every value is no add). A window of changes that starts before
    /// the entries' `history` (they no longer hold every change in it) has
    /// every stored value as a candidate, as one a change of every value
    /// is in.
    #[inline]
    pub(crate) fn filter(&self, window: Window, added: bool) -> Filter {
        let from = if added {
            Some(self.births.partition_point(|e| e.stamp < window.since))
        } else {
            (!window.contains(self.all_in(window)) && window.since >= self.history)
                .then(|| self.entries().partition_point(|e| e.stamp < window.since))
        };
        Filter {
            window,
            added,
            from,
        }
    }

    /// The entities that may pass `filter`, each at most once: the log's
    /// (or the births', for an `Added` filter) from the filter's first
    /// candidate on, or, if every stored entity may, `stored` (the
    /// storage's own). Tombstones may be among them: they match no stored
    /// entity.
    #[inline]
    pub(crate) fn candidates<'a>(&'a self, filter: Filter, stored: &'a [Entity]) -> &'a [Entity] {
        match filter.from {
            Some(from) => self.list(filter).0.get(from..).unwrap_or(&[]),
            None => stored,
        }
    }

    /// The list `filter`'s candidates come from: the births for an `Added`
    /// filter, the changes otherwise.
    #[inline(always)]
    fn list(&self, filter: Filter) -> (&[Entity], &[Entry]) {
        if filter.added {
            (&self.born, &self.births)
        } else {
            (self.entities(), self.entries())
        }
    }

    /// The entities of the change log's entries.
    #[inline(always)]
    fn entities(&self) -> &[Entity] {
        self.entity_room.get(..self.len).unwrap_or(&[])
    }

    /// The stamps and slots of the change log's entries.
    #[inline(always)]
    fn entries(&self) -> &[Entry] {
        self.entry_room.get(..self.len).unwrap_or(&[])
    }

    /// The log's slots and stamps of `filter`'s candidates, if `driver` is
    /// exactly those candidates (the same slice: see
    /// [`Access::drive`](crate::query::fetch::Access::drive)): a walk they
    /// drive then reads each one's slot and stamp at its place among them,
    /// in log order, with no check against the entity
    /// ([`pass_driven`](Self::pass_driven)).
    #[inline]
    pub(crate) fn tail(&self, filter: Filter, driver: &[Entity]) -> Option<Tail<'_>> {
        let from = filter.from?;
        let (entities, entries) = self.list(filter);
        let candidates = entities.get(from..)?;
        core::ptr::eq(candidates, driver).then(|| Tail {
            entries: &entries[from..],
        })
    }

    /// The dense slot of `entity` if it passes `filter`, in a walk driven
    /// by the candidates `tail` was made for: `entity` is the candidate at
    /// `place` among them (the walk's own hint). A place outside them (a
    /// lookup by handle) falls back to [`pass`](Self::pass).
    #[inline(always)]
    pub(crate) fn pass_driven(
        &self,
        filter: Filter,
        tail: Tail<'_>,
        entity: Entity,
        place: usize,
        lookup: impl FnOnce() -> Option<usize>,
    ) -> Option<usize> {
        let Some(&Entry {
            stamp: own, slot, ..
        }) = tail.entries.get(place)
        else {
            return self.pass(filter, entity, place, lookup);
        };
        debug_assert_eq!(
            filter
                .from
                .and_then(|from| self.list(filter).0.get(from + place)),
            Some(&entity),
            "a driven walk's hint is the entity's place among the candidates"
        );
        // A tombstone is no one's entry.
        if entity == TOMBSTONE {
            return None;
        }
        let slot = slot as usize;
        self.passes(filter, slot, own).then_some(slot)
    }

    /// Whether the value in `slot`, whose own latest change (or add, for
    /// an `Added` filter) is under `own`, passes `filter`: added in its
    /// window, or changed in it (its own latest change before the window's
    /// end, or a change of every value stored at the time).
    #[inline]
    fn passes(&self, filter: Filter, slot: usize, own: u64) -> bool {
        let window = filter.window;
        if filter.added {
            return window.contains(own);
        }
        // The window ends at `until`: a change under a later stamp (the
        // current one, for an observer looking now) stands in front of the
        // one before it.
        // Only a change under the current stamp is at or after the end:
        // its entry is kept (only entries every observer passed, under
        // older stamps, are dropped), and holds the one before.
        let prev = || {
            self.latest
                .get(slot)
                .and_then(|latest| self.place(latest.entry))
                .and_then(|place| self.entries().get(place))
                .map_or(0, |entry| entry.prev)
        };
        let own = if own < window.until { own } else { prev() };
        // A change of every value is one of the values stored then: not
        // of one added since (under a later stamp), which would otherwise
        // be seen changed now and added at the next look. (A first look,
        // from 0, sees every stored value through `prev`'s 0 anyway.)
        let all = self.all_in(window);
        window.contains(own) || (window.contains(all) && self.added_at(slot) <= all)
    }

    /// The dense slot of `entity` if it passes `filter`.
    ///
    /// A walk driven by the filter's candidates passes each one's place
    /// among them as `hint`: if the log's entry there is `entity`'s live
    /// entry, it holds the slot and the latest change's stamp, read in log
    /// order (no lookup by handle, no random access but the value's).
    /// Otherwise (another column drives, or the log moved since) `lookup`
    /// finds the slot.
    #[inline]
    pub(crate) fn pass(
        &self,
        filter: Filter,
        entity: Entity,
        hint: usize,
        lookup: impl FnOnce() -> Option<usize>,
    ) -> Option<usize> {
        let index = filter.from.and_then(|from| from.checked_add(hint));
        let (entities, entries) = self.list(filter);
        let live = |&i: &usize| entity != TOMBSTONE && entities.get(i) == Some(&entity);
        let (slot, own) = match index.filter(live) {
            // A live entry: its slot holds `entity`, its stamp is the
            // slot's own latest, or its add (see `check`). A tombstone is
            // no one's.
            Some(i) => {
                let Entry { stamp, slot, .. } = entries[i];
                (slot as usize, stamp)
            }
            None => {
                let slot = lookup()?;
                let own = if filter.added {
                    self.added_at(slot)
                } else {
                    self.latest.get(slot).map_or(0, |latest| latest.stamp)
                };
                (slot, own)
            }
        };
        self.passes(filter, slot, own).then_some(slot)
    }

    /// The entities removed in `window`, oldest first.
    #[inline]
    pub(crate) fn removed_in(&self, window: Window) -> &[Entity] {
        self.removals.between(window.since, window.until)
    }

    /// Appends an entry for `entity` in `slot` under the current stamp;
    /// returns its number (see [`Latest::entry`]). `make_room` must have
    /// left room for it.
    #[inline(always)]
    fn append(&mut self, slot: usize, entity: Entity) -> u64 {
        let index = self.len;
        self.entity_room[index] = entity;
        self.entry_room[index] = Entry {
            stamp: self.now,
            prev: 0,
            slot: slot as u32,
        };
        self.len = index + 1;
        self.base + index as u64
    }

    /// Where the entry numbered `entry` is in the vectors, if it was not
    /// dropped from the front.
    #[inline(always)]
    fn place(&self, entry: u64) -> Option<usize> {
        entry.checked_sub(self.base).map(|place| place as usize)
    }

    /// The room the change log's entries may take before the tombstones
    /// are dropped: [`ROOM_PER_VALUE`] entries per stored value (each has
    /// at most one live entry), and 32.
    #[inline(always)]
    fn limit(&self) -> usize {
        ROOM_PER_VALUE * self.latest.len() + 32
    }

    /// Makes room for one more entry. First, if at least half the entries
    /// are under stamps every observer has passed (before every
    /// registered observer's next window and the world's view: see
    /// [`Log::keep_from`]), drops them, moving the rest to the front; then,
    /// if the tombstones outnumber the live entries two to one (an
    /// observer lags), drops the tombstones; then grows the vectors to
    /// room for twice the entries kept, or gives back the room past the
    /// limit if it is half the limit again (the room a log grew to before
    /// its observers first looked, or while its storage held more values,
    /// is not kept for good). Either way what it moves is at
    /// most what the appends until its next call fill (amortised O(1) per
    /// change). Leaves `len < room`.
    ///
    /// A log whose observers look every frame keeps a frame or two of
    /// changes: a mark seldom finds its slot's last entry still there to
    /// bury, and a compaction seldom runs.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self) {
        let keep = self.removals.keep_from(self.seen).min(self.hooks_from);
        let passed = self.entries().partition_point(|e| e.stamp < keep);
        if passed > 0 && 2 * passed >= self.len {
            let len = self.len;
            self.entity_room.copy_within(passed..len, 0);
            self.entry_room.copy_within(passed..len, 0);
            self.len = len - passed;
            self.base += passed as u64;
            self.history = self.history.max(keep);
        }
        if self.len >= self.limit() {
            let latest = &mut self.latest[..];
            let (len, base) = (self.len, self.base);
            self.len = compact(
                &mut self.entity_room[..len],
                &mut self.entry_room[..len],
                |slot, place| latest[slot].entry = base + place as u64,
            );
        }
        let wanted = 2 * self.len + 16;
        // The room past the limit is never used while the storage holds no
        // more values: give it back if it is half the limit again (the
        // room a log grew to before its observers first looked, or while
        // its storage held more values).
        let used = wanted.max(self.limit());
        if self.entity_room.len() > used + used / 2 {
            self.entity_room.truncate(used);
            self.entity_room.shrink_to_fit();
            self.entry_room.truncate(used);
            self.entry_room.shrink_to_fit();
        }
        if self.entity_room.len() < wanted {
            // No further than the limit: room past it is never used (and
            // would be given back at the next call).
            let more = (2 * self.entity_room.len()).max(wanted).min(used);
            self.entity_room.resize(more, TOMBSTONE);
            let none = Entry {
                stamp: 0,
                prev: 0,
                slot: 0,
            };
            self.entry_room.resize(more, none);
        }
        self.room = self.entity_room.len().min(self.limit().max(self.len + 1));
    }

    #[inline]
    fn pushed(&mut self, entity: Entity) {
        // A log with values has an identity (one without has no history).
        self.identify();
        if self.len >= self.room {
            self.make_room();
        }
        let slot = self.latest.len();
        let entry = self.append(slot, entity);
        self.latest.push(Latest {
            entry,
            stamp: self.now,
        });
        let birth = self.born.len() as u32;
        self.born.push(entity);
        self.births.push(Entry {
            stamp: self.now,
            prev: 0,
            slot: slot as u32,
        });
        self.added.push(Birth {
            stamp: self.now,
            entry: birth,
        });
        // One more value: room for two more entries.
        self.room = self.entity_room.len().min(self.limit());
    }

    /// The value of `entity` in `slot` changed now.
    ///
    /// Inlined into every walk that marks: a mark is a handful of loads
    /// and stores (the slot's record, the old entry's tombstone, the new
    /// entry), and a call would cost as much again.
    #[inline(always)]
    pub(crate) fn changed(&mut self, slot: usize, entity: Entity) {
        let now = self.now;
        if self.all == now {
            return;
        }
        // Before the slot's record is read: dropping tombstones moves the
        // entries.
        if self.len >= self.room {
            self.make_room();
        }
        let latest = &mut self.latest[slot];
        let Latest { entry: old, stamp } = *latest;
        if stamp == now {
            return;
        }
        let index = self.len;
        *latest = Latest {
            entry: self.base + index as u64,
            stamp: now,
        };
        // The old entry is a tombstone now. If it was dropped, the
        // tombstone goes where the new entry goes next: a store either
        // way, not a branch on which (as unpredictable as the changes).
        let dead = self.place(old).unwrap_or(index);
        self.entity_room[dead] = TOMBSTONE;
        self.entity_room[index] = entity;
        self.entry_room[index] = Entry {
            stamp: now,
            prev: stamp,
            slot: slot as u32,
        };
        self.len = index + 1;
    }

    fn removed(&mut self, slot: usize, entity: Entity) {
        let old = self.latest.swap_remove(slot).entry;
        let birth = self.added.swap_remove(slot).entry;
        if let Some(old) = self.place(old) {
            self.entity_room[old] = TOMBSTONE;
        }
        self.born[birth as usize] = TOMBSTONE;
        // The last slot moved into `slot`: its entries follow it.
        if let (Some(moved), Some(born)) = (self.latest.get(slot), self.added.get(slot)) {
            if let Some(moved) = self.place(moved.entry) {
                self.entry_room[moved].slot = slot as u32;
            }
            self.births[born.entry as usize].slot = slot as u32;
        }
        // One value fewer: room for two fewer entries.
        self.room = self.entity_room.len().min(self.limit());
        self.removals.push(self.now, entity);
        if self.born.len() > 2 * self.added.len() + 32 {
            self.compact_births();
        }
    }

    fn swapped(&mut self, a: usize, b: usize) {
        self.latest.swap(a, b);
        self.added.swap(a, b);
        for slot in [a, b] {
            if let Some(entry) = self.place(self.latest[slot].entry) {
                self.entry_room[entry].slot = slot as u32;
            }
            let birth = self.added[slot].entry;
            self.births[birth as usize].slot = slot as u32;
        }
    }

    fn removed_all(&mut self, entities: &[Entity]) {
        for &entity in entities {
            self.removals.push(self.now, entity);
        }
        // The vectors stay, as room.
        self.base += self.len as u64;
        self.len = 0;
        self.room = self.entity_room.len().min(32);
        self.born.clear();
        self.births.clear();
        self.latest.clear();
        self.added.clear();
    }

    /// Drops the tombstones of the births.
    #[cold]
    #[inline(never)]
    fn compact_births(&mut self) {
        let added = &mut self.added[..];
        let kept = compact(&mut self.born, &mut self.births, |slot, entry| {
            added[slot].entry = entry;
        });
        self.born.truncate(kept);
        self.births.truncate(kept);
    }

    #[cfg(any(test, feature = "testing", feature = "serde"))]
    fn check(&self, dense: &[Entity]) -> Result<(), String> {
        use alloc::format;
        if self.latest.len() != dense.len() || self.added.len() != dense.len() {
            return Err(format!(
                "the change log covers {} slots, the storage holds {}",
                self.latest.len(),
                dense.len()
            ));
        }
        if self.entity_room.len() != self.entry_room.len()
            || self.len > self.entity_room.len()
            || self.born.len() != self.births.len()
        {
            return Err("the change log's entities and entries differ in number".into());
        }
        if self.births.windows(2).any(|w| w[0].stamp > w[1].stamp) {
            return Err("the births are out of stamp order".into());
        }
        let mut born = 0;
        for (index, &entity) in self.born.iter().enumerate() {
            if entity == TOMBSTONE {
                continue;
            }
            born += 1;
            let Entry { stamp, slot, .. } = self.births[index];
            let birth = self.added[slot as usize];
            if dense.get(slot as usize) != Some(&entity)
                || birth.entry != index as u32
                || birth.stamp != stamp
            {
                return Err(format!(
                    "the birth {index} ({entity:?}) is not its slot's live birth"
                ));
            }
        }
        if born != self.added.len() || self.born.len() > 2 * self.added.len() + 32 {
            return Err(format!(
                "the change log has {born} live births of {} for {} slots",
                self.born.len(),
                self.added.len()
            ));
        }
        if self.entries().windows(2).any(|w| w[0].stamp > w[1].stamp) {
            return Err("the change log is out of stamp order".into());
        }
        let mut live = 0;
        for (index, &entity) in self.entities().iter().enumerate() {
            if entity == TOMBSTONE {
                continue;
            }
            live += 1;
            let Entry { stamp, prev, slot } = self.entries()[index];
            let Some(&latest) = self.latest.get(slot as usize) else {
                return Err(format!(
                    "the change log's entry {index} ({entity:?}) names slot {slot}, past the storage's"
                ));
            };
            if dense.get(slot as usize) != Some(&entity)
                || self.place(latest.entry) != Some(index)
                || latest.stamp != stamp
            {
                return Err(format!(
                    "the change log's entry {index} ({entity:?}) is not its slot's live entry"
                ));
            }
            if prev >= stamp {
                return Err(format!(
                    "the change log's entry {index} ({entity:?}) has a change before it from later"
                ));
            }
        }
        let listed = self.latest.iter().filter(|l| l.entry >= self.base).count();
        if live != listed {
            return Err(format!(
                "the change log has {live} live entries for {listed} slots whose entry is kept"
            ));
        }
        if let Some(slot) = self
            .latest
            .iter()
            .position(|l| l.entry < self.base && l.stamp >= self.history)
        {
            return Err(format!(
                "slot {slot}'s latest change is in the history kept, its entry dropped"
            ));
        }
        if self.history > self.now {
            return Err("the change log's history starts in the future".into());
        }
        if self.entries().last().is_some_and(|e| e.stamp > self.now)
            || self.all > self.now
            || self.removals.keys().last().is_some_and(|&s| s > self.now)
        {
            return Err("the change log holds a stamp from the future".into());
        }
        if (self.all != 0 && self.all_prev >= self.all)
            || self.removals.keys().windows(2).any(|w| w[0] > w[1])
        {
            return Err(
                "the change log's removals or whole-storage changes are out of order".into(),
            );
        }
        Ok(())
    }
}

/// How many change-log entries a stored value may have before the
/// tombstones are dropped: its live entry and two tombstones.
///
/// A compaction walks every entry and moves each live one (writing its
/// place into the slot's record, a store at a random place), so it costs
/// about the log's length plus a few times the live entries, once every
/// `ROOM_PER_VALUE - 1` changes per value: the more room, the less each
/// change pays for it, and the more memory the log holds (32 bytes an
/// entry: its entity, and beside it its stamp, the stamp before and its
/// slot; 24 when this was measured). A `Lazy` walk
/// over 5,809 tracked values that marks a quarter of them a frame spent
/// 23% of its instructions compacting with room for two entries a value
/// (one tombstone), 15% with three; four saved little more (13%) for 24
/// bytes a value more (`BENCHMARKS.md`, `game_frame`), when every entry
/// was kept. Since the entries every observer has passed are dropped
/// first, the log reaches this room only while its observers' windows
/// span more than about three changes a value (an observer lags).
const ROOM_PER_VALUE: usize = 3;

/// Moves the live entries of a list (`entities` not [`TOMBSTONE`], and
/// beside each its `entries`) to its front, in order, tells
/// `moved(slot, index)` the new index of each one that moved, and returns
/// how many there are: the rest is to be dropped.
#[inline(always)]
fn compact(
    entities: &mut [Entity],
    entries: &mut [Entry],
    mut moved: impl FnMut(usize, u32),
) -> usize {
    let len = entities.len().min(entries.len());
    let (live, beside) = (&mut entities[..len], &mut entries[..len]);
    // The live entries before the first tombstone stay where they are.
    let first = live.iter().position(|&e| e == TOMBSTONE).unwrap_or(len);
    let mut kept = first;
    for read in first..len {
        let entity = live[read];
        if entity == TOMBSTONE {
            continue;
        }
        let entry = beside[read];
        // `kept <= read < len`: both in bounds.
        live[kept] = entity;
        beside[kept] = entry;
        moved(entry.slot as usize, kept as u32);
        kept += 1;
    }
    kept
}

/// The stamp, of a value's latest change `latest` and the one before it
/// `prev`, that an observer looking at `window` sees: the latest, unless
/// it is at or after the window's end (an observer looking now sees a
/// change under the current stamp at its next look), then the one before.
#[inline]
fn before(window: Window, latest: u64, prev: u64) -> u64 {
    if latest < window.until {
        latest
    } else {
        prev
    }
}

/// `world!` picks each storage's [`Track`] with a `bool` it computes at
/// compile time (is the component in `tracked (…)`?): `TrackKind<true>` is
/// [`Tracked`], `TrackKind<false>` is [`Untracked`]. Not public API.
pub type TrackKind<const TRACKED: bool> = <Select<TRACKED> as Pick>::Track;

/// See [`TrackKind`]. Not public API.
#[derive(Debug)]
pub struct Select<const TRACKED: bool>;

/// See [`TrackKind`]. Not public API.
pub trait Pick {
    /// The storage kind.
    type Track: Track;
}

impl Pick for Select<true> {
    type Track = Tracked;
}

impl Pick for Select<false> {
    type Track = Untracked;
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn entity(index: u32) -> Entity {
        Entity::new(index, NonZeroU32::MIN)
    }

    /// A log of `n` values added under its first stamp, and their entities
    /// in slot order.
    fn filled(n: u32) -> (ChangeLog, Vec<Entity>) {
        let mut log = ChangeLog::NEW;
        let dense: Vec<Entity> = (0..n).map(entity).collect();
        for &e in &dense {
            log.pushed(e);
        }
        (log, dense)
    }

    /// The live entries of `log` among the candidates of `window`.
    fn live(log: &ChangeLog, window: Window, dense: &[Entity]) -> Vec<Entity> {
        let filter = log.filter(window, false);
        let candidates = log.candidates(filter, dense);
        candidates
            .iter()
            .enumerate()
            .filter_map(|(place, &e)| {
                log.pass(filter, e, place, || dense.iter().position(|&d| d == e))
                    .map(|_| e)
            })
            .collect()
    }

    #[test]
    fn compaction_keeps_each_value_s_latest_entry_and_its_slot() {
        let (mut log, mut dense) = filled(6);
        let mut compactions = 0;
        for round in 0..200 {
            log.tick();
            // Slot 5 never changes; the others in turn, one twice a stamp.
            let slot = round % 5;
            log.changed(slot, dense[slot]);
            log.changed(slot, dense[slot]);
            let before = log.entities().len();
            assert!(
                before <= ROOM_PER_VALUE * dense.len() + 32,
                "compacted in time"
            );
            if round == 100 {
                // A swap-remove moves the last value under a live entry.
                log.removed(2, dense[2]);
                dense.swap_remove(2);
            }
            log.check(&dense).unwrap();
            if round > 0 && before < 2 * dense.len() {
                compactions += 1;
            }
        }
        assert!(compactions > 0);
        // Every stored value once in the whole history; the last stamp's
        // change alone in its window.
        let mut all = live(
            &log,
            Window {
                since: 0,
                until: u64::MAX,
            },
            &dense,
        );
        all.sort_by_key(|e| e.index());
        let mut stored = dense.clone();
        stored.sort_by_key(|e| e.index());
        assert_eq!(all, stored);
        let last = dense[199 % 5];
        let now = Window {
            since: log.now(),
            until: u64::MAX,
        };
        assert_eq!(live(&log, now, &dense), vec![last]);
    }

    /// The entities that pass `filter`, each once, in candidate order.
    fn passing(log: &ChangeLog, filter: Filter, dense: &[Entity]) -> Vec<Entity> {
        log.candidates(filter, dense)
            .iter()
            .enumerate()
            .filter_map(|(place, &e)| {
                let slot = log.pass(filter, e, place, || dense.iter().position(|&d| d == e))?;
                assert_eq!(dense[slot], e, "the slot found holds the entity");
                Some(e)
            })
            .collect()
    }

    #[test]
    fn added_candidates_are_the_births_since_the_window_not_the_changes() {
        let (mut log, mut dense) = filled(10);
        log.tick();
        let since = log.now();
        for _ in 0..5 {
            for (slot, &e) in dense.iter().enumerate() {
                log.changed(slot, e);
            }
            log.tick();
        }
        let (a, b, c) = (entity(10), entity(11), entity(12));
        for e in [a, b, c] {
            dense.push(e);
            log.pushed(e);
        }
        // An old value leaves (`c` moves into its slot), `a` leaves and
        // comes back (one live birth), `b` changes (still added).
        log.removed(0, dense[0]);
        dense.swap_remove(0);
        let slot_a = dense.iter().position(|&d| d == a).unwrap();
        log.removed(slot_a, a);
        dense.swap_remove(slot_a);
        dense.push(a);
        log.pushed(a);
        let slot_b = dense.iter().position(|&d| d == b).unwrap();
        log.changed(slot_b, b);
        log.check(&dense).unwrap();

        let window = Window {
            since,
            until: u64::MAX,
        };
        let added = log.filter(window, true);
        assert_eq!(
            log.candidates(added, &dense).len(),
            4,
            "the births since the window's start (a tombstone among them), not the 50 changes"
        );
        assert_eq!(passing(&log, added, &dense), [b, c, a]);
        // A driven walk reads the slot beside each birth.
        let candidates = log.candidates(added, &dense);
        let tail = log
            .tail(added, candidates)
            .expect("its own candidates drive");
        let driven: Vec<Entity> = candidates
            .iter()
            .enumerate()
            .filter_map(|(place, &e)| {
                let slot = log.pass_driven(added, tail, e, place, || unreachable!())?;
                assert_eq!(dense[slot], e);
                Some(e)
            })
            .collect();
        assert_eq!(driven, [b, c, a]);
        // A window that ends before the adds sees none; one from the start
        // sees every stored value.
        let before = Window {
            since,
            until: since + 1,
        };
        assert!(passing(&log, log.filter(before, true), &dense).is_empty());
        let all = Window {
            since: 0,
            until: u64::MAX,
        };
        assert_eq!(
            passing(&log, log.filter(all, true), &dense).len(),
            dense.len()
        );
        // The changed filter still finds every change.
        assert_eq!(
            passing(&log, log.filter(window, false), &dense).len(),
            dense.len()
        );
    }

    #[test]
    fn births_drop_their_tombstones() {
        let (mut log, mut dense) = filled(4);
        for round in 0..300u32 {
            let e = entity(100 + round);
            dense.push(e);
            log.pushed(e);
            // The oldest value leaves: the last one moves into its slot.
            log.removed(0, dense[0]);
            dense.swap_remove(0);
            if round % 7 == 0 {
                log.swapped(0, 1);
                dense.swap(0, 1);
            }
            log.check(&dense).unwrap();
            assert!(log.born.len() <= 2 * dense.len() + 32);
        }
        let all = Window {
            since: 0,
            until: u64::MAX,
        };
        let mut seen = passing(&log, log.filter(all, true), &dense);
        seen.sort_by_key(|e| e.index());
        let mut stored = dense.clone();
        stored.sort_by_key(|e| e.index());
        assert_eq!(seen, stored);
    }

    /// What a change filter should pass, from the history of every value:
    /// the stored entities with a change (or add) under a stamp in
    /// `window`, sorted.
    fn expected(history: &[(Entity, Vec<u64>)], window: Window) -> Vec<Entity> {
        let mut out: Vec<Entity> = history
            .iter()
            .filter(|(_, stamps)| stamps.iter().any(|&s| window.contains(s)))
            .map(|&(e, _)| e)
            .collect();
        out.sort_by_key(|e| e.index());
        out
    }

    #[test]
    fn changes_every_observer_passed_are_dropped_and_every_window_still_answers() {
        let mut log = ChangeLog::NEW;
        // Each stored value and the stamps it changed (or was added) under.
        let mut history: Vec<(Entity, Vec<u64>)> = Vec::new();
        let mut dense: Vec<Entity> = Vec::new();
        let mut next = 0;
        let (mut fast, mut slow) = (None, None);
        let mut slow_at = log.now();
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
        let mut roll = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut longest = 0;
        for frame in 0..400u64 {
            // A frame: the world's view starts afresh, one observer looks
            // every frame, the other every 50 (it lags, then catches up).
            log.clear();
            let fast_at = log.now();
            log.register(&mut fast, fast_at);
            if frame % 50 == 0 {
                slow_at = log.now();
                log.register(&mut slow, slow_at);
            }
            for _ in 0..12 {
                match roll(10) {
                    0 if dense.len() < 60 => {
                        let e = entity(next);
                        next += 1;
                        log.pushed(e);
                        dense.push(e);
                        // Stamp 0 stands for "before anything": a first
                        // look (from 0) sees every stored value.
                        history.push((e, vec![0, log.now()]));
                    }
                    1 if !dense.is_empty() => {
                        let slot = roll(dense.len() as u64) as usize;
                        log.removed(slot, dense[slot]);
                        dense.swap_remove(slot);
                        history.swap_remove(slot);
                    }
                    2 if dense.len() > 1 => {
                        let (a, b) = (roll(dense.len() as u64) as usize, 0);
                        log.swapped(a, b);
                        dense.swap(a, b);
                        history.swap(a, b);
                    }
                    3 => log.tick(),
                    // Rarely: a whole-storage change, or everything leaves.
                    4 if roll(20) == 0 => {
                        log.changed_all();
                        let now = log.now();
                        history.iter_mut().for_each(|(_, stamps)| stamps.push(now));
                    }
                    5 if roll(40) == 0 => {
                        log.removed_all(&dense);
                        dense.clear();
                        history.clear();
                    }
                    _ if !dense.is_empty() => {
                        let slot = roll(dense.len() as u64) as usize;
                        log.changed(slot, dense[slot]);
                        history[slot].1.push(log.now());
                    }
                    _ => {}
                }
                log.check(&dense).unwrap();
            }
            if frame % 50 == 49 {
                // The lagging observer's window is older than a frame.
                longest = longest.max(log.entities().len());
            }
            let now = log.now();
            let around = [log.history.saturating_sub(1), log.history, roll(now + 1)];
            for since in [0, slow_at, fast_at, log.seen, now]
                .into_iter()
                .chain(around)
            {
                for until in [now, u64::MAX] {
                    let window = Window { since, until };
                    let mut found = passing(&log, log.filter(window, false), &dense);
                    found.sort_by_key(|e| e.index());
                    assert_eq!(
                        found,
                        expected(&history, window),
                        "frame {frame}, window {window:?}"
                    );
                }
            }
            // The windows of the observers read the entries, not every
            // stored value (a window older than what is kept would; one
            // with a whole-storage change in it does).
            let fast_window = Window {
                since: fast_at,
                until: now,
            };
            if !fast_window.contains(log.all_in(fast_window)) {
                assert!(log.filter(fast_window, false).from.is_some());
            }
        }
        assert!(next > 40, "values came and went");
        assert!(longest > 0);
        // Both observers keep up for a few frames of five changes each:
        // what they all passed is dropped at the next make-room, and the
        // entries left are the last frame's changes, not one a stored
        // value (the adds) and the tombstones behind them.
        while dense.len() < 50 {
            let e = entity(next);
            next += 1;
            log.pushed(e);
            dense.push(e);
        }
        for _ in 0..3 {
            log.clear();
            let now = log.now();
            log.register(&mut fast, now);
            log.register(&mut slow, now);
            for (slot, &e) in dense.iter().enumerate().take(5) {
                log.changed(slot, e);
            }
        }
        log.make_room();
        log.check(&dense).unwrap();
        assert!(log.base > 0, "entries were dropped from the front");
        assert!(
            log.entities().len() <= 5,
            "{} entries kept for {} values",
            log.entities().len(),
            dense.len()
        );
    }

    #[test]
    fn a_mark_or_a_removal_of_a_value_whose_entry_was_dropped_finds_no_entry_to_bury() {
        let (mut log, mut dense) = filled(8);
        // Many frames of changes to slot 0 alone, the world's view the only
        // observer: the other values' entries (their adds) are dropped.
        for _ in 0..100 {
            log.clear();
            log.changed(0, dense[0]);
            log.check(&dense).unwrap();
        }
        assert!(
            log.place(log.latest[7].entry).is_none(),
            "slot 7's add was dropped"
        );
        assert!(log.history > 1);
        // Slot 7 (entry dropped) moves into slot 3 (entry dropped), then
        // into slot 0 (entry kept), and changes again.
        log.removed(3, dense[3]);
        dense.swap_remove(3);
        log.check(&dense).unwrap();
        log.swapped(0, 3);
        dense.swap(0, 3);
        log.check(&dense).unwrap();
        log.tick();
        log.changed(0, dense[0]);
        log.check(&dense).unwrap();
        let since = Window {
            since: log.seen,
            until: u64::MAX,
        };
        let mut found = passing(&log, log.filter(since, false), &dense);
        found.sort_by_key(|e| e.index());
        assert_eq!(found, [entity(0), entity(7)]);
        let all = Window {
            since: 0,
            until: u64::MAX,
        };
        assert_eq!(
            passing(&log, log.filter(all, false), &dense).len(),
            dense.len()
        );
    }

    #[test]
    fn the_room_past_the_entries_is_never_read() {
        let (mut log, dense) = filled(40);
        for _ in 0..3 {
            log.tick();
            for (slot, &e) in dense.iter().enumerate() {
                log.changed(slot, e);
            }
            log.check(&dense).unwrap();
        }
        // Everything leaves: the vectors stay as room, with old entries in
        // them, and no window finds those.
        log.removed_all(&dense);
        assert!(log.entity_room.len() > 2, "the room stays");
        let all = Window {
            since: 0,
            until: u64::MAX,
        };
        assert!(live(&log, all, &[]).is_empty());
        assert!(passing(&log, log.filter(all, true), &[]).is_empty());
        let fresh = [entity(100), entity(101)];
        for &e in &fresh {
            log.pushed(e);
        }
        log.tick();
        log.changed(1, fresh[1]);
        log.check(&fresh).unwrap();
        assert_eq!(log.entities().len(), 3, "two adds and a change");
        let mut found = live(&log, all, &fresh);
        found.sort_by_key(|e| e.index());
        assert_eq!(found, fresh);
    }
}
