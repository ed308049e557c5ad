//! Heap measurement for the binaries that run under a counting global
//! allocator (`memory`, `link_memory`): each declares `stats_alloc`'s
//! `INSTRUMENTED_SYSTEM` as its `#[global_allocator]` and hands it here.

use stats_alloc::StatsAlloc;
use std::alloc::System;

/// Bytes currently allocated, by the counting allocator. (A reallocation
/// adds its growth to `bytes_allocated`, or its shrinkage to
/// `bytes_deallocated`, so these two alone are the live total.)
pub fn live_bytes(allocator: &StatsAlloc<System>) -> i128 {
    let stats = allocator.stats();
    stats.bytes_allocated as i128 - stats.bytes_deallocated as i128
}

/// The bytes still allocated after `build`, keeping its result alive until
/// measured.
pub fn heap_of<T>(allocator: &StatsAlloc<System>, build: impl FnOnce() -> T) -> i128 {
    let before = live_bytes(allocator);
    let value = build();
    let bytes = live_bytes(allocator) - before;
    drop(value);
    bytes
}
