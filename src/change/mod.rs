//! Change detection: who looks at what a tracked storage records (see
//! [`Tracked`]), and how.
//!
//! Two kinds of observer read the record: the world's own view (its
//! `Changed`/`Added` query terms, [`World::removed`](crate::World::removed),
//! [`World::clear_changes`](crate::World::clear_changes), in `world.rs`
//! here) and each system's [`Seen`](crate::system::Seen). [`Mut`] hands a
//! value out so that only a write marks it.
//!
//! Who advances the clock, and who holds which window, is said in the docs
//! of each observer.

use core::fmt;
use core::sync::atomic::{AtomicBool, Ordering};

pub(crate) use crate::sparse_map::track::{ChangeLog, Filter, Hooks, Tail, Window};
pub use crate::sparse_map::track::{Track, Tracked, Untracked};
use crate::{Entity, SparseMap};

pub(crate) mod world;

/// A value handed out mutably that counts as changed only once written
/// through: [`DerefMut`](core::ops::DerefMut) (any write, `*value = …`,
/// `value.0 += 1`, a `&mut` method) marks it, reading through
/// [`Deref`](core::ops::Deref) does not. bevy's `Mut<T>`. Made by
/// [`SparseMap::for_each_mut`](crate::SparseMap::for_each_mut) and
/// [`SparseMap::get_mut_lazy`](crate::SparseMap::get_mut_lazy); on an
/// untracked storage it marks nothing.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::Changed;
///
/// #[derive(Debug, PartialEq)]
/// struct Hp(i32);
/// world! { struct Game<Hp>; tracked (Hp); }
///
/// let mut world = Game::new();
/// let a = world.spawn_with((Hp(150),));
/// let b = world.spawn_with((Hp(50),));
/// world.clear_changes();
/// world.hp.for_each_mut(|_, mut hp: Mut<'_, Hp>| {
///     let clamped = Hp(hp.0.min(100)); // a read: no mark
///     hp.set_if_neq(clamped); // writes, and marks, only if different
/// });
/// let changed: Vec<Entity> = world.query::<Changed<&Hp>>().map(|(e, _)| e).collect();
/// assert_eq!(changed, [a]);
/// # let _ = b;
/// ```
pub struct Mut<'a, T> {
    value: &'a mut T,
    /// Where to mark the value, until it is marked.
    mark: Marker<'a>,
}

/// Where a [`Mut`] marks its value when written through.
enum Marker<'a> {
    /// Nowhere: marked already, handed out marked, or untracked.
    Nothing,
    /// In this change log, at this storage slot, for this entity.
    Log(&'a mut ChangeLog, usize, Entity),
    /// In a flag of the walk that handed it out, which marks the flagged
    /// values in its log when the run of slots it belongs to ends (a
    /// lined-up run of a join hands out many at once: they cannot all
    /// hold the log).
    Flag(&'a AtomicBool),
}

impl<'a, T> Mut<'a, T> {
    /// `value`, in `slot` of a storage for `entity`, whose change record
    /// (if it is tracked) is `log`.
    #[inline]
    pub(crate) fn new(
        value: &'a mut T,
        log: Option<&'a mut Tracked>,
        slot: usize,
        entity: Entity,
    ) -> Self {
        Self::logged(value, log.map(|tracked| &mut tracked.log), slot, entity)
    }

    /// `value`, in `slot` of a storage for `entity`, whose change log (if
    /// it is tracked) is `log`.
    #[inline]
    pub(crate) fn logged(
        value: &'a mut T,
        log: Option<&'a mut ChangeLog>,
        slot: usize,
        entity: Entity,
    ) -> Self {
        Mut {
            value,
            mark: match log {
                Some(log) => Marker::Log(log, slot, entity),
                None => Marker::Nothing,
            },
        }
    }

    /// `value`, whose write sets `flag` (see `Marker::Flag`).
    #[inline]
    pub(crate) fn flagged(value: &'a mut T, flag: &'a AtomicBool) -> Self {
        Mut {
            value,
            mark: Marker::Flag(flag),
        }
    }

    /// `value`, marked already by whoever handed it out.
    #[inline]
    pub(crate) fn marked(value: &'a mut T) -> Self {
        Mut {
            value,
            mark: Marker::Nothing,
        }
    }

    /// Marks the value changed (once).
    #[inline]
    fn touch(&mut self) {
        match core::mem::replace(&mut self.mark, Marker::Nothing) {
            Marker::Nothing => {}
            Marker::Log(log, slot, entity) => log.changed(slot, entity),
            Marker::Flag(flag) => flag.store(true, Ordering::Relaxed),
        }
    }

    /// Writes `value` only if it differs from the current one (and marks
    /// it then); returns whether it did. bevy's `set_if_neq`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # #[derive(Debug, PartialEq)] struct Hp(i32);
    /// # world! { struct Game<Hp>; tracked (Hp); }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(1),));
    /// let mut hp = world.hp.get_mut_lazy(e).unwrap();
    /// assert!(!hp.set_if_neq(Hp(1)));
    /// assert!(hp.set_if_neq(Hp(2)));
    /// ```
    #[inline]
    pub fn set_if_neq(&mut self, value: T) -> bool
    where
        T: PartialEq,
    {
        if *self.value == value {
            return false;
        }
        self.touch();
        *self.value = value;
        true
    }

    /// The value, mutably, *without* marking it changed: a write through
    /// it is not seen by any observer. For bookkeeping an observer should
    /// not react to (a cache, a counter). bevy's `bypass_change_detection`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::Changed;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; tracked (Hp); }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(1),));
    /// world.clear_changes();
    /// world.hp.get_mut_lazy(e).unwrap().bypass_change_detection().0 = 7;
    /// assert_eq!(world.query::<Changed<&Hp>>().count(), 0);
    /// ```
    #[inline]
    pub fn bypass_change_detection(&mut self) -> &mut T {
        self.value
    }

    /// The value, mutably, for as long as the `Mut` could be used, marked
    /// changed.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; tracked (Hp); }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(1),));
    /// let hp: &mut Hp = world.hp.get_mut_lazy(e).unwrap().into_inner();
    /// hp.0 = 2;
    /// ```
    #[inline]
    pub fn into_inner(mut self) -> &'a mut T {
        self.touch();
        self.value
    }
}

impl<T> core::ops::Deref for Mut<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> core::ops::DerefMut for Mut<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.touch();
        self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Mut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

/// Walks that hand out [`Mut`]s.
impl<T, K: Track> SparseMap<T, K> {
    /// Calls `f(entity, value)` for every value, in dense order, handing
    /// each out as a [`Mut`]: on a tracked storage, a value counts as
    /// changed only if it is written through (not for being looked at), so
    /// a system that changes a few of many values marks only those. On an
    /// untracked storage it is a plain walk.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::Changed;
    /// # #[derive(Debug, PartialEq)] struct Hp(i32);
    /// # world! { struct Game<Hp>; tracked (Hp); }
    /// let mut world = Game::new();
    /// let low = world.spawn_with((Hp(5),));
    /// let high = world.spawn_with((Hp(500),));
    /// world.clear_changes();
    /// // Clamp: only the values above 100 are written, and marked.
    /// world.hp.for_each_mut(|_, mut hp| {
    ///     if hp.0 > 100 {
    ///         hp.0 = 100;
    ///     }
    /// });
    /// let changed: Vec<Entity> = world.query::<Changed<&Hp>>().map(|(e, _)| e).collect();
    /// assert_eq!(changed, [high]);
    /// assert_eq!(world.get::<Hp>(low), Some(&Hp(5)));
    /// ```
    #[inline]
    pub fn for_each_mut(&mut self, mut f: impl FnMut(Entity, Mut<'_, T>)) {
        let (entities, values, track) = self.parts_mut();
        let mut log = track.tracked_mut();
        for (slot, (&entity, value)) in entities.iter().zip(values).enumerate() {
            f(entity, Mut::new(value, log.as_deref_mut(), slot, entity));
        }
    }

    /// `entity`'s value as a [`Mut`], if it has one: on a tracked storage,
    /// it counts as changed only once written through (see
    /// [`Mut::set_if_neq`] and [`Mut::bypass_change_detection`]).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::Changed;
    /// # #[derive(Debug, PartialEq)] struct Hp(i32);
    /// # world! { struct Game<Hp>; tracked (Hp); }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(5),));
    /// world.clear_changes();
    /// let mut hp = world.hp.get_mut_lazy(e).unwrap();
    /// assert!(!hp.set_if_neq(Hp(5)), "the same value: no change");
    /// assert_eq!(world.query::<Changed<&Hp>>().count(), 0);
    /// ```
    #[inline]
    pub fn get_mut_lazy(&mut self, entity: Entity) -> Option<Mut<'_, T>> {
        let slot = self.index_of(entity)?;
        let (_, values, track) = self.parts_mut();
        Some(Mut::new(
            &mut values[slot],
            track.tracked_mut(),
            slot,
            entity,
        ))
    }
}
