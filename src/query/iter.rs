//! [`QueryIter`]: one iterator for every query a `for` loop can run.

use core::iter::{Copied, Enumerate, Zip};
use core::{fmt, slice};

use super::fetch::{Cursor, Marks, Packed, ReadOnly};
use super::plan::{Planner, Walk};
use super::rows::WalkRows;
use crate::entity::Alive;
use crate::{Entity, EntityAllocator};

/// Iterator over the results of a query: `(Entity, items)` for every
/// entity that matches. Made by [`World::query`](crate::World::query), or
/// by a `for` loop over a [`Join`](super::Join).
///
/// Order follows the driving storage's dense order (the smallest required
/// one) and is not otherwise promised. A query over one storage, or over
/// exactly an owning group, walks packed slots and knows its length; a
/// join knows only that the driver's length bounds it.
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
/// world.spawn_with((Pos(1), Vel(0)));
/// world.spawn_with((Pos(2),));
/// let mut iter: QueryIter<'_, _> = world.query::<&Pos>();
/// assert_eq!(iter.size_hint(), (2, Some(2)));
/// assert_eq!(iter.next().map(|(_, pos)| pos.0), Some(1));
/// assert_eq!(world.query::<(&Pos, &Vel)>().size_hint(), (0, Some(1)));
/// ```
pub struct QueryIter<'w, F: Packed<'w>> {
    state: State<'w, F>,
}

/// Where an iterator stands.
enum State<'w, F: Packed<'w>> {
    /// A packed walk: the entities, zipped with the rows, and the marking
    /// of its written tracked columns, told of each row handed out: when
    /// the walk ends (or the iterator is dropped, or a panic unwinds
    /// through it), exactly the rows handed out are marked.
    Packed(
        Zip<Copied<slice::Iter<'w, Entity>>, <F::Rows as WalkRows>::Parts>,
        F::Marks,
    ),
    /// A driven walk: the driver's entities, with their slots, and the
    /// cursor; with `alive`, entities that are not alive are skipped.
    Driven {
        entities: Enumerate<slice::Iter<'w, Entity>>,
        cursor: F::Cursor,
        alive: Option<&'w EntityAllocator>,
    },
    /// Nothing matches (no column is required): no cursor is made.
    Empty,
}

impl<'w, F: Packed<'w>> QueryIter<'w, F> {
    /// Iterates `fetch` along `walk`.
    #[inline]
    fn along(mut fetch: F, walk: Walk<'w>, alive: Option<&'w EntityAllocator>) -> Self {
        let state = match walk {
            Walk::Packed(entities) => {
                // The rows are handed out one by one, and the loop may stop
                // early: each is marked once handed out.
                let marks = fetch.take_marks();
                State::Packed(
                    // The rows' parts (see `WalkRows`): with slices, a zip
                    // the standard library walks by index.
                    entities
                        .iter()
                        .copied()
                        .zip(fetch.into_rows(entities.len()).parts()),
                    marks,
                )
            }
            Walk::Driven(driver) => {
                fetch.drive(driver);
                State::Driven {
                    entities: driver.iter().enumerate(),
                    cursor: fetch.into_cursor(),
                    alive,
                }
            }
            Walk::Empty => State::Empty,
        };
        QueryIter { state }
    }

    /// Iterates a fetch (a `for` loop over a [`Join`](super::Join)), driven
    /// by the shortest required column, as `for_each` is.
    #[inline]
    pub(crate) fn new(fetch: F) -> Self {
        let mut planner = Planner::new();
        fetch.plan(&mut planner);
        Self::along(fetch, planner.finish().walk, None)
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
        Self::along(fetch, planner.finish().walk, alive)
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

impl<'w, F: Packed<'w>> Iterator for QueryIter<'w, F> {
    type Item = (Entity, F::Item<'w>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.state {
            State::Packed(rows, marks) => {
                let (entity, part) = rows.next()?;
                marks.more(1);
                Some((entity, F::Rows::item(part)))
            }
            State::Driven {
                entities,
                cursor,
                alive,
            } => {
                for (slot, &entity) in entities.by_ref() {
                    if let Some(items) = visit(cursor, *alive, entity, slot) {
                        return Some((entity, items));
                    }
                }
                None
            }
            State::Empty => None,
        }
    }

    /// The whole walk in one loop (what `for_each`, `sum`, `count`… call):
    /// the driven walk's state stays in registers instead of being stored
    /// back into the iterator after each result.
    #[inline]
    fn fold<B, G>(self, init: B, mut g: G) -> B
    where
        G: FnMut(B, Self::Item) -> B,
    {
        match self.state {
            State::Packed(rows, mut marks) => {
                // Every row left is handed out (a panic in `g` leaves the
                // rest marked too: a mark too many, never one missing).
                // The rows are slices zipped: the lower bound is exact.
                marks.more(rows.size_hint().0);
                rows.fold(init, |acc, (entity, part)| {
                    g(acc, (entity, F::Rows::item(part)))
                })
            }
            State::Driven {
                entities,
                mut cursor,
                alive,
            } => entities.fold(init, |acc, (slot, &entity)| {
                match visit(&mut cursor, alive, entity, slot) {
                    Some(items) => g(acc, (entity, items)),
                    None => acc,
                }
            }),
            State::Empty => init,
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.state {
            State::Packed(rows, _) => rows.size_hint(),
            State::Driven { entities, .. } => (0, Some(entities.len())),
            State::Empty => (0, Some(0)),
        }
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
        let state = match &self.state {
            State::Packed(rows, marks) => State::Packed(rows.clone(), marks.clone()),
            State::Driven {
                entities,
                cursor,
                alive,
            } => State::Driven {
                entities: entities.clone(),
                cursor: cursor.clone(),
                alive: *alive,
            },
            State::Empty => State::Empty,
        };
        QueryIter { state }
    }
}

impl<'w, F: Packed<'w>> fmt::Debug for QueryIter<'w, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueryIter")
            .field("packed", &matches!(self.state, State::Packed(..)))
            .field("remaining_at_most", &self.size_hint().1)
            .finish_non_exhaustive()
    }
}
