//! [`QueryIter`]: one iterator for every query a `for` loop can run.

use core::iter::{Copied, Enumerate, Zip};
use core::{fmt, slice};

use super::fetch::{lined_from_start, Cursor, Marks, Packed, ReadOnly};
use super::plan::{Plan, Planner, Walk};
use super::rows::WalkRows;
use crate::entity::Alive;
use crate::{Entity, EntityAllocator};

/// Iterator over the results of a query: `(Entity, items)` for every
/// entity that matches. Made by [`World::query`](crate::World::query), or
/// by a `for` loop over a [`Join`](super::Join).
///
/// Order follows the driving storage's dense order (the smallest required
/// one) and is not otherwise promised. A query over one storage, over
/// exactly an owning group, or over storages that hold the driver's
/// entities in the same slots (storages filled by the same spawns) walks
/// packed slots and knows its length; otherwise it knows how many of the
/// first slots it walks packed, and that the driver's length bounds the
/// rest.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::QueryIter;
///
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; }
///
/// let mut world = Game::new();
/// let a = world.spawn_with((Pos(1), Vel(0)));
/// let b = world.spawn_with((Pos(2), Vel(0)));
/// let mut iter: QueryIter<'_, _> = world.query::<&Pos>();
/// assert_eq!(iter.size_hint(), (2, Some(2)));
/// assert_eq!(iter.next().map(|(_, pos)| pos.0), Some(1));
/// // Spawned together: `Vel` holds `Pos`'s entities in the same slots.
/// assert_eq!(world.query::<(&Pos, &Vel)>().size_hint(), (2, Some(2)));
/// // `a` has no `Vel` now, and `b`'s moved into its slot: the walk,
/// // driven by `Vel`, looks `b` up in `Pos`.
/// world.remove::<Vel>(a);
/// assert_eq!(world.query::<(&Pos, &Vel)>().size_hint(), (0, Some(1)));
/// let found: Vec<_> = world.query::<(&Pos, &Vel)>().map(|(e, _)| e).collect();
/// assert_eq!(found, [b]);
/// ```
pub struct QueryIter<'w, F: Packed<'w>> {
    /// A packed walk's entities zipped with its rows (empty for the other
    /// walks): the first thing `next` tries, so that a `for` loop over
    /// packed rows is a few instructions a row.
    rows: Zip<Copied<slice::Iter<'w, Entity>>, <F::Rows as WalkRows>::Parts>,
    /// A packed walk's marking of its written tracked columns, told of
    /// each row handed out: when the walk ends (or the iterator is
    /// dropped, or a panic unwinds through it), exactly the rows handed out
    /// are marked. `None` for the other walks.
    marks: Option<F::Marks>,
    /// A driven walk, after the `rows` (none for the others).
    driven: Option<Driven<'w, F>>,
}

/// A driven walk: the driver's entities, with their slots, and the cursor;
/// with `alive`, entities that are not alive are skipped.
struct Driven<'w, F: Packed<'w>> {
    entities: Enumerate<slice::Iter<'w, Entity>>,
    cursor: F::Cursor,
    alive: Option<&'w EntityAllocator>,
}

impl<'w, F: Packed<'w>> QueryIter<'w, F> {
    /// Iterates the fetch `plan` was made of along its walk.
    ///
    /// A driven walk whose columns line up with the driver from its first
    /// slot on (storages filled by the same spawns: see
    /// [`Packed::lined_up`], which the storages' line-up proofs answer
    /// without comparing) walks those slots as packed rows, the slots of
    /// every column zipped, with no lookup or check per entity: all of
    /// them, or, where its fetch can be split there as a parallel walk
    /// splits it (no written column but the driver, untracked), the slots
    /// up to the first that differs, then the rest by lookup. Only where
    /// its columns allow it ([`Packed::ROWS`]) and every entity the driver
    /// holds is alive.
    #[inline(always)]
    fn along(mut fetch: F, plan: Plan<'w>, alive: Option<&'w EntityAllocator>) -> Self {
        let driver = match plan.walk {
            Walk::Packed(entities) => return Self::packed(fetch, entities),
            Walk::Driven(driver) => driver,
            // Nothing matches (no column is required): no cursor is made.
            Walk::Empty => {
                return QueryIter {
                    rows: Self::no_rows(),
                    marks: None,
                    driven: None,
                }
            }
        };
        let run = if alive.is_none() {
            lined_from_start(&fetch, &plan, driver)
        } else {
            0
        };
        if run == driver.len() {
            return Self::packed(fetch, driver);
        }
        // The written column, if any, drives and is not tracked: the fetch
        // splits at `run` (the driver's written values in two; the read
        // columns, whole, shared by both). A tracked written column's
        // halves could not both mark what they hand out.
        let splits = !F::Marks::ANY
            && matches!(plan.writer_walk, Some(Walk::Driven(w)) if core::ptr::eq(w, driver));
        if run > 0 && splits {
            let (head, mut tail) = fetch.split_at(run);
            let (lined, rest) = driver.split_at(run);
            tail.drive(rest);
            let mut iter = Self::packed(head, lined);
            let mut entities = driver.iter().enumerate();
            // The driver's slots, counted from its first: the read
            // columns try them first.
            entities.nth(run - 1);
            iter.driven = Some(Driven {
                entities,
                cursor: tail.into_cursor(),
                alive,
            });
            return iter;
        }
        fetch.drive(driver);
        QueryIter {
            rows: Self::no_rows(),
            marks: None,
            driven: Some(Driven {
                entities: driver.iter().enumerate(),
                cursor: fetch.into_cursor(),
                alive,
            }),
        }
    }

    /// The packed walk of `entities` and the first as many rows of every
    /// column.
    #[inline(always)]
    fn packed(mut fetch: F, entities: &'w [Entity]) -> Self {
        // The rows are handed out one by one, and the loop may stop
        // early: each is marked once handed out.
        let marks = fetch.take_marks();
        QueryIter {
            // The rows' parts (see `WalkRows`): with slices, a zip the
            // standard library walks by index.
            rows: entities
                .iter()
                .copied()
                .zip(fetch.into_rows(entities.len()).parts()),
            marks: Some(marks),
            driven: None,
        }
    }

    /// The rows of a walk that is not packed: none.
    #[inline(always)]
    fn no_rows() -> Zip<Copied<slice::Iter<'w, Entity>>, <F::Rows as WalkRows>::Parts> {
        [].iter().copied().zip(F::Rows::default().parts())
    }

    /// Iterates a fetch (a `for` loop over a [`Join`](super::Join)), driven
    /// by the shortest required column, as `for_each` is.
    #[inline(always)]
    pub(crate) fn new(fetch: F) -> Self {
        let mut planner = Planner::new();
        fetch.plan(&mut planner);
        Self::along(fetch, planner.finish(), None)
    }

    /// Iterates a world's read-only fetch as the world sees it (`alive`,
    /// from `in_step`: whether every storage of the query is in step): if
    /// one is not, skipping the entities that are not alive (see
    /// [`SparseMap`](crate::SparseMap), "Storages moved between worlds").
    #[inline]
    pub(crate) fn in_world(fetch: F, alive: Alive<'w>) -> Self
    where
        F: ReadOnly<'w>,
    {
        let (mut planner, alive) = match alive {
            Alive::All => (Planner::new(), None),
            Alive::Check(entities) => (Planner::out_of_step(), Some(entities)),
        };
        fetch.plan(&mut planner);
        Self::along(fetch, planner.finish(), alive)
    }
}

/// The items of the driver's `entity` in `slot`, if it matches (and, with
/// `alive`, is alive).
#[inline(always)]
fn visit<C: Cursor>(
    cursor: &mut C,
    alive: Option<&EntityAllocator>,
    entity: Entity,
    slot: usize,
) -> Option<C::Item> {
    let items = cursor.next(entity, slot)?;
    if alive.is_some_and(|alive| !alive.is_alive(entity)) {
        return None;
    }
    cursor.commit(entity);
    Some(items)
}

impl<'w, F: Packed<'w>> Driven<'w, F> {
    /// The matches left, in one loop (see [`Iterator::fold`]).
    #[inline]
    fn fold<B>(self, init: B, g: &mut impl FnMut(B, (Entity, F::Item<'w>)) -> B) -> B {
        let Driven {
            entities,
            mut cursor,
            alive,
        } = self;
        entities.fold(init, |acc, (slot, &entity)| {
            match visit(&mut cursor, alive, entity, slot) {
                Some(items) => g(acc, (entity, items)),
                None => acc,
            }
        })
    }

    /// The next match.
    #[inline(always)]
    fn step(&mut self) -> Option<(Entity, F::Item<'w>)> {
        for (slot, &entity) in self.entities.by_ref() {
            if let Some(items) = visit(&mut self.cursor, self.alive, entity, slot) {
                return Some((entity, items));
            }
        }
        None
    }
}

impl<'w, F: Packed<'w>> Iterator for QueryIter<'w, F> {
    type Item = (Entity, F::Item<'w>);

    /// The next packed row (a packed walk has only those; a walk lined up
    /// in part, its first slots), then the driven walk's next match: a
    /// `for` loop over packed rows takes a few instructions a row, inlined.
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if let Some((entity, part)) = self.rows.next() {
            if let Some(marks) = &mut self.marks {
                marks.more(1);
            }
            return Some((entity, F::Rows::item(part)));
        }
        self.driven.as_mut()?.step()
    }

    /// The whole walk in one loop (what `for_each`, `sum`, `count`… call):
    /// the driven walk's state stays in registers instead of being stored
    /// back into the iterator after each result.
    #[inline]
    fn fold<B, G>(self, init: B, mut g: G) -> B
    where
        G: FnMut(B, Self::Item) -> B,
    {
        let QueryIter {
            rows,
            mut marks,
            driven,
        } = self;
        // Every row left is handed out (a panic in `g` leaves the rest
        // marked too: a mark too many, never one missing). The rows are
        // slices zipped: the lower bound is exact.
        if let Some(marks) = &mut marks {
            marks.more(rows.size_hint().0);
        }
        let acc = rows.fold(init, |acc, (entity, part)| {
            g(acc, (entity, F::Rows::item(part)))
        });
        drop(marks);
        match driven {
            Some(driven) => driven.fold(acc, &mut g),
            None => acc,
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let (rows, _) = self.rows.size_hint();
        let driven = self.driven.as_ref().map_or(0, |d| d.entities.len());
        (rows, Some(rows + driven))
    }
}

impl<'w, F: Packed<'w>> core::iter::FusedIterator for QueryIter<'w, F> {}

impl<'w, F: ReadOnly<'w>> Clone for QueryIter<'w, F>
where
    <F::Rows as WalkRows>::Parts: Clone,
    F::Cursor: Clone,
    F::Marks: Clone,
{
    fn clone(&self) -> Self {
        QueryIter {
            rows: self.rows.clone(),
            marks: self.marks.clone(),
            driven: self.driven.as_ref().map(|driven| Driven {
                entities: driven.entities.clone(),
                cursor: driven.cursor.clone(),
                alive: driven.alive,
            }),
        }
    }
}

impl<'w, F: Packed<'w>> fmt::Debug for QueryIter<'w, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueryIter")
            .field("packed", &self.marks.is_some())
            .field("remaining_at_most", &self.size_hint().1)
            .finish_non_exhaustive()
    }
}
