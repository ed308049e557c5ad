//! [`ViewMut`]: a storage that can change values but not membership.

use core::fmt;

use super::iter::IterMut;
use super::mark::Mark;
use super::pages::Pages;
use crate::change::{ChangeLog, Filter};
use crate::entity::SyncStamp;
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
    mark: Mark,
    stamp: SyncStamp,
}

impl<'w, T> ViewMut<'w, T> {
    /// A view of a storage's parts (for [`SparseMap::view_mut`](super::SparseMap::view_mut)).
    #[inline]
    pub(super) fn new(
        sparse: &'w Pages,
        dense: &'w [Entity],
        data: &'w mut [T],
        mark: Mark,
        stamp: SyncStamp,
    ) -> Self {
        ViewMut {
            sparse,
            dense,
            data,
            offset: 0,
            mark,
            stamp,
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
    /// [`SparseMap::index_of_at`](super::SparseMap::index_of_at)).
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

    /// The storage's mark (see [`mark`](super::mark)), as it was when the
    /// view was made.
    #[inline]
    pub(crate) fn mark(&self) -> Mark {
        self.mark
    }

    /// What the storage was in step with when the view was made.
    #[inline]
    pub(crate) fn stamp(&self) -> SyncStamp {
        self.stamp
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
                mark: self.mark,
                stamp: self.stamp,
            },
            ViewMut {
                sparse: self.sparse,
                dense: dense_b,
                data: data_b,
                offset: self.offset + mid,
                mark: self.mark,
                stamp: self.stamp,
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
    /// `None` once every value the view covers was marked at once.
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

    #[inline]
    pub(crate) fn mark(&self) -> Mark {
        self.view.mark
    }

    #[inline]
    pub(crate) fn stamp(&self) -> SyncStamp {
        self.view.stamp
    }

    /// Marks the value in view slot `slot`.
    #[inline]
    fn touch(&mut self, slot: usize, entity: Entity) {
        if let Some(log) = &mut self.log {
            log.changed(self.view.offset + slot, entity);
        }
    }

    /// `entity`'s value, mutably, trying view slot `slot` first; marked.
    #[inline]
    pub(crate) fn get_mut_at(&mut self, entity: Entity, slot: usize) -> Option<&mut T> {
        let slot = match self.view.dense.get(slot) {
            Some(&stored) if stored == entity => slot,
            _ => self.view.index_of(entity)?,
        };
        self.touch(slot, entity);
        self.view.data.get_mut(slot)
    }

    /// `entity`'s value, mutably, if it passes `filter` (`hint` as in
    /// [`ChangeLog::pass`], with view slot `hint` tried first when another
    /// column drives); marked.
    #[inline]
    pub(crate) fn get_mut_if(
        &mut self,
        entity: Entity,
        hint: usize,
        filter: Filter,
    ) -> Option<&mut T> {
        let log = self.log.as_deref_mut()?;
        let view = &self.view;
        let offset = view.offset;
        let slot = log.pass(filter, entity, hint, || match view.dense.get(hint) {
            Some(&stored) if stored == entity => Some(offset + hint),
            _ => Some(offset + view.index_of(entity)?),
        })?;
        let in_view = slot.checked_sub(offset)?;
        let value = self.view.data.get_mut(in_view)?;
        log.changed(slot, entity);
        Some(value)
    }

    /// Like [`get_mut_if`](Self::get_mut_if), for the whole view lifetime.
    #[inline]
    pub(crate) fn into_mut_if(self, entity: Entity, filter: Filter) -> Option<&'w mut T> {
        let slot = self.view.index_of(entity)?;
        let log = self.log?;
        let offset = self.view.offset;
        log.pass(filter, entity, usize::MAX, || Some(offset + slot))?;
        log.changed(offset + slot, entity);
        self.view.data.get_mut(slot)
    }

    /// `entity`'s value for the whole view lifetime; marked.
    #[inline]
    pub(crate) fn into_mut(mut self, entity: Entity) -> Option<&'w mut T> {
        let slot = self.view.index_of(entity)?;
        self.touch(slot, entity);
        self.view.data.get_mut(slot)
    }

    /// The first `len` values, every one marked.
    #[inline]
    pub(crate) fn into_values_prefix(self, len: usize) -> &'w mut [T] {
        if let Some(log) = self.log {
            if self.view.offset == 0 && len == self.view.dense.len() {
                log.changed_all();
            } else {
                for (slot, &entity) in self.view.dense[..len].iter().enumerate() {
                    log.changed(self.view.offset + slot, entity);
                }
            }
        }
        self.view.into_values_prefix(len)
    }

    /// The values in dense order, each marked as it is handed out.
    #[inline]
    pub(crate) fn into_cursor(self) -> TrackedCursor<'w, T> {
        TrackedCursor {
            entities: self.view.dense,
            values: self.view.data.iter_mut(),
            offset: self.view.offset,
            next: 0,
            log: self.log,
        }
    }

    /// Splits the view for a parallel walk. The halves cannot share the
    /// log, so every value the view covers is marked first.
    #[inline]
    pub(crate) fn split_at(mut self, mid: usize) -> (Self, Self) {
        if let Some(log) = self.log.take() {
            if self.view.offset == 0 {
                log.changed_all();
            } else {
                for (slot, &entity) in self.view.dense.iter().enumerate() {
                    log.changed(self.view.offset + slot, entity);
                }
            }
        }
        let (a, b) = self.view.split_at(mid);
        (
            TrackedViewMut { view: a, log: None },
            TrackedViewMut { view: b, log: None },
        )
    }
}

/// The cursor of a tracked written column: the values in dense order,
/// each marked as it is handed out.
#[derive(Debug)]
pub struct TrackedCursor<'w, T> {
    entities: &'w [Entity],
    values: core::slice::IterMut<'w, T>,
    offset: usize,
    next: usize,
    log: Option<&'w mut ChangeLog>,
}

impl<'w, T> TrackedCursor<'w, T> {
    /// The next value in dense order, marked.
    #[inline]
    pub(crate) fn next_value(&mut self) -> Option<&'w mut T> {
        let value = self.values.next()?;
        let slot = self.next;
        self.next += 1;
        if let Some(log) = &mut self.log {
            log.changed(self.offset + slot, self.entities[slot]);
        }
        Some(value)
    }
}
