//! The paged sparse index of a storage: entity index → dense slot, and
//! the generation of the entity stored there.

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

/// What [`Pages::table`] holds for a page not made.
const NOT_MADE: u32 = u32::MAX;

/// Paged sparse index: entity index → dense index and generation.
///
/// Keeping the generation beside the slot lets a lookup check a handle
/// without reading the dense entities: the page entry, then the value.
///
/// A page is made the first time an index in it is set. Every made page
/// lives in one vector, `entries`, appended where it ends; `table[i]` says
/// where page `first + i` is among them, if it is made. The table spans
/// only the pages in use, so a storage whose only entity has index
/// 1,000,000 holds one page and a one-entry table.
///
/// When no page is missing between the first and the last (entities with
/// nearby indices, the common case, and any storage of one page) and the
/// pages lie in `entries` in the order of their numbers, the storage is
/// *straight*: page `first + i` is the `i`-th page of `entries`, so index
/// `first * PAGE_LEN + k` has its entry at `entries[k]` and a lookup reads
/// that one entry, with no table read on its way. Pages made in ascending
/// order (spawns) stay straight as they are made. Pages made out of order
/// (a component added to entities from the highest index down, or at
/// random) are appended all the same, and the storage reads the table
/// first until its pages are put in order: once none is missing, and at
/// most once per eighth of the pages made since they last were (see
/// [`make_page`](Self::make_page)), so that making pages costs amortised
/// O(1) page copies each, in any order.
#[derive(Clone)]
pub(super) struct Pages {
    /// Every made page's entries, a page after another in the order they
    /// were made, or of their numbers once put in order.
    entries: Vec<Entry>,
    /// Per page from `first` on: its place among the pages of `entries`,
    /// or [`NOT_MADE`].
    pub(super) table: Vec<u32>,
    /// The page number of `table[0]`.
    first: usize,
    /// `first * PAGE_LEN`: the index of `entries[0]`, if straight.
    base: usize,
    /// Whether every page of the table is made and `table[i] == i` (see
    /// the type's docs).
    straight: bool,
    /// Pages made since the pages were last in order.
    unsorted: usize,
    /// Pages copied by [`straighten`](Self::straighten), for the tests of
    /// its amortised cost.
    #[cfg(test)]
    pub(super) copied: usize,
}

impl Default for Pages {
    fn default() -> Self {
        Self::new()
    }
}

impl Pages {
    /// An index without pages.
    pub(super) const fn new() -> Self {
        Pages {
            entries: Vec::new(),
            table: Vec::new(),
            first: 0,
            base: 0,
            straight: true,
            unsorted: 0,
            #[cfg(test)]
            copied: 0,
        }
    }

    /// The place in `entries` of `index`'s entry, if its page is made.
    #[inline(always)]
    fn place(&self, index: u32) -> Option<usize> {
        if self.straight {
            // Below `base`, the subtraction wraps past every place.
            let place = (index as usize).wrapping_sub(self.base);
            return (place < self.entries.len()).then_some(place);
        }
        self.place_in_table(index)
    }

    /// [`place`](Self::place) through the table: a storage not straight.
    /// Inlined like the straight path: a call in a loop of lookups would
    /// keep LLVM from taking the storage's fields out of the loop.
    #[inline(always)]
    fn place_in_table(&self, index: u32) -> Option<usize> {
        let page = ((index >> PAGE_BITS) as usize).wrapping_sub(self.first);
        let made = *self.table.get(page)?;
        (made != NOT_MADE)
            .then_some(((made as usize) << PAGE_BITS) | (index as usize & (PAGE_LEN - 1)))
    }

    /// The entry for `index`, or [`VACANT`].
    #[inline(always)]
    fn entry(&self, index: u32) -> Entry {
        if self.straight {
            let place = (index as usize).wrapping_sub(self.base);
            return self.entries.get(place).copied().unwrap_or(VACANT);
        }
        match self.place_in_table(index) {
            Some(place) => self.entries[place],
            None => VACANT,
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
    #[inline(always)]
    pub(super) fn slot_of(&self, entity: Entity) -> Option<usize> {
        Self::holds(&self.entry(entity.index()), entity)
    }

    /// The dense index in `entry` if it holds `entity`.
    #[inline(always)]
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
        let place = self.place(index)?;
        Some(&mut self.entries[place])
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
        if len == 0 {
            return;
        }
        let end = first_index + len;
        // Room for every page of the range not made yet, at once.
        let missing = (first_index >> PAGE_BITS..=(end - 1) >> PAGE_BITS)
            .filter(|&page| self.place(page << PAGE_BITS).is_none())
            .count();
        self.entries.reserve_exact(missing * PAGE_LEN);
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
        let pages = entities.div_ceil(PAGE_LEN);
        self.table.reserve_exact(pages);
        self.entries.reserve_exact(pages * PAGE_LEN);
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
                .splice(0..0, core::iter::repeat(NOT_MADE).take(extra));
            self.first = page;
        }
        let position = page - self.first;
        if self.table.len() <= position {
            self.table.resize(position + 1, NOT_MADE);
        }
        if self.table[position] == NOT_MADE {
            self.make_page(position);
        }
        let start = (self.table[position] as usize) << PAGE_BITS;
        match (&mut self.entries[start..start + PAGE_LEN]).try_into() {
            Ok(page) => page,
            Err(_) => unreachable!("PAGE_LEN entries are a page"),
        }
    }

    /// Makes the page at `position` in the table: a page of empty entries
    /// appended to `entries`, which grows by an eighth (at least a page)
    /// when full: amortised O(1) a page, and little unused (the Memory
    /// section of `BENCHMARKS.md`). No page moves, whatever the new
    /// page's number.
    ///
    /// The storage is straight if its pages are all made and in order.
    /// Made all but out of order, they are put in order by
    /// [`straighten`](Self::straighten) (O(pages) page copies) if at least
    /// an eighth of them were made since they last were: at most eight
    /// page copies for each page made, in any order.
    #[cold]
    fn make_page(&mut self, position: usize) {
        let len = self.entries.len();
        self.table[position] = (len >> PAGE_BITS) as u32;
        if self.entries.capacity() - len < PAGE_LEN {
            let more = (len / 8).next_multiple_of(PAGE_LEN).max(PAGE_LEN);
            self.entries.reserve_exact(more);
        }
        self.entries.resize(len + PAGE_LEN, VACANT);
        self.base = self.first << PAGE_BITS;
        self.unsorted += 1;
        let pages = self.entries.len() >> PAGE_BITS;
        let all_made = pages == self.table.len();
        self.straight = all_made && self.in_order();
        if all_made && !self.straight && self.unsorted * 8 >= pages {
            self.straighten();
        }
        if self.straight {
            self.unsorted = 0;
        }
    }

    /// Whether `table[i] == i` for every page.
    fn in_order(&self) -> bool {
        self.table
            .iter()
            .enumerate()
            .all(|(position, &place)| place as usize == position)
    }

    /// Puts the pages in the order of their numbers, every page of the
    /// table being made: each cycle of the permutation rotated through
    /// one page's copy, so the storage never holds its entries twice.
    #[cold]
    fn straighten(&mut self) {
        let mut spare: Vec<Entry> = Vec::new();
        for start in 0..self.table.len() {
            if self.table[start] as usize == start {
                continue;
            }
            // Place `start` is emptied into `spare`; then each empty place
            // takes the page that belongs there, until the page that
            // belongs in the last one is the one in `spare`.
            let page = |place: usize| place << PAGE_BITS..(place + 1) << PAGE_BITS;
            spare.clear();
            spare.extend_from_slice(&self.entries[page(start)]);
            let mut empty = start;
            loop {
                let from = self.table[empty] as usize;
                self.table[empty] = empty as u32;
                if from == start {
                    self.entries[page(empty)].copy_from_slice(&spare);
                    break;
                }
                self.entries.copy_within(page(from), empty << PAGE_BITS);
                #[cfg(test)]
                {
                    self.copied += 1;
                }
                empty = from;
            }
        }
        self.straight = true;
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
        self.entries
            .iter()
            .filter(|&&entry| entry != VACANT)
            .count()
    }

    /// Checks that the table places every made page once, and that a
    /// straight storage's pages are all made and in order.
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(super) fn check(&self) -> Result<(), &'static str> {
        let pages = self.entries.len() >> PAGE_BITS;
        let mut placed = alloc::vec![false; pages];
        for &place in self.table.iter().filter(|&&place| place != NOT_MADE) {
            match placed.get_mut(place as usize) {
                Some(seen) if !*seen => *seen = true,
                _ => return Err(
                    "the sparse page table places two pages, or one past the pages, at one place",
                ),
            }
        }
        if placed.contains(&false) {
            return Err("a sparse page is in no place of the table");
        }
        if self.straight && !(pages == self.table.len() && self.in_order()) {
            return Err("the sparse index reads straight with its pages missing or out of order");
        }
        if self.base != self.first << PAGE_BITS {
            return Err("the sparse index's base is not its first page's");
        }
        Ok(())
    }

    /// The generation stored for `index` (0 if none).
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(super) fn generation(&self, index: u32) -> u32 {
        (self.entry(index) >> 32) as u32
    }

    /// Whether a lookup reads its entry with no table read (see the type's
    /// docs).
    #[cfg(test)]
    pub(super) fn is_straight(&self) -> bool {
        self.straight
    }

    #[cfg(any(test, feature = "testing"))]
    pub(super) fn allocated_pages(&self) -> usize {
        self.entries.len() >> PAGE_BITS
    }
}
