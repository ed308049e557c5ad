//! The paged sparse index of a storage: entity index → dense slot, and
//! the generation of the entity stored there.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::Entity;

/// log2 of the number of entries in one sparse page.
pub(super) const PAGE_BITS: u32 = 11;
/// Entries per sparse page: 2048 entries of 8 bytes, 16 KiB.
pub(super) const PAGE_LEN: usize = 1 << PAGE_BITS;
/// What [`Pages::get`] says for an index with no entry. Never a dense
/// index: a storage holds at most `u32::MAX` values, so dense indices stop
/// at `u32::MAX - 1`.
pub(super) const EMPTY: u32 = u32::MAX;

/// A sparse entry: the dense slot in the low 32 bits and the generation of
/// the entity stored there in the high 32, the halves of an [`Entity`]'s
/// own bits. An empty entry is 0: no generation is 0, so it matches no
/// handle, and a new page is zeroed memory.
type Entry = u64;

/// The empty entry.
const VACANT: Entry = 0;

/// The high half of an entry or of an entity's bits: the generation.
const GENERATION: u64 = !(u32::MAX as u64);

/// The entry for `entity` stored in dense slot `slot`.
#[inline]
fn entry(entity: Entity, slot: u32) -> Entry {
    (entity.to_bits() & GENERATION) | u64::from(slot)
}

/// One page of entries.
type Page = [Entry; PAGE_LEN];

/// Paged sparse index: entity index → dense index and generation.
///
/// Keeping the generation beside the slot lets a lookup check a handle
/// without reading the dense entities: the page entry, then the value.
///
/// A page is made the first time an index in it is set, in its own
/// allocation. `table[i]` holds page `first + i`, if it is made. The table
/// spans only the pages in use, so a storage whose only entity has index
/// 1,000,000 holds one page and a one-entry table. A lookup reads the table
/// entry, then the page entry: a page is a fixed-size array, so the offset
/// in it needs no bounds check, and a missing page is a null table entry.
#[derive(Clone, Default)]
pub(super) struct Pages {
    pub(super) table: Vec<Option<Box<Page>>>,
    /// The page number of `table[0]`.
    first: usize,
}

/// A page of empty entries, zeroed by the allocator.
fn new_page() -> Box<Page> {
    match alloc::vec![VACANT; PAGE_LEN].into_boxed_slice().try_into() {
        Ok(page) => page,
        Err(_) => unreachable!("a vector of PAGE_LEN entries is a page"),
    }
}

impl Pages {
    /// An index without pages.
    pub(super) const fn new() -> Self {
        Pages {
            table: Vec::new(),
            first: 0,
        }
    }

    /// The position of `index`'s page in `table` (wrapping past the end
    /// for pages before `first`), and its offset in the page.
    #[inline]
    fn locate(&self, index: u32) -> (usize, usize) {
        (
            ((index >> PAGE_BITS) as usize).wrapping_sub(self.first),
            index as usize & (PAGE_LEN - 1),
        )
    }

    /// The entry for `index`, or [`VACANT`].
    #[inline]
    fn entry(&self, index: u32) -> Entry {
        let (page, offset) = self.locate(index);
        match self.table.get(page) {
            Some(Some(page)) => page[offset],
            _ => VACANT,
        }
    }

    /// The dense index stored for `index`, whatever its generation, or
    /// [`EMPTY`].
    #[inline]
    pub(super) fn get(&self, index: u32) -> u32 {
        match self.entry(index) {
            VACANT => EMPTY,
            entry => entry as u32,
        }
    }

    /// The dense index of `entity`, if it is the entity stored under its
    /// index (generation included).
    #[inline]
    pub(super) fn slot_of(&self, entity: Entity) -> Option<usize> {
        Self::holds(&self.entry(entity.index()), entity)
    }

    /// The dense index in `entry` if it holds `entity`.
    #[inline]
    pub(super) fn holds(entry: &Entry, entity: Entity) -> Option<usize> {
        // Equal high halves: the same generation, so not the empty entry.
        (*entry & GENERATION == entity.to_bits() & GENERATION).then_some(*entry as u32 as usize)
    }

    /// `true` if `entry` is empty.
    #[inline]
    pub(super) fn is_vacant(entry: &Entry) -> bool {
        *entry == VACANT
    }

    /// Makes `entry` say `entity` is in dense slot `slot`.
    #[inline]
    pub(super) fn fill(entry: &mut Entry, entity: Entity, slot: usize) {
        *entry = self::entry(entity, slot as u32);
    }

    /// Empties `entry`.
    #[inline]
    pub(super) fn vacate(entry: &mut Entry) {
        *entry = VACANT;
    }

    /// The entry for `index`, if its page exists.
    #[inline]
    pub(super) fn entry_mut(&mut self, index: u32) -> Option<&mut Entry> {
        let (page, offset) = self.locate(index);
        Some(&mut self.table.get_mut(page)?.as_deref_mut()?[offset])
    }

    /// Stores `entity` in dense slot `slot`, making its page on first touch.
    #[inline]
    pub(super) fn set(&mut self, entity: Entity, slot: u32) {
        match self.entry_mut(entity.index()) {
            Some(stored) => *stored = entry(entity, slot),
            None => self.set_in_new_page(entity, slot),
        }
    }

    /// Stores `first_slot + i` for the index of `entities[i]`, page by page
    /// (entities with nearby indices share a page lookup).
    pub(super) fn set_run(&mut self, entities: &[Entity], first_slot: u32) {
        let mut rest = entities;
        let mut slot = first_slot;
        while let Some(&head) = rest.first() {
            let page_number = head.index() >> PAGE_BITS;
            let page = self.page_mut(head.index());
            let mut done = 0;
            for entity in rest {
                if entity.index() >> PAGE_BITS != page_number {
                    break;
                }
                page[entity.index() as usize & (PAGE_LEN - 1)] = entry(*entity, slot);
                slot += 1;
                done += 1;
            }
            rest = &rest[done..];
        }
    }

    /// Stores `first_slot + i` for the entity of index `first_index + i`
    /// and generation `generation`, for each `i < len`: a page at a time,
    /// each a plain fill.
    pub(super) fn set_range(
        &mut self,
        first_index: u32,
        len: u32,
        generation: u32,
        first_slot: u32,
    ) {
        let end = first_index + len;
        let high = u64::from(generation) << 32;
        let (mut index, mut slot) = (first_index, first_slot);
        while index < end {
            let offset = index as usize & (PAGE_LEN - 1);
            let count = (PAGE_LEN - offset).min((end - index) as usize);
            let page = self.page_mut(index);
            for (entry, next) in page[offset..offset + count].iter_mut().zip(slot..) {
                *entry = high | u64::from(next);
            }
            index += count as u32;
            slot += count as u32;
        }
    }

    /// Stores `entity` in dense slot `slot`; its page does not exist yet.
    #[cold]
    pub(super) fn set_in_new_page(&mut self, entity: Entity, slot: u32) {
        let index = entity.index();
        self.page_mut(index)[index as usize & (PAGE_LEN - 1)] = entry(entity, slot);
    }

    /// Makes room for the pages of `entities` more entities with
    /// consecutive indices (a guess for `with_capacity`).
    pub(super) fn reserve(&mut self, entities: usize) {
        self.table.reserve_exact(entities.div_ceil(PAGE_LEN));
    }

    /// The page holding `index`'s entry, made (and the table grown) if
    /// missing.
    pub(super) fn page_mut(&mut self, index: u32) -> &mut Page {
        let page = (index >> PAGE_BITS) as usize;
        if self.table.is_empty() {
            self.first = page;
            // A storage with one page holds a one-entry table.
            self.table.reserve_exact(1);
        } else if page < self.first {
            // Grow the table at the front.
            let extra = self.first - page;
            self.table
                .splice(0..0, core::iter::repeat_with(|| None).take(extra));
            self.first = page;
        }
        let slot = page - self.first;
        if self.table.len() <= slot {
            self.table.resize_with(slot + 1, || None);
        }
        self.table[slot].get_or_insert_with(new_page)
    }

    /// Clears the entry for `index`, if its page exists.
    #[inline]
    pub(super) fn clear(&mut self, index: u32) {
        if let Some(entry) = self.entry_mut(index) {
            *entry = VACANT;
        }
    }

    /// How many entries are not empty.
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(super) fn filled(&self) -> usize {
        self.table
            .iter()
            .flatten()
            .map(|page| page.iter().filter(|&&entry| entry != VACANT).count())
            .sum()
    }

    /// The generation stored for `index` (0 if none).
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(super) fn generation(&self, index: u32) -> u32 {
        (self.entry(index) >> 32) as u32
    }

    #[cfg(any(test, feature = "testing"))]
    pub(super) fn allocated_pages(&self) -> usize {
        self.table.iter().flatten().count()
    }
}
