//! The [`World`] trait (every world method, written once), [`Contains`] (the
//! per-component link the macro generates) and [`Bundle`] (spawning with
//! several components at once).

use core::any::type_name;

use crate::entity::{self, EntityAllocator};
use crate::error::{AddError, AddErrorKind, SpawnError};
use crate::query::{Query, QueryIter};
use crate::{Entity, SparseMap};

/// Says that a world stores components of type `C`, and where.
///
/// [`world!`](crate::world) implements it once per component; you never
/// implement it yourself. Write it as a bound to make a function generic over
/// every world that has a component:
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
/// ```
///
/// Asking a world for a component it does not declare is a compile error
/// that names both and the fix:
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
#[diagnostic::on_unimplemented(
    message = "`{C}` is not a component of `{Self}`",
    label = "`{Self}` has no storage for `{C}`",
    note = "add `{C}` to the component list in the `world!` declaration of `{Self}`"
)]
pub trait Contains<C>: World {
    /// The position of `C`'s storage among the world's fields, counting from
    /// 0. Distinct for every component of one world, which is how duplicate
    /// components are caught at compile time.
    const INDEX: usize;

    /// The storage of `C`. Prefer [`World::storage`], which infers nothing
    /// from context and reads better.
    fn sparse_map(&self) -> &SparseMap<C>;

    /// The storage of `C`, mutably. Prefer [`World::storage_mut`].
    fn sparse_map_mut(&mut self) -> &mut SparseMap<C>;
}

/// `true` when no two of `indices` are equal. Evaluated at compile time by
/// bundles and queries to reject the same component twice.
pub(crate) const fn all_distinct(indices: &[usize]) -> bool {
    let mut i = 0;
    while i < indices.len() {
        let mut j = i + 1;
        while j < indices.len() {
            if indices[i] == indices[j] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
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
/// ```
///
/// The same component twice is rejected when the program is built:
///
/// ```compile_fail
/// # use typed_ecs::prelude::*;
/// # struct Pos(f32, f32);
/// # world! { struct Game<Pos>; }
/// let mut world = Game::new();
/// world.spawn_with((Pos(0.0, 1.0), Pos(2.0, 3.0))); // error: the same component twice
/// ```
pub trait Bundle<W: World> {
    /// Adds every component to `entity`, which is alive and has none of them.
    #[doc(hidden)]
    fn __insert_into(self, world: &mut W, entity: Entity);
}

macro_rules! impl_bundle {
    ($($c:ident),*) => {
        impl<W: World $(+ Contains<$c>)*, $($c),*> Bundle<W> for ($($c,)*) {
            #[allow(non_snake_case, unused_variables)]
            fn __insert_into(self, world: &mut W, entity: Entity) {
                const {
                    assert!(
                        all_distinct(&[$(<W as Contains<$c>>::INDEX),*]),
                        "a bundle holds the same component type twice: give each type once"
                    )
                };
                let ($($c,)*) = self;
                $(world.sparse_map_mut().insert(entity, $c);)*
            }
        }
    };
}

impl_bundle!();
impl_bundle!(C0);
impl_bundle!(C0, C1);
impl_bundle!(C0, C1, C2);
impl_bundle!(C0, C1, C2, C3);
impl_bundle!(C0, C1, C2, C3, C4);
impl_bundle!(C0, C1, C2, C3, C4, C5);
impl_bundle!(C0, C1, C2, C3, C4, C5, C6);
impl_bundle!(C0, C1, C2, C3, C4, C5, C6, C7);
impl_bundle!(C0, C1, C2, C3, C4, C5, C6, C7, C8);
impl_bundle!(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9);
impl_bundle!(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10);
impl_bundle!(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11);
impl_bundle!(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12);
impl_bundle!(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13);
impl_bundle!(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14);
impl_bundle!(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15);

/// Everything a world can do. Implemented by [`world!`](crate::world) for the
/// struct it declares; bring it into scope with `use typed_ecs::prelude::*`.
///
/// Methods that take a component type are generic over `C` with the bound
/// `Self: Contains<C>`, so naming a component the world does not declare is
/// a compile error, not a runtime one.
///
/// Panicking methods (`add`, `insert`, `add_deferred`, `spawn`, `entity_at`,
/// …) say which entity, component and world in the message, and each has a
/// twin that returns `Option` or `Result` and hands the value back.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// #[derive(Debug, PartialEq)]
/// struct Pos(i32);
/// struct Frozen;
/// world! { struct Game<Pos, Frozen>; }
///
/// let mut world = Game::new();
/// let e = world.spawn();
/// world.add(e, Pos(1));
/// world.get_mut::<Pos>(e).unwrap().0 += 1;
/// assert_eq!(world.remove::<Pos>(e), Some(Pos(2)));
/// assert!(world.despawn(e));
/// ```
pub trait World: Sized {
    /// The world's type name, as written in `world!`.
    const NAME: &'static str;

    /// The component types, as written in `world!`, in declaration order.
    const COMPONENT_NAMES: &'static [&'static str];

    /// Everything detached from one entity by `__remove_all`.
    #[doc(hidden)]
    type __Removed;
    /// Everything detached from one entity by `__purge`.
    #[doc(hidden)]
    type __Purged;
    /// Everything taken from every storage by `__take_all`.
    #[doc(hidden)]
    type __Taken;

    #[doc(hidden)]
    fn __entities(&self) -> &EntityAllocator;
    #[doc(hidden)]
    fn __entities_mut(&mut self) -> &mut EntityAllocator;
    /// Detaches every component of `entity` from every storage, returning
    /// them to be dropped after all storages are consistent.
    #[doc(hidden)]
    fn __remove_all(&mut self, entity: Entity) -> Self::__Removed;
    /// Like `__remove_all`, also detaching queued adds and removes.
    #[doc(hidden)]
    fn __purge(&mut self, entity: Entity) -> Self::__Purged;
    #[doc(hidden)]
    fn __apply_removals(&mut self);
    #[doc(hidden)]
    fn __apply_additions(&mut self);
    /// Empties every storage, returning the values to be dropped after all
    /// storages are consistent.
    #[doc(hidden)]
    fn __take_all(&mut self) -> Self::__Taken;
    /// Calls `check(name, entities)` for every storage, after checking its
    /// internal invariant.
    #[doc(hidden)]
    fn __check_storages(&self, check: &mut dyn FnMut(&'static str, &[Entity]));

    // ----- entities -----

    /// Makes a new entity with no components.
    ///
    /// # Panics
    ///
    /// When the world is out of entity indices (`u32::MAX` alive or retired);
    /// [`try_spawn`](World::try_spawn) returns an error instead.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// assert!(world.is_alive(e));
    /// ```
    #[track_caller]
    fn spawn(&mut self) -> Entity {
        match self.try_spawn() {
            Ok(entity) => entity,
            Err(error) => panic!("{}: {error}", Self::NAME),
        }
    }

    /// Makes a new entity with no components, or returns an error when the
    /// world is out of entity indices.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.try_spawn().expect("room for one more");
    /// assert!(world.is_alive(e));
    /// ```
    fn try_spawn(&mut self) -> Result<Entity, SpawnError> {
        self.__entities_mut().try_alloc()
    }

    /// Makes a new entity with the components in `bundle`, a tuple.
    ///
    /// # Panics
    ///
    /// When the world is out of entity indices;
    /// [`try_spawn_with`](World::try_spawn_with) returns an error instead.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos, Vel>; }
    /// # struct Pos(i32);
    /// # struct Vel(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(0), Vel(1)));
    /// assert!(world.has::<Pos>(e) && world.has::<Vel>(e));
    /// ```
    #[track_caller]
    fn spawn_with<B: Bundle<Self>>(&mut self, bundle: B) -> Entity {
        match self.try_spawn_with(bundle) {
            Ok(entity) => entity,
            Err(error) => panic!("{}: {error}", Self::NAME),
        }
    }

    /// Makes a new entity with the components in `bundle`, or returns an
    /// error holding the bundle when the world is out of entity indices.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.try_spawn_with((Pos(0),)).unwrap();
    /// assert!(world.has::<Pos>(e));
    /// ```
    fn try_spawn_with<B: Bundle<Self>>(&mut self, bundle: B) -> Result<Entity, SpawnError<B>> {
        match self.try_spawn() {
            Ok(entity) => {
                bundle.__insert_into(self, entity);
                Ok(entity)
            }
            Err(error) => Err(error.with_bundle(bundle)),
        }
    }

    /// Despawns `entity` now: drops all its components (and any changes
    /// queued for it) and retires the handle, so it goes stale. Its index is
    /// reused later under a new generation. Returns `false`, changing
    /// nothing, if `entity` was not alive.
    ///
    /// Every storage is updated before any component is dropped, so a
    /// panicking `Drop` cannot leave the world half-updated.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(0),));
    /// assert!(world.despawn(e));
    /// assert!(!world.despawn(e));
    /// assert_eq!(world.size::<Pos>(), 0);
    /// ```
    fn despawn(&mut self, entity: Entity) -> bool {
        if !self.is_alive(entity) {
            return false;
        }
        let detached = self.__purge(entity);
        self.__entities_mut().free(entity);
        drop(detached);
        true
    }

    /// Queues `entity` to be despawned at the next
    /// [`finalize_updates`](World::finalize_updates), after the queued
    /// removals and additions. Returns `false`, queueing nothing, if `entity`
    /// is not alive. Queueing one entity twice is harmless.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// assert!(world.despawn_deferred(e));
    /// assert!(world.is_alive(e)); // not yet
    /// world.finalize_updates();
    /// assert!(!world.is_alive(e));
    /// ```
    fn despawn_deferred(&mut self, entity: Entity) -> bool {
        self.__entities_mut().queue_despawn(entity)
    }

    /// `true` if `entity` is alive in this world. Stale handles are not.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// assert!(world.is_alive(e));
    /// world.despawn(e);
    /// assert!(!world.is_alive(e));
    /// ```
    #[inline]
    fn is_alive(&self, entity: Entity) -> bool {
        self.__entities().is_alive(entity)
    }

    /// Number of alive entities.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// world.spawn();
    /// world.spawn_with((Pos(1),));
    /// assert_eq!(world.entity_count(), 2);
    /// ```
    #[inline]
    fn entity_count(&self) -> usize {
        self.__entities().len()
    }

    /// Iterates over the alive entities, in index order.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let a = world.spawn();
    /// let b = world.spawn();
    /// world.despawn(a);
    /// assert_eq!(world.entities().collect::<Vec<_>>(), [b]);
    /// ```
    fn entities(&self) -> entity::Iter<'_> {
        self.__entities().iter()
    }

    // ----- components -----

    /// Adds `component` to `entity`.
    ///
    /// # Panics
    ///
    /// If `entity` is not alive or already has a `C`; the message names the
    /// entity, the component and the world. [`try_add`](World::try_add)
    /// returns the component back instead, and [`insert`](World::insert)
    /// replaces.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// world.add(e, Pos(3));
    /// assert_eq!(world.get::<Pos>(e).unwrap().0, 3);
    /// ```
    #[track_caller]
    fn add<C>(&mut self, entity: Entity, component: C)
    where
        Self: Contains<C>,
    {
        if let Err(error) = self.try_add(entity, component) {
            panic!("{error}");
        }
    }

    /// Adds `component` to `entity`, or returns an error that says why not
    /// (the entity is dead, or already has a `C`) and holds the component.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// assert!(world.try_add(e, Pos(1)).is_ok());
    /// let error = world.try_add(e, Pos(2)).unwrap_err();
    /// assert_eq!(error.into_component(), Pos(2));
    /// assert_eq!(world.get::<Pos>(e), Some(&Pos(1)));
    /// ```
    fn try_add<C>(&mut self, entity: Entity, component: C) -> Result<(), AddError<C>>
    where
        Self: Contains<C>,
    {
        if !self.is_alive(entity) {
            return Err(AddError::new(
                AddErrorKind::DeadEntity,
                entity,
                Self::NAME,
                component,
            ));
        }
        let storage = self.sparse_map_mut();
        if storage.contains(entity) {
            return Err(AddError::new(
                AddErrorKind::AlreadyPresent,
                entity,
                Self::NAME,
                component,
            ));
        }
        storage.insert(entity, component);
        Ok(())
    }

    /// Adds `component` to `entity`, replacing and returning the one it
    /// already had.
    ///
    /// # Panics
    ///
    /// If `entity` is not alive. [`try_insert`](World::try_insert) returns
    /// the component back instead.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// assert_eq!(world.insert(e, Pos(1)), None);
    /// assert_eq!(world.insert(e, Pos(2)), Some(Pos(1)));
    /// ```
    #[track_caller]
    fn insert<C>(&mut self, entity: Entity, component: C) -> Option<C>
    where
        Self: Contains<C>,
    {
        match self.try_insert(entity, component) {
            Ok(old) => old,
            Err(error) => panic!("{error}"),
        }
    }

    /// Adds or replaces `component` on `entity`, returning the old value, or
    /// an error holding the component if `entity` is not alive.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// world.despawn(e);
    /// assert_eq!(world.try_insert(e, Pos(1)).unwrap_err().into_component(), Pos(1));
    /// ```
    fn try_insert<C>(&mut self, entity: Entity, component: C) -> Result<Option<C>, AddError<C>>
    where
        Self: Contains<C>,
    {
        if !self.is_alive(entity) {
            return Err(AddError::new(
                AddErrorKind::DeadEntity,
                entity,
                Self::NAME,
                component,
            ));
        }
        Ok(self.sparse_map_mut().insert(entity, component))
    }

    /// Removes `entity`'s `C` and returns it; `None` if it had none (or is
    /// not alive).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(1),));
    /// assert_eq!(world.remove::<Pos>(e), Some(Pos(1)));
    /// assert_eq!(world.remove::<Pos>(e), None);
    /// ```
    fn remove<C>(&mut self, entity: Entity) -> Option<C>
    where
        Self: Contains<C>,
    {
        self.sparse_map_mut().remove(entity)
    }

    /// `entity`'s `C`, if it has one.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(1),));
    /// assert_eq!(world.get::<Pos>(e), Some(&Pos(1)));
    /// ```
    #[inline]
    fn get<C>(&self, entity: Entity) -> Option<&C>
    where
        Self: Contains<C>,
    {
        self.sparse_map().get(entity)
    }

    /// `entity`'s `C`, mutably, if it has one.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(1),));
    /// world.get_mut::<Pos>(e).unwrap().0 = 5;
    /// assert_eq!(world.get::<Pos>(e), Some(&Pos(5)));
    /// ```
    #[inline]
    fn get_mut<C>(&mut self, entity: Entity) -> Option<&mut C>
    where
        Self: Contains<C>,
    {
        self.sparse_map_mut().get_mut(entity)
    }

    /// `true` if `entity` has a `C`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// assert!(!world.has::<Pos>(e));
    /// world.add(e, Pos(0));
    /// assert!(world.has::<Pos>(e));
    /// ```
    #[inline]
    fn has<C>(&self, entity: Entity) -> bool
    where
        Self: Contains<C>,
    {
        self.sparse_map().contains(entity)
    }

    /// Removes and drops every component of `entity`, keeping it alive.
    /// Changes queued for it stay queued. Returns `false` if `entity` is not
    /// alive.
    ///
    /// Every storage is updated before any component is dropped.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos, Vel>; }
    /// # struct Pos(i32);
    /// # struct Vel(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(0), Vel(1)));
    /// assert!(world.remove_all(e));
    /// assert!(world.is_alive(e));
    /// assert!(!world.has::<Pos>(e) && !world.has::<Vel>(e));
    /// ```
    fn remove_all(&mut self, entity: Entity) -> bool {
        if !self.is_alive(entity) {
            return false;
        }
        drop(self.__remove_all(entity));
        true
    }

    // ----- deferred changes and the sync point -----

    /// Queues `component` to be added to `entity` at the next
    /// [`finalize_updates`](World::finalize_updates).
    ///
    /// # Panics
    ///
    /// If the add is rejected; see [`try_add_deferred`](World::try_add_deferred)
    /// for when, and for the twin that hands the component back.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// world.add_deferred(e, Pos(1));
    /// assert!(!world.has::<Pos>(e));
    /// world.finalize_updates();
    /// assert!(world.has::<Pos>(e));
    /// ```
    #[track_caller]
    fn add_deferred<C>(&mut self, entity: Entity, component: C)
    where
        Self: Contains<C>,
    {
        if let Err(error) = self.try_add_deferred(entity, component) {
            panic!("{error}");
        }
    }

    /// Queues `component` to be added to `entity` at the next sync point, or
    /// returns an error holding it when:
    ///
    /// * `entity` is not alive ([`AddErrorKind::DeadEntity`]);
    /// * an add of `C` is already queued for `entity`
    ///   ([`AddErrorKind::AlreadyQueued`]);
    /// * `entity` has a `C` and no removal of it is queued
    ///   ([`AddErrorKind::AlreadyPresent`]). To replace a component at the
    ///   sync point, queue [`remove_deferred`](World::remove_deferred) first.
    ///
    /// Two cases can only be known at the sync point, and are settled so:
    /// if `entity` is despawned before it, the queued component is dropped
    /// with the entity; if `entity` gained a `C` through an immediate `add`
    /// in the meantime, the queued component replaces it.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::AddErrorKind;
    /// # world! { struct Game<Pos>; }
    /// # #[derive(Debug, PartialEq)] struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(1),));
    /// let error = world.try_add_deferred(e, Pos(2)).unwrap_err();
    /// assert_eq!(error.kind(), AddErrorKind::AlreadyPresent);
    ///
    /// world.remove_deferred::<Pos>(e);
    /// world.try_add_deferred(e, Pos(2)).unwrap();
    /// world.finalize_updates();
    /// assert_eq!(world.get::<Pos>(e), Some(&Pos(2)));
    /// ```
    fn try_add_deferred<C>(&mut self, entity: Entity, component: C) -> Result<(), AddError<C>>
    where
        Self: Contains<C>,
    {
        if !self.is_alive(entity) {
            return Err(AddError::new(
                AddErrorKind::DeadEntity,
                entity,
                Self::NAME,
                component,
            ));
        }
        self.sparse_map_mut()
            .queue_add(entity, component)
            .map_err(|(kind, component)| AddError::new(kind, entity, Self::NAME, component))
    }

    /// Queues the removal of `entity`'s `C` at the next sync point. Returns
    /// `false`, queueing nothing, if `entity` is not alive. If `entity` has
    /// no `C` by then, the removal does nothing; queueing it twice is
    /// harmless. The removed component is dropped at the sync point.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(1),));
    /// world.remove_deferred::<Pos>(e);
    /// assert!(world.has::<Pos>(e));
    /// world.finalize_updates();
    /// assert!(!world.has::<Pos>(e));
    /// ```
    fn remove_deferred<C>(&mut self, entity: Entity) -> bool
    where
        Self: Contains<C>,
    {
        if !self.is_alive(entity) {
            return false;
        }
        self.sparse_map_mut().queue_remove(entity);
        true
    }

    /// The sync point: applies every queued change, in this order:
    ///
    /// 1. removals (`remove_deferred`), for every storage;
    /// 2. additions (`add_deferred`), for every storage, in the order queued;
    /// 3. despawns (`despawn_deferred`).
    ///
    /// So a removal and an addition of the same component for one entity
    /// replace it, whichever was queued first, and an entity that is both
    /// given components and despawned ends up despawned. Afterwards the
    /// queues are empty. Queue changes while you iterate by index, then call
    /// this once the loop is done:
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Hp(i32);
    /// struct Dead;
    /// world! { struct Game<Hp, Dead>; }
    ///
    /// let mut world = Game::new();
    /// for hp in [5, 0, -3] {
    ///     world.spawn_with((Hp(hp),));
    /// }
    /// for i in 0..world.size::<Hp>() {
    ///     if world.value_at::<Hp>(i).0 <= 0 {
    ///         let e = world.entity_at::<Hp>(i);
    ///         world.add_deferred(e, Dead);
    ///         world.remove_deferred::<Hp>(e);
    ///     }
    /// }
    /// world.finalize_updates();
    /// assert_eq!((world.size::<Hp>(), world.size::<Dead>()), (1, 2));
    /// ```
    fn finalize_updates(&mut self) {
        self.__apply_removals();
        self.__apply_additions();
        for entity in self.__entities_mut().take_pending_despawns() {
            self.despawn(entity);
        }
    }

    // ----- index access -----

    /// Number of entities with a `C` (the dense length of its storage).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(1),));
    /// assert_eq!(world.size::<Pos>(), 1);
    /// ```
    #[inline]
    fn size<C>(&self) -> usize
    where
        Self: Contains<C>,
    {
        self.sparse_map().len()
    }

    /// The entity in dense slot `index` of `C`'s storage. Valid until the
    /// next change to that storage; see [`SparseMap`] for what is promised.
    ///
    /// # Panics
    ///
    /// If `index >= size::<C>()`. The twin is
    /// `world.storage::<C>().entities().get(index)`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(1),));
    /// assert_eq!(world.entity_at::<Pos>(0), e);
    /// ```
    #[track_caller]
    fn entity_at<C>(&self, index: usize) -> Entity
    where
        Self: Contains<C>,
    {
        match self.sparse_map().entities().get(index) {
            Some(&entity) => entity,
            None => index_out_of_range::<Self, C>(index, self.size::<C>()),
        }
    }

    /// The value in dense slot `index` of `C`'s storage.
    ///
    /// # Panics
    ///
    /// If `index >= size::<C>()`. The twin is
    /// `world.storage::<C>().values().get(index)`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(7),));
    /// assert_eq!(world.value_at::<Pos>(0).0, 7);
    /// ```
    #[track_caller]
    fn value_at<C>(&self, index: usize) -> &C
    where
        Self: Contains<C>,
    {
        match self.sparse_map().values().get(index) {
            Some(value) => value,
            None => index_out_of_range::<Self, C>(index, self.size::<C>()),
        }
    }

    /// The value in dense slot `index` of `C`'s storage, mutably.
    ///
    /// # Panics
    ///
    /// If `index >= size::<C>()`. The twin is
    /// `world.storage_mut::<C>().values_mut().get_mut(index)`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(7),));
    /// world.value_at_mut::<Pos>(0).0 = 8;
    /// assert_eq!(world.value_at::<Pos>(0).0, 8);
    /// ```
    #[track_caller]
    fn value_at_mut<C>(&mut self, index: usize) -> &mut C
    where
        Self: Contains<C>,
    {
        let size = self.size::<C>();
        match self.sparse_map_mut().values_mut().get_mut(index) {
            Some(value) => value,
            None => index_out_of_range::<Self, C>(index, size),
        }
    }

    /// The storage of `C`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(7),));
    /// let total: i32 = world.storage::<Pos>().values().iter().map(|p| p.0).sum();
    /// assert_eq!(total, 7);
    /// ```
    #[inline]
    fn storage<C>(&self) -> &SparseMap<C>
    where
        Self: Contains<C>,
    {
        self.sparse_map()
    }

    /// The storage of `C`, mutably.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(7),));
    /// world.storage_mut::<Pos>().values_mut()[0].0 = 1;
    /// assert_eq!(world.value_at::<Pos>(0).0, 1);
    /// ```
    #[inline]
    fn storage_mut<C>(&mut self) -> &mut SparseMap<C>
    where
        Self: Contains<C>,
    {
        self.sparse_map_mut()
    }

    // ----- queries -----

    /// Iterates over the entities that have every component in `Q`, a
    /// component reference or a tuple of up to 12 of them, yielding
    /// `(Entity, items)`. The smallest storage in the query drives the
    /// iteration; the others are looked up per entity.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Name(&'static str);
    /// struct Purr;
    /// world! { struct Cats<Name, Purr>; }
    ///
    /// let mut world = Cats::new();
    /// world.spawn_with((Name("Kitty"), Purr));
    /// world.spawn_with((Name("Grumpy"),));
    ///
    /// let purring: Vec<&str> = world
    ///     .query::<(&Name, &Purr)>()
    ///     .map(|(_entity, (name, _))| name.0)
    ///     .collect();
    /// assert_eq!(purring, ["Kitty"]);
    /// ```
    fn query<'w, Q: Query<'w, Self>>(&'w self) -> QueryIter<'w, Q::Fetch> {
        QueryIter::new(Q::fetch(self))
    }

    // ----- whole world -----

    /// Despawns every entity (every handle goes stale) and drops every
    /// component and queued change. Entity slots and storage pages are kept
    /// for reuse.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(1),));
    /// world.clear();
    /// assert_eq!(world.entity_count(), 0);
    /// assert!(!world.is_alive(e));
    /// assert_eq!(world.size::<Pos>(), 0);
    /// ```
    fn clear(&mut self) {
        let values = self.__take_all();
        self.__entities_mut().clear();
        drop(values);
    }

    /// The component types, as written in `world!`, in declaration order.
    /// For debugging and tools.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos, Vel>; }
    /// # struct Pos(i32);
    /// # struct Vel(i32);
    /// assert_eq!(Game::new().component_names(), ["Pos", "Vel"]);
    /// ```
    fn component_names(&self) -> &'static [&'static str] {
        Self::COMPONENT_NAMES
    }

    /// Checks every invariant: each storage's sparse/dense agreement, and
    /// that every stored entity is alive. Panics with a description of the
    /// first violation. For tests.
    #[doc(hidden)]
    fn assert_invariants(&self) {
        let entities = self.__entities();
        assert_eq!(
            entities.iter().count(),
            entities.len(),
            "{}: alive count is off",
            Self::NAME
        );
        self.__check_storages(&mut |component, stored| {
            for &entity in stored {
                assert!(
                    entities.is_alive(entity),
                    "{}: storage of `{component}` holds dead entity {entity}",
                    Self::NAME
                );
            }
        });
    }
}

#[cold]
#[track_caller]
fn index_out_of_range<W: World, C>(index: usize, size: usize) -> ! {
    panic!(
        "index {index} is out of range for the `{}` storage of `{}`, which holds {size} values; \
         loop over `0..world.size::<C>()`",
        type_name::<C>(),
        W::NAME,
    )
}

#[cfg(test)]
mod tests {
    use super::all_distinct;

    #[test]
    fn distinctness() {
        assert!(all_distinct(&[]));
        assert!(all_distinct(&[3]));
        assert!(all_distinct(&[0, 1, 2, 7]));
        assert!(!all_distinct(&[0, 1, 0]));
        assert!(!all_distinct(&[4, 4]));
    }
}
