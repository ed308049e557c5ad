//! The column of [`Lazy`](crate::Lazy) in a join: a written storage whose
//! values are handed out as [`Mut`]s.

use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::change::{ChangeLog, Mut};
use crate::sparse_map::line_up::LineUp;
use crate::sparse_map::mark::Mark;
use crate::sparse_map::{TrackedMarks, TrackedViewMut, ViewMut};
use crate::Entity;

/// The column [`Lazy`](crate::Lazy) makes of a written storage in a join:
/// it hands its values out as [`Mut`]s, so a value counts as changed only
/// once written through. Looked up one at a time, each `Mut` holds the
/// change log; in a lined-up run of a driven walk, many are handed out at
/// once, so each holds a flag of the run instead, and the flagged values
/// are marked when the run ends, or when the column is dropped (a panic in
/// the walk's closure included). A `for` loop or a parallel walk marks
/// every value it hands out, as `&mut C` does. On an untracked storage it
/// marks nothing. Not made directly: see [`Lazy`](crate::Lazy).
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{IntoFetch, Lazy, LazyViewMut};
///
/// struct Hp(i32);
/// world! { struct Game<Hp>; tracked (Hp); }
///
/// let mut world = Game::new();
/// let column: LazyViewMut<'_, Hp> = Lazy(&mut world.hp).into_fetch();
/// # drop(column);
/// ```
pub struct LazyViewMut<'w, T> {
    view: ViewMut<'w, T>,
    run: RunFlags<'w>,
}

impl<T: fmt::Debug> fmt::Debug for LazyViewMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.view.fmt(f)
    }
}

/// The marking of a [`LazyViewMut`]: its log, and the flags of the run of
/// slots handed out last, marked when the run ends or this is dropped.
struct RunFlags<'w> {
    log: Option<&'w mut ChangeLog>,
    /// The view's entities; its first is storage slot `offset`.
    dense: &'w [Entity],
    offset: usize,
    /// One flag per slot of the run (from view slot `start`), set by the
    /// `Mut`s written through.
    flags: Vec<AtomicBool>,
    start: usize,
}

impl RunFlags<'_> {
    /// Marks the flagged values of the run, and forgets the run.
    #[inline]
    fn end(&mut self) {
        let Some(log) = &mut self.log else {
            self.flags.clear();
            return;
        };
        let entities = self.dense.get(self.start..).unwrap_or_default();
        for (i, (flag, &entity)) in self.flags.iter().zip(entities).enumerate() {
            if flag.load(Ordering::Relaxed) {
                log.changed(self.offset + self.start + i, entity);
            }
        }
        self.flags.clear();
    }
}

impl Drop for RunFlags<'_> {
    fn drop(&mut self) {
        // A panic in the walk's closure leaves a run open: what it wrote is
        // marked all the same.
        self.end();
    }
}

impl<'w, T> LazyViewMut<'w, T> {
    /// `view`, whose storage's change log (if tracked) is `log`.
    #[inline]
    pub(crate) fn new(view: ViewMut<'w, T>, log: Option<&'w mut ChangeLog>) -> Self {
        LazyViewMut {
            run: RunFlags {
                log,
                dense: view.entities(),
                offset: view.offset(),
                flags: Vec::new(),
                start: 0,
            },
            view,
        }
    }

    /// The entity in each dense slot of the view.
    #[inline]
    pub(crate) fn entities(&self) -> &'w [Entity] {
        self.view.entities()
    }

    #[inline]
    pub(crate) fn mark(&self) -> Mark {
        self.view.mark()
    }

    /// See [`ViewMut::line_up`].
    #[inline]
    pub(crate) fn line_up(&self) -> Option<&'w LineUp> {
        self.view.line_up()
    }

    /// See [`ViewMut::find_at`].
    #[inline]
    pub(crate) fn find_at(&self, entity: Entity, slot: usize) -> Option<usize> {
        self.view.find_at(entity, slot)
    }

    /// The value in view slot `slot`, the slot of `entity`, as a `Mut`.
    #[inline]
    pub(crate) fn value_mut(&mut self, slot: usize, entity: Entity) -> Mut<'_, T> {
        let storage_slot = self.view.offset() + slot;
        Mut::logged(
            self.view.value_mut(slot, entity),
            self.run.log.as_deref_mut(),
            storage_slot,
            entity,
        )
    }

    /// [`value_mut`](Self::value_mut) for the whole view lifetime.
    #[inline]
    pub(crate) fn into_value(mut self, slot: usize, entity: Entity) -> Mut<'w, T> {
        self.run.end();
        let storage_slot = self.view.offset() + slot;
        let log = self.run.log.take();
        Mut::logged(
            self.view.into_value(slot, entity),
            log,
            storage_slot,
            entity,
        )
    }

    /// The values in view slots `slots` as `Mut`s, each flagged when
    /// written through; the run before is ended first.
    #[inline]
    pub(crate) fn run(&mut self, slots: Range<usize>) -> LazyRun<'_, T> {
        self.run.end();
        self.run.start = slots.start;
        self.run
            .flags
            .resize_with(slots.len(), || AtomicBool::new(false));
        LazyRun {
            values: self.view.values_in(slots).iter_mut(),
            flags: self.run.flags.iter(),
        }
    }

    /// Marks the values the last run flagged.
    #[inline]
    pub(crate) fn end_run(&mut self) {
        if !self.run.flags.is_empty() {
            self.run.end();
        }
    }

    /// See [`ViewMut::set_driver`].
    #[inline]
    pub(crate) fn set_driver(&mut self, driver: &[Entity]) {
        self.view.set_driver(driver);
    }

    /// The view as a [`TrackedViewMut`], which marks each value it hands
    /// out: for a cursor (a `for` loop), which hands values out one by one
    /// for as long as the loop's items live.
    #[inline]
    pub(crate) fn into_marking(mut self) -> TrackedViewMut<'w, T> {
        self.run.end();
        let log = self.run.log.take();
        TrackedViewMut::from_parts(self.view, log)
    }

    /// Takes the marking out of the view: from now on it hands out its
    /// values unmarked, and the caller marks what it handed out (every
    /// value, written or not).
    #[inline]
    pub(crate) fn take_marks(&mut self) -> TrackedMarks<'w> {
        self.run.end();
        TrackedMarks::new(
            self.run.log.take(),
            self.view.entities(),
            self.view.offset(),
        )
    }

    /// Splits the view for a parallel walk (see
    /// [`TrackedViewMut::split_at`]: every value is marked here unless the
    /// walk took the marks first).
    #[inline]
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))] // `par_for_each` only
    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
        let (a, b) = self.into_marking().split_at(mid);
        (
            LazyViewMut::new(a.into_parts().0, None),
            LazyViewMut::new(b.into_parts().0, None),
        )
    }
}

/// The values of a run of a [`LazyViewMut`], as `Mut`s that set the run's
/// flags: what a `for_each` over a join with a [`Lazy`](crate::Lazy)
/// column hands out where its storages line up.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{join, Changed, Lazy};
///
/// struct Hp(i32);
/// struct Armor(i32);
/// world! { struct Game<Hp, Armor>; tracked (Hp); }
///
/// let mut world = Game::new();
/// for a in 0..40 {
///     world.spawn_with((Hp(10), Armor(a))); // spawned together: lined up
/// }
/// world.clear_changes();
/// join((Lazy(&mut world.hp), &world.armor)).for_each(|_, (mut hp, armor)| {
///     if armor.0 < 5 {
///         hp.0 -= 5 - armor.0;
///     }
/// });
/// assert_eq!(world.query::<Changed<&Hp>>().count(), 5);
/// ```
#[derive(Debug)]
pub struct LazyRun<'a, T> {
    values: core::slice::IterMut<'a, T>,
    flags: core::slice::Iter<'a, AtomicBool>,
}

impl<'a, T> Iterator for LazyRun<'a, T> {
    type Item = Mut<'a, T>;

    #[inline]
    fn next(&mut self) -> Option<Mut<'a, T>> {
        let value = self.values.next()?;
        let flag = self.flags.next()?;
        Some(Mut::flagged(value, flag))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.values.size_hint()
    }
}
