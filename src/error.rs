//! Errors of the fallible twins (`try_add`, `try_insert`, `try_spawn`, …).
//!
//! Each error says what went wrong through `Display`, and gives back whatever
//! the caller handed in, so a failed call loses nothing.

use core::any::type_name;
use core::fmt;

use crate::entity::OutOfIndices;
use crate::Entity;

/// Why a component could not be added. See [`AddError`].
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::AddErrorKind;
///
/// world! { struct Game<Hp>; }
/// struct Hp(u32);
///
/// let mut world = Game::new();
/// let e = world.spawn();
/// world.add(e, Hp(1));
/// let error = world.try_add(e, Hp(2)).unwrap_err();
/// assert_eq!(error.kind(), AddErrorKind::AlreadyPresent);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddErrorKind {
    /// The entity is not alive: it was despawned, or the handle never came
    /// from this world.
    DeadEntity,
    /// The entity already has a component of this type. Use `insert` to
    /// replace it.
    AlreadyPresent,
    /// A deferred add of this component type is already queued for the entity.
    AlreadyQueued,
}

/// A component that could not be added, with the reason.
///
/// Returned by `try_add`, `try_insert` and `try_add_deferred`. The component
/// is inside: take it back with [`into_component`](AddError::into_component).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// world! { struct Game<Name>; }
/// #[derive(Debug, PartialEq)]
/// struct Name(&'static str);
///
/// let mut world = Game::new();
/// let e = world.spawn();
/// world.despawn(e);
/// let error = world.try_add(e, Name("Kitty")).unwrap_err();
/// assert!(error.to_string().contains("is not alive"));
/// assert_eq!(error.into_component(), Name("Kitty")); // nothing lost
/// ```
pub struct AddError<C> {
    kind: AddErrorKind,
    entity: Entity,
    world: &'static str,
    component: C,
}

impl<C> AddError<C> {
    pub(crate) fn new(
        kind: AddErrorKind,
        entity: Entity,
        world: &'static str,
        component: C,
    ) -> Self {
        AddError {
            kind,
            entity,
            world,
            component,
        }
    }

    /// Why the add failed.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::AddErrorKind;
    /// # world! { struct Game<Hp>; }
    /// # struct Hp(u32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// world.despawn(e);
    /// assert_eq!(world.try_add(e, Hp(1)).unwrap_err().kind(), AddErrorKind::DeadEntity);
    /// ```
    pub fn kind(&self) -> AddErrorKind {
        self.kind
    }

    /// The entity the component was meant for.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Hp>; }
    /// # struct Hp(u32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(1),));
    /// assert_eq!(world.try_add(e, Hp(2)).unwrap_err().entity(), e);
    /// ```
    pub fn entity(&self) -> Entity {
        self.entity
    }

    /// The component that was not added.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Hp>; }
    /// # struct Hp(u32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(1),));
    /// assert_eq!(world.try_add(e, Hp(2)).unwrap_err().component().0, 2);
    /// ```
    pub fn component(&self) -> &C {
        &self.component
    }

    /// Gives the component back.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Hp>; }
    /// # struct Hp(u32);
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(1),));
    /// let Hp(value) = world.try_add(e, Hp(2)).unwrap_err().into_component();
    /// assert_eq!(value, 2);
    /// ```
    pub fn into_component(self) -> C {
        self.component
    }
}

impl<C> fmt::Display for AddError<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (entity, world, component) = (self.entity, self.world, type_name::<C>());
        match self.kind {
            AddErrorKind::DeadEntity => write!(
                f,
                "cannot add `{component}` to entity {entity} in `{world}`: the entity is not alive \
                 (it was despawned, or the handle is from another world)"
            ),
            AddErrorKind::AlreadyPresent => write!(
                f,
                "cannot add `{component}` to entity {entity} in `{world}`: the entity already has one; \
                 use `insert` to replace it, or `remove` it first"
            ),
            AddErrorKind::AlreadyQueued => write!(
                f,
                "cannot queue `{component}` for entity {entity} in `{world}`: an add of that component \
                 is already queued for the entity; call `finalize_updates` first, or queue it once"
            ),
        }
    }
}

/// Does not require `C: Debug`, so every `AddError` can be unwrapped.
impl<C> fmt::Debug for AddError<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AddError")
            .field("kind", &self.kind)
            .field("entity", &self.entity)
            .field("world", &self.world)
            .field("component", &type_name::<C>())
            .finish_non_exhaustive()
    }
}

impl<C> core::error::Error for AddError<C> {}

/// The world has no entity index left to hand out.
///
/// A world has 2^31 indices, or fewer if it set a limit with
/// [`World::set_entity_limit`](crate::World::set_entity_limit). An index is
/// used up while its entity is alive, and for good once it has been
/// recycled `u32::MAX` times (its generation would wrap, so it is retired
/// instead). `B` is what the caller wanted to spawn with, handed back by
/// [`into_inner`](SpawnError::into_inner).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// world! { struct Game<Hp>; }
/// struct Hp(u32);
///
/// let mut world = Game::new();
/// // Almost any world has room; this is how a full one would be handled.
/// match world.try_spawn_with((Hp(3),)) {
///     Ok(entity) => assert!(world.is_alive(entity)),
///     Err(error) => {
///         let (Hp(hp),) = error.into_inner();
///         eprintln!("world full, dropped a spawn with {hp} hp");
///     }
/// }
/// ```
pub struct SpawnError<B = ()> {
    cause: OutOfIndices,
    bundle: B,
}

impl SpawnError {
    pub(crate) fn new(cause: OutOfIndices) -> Self {
        SpawnError { cause, bundle: () }
    }
}

impl<B> SpawnError<B> {
    pub(crate) fn with_bundle<B2>(self, bundle: B2) -> SpawnError<B2> {
        SpawnError {
            cause: self.cause,
            bundle,
        }
    }

    /// The same error, holding `f(bundle)`.
    pub(crate) fn map<B2>(self, f: impl FnOnce(B) -> B2) -> SpawnError<B2> {
        SpawnError {
            cause: self.cause,
            bundle: f(self.bundle),
        }
    }

    /// Gives back the components the entity was to be spawned with.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Hp>; }
    /// # struct Hp(u32);
    /// let mut world = Game::new();
    /// if let Err(error) = world.try_spawn_with((Hp(1),)) {
    ///     let _components: (Hp,) = error.into_inner();
    /// }
    /// ```
    pub fn into_inner(self) -> B {
        self.bundle
    }
}

impl<B> fmt::Display for SpawnError<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.cause, f)
    }
}

impl<B> fmt::Debug for SpawnError<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpawnError")
            .field("limit", &self.cause.limit)
            .field("retired", &self.cause.retired)
            .finish_non_exhaustive()
    }
}

impl<B> core::error::Error for SpawnError<B> {}
