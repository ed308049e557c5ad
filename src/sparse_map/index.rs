//! [`EntityIndex`]: entity → one number, generation checked, with nothing
//! dense beside it.

use super::pages::Pages;
use crate::Entity;

/// Entity → one `u32`, the generation checked on every lookup: the sparse
/// half of a storage alone. A queue keeps its entries in its own list and
/// this beside it, to find an entity's entry in O(1).
///
/// At most one generation of an entity index is held at a time: the
/// caller takes an entity out before another generation of its index goes
/// in (a world cancels an entity's queued changes when it despawns it).
#[derive(Clone, Default)]
pub(crate) struct EntityIndex {
    pages: Pages,
    len: usize,
}

impl EntityIndex {
    /// The number held for `entity` (generation checked).
    #[inline]
    pub(crate) fn get(&self, entity: Entity) -> Option<u32> {
        self.pages.slot_of(entity).map(|number| number as u32)
    }

    /// `true` if some generation of entity index `index` is held.
    #[cfg(feature = "serde")]
    pub(crate) fn holds_index(&self, index: u32) -> bool {
        self.pages.get(index) != super::pages::EMPTY
    }

    /// How many entities are held.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Holds `number` for `entity`, which is not held yet (nor another
    /// generation of its index).
    #[inline]
    pub(crate) fn insert(&mut self, entity: Entity, number: u32) {
        match self.pages.entry_mut(entity.index()) {
            Some(entry) => {
                debug_assert!(Pages::is_vacant(entry), "{entity:?}'s index is held");
                Pages::fill(entry, entity, number as usize);
            }
            None => self.pages.set_in_new_page(entity, number),
        }
        self.len += 1;
    }

    /// Takes `entity` out, returning its number, if it is held.
    #[inline]
    pub(crate) fn remove(&mut self, entity: Entity) -> Option<u32> {
        let entry = self.pages.entry_mut(entity.index())?;
        let number = Pages::holds(entry, entity)? as u32;
        Pages::vacate(entry);
        self.len -= 1;
        Some(number)
    }

    /// Checks that `len` counts the entries held.
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(crate) fn check(&self, what: &str) -> Result<(), alloc::string::String> {
        let filled = self.pages.filled();
        if filled != self.len {
            return Err(alloc::format!(
                "{what}: {filled} entities indexed, {} counted",
                self.len
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EntityAllocator;

    #[test]
    fn holds_one_number_per_entity_and_checks_generations() {
        let mut entities = EntityAllocator::new();
        let a = entities.alloc();
        let mut index = EntityIndex::default();
        index.insert(a, 7);
        assert_eq!((index.get(a), index.len()), (Some(7), 1));
        entities.free(a);
        let reused = entities.alloc();
        assert_eq!(reused.index(), a.index());
        assert_eq!(index.get(reused), None, "another generation");
        assert_eq!(index.remove(reused), None);
        assert_eq!(index.remove(a), Some(7));
        assert_eq!((index.get(a), index.len()), (None, 0));
        index.insert(reused, u32::MAX);
        assert_eq!(index.get(reused), Some(u32::MAX));
        index.check("index").unwrap();
    }
}
