//! Queries: visit the entities that have a set of components. The user
//! guide to queries is the doc of [`Join`]; this is the contributors' map.
//!
//! # Layout
//!
//! `terms.rs` (query types), `fetch.rs` ([`Fetch`] and its sealed
//! interface), `filters.rs` (the filter wrappers: [`With`], [`Without`],
//! [`Or`], [`Maybe`]), `changed.rs` (the columns of [`Changed`], [`Added`]
//! and a tracked `&mut C`), `or.rs` (every piece of an [`Or`]), `plan.rs` (which walk, decided from plain facts about each
//! column), `rows.rs` (packed rows), `iter.rs` ([`QueryIter`]), `join.rs`
//! ([`Join`], [`join`]) and `par.rs` (`par_for_each`).

mod changed;
pub(crate) mod fetch;
mod filters;
mod iter;
mod join;
mod lazy;
mod or;
#[cfg(feature = "rayon")]
mod par;
pub(crate) mod plan;
mod rows;
pub(crate) mod terms;

pub use changed::{ChangedMut, ChangedRef};
pub use fetch::{Fetch, FetchItem, IntoFetch, ReadOnly, UpColumn, Writable};
pub use filters::{
    Added, Changed, Has, Lazy, Linked, Maybe, Or, Targeted, Unlinked, Up, With, Without,
};
pub use iter::QueryIter;
pub use join::{join, Join};
pub use lazy::{LazyRun, LazyViewMut};
pub use or::Filter;
pub use terms::{Query, QueryItem, QueryMut, QueryParts, QueryTerm};
