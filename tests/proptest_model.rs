//! Model-based test with proptest: random sequences of up to 200 operations
//! run through the harness in `support/harness/`; a failure shrinks to a
//! minimal sequence, printed as `Op`s, and is saved in
//! `proptest-regressions/proptest_model.txt` so the next run tries it first.
//!
//! Cases: `PROPTEST_CASES` when set, else 256. For a long run:
//! `PROPTEST_CASES=10000 cargo test --release --test proptest_model`.

#[path = "support/harness/mod.rs"]
mod harness;

use std::cell::RefCell;

use harness::{listing, minimize, run_ops, Coverage, Op, CODE_LEN};
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestError, TestRunner};

/// The longest sequence generated.
const MAX_OPS: usize = 200;

/// Sequences of operations, each drawn from the bytes the fuzz targets read,
/// so all three drivers share one decoder; shrinking drops operations and
/// moves their bytes towards zero.
fn op_sequences() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(any::<[u8; CODE_LEN]>().prop_map(Op::from_code), 0..=MAX_OPS)
}

#[test]
fn world_matches_model() {
    // What the `proptest!` macro sets up (cases from `PROPTEST_CASES`),
    // run by hand to sum up the coverage. Failures are saved where
    // `SourceParallel`, the default, saves them for files under `src/`
    // (from `tests/` it cannot find `lib.rs` and falls back to
    // `tests/proptest_model.proptest-regressions`).
    let config = ProptestConfig {
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/proptest_model.txt",
        ))),
        ..ProptestConfig::default()
    };
    let cases = config.cases;
    let mut runner = TestRunner::new(config);
    let total = RefCell::new(Coverage::default());
    let result = runner.run(&op_sequences(), |ops| {
        let coverage = run_ops(&ops);
        total.borrow_mut().merge(&coverage);
        Ok(())
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, shrunk)) => {
            // Proptest shrinks a `Vec` by dropping elements, then shrinking
            // them, and stops early here: see `harness::minimize`.
            let (minimal, minimal_why) = minimize(&shrunk);
            panic!(
                "{why}\nproptest shrank it to {} operations:\n{}\
                 and without the ones it does not need ({} operations, {minimal_why}):\n{}",
                shrunk.len(),
                listing(&shrunk),
                minimal.len(),
                listing(&minimal)
            )
        }
        Err(error) => panic!("{error}"),
    }
    println!("{cases} cases\n{}", total.into_inner().summary());
}
