//! The column of [`Lazy`](crate::Lazy) in a join: a written storage whose
//! values are handed out as [`Mut`]s.

use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;
use core::sync::atomic::AtomicBool;

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
    /// `Mut`s written through: the first `len`. All of them are unset
    /// between runs (`end` unsets the ones it finds set), so that a run
    /// reuses them as they are, with no fill.
    flags: Vec<AtomicBool>,
    start: usize,
    len: usize,
}

impl RunFlags<'_> {
    /// Marks the flagged values of the run, and forgets the run.
    ///
    /// The flags are read 64 at a time as the bits of a word (see
    /// [`take_bits`]), whose set bits are then found with
    /// `trailing_zeros`: a run with a value written in one slot of four
    /// costs a few instructions per eight slots and one mispredicted
    /// branch per 64 (the end of the word's bits) instead of a branch on
    /// each flag.
    #[inline]
    fn end(&mut self) {
        let len = core::mem::take(&mut self.len);
        let flags = self.flags.get_mut(..len).unwrap_or_default();
        let Some(log) = &mut self.log else {
            flags.iter_mut().for_each(|flag| *flag.get_mut() = false);
            return;
        };
        let first = self.offset + self.start;
        let entities = self.dense.get(self.start..).unwrap_or_default();
        for (word, flags) in flags.chunks_mut(64).enumerate() {
            let mut set = take_bits(flags);
            while set != 0 {
                let i = 64 * word + set.trailing_zeros() as usize;
                set &= set - 1;
                if let Some(&entity) = entities.get(i) {
                    log.changed(first + i, entity);
                }
            }
        }
    }
}

/// The flags of up to 64 slots as the bits of a word (bit `i` set if flag
/// `i` was), each flag unset. Read through `get_mut` (no `Mut` of the run
/// is left), eight at a time as one word: each flag is a byte, 0 or 1, and
/// the multiplication gathers bit 0 of byte `i` into bit `56 + i` (the
/// products of the other bytes land on distinct bits, so nothing
/// carries).
#[inline(always)]
fn take_bits(flags: &mut [AtomicBool]) -> u64 {
    let mut bits = 0;
    let whole = flags.len() / 8 * 8;
    let (eights, rest) = flags.split_at_mut(whole);
    for (i, eight) in eights.chunks_exact_mut(8).enumerate() {
        let bytes = u64::from_le_bytes(core::array::from_fn(|j| {
            u8::from(core::mem::take(eight[j].get_mut()))
        }));
        bits |= (bytes.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i);
    }
    for (i, flag) in rest.iter_mut().enumerate() {
        bits |= u64::from(core::mem::take(flag.get_mut())) << (whole + i);
    }
    bits
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
                len: 0,
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
        self.run.len = slots.len();
        if self.run.flags.len() < slots.len() {
            self.run
                .flags
                .resize_with(slots.len(), || AtomicBool::new(false));
        }
        LazyRun {
            values: self.view.values_in(slots).iter_mut(),
            flags: self.run.flags.iter(),
        }
    }

    /// Marks the values the last run flagged.
    #[inline]
    pub(crate) fn end_run(&mut self) {
        if self.run.len != 0 {
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
    /// walk took the marks first). (A `for` loop never splits a `Lazy`
    /// column: it walks no rows.)
    #[inline]
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

/// Walked as its values and flags zipped (both slices: the zip walks by
/// index), each pair made a `Mut` as it is handed out.
impl<'a, T> crate::query::rows::WalkRows for LazyRun<'a, T> {
    type Item = Mut<'a, T>;
    type Parts = core::iter::Zip<core::slice::IterMut<'a, T>, core::slice::Iter<'a, AtomicBool>>;

    #[inline(always)]
    fn parts(self) -> Self::Parts {
        self.values.zip(self.flags)
    }

    #[inline(always)]
    fn item((value, flag): (&'a mut T, &'a AtomicBool)) -> Mut<'a, T> {
        Mut::flagged(value, flag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_bits_reads_each_flag_into_its_bit_and_unsets_it() {
        for len in 0..=64 {
            for pattern in [0, u64::MAX, 0x8000_0000_0000_0001, 0x0123_4567_89AB_CDEF] {
                let mut flags: Vec<AtomicBool> = (0..len)
                    .map(|i| AtomicBool::new(pattern >> i & 1 == 1))
                    .collect();
                let expected = if len == 64 {
                    pattern
                } else {
                    pattern & ((1 << len) - 1)
                };
                assert_eq!(take_bits(&mut flags), expected, "{len} flags");
                assert!(flags.iter_mut().all(|flag| !*flag.get_mut()));
            }
        }
    }
}
