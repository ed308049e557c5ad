//! The repository's seeded generator and a Fisher–Yates shuffle, so
//! every implementation visits the same entities in the same order.

/// The seed of every shuffled list.
pub const SEED: u64 = 0x7e57_ecb5_2024_0001;

/// The repository's one generator, shared with the tests (see the file).
#[path = "../../tests/support/rng.rs"]
mod shared;

pub use shared::Rng;

/// `0..n` in an order shuffled by [`SEED`].
pub fn shuffled(n: usize) -> Vec<usize> {
    let mut rng = Rng::new(SEED);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.index(i + 1));
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
