//! [`LineUp`]: what a storage remembers of having been found to line up
//! with another, so that a join over the two need not compare their
//! entities again while neither has been reordered.
//!
//! A driven walk (`Join::for_each` with no owning group) walks, in runs, the
//! slots where every storage lists the driver's entities in the same order,
//! which it learns by comparing the entity arrays 16 at a time: storages
//! filled with one bundle line up everywhere, and the comparison is what a
//! declared group saves (2.6 instructions an entity, and a second entity
//! array to bring into the cache). A storage keeps the result: "my first
//! `len` slots hold the entities of the storage whose order is `driver`,
//! while mine is `mine`".
//!
//! An *order* is a program-unique number ([`unique::next`](crate::unique)),
//! given to a storage the first time one is asked for, and forgotten by
//! every change that moves or removes an entity already stored (a removal,
//! a swap, a clear): the next one asked for is new, so a proof made before
//! matches nothing. Appending does not change the first slots, so it keeps
//! the order, and the proofs (a storage never shrinks without forgetting
//! its order, so a proof's length is at most both lengths). A clone gets no
//! order and no proofs.
//!
//! The proofs are written through a shared borrow (two systems may walk the
//! same storages at once, on two threads), so they are atomics behind a
//! sequence lock: a reader that races a writer sees no proof, and a writer
//! that races another writes nothing. A proof is a cache: missing one costs
//! the comparison, never a wrong answer.
//!
//! Lookups by handle ([`Join::get`](crate::Join::get)) read the proofs
//! too: where a storage is proven to hold the first storage's entities in
//! the same slots, a lookup takes the slot the first found the entity in
//! without comparing the entity there. A join whose storages are not all
//! proven counts its lookups ([`LookupCount`]); once they are a quarter of
//! the first storage's length, the next join made compares the entities
//! and proves what lines up.

#[cfg(target_has_atomic = "64")]
use core::sync::atomic::{fence, AtomicU64, Ordering};

/// How many proofs a storage keeps: one for each storage it is walked
/// against, up to this many (a storage read by several systems, each
/// driven by another storage).
#[cfg(target_has_atomic = "64")]
const WAYS: usize = 2;

/// A storage's order and its proofs of lining up (see the [module
/// docs](self)). Without 64-bit atomics it keeps nothing: every walk
/// compares.
pub(crate) struct LineUp {
    /// The storage's order: 0 until asked for, and again after every
    /// change that moves or removes a stored entity.
    #[cfg(target_has_atomic = "64")]
    order: AtomicU64,
    /// The sequence lock: odd while a proof is written.
    #[cfg(target_has_atomic = "64")]
    seq: AtomicU64,
    #[cfg(target_has_atomic = "64")]
    proofs: [Proof; WAYS],
    /// The proof a new one replaces next.
    #[cfg(target_has_atomic = "64")]
    next: AtomicU64,
}

/// "The first `len` slots of this storage, while its order is `mine`, hold
/// the entities of the storage whose order is `driver`, in order."
#[cfg(target_has_atomic = "64")]
struct Proof {
    driver: AtomicU64,
    mine: AtomicU64,
    len: AtomicU64,
}

#[cfg(target_has_atomic = "64")]
impl Proof {
    const fn none() -> Proof {
        Proof {
            driver: AtomicU64::new(0),
            mine: AtomicU64::new(0),
            len: AtomicU64::new(0),
        }
    }
}

impl LineUp {
    /// No order, no proof.
    pub(crate) const fn new() -> Self {
        LineUp {
            #[cfg(target_has_atomic = "64")]
            order: AtomicU64::new(0),
            #[cfg(target_has_atomic = "64")]
            seq: AtomicU64::new(0),
            #[cfg(target_has_atomic = "64")]
            proofs: [const { Proof::none() }; WAYS],
            #[cfg(target_has_atomic = "64")]
            next: AtomicU64::new(0),
        }
    }

    /// A stored entity moved or left: the storage's order is forgotten, and
    /// with it every proof made under it.
    #[inline(always)]
    pub(crate) fn reordered(&mut self) {
        #[cfg(target_has_atomic = "64")]
        {
            *self.order.get_mut() = 0;
        }
    }

    /// The storage's order, given now if it has none (never 0; 0 without
    /// 64-bit atomics, where nothing is proven).
    #[inline]
    pub(crate) fn order(&self) -> u64 {
        #[cfg(target_has_atomic = "64")]
        {
            let order = self.order.load(Ordering::Relaxed);
            if order != 0 {
                return order;
            }
            let new = crate::unique::next();
            match self
                .order
                .compare_exchange(0, new, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => new,
                Err(given) => given,
            }
        }
        #[cfg(not(target_has_atomic = "64"))]
        0
    }

    /// The storage's order if it has one, else 0 (none is given: see
    /// [`order`](Self::order)).
    #[inline]
    pub(crate) fn current_order(&self) -> u64 {
        #[cfg(target_has_atomic = "64")]
        {
            self.order.load(Ordering::Relaxed)
        }
        #[cfg(not(target_has_atomic = "64"))]
        0
    }

    /// How many of the first slots are proven to hold the entities of the
    /// storage whose order is `driver`, in its order (0 if none are).
    #[inline]
    pub(crate) fn proven(&self, driver: u64) -> usize {
        #[cfg(target_has_atomic = "64")]
        {
            let mine = self.order.load(Ordering::Relaxed);
            if mine == 0 || driver == 0 {
                return 0;
            }
            let before = self.seq.load(Ordering::Acquire);
            if before & 1 == 1 {
                return 0;
            }
            let mut len = 0;
            for proof in &self.proofs {
                if proof.driver.load(Ordering::Relaxed) == driver
                    && proof.mine.load(Ordering::Relaxed) == mine
                {
                    len = proof.len.load(Ordering::Relaxed);
                }
            }
            // What was read was written whole: no writer started since.
            fence(Ordering::Acquire);
            if self.seq.load(Ordering::Relaxed) != before {
                return 0;
            }
            usize::try_from(len).unwrap_or(0)
        }
        #[cfg(not(target_has_atomic = "64"))]
        {
            let _ = driver;
            0
        }
    }

    /// Records that the first `len` slots hold the entities of the storage
    /// whose order is `driver`, in its order, replacing this storage's proof
    /// for that storage (or its oldest). Skipped if another thread is
    /// writing one.
    #[cold]
    pub(crate) fn prove(&self, driver: u64, len: usize) {
        #[cfg(target_has_atomic = "64")]
        {
            let mine = self.order();
            let before = self.seq.load(Ordering::Relaxed);
            if before & 1 == 1
                || self
                    .seq
                    .compare_exchange(before, before + 1, Ordering::Acquire, Ordering::Relaxed)
                    .is_err()
            {
                return;
            }
            // A reader that sees any of what follows sees the lock taken.
            fence(Ordering::Release);
            let way = self
                .proofs
                .iter()
                .position(|proof| {
                    proof.driver.load(Ordering::Relaxed) == driver
                        && proof.mine.load(Ordering::Relaxed) == mine
                })
                .unwrap_or_else(|| {
                    (self.next.fetch_add(1, Ordering::Relaxed) % WAYS as u64) as usize
                });
            let proof = &self.proofs[way];
            proof.driver.store(driver, Ordering::Relaxed);
            proof.mine.store(mine, Ordering::Relaxed);
            proof.len.store(len as u64, Ordering::Relaxed);
            self.seq.store(before + 2, Ordering::Release);
        }
        #[cfg(not(target_has_atomic = "64"))]
        {
            let _ = (driver, len);
        }
    }
}

/// How many lookups by handle ([`Join::get`](crate::Join::get)) the joins
/// whose storages were not all proven to line up made, counted by their
/// first storage's order (see [`LookupCount`]). An order is a
/// program-unique number, so this is one count a storage in effect; two
/// orders that share one add up, which only brings a proof forward, and
/// the count of an order a reorder replaced is not read again.
#[cfg(target_has_atomic = "64")]
static LOOKUPS: [AtomicU64; 64] = [const { AtomicU64::new(0) }; 64];

/// A join's count of its lookups by handle, added to its first storage's
/// (see [`LOOKUPS`]) when the join is dropped. It borrows nothing from the
/// world, so a join's borrows still end at its last use.
#[derive(Debug)]
pub(crate) struct LookupCount {
    made: u64,
    #[cfg(target_has_atomic = "64")]
    count: Option<&'static AtomicU64>,
}

impl LookupCount {
    /// Counts nothing (the storages are proven, or there is one).
    pub(crate) const NONE: LookupCount = LookupCount {
        made: 0,
        #[cfg(target_has_atomic = "64")]
        count: None,
    };

    /// Counts the lookups of a join whose first storage's proofs are
    /// `line_up` (giving that storage an order) and which holds `len`
    /// values. Also `true` if the lookups counted so far are a quarter of
    /// `len`, and 256: the caller compares the storages' entities and
    /// proves what lines up (about 3 instructions an entity, less than the
    /// checks the proof spares them), and the count starts over.
    pub(crate) fn start(line_up: &LineUp, len: usize) -> (LookupCount, bool) {
        #[cfg(target_has_atomic = "64")]
        {
            let count = &LOOKUPS[(line_up.order() % 64) as usize];
            let enough = count.load(Ordering::Relaxed) >= (len as u64 / 4).max(256);
            if enough {
                count.store(0, Ordering::Relaxed);
            }
            (
                LookupCount {
                    made: 0,
                    count: Some(count),
                },
                enough,
            )
        }
        #[cfg(not(target_has_atomic = "64"))]
        {
            let _ = (line_up, len);
            (LookupCount::NONE, false)
        }
    }

    /// One more lookup.
    #[inline(always)]
    pub(crate) fn count(&mut self) {
        self.made += 1;
    }
}

/// The join's lookups go to its first storage's count.
impl Drop for LookupCount {
    #[inline]
    fn drop(&mut self) {
        #[cfg(target_has_atomic = "64")]
        if let Some(count) = self.count.filter(|_| self.made > 0) {
            count.fetch_add(self.made, Ordering::Relaxed);
        }
    }
}

/// A copy of a storage is lined up with nothing yet: no order, no proof.
impl Clone for LineUp {
    fn clone(&self) -> Self {
        LineUp::new()
    }
}

impl core::fmt::Debug for LineUp {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("LineUp")
    }
}

#[cfg(all(test, target_has_atomic = "64"))]
mod tests {
    use super::*;

    #[test]
    fn a_proof_holds_until_either_storage_is_reordered() {
        let (mut mine, mut driver) = (LineUp::new(), LineUp::new());
        let d = driver.order();
        assert_eq!(mine.proven(d), 0, "nothing proven yet");
        mine.prove(d, 40);
        assert_eq!(mine.proven(d), 40);
        mine.prove(d, 64);
        assert_eq!(mine.proven(d), 64, "a proof for the same pair grows");
        // The driver reordered: its new order matches no proof.
        driver.reordered();
        let d2 = driver.order();
        assert_ne!(d, d2);
        assert_eq!(mine.proven(d2), 0);
        // This storage reordered: no proof of it holds.
        mine.prove(d2, 10);
        mine.reordered();
        assert_eq!(mine.proven(d2), 0);
        assert_eq!(mine.proven(d), 0);
    }

    #[test]
    fn proofs_for_two_drivers_are_kept_and_a_clone_has_none() {
        let (mine, a, b, c) = (LineUp::new(), LineUp::new(), LineUp::new(), LineUp::new());
        let (a, b, c) = (a.order(), b.order(), c.order());
        mine.prove(a, 5);
        mine.prove(b, 7);
        assert_eq!((mine.proven(a), mine.proven(b)), (5, 7));
        assert_eq!(mine.clone().proven(a), 0);
        // A third replaces one of them.
        mine.prove(c, 9);
        assert_eq!(mine.proven(c), 9);
        assert_eq!(
            [mine.proven(a), mine.proven(b)]
                .iter()
                .filter(|&&l| l > 0)
                .count(),
            1
        );
    }
}
