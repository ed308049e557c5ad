//! Queries: visit the entities that have a set of components.
//!
//! A query *type* names what to visit: `&A`, `&mut A`, `Option<&A>`,
//! `Option<&mut A>`, the filters [`With<A>`] and [`Without<A>`], or a tuple of
//! those. It is turned into a *fetch*: the storages it reads or writes,
//! borrowed from the world. A walk visits the entities of the smallest
//! storage every result must have (the *driver*) and looks each one up in
//! the others, so its cost follows the rarest required component, not the
//! world's size. Where the storages list the same entities in the same
//! slots (as storages filled by spawning one bundle do), `for_each` walks
//! those runs of slots side by side instead, with no lookup.
//!
//! * [`World::query`](crate::World::query) is read-only and yields a plain
//!   iterator, [`QueryIter`].
//! * [`World::query_mut`](crate::World::query_mut) may write and yields a
//!   [`Join`]; so does [`join`], which takes storages you borrowed yourself
//!   (`join((&mut world.pos, &world.vel))`), leaving the world's other fields
//!   free.
//!
//! # What a [`Join`] can do, in safe code
//!
//! * `for_each(|entity, items| …)` works for every query. It is the fastest
//!   way to run one, and is driven by the smallest required storage.
//! * A `for` loop works for every query too, driven by the same storage
//!   as `for_each`, whatever the order of the terms (of two storages as
//!   small, a written one). An iterator hands out each `&mut` for as long
//!   as the loop keeps it, so safe code can hand them out in order from the
//!   storage the loop walks. Over exactly an owning group it walks the
//!   packed slots, whatever it writes. Any other written storage (a larger
//!   one, a second `&mut`, an `Option<&mut C>`, a `Changed<&mut C>`) hands
//!   out its values by handle from a table of one pointer per value, made
//!   when the loop starts, each value at most once: that table is the one
//!   cost `for_each` does not have.
//! * `par_for_each` (feature `rayon`) runs on rayon's thread pool when the
//!   query writes at most one storage (its dense range is split across
//!   threads), and for every shape over exactly an owning group.
//!
//! # Owning groups
//!
//! When the required storages of a query are exactly one owning group's
//! (see [`crate::group`]), every form above walks the group's packed slots
//! side by side instead of looking entities up.
//!
//! # Compile-time checks
//!
//! The same component twice in one mutable query (`(&mut A, &A)`,
//! `(&mut A, Option<&mut A>)`, `(&A, With<A>)`) is a compile error, as is a
//! query with no required component (only `Option`s and `Without`s). Both are
//! checked by constants evaluated when the code is generated, so they show
//! up in `cargo build` and `cargo test` rather than `cargo check`.
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
mod or;
#[cfg(feature = "rayon")]
mod par;
pub(crate) mod plan;
mod rows;
pub(crate) mod terms;

pub use changed::{ChangedMut, ChangedRef};
pub use fetch::{Fetch, FetchItem, IntoFetch, ReadOnly, Writable};
pub use filters::{Added, Changed, Maybe, Or, With, Without};
pub use iter::QueryIter;
pub use join::{join, Join};
pub use or::Filter;
pub use terms::{Query, QueryItem, QueryMut, QueryParts, QueryTerm};
