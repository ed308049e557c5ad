//! The sealed plumbing `world!` implements: a world's fields, reached
//! generically.
//!
//! [`Storages`] gives the allocator, the split borrow a query takes its
//! storages from, the type of a command buffer's queues, and one visitor
//! over every storage and one over every owning group. Everything that must
//! touch every field (despawning, clearing, the sync point, applying
//! commands, checking invariants, bringing storages in step, group upkeep) is
//! a small visitor in this crate, written once: a new mechanism adds a
//! visitor, not a method to [`World`].
//!
//! The macro reaches these traits as `$crate::__private::…`; nothing in them
//! lets code outside this crate do more than it can with the world's public
//! fields.

use crate::deferred::Queue;
use crate::group::Group;
use crate::{Component, EntityAllocator, SparseMap, World};

/// What `world!` implements for every world: the plumbing behind the
/// [`World`] methods. Not public API: reachable only as
/// `typed_ecs::__private::Storages`, for the macro.
pub trait Storages: Sized {
    /// One `Option<&mut SparseMap<C>>` per component: the world split into
    /// disjoint borrows, from which a query takes its storages.
    type Parts<'a>
    where
        Self: 'a;

    /// One command queue per component: the storage of a
    /// [`Commands`](crate::Commands) buffer.
    type Queues: Default;

    /// The component fields' names, in declaration order.
    const FIELDS: &'static [&'static str];

    /// The storage index of every component that belongs to an owning group.
    const GROUPED: &'static [usize];

    /// The allocator: which entities are alive.
    fn allocator(&self) -> &EntityAllocator;

    /// The allocator, mutably.
    fn allocator_mut(&mut self) -> &mut EntityAllocator;

    /// The world split into one borrow per storage.
    fn parts(&mut self) -> Self::Parts<'_>;

    /// Calls `visitor.visit::<C>(self)` for every component `C`, in
    /// declaration order, then `visitor.done(self, outs)` with what the
    /// visits returned (see [`EachStorage`]).
    fn each<V: EachStorage<Self>>(&mut self, visitor: &mut V)
    where
        Self: World;

    /// Calls `visitor.visit::<C>(self)` for every component `C`, reading.
    fn each_ref<V: EachStorageRef<Self>>(&self, visitor: &mut V)
    where
        Self: World;

    /// Calls `visitor.visit::<G>(self)` for every owning group `G`, in
    /// declaration order.
    fn each_group<V: EachGroup<Self>>(&mut self, visitor: &mut V)
    where
        Self: World;

    /// Calls `visitor.visit::<G>(self)` for every owning group `G`, reading.
    fn each_group_ref<V: EachGroupRef<Self>>(&self, visitor: &mut V)
    where
        Self: World;
}

/// A visitor of every storage of a world, which may change them.
///
/// Each visit may return something (`Out<C>`: values detached from the
/// storage, say). The world hands everything the visits returned to
/// [`done`](EachStorage::done) at the end, in a nested tuple, so values
/// detached from every storage are dropped only once every storage is
/// consistent: a panicking `Drop` cannot leave a world half-updated.
pub trait EachStorage<W: World> {
    /// What one visit returns.
    type Out<C>;

    /// Visits `C`'s storage.
    fn visit<C: Component<W>>(&mut self, world: &mut W) -> Self::Out<C>;

    /// Runs after every visit, with what they returned; drops it unless
    /// overridden.
    fn done<Outs>(&mut self, world: &mut W, outs: Outs) {
        let _ = world;
        drop(outs);
    }
}

/// A visitor of every storage of a world, reading.
pub trait EachStorageRef<W: World> {
    /// Visits `C`'s storage.
    fn visit<C: Component<W>>(&mut self, world: &W);
}

/// A visitor of every owning group of a world, which may change them.
pub trait EachGroup<W: World> {
    /// Visits the group `G`.
    fn visit<G: Group<W>>(&mut self, world: &mut W);
}

/// A visitor of every owning group of a world, reading.
pub trait EachGroupRef<W: World> {
    /// Visits the group `G`.
    fn visit<G: Group<W>>(&mut self, world: &W);
}

/// What `world!` implements for every component, beside [`Component`]: where
/// the component's storage is in the world's split borrow and in a command
/// buffer's queues. Not public API.
pub trait Column<W: Storages>: Sized {
    /// Takes this component's storage out of the world's split borrow. Each
    /// storage is taken at most once per split: queries naming a component
    /// twice are rejected at compile time.
    fn take<'a>(parts: &mut W::Parts<'a>) -> &'a mut SparseMap<Self>
    where
        W: 'a;

    /// This component's queue in a command buffer.
    fn queue(queues: &mut W::Queues) -> &mut Queue<Self>;

    /// The world's allocator and this component's storage, borrowed together.
    fn split(world: &mut W) -> (&EntityAllocator, &mut SparseMap<Self>);
}

/// The world-side view of [`Column`]: what generic code bounded by
/// `W: Contains<C>` reaches (every [`Contains`](crate::Contains) is one).
/// Implemented for every world and each of its components.
pub trait ColumnOf<C>: Storages {
    /// See [`Column::take`].
    fn take<'a>(parts: &mut Self::Parts<'a>) -> &'a mut SparseMap<C>
    where
        Self: 'a;

    /// See [`Column::queue`].
    fn queue(queues: &mut Self::Queues) -> &mut Queue<C>;

    /// See [`Column::split`].
    fn split(&mut self) -> (&EntityAllocator, &mut SparseMap<C>);
}

impl<W: World, C: Component<W>> ColumnOf<C> for W {
    #[inline]
    fn take<'a>(parts: &mut W::Parts<'a>) -> &'a mut SparseMap<C>
    where
        W: 'a,
    {
        C::take(parts)
    }

    #[inline]
    fn queue(queues: &mut W::Queues) -> &mut Queue<C> {
        C::queue(queues)
    }

    #[inline]
    fn split(&mut self) -> (&EntityAllocator, &mut SparseMap<C>) {
        C::split(self)
    }
}

/// Takes one storage out of a world's split borrow (for the macro's
/// [`Column::take`]).
#[inline]
pub fn take_part<'a, T>(part: &mut Option<&'a mut SparseMap<T>>) -> &'a mut SparseMap<T> {
    part.take()
        .expect("typed_ecs: a query took one storage twice, which the compile-time check prevents")
}

/// A new allocator with room for `capacity` entities, for `W::new()` and
/// `W::with_capacity(n)`.
#[inline]
pub fn new_allocator(capacity: usize) -> EntityAllocator {
    let mut entities = EntityAllocator::new();
    entities.reserve(capacity);
    entities
}

/// An empty storage in step with `entities`, with room for `capacity`
/// values.
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

/// Packs a new world's groups (they start empty and trusted).
#[inline]
pub fn refresh_groups<W: World>(world: &mut W) {
    crate::group::refresh(world);
}
