//! Fetches: the storages a query reads or writes, borrowed, and how each
//! walk gets one entity's items out of them.
//!
//! [`Fetch`] is what users see; its interface is the sealed [`Access`]
//! trait, implemented once for each kind of column (`&SparseMap<C>`,
//! [`ViewMut`], [`Maybe`], [`With`], [`Without`]) and for tuples of them.
//! Every walk is generic over it; none of it can be implemented or called
//! from outside the crate.

use core::ops::Range;

use super::filters::{Has, Lazy, Linked, Maybe, Targeted, Unlinked, Up, With, Without};
use super::lazy::{LazyRun, LazyViewMut};
use super::plan::{Column, Plan, Planner, Walk};
use super::rows::{MaybeRows, NoRows, Rows, SplitRows, Units, WalkRows};
use crate::change::{Mut, Track, Tracked, Untracked};
use crate::relation::{HasLinks, Links, Sources};
use crate::sparse_map::line_up::LineUp;
use crate::sparse_map::track::ChangeLog;
use crate::sparse_map::{Order, TrackedMarks, TrackedViewMut, ViewMut};
use crate::{Entity, SparseMap};

/// Storages borrowed for a query, for `'w`: `&SparseMap<C>` (reads),
/// [`ViewMut<C>`](ViewMut) (writes), [`Maybe`], [`With`] and [`Without`]
/// of one, or a tuple of up to 12 of those.
///
/// What one entity yields is `F::Item<'a>`: `&C`, `&mut C`, `Option<…>`,
/// `()` for a filter, or a tuple of those, borrowed from the fetch for `'a`
/// (which is what lets a query hand out `&mut` into several storages, one
/// entity at a time). Like hecs's, its interface is private: queries are
/// made by [`World::query`](crate::World::query),
/// [`World::query_mut`](crate::World::query_mut) and [`join`](super::join),
/// and run by [`Join`](super::Join) and [`QueryIter`](super::QueryIter).
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{join, Fetch};
///
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; }
///
/// /// Sums the first item of any join over `Pos`.
/// fn visits<'w, F: Fetch<'w>>(join: typed_ecs::Join<'w, F>) -> usize {
///     join.count()
/// }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(1), Vel(2)));
/// assert_eq!(visits(join((&mut world.pos, &world.vel))), 1);
/// ```
pub trait Fetch<'w>: Packed<'w> {}

/// What a [`Fetch`] yields for one entity: `F::Item<'a>`, borrowed from
/// the fetch for `'a`. Only the type: how it is found is crate-private.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{join, Fetch, FetchItem};
///
/// struct Pos(i32);
/// world! { struct Game<Pos>; }
///
/// fn first<'w, F: Fetch<'w>>(join: typed_ecs::Join<'w, F>) -> Option<(Entity, F::Item<'w>)> {
///     join.into_iter().next()
/// }
/// let mut world = Game::new();
/// world.spawn_with((Pos(3),));
/// let (_, pos): (Entity, &Pos) = first(join(&world.pos)).unwrap();
/// assert_eq!(pos.0, 3);
/// # fn named<'w, F: FetchItem<'w>>() {}
/// ```
pub trait FetchItem<'w> {
    /// What one entity yields, borrowed from the fetch for `'a`.
    type Item<'a>;
}

impl<'w, F: Packed<'w>> Fetch<'w> for F {}

/// A fetch that only reads: it can be copied, and iterated by
/// [`World::query`](crate::World::query) or a `for` loop.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::ReadOnly;
///
/// struct Pos(i32);
/// world! { struct Game<Pos>; }
///
/// fn is_read_only<'w, F: ReadOnly<'w>>(_: &F) {}
/// let world = Game::new();
/// is_read_only(&(&world.pos,));
/// ```
pub trait ReadOnly<'w>: Fetch<'w> + Copy {}

/// The first role of a fetch, which every column has: planning, and
/// looking an entity up (`find`, `fetch`, a cursor, splitting the written
/// column for a parallel walk). [`Packed`] is the second role, walking
/// slots side by side; a [`Fetch`] has both. Crate-private: only this crate
/// implements and calls them (a bound `F: Fetch<'w>` reaches none of it).
/// Callers bound what they use: a lookup by handle (`get_many`) needs only
/// this role, the walks need both.
///
/// # Handing out, and marking
///
/// A written column of a tracked storage records each value it hands out as
/// changed, and only those: an entity whose items are not all found hands
/// nothing out. So an entity's items are taken in two steps:
/// [`find`](Self::find), which only looks (in every column, stopping at the
/// first that does not match), then [`fetch`](Self::fetch), which hands each
/// column's item out (and marks it). Walks that hand out many rows at once
/// (a packed walk, a `for` loop over one, a parallel walk) first take the
/// marking out of the fetch with [`Packed::take_marks`], and mark what they
/// handed out themselves.
pub(crate) trait Access<'w>: FetchItem<'w> + Sized {
    /// Where [`find`](Self::find) found one entity's items, for
    /// [`fetch`](Self::fetch) to take them from: a slot per column (`()` for
    /// a filter), in a tuple for a tuple.
    type Found: Copy;

    /// What a walk the written column drives steps through (see
    /// `Cursor`, in this module).
    type Cursor: Cursor<Item = Self::Item<'w>>;

    /// The number of columns: [`plan`](Self::plan) tells the planner of
    /// this many.
    const COLUMNS: usize;

    /// Tells `planner` about each column, in order.
    fn plan(&self, planner: &mut Planner<'w>);

    /// Where the items of `entity` are, if it matches: `entity` is in slot
    /// `slot` of the walk's driver (each storage tries that slot before its
    /// sparse lookup). Only looks: nothing is handed out or marked.
    fn find(&self, entity: Entity, slot: usize) -> Option<Self::Found>;

    /// [`find`](Self::find) in a walk that column number `driver` drives
    /// (counting columns from 0 in the order [`plan`](Self::plan) tells
    /// them): that column holds `entity` in `slot`, its own, so it finds
    /// its item there unchecked. Called with a constant `driver`, the
    /// walk compiles to one loop per driving column, each with no test of
    /// who drives.
    #[inline(always)]
    fn find_driven(&self, entity: Entity, slot: usize, driver: usize) -> Option<Self::Found> {
        let _ = driver;
        self.find(entity, slot)
    }

    /// The storage slot `found` names, for a column that finds its item
    /// in one: a tuple tries it first in the columns after it (see the
    /// tuples' [`find_driven`](Self::find_driven)), where storages filled
    /// alike hold the entity too. `None` for the others.
    #[inline(always)]
    fn slot_of(found: &Self::Found) -> Option<usize> {
        let _ = found;
        None
    }

    /// The entities and line-up proofs of the storage a column that is
    /// one storage's finds its items in, for a lookup by handle (see
    /// [`find_by_handle`](Self::find_by_handle)); `None` for the others
    /// (filters, `Option`s, tuples) and for a window of a storage.
    #[inline(always)]
    fn lookup_storage(&self) -> Option<(&'w [Entity], &'w LineUp)> {
        None
    }

    /// [`find`](Self::find), told that the column holds the entities of
    /// the storage that found `entity` in `slot` in the same slots up to
    /// `proven` (a [`LineUp`] proof): below it, the entity is there, and
    /// is not checked. Columns with no [`lookup_storage`](Self::lookup_storage)
    /// are never told anything proven.
    #[inline(always)]
    fn find_proven(&self, entity: Entity, slot: usize, proven: usize) -> Option<Self::Found> {
        let _ = proven;
        self.find(entity, slot)
    }

    /// Calls `visit` with the entities and line-up proofs of each column
    /// that is one storage's (see [`lookup_storage`](Self::lookup_storage)),
    /// in order.
    #[inline(always)]
    fn storages(&self, visit: &mut impl FnMut(&'w [Entity], &'w LineUp)) {
        if let Some((entities, line_up)) = self.lookup_storage() {
            visit(entities, line_up);
        }
    }

    /// Where the items of `entity` are, for a lookup by handle: the
    /// columns after the first trust the slot it found the entity in below
    /// `proven` (a tuple's; see `HandleLookup`).
    #[inline(always)]
    fn find_by_handle(&self, entity: Entity, proven: usize) -> Option<Self::Found> {
        let _ = proven;
        self.find(entity, usize::MAX)
    }

    /// [`find_driven`](Self::find_driven) in a walk whose columns after
    /// the first are told `proven` (see [`find_by_handle`](Self::find_by_handle)):
    /// a tuple's storage columns after its first trust, below `proven`, the
    /// slot the first found the entity in.
    #[inline(always)]
    fn find_driven_proven(
        &self,
        entity: Entity,
        slot: usize,
        driver: usize,
        proven: usize,
    ) -> Option<Self::Found> {
        let _ = proven;
        self.find_driven(entity, slot, driver)
    }

    /// Hands out the items of `entity` where [`find`](Self::find) found
    /// them (marking each written tracked value).
    fn fetch(&mut self, found: Self::Found, entity: Entity) -> Self::Item<'_>;

    /// [`fetch`](Self::fetch) for the whole of `'w`, consuming the fetch.
    fn fetch_owned(self, found: Self::Found, entity: Entity) -> Self::Item<'w>;

    /// The items of `entity`, if it matches: [`find`](Self::find), then
    /// [`fetch`](Self::fetch).
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))] // `par_for_each` only
    #[inline(always)]
    fn get(&mut self, entity: Entity, slot: usize) -> Option<Self::Item<'_>> {
        let found = self.find(entity, slot)?;
        Some(self.fetch(found, entity))
    }

    /// The items of `entity` for the whole of `'w`, consuming the fetch.
    #[inline(always)]
    fn get_owned(self, entity: Entity) -> Option<Self::Item<'w>> {
        let found = self.find(entity, usize::MAX)?;
        Some(self.fetch_owned(found, entity))
    }

    /// A cursor for a driven walk ([`drive`](Self::drive) was told its
    /// driver first).
    fn into_cursor(self) -> Self::Cursor;

    /// Splits the written column into its slots `..mid` and `mid..` of the
    /// walk's driver (which is that column); read columns are shared. Only
    /// called when the plan has a writer walk, and it drives: a parallel
    /// walk's halves, and a `for` loop's rows and the lookups after them
    /// (see [`QueryIter`](super::QueryIter)).
    fn split_at(self, mid: usize) -> (Self, Self);

    /// Tells each column which entities drive the walk about to start (the
    /// `Walk::Driven` slice, before [`get`](Self::get) or
    /// [`into_cursor`](Self::into_cursor)): each `slot` handed to them is
    /// then a place in `driver`, and the entity there. A column whose own
    /// entities are that very slice may read its records at that place
    /// instead of checking the entity (a change filter's column, whose
    /// candidates are its log's entries, does). Columns that look each
    /// entity up ignore it.
    #[inline]
    fn drive(&mut self, driver: &[Entity]) {
        let _ = driver;
    }
}

/// The second role of a fetch: walking its columns' slots side by side,
/// with no lookup (a packed walk over an owning group or over storages
/// filled alike, the lined-up runs of a driven walk, the rows a parallel
/// walk splits), and taking the change marking out for walks that hand
/// rows out in bulk. A column that can only be looked up in (a filter that
/// needs a lookup, a change filter's candidates) implements [`Unpacked`]
/// instead and gets this role from it: no walk of its rows is ever planned.
pub(crate) trait Packed<'w>: Access<'w> {
    /// The rows of a packed walk: each storage's first slots, zipped.
    /// (`Default`: no rows, for the walks that are not packed.)
    type Rows: WalkRows<Item = Self::Item<'w>> + SplitRows + Default;

    /// The rows of a run of a driven walk whose columns line up (see
    /// [`lined_up`](Self::lined_up)): each column's slots in the run,
    /// zipped, borrowed from the fetch for `'a`.
    type Slots<'a>: WalkRows<Item = Self::Item<'a>>
    where
        Self: 'a;

    /// The change marking of the fetch's written tracked columns, taken out
    /// by [`take_marks`](Self::take_marks); `()` when it has none.
    type Marks: Marks;

    /// Whether [`into_rows`](Self::into_rows) also hands out the rows of a
    /// driven walk's first slots where every column lines up with the
    /// driver (see [`lined_up`](Self::lined_up)), so that a `for` loop or a
    /// parallel walk walks them as packed rows: true where a column's rows are its
    /// storage's first slots (a storage read or written, `Option` of one,
    /// `With`); false where they depend on the walk (`Has`, whose rows are
    /// lookups, and `Lazy`, whose marks follow its runs) or where there are
    /// none (the columns walked only by lookup).
    const ROWS: bool;

    /// The first `len` rows of every column, for a packed walk (each written
    /// tracked value among them marked, unless the marks were taken). Only
    /// called with a `len` the plan found packed in every column.
    fn into_rows(self, len: usize) -> Self::Rows;

    /// How many of slots `slots` of a driven walk, from the first, every
    /// column holds the entities of `driver` in, in the same order (see
    /// `run`, in this module): each entity there matches, and its items are in those
    /// slots of every column, so [`slots`](Self::slots) walks them with no
    /// lookup. Storages filled with the same entities in the same order
    /// (spawned with one bundle) line up everywhere; a column that can only
    /// tell by looking each entity up (`Without`, `Or`, a change filter)
    /// never does (0).
    ///
    /// `order` is the driver's storage's order (see
    /// [`LineUp`](crate::sparse_map::line_up::LineUp); 0 if it has none): a
    /// storage that has proven it lines up with that order for these slots
    /// says so without comparing (see `run_proven`, in this module).
    fn lined_up(&self, driver: &[Entity], order: u64, slots: Range<usize>) -> usize;

    /// The rows of slots `slots` of the walk `driver` drives (each
    /// written tracked value among them marked). Only called on slots
    /// every column lines up in (see [`lined_up`](Self::lined_up)).
    fn slots<'a>(&'a mut self, driver: &'a [Entity], slots: Range<usize>) -> Self::Slots<'a>;

    /// Takes the change marking out of the written tracked columns: from
    /// now on they hand their values out unmarked, and the caller marks
    /// the slots it handed out with the returned [`Marks`]. For the walks
    /// that hand out rows in bulk and cannot know up front how many will be
    /// taken (a `for` loop over packed rows, a parallel walk).
    fn take_marks(&mut self) -> Self::Marks;

    /// The rows of the last [`slots`](Self::slots) are done with: a column
    /// that marks what was written through them (a [`Lazy`](crate::Lazy)
    /// column's flags) marks it now, so that marks come in the walk's
    /// order. Nothing for the others.
    #[inline(always)]
    fn end_run(&mut self) {}
}

/// A column walks only by lookup ([`Access`]): `Without`, `Or`, and the
/// candidates of `Changed`/`Added`. The plan never walks it packed nor
/// finds it lined up, so its [`Packed`] role is this one blanket: no rows,
/// a run of 0, nothing to mark.
pub(crate) trait Unpacked<'w>: Access<'w> {}

impl<'w, F: Unpacked<'w>> Packed<'w> for F {
    type Rows = NoRows<Self::Item<'w>>;
    type Slots<'a>
        = NoRows<Self::Item<'a>>
    where
        Self: 'a;
    type Marks = ();
    const ROWS: bool = false;

    #[inline]
    fn into_rows(self, len: usize) -> Self::Rows {
        debug_assert_eq!(len, 0, "a column walked only by lookup was walked packed");
        NoRows::default()
    }

    #[inline(always)]
    fn lined_up(&self, _driver: &[Entity], _order: u64, _slots: Range<usize>) -> usize {
        0
    }

    #[inline]
    fn slots<'a>(&'a mut self, _: &'a [Entity], _: Range<usize>) -> Self::Slots<'a> {
        NoRows::default()
    }

    #[inline(always)]
    fn take_marks(&mut self) {}
}

/// The change marking of a fetch's written tracked columns, taken out of it
/// (see [`Packed::take_marks`]): marks slots of those columns as changed,
/// now, or as it is dropped. `()` (no written tracked column) does nothing
/// and has nothing to drop, so a walk that holds it keeps no borrow alive
/// to its end.
pub(crate) trait Marks {
    /// `false` if there is nothing to mark (no written tracked column).
    const ANY: bool;

    /// Marks the values in `slots` of every written tracked column (the
    /// columns of a packed walk, or the one driving a parallel walk, hold
    /// the same entities in those slots).
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))] // `par_for_each` only
    fn mark(&mut self, slots: Range<usize>);

    /// `count` more of the first slots were handed out: the first slots
    /// handed out in all are marked when the marks are dropped (at the end
    /// of a walk, however it ends).
    fn more(&mut self, count: usize);
}

impl Marks for () {
    const ANY: bool = false;

    #[inline(always)]
    fn mark(&mut self, _: Range<usize>) {}

    #[inline(always)]
    fn more(&mut self, _: usize) {}
}

impl Marks for TrackedMarks<'_> {
    const ANY: bool = true;

    #[inline]
    fn mark(&mut self, slots: Range<usize>) {
        self.mark_slots(slots);
    }

    #[inline(always)]
    fn more(&mut self, count: usize) {
        self.handed(count);
    }
}

// Tuples of marks are implemented with the tuples of fetches (`impl_tuples`).

/// Steps through a driven walk: [`next`](Cursor::next) is called once for
/// every entity of the driver, in order, and says what that entity yields,
/// if it matches. A written column's cursor hands out `&mut` borrows that
/// outlive each step, in safe code: in dense order if it drives (the
/// driver's order), or taken out of a table by handle, each at most once,
/// if another column drives.
pub(crate) trait Cursor {
    /// What one entity yields.
    type Item;

    /// The items of `entity`, the driver's entity in slot `slot`. A written
    /// tracked column does not mark its value yet: the walk hands the items
    /// out only if every column has one, and calls [`commit`](Cursor::commit)
    /// then.
    fn next(&mut self, entity: Entity, slot: usize) -> Option<Self::Item>;

    /// The items the last [`next`](Cursor::next) returned for `entity`
    /// are handed out: each written tracked column marks its value. Called
    /// only after a `next` that returned `Some`.
    #[inline(always)]
    fn commit(&mut self, entity: Entity) {
        let _ = entity;
    }
}

// ----- the columns -----

/// The plan facts of a storage's column.
#[inline]
fn column<T, K: Track>(storage: &SparseMap<T, K>, required: bool, written: bool) -> Column<'_> {
    Column {
        entities: storage.entities(),
        mark: storage.mark(),
        required,
        written,
        candidates: false,
        line_up: Some(storage.line_up()),
    }
}

/// The entities of a granule: a driven walk learns whether its columns
/// line up with the driver a granule at a time, and looks the entities of
/// a granule that does not up one by one.
pub(crate) const GRANULE: usize = 16;

/// [`run`], for the entities of a storage whose proofs of lining up are
/// `line_up` (`None` for a window of one), in a walk driven by the storage
/// whose order is `order` (0: none known). Slots within what the storage
/// proved before need no comparison; slots that line up right after what
/// it proved (from the first slot, at first) extend the proof, so the next
/// walk over the same pair, while neither is reordered, compares nothing.
#[inline]
pub(crate) fn run_proven(
    line_up: Option<&LineUp>,
    entities: &[Entity],
    driver: &[Entity],
    order: u64,
    slots: Range<usize>,
) -> usize {
    let Some(line_up) = line_up.filter(|_| order != 0) else {
        return run(entities, driver, slots);
    };
    if core::ptr::eq(entities, driver) {
        return run(entities, driver, slots);
    }
    let proven = line_up.proven(order);
    // A proof covers at most both storages' lengths (see `LineUp`).
    if slots.end <= proven {
        debug_assert_eq!(
            run(entities, driver, slots.clone()),
            slots.len(),
            "a storage proven to line up with the driver does not"
        );
        return slots.len();
    }
    if slots.start < proven {
        return run_past_proof(line_up, entities, driver, order, slots, proven);
    }
    let lined = run(entities, driver, slots.clone());
    if lined > 0 && slots.start == proven {
        line_up.prove(order, slots.start + lined);
    }
    lined
}

/// [`run_proven`] where the proof `proven` covers the first of `slots`
/// but not all of them: the slots below it need no comparison, so the
/// comparison starts there (a walk that asks for all of a storage lined
/// up in part compares only past what it proved before), and what lines
/// up right after the proof extends it. Apart, so that the walks that
/// never meet a proof's end within one call (blocks of a `for_each`) keep
/// the few instructions they had inlined.
#[inline(never)]
fn run_past_proof(
    line_up: &LineUp,
    entities: &[Entity],
    driver: &[Entity],
    order: u64,
    slots: Range<usize>,
    proven: usize,
) -> usize {
    debug_assert_eq!(
        run(entities, driver, slots.start..proven),
        proven - slots.start,
        "a storage proven to line up with the driver does not"
    );
    let past = run(entities, driver, proven..slots.end);
    if past > 0 {
        line_up.prove(order, proven + past);
    }
    proven - slots.start + past
}

/// How many of `driver`'s slots, from its first, every column of `fetch`
/// holds the driver's entities in: what a `for` loop or a parallel walk
/// walks as rows before it looks the rest up (0 where the columns have no
/// rows to walk, [`Packed::ROWS`]). `driver` is `plan`'s walk's driver or
/// its writer walk's; the line-up proofs read are the walk's driver's,
/// only if it is this one.
#[inline]
pub(crate) fn lined_from_start<'w, F: Packed<'w>>(
    fetch: &F,
    plan: &Plan<'w>,
    driver: &[Entity],
) -> usize {
    if !F::ROWS {
        return 0;
    }
    let order = match (plan.walk, plan.driver_line_up) {
        (Walk::Driven(walk), Some(line_up)) if core::ptr::eq(walk, driver) => line_up.order(),
        _ => 0,
    };
    fetch.lined_up(driver, order, 0..driver.len())
}

/// How many of slots `slots`, from the first, `entities` holds the entities
/// of `driver` in: all of them at once if the two are the same array (the
/// driver's own column), else counted in whole granules (each compared
/// without an early exit, so that it compiles to wide compares), up to the
/// first granule that differs.
#[inline]
pub(crate) fn run(entities: &[Entity], driver: &[Entity], slots: Range<usize>) -> usize {
    let end = slots.end.min(entities.len()).min(driver.len());
    let (Some(mine), Some(theirs)) = (entities.get(slots.start..end), driver.get(slots.start..end))
    else {
        return 0;
    };
    if core::ptr::eq(mine, theirs) {
        return mine.len();
    }
    if mine.first() != theirs.first() {
        return 0;
    }
    let same = |a: &[Entity], b: &[Entity]| {
        a.iter()
            .zip(b)
            .fold(0, |differ, (a, b)| differ | (a.to_bits() ^ b.to_bits()))
            == 0
    };
    let (mut a, mut b) = (mine.chunks_exact(GRANULE), theirs.chunks_exact(GRANULE));
    let mut run = 0;
    for (a, b) in (&mut a).zip(&mut b) {
        if !same(a, b) {
            return run;
        }
        run += GRANULE;
    }
    if same(a.remainder(), b.remainder()) {
        run += a.remainder().len();
    }
    run
}

/// A lookup by handle across a tuple's columns ([`Join::get`]): the
/// first column looks the entity up; each column after it tries the slot
/// the first found it in (storages spawned together hold an entity in the
/// same slot) and, below `proven` (the length every later storage is
/// proven to line up with the first's for: see
/// [`Lookups`](super::join)), takes it unchecked.
///
/// [`Join::get`]: super::Join::get
struct HandleLookup {
    /// The slot the columns so far found the entity in (`usize::MAX`
    /// before the first).
    hint: usize,
    /// See above.
    proven: usize,
    /// Whether a column was looked in.
    started: bool,
    /// Whether the first column is a storage's and every storage column
    /// so far found the entity at its slot.
    at_first: bool,
}

impl HandleLookup {
    /// A lookup by handle; `hint`, the slot the first column tries first
    /// (`usize::MAX` for none).
    #[inline(always)]
    fn new(hint: usize, proven: usize) -> Self {
        HandleLookup {
            hint,
            proven,
            started: false,
            at_first: false,
        }
    }

    /// Finds `entity` in `column`, the next of the tuple.
    #[inline(always)]
    fn find<'w, F: Access<'w>>(&mut self, column: &F, entity: Entity) -> Option<F::Found> {
        let storage = column.lookup_storage().is_some();
        let found = if self.at_first && storage {
            column.find_proven(entity, self.hint, self.proven)?
        } else {
            column.find(entity, self.hint)?
        };
        self.found::<F>(&found, storage);
        Some(found)
    }

    /// [`find`](Self::find) in a driven walk: `number` is the driver's
    /// number among `column`'s columns (past them if it is not one of
    /// them), and the driver holds `entity` in `slot`, where it takes its
    /// items unchecked.
    #[inline(always)]
    fn find_driven<'w, F: Access<'w>>(
        &mut self,
        column: &F,
        entity: Entity,
        slot: usize,
        number: usize,
    ) -> Option<F::Found> {
        if number >= F::COLUMNS {
            return self.find(column, entity);
        }
        let found = column.find_driven(entity, slot, number)?;
        self.found::<F>(&found, column.lookup_storage().is_some());
        Some(found)
    }

    /// Notes where `column` (one storage's if `storage`) found the entity.
    #[inline(always)]
    fn found<'w, F: Access<'w>>(&mut self, found: &F::Found, storage: bool) {
        let slot = F::slot_of(found);
        if !self.started {
            self.started = true;
            self.at_first = storage && slot.is_some();
        } else if slot.is_some_and(|slot| slot != self.hint) {
            // Found elsewhere (above `proven`: below it, every later
            // storage holds the first's entities there, so none holds this
            // one elsewhere): the columns after it check.
            self.at_first = false;
        }
        if let Some(slot) = slot {
            self.hint = slot;
        }
    }
}

impl<'w, C: 'static, K: Track> FetchItem<'w> for &'w SparseMap<C, K> {
    type Item<'a> = &'w C;
}

impl<'w, C: 'static, K: Track> Access<'w> for &'w SparseMap<C, K> {
    type Found = usize;
    type Cursor = Self;
    const COLUMNS: usize = 1;

    #[inline]
    fn plan(&self, planner: &mut Planner<'w>) {
        planner.column(column(self, true, false));
    }

    #[inline]
    fn find(&self, entity: Entity, slot: usize) -> Option<usize> {
        self.index_of_at(entity, slot)
    }

    #[inline(always)]
    fn find_driven(&self, entity: Entity, slot: usize, driver: usize) -> Option<usize> {
        match driver {
            0 => Some(slot),
            _ => self.find(entity, slot),
        }
    }

    #[inline(always)]
    fn slot_of(found: &usize) -> Option<usize> {
        Some(*found)
    }

    #[inline(always)]
    fn lookup_storage(&self) -> Option<(&'w [Entity], &'w LineUp)> {
        let storage: &'w SparseMap<C, K> = self;
        Some((storage.entities(), storage.line_up()))
    }

    #[inline(always)]
    fn find_proven(&self, entity: Entity, slot: usize, proven: usize) -> Option<usize> {
        if slot < proven {
            return Some(slot);
        }
        self.find(entity, slot)
    }

    #[inline(always)]
    fn fetch(&mut self, found: usize, _: Entity) -> &'w C {
        let storage: &'w SparseMap<C, K> = self;
        &storage.values()[found]
    }

    #[inline(always)]
    fn fetch_owned(self, found: usize, _: Entity) -> &'w C {
        &self.values()[found]
    }

    #[inline]
    fn into_cursor(self) -> Self {
        self
    }

    #[inline]
    fn split_at(self, _mid: usize) -> (Self, Self) {
        (self, self)
    }
}

impl<'w, C: 'static, K: Track> Packed<'w> for &'w SparseMap<C, K> {
    type Rows = &'w [C];
    type Slots<'a>
        = &'w [C]
    where
        Self: 'a;
    type Marks = ();
    const ROWS: bool = true;

    #[inline]
    fn into_rows(self, len: usize) -> &'w [C] {
        &self.values()[..len]
    }

    #[inline]
    fn lined_up(&self, driver: &[Entity], order: u64, slots: Range<usize>) -> usize {
        run_proven(Some(self.line_up()), self.entities(), driver, order, slots)
    }

    #[inline]
    fn slots<'a>(&'a mut self, _: &'a [Entity], slots: Range<usize>) -> &'w [C] {
        &self.values()[slots]
    }

    #[inline(always)]
    fn take_marks(&mut self) {}
}

impl<'w, C, K: Track> Cursor for &'w SparseMap<C, K> {
    type Item = &'w C;

    #[inline]
    fn next(&mut self, entity: Entity, slot: usize) -> Option<&'w C> {
        let storage: &'w SparseMap<C, K> = self;
        storage
            .index_of_at(entity, slot)
            .map(|slot| &storage.values()[slot])
    }
}

impl<'w, C: 'static, K: Track> ReadOnly<'w> for &'w SparseMap<C, K> {}

/// The [`Access`] role of a written storage's column, the same for each:
/// `$item` is what it hands out, `$cursor` its cursor (made by
/// `$into_cursor`), and `$planned` runs after its column is folded into the
/// plan.
macro_rules! impl_written_access {
    ($view:ident, $item:ty, $cursor:ident, $into_cursor:expr, $planned:expr) => {
        impl<'w, C: 'static> FetchItem<'w> for $view<'w, C> {
            type Item<'a> = $item;
        }

        impl<'w, C: 'static> Access<'w> for $view<'w, C> {
            type Found = usize;
            type Cursor = $cursor<'w, C>;
            const COLUMNS: usize = 1;

            #[inline]
            fn plan(&self, planner: &mut Planner<'w>) {
                planner.column(Column {
                    entities: self.entities(),
                    mark: self.mark(),
                    required: true,
                    written: true,
                    candidates: false,
                    line_up: self.line_up(),
                });
                $planned(planner);
            }

            #[inline]
            fn find(&self, entity: Entity, slot: usize) -> Option<usize> {
                self.find_at(entity, slot)
            }

            #[inline(always)]
            fn find_driven(&self, entity: Entity, slot: usize, driver: usize) -> Option<usize> {
                match driver {
                    0 => Some(slot),
                    _ => self.find_at(entity, slot),
                }
            }

            #[inline(always)]
            fn slot_of(found: &usize) -> Option<usize> {
                Some(*found)
            }

            #[inline(always)]
            fn lookup_storage(&self) -> Option<(&'w [Entity], &'w LineUp)> {
                Some((self.entities(), self.line_up()?))
            }

            #[inline(always)]
            fn find_proven(&self, entity: Entity, slot: usize, proven: usize) -> Option<usize> {
                if slot < proven {
                    return Some(slot);
                }
                self.find_at(entity, slot)
            }

            #[inline(always)]
            fn fetch(&mut self, found: usize, entity: Entity) -> Self::Item<'_> {
                self.value_mut(found, entity)
            }

            #[inline(always)]
            fn fetch_owned(self, found: usize, entity: Entity) -> Self::Item<'w> {
                self.into_value(found, entity)
            }

            #[inline]
            fn into_cursor(self) -> $cursor<'w, C> {
                $into_cursor(self)
            }

            #[inline]
            fn split_at(self, mid: usize) -> (Self, Self) {
                $view::split_at(self, mid)
            }

            #[inline]
            fn drive(&mut self, driver: &[Entity]) {
                self.set_driver(driver);
            }
        }
    };
}

/// Both roles of a written storage's column that hands out `&mut C`:
/// [`ViewMut`] and, for a tracked storage, [`TrackedViewMut`] (which marks
/// what it hands out). They differ in their cursor and their marks alone,
/// which `$into_cursor` and `$take_marks` make. ([`LazyViewMut`] shares
/// the [`Access`] role, handing out `Mut<C>`.)
macro_rules! impl_written_column {
    ($view:ident, $cursor:ident, $into_cursor:expr, $marks:ty, $take_marks:expr) => {
        impl_written_access!(
            $view,
            &'a mut C,
            $cursor,
            $into_cursor,
            |_: &mut Planner<'w>| ()
        );

        impl<'w, C: 'static> Packed<'w> for $view<'w, C> {
            type Rows = &'w mut [C];
            type Slots<'a>
                = &'a mut [C]
            where
                Self: 'a;
            type Marks = $marks;
            const ROWS: bool = true;

            #[inline]
            fn into_rows(self, len: usize) -> &'w mut [C] {
                self.into_values_prefix(len)
            }

            #[inline]
            fn lined_up(&self, driver: &[Entity], order: u64, slots: Range<usize>) -> usize {
                run_proven(self.line_up(), self.entities(), driver, order, slots)
            }

            #[inline]
            fn slots<'a>(&'a mut self, _: &'a [Entity], slots: Range<usize>) -> &'a mut [C] {
                self.values_in(slots)
            }

            #[inline(always)]
            fn take_marks(&mut self) -> $marks {
                $take_marks(self)
            }
        }
    };
}

impl_written_column!(
    ViewMut,
    WriterCursor,
    |view: ViewMut<'w, C>| WriterCursor(view.into_order()),
    (),
    |_: &mut ViewMut<'w, C>| ()
);
impl_written_column!(
    TrackedViewMut,
    TrackedCursor,
    TrackedCursor::new,
    TrackedMarks<'w>,
    TrackedViewMut::take_marks
);

impl_written_access!(
    LazyViewMut,
    Mut<'a, C>,
    LazyCursor,
    |view: LazyViewMut<'w, C>| LazyCursor(TrackedCursor::new(view.into_marking())),
    Planner::never_packed
);

impl<'w, C: 'static> Packed<'w> for LazyViewMut<'w, C> {
    type Rows = NoRows<Mut<'w, C>>;
    type Slots<'a>
        = LazyRun<'a, C>
    where
        Self: 'a;
    type Marks = TrackedMarks<'w>;
    const ROWS: bool = false;

    /// Never called with rows: a `Lazy` column's plan is never packed.
    #[inline]
    fn into_rows(self, len: usize) -> Self::Rows {
        debug_assert_eq!(len, 0, "a `Lazy` column was walked packed");
        NoRows::default()
    }

    #[inline]
    fn lined_up(&self, driver: &[Entity], order: u64, slots: Range<usize>) -> usize {
        run_proven(self.line_up(), self.entities(), driver, order, slots)
    }

    #[inline]
    fn slots<'a>(&'a mut self, _: &'a [Entity], slots: Range<usize>) -> LazyRun<'a, C> {
        self.run(slots)
    }

    #[inline(always)]
    fn take_marks(&mut self) -> TrackedMarks<'w> {
        LazyViewMut::take_marks(self)
    }

    #[inline(always)]
    fn end_run(&mut self) {
        LazyViewMut::end_run(self);
    }
}

/// The cursor of a [`Lazy`](crate::Lazy) column in a `for` loop: each
/// value is marked as it is handed out (the loop's items may outlive any
/// run), then handed out as a `Mut` with nothing left to mark.
#[derive(Debug)]
pub struct LazyCursor<'w, C>(TrackedCursor<'w, C>);

impl<'w, C> Cursor for LazyCursor<'w, C> {
    type Item = Mut<'w, C>;

    #[inline]
    fn next(&mut self, entity: Entity, hint: usize) -> Option<Mut<'w, C>> {
        self.0.next(entity, hint).map(Mut::marked)
    }

    #[inline(always)]
    fn commit(&mut self, entity: Entity) {
        self.0.commit(entity);
    }
}

/// The cursor of a tracked written column: its values in dense order if
/// it drives the walk, by handle otherwise (see [`Order`]), each marked
/// when the walk hands it out.
#[derive(Debug)]
pub struct TrackedCursor<'w, T> {
    order: Order<'w, T>,
    /// The storage slot of view slot 0.
    offset: usize,
    log: Option<&'w mut ChangeLog>,
    /// The view slot of the value the last step found.
    pending: Option<usize>,
}

impl<'w, T> TrackedCursor<'w, T> {
    /// The cursor over `view`'s values.
    #[inline]
    pub(crate) fn new(view: TrackedViewMut<'w, T>) -> Self {
        let (view, log) = view.into_parts();
        TrackedCursor {
            offset: view.offset(),
            order: view.into_order(),
            log,
            pending: None,
        }
    }
}

impl<'w, C> Cursor for TrackedCursor<'w, C> {
    type Item = &'w mut C;

    /// The value of `entity`, the driver's entity at place `hint`, not
    /// marked yet (see [`commit`](Cursor::commit)).
    #[inline]
    fn next(&mut self, entity: Entity, hint: usize) -> Option<&'w mut C> {
        let found = self.order.next(entity, hint);
        self.pending = found.as_ref().map(|&(slot, _)| slot);
        found.map(|(_, value)| value)
    }

    /// Marks the value the last step found: it is handed out.
    #[inline(always)]
    fn commit(&mut self, entity: Entity) {
        if let (Some(slot), Some(log)) = (self.pending.take(), &mut self.log) {
            log.changed(self.offset + slot, entity);
        }
    }
}

/// The cursor of a written column: its values in dense order if it drives
/// the walk, taken out by handle otherwise (see [`Cursor`]).
#[derive(Debug)]
pub struct WriterCursor<'w, C>(Order<'w, C>);

impl<'w, C> Cursor for WriterCursor<'w, C> {
    type Item = &'w mut C;

    #[inline]
    fn next(&mut self, entity: Entity, hint: usize) -> Option<&'w mut C> {
        self.0.next(entity, hint).map(|(_, value)| value)
    }
}

impl<'w, F: Access<'w>> FetchItem<'w> for Maybe<F> {
    type Item<'a> = Option<F::Item<'a>>;
}

impl<'w, F: Access<'w>> Access<'w> for Maybe<F> {
    type Found = Option<F::Found>;
    type Cursor = MaybeCursor<F::Cursor>;
    const COLUMNS: usize = F::COLUMNS;

    #[inline]
    fn plan(&self, planner: &mut Planner<'w>) {
        planner.optional(|planner| self.0.plan(planner));
    }

    #[inline]
    fn find(&self, entity: Entity, slot: usize) -> Option<Self::Found> {
        Some(self.0.find(entity, slot))
    }

    #[inline(always)]
    fn find_driven(&self, entity: Entity, slot: usize, driver: usize) -> Option<Self::Found> {
        Some(self.0.find_driven(entity, slot, driver))
    }

    #[inline(always)]
    fn fetch(&mut self, found: Self::Found, entity: Entity) -> Self::Item<'_> {
        found.map(|found| self.0.fetch(found, entity))
    }

    #[inline(always)]
    fn fetch_owned(self, found: Self::Found, entity: Entity) -> Self::Item<'w> {
        found.map(|found| self.0.fetch_owned(found, entity))
    }

    #[inline]
    fn into_cursor(self) -> Self::Cursor {
        MaybeCursor {
            cursor: self.0.into_cursor(),
            found: false,
        }
    }

    #[inline]
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (a, b) = self.0.split_at(mid);
        (Maybe(a), Maybe(b))
    }

    #[inline]
    fn drive(&mut self, driver: &[Entity]) {
        self.0.drive(driver);
    }
}

impl<'w, F: Packed<'w>> Packed<'w> for Maybe<F> {
    type Rows = MaybeRows<F::Rows>;
    type Slots<'a>
        = MaybeRows<F::Slots<'a>>
    where
        Self: 'a;
    type Marks = F::Marks;
    const ROWS: bool = F::ROWS;

    #[inline]
    fn into_rows(self, len: usize) -> Self::Rows {
        MaybeRows(self.0.into_rows(len))
    }

    /// Only where the column holds every entity of the run.
    #[inline]
    fn lined_up(&self, driver: &[Entity], order: u64, slots: Range<usize>) -> usize {
        self.0.lined_up(driver, order, slots)
    }

    #[inline]
    fn slots<'a>(&'a mut self, driver: &'a [Entity], slots: Range<usize>) -> Self::Slots<'a> {
        MaybeRows(self.0.slots(driver, slots))
    }

    #[inline(always)]
    fn take_marks(&mut self) -> F::Marks {
        self.0.take_marks()
    }

    #[inline(always)]
    fn end_run(&mut self) {
        self.0.end_run();
    }
}

/// The cursor of an optional column: `Some` of the inner column's item, or
/// `None`; it remembers which, so that only an item handed out is marked.
#[derive(Clone, Debug)]
pub struct MaybeCursor<C> {
    cursor: C,
    found: bool,
}

impl<C: Cursor> Cursor for MaybeCursor<C> {
    type Item = Option<C::Item>;

    #[inline]
    fn next(&mut self, entity: Entity, slot: usize) -> Option<Self::Item> {
        let item = self.cursor.next(entity, slot);
        self.found = item.is_some();
        Some(item)
    }

    #[inline(always)]
    fn commit(&mut self, entity: Entity) {
        if self.found {
            self.cursor.commit(entity);
        }
    }
}

impl<'w, F: ReadOnly<'w>> ReadOnly<'w> for Maybe<F> {}

impl<'w, C: 'static, K: Track> FetchItem<'w> for With<&'w SparseMap<C, K>> {
    type Item<'a> = ();
}

impl<'w, C: 'static, K: Track> Access<'w> for With<&'w SparseMap<C, K>> {
    type Found = ();
    type Cursor = Self;
    const COLUMNS: usize = 1;

    #[inline]
    fn plan(&self, planner: &mut Planner<'w>) {
        planner.column(column(self.0, true, false));
    }

    #[inline]
    fn find(&self, entity: Entity, slot: usize) -> Option<()> {
        self.0.index_of_at(entity, slot).map(|_| ())
    }

    #[inline(always)]
    fn find_driven(&self, entity: Entity, slot: usize, driver: usize) -> Option<()> {
        match driver {
            0 => Some(()),
            _ => self.find(entity, slot),
        }
    }

    #[inline(always)]
    fn fetch(&mut self, (): (), _: Entity) {}

    #[inline(always)]
    fn fetch_owned(self, (): (), _: Entity) {}

    #[inline]
    fn into_cursor(self) -> Self {
        self
    }

    #[inline]
    fn split_at(self, _mid: usize) -> (Self, Self) {
        (self, self)
    }
}

impl<'w, C: 'static, K: Track> Packed<'w> for With<&'w SparseMap<C, K>> {
    type Rows = Units<'w>;
    type Slots<'a>
        = Units<'w>
    where
        Self: 'a;
    type Marks = ();
    const ROWS: bool = true;

    #[inline]
    fn into_rows(self, len: usize) -> Units<'w> {
        Units(&self.0.entities()[..len])
    }

    #[inline]
    fn lined_up(&self, driver: &[Entity], order: u64, slots: Range<usize>) -> usize {
        run_proven(
            Some(self.0.line_up()),
            self.0.entities(),
            driver,
            order,
            slots,
        )
    }

    #[inline]
    fn slots<'a>(&'a mut self, _: &'a [Entity], slots: Range<usize>) -> Units<'w> {
        Units(&self.0.entities()[slots])
    }

    #[inline(always)]
    fn take_marks(&mut self) {}
}

impl<C, K: Track> Cursor for With<&SparseMap<C, K>> {
    type Item = ();

    #[inline]
    fn next(&mut self, entity: Entity, slot: usize) -> Option<()> {
        self.0.index_of_at(entity, slot).map(|_| ())
    }
}

impl<'w, C: 'static, K: Track> ReadOnly<'w> for With<&'w SparseMap<C, K>> {}

/// A column that asks each entity whether the storage holds it, and hands
/// out the answer's item: `Without` (matches when it does not; `()`) and
/// `Has` (always matches; a `bool`). Both are looked up per entity: neither
/// is required, so neither drives nor walks packed. Each asks the sparse
/// entry alone, which carries the generation ([`SparseMap::contains`]): a
/// marker storage's dense order rarely matches the driver's, so trying the
/// driver's slot first (as a value column does) costs a read that misses.
/// `Without` can turn an entity away, so a run of a driven walk never lines
/// up through it ([`Unpacked`]); `Has` never does, so it lines up with any
/// run the other columns line up in, answering for each of the run's
/// entities (see its [`Packed`] impl).
macro_rules! impl_presence_column {
    ($wrapper:ident, $item:ty, |$map:ident, $entity:ident| $find:expr) => {
        lookup_column!(
            [C: 'static, K: Track] $wrapper<&'w SparseMap<C, K>>, $item,
            plan |this| column(this.0, false, false),
            find |this, $entity| {
                let $map = this.0;
                $find
            }
        );
    };
}

/// The sealed interface of a column looked up per entity, that finds its
/// item in one step (`Found` is the item): the presence columns, the
/// relation filters and `Up`. `plan` is the column's plan facts; `find`
/// the item of `entity`, if it matches.
macro_rules! lookup_column {
    ([$($gen:tt)*] $ty:ty, $item:ty,
        plan |$pself:ident| $plan:expr,
        find |$fself:ident, $entity:ident| $find:expr) => {
        impl<'w, $($gen)*> FetchItem<'w> for $ty {
            type Item<'a> = $item;
        }

        impl<'w, $($gen)*> Access<'w> for $ty {
            type Found = $item;
            type Cursor = Self;
            const COLUMNS: usize = 1;

            #[inline]
            fn plan(&self, planner: &mut Planner<'w>) {
                let $pself = self;
                planner.column($plan);
            }

            #[inline]
            fn find(&self, $entity: Entity, _slot: usize) -> Option<$item> {
                let $fself = self;
                $find
            }

            #[inline(always)]
            fn fetch(&mut self, found: $item, _: Entity) -> $item {
                found
            }

            #[inline(always)]
            fn fetch_owned(self, found: $item, _: Entity) -> $item {
                found
            }

            #[inline]
            fn into_cursor(self) -> Self {
                self
            }

            #[inline]
            fn split_at(self, _mid: usize) -> (Self, Self) {
                (self, self)
            }
        }

        impl<'w, $($gen)*> Cursor for $ty {
            type Item = $item;

            #[inline]
            fn next(&mut self, $entity: Entity, _slot: usize) -> Option<$item> {
                let $fself = &*self;
                $find
            }
        }

        impl<'w, $($gen)*> ReadOnly<'w> for $ty {}
    };
}

impl_presence_column!(Without, (), |map, entity| (!map.contains(entity))
    .then_some(()));
impl_presence_column!(Has, bool, |map, entity| Some(map.contains(entity)));

impl<'w, C: 'static, K: Track> Unpacked<'w> for Without<&'w SparseMap<C, K>> {}

/// `Has` matches every entity: in a run of a driven walk where the other
/// columns line up, it answers for each of the run's entities, so a join
/// with a `Has` walks its runs with no lookup in the others (without it,
/// the one column that cannot line up would send every entity to a lookup
/// in every column). Never in a packed walk: it is not required.
impl<'w, C: 'static, K: Track> Packed<'w> for Has<&'w SparseMap<C, K>> {
    type Rows = NoRows<bool>;
    type Slots<'a>
        = Presence<'a, C, K>
    where
        Self: 'a;
    type Marks = ();
    const ROWS: bool = false;

    #[inline]
    fn into_rows(self, len: usize) -> Self::Rows {
        debug_assert_eq!(len, 0, "a `Has` column was walked packed");
        NoRows::default()
    }

    #[inline(always)]
    fn lined_up(&self, _driver: &[Entity], _order: u64, slots: Range<usize>) -> usize {
        slots.len()
    }

    #[inline]
    fn slots<'a>(&'a mut self, driver: &'a [Entity], slots: Range<usize>) -> Self::Slots<'a> {
        Presence {
            map: self.0,
            entities: driver[slots].iter(),
        }
    }

    #[inline(always)]
    fn take_marks(&mut self) {}
}

/// The rows of a `Has` column in a lined-up run: whether the storage holds
/// each of the run's entities.
#[derive(Debug)]
pub struct Presence<'a, C, K: Track> {
    map: &'a SparseMap<C, K>,
    entities: core::slice::Iter<'a, Entity>,
}

impl<C, K: Track> WalkRows for Presence<'_, C, K> {
    type Item = bool;
    type Parts = Self;

    #[inline(always)]
    fn parts(self) -> Self {
        self
    }

    #[inline(always)]
    fn item(part: bool) -> bool {
        part
    }
}

impl<C, K: Track> Iterator for Presence<'_, C, K> {
    type Item = bool;

    #[inline]
    fn next(&mut self) -> Option<bool> {
        self.entities
            .next()
            .map(|&entity| self.map.contains(entity))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entities.size_hint()
    }
}

// ----- relation columns: `Up`, `Linked`, `Unlinked`, `Targeted` -----
//
// Each reads a relation's side by entity, per entity: none is required,
// so none drives, and none lines up with a run ([`Unpacked`]).

/// The plan facts of a relation column: no entities of its own, never
/// required, never written.
#[inline]
fn relation_column<'w>() -> Column<'w> {
    Column {
        entities: &[],
        mark: crate::sparse_map::mark::Mark::NONE,
        required: false,
        written: false,
        candidates: false,
        line_up: None,
    }
}

/// What an [`Up`] reads on the target: `&SparseMap<C>` (the target must
/// have a `C`) or `Maybe<&SparseMap<C>>` (an `Option`, never filtering).
/// Sealed: implemented here only.
pub trait UpInner<'w>: Copy + crate::seal::Sealed {
    /// What the column yields.
    type Item: Copy;

    /// The item for an entity whose target is `target`, if it matches.
    #[doc(hidden)]
    fn of(self, target: Option<Entity>) -> Option<Self::Item>;
}

impl<'w, C: 'static, K: Track> UpInner<'w> for &'w SparseMap<C, K> {
    type Item = &'w C;

    #[inline]
    fn of(self, target: Option<Entity>) -> Option<&'w C> {
        self.get(target?)
    }
}

impl<'w, C: 'static, K: Track> UpInner<'w> for Maybe<&'w SparseMap<C, K>> {
    type Item = Option<&'w C>;

    #[inline]
    fn of(self, target: Option<Entity>) -> Option<Option<&'w C>> {
        Some(target.and_then(|target| self.0.get(target)))
    }
}

/// The fetch of an [`Up`]: the relation's links, what it reads on the
/// target, and, for a world's read-only query over a relation not in step
/// with the world, the allocator (a target must be alive). What
/// `Up(&world.child_of, &world.c)` becomes in a [`join`](super::join),
/// and the `Fetch` of an `Up<R, &C>` query term.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{IntoFetch, UpColumn};
///
/// struct ChildOf;
/// struct Scale(f32);
/// world! { struct Scene<Scale>; relations { child_of: ChildOf -> children; } }
///
/// let mut scene = Scene::new();
/// let (ship, gun) = (scene.spawn_with((Scale(2.0),)), scene.spawn_with((Scale(1.0),)));
/// scene.relate(gun, ChildOf, ship).unwrap();
/// let _fetch: UpColumn<'_, ChildOf, &SparseMap<Scale>> = Up(&scene.child_of, &scene.scale).into_fetch();
/// let parents: Vec<f32> = join((&scene.scale, Up(&scene.child_of, &scene.scale)))
///     .into_iter()
///     .map(|(_, (_, parent))| parent.0)
///     .collect();
/// assert_eq!(parents, [2.0]);
/// ```
#[derive(Debug)]
pub struct UpColumn<'w, R, I> {
    pub(crate) links: &'w Links<R>,
    pub(crate) inner: I,
    pub(crate) alive: Option<&'w crate::EntityAllocator>,
}

impl<R, I: Copy> Clone for UpColumn<'_, R, I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R, I: Copy> Copy for UpColumn<'_, R, I> {}

impl<'w, R, I: UpInner<'w>> UpColumn<'w, R, I> {
    #[inline]
    fn item(&self, entity: Entity) -> Option<I::Item> {
        let target = self.links.target(entity);
        let target = match self.alive {
            None => target,
            Some(allocator) => target.filter(|&t| allocator.is_alive(t)),
        };
        self.inner.of(target)
    }
}

lookup_column!(
    [R: 'w, I: UpInner<'w>] UpColumn<'w, R, I>, I::Item,
    plan |_this| relation_column(),
    find |this, entity| this.item(entity)
);

impl<'w, R: 'w, I: UpInner<'w>> Unpacked<'w> for UpColumn<'w, R, I> {}

/// A filter column over one side of a relation: `Linked` and `Unlinked`
/// (over the links, one target a source or `many`) and `Targeted` (over
/// the sources), each yielding `()`.
macro_rules! impl_relation_filter {
    ($wrapper:ident, [$($gen:tt)*] $side:ty, |$map:ident, $entity:ident| $test:expr) => {
        lookup_column!(
            [$($gen)*] $wrapper<&'w $side>, (),
            plan |_this| relation_column(),
            find |this, $entity| {
                let $map = this.0;
                $test.then_some(())
            }
        );

        impl<'w, $($gen)*> Unpacked<'w> for $wrapper<&'w $side> {}

        impl<'w, $($gen)*> IntoFetch<'w> for $wrapper<&'w $side> {
            type Fetch = Self;

            #[inline]
            fn into_fetch(self) -> Self {
                self
            }
        }
    };
}

impl_relation_filter!(Linked, [F: HasLinks + 'w] F, |links, entity| links.has_link(entity));
impl_relation_filter!(Unlinked, [F: HasLinks + 'w] F, |links, entity| !links.has_link(entity));
impl_relation_filter!(Targeted, [R: 'w] Sources<R>, |sources, entity| sources.contains(entity));

impl<'w, R: 'w, I: UpInner<'w>> IntoFetch<'w> for Up<&'w Links<R>, I> {
    type Fetch = UpColumn<'w, R, I>;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        UpColumn {
            links: self.0,
            inner: self.1,
            alive: None,
        }
    }
}

// ----- tuples -----

macro_rules! impl_tuples {
    ($($f:ident $x:ident),+) => {
        /// A tuple's marks: each element's.
        #[allow(non_snake_case)]
        impl<$($f: Marks),+> Marks for ($($f,)+) {
            const ANY: bool = false $(|| $f::ANY)+;

            #[inline]
            fn mark(&mut self, slots: Range<usize>) {
                let ($($f,)+) = self;
                $($f.mark(slots.clone());)+
            }

            #[inline(always)]
            fn more(&mut self, count: usize) {
                let ($($f,)+) = self;
                $($f.more(count);)+
            }
        }

        impl<'w, $($f: Access<'w>),+> FetchItem<'w> for ($($f,)+) {
            type Item<'a> = ($($f::Item<'a>,)+);
        }

        #[allow(non_snake_case)]
        impl<'w, $($f: Access<'w>),+> Access<'w> for ($($f,)+) {
            type Found = ($($f::Found,)+);
            type Cursor = ($($f::Cursor,)+);
            const COLUMNS: usize = 0 $(+ $f::COLUMNS)+;

            #[inline]
            fn plan(&self, planner: &mut Planner<'w>) {
                let ($($f,)+) = self;
                $($f.plan(planner);)+
            }

            /// Each column after a storage column that found the entity
            /// tries its slot first (see [`find_driven`](Self::find_driven)):
            /// a lookup by handle (`get_many`) looks the entity up in the
            /// first storage alone where the others are filled alike.
            #[inline]
            fn find(&self, entity: Entity, slot: usize) -> Option<Self::Found> {
                let ($($f,)+) = self;
                let mut hint = slot;
                $(
                    let $f = $f.find(entity, hint)?;
                    hint = <$f as Access<'w>>::slot_of(&$f).unwrap_or(hint);
                )+
                let _ = hint;
                Some(($($f,)+))
            }

            #[inline(always)]
            fn storages(&self, visit: &mut impl FnMut(&'w [Entity], &'w LineUp)) {
                let ($($f,)+) = self;
                $($f.storages(visit);)+
            }

            /// Each column after the first tries the slot the first found
            /// the entity in, unchecked below `proven` (see
            /// [`HandleLookup`]).
            #[inline(always)]
            fn find_by_handle(
                &self,
                entity: Entity,
                proven: usize,
            ) -> Option<Self::Found> {
                let ($($f,)+) = self;
                let mut lookup = HandleLookup::new(usize::MAX, proven);
                Some(($(lookup.find($f, entity)?,)+))
            }

            /// [`find_driven`](Self::find_driven), each storage column after
            /// the first trusting the slot the first found the entity in
            /// below `proven` (see [`HandleLookup`]).
            ///
            /// Each element is told the driver's number among its own
            /// columns (a number past them if it is not one of them). The
            /// one the driver is among is told its slot; the others the slot
            /// the last storage column found the entity in, if one did, a
            /// hint they check (below `proven`, do not): storages filled
            /// alike (spawned with one bundle) hold it in the same slot, so
            /// each after the first finds it there, with no sparse lookup,
            /// when the driver's order is not theirs (a marker's storage
            /// driving).
            #[inline(always)]
            fn find_driven_proven(
                &self,
                entity: Entity,
                slot: usize,
                driver: usize,
                proven: usize,
            ) -> Option<Self::Found> {
                let ($($f,)+) = self;
                let mut lookup = HandleLookup::new(slot, proven);
                let mut first = 0;
                $(
                    let number = driver.wrapping_sub(first);
                    let $f = lookup.find_driven($f, entity, slot, number)?;
                    first += <$f as Access<'w>>::COLUMNS;
                )+
                let _ = first;
                Some(($($f,)+))
            }

            /// [`find_driven_proven`](Self::find_driven_proven) with
            /// nothing proven (a tuple nested in another, holding the
            /// driver): every hint checked.
            #[inline(always)]
            fn find_driven(
                &self,
                entity: Entity,
                slot: usize,
                driver: usize,
            ) -> Option<Self::Found> {
                self.find_driven_proven(entity, slot, driver, 0)
            }

            #[inline(always)]
            fn fetch(&mut self, found: Self::Found, entity: Entity) -> Self::Item<'_> {
                let ($($f,)+) = self;
                let ($($x,)+) = found;
                ($($f.fetch($x, entity),)+)
            }

            #[inline(always)]
            fn fetch_owned(self, found: Self::Found, entity: Entity) -> Self::Item<'w> {
                let ($($f,)+) = self;
                let ($($x,)+) = found;
                ($($f.fetch_owned($x, entity),)+)
            }

            #[inline]
            fn into_cursor(self) -> Self::Cursor {
                let ($($f,)+) = self;
                ($($f.into_cursor(),)+)
            }

            #[inline]
            fn split_at(self, mid: usize) -> (Self, Self) {
                let ($($f,)+) = self;
                $(let $f = $f.split_at(mid);)+
                (($($f.0,)+), ($($f.1,)+))
            }

            #[inline]
            fn drive(&mut self, driver: &[Entity]) {
                let ($($f,)+) = self;
                $($f.drive(driver);)+
            }
        }

        #[allow(non_snake_case)]
        impl<'w, $($f: Packed<'w>),+> Packed<'w> for ($($f,)+) {
            type Rows = Rows<($($f::Rows,)+)>;
            type Slots<'a>
                = Rows<($($f::Slots<'a>,)+)>
            where
                Self: 'a;
            type Marks = ($($f::Marks,)+);
            const ROWS: bool = true $(&& $f::ROWS)+;

            #[inline]
            fn into_rows(self, len: usize) -> Self::Rows {
                let ($($f,)+) = self;
                Rows(($($f.into_rows(len),)+))
            }

            #[inline]
            fn lined_up(&self, driver: &[Entity], order: u64, slots: Range<usize>) -> usize {
                let ($($f,)+) = self;
                let mut end = slots.end;
                $(end = slots.start + $f.lined_up(driver, order, slots.start..end);)+
                end - slots.start
            }

            #[inline]
            fn slots<'a>(&'a mut self, driver: &'a [Entity], slots: Range<usize>) -> Self::Slots<'a> {
                let ($($f,)+) = self;
                Rows(($($f.slots(driver, slots.clone()),)+))
            }

            #[inline(always)]
            fn take_marks(&mut self) -> Self::Marks {
                let ($($f,)+) = self;
                ($($f.take_marks(),)+)
            }

            #[inline(always)]
            fn end_run(&mut self) {
                let ($($f,)+) = self;
                $($f.end_run();)+
            }
        }

        #[allow(non_snake_case)]
        impl<$($f: Cursor),+> Cursor for ($($f,)+) {
            type Item = ($($f::Item,)+);

            #[inline(always)]
            fn next(&mut self, entity: Entity, slot: usize) -> Option<Self::Item> {
                let ($($f,)+) = self;
                // Every cursor steps, even past a column that does not
                // match: a written column's cursor must stay in step with
                // the driver.
                $(let $x = $f.next(entity, slot);)+
                Some(($($x?,)+))
            }

            #[inline(always)]
            fn commit(&mut self, entity: Entity) {
                let ($($f,)+) = self;
                $($f.commit(entity);)+
            }
        }

        impl<'w, $($f: ReadOnly<'w>),+> ReadOnly<'w> for ($($f,)+) {}
    };
}

impl_tuples!(F0 x0);
impl_tuples!(F0 x0, F1 x1);
impl_tuples!(F0 x0, F1 x1, F2 x2);
impl_tuples!(F0 x0, F1 x1, F2 x2, F3 x3);
impl_tuples!(F0 x0, F1 x1, F2 x2, F3 x3, F4 x4);
impl_tuples!(F0 x0, F1 x1, F2 x2, F3 x3, F4 x4, F5 x5);
impl_tuples!(F0 x0, F1 x1, F2 x2, F3 x3, F4 x4, F5 x5, F6 x6);
impl_tuples!(F0 x0, F1 x1, F2 x2, F3 x3, F4 x4, F5 x5, F6 x6, F7 x7);
impl_tuples!(F0 x0, F1 x1, F2 x2, F3 x3, F4 x4, F5 x5, F6 x6, F7 x7, F8 x8);
impl_tuples!(F0 x0, F1 x1, F2 x2, F3 x3, F4 x4, F5 x5, F6 x6, F7 x7, F8 x8, F9 x9);
impl_tuples!(F0 x0, F1 x1, F2 x2, F3 x3, F4 x4, F5 x5, F6 x6, F7 x7, F8 x8, F9 x9, F10 x10);
impl_tuples!(F0 x0, F1 x1, F2 x2, F3 x3, F4 x4, F5 x5, F6 x6, F7 x7, F8 x8, F9 x9, F10 x10, F11 x11);

// ----- a world's storages into fetches: `query_mut` -----

/// How a column is made from the storage a world lends: the leaf fetches
/// of [`QueryTerm`](super::QueryTerm)s. Sealed.
pub trait FromStorage<'w, C, K: Track> {
    /// The column over `storage`.
    fn from_storage(storage: &'w mut SparseMap<C, K>) -> Self;
}

impl<'w, C, K: Track> FromStorage<'w, C, K> for &'w SparseMap<C, K> {
    #[inline]
    fn from_storage(storage: &'w mut SparseMap<C, K>) -> Self {
        storage
    }
}

impl<'w, C> FromStorage<'w, C, Untracked> for ViewMut<'w, C> {
    #[inline]
    fn from_storage(storage: &'w mut SparseMap<C>) -> Self {
        storage.view_mut()
    }
}

impl<'w, C> FromStorage<'w, C, Tracked> for TrackedViewMut<'w, C> {
    #[inline]
    fn from_storage(storage: &'w mut SparseMap<C, Tracked>) -> Self {
        storage.tracked_view(None).0
    }
}

impl<'w, C, K: Track, F: FromStorage<'w, C, K>> FromStorage<'w, C, K> for Maybe<F> {
    #[inline]
    fn from_storage(storage: &'w mut SparseMap<C, K>) -> Self {
        Maybe(F::from_storage(storage))
    }
}

impl<'w, C, K: Track> FromStorage<'w, C, K> for With<&'w SparseMap<C, K>> {
    #[inline]
    fn from_storage(storage: &'w mut SparseMap<C, K>) -> Self {
        With(storage)
    }
}

impl<'w, C: 'static, K: Writable<C>> FromStorage<'w, C, K> for LazyViewMut<'w, C> {
    #[inline]
    fn from_storage(storage: &'w mut SparseMap<C, K>) -> Self {
        K::lazy(storage)
    }
}

impl<'w, C, K: Track> FromStorage<'w, C, K> for Has<&'w SparseMap<C, K>> {
    #[inline]
    fn from_storage(storage: &'w mut SparseMap<C, K>) -> Self {
        Has(storage)
    }
}

impl<'w, C, K: Track> FromStorage<'w, C, K> for Without<&'w SparseMap<C, K>> {
    #[inline]
    fn from_storage(storage: &'w mut SparseMap<C, K>) -> Self {
        Without(storage)
    }
}

/// The column a storage of kind `Self` lends for `&mut C`: a [`ViewMut`]
/// if untracked, a [`TrackedViewMut`] (which marks what it hands out) if
/// tracked. Sealed.
pub trait Writable<C>: Track {
    /// The written column, borrowed for `'w`.
    type View<'w>: Packed<'w>
        + FromStorage<'w, C, Self>
        + for<'a> FetchItem<'w, Item<'a> = &'a mut C>
    where
        C: 'w;

    /// The column of `Lazy(storage)`: its values handed out as `Mut`s.
    #[doc(hidden)]
    fn lazy<'w>(storage: &'w mut SparseMap<C, Self>) -> LazyViewMut<'w, C>
    where
        C: 'w;
}

impl<C: 'static> Writable<C> for Untracked {
    type View<'w>
        = ViewMut<'w, C>
    where
        C: 'w;

    #[inline]
    fn lazy<'w>(storage: &'w mut SparseMap<C>) -> LazyViewMut<'w, C>
    where
        C: 'w,
    {
        LazyViewMut::new(storage.view_mut(), None)
    }
}

impl<C: 'static> Writable<C> for Tracked {
    type View<'w>
        = TrackedViewMut<'w, C>
    where
        C: 'w;

    #[inline]
    fn lazy<'w>(storage: &'w mut SparseMap<C, Tracked>) -> LazyViewMut<'w, C>
    where
        C: 'w,
    {
        let (view, log) = storage.tracked_view(None).0.into_parts();
        LazyViewMut::new(view, log)
    }
}

impl<'w, C: 'static, K: Writable<C>> IntoFetch<'w> for Lazy<&'w mut SparseMap<C, K>> {
    type Fetch = LazyViewMut<'w, C>;

    #[inline]
    fn into_fetch(self) -> LazyViewMut<'w, C> {
        K::lazy(self.0)
    }
}

// ----- borrowed storages into fetches: `join` -----

/// Storages you borrowed yourself, ready to be joined: `&SparseMap<C>`,
/// `&mut SparseMap<C>`, `Maybe(&map)`, `Maybe(&mut map)`, `With(&map)`,
/// `Without(&map)`, or a tuple of up to 12 of them. See [`join`](super::join).
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{join, IntoFetch};
///
/// struct Pos(i32);
/// world! { struct Game<Pos>; }
///
/// fn total<'w>(storages: impl IntoFetch<'w, Fetch = &'w SparseMap<Pos>>) -> i32 {
///     join(storages).into_iter().map(|(_, pos)| pos.0).sum()
/// }
/// let mut world = Game::new();
/// world.spawn_with((Pos(4),));
/// assert_eq!(total(&world.pos), 4);
/// ```
pub trait IntoFetch<'w> {
    /// The fetch these storages become.
    type Fetch: Fetch<'w>;

    /// Converts the borrows into a fetch.
    fn into_fetch(self) -> Self::Fetch;
}

impl<'w, C: 'static, K: Track> IntoFetch<'w> for &'w SparseMap<C, K> {
    type Fetch = Self;

    #[inline]
    fn into_fetch(self) -> Self {
        self
    }
}

impl<'w, C: 'static, K: Writable<C>> IntoFetch<'w> for &'w mut SparseMap<C, K> {
    type Fetch = K::View<'w>;

    #[inline]
    fn into_fetch(self) -> K::View<'w> {
        K::View::from_storage(self)
    }
}

impl<'w, C: 'static> IntoFetch<'w> for ViewMut<'w, C> {
    type Fetch = Self;

    #[inline]
    fn into_fetch(self) -> Self {
        self
    }
}

impl<'w, T: IntoFetch<'w>> IntoFetch<'w> for Maybe<T> {
    type Fetch = Maybe<T::Fetch>;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        Maybe(self.0.into_fetch())
    }
}

impl<'w, C: 'static, K: Track> IntoFetch<'w> for With<&'w SparseMap<C, K>> {
    type Fetch = Self;

    #[inline]
    fn into_fetch(self) -> Self {
        self
    }
}

impl<'w, C: 'static, K: Track> IntoFetch<'w> for Without<&'w SparseMap<C, K>> {
    type Fetch = Self;

    #[inline]
    fn into_fetch(self) -> Self {
        self
    }
}

impl<'w, C: 'static, K: Track> IntoFetch<'w> for Has<&'w SparseMap<C, K>> {
    type Fetch = Self;

    #[inline]
    fn into_fetch(self) -> Self {
        self
    }
}

macro_rules! impl_into_fetch {
    ($($t:ident),+) => {
        #[allow(non_snake_case)]
        impl<'w, $($t: IntoFetch<'w>),+> IntoFetch<'w> for ($($t,)+) {
            type Fetch = ($($t::Fetch,)+);

            #[inline]
            fn into_fetch(self) -> Self::Fetch {
                let ($($t,)+) = self;
                ($($t.into_fetch(),)+)
            }
        }
    };
}

impl_into_fetch!(T0);
impl_into_fetch!(T0, T1);
impl_into_fetch!(T0, T1, T2);
impl_into_fetch!(T0, T1, T2, T3);
impl_into_fetch!(T0, T1, T2, T3, T4);
impl_into_fetch!(T0, T1, T2, T3, T4, T5);
impl_into_fetch!(T0, T1, T2, T3, T4, T5, T6);
impl_into_fetch!(T0, T1, T2, T3, T4, T5, T6, T7);
impl_into_fetch!(T0, T1, T2, T3, T4, T5, T6, T7, T8);
impl_into_fetch!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9);
impl_into_fetch!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10);
impl_into_fetch!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11);
