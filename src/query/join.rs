//! [`Join`]: a query ready to run, and [`join`], which makes one from
//! storages you borrowed yourself.

use core::marker::PhantomData;
use core::ops::Range;

use super::fetch::{run, Access, IntoFetch, Packed, GRANULE};
use super::iter::QueryIter;
use super::plan::{Planner, Walk};
use super::rows::WalkRows;
use crate::sparse_map::line_up::{LineUp, LookupCount};
use crate::Entity;

/// The most slots of a driven walk checked for lining up at once: the
/// driver's entities are still in cache when the run is walked.
const BLOCK: usize = 512;

/// Joins storages you borrowed yourself, so a system can query some fields
/// of the world while using others. The compiler checks that the borrows do
/// not overlap: `join((&mut world.pos, &world.pos))` does not compile.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::join;
///
/// struct Pos(f32);
/// struct Vel(f32);
/// struct Log(Vec<String>);
/// world! { struct Game<Pos, Vel, Log>; }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((Pos(0.0), Vel(2.0)));
/// let logger = world.spawn_with((Log(Vec::new()),));
///
/// // Borrow three fields at once: two for the join, one on the side.
/// let log = world.log.get_mut(logger).unwrap();
/// join((&mut world.pos, &world.vel)).for_each(|entity, (pos, vel)| {
///     pos.0 += vel.0;
///     log.0.push(format!("{entity:?} moved to {}", pos.0));
/// });
/// assert_eq!(world.pos.get(e).unwrap().0, 2.0);
/// assert_eq!(world.log.get(logger).unwrap().0, ["0v1 moved to 2"]);
/// ```
///
/// ```compile_fail
/// # use typed_ecs::prelude::*;
/// # use typed_ecs::join;
/// # struct Pos(f32);
/// # world! { struct Game<Pos>; }
/// let mut world = Game::new();
/// join((&mut world.pos, &world.pos)).for_each(|_, _| {}); // error: already borrowed
/// ```
#[inline]
pub fn join<'w, T: IntoFetch<'w>>(storages: T) -> Join<'w, T::Fetch> {
    Join::new(storages.into_fetch())
}

/// A query ready to run: made by [`World::query_mut`](crate::World::query_mut)
/// or [`join`].
///
/// A query *type* names what to visit: `&A`, `&mut A`, `Option<&A>`,
/// `Option<&mut A>`, the filters [`With<A>`](crate::With) and [`Without<A>`](crate::Without), or a tuple of
/// those. It is turned into a *fetch*: the storages it reads or writes,
/// borrowed from the world. A walk visits the entities of the smallest
/// storage every result must have (the *driver*) and looks each one up in
/// the others, so its cost follows the rarest required component, not the
/// world's size. Where the storages list the same entities in the same
/// slots (as storages filled by spawning one bundle do), `for_each` walks
/// those runs of slots side by side instead, with no lookup.
///
/// * [`World::query`](crate::World::query) is read-only and yields a plain
///   iterator, [`QueryIter`].
/// * [`World::query_mut`](crate::World::query_mut) may write and yields a
///   [`Join`]; so does [`join`], which takes storages you borrowed yourself
///   (`join((&mut world.pos, &world.vel))`), leaving the world's other fields
///   free.
///
/// # What a [`Join`] can do, in safe code
///
/// * `for_each(|entity, items| …)` works for every query. It is the fastest
///   way to run one, and is driven by the smallest required storage.
/// * A `for` loop works for every query too, driven by the same storage
///   as `for_each`, whatever the order of the terms (of two storages as
///   small, a written one). An iterator hands out each `&mut` for as long
///   as the loop keeps it, so safe code can hand them out in order from the
///   storage the loop walks. Over exactly an owning group, or over
///   storages that hold the driver's entities in the same slots over all
///   of them (filled by the same spawns), it walks the packed slots,
///   whatever it writes, as fast as `for_each`; over storages that do so
///   in their first slots, it walks those, then looks the rest up, if it
///   writes no storage but its driver, and that one untracked. Otherwise
///   any other written storage (a larger one, a second `&mut`, an
///   `Option<&mut C>`, a `Changed<&mut C>`) hands out its values by handle
///   from a table of one pointer per value, made when the loop starts,
///   each value at most once: that table is a cost `for_each` does not
///   have, nor does it look up the later runs that line up.
/// * `par_for_each` (feature `rayon`) runs on rayon's thread pool when the
///   query writes at most one storage (its dense range is split across
///   threads), and for every shape over exactly an owning group.
///
/// # Owning groups
///
/// When the required storages of a query are exactly one owning group's
/// (see [`Group`](crate::Group)), every form above walks the group's packed slots
/// side by side instead of looking entities up.
///
/// # Compile-time checks
///
/// The same component twice in one mutable query (`(&mut A, &A)`,
/// `(&mut A, Option<&mut A>)`, `(&A, With<A>)`) is a compile error, as is a
/// query with no required component (only `Option`s and `Without`s). Both are
/// checked by constants evaluated when the code is generated, so they show
/// up in `cargo build` and `cargo test` rather than `cargo check`.
///
/// # Example
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32);
/// struct Vel(f32);
/// world! { struct Game<Pos, Vel>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(0.0), Vel(1.5)));
///
/// // Any shape: for_each.
/// world.query_mut::<(&Vel, &mut Pos)>().for_each(|_, (vel, pos)| pos.0 += vel.0);
/// // One storage written, wherever it is: a `for` loop too.
/// for (_, (vel, pos)) in world.query_mut::<(&Vel, &mut Pos)>() {
///     pos.0 += vel.0;
/// }
/// assert_eq!(world.pos.values()[0].0, 3.0);
/// ```
#[derive(Debug)]
pub struct Join<'w, F> {
    fetch: F,
    lookups: Lookups,
    marker: PhantomData<&'w ()>,
}

/// What a join's lookups by handle ([`Join::get`]) know of its storages,
/// read once when the join is made, so that a loop of lookups reads
/// nothing shared but the storages: how far every storage after the first
/// is proven to hold the first's entities in the same slots (see
/// [`LineUp`]), where the lookups take the first's slot unchecked.
///
/// Where that is not all of them, the join counts its lookups, and the
/// first storage keeps the count when the join is dropped; once it is a
/// quarter of the storage's length, the next join made compares the
/// storages' entities and proves what lines up (a comparison stops at the
/// first slot that differs; one costs about 3 instructions an entity, less
/// than the checks it spares). A loop of lookups then reads one sparse
/// entry and one slot per storage, as an archetype's row does. A walk's
/// proofs serve as well.
#[derive(Debug)]
struct Lookups {
    /// The slots below which the lookups trust the first's.
    proven: usize,
    /// The lookups made, if they count.
    count: LookupCount,
}

impl Lookups {
    /// What `fetch`'s storages are proven to line up for, proving it
    /// first if the lookups before asked for it.
    #[inline]
    fn new<'w, F: Access<'w>>(fetch: &F) -> Self {
        let mut first: Option<(&'w [Entity], &'w LineUp)> = None;
        let mut shortest = usize::MAX;
        fetch.storages(&mut |entities, line_up| {
            shortest = shortest.min(entities.len());
            first.get_or_insert((entities, line_up));
        });
        let Some((entities, line_up)) = first else {
            return Lookups {
                proven: 0,
                count: LookupCount::NONE,
            };
        };
        let mut proven = proven(fetch, line_up);
        if proven >= shortest {
            return Lookups {
                proven,
                count: LookupCount::NONE,
            };
        }
        let (count, prove) = LookupCount::start(line_up, entities.len());
        if prove {
            prove_storages(fetch, entities, line_up);
            proven = self::proven(fetch, line_up);
        }
        Lookups { proven, count }
    }
}

/// Calls `visit` with the entities and proofs of each of `fetch`'s
/// storages after the first.
#[inline]
fn after_first<'w, F: Access<'w>>(fetch: &F, mut visit: impl FnMut(&'w [Entity], &'w LineUp)) {
    let mut first = true;
    fetch.storages(&mut |entities, line_up| {
        if !core::mem::take(&mut first) {
            visit(entities, line_up);
        }
    });
}

/// How far every storage of `fetch` after the first (whose proofs are
/// `line_up`) is proven to hold the first's entities in the same slots
/// (`usize::MAX` if there is no other; 0 if the first has no order).
#[inline]
fn proven<'w, F: Access<'w>>(fetch: &F, line_up: &LineUp) -> usize {
    let order = line_up.current_order();
    let mut proven = usize::MAX;
    after_first(fetch, |_, other| proven = proven.min(other.proven(order)));
    proven
}

/// Proves how far each of `fetch`'s storages after the first (whose
/// entities and proofs are `entities` and `line_up`) holds the first's
/// entities in the same slots.
#[cold]
#[inline(never)]
fn prove_storages<'w, F: Access<'w>>(fetch: &F, entities: &[Entity], line_up: &LineUp) {
    let order = line_up.order();
    after_first(fetch, |others, other| {
        let len = run(others, entities, 0..usize::MAX);
        if len > 0 {
            other.prove(order, len);
        }
    });
}

impl<'w, F: Access<'w>> Join<'w, F> {
    #[inline]
    pub(crate) fn new(fetch: F) -> Self {
        Join {
            lookups: Lookups::new(&fetch),
            fetch,
            marker: PhantomData,
        }
    }
}

impl<'w, F> Join<'w, F> {
    /// The fetch: the borrowed storages.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::join;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let world = Game::new();
    /// let storage: &SparseMap<Pos> = join(&world.pos).into_fetch();
    /// assert!(storage.is_empty());
    /// ```
    #[inline]
    pub fn into_fetch(self) -> F {
        self.fetch
    }

    /// The fetch, borrowed.
    #[cfg(feature = "rayon")]
    #[inline]
    pub(crate) fn fetch_ref(&self) -> &F {
        &self.fetch
    }
}

impl<'w, F: Packed<'w>> Join<'w, F> {
    /// Calls `f(entity, items)` for every matching entity, driven by the
    /// smallest required storage. Works for every query shape.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct A(i32);
    /// # struct B(i32);
    /// # world! { struct Game<A, B>; }
    /// let mut world = Game::new();
    /// world.spawn_with((A(1), B(10)));
    /// world.query_mut::<(&mut A, &mut B)>().for_each(|_, (a, b)| {
    ///     std::mem::swap(&mut a.0, &mut b.0);
    /// });
    /// assert_eq!((world.a.values()[0].0, world.b.values()[0].0), (10, 1));
    /// ```
    #[inline]
    pub fn for_each(mut self, mut f: impl FnMut(Entity, F::Item<'_>)) {
        let mut planner = Planner::new();
        self.fetch.plan(&mut planner);
        let plan = planner.finish();
        debug_assert_eq!(
            plan.columns,
            F::COLUMNS,
            "Access::COLUMNS counts the columns"
        );
        match plan.walk {
            Walk::Packed(entities) => {
                // Exactly one owning group's storages (or one storage):
                // walk their packed slots side by side, the entities zipped
                // in with the columns (see `WalkRows`): one counted loop.
                self.fetch.into_rows(entities.len()).walk(entities, &mut f);
            }
            Walk::Driven(driver) => {
                self.fetch.drive(driver);
                let order = plan.driver_line_up.map_or(0, LineUp::order);
                let proven = self.lookups.proven;
                driven(&mut self.fetch, driver, plan.driver, order, proven, &mut f);
            }
            Walk::Empty => {}
        }
    }

    /// The items of one `entity`, if it matches.
    ///
    /// The first storage looks the entity up; the others read their value
    /// at the slot it found it in, without checking the entity there below
    /// the length a line-up proof covers (read when the join was made:
    /// storages filled by the same spawns hold an entity in the same
    /// slot). Keep one join for many lookups: joins that are not proven
    /// count their lookups, and the join made after a quarter of the first
    /// storage's length in lookups proves what lines up.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct A(i32);
    /// # struct B(i32);
    /// # world! { struct Game<A, B>; }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((A(1), B(10)));
    /// let mut join = world.query_mut::<(&mut A, &B)>();
    /// let (a, b) = join.get(e).unwrap();
    /// a.0 += b.0;
    /// assert_eq!(world.a.get(e).unwrap().0, 11);
    /// ```
    #[inline]
    pub fn get(&mut self, entity: Entity) -> Option<F::Item<'_>> {
        self.lookups.count.count();
        let found = self.fetch.find_by_handle(entity, self.lookups.proven)?;
        Some(self.fetch.fetch(found, entity))
    }

    /// The slots of the first storage below which [`get`](Self::get)
    /// takes the first's slot in every later storage unchecked (the
    /// line-up proofs read when the join was made; `usize::MAX` for one
    /// storage alone): for tests that the trust is in play. Test support
    /// (feature `testing`).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::join;
    /// # struct A(i32);
    /// # struct B(i32);
    /// # world! { struct Game<A, B>; }
    /// let mut world = Game::new();
    /// for i in 0..100 {
    ///     world.spawn_with((A(i), B(i)));
    /// }
    /// assert_eq!(join((&world.a, &world.b)).trusted_slots(), 0);
    /// // A walk compares the storages' entities and proves they line up.
    /// join((&world.a, &world.b)).for_each(|_, _| {});
    /// assert_eq!(join((&world.a, &world.b)).trusted_slots(), 100);
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    #[cfg(feature = "testing")]
    pub fn trusted_slots(&self) -> usize {
        self.lookups.proven
    }

    /// Number of matching entities. Visits every candidate.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct A(i32);
    /// # struct B(i32);
    /// # world! { struct Game<A, B>; }
    /// let mut world = Game::new();
    /// world.spawn_with((A(1), B(10)));
    /// world.spawn_with((A(1),));
    /// assert_eq!(world.query_mut::<(&mut A, Without<B>)>().count(), 1);
    /// ```
    pub fn count(mut self) -> usize {
        // Nothing is handed to user code: nothing is marked changed.
        let _ = self.fetch.take_marks();
        let mut count = 0;
        self.for_each(|_, _| count += 1);
        count
    }
}

/// A driven walk: calls `f` with the items of each entity of `driver` that
/// matches, `column` being the driver's number among the columns of
/// `fetch`, which was told of `driver` (see [`Access::drive`]).
///
/// Where every column lines up with the driver (holds its entities in the
/// same slots), a run of slots is walked as rows, with no lookup; where
/// they do not, the entities are looked up one by one, the driver taking
/// its items unchecked. `order` is the driver's storage's order (0 if none
/// is known), by which the others find what they proved before; the
/// lookups trust the first storage's slot in the others below `proven`
/// (see [`Lookups`]).
#[inline(always)]
fn driven<'w, F: Packed<'w>>(
    fetch: &mut F,
    driver: &[Entity],
    column: usize,
    order: u64,
    proven: usize,
    f: &mut impl FnMut(Entity, F::Item<'_>),
) {
    let mut slot = 0;
    // Where the last run that lined up ended.
    let mut lined_up_until = 0;
    while slot < driver.len() {
        let run = fetch.lined_up(driver, order, slot..driver.len().min(slot + BLOCK));
        if run > 0 {
            let slots = slot..slot + run;
            slot = slots.end;
            lined_up_until = slot;
            fetch.slots(driver, slots.clone()).walk(&driver[slots], f);
            fetch.end_run();
        } else {
            // As many lookups as since the last run (a granule at first):
            // checks that keep failing get rarer.
            let lookups = (slot - lined_up_until).clamp(GRANULE, BLOCK);
            let span = slot..driver.len().min(slot + lookups);
            slot = span.end;
            // One loop for each of the first columns as the driver, which
            // then takes its items unchecked (`column` is a constant in
            // each).
            let columns = F::COLUMNS;
            match column {
                0 => look_up(fetch, driver, span, 0, proven, f),
                1 if columns > 1 => look_up(fetch, driver, span, 1, proven, f),
                2 if columns > 2 => look_up(fetch, driver, span, 2, proven, f),
                3 if columns > 3 => look_up(fetch, driver, span, 3, proven, f),
                column => look_up(fetch, driver, span, column, proven, f),
            }
        }
    }
}

/// Looks up the entities of `driver` in slots `span`, the `column`-th column
/// driving, the storages after the first trusting its slot below `proven`,
/// and calls `f` with the items of those that match.
#[inline(always)]
fn look_up<'w, F: Packed<'w>>(
    fetch: &mut F,
    driver: &[Entity],
    span: Range<usize>,
    column: usize,
    proven: usize,
    f: &mut impl FnMut(Entity, F::Item<'_>),
) {
    for (slot, &entity) in span.clone().zip(&driver[span]) {
        if let Some(found) = fetch.find_driven_proven(entity, slot, column, proven) {
            f(entity, fetch.fetch(found, entity));
        }
    }
}

/// A `for` loop runs every query shape. It walks an owning group's packed
/// slots, or is driven by the smallest required storage (of two as short,
/// a written one), as [`for_each`](Join::for_each) is. If every storage
/// holds the driver's entities in the same slots over all of them (storages
/// filled by the same spawns), it walks their slots side by side, as over a
/// group; if they do in their first slots, it walks those side by side and
/// looks the rest up, where it writes no storage but its driver, untracked.
/// Otherwise a written storage that does not drive (a larger one, a
/// second `&mut`, an `Option<&mut C>`, a `Changed<&mut C>`) hands out its
/// values by handle, from a table of one pointer per value made when the
/// loop starts: `for_each` needs no table.
impl<'w, F: Packed<'w>> IntoIterator for Join<'w, F> {
    type Item = (Entity, F::Item<'w>);
    type IntoIter = QueryIter<'w, F>;

    #[inline(always)]
    fn into_iter(self) -> QueryIter<'w, F> {
        QueryIter::new(self.fetch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SparseMap;
    use core::num::NonZeroU32;

    fn e(index: u32) -> Entity {
        Entity::new(index, NonZeroU32::MIN)
    }

    /// How many entities `join((a, b))` visits, each value checked against
    /// what the test stored (`i` in `a`, `i + 1` in `b`, for index `i`).
    fn walk(a: &SparseMap<u32>, b: &SparseMap<u32>) -> usize {
        let mut visited = 0;
        join((a, b)).for_each(|e, (x, y)| {
            assert_eq!((*x, *y), (e.index(), e.index() + 1));
            visited += 1;
        });
        visited
    }

    #[test]
    fn a_walk_proves_what_lines_up_and_the_next_trusts_it_until_a_reorder() {
        let (mut a, mut b) = (SparseMap::<u32>::new(), SparseMap::<u32>::new());
        for i in 0..1000 {
            a.insert(e(i), i);
            b.insert(e(i), i + 1);
        }
        // `a` drives (the first of two as long); `b` proves against it.
        let proven =
            |a: &SparseMap<u32>, b: &SparseMap<u32>| b.line_up().proven(a.line_up().order());
        assert_eq!(proven(&a, &b), 0);
        assert_eq!(walk(&a, &b), 1000);
        assert_eq!(proven(&a, &b), 1000);
        assert_eq!(walk(&a, &b), 1000);
        // Appending to both keeps the proof; the next walk extends it.
        a.insert(e(1000), 1000);
        b.insert(e(1000), 1001);
        assert_eq!(proven(&a, &b), 1000);
        assert_eq!(walk(&a, &b), 1001);
        assert_eq!(proven(&a, &b), 1001);
        // A removal from `b` reorders it: no proof holds, and the walk (now
        // driven by `b`, the shorter) is right.
        b.remove(e(3));
        assert_eq!(b.line_up().proven(a.line_up().order()), 0);
        assert_eq!(walk(&a, &b), 1000);
        // A removal from the driver: its new order matches no proof.
        let before = a.line_up().order();
        a.remove(e(3));
        assert_ne!(a.line_up().order(), before);
        assert_eq!(walk(&a, &b), 1000);
        // A storage cloned has proven nothing.
        assert_eq!(walk(&a, &b), 1000);
        let c = b.clone();
        assert_eq!(c.line_up().proven(a.line_up().order()), 0);
        assert_eq!(walk(&a, &c), 1000);
    }

    #[test]
    fn lookups_by_handle_prove_what_lines_up_once_they_add_up_and_trust_it_until_a_reorder() {
        let (mut a, mut b) = (SparseMap::<u32>::new(), SparseMap::<u32>::new());
        for i in 0..2000 {
            a.insert(e(i), i);
            b.insert(e(i), i + 1);
        }
        let made = |a: &SparseMap<u32>, b: &SparseMap<u32>| join((a, b)).lookups.proven;
        // A quarter of the length in lookups (500), over several joins:
        // a join made after them proves. (The counts are shared by storage
        // orders modulo 64 with the other tests' storages, which may bring
        // the proof forward or, resetting a shared count, put it off: the
        // test asks only that it comes.)
        let mut joins = 0;
        while made(&a, &b) == 0 {
            joins += 1;
            assert!(joins < 100, "no proof after {joins} joins of 300 lookups");
            let mut both = join((&a, &b));
            for i in 0..300 {
                assert_eq!(both.get(e(i)).map(|(x, y)| (*x, *y)), Some((i, i + 1)));
            }
        }
        assert_eq!(made(&a, &b), 2000);
        let mut both = join((&a, &b));
        for i in 0..2000 {
            assert_eq!(both.get(e(i)).map(|(x, y)| (*x, *y)), Some((i, i + 1)));
        }
        // A stale handle is refused by the first storage's entry.
        let stale = Entity::new(7, NonZeroU32::new(2).unwrap());
        assert!(both.get(stale).is_none());
        // A removal from `b` moves its last entity into the hole: no proof
        // holds, and every lookup is still right.
        b.remove(e(3));
        assert!(made(&a, &b) <= 3, "at most the slots before the hole");
        let mut both = join((&a, &b));
        for i in 0..2000 {
            let want = (i != 3).then_some((i, i + 1));
            assert_eq!(both.get(e(i)).map(|(x, y)| (*x, *y)), want);
        }
        // The same with `b` first: `a` holds the entity `b` moved
        // elsewhere.
        let mut both = join((&b, &a));
        for i in 0..2000 {
            let want = (i != 3).then_some((i + 1, i));
            assert_eq!(both.get(e(i)).map(|(y, x)| (*y, *x)), want);
        }
    }

    /// Long random sequences of inserts and removals on three storages
    /// (most entities inserted into all three, as a spawn does, some into
    /// one, some removed from one or all, indices reused with a new
    /// generation), each round followed by a join's lookups of every index
    /// ever used, live and stale, checked against a model; enough lookups
    /// that joins keep proving and trusting proofs.
    #[test]
    fn lookups_by_handle_match_a_model_through_proofs_and_reorders() {
        use alloc::collections::BTreeMap;
        let mut rng = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut maps = [SparseMap::<u64>::new(), SparseMap::new(), SparseMap::new()];
        let mut model: [BTreeMap<u32, (Entity, u64)>; 3] = Default::default();
        let mut generation = alloc::vec![1u32; 256];
        let mut value = 0u64;
        for _ in 0..400 {
            for _ in 0..next(24) {
                let index = next(256) as u32;
                let kind = next(10);
                if kind < 6 {
                    // A spawn: a new generation, into all three.
                    if model.iter().any(|m| m.contains_key(&index)) {
                        continue;
                    }
                    generation[index as usize] += 1;
                    let entity =
                        Entity::new(index, NonZeroU32::new(generation[index as usize]).unwrap());
                    for (map, model) in maps.iter_mut().zip(&mut model) {
                        value += 1;
                        map.insert(entity, value);
                        model.insert(index, (entity, value));
                    }
                } else if kind < 8 {
                    // A removal from one.
                    let which = next(3) as usize;
                    if let Some((entity, _)) = model[which].remove(&index) {
                        assert!(maps[which].remove(entity).is_some());
                    }
                } else {
                    // A despawn: from all three.
                    for (map, model) in maps.iter_mut().zip(&mut model) {
                        if let Some((entity, _)) = model.remove(&index) {
                            assert!(map.remove(entity).is_some());
                        }
                    }
                }
            }
            let order = [[0, 1, 2], [1, 0, 2], [2, 1, 0]][next(3) as usize];
            let [x, y, z] = order.map(|i| &maps[i]);
            let mut joined = join((x, y, z));
            for _ in 0..4 {
                for index in 0..256u32 {
                    for generation in [generation[index as usize], generation[index as usize] - 1] {
                        let Some(generation) = NonZeroU32::new(generation) else {
                            continue;
                        };
                        let entity = Entity::new(index, generation);
                        let want = order.map(|i| {
                            model[i]
                                .get(&index)
                                .filter(|(stored, _)| *stored == entity)
                                .map(|&(_, v)| v)
                        });
                        let want = match want {
                            [Some(p), Some(q), Some(r)] => Some((p, q, r)),
                            _ => None,
                        };
                        let got = joined.get(entity).map(|(p, q, r)| (*p, *q, *r));
                        assert_eq!(got, want, "{entity:?}");
                    }
                }
            }
        }
    }
}
