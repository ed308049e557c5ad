//! The paged sparse index of a storage: entity index → dense slot.

use alloc::vec::Vec;

use crate::Entity;

/// log2 of the number of entries in one sparse page.
pub(super) const PAGE_BITS: u32 = 12;
/// Entries per sparse page: 4096 entries of 4 bytes, 16 KiB.
pub(super) const PAGE_LEN: usize = 1 << PAGE_BITS;
/// Marks an empty sparse entry. Never a dense index: a storage holds at most
/// `u32::MAX` values, so dense indices stop at `u32::MAX - 1`.
pub(super) const EMPTY: u32 = u32::MAX;

/// Paged sparse index: entity index → dense index, or [`EMPTY`].
///
/// A page is made the first time an index in it is set. The pages live side
/// by side in one array (`arena`), in the order they were made, and a table
/// says where each one is: `table[i]` is the place in `arena` of page
/// `first + i`, or [`NO_PAGE`]. The table spans only the pages in use, so a
/// storage whose only entity has index 1,000,000 holds one page and a
/// one-entry table; and however scattered the indices, the pages stay in one
/// block of memory.
#[derive(Clone, Default)]
pub(super) struct Pages {
    pub(super) table: Vec<u32>,
    pub(super) arena: Vec<[u32; PAGE_LEN]>,
    /// The page number of `table[0]`.
    first: usize,
}

/// A table entry for a page not made yet. Never a place in `arena`, so
/// looking it up finds nothing.
const NO_PAGE: u32 = u32::MAX;

impl Pages {
    /// An index without pages.
    pub(super) const fn new() -> Self {
        Pages {
            table: Vec::new(),
            arena: Vec::new(),
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

    /// The dense index stored for `index`, or [`EMPTY`].
    #[inline]
    pub(super) fn get(&self, index: u32) -> u32 {
        let (page, offset) = self.locate(index);
        match self.table.get(page) {
            Some(&place) => match self.arena.get(place as usize) {
                Some(page) => page[offset],
                None => EMPTY,
            },
            None => EMPTY,
        }
    }

    /// The entry for `index`, if its page exists.
    #[inline]
    pub(super) fn entry_mut(&mut self, index: u32) -> Option<&mut u32> {
        let (page, offset) = self.locate(index);
        let &place = self.table.get(page)?;
        Some(&mut self.arena.get_mut(place as usize)?[offset])
    }

    /// Stores `dense` for `index`, making its page on first touch.
    #[inline]
    pub(super) fn set(&mut self, index: u32, dense: u32) {
        match self.entry_mut(index) {
            Some(entry) => *entry = dense,
            None => self.set_in_new_page(index, dense),
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
                page[entity.index() as usize & (PAGE_LEN - 1)] = slot;
                slot += 1;
                done += 1;
            }
            rest = &rest[done..];
        }
    }

    /// Stores `first_slot + i` for the index `first_index + i`, for each
    /// `i < len`: a page at a time, each a plain fill.
    pub(super) fn set_range(&mut self, first_index: u32, len: u32, first_slot: u32) {
        let end = first_index + len;
        let (mut index, mut slot) = (first_index, first_slot);
        while index < end {
            let offset = index as usize & (PAGE_LEN - 1);
            let count = (PAGE_LEN - offset).min((end - index) as usize);
            let page = self.page_mut(index);
            for (entry, next) in page[offset..offset + count].iter_mut().zip(slot..) {
                *entry = next;
            }
            index += count as u32;
            slot += count as u32;
        }
    }

    /// Stores `dense` for `index`, whose page does not exist yet.
    #[cold]
    pub(super) fn set_in_new_page(&mut self, index: u32, dense: u32) {
        self.page_mut(index)[index as usize & (PAGE_LEN - 1)] = dense;
    }

    /// Makes room for the pages of `entities` more entities with
    /// consecutive indices (a guess for `with_capacity`).
    pub(super) fn reserve(&mut self, entities: usize) {
        let pages = entities.div_ceil(PAGE_LEN);
        self.table.reserve_exact(pages);
        self.arena.reserve_exact(pages);
    }

    /// The page holding `index`'s entry, made (and the table grown) if
    /// missing.
    pub(super) fn page_mut(&mut self, index: u32) -> &mut [u32; PAGE_LEN] {
        let page = (index >> PAGE_BITS) as usize;
        if self.table.is_empty() {
            self.first = page;
            // A storage with one page holds a one-entry table.
            self.table.reserve_exact(1);
        } else if page < self.first {
            // Grow the table at the front.
            let extra = self.first - page;
            self.table
                .splice(0..0, core::iter::repeat(NO_PAGE).take(extra));
            self.first = page;
        }
        let slot = page - self.first;
        if self.table.len() <= slot {
            self.table.resize(slot + 1, NO_PAGE);
        }
        if self.table[slot] == NO_PAGE {
            if self.arena.capacity() == 0 {
                self.arena.reserve_exact(1);
            }
            self.table[slot] = self.arena.len() as u32;
            self.arena.push([EMPTY; PAGE_LEN]);
        }
        let place = self.table[slot] as usize;
        &mut self.arena[place]
    }

    /// Clears the entry for `index`, if its page exists.
    #[inline]
    pub(super) fn clear(&mut self, index: u32) {
        if let Some(entry) = self.entry_mut(index) {
            *entry = EMPTY;
        }
    }

    #[cfg(any(test, feature = "testing"))]
    pub(super) fn allocated_pages(&self) -> usize {
        self.arena.len()
    }
}
