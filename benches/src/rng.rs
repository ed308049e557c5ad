//! A small seeded generator (SplitMix64) and a Fisher–Yates shuffle, so
//! every implementation visits the same entities in the same order.

/// The seed of every shuffled list.
pub const SEED: u64 = 0x7e57_ecb5_2024_0001;

/// SplitMix64: tiny, fast, and good enough to shuffle.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound > 0`).
    pub fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next_u64()) * bound as u128) >> 64) as usize
    }
}

/// `0..n` in an order shuffled by [`SEED`].
pub fn shuffled(n: usize) -> Vec<usize> {
    let mut rng = SplitMix64::new(SEED);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_is_a_fixed_permutation() {
        let a = shuffled(1000);
        assert_eq!(a, shuffled(1000));
        assert_ne!(a, (0..1000).collect::<Vec<_>>());
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
    }
}
