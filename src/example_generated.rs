//! What [`world!`](macro@crate::world) writes: the cat world of the crate docs,
//! expanded here so its API can be read on the docs page. Built only with
//! the `example_generated` feature, which the docs build enables.
//!
//! The declaration is:
//!
//! ```ignore
//! world! {
//!     /// Everything that lives in the cat café.
//!     #[derive(Debug, Clone)]
//!     pub struct CatWorld<Moveable, Nameable, Purrable>;
//! }
//! ```
//!
//! It produces [`CatWorld`], with an `entities` field and one
//! [`SparseMap`](crate::SparseMap) field per component; `new`,
//! `with_capacity` and `Default`; an impl of [`Extend`] for every bundle
//! (`world.extend(bundles)` spawns them, as
//! [`spawn_batch`](crate::World::spawn_batch) does, without keeping the
//! handles); an impl of [`World`](crate::World), which
//! holds every world method; and an impl of [`Component<CatWorld>`](crate::Component)
//! for each component, so that `CatWorld: Contains<Moveable> +
//! Contains<Nameable> + Contains<Purrable>`.
//!
//! ```
//! use typed_ecs::example_generated::{CatWorld, Nameable, Purrable};
//! use typed_ecs::prelude::*;
//!
//! let mut world = CatWorld::new();
//! let kitty = world.spawn_with((Nameable("Kitty".into()), Purrable));
//! assert_eq!(world.nameable.get(kitty).unwrap().0, "Kitty");
//! world.extend((0..3).map(|i| (Nameable(format!("Kitten {i}")),)));
//! assert_eq!(world.entity_count(), 4);
//! ```

/// Where a cat is.
#[derive(Debug, Clone, PartialEq)]
pub struct Moveable {
    /// Metres east.
    pub x: f32,
    /// Metres north.
    pub y: f32,
}

/// What a cat is called.
#[derive(Debug, Clone, PartialEq)]
pub struct Nameable(pub alloc::string::String);

/// A cat that purrs.
#[derive(Debug, Clone, PartialEq)]
pub struct Purrable;

crate::world! {
    /// Everything that lives in the cat café.
    #[derive(Debug, Clone)]
    pub struct CatWorld<Moveable, Nameable, Purrable>;
}
