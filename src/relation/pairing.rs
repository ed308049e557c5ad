//! What keeps a relation's two sides in step: the pair they share and
//! their count of changes.

/// The pair number two sides share (given at the first link; `u64::MAX`
/// for a side copied or loaded, which belongs to no pair yet) and their
/// count of changes: equal on both sides when they are in step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pairing {
    pair: u64,
    changes: u64,
}

impl Pairing {
    /// The same count, in no pair: what a copy or a loaded side has, so the
    /// world it is put in rebuilds the other side from it.
    #[inline]
    pub(crate) fn unpaired(self) -> Self {
        Pairing {
            pair: u64::MAX,
            ..self
        }
    }

    /// One more change, in a pair (given now if there is none yet).
    #[inline]
    pub(crate) fn changed(&mut self) {
        if self.pair == 0 {
            self.pair = crate::unique::next();
        }
        self.changes += 1;
    }

    /// The pairing of a forward side whose other side is rebuilt from it,
    /// that side's being `other`: the same count, and a pair of its own
    /// (a new one if it had none, was a copy's or a loaded side's, or is
    /// the pair of a side it was swapped with).
    #[inline]
    pub(crate) fn rebuilt(self, other: Pairing) -> Self {
        let pair = if self.pair == 0 || self.pair == u64::MAX || self.pair == other.pair {
            crate::unique::next()
        } else {
            self.pair
        };
        Pairing { pair, ..self }
    }
}
