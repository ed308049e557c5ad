//! What a world's type says about its components: [`Component`] (the link
//! the macro writes per component), [`Contains`] (the same link seen from
//! the world, the bound to write in generic code) and [`Bundle`] (several
//! components to spawn an entity with).

use crate::plumbing::{BundleParts, Column, ColumnAccess, ColumnOf, DistinctComponents, Storages};
use crate::query::Writable;
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
pub trait Component<W: Storages>: Column<W, Track: Writable<Self>> {
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
pub trait Contains<C>: ColumnAccess<C> + ColumnOf<C, Track: Writable<C>> {
    /// The position of `C`'s storage among the world's fields, counting from
    /// 0 ([`Component::INDEX`]).
    const INDEX: usize;
}

impl<W: Storages, C: Column<W>> Component<W> for C
where
    C::Track: Writable<C>,
{
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

// The bound on `Track` is what lets generic code write `&mut C` in a query:
// `W: Contains<C>` alone proves that `C`'s storage lends a written column,
// tracked or not.
impl<W: Storages, C: Column<W>> Contains<C> for W
where
    C::Track: Writable<C>,
{
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

/// The type of `W`'s field for the component `C`: `SparseMap<C>` if `W`
/// does not track `C`, `SparseMap<C, Tracked>` if it does. Write it where a
/// system or a generic function names a storage, and it keeps compiling
/// when tracking is turned on or off, or in any world that has `C`.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32);
/// struct Vel(f32);
/// world! { struct Plain<Pos, Vel>; }
/// world! { struct Watched<Pos, Vel>; tracked (Pos); }
///
/// // One system for both worlds: it names the storages generically.
/// fn movement<W: World + Contains<Pos> + Contains<Vel>>(
///     pos: &mut StorageOf<W, Pos>,
///     vel: &StorageOf<W, Vel>,
/// ) {
///     join((pos, vel)).for_each(|_, (p, v)| p.0 += v.0);
/// }
///
/// let mut plain = Plain::new();
/// plain.spawn_with((Pos(0.0), Vel(1.0)));
/// Schedule::new().add_system(movement::<Plain>).run(&mut plain);
///
/// let mut watched = Watched::new();
/// let e = watched.spawn_with((Pos(0.0), Vel(2.0)));
/// watched.clear_changes();
/// Schedule::new().add_system(movement::<Watched>).run(&mut watched);
/// assert_eq!(watched.get::<Pos>(e).unwrap().0, 2.0);
/// assert_eq!(watched.query::<Changed<&Pos>>().count(), 1);
/// ```
pub type StorageOf<W, C> = SparseMap<C, <W as ColumnOf<C>>::Track>;
