//! [`Mark`]: what another layer records in a storage about its first slots.
//!
//! The owning groups (`crate::group`) keep the entities of a group packed at
//! the front of each group storage, and note in each storage which packing
//! it belongs to. The storage does not know what a group is; it only keeps
//! the mark and two promises about it:
//!
//! * a removal inside the marked prefix by a path that does not keep the
//!   prefix packed (a plain [`SparseMap::remove`](super::SparseMap::remove))
//!   clears the mark's `tag`, so whoever packed the prefix knows it is off;
//! * a clone of a storage carries no mark (`MarkSlot`'s `Clone`).

/// A mark on a storage's first `prefix` slots. `tag` names the packing
/// (never 0 for a real one; 0 means "none" or "no longer true"); `info` is
/// the marking layer's own data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    pub(crate) tag: u64,
    pub(crate) prefix: u32,
    pub(crate) info: u16,
}

impl Mark {
    /// No mark.
    pub(crate) const NONE: Mark = Mark {
        tag: 0,
        prefix: 0,
        info: 0,
    };
}

/// The mark a storage holds. Not cloned: a copy of a storage is not packed
/// together with anything until someone marks it again.
#[derive(Debug)]
pub(crate) struct MarkSlot(pub(crate) Mark);

impl MarkSlot {
    pub(crate) const fn new() -> Self {
        MarkSlot(Mark::NONE)
    }

    /// Called before dense slot `slot` is removed by a path that does not
    /// keep the prefix packed: if the slot is in the prefix, the mark stops
    /// being true.
    #[inline]
    pub(crate) fn leave_prefix_unannounced(&mut self, slot: usize) {
        if slot < self.0.prefix as usize {
            self.0.tag = 0;
        }
    }
}

impl Clone for MarkSlot {
    fn clone(&self) -> Self {
        MarkSlot::new()
    }
}
