//! The one random number generator of this repository's tests and
//! benchmarks: SplitMix64 (Steele, Lea and Flood, 2014), seeded and
//! reproducible, small enough to read at a glance. One file, included by
//! path wherever a test or benchmark needs random numbers:
//!
//! * the library's unit tests: `#[path = "../tests/support/rng.rs"]`;
//! * the integration tests: `#[path = "support/rng.rs"]`;
//! * the benchmarks crate: `#[path = "../../tests/support/rng.rs"]`.
//!
//! The examples keep their own few lines, so that each stays one file a
//! reader can copy.

// Each user takes what it needs.
#![allow(dead_code)]

/// SplitMix64: 64 bits of state, every seed fine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator starting from `seed`; the same seed gives the same
    /// numbers on every machine.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift: no modulo bias to
    /// speak of, and no division.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// An index in `0..n` (`n > 0`).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// `true` with a chance of `percent` in 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}
