//! The change filters' columns: [`Changed`] and [`Added`] over a tracked
//! storage, and the tracked `&mut C` column that marks what it hands out.
//!
//! A change filter's column lists *candidates* (see
//! [`Column::candidates`](super::plan::Column)): the entities its storage's
//! change log names for the observer's window, O(changed) (for `Added`,
//! the adds it lists: O(added)), each checked again when visited. It may
//! drive a walk (the shortest required column does), so `for_each` over
//! `Changed<…>` costs O(entities changed), never a scan of the storage, and
//! over `Added<…>` O(entities added).

use super::fetch::{Access, Cursor, FetchItem, IntoFetch, ReadOnly, Unpacked};
use super::filters::{Added, Changed};
use super::plan::{Column, Planner};
use crate::change::{Filter, Tail, Tracked, Window};
use crate::sparse_map::mark::Mark;
use crate::sparse_map::track::ChangeLog;
use crate::sparse_map::view::ByHandle;
use crate::sparse_map::TrackedViewMut;
use crate::{Entity, SparseMap};

// ----- reading the values that changed -----

/// The column of `Changed<&C>` / `Added<&C>`: the values of a tracked
/// storage whose latest change (or add) is in a window. Made by
/// [`World::query`](crate::World::query) and
/// [`World::query_mut`](crate::World::query_mut) (the world's own view),
/// by `Changed(&map)` / `Added(&map)` in a [`join`](super::join), and by a
/// system's [`Seen`](crate::system::Seen).
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{join, Changed};
///
/// struct Pos(i32);
/// world! { struct Game<Pos>; tracked (Pos); }
///
/// let mut world = Game::new();
/// let a = world.spawn_with((Pos(0),));
/// world.clear_changes();
/// world.pos.get_mut(a).unwrap().0 = 5;
/// let seen: Vec<i32> = join(Changed(&world.pos)).into_iter().map(|(_, p)| p.0).collect();
/// assert_eq!(seen, [5]);
/// ```
#[derive(Debug)]
pub struct ChangedRef<'w, C> {
    map: &'w SparseMap<C, Tracked>,
    filter: Filter,
    /// Set when its own candidates drive the walk (see [`Access::drive`]).
    tail: Option<Tail<'w>>,
}

impl<C> Clone for ChangedRef<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for ChangedRef<'_, C> {}

impl<'w, C> ChangedRef<'w, C> {
    #[inline]
    pub(crate) fn new(map: &'w SparseMap<C, Tracked>, window: Window, added: bool) -> Self {
        let filter = map.log().filter(window, added);
        ChangedRef {
            map,
            filter,
            tail: None,
        }
    }
}

impl<'w, C> ChangedRef<'w, C> {
    /// See [`Access::find`].
    #[inline(always)]
    fn find_in(&self, entity: Entity, hint: usize) -> Option<usize> {
        let map: &'w SparseMap<C, Tracked> = self.map;
        match self.tail {
            Some(tail) => map.log().pass_driven(self.filter, tail, entity, hint, || {
                map.index_of_at(entity, hint)
            }),
            None => map.changed_slot(entity, hint, self.filter),
        }
    }

    /// [`Access::find`] for an `Added` filter.
    #[inline(never)]
    fn find_added(&self, entity: Entity, hint: usize) -> Option<usize> {
        self.find_in(entity, hint)
    }
}

impl<'w, C: 'static> FetchItem<'w> for ChangedRef<'w, C> {
    type Item<'a> = &'w C;
}

impl<'w, C: 'static> Access<'w> for ChangedRef<'w, C> {
    type Found = usize;
    type Cursor = Self;
    const COLUMNS: usize = 1;

    #[inline]
    fn plan(&self, planner: &mut Planner<'w>) {
        planner.column(Column {
            entities: self.map.changed_candidates(self.filter),
            mark: Mark::NONE,
            required: true,
            written: false,
            candidates: true,
            line_up: None,
        });
    }

    #[inline]
    fn find(&self, entity: Entity, hint: usize) -> Option<usize> {
        // An `Added` filter's candidates are the births: its walk goes out
        // of line, so that a `Changed` walk's code knows it reads the
        // changes (and saves no more registers than it needs).
        if self.filter.added() {
            return self.find_added(entity, hint);
        }
        self.find_in(entity, hint)
    }

    #[inline(always)]
    fn fetch(&mut self, found: usize, _: Entity) -> &'w C {
        &self.map.values()[found]
    }

    #[inline(always)]
    fn fetch_owned(self, found: usize, _: Entity) -> &'w C {
        &self.map.values()[found]
    }

    #[inline]
    fn into_cursor(self) -> Self {
        self
    }

    /// Each half is told again which slice drives it.
    #[inline]
    fn split_at(self, _mid: usize) -> (Self, Self) {
        let whole = ChangedRef { tail: None, ..self };
        (whole, whole)
    }

    #[inline]
    fn drive(&mut self, driver: &[Entity]) {
        self.tail = self.map.log().tail(self.filter, driver);
    }
}

impl<'w, C: 'static> Unpacked<'w> for ChangedRef<'w, C> {}

/// The cursor of `Changed<&mut C>` / `Added<&mut C>`: the values that pass
/// its filter, taken out by handle (its candidates are not in dense order)
/// and marked when the walk hands them out.
#[derive(Debug)]
pub struct ChangedCursor<'w, T> {
    table: ByHandle<'w, T>,
    log: Option<&'w mut ChangeLog>,
    filter: Filter,
    /// The storage slot of the value the last step found.
    pending: Option<usize>,
}

impl<'w, T> ChangedCursor<'w, T> {
    /// The cursor over `view`'s values that pass `filter`.
    #[inline]
    fn new(view: TrackedViewMut<'w, T>, filter: Filter) -> Self {
        let (view, log) = view.into_parts();
        ChangedCursor {
            table: view.into_table(),
            log,
            filter,
            pending: None,
        }
    }
}

impl<'w, C> Cursor for ChangedCursor<'w, C> {
    type Item = &'w mut C;

    /// The value of `entity`, the driver's entity at place `hint`, if it
    /// passes the filter; not marked yet (see [`commit`](Cursor::commit)).
    #[inline]
    fn next(&mut self, entity: Entity, hint: usize) -> Option<&'w mut C> {
        self.pending = None;
        let log = self.log.as_deref()?;
        let table = &self.table;
        let offset = table.offset();
        let slot = log.pass(self.filter, entity, hint, || {
            Some(offset + table.slot(entity, hint)?)
        })?;
        let value = self.table.take(slot.checked_sub(offset)?)?;
        self.pending = Some(slot);
        Some(value)
    }

    /// Marks the value the last step found: it is handed out.
    #[inline(always)]
    fn commit(&mut self, entity: Entity) {
        if let (Some(slot), Some(log)) = (self.pending.take(), &mut self.log) {
            log.changed(slot, entity);
        }
    }
}

impl<'w, C: 'static> Cursor for ChangedRef<'w, C> {
    type Item = &'w C;

    #[inline]
    fn next(&mut self, entity: Entity, hint: usize) -> Option<&'w C> {
        let slot = self.find(entity, hint)?;
        Some(&self.map.values()[slot])
    }
}

impl<'w, C: 'static> ReadOnly<'w> for ChangedRef<'w, C> {}

// ----- writing the values that changed -----

/// The column of `Changed<&mut C>` / `Added<&mut C>`: like [`ChangedRef`],
/// handing out `&mut C` (which marks the value changed again, under the
/// current stamp, so an observer sees it at its next look). Its candidates
/// are copied aside when it is made, since its writes extend the log. In a
/// `for` loop it hands out its values by handle, from a table of one
/// pointer per stored value made when the loop starts;
/// [`Join::for_each`](super::Join::for_each) needs no table.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::Changed;
///
/// struct Hp(i32);
/// world! { struct Game<Hp>; tracked (Hp); }
///
/// let mut world = Game::new();
/// let a = world.spawn_with((Hp(0),));
/// let b = world.spawn_with((Hp(-3),));
/// world.clear_changes();
/// world.hp.get_mut(b).unwrap();
/// world.query_mut::<Changed<&mut Hp>>().for_each(|_, hp| hp.0 = hp.0.max(0));
/// assert_eq!(world.get::<Hp>(b).unwrap().0, 0);
/// # let _ = a;
/// ```
#[derive(Debug)]
pub struct ChangedMut<'w, C> {
    view: TrackedViewMut<'w, C>,
    candidates: &'w [Entity],
    filter: Filter,
}

impl<'w, C> ChangedMut<'w, C> {
    #[inline]
    pub(crate) fn new(map: &'w mut SparseMap<C, Tracked>, window: Window, added: bool) -> Self {
        let filter = map.log().filter(window, added);
        let (view, candidates) = map.tracked_view(Some(filter));
        ChangedMut {
            view,
            candidates,
            filter,
        }
    }
}

impl<'w, C: 'static> FetchItem<'w> for ChangedMut<'w, C> {
    type Item<'a> = &'a mut C;
}

impl<'w, C: 'static> Access<'w> for ChangedMut<'w, C> {
    type Found = usize;
    type Cursor = ChangedCursor<'w, C>;
    const COLUMNS: usize = 1;

    #[inline]
    fn plan(&self, planner: &mut Planner<'w>) {
        planner.column(Column {
            entities: self.candidates,
            mark: Mark::NONE,
            required: true,
            written: true,
            candidates: true,
            line_up: None,
        });
    }

    #[inline]
    fn find(&self, entity: Entity, hint: usize) -> Option<usize> {
        self.view.find_if(entity, hint, self.filter)
    }

    #[inline(always)]
    fn fetch(&mut self, found: usize, entity: Entity) -> &mut C {
        self.view.value_mut(found, entity)
    }

    #[inline(always)]
    fn fetch_owned(self, found: usize, entity: Entity) -> &'w mut C {
        self.view.into_value(found, entity)
    }

    /// Its candidates are not in dense order: whichever column drives, it
    /// hands out its values by handle.
    #[inline]
    fn into_cursor(self) -> ChangedCursor<'w, C> {
        ChangedCursor::new(self.view, self.filter)
    }

    /// Never called: the plan gives a written column of candidates no
    /// writer walk, so nothing splits it.
    #[inline]
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (a, b) = self.view.split_at(mid);
        let half = |view| ChangedMut {
            view,
            candidates: self.candidates,
            filter: self.filter,
        };
        (half(a), half(b))
    }
}

impl<'w, C: 'static> Unpacked<'w> for ChangedMut<'w, C> {}

// ----- in a `join`: `Changed(&map)`, `Added(&mut map)`, … -----

macro_rules! impl_into_fetch {
    ($($filter:ident => $added:literal),+) => {$(
        impl<'w, C: 'static> IntoFetch<'w> for $filter<&'w SparseMap<C, Tracked>> {
            type Fetch = ChangedRef<'w, C>;

            #[inline]
            fn into_fetch(self) -> ChangedRef<'w, C> {
                ChangedRef::new(self.0, self.0.log().world_view(), $added)
            }
        }

        impl<'w, C: 'static> IntoFetch<'w> for $filter<&'w mut SparseMap<C, Tracked>> {
            type Fetch = ChangedMut<'w, C>;

            #[inline]
            fn into_fetch(self) -> ChangedMut<'w, C> {
                let window = self.0.log().world_view();
                ChangedMut::new(self.0, window, $added)
            }
        }
    )+};
}

impl_into_fetch!(Changed => false, Added => true);

impl<'w, C: 'static> IntoFetch<'w> for ChangedRef<'w, C> {
    type Fetch = Self;

    #[inline]
    fn into_fetch(self) -> Self {
        self
    }
}

impl<'w, C: 'static> IntoFetch<'w> for ChangedMut<'w, C> {
    type Fetch = Self;

    #[inline]
    fn into_fetch(self) -> Self {
        self
    }
}
