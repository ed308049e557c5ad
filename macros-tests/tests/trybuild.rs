//! Runs every compile-fail and compile-pass case. Regenerate the `.stderr`
//! snapshots after an intended change to a message with
//! `TRYBUILD=overwrite cargo test -p macros-tests`, then read the diff.
//!
//! The pass cases make trybuild run a full `cargo build` rather than
//! `cargo check`, which the bundle-duplicate case needs: that error comes from
//! a constant evaluated at code generation.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/compile-pass/*.rs");
    cases.compile_fail("tests/compile-fail/*.rs");
}
