//! Reads the fuzzer's bytes as a sequence of world operations and checks
//! each step against the model in `tests/support/harness/`: the same
//! harness the proptest and seeded model tests use.
//!
//! ```text
//! cargo install cargo-fuzz
//! cd fuzz && cargo fuzz run --sanitizer none model -- -max_total_time=600
//! ```
//!
//! (`--sanitizer none` runs on a stable toolchain; the library has no
//! `unsafe` code for a sanitizer to watch.)

#![no_main]

#[path = "../../tests/support/harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run_bytes(data));
