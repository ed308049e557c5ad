//! [`ViewMut`]: a storage that can change values but not membership.

use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use super::iter::IterMut;
use super::line_up::LineUp;
use super::mark::Mark;
use super::pages::Pages;
use super::track::{ChangeLog, Filter};
use crate::Entity;

/// A mutable view of a [`SparseMap`](super::SparseMap): its values can be changed, but not
/// which entities have one. This is what a mutable query holds for each
/// `&mut C`; make one with `(&mut map).into()` or
/// [`SparseMap::view_mut`](super::SparseMap::view_mut).
///
/// It splits the map into a shared sparse index, a shared entity array and a
/// mutable value array, so the entity array can drive a query while values
/// are handed out.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::ViewMut;
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
    mark: Mark,
    /// The storage's proofs of lining up; `None` for a window, whose slots
    /// are not the storage's.
    line_up: Option<&'w LineUp>,
    /// Its entities drive the walk about to start (see
    /// [`set_driver`](Self::set_driver)).
    drives: bool,
}

impl<'w, T> ViewMut<'w, T> {
    /// A view of a storage's parts (for [`SparseMap::view_mut`](super::SparseMap::view_mut)).
    #[inline]
    pub(super) fn new(
        sparse: &'w Pages,
        dense: &'w [Entity],
        data: &'w mut [T],
        mark: Mark,
        line_up: &'w LineUp,
    ) -> Self {
        ViewMut {
            sparse,
            dense,
            data,
            offset: 0,
            mark,
            line_up: Some(line_up),
            drives: false,
        }
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

    /// The storage's proofs of lining up, unless the view is a window.
    #[inline]
    pub(crate) fn line_up(&self) -> Option<&'w LineUp> {
        self.line_up
    }

    /// The slot of `entity` in this view, if it has a value here
    /// (generation checked).
    #[inline]
    fn index_of(&self, entity: Entity) -> Option<usize> {
        slot_of(self.sparse, self.dense, self.offset, entity)
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

    /// The view slot of `entity`, trying view slot `slot` first (see
    /// [`SparseMap::index_of_at`](super::SparseMap::index_of_at)).
    #[inline]
    pub(crate) fn find_at(&self, entity: Entity, slot: usize) -> Option<usize> {
        match self.dense.get(slot) {
            Some(&stored) if stored == entity => Some(slot),
            _ => self.index_of(entity),
        }
    }

    /// The value in view slot `slot`, the slot of `entity`.
    ///
    /// # Panics
    ///
    /// If the view has no slot `slot` (callers found it first).
    #[inline]
    pub(crate) fn value_mut(&mut self, slot: usize, entity: Entity) -> &mut T {
        let _ = entity;
        &mut self.data[slot]
    }

    /// The value in view slot `slot`, the slot of `entity`, for the whole
    /// view lifetime.
    ///
    /// # Panics
    ///
    /// If the view has no slot `slot` (callers found it first).
    #[inline]
    pub(crate) fn into_value(self, slot: usize, entity: Entity) -> &'w mut T {
        let _ = entity;
        &mut self.data[slot]
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

    /// The storage's mark (see [`mark`](super::mark)), as it was when the
    /// view was made.
    #[inline]
    pub(crate) fn mark(&self) -> Mark {
        self.mark
    }

    /// Records whether `driver` (the entities a walk is about to follow)
    /// is this view's own entity array: then its cursor hands out its
    /// values in dense order; otherwise by handle (see [`Order`]).
    #[inline]
    pub(crate) fn set_driver(&mut self, driver: &[Entity]) {
        self.drives = core::ptr::eq(self.dense, driver);
    }

    /// The storage slot of view slot 0 (0 unless the view is a window).
    #[inline]
    pub(crate) fn offset(&self) -> usize {
        self.offset
    }

    /// How a cursor hands out the values: in dense order if the view
    /// drives the walk, by handle otherwise.
    #[inline]
    pub(crate) fn into_order(self) -> Order<'w, T> {
        if self.drives {
            Order::Dense {
                values: self.data.iter_mut(),
                next: 0,
            }
        } else {
            Order::ByHandle(self.into_table())
        }
    }

    /// The values in a table, to be taken out by handle.
    #[inline]
    pub(crate) fn into_table(self) -> ByHandle<'w, T> {
        ByHandle {
            sparse: self.sparse,
            dense: self.dense,
            offset: self.offset,
            values: self.data.iter_mut().map(Some).collect(),
        }
    }

    /// The values in view slots `slots`, mutably.
    ///
    /// # Panics
    ///
    /// If the view has no slot `slots.end - 1` (callers check first).
    #[inline]
    pub(crate) fn values_in(&mut self, slots: Range<usize>) -> &mut [T] {
        &mut self.data[slots]
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
    /// parallel walk or a `for` loop's rows and the lookups after them.
    /// Each window finds only the entities in its slots.
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
                mark: self.mark,
                line_up: None,
                drives: false,
            },
            ViewMut {
                sparse: self.sparse,
                dense: dense_b,
                data: data_b,
                offset: self.offset + mid,
                mark: self.mark,
                line_up: None,
                drives: false,
            },
        )
    }
}

/// The view slot of `entity` among `dense` (a view's entities, whose first
/// is storage slot `offset`), if it has a value there.
#[inline]
fn slot_of(sparse: &Pages, dense: &[Entity], offset: usize, entity: Entity) -> Option<usize> {
    // The entry holds the generation: only the view's bounds are left to
    // check, not the dense entity.
    let slot = sparse.slot_of(entity)?.wrapping_sub(offset);
    (slot < dense.len()).then_some(slot)
}

/// How a written column's cursor hands out its values, one per step of a
/// driven walk.
#[derive(Debug)]
pub(crate) enum Order<'w, T> {
    /// The column drives the walk: its values in dense order, the walk's
    /// entities being its own.
    Dense {
        values: core::slice::IterMut<'w, T>,
        next: usize,
    },
    /// Another column drives: each value is taken out of a table by
    /// handle. The table costs one pointer per value, made when the walk
    /// starts; each value can be taken once, so no two items alias.
    ByHandle(ByHandle<'w, T>),
}

impl<'w, T> Order<'w, T> {
    /// The value for `entity`, the driver's entity at place `hint`, and
    /// its view slot.
    #[inline]
    pub(crate) fn next(&mut self, entity: Entity, hint: usize) -> Option<(usize, &'w mut T)> {
        match self {
            Order::Dense { values, next } => {
                let slot = *next;
                *next += 1;
                values.next().map(|value| (slot, value))
            }
            Order::ByHandle(table) => {
                let slot = table.slot(entity, hint)?;
                table.take(slot).map(|value| (slot, value))
            }
        }
    }
}

/// A view's values in a table, each taken out by handle at most once: how
/// a written column that does not drive an iterator hands out `&mut`
/// borrows that outlive each step, in whatever order the driver visits.
pub(crate) struct ByHandle<'w, T> {
    sparse: &'w Pages,
    dense: &'w [Entity],
    offset: usize,
    values: Vec<Option<&'w mut T>>,
}

impl<'w, T> ByHandle<'w, T> {
    /// The view slot of `entity`, trying slot `hint` first.
    #[inline]
    pub(crate) fn slot(&self, entity: Entity, hint: usize) -> Option<usize> {
        match self.dense.get(hint) {
            Some(&stored) if stored == entity => Some(hint),
            _ => slot_of(self.sparse, self.dense, self.offset, entity),
        }
    }

    /// The storage slot of view slot 0.
    #[inline]
    pub(crate) fn offset(&self) -> usize {
        self.offset
    }

    /// The value in view slot `slot`, unless it was taken already.
    #[inline]
    pub(crate) fn take(&mut self, slot: usize) -> Option<&'w mut T> {
        self.values.get_mut(slot)?.take()
    }
}

impl<T> fmt::Debug for ByHandle<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ByHandle")
            .field("values", &self.values.len())
            .field("left", &self.values.iter().filter(|v| v.is_some()).count())
            .finish()
    }
}

impl<T: fmt::Debug> fmt::Debug for ViewMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.dense.iter().zip(self.data.iter()))
            .finish()
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

/// A [`ViewMut`] of a tracked storage, which records each value it hands
/// out as changed. What a mutable query holds for `&mut C` when `C` is
/// tracked; not made directly.
pub struct TrackedViewMut<'w, T> {
    view: ViewMut<'w, T>,
    /// `None` once the marking was taken out of the view (see
    /// [`take_marks`](Self::take_marks)) or every value the view covers was
    /// marked at once.
    log: Option<&'w mut ChangeLog>,
}

impl<T: fmt::Debug> fmt::Debug for TrackedViewMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.view.fmt(f)
    }
}

impl<'w, T> TrackedViewMut<'w, T> {
    #[inline]
    pub(super) fn new(view: ViewMut<'w, T>, log: &'w mut ChangeLog) -> Self {
        TrackedViewMut {
            view,
            log: Some(log),
        }
    }

    /// The entity in each dense slot of the view.
    #[inline]
    pub(crate) fn entities(&self) -> &'w [Entity] {
        self.view.dense
    }

    /// See [`ViewMut::line_up`].
    #[inline]
    pub(crate) fn line_up(&self) -> Option<&'w LineUp> {
        self.view.line_up
    }

    #[inline]
    pub(crate) fn mark(&self) -> Mark {
        self.view.mark
    }

    /// Marks the value in view slot `slot`.
    #[inline]
    fn touch(&mut self, slot: usize, entity: Entity) {
        if let Some(log) = &mut self.log {
            log.changed(self.view.offset + slot, entity);
        }
    }

    /// See [`ViewMut::find_at`].
    #[inline]
    pub(crate) fn find_at(&self, entity: Entity, slot: usize) -> Option<usize> {
        self.view.find_at(entity, slot)
    }

    /// The value in view slot `slot`, the slot of `entity`; marked.
    #[inline]
    pub(crate) fn value_mut(&mut self, slot: usize, entity: Entity) -> &mut T {
        self.touch(slot, entity);
        self.view.value_mut(slot, entity)
    }

    /// [`value_mut`](Self::value_mut) for the whole view lifetime.
    #[inline]
    pub(crate) fn into_value(mut self, slot: usize, entity: Entity) -> &'w mut T {
        self.touch(slot, entity);
        self.view.into_value(slot, entity)
    }

    /// The view slot of `entity`, if its value passes `filter` (`hint` as
    /// in [`ChangeLog::pass`], with view slot `hint` tried first when
    /// another column drives). Only looks.
    #[inline]
    pub(crate) fn find_if(&self, entity: Entity, hint: usize, filter: Filter) -> Option<usize> {
        let log = self.log.as_deref()?;
        let view = &self.view;
        let offset = view.offset;
        let slot = log.pass(filter, entity, hint, || match view.dense.get(hint) {
            Some(&stored) if stored == entity => Some(offset + hint),
            _ => Some(offset + view.index_of(entity)?),
        })?;
        let in_view = slot.checked_sub(offset)?;
        (in_view < view.dense.len()).then_some(in_view)
    }

    /// The values in view slots `slots`, mutably, every one marked.
    #[inline]
    pub(crate) fn values_in(&mut self, slots: Range<usize>) -> &mut [T] {
        if let Some(log) = &mut self.log {
            let offset = self.view.offset + slots.start;
            for (i, &entity) in self.view.dense[slots.clone()].iter().enumerate() {
                log.changed(offset + i, entity);
            }
        }
        self.view.values_in(slots)
    }

    /// The first `len` values, every one marked.
    #[inline]
    pub(crate) fn into_values_prefix(mut self, len: usize) -> &'w mut [T] {
        let mut marks = self.take_marks();
        marks.mark_slots(0..len);
        self.view.into_values_prefix(len)
    }

    /// See [`ViewMut::set_driver`].
    #[inline]
    pub(crate) fn set_driver(&mut self, driver: &[Entity]) {
        self.view.set_driver(driver);
    }

    /// A view from its parts (see [`into_parts`](Self::into_parts)): `log`
    /// `None` marks nothing.
    #[inline]
    pub(crate) fn from_parts(view: ViewMut<'w, T>, log: Option<&'w mut ChangeLog>) -> Self {
        TrackedViewMut { view, log }
    }

    /// The view and its log, apart: for a cursor that hands values out one
    /// at a time and marks each itself (the query's cursors).
    #[inline]
    pub(crate) fn into_parts(self) -> (ViewMut<'w, T>, Option<&'w mut ChangeLog>) {
        (self.view, self.log)
    }

    /// Takes the marking out of the view: from now on it hands out its
    /// values unmarked, and the caller marks what it handed out.
    #[inline]
    pub(crate) fn take_marks(&mut self) -> TrackedMarks<'w> {
        TrackedMarks {
            log: self.log.take(),
            dense: self.view.dense,
            offset: self.view.offset,
            handed: 0,
        }
    }

    /// Splits the view for a parallel walk. The halves cannot share the
    /// log: a walk takes the marks first (see
    /// [`take_marks`](Self::take_marks)); if it did not, every value the
    /// view covers is marked here. (A `for` loop never splits a tracked
    /// view.)
    #[inline]
    pub(crate) fn split_at(mut self, mid: usize) -> (Self, Self) {
        let len = self.view.dense.len();
        self.take_marks().mark_slots(0..len);
        let (a, b) = self.view.split_at(mid);
        (
            TrackedViewMut { view: a, log: None },
            TrackedViewMut { view: b, log: None },
        )
    }
}

/// The marking taken out of a [`TrackedViewMut`]: marks slots of its view
/// as changed, for a walk that hands its values out in bulk: now, or the
/// first slots handed out when it is dropped.
#[derive(Debug)]
pub struct TrackedMarks<'w> {
    log: Option<&'w mut ChangeLog>,
    /// The view's entities; its first is storage slot `offset`.
    dense: &'w [Entity],
    offset: usize,
    /// How many of the first slots were handed out, to be marked on drop.
    handed: usize,
}

impl Drop for TrackedMarks<'_> {
    fn drop(&mut self) {
        if self.handed > 0 {
            let handed = core::mem::take(&mut self.handed);
            self.mark_slots(0..handed.min(self.dense.len()));
        }
    }
}

impl<'w> TrackedMarks<'w> {
    /// The marking of the view whose entities are `dense`, the first in
    /// storage slot `offset`, into `log` (`None`: nothing to mark).
    #[inline]
    pub(crate) fn new(log: Option<&'w mut ChangeLog>, dense: &'w [Entity], offset: usize) -> Self {
        TrackedMarks {
            log,
            dense,
            offset,
            handed: 0,
        }
    }

    /// `count` more of the first slots were handed out (see `Drop`).
    #[inline(always)]
    pub(crate) fn handed(&mut self, count: usize) {
        self.handed += count;
    }

    /// Marks the values in view slots `slots`: all at once if they are the
    /// whole storage.
    #[inline]
    pub(crate) fn mark_slots(&mut self, slots: Range<usize>) {
        let Some(log) = &mut self.log else {
            return;
        };
        if self.offset == 0 && slots.start == 0 && slots.end == self.dense.len() {
            log.changed_all();
        } else {
            for (i, &entity) in self.dense[slots.clone()].iter().enumerate() {
                log.changed(self.offset + slots.start + i, entity);
            }
        }
    }
}
