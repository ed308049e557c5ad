//! The coverage counters: one per operation and one per outcome.

use std::collections::BTreeMap;

use super::ops::{Op, OP_KINDS};
use super::CODE_LEN;

/// The outcome counters, besides one per operation (named by [`Op::name`]).
/// `err:` counts errors of fallible twins (and of the panicking methods the
/// harness redirected to them), `reject:` the rejections of `apply`.
pub const OUTCOMES: &[&str] = &[
    "spawned",
    "err:spawn:OutOfIndices",
    "despawn:alive",
    "despawn:dead",
    "despawn_batch:despawned",
    "despawn_batch:skipped",
    "extend:spawned",
    "err:extend:OutOfIndices",
    "add:ok",
    "err:add:DeadEntity",
    "err:add:AlreadyPresent",
    "insert:new",
    "insert:replaced",
    "err:insert:DeadEntity",
    "remove:some",
    "remove:none",
    "remove_all:alive",
    "remove_all:dead",
    "edit:hit",
    "edit:miss",
    "add_deferred:ok",
    "add_deferred:replacing",
    "err:add_deferred:DeadEntity",
    "err:add_deferred:AlreadyQueued",
    "err:add_deferred:AlreadyPresent",
    "remove_deferred:alive",
    "remove_deferred:dead",
    "despawn_deferred:alive",
    "despawn_deferred:dead",
    "finalize:replaced",
    "apply:spawned",
    "reject:Spawn:OutOfIndices",
    "reject:Add:DeadEntity",
    "reject:Add:AlreadyPresent",
    "reject:Remove:DeadEntity",
    "reject:Despawn:DeadEntity",
    "query:matched",
    "query_mut:matched",
    "query_commands:queued",
    "get_many:some",
    "get_many:none",
    "query:dense",
    "query_mut:dense",
    "group:rebuilding",
];

/// The outcomes of [`Op::SaveLoad`], counted with the `serde` feature only.
#[cfg(feature = "serde")]
const SAVE_LOAD_OUTCOMES: &[&str] = &["save_load:json", "save_load:postcard"];
#[cfg(not(feature = "serde"))]
const SAVE_LOAD_OUTCOMES: &[&str] = &[];

/// The read-only shapes of [`READ_SHAPES`](super::READ_SHAPES) that are
/// exactly the group `(A, B)`, and the writing ones of
/// [`MUT_SHAPES`](super::MUT_SHAPES).
pub(super) const DENSE_READ_SHAPES: [usize; 3] = [1, 11, 12];
pub(super) const DENSE_MUT_SHAPES: [usize; 3] = [10, 11, 12];

/// How many times each operation and outcome happened.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    counts: BTreeMap<String, u64>,
}

impl Coverage {
    /// Every counter, operations first.
    pub fn keys() -> Vec<&'static str> {
        let ops = (0..OP_KINDS).map(|kind| Op::from_parts(kind, [0; CODE_LEN - 1]).name());
        ops.chain(OUTCOMES.iter().copied())
            .chain(SAVE_LOAD_OUTCOMES.iter().copied())
            .collect()
    }

    pub(super) fn hit(&mut self, key: &str) {
        match self.counts.get_mut(key) {
            Some(count) => *count += 1,
            None => {
                self.counts.insert(key.to_owned(), 1);
            }
        }
    }

    pub fn count(&self, key: &str) -> u64 {
        self.counts.get(key).copied().unwrap_or(0)
    }

    pub fn merge(&mut self, other: &Coverage) {
        for (key, count) in &other.counts {
            *self.counts.entry(key.clone()).or_default() += count;
        }
    }

    /// The counters below `min`, with their counts.
    ///
    /// # Panics
    ///
    /// If a counter was hit that [`Coverage::keys`] does not list.
    pub fn below(&self, min: u64) -> Vec<(&'static str, u64)> {
        let keys = Self::keys();
        let unknown: Vec<&String> = self
            .counts
            .keys()
            .filter(|key| !keys.contains(&key.as_str()))
            .collect();
        assert!(
            unknown.is_empty(),
            "unlisted coverage counters: {unknown:?}"
        );
        keys.into_iter()
            .map(|key| (key, self.count(key)))
            .filter(|&(_, count)| count < min)
            .collect()
    }

    /// Every counter and its count, one per line.
    pub fn summary(&self) -> String {
        Self::keys()
            .into_iter()
            .map(|key| format!("{key:>32} {}\n", self.count(key)))
            .collect()
    }
}
