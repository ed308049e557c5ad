//! [`Join`]: a query ready to run, and [`join`], which makes one from
//! storages you borrowed yourself.

use core::marker::PhantomData;
use core::ops::Range;

use super::fetch::{IntoFetch, Packed, GRANULE};
use super::iter::QueryIter;
use super::plan::{Planner, Walk};
use super::rows::WalkRows;
use crate::sparse_map::line_up::LineUp;
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
///   storage the loop walks. Over exactly an owning group it walks the
///   packed slots, whatever it writes. Any other written storage (a larger
///   one, a second `&mut`, an `Option<&mut C>`, a `Changed<&mut C>`) hands
///   out its values by handle from a table of one pointer per value, made
///   when the loop starts, each value at most once: that table is the one
///   cost `for_each` does not have.
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
    marker: PhantomData<&'w ()>,
}

impl<'w, F> Join<'w, F> {
    #[inline]
    pub(crate) fn new(fetch: F) -> Self {
        Join {
            fetch,
            marker: PhantomData,
        }
    }

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
                driven(&mut self.fetch, driver, plan.driver, order, &mut f);
            }
            Walk::Empty => {}
        }
    }

    /// The items of one `entity`, if it matches.
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
        self.fetch.get(entity, usize::MAX)
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
/// is known), by which the others find what they proved before.
#[inline(always)]
fn driven<'w, F: Packed<'w>>(
    fetch: &mut F,
    driver: &[Entity],
    column: usize,
    order: u64,
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
                0 => look_up(fetch, driver, span, 0, f),
                1 if columns > 1 => look_up(fetch, driver, span, 1, f),
                2 if columns > 2 => look_up(fetch, driver, span, 2, f),
                3 if columns > 3 => look_up(fetch, driver, span, 3, f),
                column => look_up(fetch, driver, span, column, f),
            }
        }
    }
}

/// Looks up the entities of `driver` in slots `span`, the `column`-th column
/// driving, and calls `f` with the items of those that match.
#[inline(always)]
fn look_up<'w, F: Packed<'w>>(
    fetch: &mut F,
    driver: &[Entity],
    span: Range<usize>,
    column: usize,
    f: &mut impl FnMut(Entity, F::Item<'_>),
) {
    for (slot, &entity) in span.clone().zip(&driver[span]) {
        if let Some(items) = fetch.get_driven(entity, slot, column) {
            f(entity, items);
        }
    }
}

/// A `for` loop runs every query shape. It walks an owning group's packed
/// slots, or is driven by the smallest required storage (of two as short,
/// a written one), as [`for_each`](Join::for_each) is. A written storage
/// that does not drive (a larger one, a second `&mut`, an
/// `Option<&mut C>`, a `Changed<&mut C>`) hands out its values by handle,
/// from a table of one pointer per value made when the loop starts:
/// `for_each` needs no table.
impl<'w, F: Packed<'w>> IntoIterator for Join<'w, F> {
    type Item = (Entity, F::Item<'w>);
    type IntoIter = QueryIter<'w, F>;

    #[inline]
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
}
