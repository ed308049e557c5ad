//! [`Token`]: a value only this crate can make.
//!
//! The plumbing traits (bundle parts, group upkeep) are reachable through
//! bounds from any crate that can name a public trait built on them. Their
//! methods that could break a world's invariants take a `Token`, which only
//! this crate can construct, so only this crate can call them.

/// Proof that the caller is this crate. Not constructible elsewhere.
#[derive(Clone, Copy, Debug)]
pub struct Token(());

/// The one token.
pub(crate) const TOKEN: Token = Token(());

/// A supertrait only this crate can implement: traits built on it are
/// implemented for the types this crate chooses, and no others.
pub trait Sealed {}
