//! The [`World`] trait: every world method, written once. The facade
//! only: each method checks what the user gave it and hands the work to
//! the mechanism that does it.
//!
//! `world!` implements `Storages` (the plumbing, in `plumbing.rs`: the
//! allocator, the split borrows and visitors over every storage and every
//! group) for the struct it declares, and every `Storages` is a [`World`]
//! (one blanket impl). Where the work is done:
//!
//! * `structural/`: every add, removal, spawn and despawn;
//! * `deferred/` and `commands.rs`: changes applied later;
//! * `in_step.rs`: storages moved between worlds;
//! * `query/`, `group/`, `change/`: queries, owning groups, change tracking;
//! * `invariants.rs`: the checks behind `assert_invariants` and loading.

use alloc::vec::Vec;
use core::any::type_name;
use core::iter::{Chain, Once};

use crate::commands::{ApplyReport, Commands};
use crate::deferred;
use crate::entity;
use crate::error::{AddError, AddErrorKind, SpawnError};
use crate::group::Group;
use crate::in_step;
use crate::indices::NEEDS_REQUIRED;
use crate::plumbing::BundleParts;
use crate::plumbing::TrackedColumn;
use crate::query::fetch::Access;
use crate::query::{Join, Query, QueryItem, QueryIter, QueryParts};
use crate::relation::{Denied, Forward, RelateError, Relates};
use crate::seal::TOKEN;
use crate::structural::{self, batch, despawn, OnPresent};
use crate::{Contains, Entity, SparseMap};

use crate::plumbing::{ColumnAccess, ColumnOf, Storages};

/// Everything a world can do. Every struct [`world!`](macro@crate::world) declares
/// is a `World` (one blanket impl over the plumbing the macro writes); bring
/// it into scope with `use typed_ecs::prelude::*`. So is every `W` with a
/// [`Contains<C>`] bound, which is the bound to write in generic code.
///
/// Methods that take a component type are generic over `C` with the bound
/// `Self: Contains<C>`, so naming a component the world does not declare is
/// a compile error, not a runtime one.
///
/// Panicking methods (`add`, `insert`, `add_deferred`, `spawn`, `entity_at`,
/// …) say which entity, component and world in the message, and each has a
/// twin that returns `Option` or `Result` and hands the value back.
///
/// # Invariants
///
/// Every method keeps these, whatever the user does with the public fields
/// in safe code, and a saved world is loaded only if they hold (so a world
/// always loads from its own save):
///
/// 1. The allocator's bookkeeping holds (see [`EntityAllocator`](crate::EntityAllocator)): alive and
///    retired counts, and a free list of dead indices.
/// 2. Every storage's own invariant holds (see [`SparseMap`]): at most one
///    value per entity index.
/// 3. A storage *in step* with the allocator (see [`SparseMap`], "Storages
///    moved between worlds") stores only alive entities. A storage not in
///    step may hold anything 2 allows: the world brings it in step before it
///    uses it, and saves only what it would keep.
/// 4. The world's own queue (`add_deferred`, `remove_deferred`,
///    `despawn_deferred`) holds, per component, at most one queued add and
///    one queued removal per entity, each list in the order queued. In step
///    with the allocator (as a storage is; the queue stays with the world
///    when storages or allocators move), it names only alive entities (a
///    despawn cancels what the entity had queued), and every queued despawn
///    names a handle the allocator handed out (the entity may have died
///    since: the despawn then does nothing). A queued add may name an entity
///    that has the component already (it gained one after the add was
///    queued; the queued value replaces it at the sync point).
/// 5. In an owning group whose storages are trusted (in step, and agreeing
///    on one packing), the first `len` slots of every group storage hold the
///    same entities in the same order, and no entity after them has every
///    group component.
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
pub trait World: Storages {
    /// The world's type name, as written in `world!`.
    const NAME: &'static str;

    /// The component types, as written in `world!`, in declaration order.
    const COMPONENT_NAMES: &'static [&'static str];

    // ----- entities -----

    /// Makes a new entity with no components.
    ///
    /// # Panics
    ///
    /// When the world is out of entity indices (see
    /// [`set_entity_limit`](World::set_entity_limit));
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
    #[inline]
    fn try_spawn(&mut self) -> Result<Entity, SpawnError> {
        structural::spawn(self).map_err(SpawnError::new)
    }

    /// Makes a new entity with the components in `bundle`, a tuple.
    ///
    /// Each component may appear once. On a world declared by `world!`,
    /// `world.spawn_with` (and the other spawning methods) finds the world's
    /// own method first, bound by [`Bundle`](crate::Bundle), so a component
    /// given twice is a type error at your line, in `cargo check` too. This
    /// trait method takes any [`BundleParts`], so that code generic over the
    /// world can call it, and checks that when the program is built.
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
    #[inline]
    fn spawn_with<B: BundleParts<Self>>(&mut self, bundle: B) -> Entity {
        let () = B::EACH_COMPONENT_ONCE;
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
    #[inline]
    fn try_spawn_with<B: BundleParts<Self>>(&mut self, bundle: B) -> Result<Entity, SpawnError<B>> {
        let () = B::EACH_COMPONENT_ONCE;
        structural::spawn_with(self, bundle)
            .map_err(|(error, bundle)| SpawnError::new(error).with_bundle(bundle))
    }

    /// Spawns one entity per bundle of `bundles` (tuples of the same
    /// components), and returns them in order. For many entities it is
    /// faster than [`spawn_with`](World::spawn_with) in a loop: it reserves
    /// room once (from the iterator's size hint), and once no freed index
    /// is left to reuse, it pushes the values and then indexes the new
    /// entities together. (hecs and bevy_ecs call it the same; theirs
    /// return a lazy iterator, this one spawns everything before it
    /// returns.) If you do not need the handles, `world.extend(bundles)`
    /// (the [`Extend`] impl every world has) does the same without making
    /// the `Vec`.
    ///
    /// If the iterator panics, the entities spawned before it stay spawned,
    /// with their components: the world is as consistent as after as many
    /// `spawn_with` calls.
    ///
    /// # Panics
    ///
    /// When the world runs out of entity indices;
    /// [`try_spawn_batch`](World::try_spawn_batch) hands back what was not
    /// spawned instead.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(i32);
    /// # struct Vel(i32);
    /// # world! { struct Game<Pos, Vel>; }
    /// let mut world = Game::new();
    /// let spawned = world.spawn_batch((0..100).map(|i| (Pos(i), Vel(1))));
    /// assert_eq!(spawned.len(), 100);
    /// assert_eq!(world.get::<Pos>(spawned[7]).unwrap().0, 7);
    /// ```
    #[track_caller]
    fn spawn_batch<B, I>(&mut self, bundles: I) -> Vec<Entity>
    where
        B: BundleParts<Self>,
        I: IntoIterator<Item = B>,
    {
        let () = B::EACH_COMPONENT_ONCE;
        match self.try_spawn_batch(bundles) {
            Ok(spawned) => spawned,
            Err(error) => panic!("{}: {error}", Self::NAME),
        }
    }

    /// Like [`spawn_batch`](World::spawn_batch), but when the world runs out
    /// of entity indices it returns an error holding the entities spawned so
    /// far and the bundles not spawned (the one that did not fit first).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(i32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// world.set_entity_limit(3);
    /// let error = world.try_spawn_batch((0..5).map(|i| (Pos(i),))).unwrap_err();
    /// let (spawned, rest) = error.into_inner();
    /// assert_eq!(spawned.len(), 3);
    /// assert_eq!(rest.map(|(pos,)| pos.0).collect::<Vec<_>>(), [3, 4]);
    /// ```
    #[allow(clippy::type_complexity)]
    fn try_spawn_batch<B, I>(
        &mut self,
        bundles: I,
    ) -> Result<Vec<Entity>, SpawnError<(Vec<Entity>, Chain<Once<B>, I::IntoIter>)>>
    where
        B: BundleParts<Self>,
        I: IntoIterator<Item = B>,
    {
        let () = B::EACH_COMPONENT_ONCE;
        let bundles = bundles.into_iter();
        let mut spawned = Vec::new();
        // A guess (see `batch::spawn`): capped, and never failing.
        let expected = bundles.size_hint().0;
        let _ = spawned.try_reserve(expected.min(self.allocator(TOKEN).spawnable()));
        match batch::spawn(self, bundles, &mut spawned) {
            Ok(()) => Ok(spawned),
            Err(error) => Err(error.map(|rest| (spawned, rest))),
        }
    }

    /// Spawns one entity per bundle of `bundles`, as
    /// [`spawn_batch`](World::spawn_batch) does, without keeping the
    /// handles: returns how many it spawned. When the world runs out of
    /// entity indices it returns an error holding how many it spawned and
    /// the bundles not spawned (the one that did not fit first).
    ///
    /// `world.extend(bundles)` (the [`Extend`] impl every world has) is the
    /// same, and panics when the world runs out of entity indices.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(i32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// world.extend((0..3).map(|i| (Pos(i),)));
    /// assert_eq!(world.try_extend((3..5).map(|i| (Pos(i),))).ok(), Some(2));
    ///
    /// world.set_entity_limit(6);
    /// let error = world.try_extend((5..9).map(|i| (Pos(i),))).unwrap_err();
    /// let (spawned, rest) = error.into_inner();
    /// assert_eq!(spawned, 1);
    /// assert_eq!(rest.map(|(pos,)| pos.0).collect::<Vec<_>>(), [6, 7, 8]);
    /// assert_eq!(world.entity_count(), 6);
    /// ```
    #[allow(clippy::type_complexity)]
    fn try_extend<B, I>(
        &mut self,
        bundles: I,
    ) -> Result<usize, SpawnError<(usize, Chain<Once<B>, I::IntoIter>)>>
    where
        B: BundleParts<Self>,
        I: IntoIterator<Item = B>,
    {
        let () = B::EACH_COMPONENT_ONCE;
        let mut spawned = 0;
        match batch::spawn(self, bundles.into_iter(), &mut spawned) {
            Ok(()) => Ok(spawned),
            Err(error) => Err(error.map(|rest| (spawned, rest))),
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
    ///
    /// In a world with relations (`relations { … }` in `world!`), the
    /// entities its relations' `despawn` policies take go too, and every
    /// link of each is undone.
    ///
    /// # Panics
    ///
    /// When a `deny` relation refuses the despawn (`entity`, or one it
    /// would take, is the target of a `deny` relation from a source it
    /// would not take), changing nothing; [`try_despawn`](World::try_despawn)
    /// returns the refusal instead.
    #[track_caller]
    #[inline]
    fn despawn(&mut self, entity: Entity) -> bool {
        match despawn::despawn(self, entity) {
            Ok(despawned) => despawned,
            Err(denied) => panic!("{}: cannot despawn {entity:?}: {denied}", Self::WORLD),
        }
    }

    /// [`despawn`](World::despawn), or the refusal of a `deny` relation
    /// (changing nothing) where `despawn` panics.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// assert_eq!(world.try_despawn(e), Ok(true));
    /// assert_eq!(world.try_despawn(e), Ok(false));
    /// ```
    #[inline]
    fn try_despawn(&mut self, entity: Entity) -> Result<bool, Denied> {
        despawn::despawn(self, entity)
    }

    /// Relates `source` to `target` by the relation `R` (declared in
    /// `world!`: `relations { child_of: ChildOf -> children; }`), with
    /// `payload` on the link: `source`'s target in `R` becomes `target`
    /// (a previous link of `source` goes, its payload returned), and
    /// `source` joins `target`'s sources. O(1), and O(depth) more in a
    /// `tree` relation (the cycle check).
    ///
    /// # Errors
    ///
    /// [`RelateError`] (with the payload back): a source or a target not
    /// alive, one entity as both, or, in a `tree` relation, a link that
    /// would close a cycle. Nothing changes.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct ChildOf;
    /// struct Tag;
    /// world! { struct Scene<Tag>; relations { child_of: ChildOf -> children [tree]; } }
    ///
    /// let mut scene = Scene::new();
    /// let (root, arm, hand) = (scene.spawn(), scene.spawn(), scene.spawn());
    /// scene.relate(arm, ChildOf, root).unwrap();
    /// scene.relate(hand, ChildOf, arm).unwrap();
    /// assert!(scene.relate(root, ChildOf, hand).is_err()); // a cycle
    /// assert_eq!(scene.children.of(arm), [hand]);
    /// ```
    fn relate<R>(
        &mut self,
        source: Entity,
        payload: R,
        target: Entity,
    ) -> Result<Option<R>, RelateError<R>>
    where
        Self: Relates<R>,
    {
        let tree = <Self as Relates<R>>::TREE;
        self.sides().relate(source, payload, target, tree)
    }

    /// Undoes `source`'s link in the relation `R`, if any: O(1). Returns
    /// its payload (an `Option<R>`); in a `many` relation, every link of
    /// `source` goes, and it returns them, `(target, payload)` in the order
    /// of [`ManyLinks::targets`](crate::ManyLinks::targets) (a `Vec`). To undo one link of a `many` relation, use
    /// [`unrelate_from`](World::unrelate_from).
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// #[derive(Debug, PartialEq)]
    /// struct ChildOf;
    /// struct Tag;
    /// world! { struct Scene<Tag>; relations { child_of: ChildOf -> children; } }
    ///
    /// let mut scene = Scene::new();
    /// let (ship, gun) = (scene.spawn(), scene.spawn());
    /// scene.relate(gun, ChildOf, ship).unwrap();
    /// assert_eq!(scene.unrelate::<ChildOf>(gun), Some(ChildOf));
    /// assert!(scene.children.of(ship).is_empty());
    /// assert_eq!(scene.unrelate::<ChildOf>(gun), None);
    /// ```
    fn unrelate<R>(
        &mut self,
        source: Entity,
    ) -> <<Self as Relates<R>>::Forward as Forward<R>>::Taken
    where
        Self: Relates<R>,
    {
        self.sides().unrelate(source)
    }

    /// Undoes the link from `source` to `target` in the relation `R`, if
    /// there is one, and returns its payload: in a `many` relation, one of
    /// the source's links; otherwise its link, if it goes to `target`.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// #[derive(Debug, PartialEq)]
    /// struct Likes(u8);
    /// struct Tag;
    /// world! { struct Town<Tag>; relations { likes: Likes -> liked_by [many]; } }
    ///
    /// let mut town = Town::new();
    /// let (a, b, c) = (town.spawn(), town.spawn(), town.spawn());
    /// town.relate(a, Likes(1), b).unwrap();
    /// town.relate(a, Likes(2), c).unwrap();
    /// assert_eq!(town.unrelate_from::<Likes>(a, b), Some(Likes(1)));
    /// assert_eq!(town.likes.targets(a).collect::<Vec<_>>(), [c]);
    /// ```
    fn unrelate_from<R>(&mut self, source: Entity, target: Entity) -> Option<R>
    where
        Self: Relates<R>,
    {
        self.sides().unrelate_from(source, target)
    }

    /// Despawns every entity of `entities` that is alive, in order, as
    /// [`despawn`](World::despawn) does each, and returns how many it
    /// despawned. A handle that is not alive (stale, never issued, or
    /// named earlier in the batch) is skipped, as `despawn` skips it.
    ///
    /// Unlike `despawn` in a loop, it brings the storages' bookkeeping up
    /// to date once for the whole batch instead of once per entity, and
    /// allocates nothing. Each entity is detached from every storage
    /// before its components are dropped, so if a component's `Drop` (or
    /// the iterator) panics, the world is as after a loop of `despawn`
    /// stopped there: the entities before are despawned, the rest are not.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(i32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let wave = world.spawn_batch((0..10).map(|i| (Pos(i),)));
    /// let stale = wave[0];
    /// world.despawn(stale);
    /// // A stale handle and a repeated one are skipped.
    /// let despawned = world.despawn_batch([stale, wave[1], wave[2], wave[1]]);
    /// assert_eq!(despawned, 2);
    /// assert_eq!(world.despawn_batch(wave), 7);
    /// assert_eq!((world.entity_count(), world.size::<Pos>()), (0, 0));
    /// ```
    fn despawn_batch<I>(&mut self, entities: I) -> usize
    where
        I: IntoIterator<Item = Entity>,
    {
        despawn::despawn_batch(self, entities)
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
        if !self.is_alive(entity) {
            return false;
        }
        deferred::queue_despawn(self, entity);
        true
    }

    /// Caps the entity indices the world may use at `limit` (at most 2^31,
    /// the default): at most `limit` entities are alive at once, and a spawn
    /// past that is an error ([`try_spawn`](World::try_spawn) and the other
    /// `try_` twins) or a panic that says so. Indices already in use stay
    /// valid if the limit is lowered below them. The limit is saved with the
    /// world (feature `serde`).
    ///
    /// A game that must never grow past a budget sets one; tests use it to
    /// reach "world full" without making 2^31 entities.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// world.set_entity_limit(2);
    /// let a = world.spawn();
    /// world.spawn();
    /// assert!(world.try_spawn().is_err());
    /// world.despawn(a); // an index is free again
    /// assert!(world.try_spawn().is_ok());
    /// assert_eq!(world.entity_limit(), 2);
    /// ```
    fn set_entity_limit(&mut self, limit: u32) {
        self.allocator_mut(TOKEN).set_limit(limit);
    }

    /// The most entity indices the world may use: 2^31 unless lowered with
    /// [`set_entity_limit`](World::set_entity_limit).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// assert_eq!(Game::new().entity_limit(), 1 << 31);
    /// ```
    #[inline]
    fn entity_limit(&self) -> u32 {
        self.allocator(TOKEN).limit()
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
        self.allocator(TOKEN).is_alive(entity)
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
        self.allocator(TOKEN).len()
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
    fn entities(&self) -> entity::EntityIter<'_> {
        self.allocator(TOKEN).iter()
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
        let component = alive_or_give_back(self, entity, component)?;
        match structural::add(self, entity, component, OnPresent::Reject) {
            Ok(_) => Ok(()),
            Err(component) => Err(AddError::new(
                AddErrorKind::AlreadyPresent,
                entity,
                Self::NAME,
                component,
            )),
        }
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
        let component = alive_or_give_back(self, entity, component)?;
        match structural::add(self, entity, component, OnPresent::Replace) {
            Ok(old) => Ok(old),
            Err(_) => unreachable!("a replacing add hands nothing back"),
        }
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
        structural::remove(self, entity)
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
        self.sparse_map()
            .get_in(entity, in_step::alive::<Self, C>(self))
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
        let (entities, storage) = ColumnAccess::<C>::split(self);
        let alive = in_step::alive_in(storage, entities);
        storage.get_mut_in(entity, alive)
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
        self.get::<C>(entity).is_some()
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
        despawn::remove_all(self, entity)
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
        let component = alive_or_give_back(self, entity, component)?;
        deferred::queue_add(self, entity, component)
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
        deferred::queue_remove::<Self, C>(self, entity);
        true
    }

    /// The sync point: applies every queued change, in this order:
    ///
    /// 1. removals (`remove_deferred`), for every storage;
    /// 2. additions (`add_deferred`), for every storage;
    /// 3. despawns (`despawn_deferred`).
    ///
    /// So a removal and an addition of the same component for one entity
    /// replace it, whichever was queued first, and an entity that is both
    /// given components and despawned ends up despawned. Afterwards the
    /// queues are empty. Where the added values land in each storage's dense
    /// order is unspecified, as with every change.
    ///
    /// Each change leaves its queue before anything is dropped, and a value
    /// is dropped (the one removed, replaced or despawned) only once every
    /// storage is consistent again. So if a component's `Drop` panics, the
    /// panic reaches the caller with the world consistent: the change whose
    /// value was being dropped is applied, and every change not applied yet
    /// is still queued, values included. The next `finalize_updates` applies
    /// them, in the phase order above (within one storage's removals or
    /// additions, in an order then unspecified; despawns in the order
    /// queued). Nothing is lost or dropped twice.
    ///
    /// Queue changes while you iterate by index, then call this once the loop
    /// is done:
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
        deferred::finalize(self);
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
        in_step::live_len::<Self, C>(self)
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
        match in_step::dense_slot::<Self, C>(self, index) {
            Some(slot) => self.sparse_map().entities()[slot],
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
        match in_step::dense_slot::<Self, C>(self, index) {
            Some(slot) => &self.sparse_map().values()[slot],
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
        match in_step::dense_slot::<Self, C>(self, index) {
            Some(slot) => self.sparse_map_mut().value_mut_at(slot),
            None => index_out_of_range::<Self, C>(index, self.size::<C>()),
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
    fn storage<C>(&self) -> &SparseMap<C, <Self as ColumnOf<C>>::Track>
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
    fn storage_mut<C>(&mut self) -> &mut SparseMap<C, <Self as ColumnOf<C>>::Track>
    where
        Self: Contains<C>,
    {
        in_step::sync::<Self, C>(self);
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
    ///
    /// `Option<&C>`, [`With<C>`](crate::query::With) and
    /// [`Without<C>`](crate::query::Without) work here too; a query needs at
    /// least one `&C` or `With<C>` (checked when the program is built).
    ///
    /// # Changing the world inside the loop
    ///
    /// The query borrows the world until the loop ends, so changing the
    /// world inside it is a borrow error:
    ///
    /// ```compile_fail,E0502
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; }
    /// # let mut world = Game::new();
    /// for (entity, hp) in world.query::<&Hp>() {
    ///     if hp.0 <= 0 {
    ///         world.despawn(entity); // error[E0502]: cannot borrow `world` as mutable
    ///     }
    /// }
    /// ```
    ///
    /// Queue the change in a [`Commands`] buffer and apply it after the loop
    /// (or loop over indices and use
    /// [`despawn_deferred`](World::despawn_deferred); the guide's "Queries"
    /// section shows the three patterns):
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; }
    /// # let mut world = Game::new();
    /// # world.spawn_with((Hp(0),));
    /// let mut commands = Commands::new();
    /// for (entity, hp) in world.query::<&Hp>() {
    ///     if hp.0 <= 0 {
    ///         commands.despawn(entity);
    ///     }
    /// }
    /// assert!(world.apply(&mut commands).is_clean());
    /// assert_eq!(world.entity_count(), 0);
    /// ```
    fn query<'w, Q: Query<'w, Self>>(&'w self) -> QueryIter<'w, Q::Fetch> {
        const { assert!(Q::REQUIRED, "{}", NEEDS_REQUIRED) };
        QueryIter::in_world(
            Q::fetch(self),
            in_step::alive_when(self, Q::in_step(self, TOKEN)),
        )
    }

    /// A query that may write: `Q` is one of `&C`, `&mut C`, `Option<&C>`,
    /// `Option<&mut C>`, `With<C>`, `Without<C>`, or a tuple of up to 8 of
    /// them, each component at most once. Run it with a `for` loop or
    /// [`for_each`](Join::for_each): both take every shape, two `&mut`
    /// included, and both are driven by the smallest required storage,
    /// whatever the order of the terms. `for_each` is the fastest; in a
    /// `for` loop, a written storage that does not drive the walk (outside
    /// one owning group) first makes a table of one pointer per value (see
    /// [`Join`]).
    ///
    /// Naming one component twice (`(&mut A, &A)`) is a compile error, as is
    /// a query with no required component. On a world declared by `world!`,
    /// `world.query_mut` finds the world's own method first, whose bound
    /// [`QueryMut`](crate::QueryMut) makes the first a type error at your
    /// line, in `cargo check` too ("`A` is named twice in one query or bundle
    /// of `Game`"). This trait method takes any [`QueryParts`], so that code
    /// generic over the world can call it; it checks when the program is
    /// built (`cargo build`, `cargo test`), as it does for the second
    /// mistake and for an [`Or`](crate::query::Or) naming a component again.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Pos(f32);
    /// struct Vel(f32);
    /// struct Frozen;
    /// world! { struct Game<Pos, Vel, Frozen>; }
    ///
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(0.0), Vel(1.0)));
    /// world.spawn_with((Pos(0.0), Vel(1.0), Frozen));
    ///
    /// for (_, (pos, vel, ())) in world.query_mut::<(&mut Pos, &Vel, Without<Frozen>)>() {
    ///     pos.0 += vel.0;
    /// }
    /// world
    ///     .query_mut::<(&Vel, &mut Pos)>()
    ///     .for_each(|_, (vel, pos)| pos.0 += vel.0);
    /// assert_eq!(world.pos.get(e).unwrap().0, 2.0);
    /// ```
    ///
    /// # Reading other entities inside the loop
    ///
    /// The query borrows the whole world mutably until the loop ends, so
    /// reading another entity through the world inside it is a borrow error:
    ///
    /// ```compile_fail,E0502
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # struct Target(Entity);
    /// # world! { struct Game<Pos, Target>; }
    /// # let mut world = Game::new();
    /// for (_, (pos, target)) in world.query_mut::<(&mut Pos, &Target)>() {
    ///     let there = world.get::<Pos>(target.0); // error[E0502]: cannot borrow `world` as immutable
    /// }
    /// ```
    ///
    /// [`join`](crate::join) the fields the loop walks, and read the others
    /// as fields, which the join does not hold. Here the loop writes
    /// `Velocity` and reads the target's `Pos` (to write one storage while
    /// reading other entities' values in it, see
    /// [`SparseMap::get_many_mut`]; for structural changes, [`Commands`]):
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # struct Vel(f32);
    /// # struct Target(Entity);
    /// # world! { struct Game<Pos, Vel, Target>; }
    /// let mut world = Game::new();
    /// let prey = world.spawn_with((Pos(5.0),));
    /// let hunter = world.spawn_with((Pos(0.0), Vel(0.0), Target(prey)));
    ///
    /// let positions = &world.pos;
    /// for (me, (vel, target)) in join((&mut world.vel, &world.target)) {
    ///     if let (Some(here), Some(there)) = (positions.get(me), positions.get(target.0)) {
    ///         vel.0 = there.0 - here.0;
    ///     }
    /// }
    /// assert_eq!(world.vel.get(hunter).unwrap().0, 5.0);
    /// ```
    fn query_mut<'w, Q: QueryParts<'w, Self>>(&'w mut self) -> Join<'w, Q::Fetch> {
        let () = Q::EACH_COMPONENT_ONCE;
        let () = Q::ONE_REQUIRED;
        Q::sync(self);
        crate::group::refresh(self);
        let mut parts = self.parts(TOKEN);
        Join::new(Q::fetch(&mut parts))
    }

    /// Several components of one entity at once, some mutably: `Q` is a
    /// mutable query (see [`query_mut`](World::query_mut)). `None` if
    /// `entity` does not match (is dead, or lacks a required component).
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Hp(i32);
    /// struct Regen(i32);
    /// world! { struct Game<Hp, Regen>; }
    ///
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Hp(5), Regen(2)));
    /// if let Some((hp, regen)) = world.get_many::<(&mut Hp, &Regen)>(e) {
    ///     hp.0 += regen.0;
    /// }
    /// assert_eq!(world.hp.get(e).unwrap().0, 7);
    /// ```
    #[inline]
    fn get_many<'w, Q: QueryParts<'w, Self>>(
        &'w mut self,
        entity: Entity,
    ) -> Option<QueryItem<'w, Self, Q>> {
        let () = Q::EACH_COMPONENT_ONCE;
        let () = Q::ONE_REQUIRED;
        // A storage out of step may hold values of dead entities: only read.
        if !Q::in_step(self) && !self.is_alive(entity) {
            return None;
        }
        let mut parts = self.parts(TOKEN);
        Q::fetch(&mut parts).get_owned(entity)
    }

    /// Applies a [`Commands`] buffer, in the same order as
    /// [`finalize_updates`](World::finalize_updates): spawns first (so
    /// reserved handles get real ones), then removals, additions, the
    /// relates and unrelates of [`Commands::relate`] and
    /// [`Commands::unrelate`] (relations in declaration order), and
    /// despawns. The buffer is left empty and reusable.
    ///
    /// Nothing is dropped silently: a command that cannot be applied (its
    /// entity is dead, or already has the component it adds) is listed in
    /// the returned [`ApplyReport`], and the component it carried is dropped.
    ///
    /// Within each phase, storages are processed in the order the `world!`
    /// declaration lists them, and each storage's commands in the order they
    /// were queued, so the same buffer always gives the same result and report.
    ///
    /// # If a component's `Drop` panics
    ///
    /// Each command leaves the buffer (and [`Commands::len`]) as it is
    /// applied, and its effect on the world is complete before anything is
    /// dropped: the value it removes, replaces, despawns, or carried when it
    /// was rejected (reported first). So a panicking `Drop` reaches the
    /// caller with the world consistent and every command not applied yet
    /// still in the buffer, in order. Apply the buffer to the same world
    /// again to apply them:
    /// reserved handles resolve to the entities the stopped apply made for
    /// them (spawns it did not reach are made then), and the returned
    /// report covers both applies, spawns and rejections of the stopped one
    /// included. Until an apply completes, the buffer's reserved handles
    /// keep working in it. Nothing is lost or dropped twice; clearing or
    /// dropping the buffer drops what is left.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Hp(i32);
    /// struct Dead;
    /// world! { struct Game<Hp, Dead>; }
    ///
    /// let mut world = Game::new();
    /// world.spawn_with((Hp(0),));
    /// world.spawn_with((Hp(3),));
    ///
    /// let mut commands = Commands::new();
    /// for (entity, hp) in world.query::<&Hp>() {
    ///     if hp.0 <= 0 {
    ///         commands.add(entity, Dead);
    ///         commands.remove::<Hp>(entity);
    ///     }
    /// }
    /// let report = world.apply(&mut commands);
    /// assert!(report.is_clean());
    /// assert_eq!((world.size::<Hp>(), world.size::<Dead>()), (1, 1));
    /// ```
    fn apply(&mut self, commands: &mut Commands<Self>) -> ApplyReport {
        crate::commands::apply(self, commands)
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
        despawn::clear(self);
    }

    /// Marks every change so far as seen by the world's own view: from
    /// now on, the [`Changed`](crate::query::Changed) and
    /// [`Added`](crate::query::Added) terms of [`query`](World::query),
    /// [`query_mut`](World::query_mut) and `join(Changed(&world.c))`, and
    /// [`removed`](World::removed), report only what happens after this
    /// call. Call it right after a loop has read the changes (a change
    /// made between the read and this call is never reported to the
    /// world's view). [`Schedule::run`](crate::Schedule::run) calls it as
    /// it starts, so with a schedule the world's view covers one run and
    /// what happened since; systems keep their own views
    /// ([`Seen`](crate::system::Seen)). O(number of tracked components).
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    /// use typed_ecs::Changed;
    ///
    /// struct Pos(i32);
    /// world! { struct Game<Pos>; tracked (Pos); }
    ///
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(0),));
    /// assert_eq!(world.query::<Changed<&Pos>>().count(), 1); // the spawn
    /// world.clear_changes();
    /// assert_eq!(world.query::<Changed<&Pos>>().count(), 0);
    /// world.get_mut::<Pos>(e).unwrap().0 = 1;
    /// assert_eq!(world.query::<Changed<&Pos>>().count(), 1);
    /// ```
    fn clear_changes(&mut self) {
        crate::change::world::clear(self);
    }

    /// The entities that lost their tracked `C` since the last
    /// [`clear_changes`](World::clear_changes), oldest first: by `remove`,
    /// `despawn`, `clear`, a deferred removal or a command. An entity that
    /// lost `C` twice is listed twice. The values themselves are not kept:
    /// `remove` hands them back, and a despawn drops them at once (keeping
    /// them would delay every drop until the log is trimmed).
    ///
    /// `C` must be listed in the world's `tracked (…);` line.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Pos(i32);
    /// world! { struct Game<Pos>; tracked (Pos); }
    ///
    /// let mut world = Game::new();
    /// let a = world.spawn_with((Pos(0),));
    /// let b = world.spawn_with((Pos(1),));
    /// world.clear_changes();
    /// world.despawn(b);
    /// world.remove::<Pos>(a);
    /// assert_eq!(world.removed::<Pos>(), [b, a]);
    /// world.clear_changes();
    /// assert!(world.removed::<Pos>().is_empty());
    /// ```
    fn removed<C>(&self) -> &[Entity]
    where
        Self: Contains<C>,
        C: TrackedColumn<Self> + 'static,
    {
        let log = C::field(self, TOKEN).log();
        log.removed_in(log.world_view())
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

    /// The number of entities in the owning group `G` (its components, as
    /// declared with `group (…);` in [`world!`](macro@crate::world)), or `None`
    /// while the group waits to be rebuilt: after the world was cloned, or a
    /// grouped entity was removed straight from a storage. The next change
    /// through the world, or the next [`query_mut`](World::query_mut),
    /// rebuilds it. See [`Group`](crate::Group).
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Pos(f32);
    /// struct Vel(f32);
    /// world! {
    ///     struct Game<Pos, Vel>;
    ///     group (Pos, Vel);
    /// }
    ///
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(0.0), Vel(1.0)));
    /// assert_eq!(world.group_len::<(Pos, Vel)>(), Some(1));
    ///
    /// world.pos.remove(e); // behind the world's back
    /// assert_eq!(world.group_len::<(Pos, Vel)>(), None);
    /// world.spawn_with((Pos(1.0), Vel(1.0))); // any change rebuilds it
    /// assert_eq!(world.group_len::<(Pos, Vel)>(), Some(1));
    /// ```
    #[inline]
    fn group_len<G: Group<Self>>(&self) -> Option<usize> {
        crate::group::len::<Self, G>(self)
    }

    /// Checks every invariant (see "Invariants" above) and panics with a
    /// description of the first violation. Test support (feature
    /// `testing`).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// Game::new().assert_invariants();
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    #[cfg(feature = "testing")]
    fn assert_invariants(&self) {
        if let Err(problem) = crate::invariants::check_world(self) {
            panic!("{}: {problem}", Self::NAME);
        }
    }
}

impl<W: Storages> World for W {
    const NAME: &'static str = W::WORLD;
    const COMPONENT_NAMES: &'static [&'static str] = W::COMPONENTS;
}

/// Hands `component` back in a `DeadEntity` error unless `entity` is alive.
#[inline]
fn alive_or_give_back<W: World, C>(
    world: &W,
    entity: Entity,
    component: C,
) -> Result<C, AddError<C>> {
    if world.is_alive(entity) {
        Ok(component)
    } else {
        Err(AddError::new(
            AddErrorKind::DeadEntity,
            entity,
            W::NAME,
            component,
        ))
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
