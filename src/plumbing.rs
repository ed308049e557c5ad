//! The plumbing `world!` implements: a world's fields, reached
//! generically.
//!
//! The macro implements, per world: [`Storages`] (its name, the allocator,
//! the split borrows queries and systems take their storages from, the type
//! of a command buffer's queues, one visitor over every storage and one
//! over every owning group), `WriteParam` for `&mut W` and, per resource,
//! `ReadParam` and `WriteParam`; per component, [`Column`] (where the world
//! keeps it) and, for a tracked one, [`TrackedColumn`]; and `Default`,
//! `Extend` and the world's constructors and forwarding methods. The public
//! traits are views of these: [`Component`](crate::Component) and
//! [`Contains`](crate::Contains) of [`Column`], [`World`](crate::World) of
//! [`Storages`], each implemented for everything the plumbing covers.
//!
//! Everything that must touch every field (despawning, clearing, the sync
//! point, applying commands, checking invariants, bringing storages in step,
//! group upkeep) is a small visitor in the module of its mechanism, written
//! once: a new mechanism adds a visitor, not a method to `World`.
//!
//! **Sealed.** The macro reaches these traits as `$crate::__private::…`.
//! Every method the macro implements takes a [`Token`], which only this
//! crate can make, so a bound (`W: World`, `C: Component<W>`) lets other
//! code name these traits and read their constants (names and indices),
//! and nothing more. What this crate adds on top ([`ColumnAccess`],
//! `Packing`) is crate-private.

use crate::entity::SyncStamp;
use crate::queue::{Despawns, Queue};
use crate::seal::{Token, TOKEN};
use crate::sparse_map::track::{Track, Tracked};
use crate::{Entity, EntityAllocator, SparseMap};
use core::mem;

/// What `world!` implements for every world: the plumbing behind the
/// [`World`](crate::World) methods, which every `Storages` gets. Not public
/// API: named only as `typed_ecs::__private::Storages`, by the macro; its
/// methods take a [`Token`].
pub trait Storages: Sized + 'static + crate::relation::Related {
    /// The world's type name, as written in `world!`.
    const WORLD: &'static str;

    /// The component types, as written in `world!`, in declaration order.
    const COMPONENTS: &'static [&'static str];

    /// One `Option<&mut SparseMap<C>>` per component: the world split into
    /// disjoint borrows, from which a query takes its storages.
    type Parts<'a>
    where
        Self: 'a;

    /// One [`Queue`] per component and the queued despawns: the world's own
    /// deferred changes (its field of type [`Deferred`]), and a
    /// [`Commands`](crate::Commands) buffer's.
    type Queues: Default;

    /// The resource types, as written in `world!`, in declaration order.
    const RESOURCES: &'static [&'static str];

    /// The resources' field names, in the same order.
    const RESOURCE_FIELDS: &'static [&'static str];

    /// The world split for systems: one [`Slot`] per storage and resource,
    /// and the allocator, shared.
    type Borrows<'a>
    where
        Self: 'a;

    /// The component fields' names, in declaration order.
    const FIELDS: &'static [&'static str];

    /// The storage index of every component that belongs to an owning group.
    const GROUPED: &'static [usize];

    /// `true` if the world declares hooks (`hooks { … }`): a structural
    /// change ends by running what they must see ([`settle`](Storages::settle)).
    const HOOKED: bool;

    /// The storage index of every component with an `on_add` hook.
    const ON_ADD: &'static [usize];

    /// The storage index of every component with an `on_remove` hook.
    const ON_REMOVE: &'static [usize];

    /// Runs the hooks of what is pending (see `hooks.rs`), and, at a sync
    /// point (`sync`), the `on_change` hooks. Empty for a world without
    /// hooks.
    fn settle(&mut self, sync: bool, token: Token);

    /// The allocator: which entities are alive.
    fn allocator(&self, token: Token) -> &EntityAllocator;

    /// The allocator, mutably.
    fn allocator_mut(&mut self, token: Token) -> &mut EntityAllocator;

    /// The world split into one borrow per storage.
    fn parts(&mut self, token: Token) -> Self::Parts<'_>;

    /// The world split for systems.
    fn borrows(&mut self, token: Token) -> Self::Borrows<'_>;

    /// The world's own queued changes.
    fn queued(&mut self, token: Token) -> &mut Deferred<Self>;

    /// The world's own queued changes, reading.
    fn queued_ref(&self, token: Token) -> &Deferred<Self>;

    /// The allocator, and the world's own queued changes.
    fn queued_split(&mut self, token: Token) -> (&EntityAllocator, &mut Deferred<Self>);

    /// The queued despawns of `queues`.
    fn despawns(queues: &mut Self::Queues, token: Token) -> &mut Despawns;

    /// The queued despawns of `queues`, reading.
    fn despawns_ref(queues: &Self::Queues, token: Token) -> &Despawns;

    /// The allocator in a split for systems.
    fn borrowed_entities<'a>(borrows: &Self::Borrows<'a>, token: Token) -> &'a EntityAllocator
    where
        Self: 'a;

    /// Calls `visitor.visit::<C>(self)` for every component `C`, in
    /// declaration order, then `visitor.done(self, outs)` with what the
    /// visits returned (see [`EachStorage`]).
    fn each<V: EachStorage<Self>>(&mut self, visitor: &mut V, token: Token);

    /// Calls `visitor.visit::<C>(self)` for every component `C`, reading.
    fn each_ref<V: EachStorageRef<Self>>(&self, visitor: &mut V, token: Token);

    /// Calls `visitor.visit::<G>(self)` for every owning group `G`, in
    /// declaration order.
    fn each_group<V: EachGroup<Self>>(&mut self, visitor: &mut V, token: Token);

    /// Calls `visitor.visit::<G>(self)` for every owning group `G`, reading.
    fn each_group_ref<V: EachGroupRef<Self>>(&self, visitor: &mut V, token: Token);
}

/// A visitor of every storage of a world, which may change them.
///
/// Each visit may return something (`Out<C>`: values detached from the
/// storage, say). The world hands everything the visits returned to
/// [`done`](EachStorage::done) at the end, in one tuple, so values
/// detached from every storage are dropped only once every storage is
/// consistent: a panicking `Drop` cannot leave a world half-updated.
pub trait EachStorage<W: Storages> {
    /// What one visit returns.
    type Out<C>;

    /// Visits `C`'s storage.
    fn visit<C: Column<W>>(&mut self, world: &mut W) -> Self::Out<C>;

    /// Runs after every visit, before anything they returned is dropped:
    /// where the world is made consistent again.
    #[inline(always)]
    fn done(&mut self, world: &mut W) {
        let _ = world;
    }

    /// Runs for each storage, in declaration order, after
    /// [`done`](EachStorage::done), with what its visit returned: drops it
    /// unless overridden (a removal hands values to the hooks here).
    #[inline(always)]
    fn finish<C: Column<W>>(&mut self, world: &mut W, out: Self::Out<C>) {
        let _ = world;
        drop(out);
    }
}

/// A visitor of every storage of a world, reading.
pub trait EachStorageRef<W: Storages> {
    /// Visits `C`'s storage.
    fn visit<C: Column<W>>(&mut self, world: &W);
}

/// A visitor of every owning group of a world, which may change them.
pub trait EachGroup<W: Storages> {
    /// Visits the group `G`.
    fn visit<G: Packing<W>>(&mut self, world: &mut W);
}

/// A visitor of every owning group of a world, reading.
pub trait EachGroupRef<W: Storages> {
    /// Visits the group `G`.
    fn visit<G: Packing<W>>(&mut self, world: &W);
}

/// What `world!` implements for every component: where the world keeps it.
/// [`Component`](crate::Component) and [`Contains`](crate::Contains) are the
/// public views of it. Not public API.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component of `{W}`",
    label = "`{W}` has no storage for `{Self}`",
    note = "add `{Self}` to the component list in the `world!` declaration of `{W}`"
)]
pub trait Column<W: Storages>: Sized {
    /// The position of this component's field among the world's fields
    /// ([`Storages::FIELDS`]), which is its [`Component::INDEX`](crate::Component::INDEX).
    const FIELD: usize;

    /// Whether the world tracks this component's changes: [`Tracked`] if
    /// it is listed in `tracked (…);`, else [`Untracked`](crate::Untracked).
    type Track: Track;

    /// [`FIELD`](Column::FIELD) as a type (an `Id`), for the trait bounds
    /// that check, in `cargo check`, that a query or a bundle names this
    /// component once.
    type Id;

    /// The world's storage of this component.
    fn field(world: &W, token: Token) -> &SparseMap<Self, Self::Track>;

    /// The world's storage of this component, mutably.
    fn field_mut(world: &mut W, token: Token) -> &mut SparseMap<Self, Self::Track>;

    /// Takes this component's storage out of the world's split borrow. Each
    /// storage is taken at most once per split: queries naming a component
    /// twice are rejected at compile time.
    fn take<'a>(parts: &mut W::Parts<'a>, token: Token) -> &'a mut SparseMap<Self, Self::Track>
    where
        W: 'a;

    /// This component's slot in a split for systems.
    fn slot<'a, 'b>(
        borrows: &'b mut W::Borrows<'a>,
        token: Token,
    ) -> &'b mut Slot<'a, SparseMap<Self, Self::Track>>;

    /// This component's queue in a world's or a command buffer's queues.
    fn queue(queues: &mut W::Queues, token: Token) -> &mut Queue<Self>;

    /// This component's queue, reading.
    fn queue_ref(queues: &W::Queues, token: Token) -> &Queue<Self>;

    /// The world's allocator and this component's storage, borrowed together.
    fn split(world: &mut W, token: Token) -> (&EntityAllocator, &mut SparseMap<Self, Self::Track>);

    /// This component's `on_remove` hooks: [`HookSel`] of its line's
    /// position among the world's `on_remove` lines, or of `usize::MAX`
    /// (none).
    type OnRemove: RemoveHooks<W, Self>;

    /// The removed values waiting for this component's `on_remove` hooks.
    fn pending_removed(world: &mut W, token: Token) -> &mut alloc::vec::Vec<(Entity, Self)>;
}

/// The `on_remove` hooks of the component `C` of `W`, which run over a
/// batch of removed values right away: what `remove` (which hands the value
/// back to its caller) runs. Implemented by `world!` for each `on_remove`
/// line's [`HookSel`], and here, doing nothing, for components without one.
pub trait RemoveHooks<W: Storages, C> {
    /// `true` if there are hooks to run.
    const ANY: bool;

    /// Runs each hook of the line, in order, over `removed`.
    fn run(world: &mut W, removed: &[(Entity, C)], token: Token);
}

/// A hook line of a world, by its position among the lines of its kind
/// (`usize::MAX`: the component has none).
#[derive(Debug)]
pub struct HookSel<const LINE: usize>;

impl<W: Storages, C> RemoveHooks<W, C> for HookSel<{ usize::MAX }> {
    const ANY: bool = false;

    #[inline(always)]
    fn run(_: &mut W, _: &[(Entity, C)], _: Token) {}
}

/// What waits for a world's hooks, in the world's own queue (see
/// `hooks.rs`): the entities that gained each hooked component, and how
/// many callers hold the hooks back (a sync point or the hooks' own
/// commands being applied: they run them once, at the end).
#[derive(Default)]
pub struct Pending {
    /// By storage index: the entities that gained the component since its
    /// `on_add` hooks last ran (empty for a component without them).
    pub(crate) added: alloc::vec::Vec<alloc::vec::Vec<Entity>>,
    /// More than 0 while a caller holds the hooks back.
    pub(crate) hold: u32,
    /// `true` when something may wait for the hooks: set by whatever
    /// lists something for them, cleared by a settle that ran everything
    /// (so what a panic leaves keeps it set). A settle with it clear and
    /// no sync point to run `on_change` at does nothing.
    pub(crate) dirty: bool,
}

/// A world declared by `world!`, as a concrete type. Bounds the
/// [`Schedule`](crate::Schedule) methods that check the rules of systems
/// and stages as trait bounds: a world that is a type parameter does not
/// meet it, so generic code's calls go to the methods of
/// [`AddSystems`](crate::AddSystems), checked when the program is built.
/// Implemented by `world!` only; not public API.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a world declared by `world!`, so this schedule's systems are added through `AddSystems`",
    label = "the schedule's world is a type parameter, or not yet inferred",
    note = "in code generic over the world, name the schedule's type (`Schedule::<W>::new()`, or a `&mut Schedule<W>` parameter) and `use typed_ecs::prelude::*` (for `AddSystems`), or call `AddSystems::add_system(&mut schedule, …)`"
)]
pub trait Declared {}

/// The world-side view of [`Column`], behind every
/// [`Contains`](crate::Contains): the kind of `C`'s storage, which the
/// world's public signatures name. Implemented for every world and each of
/// its components.
#[diagnostic::on_unimplemented(
    message = "`{C}` is not a component of `{Self}`",
    label = "`{Self}` has no storage for `{C}`",
    note = "add `{C}` to the component list in the `world!` declaration of `{Self}`"
)]
pub trait ColumnOf<C>: Storages {
    /// See [`Column::Track`].
    type Track: Track;

    /// See [`Column::Id`].
    type Id;
}

impl<W: Storages, C: Column<W>> ColumnOf<C> for W {
    type Track = C::Track;
    type Id = C::Id;
}

/// What this crate does with a world's storage of `C`: the bound the
/// layers below the public [`Contains`](crate::Contains) write (it implies
/// this one). Crate-private: a bound `W: Contains<C>` reaches none of it.
#[diagnostic::on_unimplemented(
    message = "`{C}` is not a component of `{Self}`",
    label = "`{Self}` has no storage for `{C}`",
    note = "add `{C}` to the component list in the `world!` declaration of `{Self}`"
)]
pub(crate) trait ColumnAccess<C>: ColumnOf<C> {
    /// The position of `C`'s storage among the world's fields
    /// ([`Column::FIELD`]).
    const INDEX: usize;

    /// See [`Column::take`].
    fn take<'a>(parts: &mut Self::Parts<'a>) -> &'a mut SparseMap<C, Self::Track>
    where
        Self: 'a;

    /// See [`Column::queue`].
    fn queue(queues: &mut Self::Queues) -> &mut Queue<C>;

    /// See [`Column::queue_ref`].
    #[cfg(feature = "serde")]
    fn queue_ref(queues: &Self::Queues) -> &Queue<C>;

    /// See [`Column::split`].
    fn split(&mut self) -> (&EntityAllocator, &mut SparseMap<C, Self::Track>);

    /// The storage of `C` (see [`Column::field`]).
    fn sparse_map(&self) -> &SparseMap<C, Self::Track>;

    /// `C`'s slot in a split for systems (see [`Column::slot`]).
    fn slot<'a, 'b>(
        borrows: &'b mut Self::Borrows<'a>,
    ) -> &'b mut Slot<'a, SparseMap<C, Self::Track>>
    where
        Self: 'a;

    /// The storage of `C`, mutably (see [`Column::field_mut`]).
    fn sparse_map_mut(&mut self) -> &mut SparseMap<C, Self::Track>;

    /// `true` if `C` has `on_remove` hooks (see [`Column::OnRemove`]).
    const REMOVE_HOOKED: bool;

    /// Runs `C`'s `on_remove` hooks over `removed` right away.
    fn run_remove_hooks(&mut self, removed: &[(Entity, C)]);

    /// See [`Column::pending_removed`].
    fn pending_removed(&mut self) -> &mut alloc::vec::Vec<(Entity, C)>;
}

impl<W: Storages, C: Column<W>> ColumnAccess<C> for W {
    const INDEX: usize = C::FIELD;

    #[inline]
    fn take<'a>(parts: &mut W::Parts<'a>) -> &'a mut SparseMap<C, C::Track>
    where
        W: 'a,
    {
        C::take(parts, TOKEN)
    }

    #[inline]
    fn queue(queues: &mut W::Queues) -> &mut Queue<C> {
        C::queue(queues, TOKEN)
    }

    #[cfg(feature = "serde")]
    #[inline]
    fn queue_ref(queues: &W::Queues) -> &Queue<C> {
        C::queue_ref(queues, TOKEN)
    }

    #[inline]
    fn split(&mut self) -> (&EntityAllocator, &mut SparseMap<C, C::Track>) {
        C::split(self, TOKEN)
    }

    #[inline]
    fn sparse_map(&self) -> &SparseMap<C, C::Track> {
        C::field(self, TOKEN)
    }

    #[inline]
    fn slot<'a, 'b>(borrows: &'b mut W::Borrows<'a>) -> &'b mut Slot<'a, SparseMap<C, C::Track>>
    where
        W: 'a,
    {
        C::slot(borrows, TOKEN)
    }

    #[inline]
    fn sparse_map_mut(&mut self) -> &mut SparseMap<C, C::Track> {
        C::field_mut(self, TOKEN)
    }

    const REMOVE_HOOKED: bool = <C::OnRemove as RemoveHooks<W, C>>::ANY;

    #[inline]
    fn run_remove_hooks(&mut self, removed: &[(Entity, C)]) {
        <C::OnRemove as RemoveHooks<W, C>>::run(self, removed, TOKEN);
    }

    #[inline]
    fn pending_removed(&mut self) -> &mut alloc::vec::Vec<(Entity, C)> {
        C::pending_removed(self, TOKEN)
    }
}

/// The storage of `C` in the world `W` (tracked or not, as `W` says), for
/// the macro's field types.
pub type StorageIn<W, C> = SparseMap<C, <C as Column<W>>::Track>;

/// A component whose changes its world tracks (listed in `tracked (…);`):
/// what [`Changed`](crate::query::Changed), [`Added`](crate::query::Added),
/// [`World::removed`](crate::World::removed) and a system's
/// [`Seen`](crate::system::Seen) require. Implemented by `world!`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not tracked in `{W}`",
    label = "`{W}` keeps no change log for `{Self}`",
    note = "add `tracked ({Self});` to the `world!` declaration of `{W}` (after its struct line); only tracked components pay for change detection"
)]
pub trait TrackedColumn<W: Storages>: Column<W, Track = Tracked> {}

/// What one owning group does: implemented (in `group/upkeep.rs`) for the
/// tuples of 2 to 8 components a `group (…);` line names, and visited
/// through [`Storages::each_group`]. The methods that change the packing
/// take a [`Token`] only this crate can make.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a group of components of `{W}`",
    label = "not a group of `{W}`",
    note = "a group lists 2 to 8 distinct components of `{W}`, as in `group (Position, Velocity);`"
)]
pub(crate) trait Packing<W: Storages> {
    /// The storage index of each component, in the group's order.
    const INDICES: &'static [usize];

    /// The number of grouped entities, if the group is trusted: its
    /// storages are in step with the world and agree on one packing.
    fn len(world: &W) -> Option<usize>;

    /// Packs the group from scratch under a fresh stamp, after bringing its
    /// storages in step; returns its length.
    fn rebuild(world: &mut W, token: Token) -> usize;

    /// After `entity` gained a group component: if it now has them all,
    /// moves it into the group.
    fn enter(world: &mut W, entity: Entity, token: Token);

    /// Before `entity` loses a group component: moves it out of the group.
    fn leave(world: &mut W, entity: Entity, token: Token);

    /// After `count` entities with every group component were appended to
    /// each group storage: if the group held every entity of its storages
    /// before, it now holds the appended ones too. Returns `false`, changing
    /// nothing, otherwise.
    fn append(world: &mut W, count: usize, token: Token) -> bool;

    /// Writes the group's length into each of its storages' marks.
    fn set_len(world: &mut W, len: usize, token: Token);

    /// Checks the group's invariant, if it is trusted.
    #[cfg(any(feature = "testing", feature = "serde"))]
    fn check(world: &W) -> Result<(), alloc::string::String>;
}

/// One storage or resource in a world's split borrow: lent out mutably,
/// shared, or lent already.
#[derive(Debug)]
pub enum Slot<'a, T> {
    /// Not lent yet.
    Unique(&'a mut T),
    /// Lent to readers, who may share it.
    Shared(&'a T),
    /// Lent to a writer.
    Lent,
}

impl<'a, T> Slot<'a, T> {
    /// A shared borrow; the slot stays shared.
    #[inline]
    pub fn shared(&mut self) -> &'a T {
        match mem::replace(self, Slot::Lent) {
            Slot::Unique(unique) => {
                let shared: &'a T = unique;
                *self = Slot::Shared(shared);
                shared
            }
            Slot::Shared(shared) => {
                *self = Slot::Shared(shared);
                shared
            }
            Slot::Lent => lent_twice(),
        }
    }

    /// The mutable borrow; the slot is lent.
    #[inline]
    pub fn unique(&mut self) -> &'a mut T {
        match mem::replace(self, Slot::Lent) {
            Slot::Unique(unique) => unique,
            Slot::Shared(_) | Slot::Lent => lent_twice(),
        }
    }
}

/// A borrow the systems' compile-time checks prove never happens: the same
/// slot lent twice, or the split asked for by an exclusive system.
#[cold]
#[track_caller]
pub(crate) fn lent_twice() -> ! {
    panic!("typed_ecs: a system borrowed a storage twice, which the compile-time check prevents")
}

/// Takes one storage out of a world's split borrow (for the macro's
/// [`Column::take`]).
#[inline]
pub fn take_part<'a, T, K: Track>(
    part: &mut Option<&'a mut SparseMap<T, K>>,
) -> &'a mut SparseMap<T, K> {
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

/// A world's own queued changes (`add_deferred`, `remove_deferred`,
/// `despawn_deferred`): the field `world!` generates for them, of the same
/// queues as a [`Commands`](crate::Commands) buffer's, and the stamp of the
/// allocator they are in step with (as a storage's; see `in_step`).
/// Applied by [`World::finalize_updates`](crate::World::finalize_updates);
/// nothing outside the crate can reach inside it.
pub struct Deferred<W: Storages> {
    /// One queue per component, and the despawns.
    pub(crate) queues: W::Queues,
    /// In step with the allocator of this stamp: every entity queued is
    /// alive there.
    pub(crate) synced: SyncStamp,
    /// What waits for the world's hooks.
    pub(crate) pending: Pending,
}

impl<W: Storages> Default for Deferred<W> {
    /// Empty queues, in step with no allocator yet (the world brings them
    /// in step before it queues into them).
    #[inline]
    fn default() -> Self {
        Deferred {
            queues: W::Queues::default(),
            synced: SyncStamp::NONE,
            pending: Pending::default(),
        }
    }
}

impl<W: Storages> Clone for Deferred<W>
where
    W::Queues: Clone,
{
    fn clone(&self) -> Self {
        Deferred {
            queues: self.queues.clone(),
            synced: self.synced,
            // A clone runs no hooks for what waited in the original.
            pending: Pending::default(),
        }
    }
}

impl<W: Storages> core::fmt::Debug for Deferred<W>
where
    W::Queues: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.queues.fmt(f)
    }
}

// ----- bundles: what spawning needs of a tuple of components -----

pub use parts::BundleParts;

/// The plumbing of a bundle: what spawning needs of it. Sealed: only the
/// tuples below implement it, and its methods take a [`Token`] only this
/// crate can make, so no other code can push values past the world's checks.
pub(crate) mod parts {
    use super::Storages;
    use crate::indices::{all_distinct, DUPLICATE_IN_BUNDLE};
    use crate::seal::Token;
    use crate::Entity;

    /// The shape of a bundle: a tuple of up to 16 components of `W`. What
    /// the [`World`](crate::World) trait's spawning methods take, so that
    /// code generic over the world can spawn; unlike [`Bundle`](crate::Bundle)
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

/// What `world!` implements for a world and each relation `R` it declares:
/// the relation's two sides in the world's split borrow (a query's
/// relation terms read them). Not public API.
pub trait RelationAccess<R>: Storages + crate::relation::Relates<R> {
    /// The forward side, from the split borrow.
    fn links<'a>(
        parts: &Self::Parts<'a>,
        token: Token,
    ) -> &'a <Self as crate::relation::Relates<R>>::Forward
    where
        Self: 'a;

    /// The reverse side, from the split borrow.
    fn sources<'a>(parts: &Self::Parts<'a>, token: Token) -> &'a crate::Sources<R>
    where
        Self: 'a;
}
