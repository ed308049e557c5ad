//! A compile-time-typed Entity Component System: declare a world once with
//! [`world!`], get a concrete struct with one sparse-set storage per
//! component, and let the compiler check every component access.
//!
//! Goals, in priority order:
//!
//! 1. **Mistakes are compile errors.** Using a component the world does not
//!    declare names the component, the world and the fix. There is no
//!    `TypeId`, no type erasure and no runtime registration.
//! 2. **Nothing is lost, nothing is aliased.** Entities are generational, so a
//!    stale handle finds nothing; every panicking method has a twin that
//!    returns `Option`/`Result` and hands your value back.
//! 3. **Fast by layout, 100% safe code.** Components live in packed arrays
//!    indexed by a paged sparse index; `#![forbid(unsafe_code)]`.
//! 4. **As simple as the simplest ECS.** Systems are plain functions whose
//!    parameters are the storages and resources they use, run by a
//!    [`Schedule`], in parallel where the compiler proves it safe.
//!
//! ```
//! use typed_ecs::prelude::*;
//!
//! pub struct Moveable { pub x: f32, pub y: f32 }
//! pub struct Nameable(pub String);
//! pub struct Purrable;
//!
//! world! {
//!     /// Everything that lives in the cat café.
//!     pub struct CatWorld<Moveable, Nameable, Purrable>;
//! }
//!
//! fn all_cats_purr(world: &mut CatWorld) {
//!     for (_cat, (name, _purr)) in world.query::<(&Nameable, &Purrable)>() {
//!         println!("The cat {} purrs", name.0);
//!     }
//! }
//!
//! let mut world = CatWorld::new();
//! let mut schedule = Schedule::new();
//! schedule.add_system(all_cats_purr);
//!
//! let kitty = world.spawn();
//! world.add(kitty, Nameable("Kitty".into()));
//! world.add(kitty, Moveable { x: 1.0, y: 2.0 });
//! world.add(kitty, Purrable);
//!
//! schedule.run(&mut world);
//! ```
//!
//! # Set-up
//!
//! Add the crate to your `Cargo.toml`:
//!
//! ```toml
//! [dependencies]
//! typed_ecs = "0.1"
//! ```
//!
//! or, with optional features (listed [below](#feature-flags)):
//!
//! ```toml
//! [dependencies]
//! typed_ecs = { version = "0.1", features = ["rayon", "serde"] }
//! ```
//!
//! For `no_std` (with `alloc`), turn the default `std` feature off:
//! `typed_ecs = { version = "0.1", default-features = false }`.
//!
//! # The pieces
//!
//! * [`world!`] declares the world struct; [`World`] holds every method
//!   (`spawn`, `add`, `get`, `query`, `finalize_updates`, …) and comes with
//!   the [`prelude`].
//! * [`Entity`] is a generational handle, handed out by an
//!   [`EntityAllocator`].
//! * [`SparseMap`] stores one component type; each is a public field of the
//!   world, so two can be borrowed at once.
//! * [`World::query`] reads; [`World::query_mut`] and [`join`] may write, and
//!   run through a [`Join`] (its doc says what each shape
//!   supports in safe code).
//! * Owning groups ([`Group`]), declared in [`world!`], keep the entities that share
//!   some components packed together, so queries over exactly those
//!   components walk slices.
//! * Deferred changes (`add_deferred`, `remove_deferred`, `despawn_deferred`)
//!   are applied at the sync point, [`World::finalize_updates`]; a
//!   [`Commands`] buffer collects changes while a query holds the world and
//!   is applied with [`World::apply`].
//! * [`Schedule`] runs systems ([`SystemParam`]): plain functions whose parameters say
//!   what they touch (`&mut SparseMap<Position>`, `&Time`, `&mut Commands<W>`),
//!   in stages whose members run in parallel and are proven not to conflict
//!   at compile time, with sync points between them; it can time them.
//!   Resources (`resources { time: Time }` in [`world!`]) hold what belongs
//!   to the whole world.
//!
//! The [guide](#guide) below walks through each piece; the feature flags
//! are listed [there](#feature-flags).
//!
//! # Compile-time checks that need a full build
//!
//! Naming a component the world lacks, giving one component twice in a
//! bundle (`spawn_with((A, A))`) or a mutable query (`query_mut::<(&mut A,
//! &A)>()`), and breaking the systems' rules (a storage or resource taken
//! twice with a `&mut`, two members of one stage that conflict:
//! [`Schedule::add_systems`]) are trait bounds: `cargo check` and the editor
//! report them at your line. Three checks wait for a constant evaluated
//! when the code is generated, and so show up in `cargo build` and `cargo
//! test`, not in `cargo check` (the error's last note points at your call):
//! a query with no required component, the components behind an `Or`, and
//! the same rules in code generic over the world, where no component's
//! index is known ([`AddSystems`], `W: World`).

#![doc = ""]
#![doc = include_str!("../docs/guide.md")]
/* How does `world!` work?

   `world!` (src/macros/) only parses, then hands the field list to one
   helper macro per job: the struct, the `Storages` plumbing, the owning
   groups, one `Column` impl per component, the serde impls. It emits the
   struct, with one `pub SparseMap<C>` field per component and one hidden
   field for the world's own queued changes (`Deferred<W>`: a struct of one
   `Queue<C>` per component and the despawns, the same queues a `Commands`
   buffer holds; src/queue.rs), and trait impls whose bodies are one-line
   forwards to those fields:

   * `Column<W>` for each component `C` (src/plumbing.rs): the field's
     position (used to reject duplicates at compile time), access to the
     field, and where it is in the world's split borrow and in a command
     buffer. `C: Component<W>` and `W: Contains<C>` follow from it by
     blanket impls. (The impls sit on the component side so that rustc
     never guesses `C` from a world's only impl: see the `Component` docs.)
   * `Storages` for the world: its name, the allocator, the split borrow,
     and one visitor over every storage and one over every owning group.
     `W: World` follows from it by a blanket impl. Both are sealed: the
     macro reaches them as `$crate::__private::…`, and each method takes a
     token only this crate can make.

   Every user-facing method is a provided method of `World`
   (src/world/mod.rs), a few lines over the mechanism modules; every add,
   removal, spawn and despawn goes through src/structural/, where what
   reacts to it is wired (src/structural/react.rs); everything that touches
   every field (despawn, clear, the sync point, applying a `Commands`
   buffer, group upkeep, invariant checks) is a small visitor in the module
   of its mechanism. A new feature adds a visitor or a reaction, not a
   method to `World`, and the folders are layers (tests/architecture.rs,
   CONTRIBUTING.md).

   The bound `Self: Contains<C>` on those methods is what makes a missing
   component a compile error; `Contains`, `Component` and `Column` carry the
   `#[diagnostic::on_unimplemented]` message.

   Generated code spells every path `$crate::__private::…` or `$crate::…`, so
   a user crate needs no dependency of typed_ecs's, and nothing it
   defines (`mod core {}`, `#![no_implicit_prelude]`) can break the expansion.
*/
#![no_std]
#![forbid(unsafe_code)]
// docs.rs builds with `--cfg docsrs` on nightly: feature-gated items get a badge.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, missing_debug_implementations, rust_2018_idioms)]
// Sealing: the plumbing behind the public traits is crate-private traits
// (`Fetch: Access`, `Track: Hooks`, `Group: Packing`, `Contains:
// ColumnAccess`),
// so a bound lets user code name the public trait but call, read or
// implement none of the plumbing. Public items are bounded by them on
// purpose.
#![allow(private_bounds, private_interfaces)]

extern crate alloc;
#[cfg(any(test, feature = "std"))]
extern crate std;

mod change;
mod commands;
mod component;
mod deferred;
mod entity;
mod error;
mod event;
#[cfg_attr(docsrs, doc(cfg(feature = "example_generated")))]
#[cfg(feature = "example_generated")]
pub mod example_generated;
mod group;
mod hooks;
mod in_step;
mod indices;
#[cfg(any(feature = "testing", feature = "serde"))]
mod invariants;
mod log;
mod macros;
mod plumbing;
mod query;
mod queue;
mod relation;
mod schedule;
mod seal;
#[cfg(feature = "serde")]
mod serde_impls;
mod sparse_map;
mod structural;
mod system;
mod unique;
mod world;

// One public path per item: the modules are private and every public item
// is re-exported here, flat (as hecs does). CONTRIBUTING.md ("One path per
// item") says why; `prelude` is the one glob of the most used ones.
pub use crate::change::{Mut, Track, Tracked, Untracked};
#[cfg(feature = "testing")]
pub use crate::commands::advance_reservations_for_tests;
pub use crate::commands::{ApplyReport, CommandKind, Commands, RejectReason, Rejected};
pub use crate::component::{Bundle, Component, Contains, StorageOf};
pub use crate::entity::{Entity, EntityAllocator, EntityIter};
pub use crate::error::{AddError, AddErrorKind, SpawnError};
pub use crate::event::{EventCursor, Events, EventsOf, Reader, Writer};
pub use crate::group::Group;
pub use crate::hooks::{HookKind, HookReport, OnAdd, OnChange, OnRemove, RemovedIter, Skipped};
pub use crate::plumbing::BundleParts;
pub use crate::query::{
    join, Added, Changed, ChangedMut, ChangedRef, Fetch, FetchItem, Filter, Has, IntoFetch, Join,
    Lazy, Linked, Maybe, Or, Query, QueryItem, QueryIter, QueryMut, QueryParts, QueryTerm,
    ReadOnly, Targeted, Unlinked, Up, UpColumn, With, Without, Writable,
};
pub use crate::query::{LazyRun, LazyViewMut};
pub use crate::relation::{
    Denied, Links, ManyLinks, RelateError, RelateErrorKind, Relates, Sources,
};
pub use crate::schedule::{AddSystems, LaggingReader, MissedMessages, Schedule};
#[cfg(feature = "std")]
pub use crate::schedule::{ScheduleStats, StepSummary};
pub use crate::sparse_map::{Iter, IterMut, SparseMap, TrackedViewMut, ViewMut};
pub use crate::system::{
    named, IntoStage, Local, Named, ReadParam, Seen, StageParams, StageShape, SystemFn,
    SystemParam, SystemParams, SystemShape, WriteParam,
};
pub use crate::world::World;

/// Everything a game needs in scope: `use typed_ecs::prelude::*;`.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32);
/// world! { struct Game<Pos>; }
///
/// let mut world = Game::new();   // World methods are in scope
/// let e = world.spawn_with((Pos(1.0),));
/// assert!(world.has::<Pos>(e));
/// ```
pub mod prelude {
    pub use crate::{
        join, named, AddSystems, Added, Bundle, Changed, Commands, Component, Contains, Entity,
        EntityAllocator, Events, Has, Linked, Links, Local, ManyLinks, Maybe, Mut, OnAdd, OnChange,
        OnRemove, Or, Query, QueryMut, ReadParam, Reader, Schedule, Seen, Sources, SparseMap,
        StorageOf, Targeted, Tracked, Unlinked, Untracked, Up, With, Without, World, WriteParam,
        Writer,
    };
    pub use crate::{plugin, world};
}

/// What `world!` expansions use: re-exports only. Not public API: no
/// stability promises.
#[doc(hidden)] // The macro's door: generated code must name these paths.
pub mod __private {
    pub use ::core;
    pub use ::paste::paste;
    pub use alloc::string::String;
    pub use alloc::vec::Vec;

    pub use crate::event::EventIn;
    pub use crate::group::upkeep::refresh_groups;
    pub use crate::hooks::{
        count_lines, give_back_added, kind_code, line_done, line_fields, line_next, line_of,
        line_start, run_hook, run_removed, settle, take_added, take_changed, take_removed,
        take_report, HookHome, HookKind, HookLines, HookState, Hooks, OnAdd, OnChange, OnRemove,
        Reactions, ReactionsIn,
    };
    pub use crate::in_step::{new_deferred, new_storage};
    pub use crate::indices::{
        all_distinct, digit, field_index, is_listed, plugin_field_once, Id, ID_DIGITS,
    };
    pub use crate::plumbing::{
        new_allocator, take_part, Column, Declared, Deferred, EachGroup, EachGroupRef, EachStorage,
        EachStorageRef, HookSel, RelationAccess, RemoveHooks, Slot, StorageIn, Storages,
        TrackedColumn,
    };
    pub use crate::query::terms::DistinctTerms;
    pub use crate::queue::{Despawns, Queue};
    pub use crate::relation::{
        EachRelation, Forward, HasLinks, Policy, Related, RelationQueue, Sides,
    };
    pub use crate::seal::Token;
    pub use crate::sparse_map::track::TrackKind;
    pub use crate::structural::batch::extend;
    pub use crate::system::access::Target;
    pub use crate::system::claims::{Reads, Res, Whole, Writes};
    pub use crate::system::param::Source;

    #[cfg(feature = "serde")]
    pub use crate::serde_impls::{
        deserialize_world, finish_world, live_storage, load_despawns, load_queued, loaded_storage,
        read_next, read_once, required, saved_entities, LoadedColumn, LoadedEntities, WorldFields,
    };
    #[cfg(feature = "serde")]
    pub use ::serde;
}

/// The README's examples, run as doc tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The repository's one generator for random test runs (see the file).
#[cfg(test)]
#[path = "../tests/support/rng.rs"]
pub(crate) mod test_rng;
