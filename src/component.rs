//! What a world's type says about its components: [`Component`] (the link
//! the macro writes per component), [`Contains`] (the same link seen from
//! the world, the bound to write in generic code) and [`Bundle`] (several
//! components to spawn an entity with).

use crate::plumbing::{Column, ColumnAccess, Storages};
use crate::seal::TOKEN;
use crate::SparseMap;

/// Says that `Self` is a component of the world `W`, and where `W` keeps it.
///
/// Every component a [`world!`](macro@crate::world) declares has it (the macro
/// writes where the world keeps each one); you never implement it yourself.
/// In bounds, prefer the world-side view of the same
/// fact, [`Contains<C>`], which every world gets from this trait.
///
/// Why two traits: if the generated impls were of `Contains<C> for W`, a world
/// with a single component would make rustc guess `C` from that one impl
/// before looking at your argument, and `world.add(e, Dog)` would report
/// "expected `Cat`, found `Dog`". With the impls on the component side, the
/// error says what is wrong:
///
/// ```compile_fail
/// use typed_ecs::prelude::*;
/// struct Cat;
/// struct Dog;
/// world! { struct CatWorld<Cat>; }
///
/// let mut world = CatWorld::new();
/// let e = world.spawn();
/// world.add(e, Dog); // error: `Dog` is not a component of `CatWorld`
/// ```
///
/// ```
/// use typed_ecs::prelude::*;
/// struct Cat;
/// world! { struct CatWorld<Cat>; }
///
/// fn index_of<C: Component<CatWorld>>() -> usize {
///     C::INDEX
/// }
/// assert_eq!(index_of::<Cat>(), 0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component of `{W}`",
    label = "`{W}` has no storage for `{Self}`",
    note = "add `{Self}` to the component list in the `world!` declaration of `{W}`"
)]
pub trait Component<W: Storages>: Column<W> {
    /// The position of this component's storage among `W`'s fields, counting
    /// from 0: distinct for every component of one world, which is how the
    /// same component twice is caught at compile time.
    const INDEX: usize;

    /// `world`'s storage of this component.
    fn storage(world: &W) -> &SparseMap<Self, Self::Track>;

    /// `world`'s storage of this component, mutably.
    fn storage_mut(world: &mut W) -> &mut SparseMap<Self, Self::Track>;
}

/// Says that a world stores components of type `C`: the bound to write when
/// a function is generic over worlds.
///
/// Every world gets it for each of its components, and with it every
/// [`World`](crate::World) method.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Health(i32);
/// struct Armor(i32);
/// world! { struct Arena<Health, Armor>; }
/// world! { struct Menu<Health>; }
///
/// fn heal_all<W: Contains<Health>>(world: &mut W) {
///     for health in world.storage_mut::<Health>().values_mut() {
///         health.0 += 10;
///     }
/// }
///
/// let mut arena = Arena::new();
/// let e = arena.spawn_with((Health(5),));
/// heal_all(&mut arena);
/// heal_all(&mut Menu::new());
/// assert_eq!(arena.get::<Health>(e).unwrap().0, 15);
/// assert_eq!(<Arena as Contains<Armor>>::INDEX, 1);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{C}` is not a component of `{Self}`",
    label = "`{Self}` has no storage for `{C}`",
    note = "add `{C}` to the component list in the `world!` declaration of `{Self}`"
)]
pub trait Contains<C>: ColumnAccess<C> {
    /// The position of `C`'s storage among the world's fields, counting from
    /// 0 ([`Component::INDEX`]).
    const INDEX: usize;
}

impl<W: Storages, C: Column<W>> Component<W> for C {
    const INDEX: usize = C::FIELD;

    #[inline]
    fn storage(world: &W) -> &SparseMap<Self, Self::Track> {
        C::field(world, TOKEN)
    }

    #[inline]
    fn storage_mut(world: &mut W) -> &mut SparseMap<Self, Self::Track> {
        C::field_mut(world, TOKEN)
    }
}

impl<W: Storages, C: Column<W>> Contains<C> for W {
    const INDEX: usize = C::FIELD;
}

/// A set of components to spawn an entity with: a tuple of up to 16
/// components the world declares, each type at most once.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32, f32);
/// struct Name(&'static str);
/// world! { struct Game<Pos, Name>; }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((Pos(0.0, 1.0), Name("ball")));
/// assert!(world.has::<Pos>(e) && world.has::<Name>(e));
///
/// // Generic over the bundle, on a concrete world.
/// fn spawn_two<B: Bundle<Game>>(world: &mut Game, make: impl Fn() -> B) {
///     world.spawn_with(make());
///     world.spawn_with(make());
/// }
/// spawn_two(&mut world, || (Name("twin"),));
/// assert_eq!(world.name.len(), 3);
/// ```
///
/// The same component twice is a type error, which `cargo check` reports
/// at the call ("`Pos` is named twice in one query or bundle of `Game`"):
///
/// ```compile_fail
/// # use typed_ecs::prelude::*;
/// # struct Pos(f32, f32);
/// # world! { struct Game<Pos>; }
/// let mut world = Game::new();
/// world.spawn_with((Pos(0.0, 1.0), Pos(2.0, 3.0))); // error: the same component twice
/// ```
///
/// Code generic over the world (`W: World + Contains<Pos>`) cannot prove
/// that two components differ, so the [`World`](crate::World) trait's
/// spawning methods take any [`BundleParts`], and check that each component
/// appears once when the program is built.
pub trait Bundle<W: Storages>: BundleParts<W> + DistinctComponents<W> {}

impl<W: Storages, B: BundleParts<W> + DistinctComponents<W>> Bundle<W> for B {}

pub use parts::BundleParts;

/// The plumbing of a bundle: what spawning needs of it. Sealed: only the
/// tuples below implement it, and its methods take a [`Token`] only this
/// crate can make, so no other code can push values past the world's checks.
pub(crate) mod parts {
    use crate::indices::{all_distinct, DUPLICATE_IN_BUNDLE};
    use crate::plumbing::Storages;
    use crate::seal::Token;
    use crate::Entity;

    /// The shape of a bundle: a tuple of up to 16 components of `W`. What
    /// the [`World`](crate::World) trait's spawning methods take, so that
    /// code generic over the world can spawn; unlike [`Bundle`](super::Bundle)
    /// it does not prove that each component appears once (the methods
    /// check that when the program is built). Sealed: its methods take a
    /// token only this crate can make.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Pos(i32);
    /// struct Vel(i32);
    /// world! { struct Game<Pos, Vel>; }
    ///
    /// // Generic over the world: any world with both components.
    /// fn spawn_mover<W: World + Contains<Pos> + Contains<Vel>>(world: &mut W) -> Entity {
    ///     world.spawn_with((Pos(0), Vel(1)))
    /// }
    ///
    /// let mut world = Game::new();
    /// let e = spawn_mover(&mut world);
    /// assert!(world.has::<Vel>(e));
    /// ```
    pub trait BundleParts<W: Storages>: Sized {
        /// Number of components in the bundle.
        const LEN: usize;

        /// The storage index of each component, in order.
        const INDICES: &'static [usize];

        /// Evaluated where a bundle is spawned (inside the user-facing
        /// method, so that a build error's last note points at the caller's
        /// line): fails the build if a component appears twice.
        const EACH_COMPONENT_ONCE: () =
            assert!(all_distinct(Self::INDICES), "{}", DUPLICATE_IN_BUNDLE);

        /// Adds every component to `entity`, which was just spawned (so has
        /// no component at all), in storages in step with the world. The
        /// caller then lets the groups take it in (`group::entered`).
        fn insert_into(self, world: &mut W, entity: Entity, token: Token);

        /// Queues an add of every component to `entity` in a command buffer.
        fn queue_into(self, queues: &mut <W as Storages>::Queues, entity: Entity, token: Token);

        /// Makes room for `additional` more values in each component's
        /// storage.
        fn reserve(world: &mut W, additional: usize, token: Token);

        /// Pushes every component's value, for the entity a batch spawn will
        /// [`attach`](BundleParts::attach).
        fn push_values(self, world: &mut W, token: Token);

        /// Gives the values pushed by `push_values` their entities.
        fn attach(world: &mut W, entities: &[Entity], token: Token);

        /// Gives the values pushed by `push_values` their entities: the
        /// `Fresh` run (see `entity.rs`) of `len` entities from the
        /// index `start`.
        fn attach_fresh(world: &mut W, start: u32, len: u32, token: Token);
    }
}

/// The half of [`Bundle`] that the type checker proves: the tuple's
/// components are different components of `W`, each pair meeting a
/// `Differ` bound on their storage indices as types. Not public API:
/// write `Bundle<W>`.
#[doc(hidden)] // Reached through `Bundle` only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` may hold a component of `{W}` twice",
    label = "not known to hold each component once",
    note = "bound the bundle by `Bundle<{W}>`, which includes this check"
)]
pub trait DistinctComponents<W> {}
