//! Runs every compile-fail and compile-pass case. Regenerate the `.stderr`
//! snapshots after an intended change to a message with
//! `TRYBUILD=overwrite cargo test -p macros-tests`, then read the diff.
//!
//! The pass cases make trybuild run a full `cargo build` rather than
//! `cargo check`, which two cases need: a query with no required term and an
//! `Or` naming a component again are caught by constants evaluated at code
//! generation. A component twice in a query or a bundle is a trait-bound
//! error (E0277), which `cargo check` reports too.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/compile-pass/*.rs");
    cases.compile_fail("tests/compile-fail/*.rs");
}
