//! Program-unique numbers: the identity of an entity allocator, and of one
//! packing of an owning group. Two things that must never be mistaken for
//! each other get two different numbers from here.

/// A number no earlier call returned in this program; never 0, so 0 can
/// mean "none".
///
/// With 64-bit atomics the counter cannot wrap in practice (2^64 calls). On
/// targets without them it is 32 bits wide and repeats after 2^32 calls
/// (4 billion worlds, clones and group rebuilds in one run): from then on,
/// two of them could in principle be mistaken for each other.
pub(crate) fn next() -> u64 {
    #[cfg(target_has_atomic = "64")]
    {
        use core::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    }
    #[cfg(not(target_has_atomic = "64"))]
    {
        use core::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(1);
        loop {
            let number = NEXT.fetch_add(1, Ordering::Relaxed);
            if number != 0 {
                return u64::from(number);
            }
        }
    }
}

/// A number for something whose identity outlives the program (it is
/// saved and loaded): [`next`]'s, scrambled with a key drawn at random
/// for each call where `std` is there, so that a number loaded from
/// another run is not one this run gives. Without `std` it is [`next`]'s
/// own, which a loaded one may repeat. Never 0.
pub(crate) fn lasting() -> u64 {
    let number = next();
    #[cfg(feature = "std")]
    let number = {
        use std::hash::BuildHasher;
        std::collections::hash_map::RandomState::new().hash_one(number)
    };
    number.max(1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_are_distinct_and_never_zero() {
        let (a, b) = (super::next(), super::next());
        assert!(a != 0 && b != 0 && a != b);
        let (c, d) = (super::lasting(), super::lasting());
        assert!(c != 0 && d != 0 && c != d);
    }
}
