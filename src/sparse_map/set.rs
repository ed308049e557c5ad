//! The sparse-set core a storage is made of.

use alloc::vec::Vec;

use super::line_up::LineUp;
use super::pages::{Pages, EMPTY};
use crate::Entity;

/// The sparse-set core of a storage.
///
/// Invariant, for every slot `i < dense.len()`: the sparse entry of
/// `dense[i].index` holds slot `i` and `dense[i]`'s generation,
/// `dense.len() == data.len()`, and no other sparse entry is filled. Hence
/// the entry of `e.index` holds `e`'s generation exactly when `e` is
/// stored, and then its slot: a lookup reads no dense entity.
#[derive(Clone)]
pub(crate) struct SparseSet<T> {
    pub(super) sparse: Pages,
    pub(super) dense: Vec<Entity>,
    pub(super) data: Vec<T>,
    /// The dense order and what it was found lined up with: every change
    /// that moves or removes a stored entity calls
    /// [`reordered`](LineUp::reordered).
    pub(super) line_up: LineUp,
}

impl<T> SparseSet<T> {
    pub(crate) const fn new() -> Self {
        SparseSet {
            sparse: Pages::new(),
            dense: Vec::new(),
            data: Vec::new(),
            line_up: LineUp::new(),
        }
    }

    pub(super) fn with_capacity(capacity: usize) -> Self {
        SparseSet {
            sparse: {
                let mut pages = Pages::new();
                pages.reserve(capacity);
                pages
            },
            dense: Vec::with_capacity(capacity),
            data: Vec::with_capacity(capacity),
            line_up: LineUp::new(),
        }
    }

    /// The dense slot of `entity`, if stored (generation checked).
    #[inline(always)]
    pub(super) fn index_of(&self, entity: Entity) -> Option<usize> {
        self.sparse.slot_of(entity)
    }

    #[inline]
    pub(crate) fn contains(&self, entity: Entity) -> bool {
        self.index_of(entity).is_some()
    }

    #[inline]
    pub(crate) fn get(&self, entity: Entity) -> Option<&T> {
        self.index_of(entity).map(|slot| &self.data[slot])
    }

    /// Stores `value` for `entity`, returning the value it replaces; the
    /// caller guarantees what [`insert_new`](Self::insert_new) says.
    #[cfg(feature = "serde")]
    pub(crate) fn insert(&mut self, entity: Entity, value: T) -> Option<T> {
        match self.insert_new(entity, value) {
            Ok(()) => None,
            Err((slot, value)) => Some(core::mem::replace(&mut self.data[slot], value)),
        }
    }

    /// Stores `value` for `entity` if it has none; otherwise hands it back
    /// with the slot of the value already stored. One sparse lookup.
    ///
    /// The caller guarantees no *other* generation of `entity`'s index is
    /// stored: a world removes every component before an index is reused,
    /// and brings a storage in step before it adds to it.
    #[inline(always)]
    pub(super) fn insert_new(&mut self, entity: Entity, value: T) -> Result<(), (usize, T)> {
        let len = self.dense.len();
        match self.sparse.entry_mut(entity.index()) {
            Some(entry) => {
                if let Some(slot) = Pages::holds(entry, entity) {
                    return Err((slot, value));
                }
                debug_assert!(
                    Pages::is_vacant(entry),
                    "index {} is stored under another generation",
                    entity.index()
                );
                Self::push(&mut self.dense, &mut self.data, entity, value);
                Pages::fill(entry, entity, len);
            }
            None => {
                Self::push(&mut self.dense, &mut self.data, entity, value);
                self.sparse.set_in_new_page(entity, len as u32);
            }
        }
        Ok(())
    }

    /// Appends a slot.
    #[inline]
    pub(super) fn push(dense: &mut Vec<Entity>, data: &mut Vec<T>, entity: Entity, value: T) {
        if dense.len() == dense.capacity() {
            Self::grow(dense, data);
        }
        dense.push(entity);
        data.push(value);
    }

    /// Makes room for one more slot. A storage's first slot is allocated
    /// alone, so a storage with one value holds one dense entry.
    #[cold]
    pub(super) fn grow(dense: &mut Vec<Entity>, data: &mut Vec<T>) {
        assert!(
            dense.len() < EMPTY as usize,
            "a storage holds at most u32::MAX - 1 values"
        );
        if dense.capacity() == 0 {
            dense.reserve_exact(1);
            data.reserve_exact(1);
        } else {
            dense.reserve(1);
            data.reserve(1);
        }
    }

    /// Takes `entity`'s value out by swap-remove (the last slot moves into
    /// the hole) and says which dense slot it was in. Two sparse lookups:
    /// the entity's and the moved one's. The storage is consistent before
    /// the value is returned, so a panicking `Drop` of it cannot leave it
    /// half-updated.
    #[inline]
    pub(super) fn remove_with_slot(&mut self, entity: Entity) -> Option<(usize, T)> {
        self.remove_if(entity, || true)
    }

    /// Like [`remove_with_slot`](Self::remove_with_slot), if `keep` (asked
    /// once `entity` is found) says to.
    #[inline(always)]
    pub(super) fn remove_if(
        &mut self,
        entity: Entity,
        keep: impl FnOnce() -> bool,
    ) -> Option<(usize, T)> {
        let entry = self.sparse.entry_mut(entity.index())?;
        let slot = Pages::holds(entry, entity)?;
        if !keep() {
            return None;
        }
        Pages::vacate(entry);
        self.line_up.reordered();
        let last = self.dense.len() - 1;
        if slot != last {
            let moved = self.dense[last];
            if let Some(entry) = self.sparse.entry_mut(moved.index()) {
                Pages::fill(entry, moved, slot);
            }
        }
        self.dense.swap_remove(slot);
        Some((slot, self.data.swap_remove(slot)))
    }

    /// Swaps the entities (and values) in dense slots `a` and `b`, keeping
    /// the sparse index in step. Both slots must exist.
    #[inline]
    pub(super) fn swap(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        self.line_up.reordered();
        self.dense.swap(a, b);
        self.data.swap(a, b);
        self.sparse.set(self.dense[a], a as u32);
        self.sparse.set(self.dense[b], b as u32);
    }

    /// Empties the set and returns the values, for the caller to drop once
    /// every other storage is consistent too.
    pub(crate) fn take(&mut self) -> Vec<T> {
        for &entity in &self.dense {
            self.sparse.clear(entity.index());
        }
        self.line_up.reordered();
        self.dense.clear();
        core::mem::take(&mut self.data)
    }

    /// Checks the invariant above, saying what breaks it.
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(crate) fn check_invariants(&self, what: &str) -> Result<(), alloc::string::String> {
        use alloc::format;
        if self.dense.len() != self.data.len() {
            return Err(format!("{what}: dense and data lengths differ"));
        }
        for (slot, &entity) in self.dense.iter().enumerate() {
            if self.sparse.get(entity.index()) as usize != slot {
                return Err(format!(
                    "{what}: sparse[{entity:?}] does not point at its dense slot {slot}"
                ));
            }
            if self.sparse.generation(entity.index()) != entity.generation() {
                return Err(format!(
                    "{what}: sparse[{entity:?}] holds another generation"
                ));
            }
        }
        if self.sparse.filled() != self.dense.len() {
            return Err(format!("{what}: sparse entries that point nowhere"));
        }
        self.sparse
            .check()
            .map_err(|broken| format!("{what}: {broken}"))
    }
}
