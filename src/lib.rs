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
//! 4. **As simple as the simplest ECS.** Systems are plain functions over the
//!    world, run in order by a [`Schedule`].
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
//!   run through a [`Join`] (see the [`query`] module for what each shape
//!   supports in safe code).
//! * Owning [`group`]s, declared in [`world!`], keep the entities that share
//!   some components packed together, so queries over exactly those
//!   components walk slices.
//! * Deferred changes (`add_deferred`, `remove_deferred`, `despawn_deferred`)
//!   are applied at the sync point, [`World::finalize_updates`]; a
//!   [`Commands`] buffer collects changes while a query holds the world and
//!   is applied with [`World::apply`].
//! * [`Schedule`] runs systems in order, with sync points between them, and
//!   can time them.
//!
//! The [guide](#guide) below walks through each piece; the feature flags
//! are listed [there](#feature-flags).
//!
//! # Compile-time checks that need a full build
//!
//! Naming a component the world lacks is caught by `cargo check`. Giving
//! one component twice in a bundle (`spawn_with((A, A))`) or a mutable query
//! (`query_mut::<(&mut A, &A)>()`), or a query with no required component, is
//! caught by a constant evaluated when the code is generated, so it shows up
//! in `cargo build` and `cargo test`, not in `cargo check`.

#![doc = ""]
#![doc = include_str!("../docs/guide.md")]
/* How does `world!` work?

   `world!` (src/macros.rs) only parses. It emits the struct, with one
   `pub SparseMap<C>` field per component, and a handful of trait impls whose
   bodies are one-line forwards to those fields:

   * `Component<W>` for each component `C`: `INDEX` (the field's position,
     used to reject duplicates at compile time) and access to the field.
     `W: Contains<C>` follows from it by one blanket impl. (The impls sit on
     the component side so that rustc never guesses `C` from a world's only
     impl: see the `Component` docs.)
   * `World`: the allocator, plus hidden hooks that touch every field
     (detach one entity's components, apply queued removals/additions, take
     everything for `clear`, check invariants) and one that runs an owning
     group's upkeep (src/group.rs) for each `group (…);` line.

   Every user-facing method is a provided method of `World` (src/world.rs),
   generic over `C` with the bound `Self: Contains<C>`: ordinary Rust that is
   type-checked once, documented once and tested here. The bound is what
   makes a missing component a compile error, and `Component`/`Contains`
   carry the `#[diagnostic::on_unimplemented]` message.

   Generated code spells every path `$crate::__private::…` or `$crate::…`, so
   a user crate needs neither `paste` nor `static_assertions`, and nothing it
   defines (`mod core {}`, `#![no_implicit_prelude]`) can break the expansion.
*/
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations, rust_2018_idioms)]

extern crate alloc;
#[cfg(any(test, feature = "std"))]
extern crate std;

pub mod commands;
pub mod entity;
pub mod error;
#[cfg(feature = "example_generated")]
pub mod example_generated;
pub mod group;
mod macros;
pub mod query;
pub mod schedule;
#[cfg(feature = "serde")]
mod serde_impls;
pub mod sparse_map;
mod unique;
mod world;

pub use crate::commands::{ApplyReport, Commands};
pub use crate::entity::{Entity, EntityAllocator};
pub use crate::error::{AddError, AddErrorKind, SpawnError};
pub use crate::group::Group;
pub use crate::query::{join, Join, Query, QueryIter, QueryMut, With, Without};
pub use crate::schedule::Schedule;
pub use crate::sparse_map::SparseMap;
pub use crate::world::{Bundle, Component, Contains, World};

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
    pub use crate::world;
    pub use crate::{
        Bundle, Commands, Component, Contains, Entity, Query, QueryMut, Schedule, SparseMap, With,
        Without, World,
    };
}

/// What `world!` expansions use. Not public API: no stability promises.
#[doc(hidden)]
pub mod __private {
    pub use ::core;
    pub use ::paste::paste;
    pub use ::static_assertions;

    use alloc::vec::Vec;

    use crate::{Entity, EntityAllocator, SparseMap};

    /// One storage's part of a despawned entity: its value and queued add.
    pub type Purged<T> = (Option<T>, Option<T>);

    /// One storage's part of a cleared world: its values and queued adds.
    pub type Taken<T> = (Vec<T>, Vec<T>);

    /// The position of `field` in `fields`: a component's `INDEX`. Evaluated
    /// at compile time; `field` is always present.
    pub const fn field_index(fields: &[&str], field: &str) -> usize {
        let mut i = 0;
        while i < fields.len() {
            if str_eq(fields[i], field) {
                return i;
            }
            i += 1;
        }
        panic!("world!: a field is missing from its own field list")
    }

    const fn str_eq(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Detaches `entity`'s value and queued add, to be dropped later, and
    /// stamps `map` with what `entities` will be once `entity` is freed.
    #[inline]
    pub fn purge<T>(
        entities: &EntityAllocator,
        map: &mut SparseMap<T>,
        entity: Entity,
    ) -> Purged<T> {
        let purged = map.purge(entity);
        // A storage in step stays in step; one that is not stays behind, to
        // be brought in step when the world next uses it.
        if map.is_synced(entities.stamp()) {
            map.set_synced(entities.next_stamp());
        }
        purged
    }

    /// `true` if `map` is not in step with `entities`.
    #[inline]
    pub fn stale<T>(entities: &EntityAllocator, map: &SparseMap<T>) -> bool {
        !map.is_synced(entities.stamp())
    }

    /// Brings `map` in step with `entities` (see `SparseMap`, "Storages
    /// moved between worlds"): one comparison when it already is.
    #[inline]
    pub fn sync<T>(entities: &EntityAllocator, map: &mut SparseMap<T>) {
        if !map.is_synced(entities.stamp()) {
            let dead = map.dead_entries(|entity| entities.is_alive(entity));
            drop(map.resync(&dead, entities.stamp()));
        }
    }

    /// An empty storage in step with `entities`, with room for `capacity` values.
    #[inline]
    pub fn new_storage<T>(entities: &EntityAllocator, capacity: usize) -> SparseMap<T> {
        let mut map = if capacity == 0 {
            SparseMap::new()
        } else {
            SparseMap::with_capacity(capacity)
        };
        map.set_synced(entities.stamp());
        map
    }

    /// Applies the queued removals of `C`, keeping groups packed.
    #[inline]
    pub fn apply_removals<W: crate::Contains<C>, C>(world: &mut W) {
        crate::world::apply_removals::<W, C>(world);
    }

    /// Applies the queued additions of `C`, keeping groups packed.
    #[inline]
    pub fn apply_additions<W: crate::Contains<C>, C>(world: &mut W) {
        crate::world::apply_additions::<W, C>(world);
    }

    pub use crate::group::{hook as group_hook, Hook as GroupHook};
    pub use crate::world::{all_distinct, check_storage};

    /// A new allocator, for `W::new()`.
    #[inline]
    pub fn new_allocator() -> crate::EntityAllocator {
        crate::EntityAllocator::new()
    }

    /// A new allocator with room for `capacity` entities, for `W::with_capacity`.
    #[inline]
    pub fn allocator_with_capacity(capacity: usize) -> crate::EntityAllocator {
        crate::EntityAllocator::with_capacity(capacity)
    }

    /// Takes one storage out of a world's split borrow. Each component's part
    /// is taken at most once per query: queries naming a component twice are
    /// rejected at compile time.
    #[inline]
    pub fn take_part<'a, T>(part: &mut Option<&'a mut SparseMap<T>>) -> &'a mut SparseMap<T> {
        part.take()
            .expect("typed_ecs: a query took one storage twice, which the compile-time check should prevent")
    }

    pub use crate::commands::Queue;
    pub use alloc::string::String;

    #[cfg(feature = "serde")]
    pub use crate::serde_impls::{
        deserialize_world, finish_world, live_storage, loaded_storage, read_next, read_once,
        required, WorldFields,
    };
    #[cfg(feature = "serde")]
    pub use ::serde;

    /// Applies the removals a command buffer queued for `C`.
    #[inline]
    pub fn apply_command_removals<W: crate::Contains<C>, C>(
        world: &mut W,
        commands: &mut crate::Commands<W>,
    ) {
        crate::commands::apply_removals::<W, C>(world, commands);
    }

    /// Applies the additions a command buffer queued for `C`.
    #[inline]
    pub fn apply_command_additions<W: crate::Contains<C>, C>(
        world: &mut W,
        commands: &mut crate::Commands<W>,
    ) {
        crate::commands::apply_additions::<W, C>(world, commands);
    }

    /// Empties `map` and its queues, returning the values to be dropped
    /// later, and stamps it with what `entities` will be once cleared.
    #[inline]
    pub fn take_all<T>(entities: &EntityAllocator, map: &mut SparseMap<T>) -> Taken<T> {
        let taken = map.take_all();
        map.set_synced(entities.next_stamp());
        taken
    }
}

/// The README's examples, run as doc tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// A small seeded generator for the unit tests' random runs.
#[cfg(test)]
pub(crate) mod test_rng {
    /// SplitMix64.
    pub struct Rng(u64);

    impl Rng {
        pub fn new(seed: u64) -> Self {
            Rng(seed)
        }

        pub fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        /// Uniform-enough in `0..n`, `n > 0`.
        pub fn below(&mut self, n: usize) -> usize {
            (self.next_u64() % n as u64) as usize
        }
    }
}
