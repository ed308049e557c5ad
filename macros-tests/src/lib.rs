//! Nothing here: the cases live in `tests/compile-fail` and `tests/compile-pass`,
//! run by `tests/trybuild.rs`.
