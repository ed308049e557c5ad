//! Queries: visit the entities that have a set of components.
//!
//! A query *type* names what to visit: `&A`, `&mut A`, `Option<&A>`,
//! `Option<&mut A>`, the filters [`With<A>`] and [`Without<A>`], or a tuple of
//! those. It is turned into a *fetch*: the storages it reads or writes,
//! borrowed from the world. Iteration walks the entities of the smallest
//! storage every result must have (the *driver*) and looks each one up in the
//! others, so its cost follows the rarest required component, not the
//! world's size.
//!
//! * [`World::query`] is read-only and yields a plain
//!   iterator, [`QueryIter`].
//! * [`World::query_mut`] may write and yields a
//!   [`Join`]; so does [`join`], which takes storages you borrowed yourself
//!   (`join((&mut world.pos, &world.vel))`), leaving the world's other fields
//!   free.
//!
//! # What a [`Join`] can do, in safe code
//!
//! * `for_each(|entity, items| …)` works for every query. It is the fastest
//!   way to run one, and is driven by the smallest required storage.
//! * A `for` loop works when the **first** element is `&mut C` and the rest
//!   only read (`&B`, `Option<&B>`, `With`, `Without`; none at all is fine),
//!   or when the whole query only reads. The loop is then driven by `C`'s storage, whose values are
//!   handed out in order. Any other shape needs two `&mut` into storages at
//!   once, which safe code cannot hand out from an iterator: use `for_each`.
//! * `par_for_each` (feature `rayon`) runs on rayon's thread pool when the
//!   query writes at most one storage (its dense range is split across
//!   threads), and for every shape over exactly an owning group.
//!
//! # Owning groups
//!
//! When the required storages of a query are exactly one owning group's
//! (see [`crate::group`]), every form above walks the group's packed slots
//! side by side instead of looking entities up.
//!
//! # Compile-time checks
//!
//! The same component twice in one mutable query (`(&mut A, &A)`,
//! `(&mut A, Option<&mut A>)`, `(&A, With<A>)`) is a compile error, as is a
//! query with no required component (only `Option`s and `Without`s). Both are
//! checked by constants evaluated when the code is generated, so they show
//! up in `cargo build` and `cargo test` rather than `cargo check`.

use core::fmt;
use core::iter::{Copied, Zip};
use core::marker::PhantomData;
use core::slice;

use crate::group::{GroupMark, GroupProbe};
use crate::indices::{all_distinct, DUPLICATE_IN_QUERY, NEEDS_REQUIRED};
use crate::sparse_map::{IterMut, ViewMut};
use crate::world::storages::{ColumnOf, Storages};
use crate::world::sync;
use crate::{Contains, Entity, EntityAllocator, SparseMap, World};

mod dense;
#[cfg(feature = "rayon")]
mod par;
#[doc(hidden)]
pub use dense::{DenseSplit, MaybeRows, NoRows, Rows, Units};

// ---------------------------------------------------------------------------
// Markers and wrappers
// ---------------------------------------------------------------------------

/// Filter: only entities that have a `C`. Yields `()`.
///
/// In a query type, `With<C>` names a component; in a [`join`],
/// `With(&world.c)` wraps the storage.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(i32);
/// struct Player;
/// world! { struct Game<Pos, Player>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(1), Player));
/// world.spawn_with((Pos(2),));
/// let mut players = 0;
/// world.query_mut::<(&mut Pos, With<Player>)>().for_each(|_, (pos, ())| {
///     pos.0 += 10;
///     players += 1;
/// });
/// assert_eq!(players, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct With<T>(pub T);

/// Filter: only entities that have no `C`. Yields `()`.
///
/// In a query type, `Without<C>` names a component; in a [`join`],
/// `Without(&world.c)` wraps the storage.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(i32);
/// struct Frozen;
/// world! { struct Game<Pos, Frozen>; }
///
/// let mut world = Game::new();
/// let moving = world.spawn_with((Pos(1),));
/// let frozen = world.spawn_with((Pos(1), Frozen));
/// for (_, (pos, ())) in world.query_mut::<(&mut Pos, Without<Frozen>)>() {
///     pos.0 += 1;
/// }
/// assert_eq!(world.get::<Pos>(moving).unwrap().0, 2);
/// assert_eq!(world.get::<Pos>(frozen).unwrap().0, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Without<T>(pub T);

/// An optional storage in a [`join`]: yields `Some(item)` when the entity has
/// the component and `None` otherwise, and never excludes an entity. The
/// query-type spelling is `Option<&C>` / `Option<&mut C>`.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::query::{join, Maybe};
///
/// struct Pos(i32);
/// struct Boost(i32);
/// world! { struct Game<Pos, Boost>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(0), Boost(5)));
/// world.spawn_with((Pos(0),));
/// join((&mut world.pos, Maybe(&world.boost))).for_each(|_, (pos, boost)| {
///     pos.0 += boost.map_or(1, |b| b.0);
/// });
/// let mut totals: Vec<i32> = world.pos.values().iter().map(|p| p.0).collect();
/// totals.sort();
/// assert_eq!(totals, [1, 5]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Maybe<T>(pub T);

/// Returns whichever of two candidate driver slices is shorter.
#[inline]
fn shorter<'w>(a: Option<&'w [Entity]>, b: Option<&'w [Entity]>) -> Option<&'w [Entity]> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.len() < a.len() { b } else { a }),
        (a, None) => a,
        (None, b) => b,
    }
}

/// How a fetch takes part in a parallel walk that splits its storages'
/// dense ranges (when it is not exactly an owning group). Not public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum ParRole<'w> {
    /// Only reads; the entities it could drive from, if it requires a storage.
    Read(Option<&'w [Entity]>),
    /// Writes one required storage, whose entities must drive the walk.
    Write(&'w [Entity]),
    /// Cannot be split safely (an optional `&mut`, two `&mut`, or a fetch
    /// that does not say): the walk runs on one thread.
    Blocked,
}

impl<'w> ParRole<'w> {
    /// The role of two elements together.
    #[inline]
    fn and(self, other: ParRole<'w>) -> ParRole<'w> {
        match (self, other) {
            (ParRole::Read(a), ParRole::Read(b)) => ParRole::Read(shorter(a, b)),
            (ParRole::Read(_), ParRole::Write(w)) | (ParRole::Write(w), ParRole::Read(_)) => {
                ParRole::Write(w)
            }
            _ => ParRole::Blocked,
        }
    }

    /// The entities a parallel walk splits, if it can split at all.
    #[cfg(feature = "rayon")]
    #[inline]
    pub(crate) fn driver(self) -> Option<&'w [Entity]> {
        match self {
            ParRole::Read(driver) => driver,
            ParRole::Write(driver) => Some(driver),
            ParRole::Blocked => None,
        }
    }
}

// ---------------------------------------------------------------------------
// Read-only fetches and queries
// ---------------------------------------------------------------------------

/// The storages a read-only query reads, borrowed for `'w`, and how to read
/// one entity's items from them.
///
/// Implemented for `&SparseMap<C>`, [`Maybe`], [`With`] and [`Without`] of
/// one, and tuples of fetches. [`World::query`] builds
/// one from a query type; [`join`] takes one you built.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::query::Fetch;
///
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((Pos(1), Vel(2)));
/// let fetch = (&world.pos, &world.vel);
/// let (pos, vel) = fetch.fetch(e).unwrap();
/// assert_eq!((pos.0, vel.0), (1, 2));
/// ```
pub trait Fetch<'w>: Copy {
    /// What one entity yields: `&'w C`, `Option<&'w C>`, `()`, or a tuple.
    type Item;

    /// The entities to iterate: the smallest dense entity array among the
    /// storages this fetch requires, or `None` if it requires none.
    fn driver(&self) -> Option<&'w [Entity]>;

    /// The items of `entity`, or `None` if it does not match.
    fn fetch(&self, entity: Entity) -> Option<Self::Item>;

    /// Like [`fetch`](Fetch::fetch), for the entity in dense slot `slot` of
    /// the driving storage: storages try that slot before the sparse lookup.
    #[inline]
    fn fetch_at(&self, entity: Entity, slot: usize) -> Option<Self::Item> {
        let _ = slot;
        self.fetch(entity)
    }

    /// The rows of a dense walk over an owning group (see
    /// [`crate::group`]).
    #[doc(hidden)]
    type __Dense: IntoIterator<Item = Self::Item, IntoIter: Clone> + DenseSplit;

    /// Tells `probe` which storages this fetch requires, and their groups.
    #[doc(hidden)]
    fn __probe(&self, probe: &mut GroupProbe);

    /// The first `len` rows of each storage, for a dense walk. Only called
    /// with a `len` that [`__probe`](Self::__probe) found packed in every
    /// storage, or with 0 (no rows: what an iterator holds when it looks
    /// entities up instead).
    #[doc(hidden)]
    fn __dense(&self, len: usize) -> Self::__Dense;

    /// `true` if every storage this fetch reads is in step with `entities`
    /// (see [`SparseMap`], "Storages moved between worlds").
    #[doc(hidden)]
    fn __synced(&self, entities: &EntityAllocator) -> bool;
}

impl<'w, C> Fetch<'w> for &'w SparseMap<C> {
    type Item = &'w C;

    #[inline]
    fn driver(&self) -> Option<&'w [Entity]> {
        Some(self.entities())
    }

    #[inline]
    fn fetch(&self, entity: Entity) -> Option<&'w C> {
        self.get(entity)
    }

    #[inline]
    fn fetch_at(&self, entity: Entity, slot: usize) -> Option<&'w C> {
        let storage: &'w SparseMap<C> = self;
        storage
            .index_of_at(entity, slot)
            .map(|slot| &storage.values()[slot])
    }

    type __Dense = &'w [C];

    #[inline]
    fn __probe(&self, probe: &mut GroupProbe) {
        probe.required(GroupMark::of(self.mark()), self.len());
    }

    #[inline]
    fn __dense(&self, len: usize) -> &'w [C] {
        let storage: &'w SparseMap<C> = self;
        &storage.values()[..len]
    }

    #[inline]
    fn __synced(&self, entities: &EntityAllocator) -> bool {
        self.is_synced(entities.stamp())
    }
}

impl<'w, F: Fetch<'w>> Fetch<'w> for Maybe<F> {
    type Item = Option<F::Item>;

    #[inline]
    fn driver(&self) -> Option<&'w [Entity]> {
        None
    }

    #[inline]
    fn fetch(&self, entity: Entity) -> Option<Self::Item> {
        Some(self.0.fetch(entity))
    }

    #[inline]
    fn fetch_at(&self, entity: Entity, slot: usize) -> Option<Self::Item> {
        Some(self.0.fetch_at(entity, slot))
    }

    type __Dense = MaybeRows<F::__Dense>;

    #[inline]
    fn __probe(&self, probe: &mut GroupProbe) {
        probe.other();
    }

    #[inline]
    fn __dense(&self, len: usize) -> Self::__Dense {
        MaybeRows(self.0.__dense(len))
    }

    #[inline]
    fn __synced(&self, entities: &EntityAllocator) -> bool {
        self.0.__synced(entities)
    }
}

impl<'w, C> Fetch<'w> for With<&'w SparseMap<C>> {
    type Item = ();

    #[inline]
    fn driver(&self) -> Option<&'w [Entity]> {
        Some(self.0.entities())
    }

    #[inline]
    fn fetch(&self, entity: Entity) -> Option<()> {
        self.0.contains(entity).then_some(())
    }

    type __Dense = Units<'w>;

    #[inline]
    fn __probe(&self, probe: &mut GroupProbe) {
        probe.required(GroupMark::of(self.0.mark()), self.0.len());
    }

    #[inline]
    fn __dense(&self, len: usize) -> Units<'w> {
        let storage: &'w SparseMap<C> = self.0;
        Units(&storage.entities()[..len])
    }

    #[inline]
    fn __synced(&self, entities: &EntityAllocator) -> bool {
        self.0.is_synced(entities.stamp())
    }
}

impl<'w, C> Fetch<'w> for Without<&'w SparseMap<C>> {
    type Item = ();

    #[inline]
    fn driver(&self) -> Option<&'w [Entity]> {
        None
    }

    #[inline]
    fn fetch(&self, entity: Entity) -> Option<()> {
        (!self.0.contains(entity)).then_some(())
    }

    type __Dense = NoRows;

    #[inline]
    fn __probe(&self, probe: &mut GroupProbe) {
        probe.other();
    }

    #[inline]
    fn __dense(&self, _len: usize) -> NoRows {
        NoRows
    }

    #[inline]
    fn __synced(&self, entities: &EntityAllocator) -> bool {
        self.0.is_synced(entities.stamp())
    }
}

/// A read-only query over a world `W`: `&C`, `Option<&C>`, [`With<C>`] or
/// [`Without<C>`] for components `C` of `W`, or a tuple of up to 12 queries
/// (tuples nest).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; }
///
/// fn count<'w, Q: Query<'w, Game>>(world: &'w Game) -> usize {
///     world.query::<Q>().count()
/// }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(1), Vel(2)));
/// world.spawn_with((Pos(1),));
/// assert_eq!(count::<&Pos>(&world), 2);
/// assert_eq!(count::<(&Pos, &Vel)>(&world), 1);
/// assert_eq!(count::<(&Pos, Option<&Vel>)>(&world), 2);
/// assert_eq!(count::<(&Pos, Without<Vel>)>(&world), 1);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query over `{W}`",
    label = "not a query over `{W}`",
    note = "a query is `&C`, `Option<&C>`, `With<C>` or `Without<C>` for a component `C` of `{W}`, \
            or a tuple of up to 12 of them, such as `(&A, &B)`"
)]
pub trait Query<'w, W> {
    /// The borrowed storages.
    type Fetch: Fetch<'w>;

    /// `true` if the query has a component every result must have (`&C` or
    /// `With<C>`), which drives the iteration.
    const REQUIRED: bool;

    /// Borrows the storages from `world`.
    fn fetch(world: &'w W) -> Self::Fetch;
}

impl<'w, W: Contains<C>, C: 'w> Query<'w, W> for &'w C {
    type Fetch = &'w SparseMap<C>;
    const REQUIRED: bool = true;

    #[inline]
    fn fetch(world: &'w W) -> Self::Fetch {
        world.sparse_map()
    }
}

impl<'w, W: Contains<C>, C: 'w> Query<'w, W> for Option<&'w C> {
    type Fetch = Maybe<&'w SparseMap<C>>;
    const REQUIRED: bool = false;

    #[inline]
    fn fetch(world: &'w W) -> Self::Fetch {
        Maybe(world.sparse_map())
    }
}

impl<'w, W: Contains<C>, C: 'w> Query<'w, W> for With<C> {
    type Fetch = With<&'w SparseMap<C>>;
    const REQUIRED: bool = true;

    #[inline]
    fn fetch(world: &'w W) -> Self::Fetch {
        With(world.sparse_map())
    }
}

impl<'w, W: Contains<C>, C: 'w> Query<'w, W> for Without<C> {
    type Fetch = Without<&'w SparseMap<C>>;
    const REQUIRED: bool = false;

    #[inline]
    fn fetch(world: &'w W) -> Self::Fetch {
        Without(world.sparse_map())
    }
}

/// Iterator over the results of a read-only query: `(Entity, items)` for
/// every entity that matches. Made by [`World::query`],
/// or by iterating a read-only [`Join`].
///
/// Order follows the driving (smallest required) storage's dense order and
/// is not otherwise promised. A query over one storage, or over exactly an
/// owning group, walks packed slots and knows its length; a join knows only
/// that the driver's length bounds it.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::QueryIter;
///
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(1), Vel(0)));
/// world.spawn_with((Pos(2),));
/// let mut iter: QueryIter<'_, _> = world.query::<&Pos>();
/// assert_eq!(iter.size_hint(), (2, Some(2)));
/// assert_eq!(iter.next().map(|(_, pos)| pos.0), Some(1));
/// assert_eq!(world.query::<(&Pos, &Vel)>().size_hint(), (0, Some(1)));
/// ```
pub struct QueryIter<'w, F: Fetch<'w>> {
    fetch: F,
    /// Set when a storage is not in step with the world's allocator: the
    /// walk then skips entities that are not alive (see [`SparseMap`],
    /// "Storages moved between worlds").
    alive: Option<&'w EntityAllocator>,
    /// The driver's entities, with their dense slots.
    entities: core::iter::Enumerate<slice::Iter<'w, Entity>>,
    /// `true` when the query is one storage or exactly an owning group:
    /// it walks `rows`.
    dense: bool,
    /// The packed entities zipped with the rows (empty unless `dense`).
    rows: DenseIter<'w, F::__Dense>,
}

/// A group's entities zipped with its rows.
type DenseIter<'w, D> = Zip<Copied<slice::Iter<'w, Entity>>, <D as IntoIterator>::IntoIter>;

/// The entities of the packed slots a fetch walks densely (exactly one
/// owning group's leading slots, or the whole of its one storage), given
/// what its `__probe` reported and its driver; `None` if it looks entities
/// up instead.
#[inline]
pub(crate) fn packed<'w>(probe: &GroupProbe, driver: Option<&'w [Entity]>) -> Option<&'w [Entity]> {
    driver?.get(..probe.cover()?)
}

/// The packed entities and rows of `fetch`, if it walks densely.
#[inline]
fn dense_of<'w, F: Fetch<'w>>(fetch: &F) -> Option<DenseIter<'w, F::__Dense>> {
    let mut probe = GroupProbe::default();
    fetch.__probe(&mut probe);
    let entities = packed(&probe, fetch.driver())?;
    Some(entities.iter().copied().zip(fetch.__dense(entities.len())))
}

impl<'w, F: Fetch<'w>> QueryIter<'w, F> {
    /// Iterates `fetch`: densely if it is exactly an owning group, else
    /// driven by its smallest required storage.
    #[inline]
    pub(crate) fn new(fetch: F) -> Self {
        // The sparse and dense states hold the same types either way (empty
        // when unused), so the optimizer sees one shape of iterator.
        match dense_of(&fetch) {
            Some(rows) => QueryIter {
                fetch,
                alive: None,
                entities: [].iter().enumerate(),
                dense: true,
                rows,
            },
            None => Self::driven(fetch),
        }
    }

    /// Iterates `fetch` driven by its smallest required storage.
    #[inline]
    fn driven(fetch: F) -> Self {
        QueryIter {
            entities: fetch.driver().unwrap_or(&[]).iter().enumerate(),
            alive: None,
            dense: false,
            rows: [].iter().copied().zip(fetch.__dense(0)),
            fetch,
        }
    }

    /// Iterates `fetch`, a world's, as the world sees it: if a storage is
    /// not in step with `entities`, skipping the entities that are not alive.
    #[inline]
    pub(crate) fn in_world(fetch: F, entities: &'w EntityAllocator) -> Self {
        if fetch.__synced(entities) {
            return Self::new(fetch);
        }
        let mut iter = Self::driven(fetch);
        iter.alive = Some(entities);
        iter
    }
}

impl<'w, F: Fetch<'w>> Clone for QueryIter<'w, F> {
    fn clone(&self) -> Self {
        QueryIter {
            fetch: self.fetch,
            alive: self.alive,
            entities: self.entities.clone(),
            dense: self.dense,
            rows: self.rows.clone(),
        }
    }
}

impl<'w, F: Fetch<'w>> fmt::Debug for QueryIter<'w, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueryIter")
            .field("dense", &self.dense)
            .field("remaining_at_most", &self.size_hint().1)
            .finish_non_exhaustive()
    }
}

impl<'w, F: Fetch<'w>> Iterator for QueryIter<'w, F> {
    type Item = (Entity, F::Item);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.dense {
            return self.rows.next();
        }
        for (slot, &entity) in self.entities.by_ref() {
            if let Some(items) = self.fetch.fetch_at(entity, slot) {
                if self.alive.map_or(true, |alive| alive.is_alive(entity)) {
                    return Some((entity, items));
                }
            }
        }
        None
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.dense {
            self.rows.size_hint()
        } else {
            (0, Some(self.entities.len()))
        }
    }
}

impl<'w, F: Fetch<'w>> core::iter::FusedIterator for QueryIter<'w, F> {}

// ---------------------------------------------------------------------------
// Mutable fetches
// ---------------------------------------------------------------------------

/// The storages a query reads or writes, borrowed for `'w`, and how to get
/// one entity's items from them.
///
/// Items borrow from the fetch (`Item<'a>`), which is what lets a query hand
/// out `&mut` to several storages in safe code: one entity at a time.
/// Implemented for `&SparseMap<C>`, [`ViewMut<C>`](ViewMut), [`Maybe`],
/// [`With`], [`Without`] and tuples of them. Components are `'static`, as
/// every world's are.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::query::FetchMut;
/// use typed_ecs::sparse_map::ViewMut;
///
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((Pos(1), Vel(2)));
/// let mut fetch = (ViewMut::from(&mut world.pos), &world.vel);
/// let (pos, vel) = fetch.fetch(e).unwrap();
/// pos.0 += vel.0;
/// assert_eq!(world.pos.get(e).unwrap().0, 3);
/// ```
pub trait FetchMut<'w> {
    /// What one entity yields, borrowed from the fetch for `'a`.
    type Item<'a>;

    /// The entities to iterate: the smallest dense entity array among the
    /// storages this fetch requires, or `None` if it requires none.
    fn driver(&self) -> Option<&'w [Entity]>;

    /// The items of `entity`, or `None` if it does not match.
    fn fetch(&mut self, entity: Entity) -> Option<Self::Item<'_>>;

    /// Like [`fetch`](FetchMut::fetch), for the entity in dense slot `slot`
    /// of the driving storage: storages try that slot before the sparse
    /// lookup.
    #[inline]
    fn fetch_at(&mut self, entity: Entity, slot: usize) -> Option<Self::Item<'_>> {
        let _ = slot;
        self.fetch(entity)
    }

    /// The items of `entity` for the whole of `'w`, consuming the fetch.
    fn fetch_owned(self, entity: Entity) -> Option<Self::Item<'w>>;

    /// The rows of a dense walk over an owning group (see
    /// [`crate::group`]).
    #[doc(hidden)]
    type __Dense: IntoIterator<Item = Self::Item<'w>> + DenseSplit;

    /// Tells `probe` which storages this fetch requires, and their groups.
    #[doc(hidden)]
    fn __probe(&self, probe: &mut GroupProbe);

    /// The first `len` rows of each storage, for a dense walk. Only called
    /// when [`__probe`](Self::__probe) found exactly one group of `len`
    /// entities, whose storages are all at least that long.
    #[doc(hidden)]
    fn __into_dense(self, len: usize) -> Self::__Dense
    where
        Self: Sized;

    /// How this fetch takes part in a parallel walk that splits dense
    /// ranges ([`ParRole::Blocked`] runs such walks on one thread).
    #[doc(hidden)]
    fn __par_role(&self) -> ParRole<'w>;

    /// Splits the storages this fetch writes into their slots `..mid` and
    /// `mid..` of the walk's driver (read-only storages are shared). Only
    /// called when [`__par_role`](Self::__par_role) is not `Blocked`.
    #[doc(hidden)]
    fn __par_split(self, mid: usize) -> (Self, Self)
    where
        Self: Sized;
}

impl<'w, C: 'static> FetchMut<'w> for &'w SparseMap<C> {
    type Item<'a> = &'w C;

    #[inline]
    fn driver(&self) -> Option<&'w [Entity]> {
        Some(self.entities())
    }

    #[inline]
    fn fetch(&mut self, entity: Entity) -> Option<&'w C> {
        self.get(entity)
    }

    #[inline]
    fn fetch_at(&mut self, entity: Entity, slot: usize) -> Option<&'w C> {
        Fetch::fetch_at(self, entity, slot)
    }

    #[inline]
    fn fetch_owned(self, entity: Entity) -> Option<&'w C> {
        self.get(entity)
    }

    type __Dense = &'w [C];

    #[inline]
    fn __probe(&self, probe: &mut GroupProbe) {
        Fetch::__probe(self, probe);
    }

    #[inline]
    fn __into_dense(self, len: usize) -> &'w [C] {
        Fetch::__dense(&self, len)
    }

    #[inline]
    fn __par_role(&self) -> ParRole<'w> {
        ParRole::Read(Some(self.entities()))
    }

    #[inline]
    fn __par_split(self, _mid: usize) -> (Self, Self) {
        (self, self)
    }
}

impl<'w, C: 'static> FetchMut<'w> for ViewMut<'w, C> {
    type Item<'a> = &'a mut C;

    #[inline]
    fn driver(&self) -> Option<&'w [Entity]> {
        Some(self.entities())
    }

    #[inline]
    fn fetch(&mut self, entity: Entity) -> Option<&mut C> {
        self.get_mut(entity)
    }

    #[inline]
    fn fetch_at(&mut self, entity: Entity, slot: usize) -> Option<&mut C> {
        self.get_mut_at(entity, slot)
    }

    #[inline]
    fn fetch_owned(self, entity: Entity) -> Option<&'w mut C> {
        self.into_mut(entity)
    }

    type __Dense = &'w mut [C];

    #[inline]
    fn __probe(&self, probe: &mut GroupProbe) {
        probe.required(GroupMark::of(self.mark()), self.len());
    }

    #[inline]
    fn __into_dense(self, len: usize) -> &'w mut [C] {
        self.into_values_prefix(len)
    }

    #[inline]
    fn __par_role(&self) -> ParRole<'w> {
        ParRole::Write(self.entities())
    }

    #[inline]
    fn __par_split(self, mid: usize) -> (Self, Self) {
        self.split_at(mid)
    }
}

impl<'w, F: FetchMut<'w>> FetchMut<'w> for Maybe<F> {
    type Item<'a> = Option<F::Item<'a>>;

    #[inline]
    fn driver(&self) -> Option<&'w [Entity]> {
        None
    }

    #[inline]
    fn fetch(&mut self, entity: Entity) -> Option<Self::Item<'_>> {
        Some(self.0.fetch(entity))
    }

    #[inline]
    fn fetch_at(&mut self, entity: Entity, slot: usize) -> Option<Self::Item<'_>> {
        Some(self.0.fetch_at(entity, slot))
    }

    #[inline]
    fn fetch_owned(self, entity: Entity) -> Option<Self::Item<'w>> {
        Some(self.0.fetch_owned(entity))
    }

    type __Dense = MaybeRows<F::__Dense>;

    #[inline]
    fn __probe(&self, probe: &mut GroupProbe) {
        probe.other();
    }

    #[inline]
    fn __into_dense(self, len: usize) -> Self::__Dense {
        MaybeRows(self.0.__into_dense(len))
    }

    #[inline]
    fn __par_role(&self) -> ParRole<'w> {
        match self.0.__par_role() {
            // An optional storage never drives; an optional `&mut` one
            // cannot be split by the driver's slots.
            ParRole::Read(_) => ParRole::Read(None),
            ParRole::Write(_) | ParRole::Blocked => ParRole::Blocked,
        }
    }

    #[inline]
    fn __par_split(self, mid: usize) -> (Self, Self) {
        let (a, b) = self.0.__par_split(mid);
        (Maybe(a), Maybe(b))
    }
}

impl<'w, C: 'static> FetchMut<'w> for With<&'w SparseMap<C>> {
    type Item<'a> = ();

    #[inline]
    fn driver(&self) -> Option<&'w [Entity]> {
        Fetch::driver(self)
    }

    #[inline]
    fn fetch(&mut self, entity: Entity) -> Option<()> {
        Fetch::fetch(self, entity)
    }

    #[inline]
    fn fetch_owned(self, entity: Entity) -> Option<()> {
        Fetch::fetch(&self, entity)
    }

    type __Dense = Units<'w>;

    #[inline]
    fn __probe(&self, probe: &mut GroupProbe) {
        Fetch::__probe(self, probe);
    }

    #[inline]
    fn __into_dense(self, len: usize) -> Units<'w> {
        Fetch::__dense(&self, len)
    }

    #[inline]
    fn __par_role(&self) -> ParRole<'w> {
        ParRole::Read(Some(self.0.entities()))
    }

    #[inline]
    fn __par_split(self, _mid: usize) -> (Self, Self) {
        (self, self)
    }
}

impl<'w, C: 'static> FetchMut<'w> for Without<&'w SparseMap<C>> {
    type Item<'a> = ();

    #[inline]
    fn driver(&self) -> Option<&'w [Entity]> {
        None
    }

    #[inline]
    fn fetch(&mut self, entity: Entity) -> Option<()> {
        Fetch::fetch(self, entity)
    }

    #[inline]
    fn fetch_owned(self, entity: Entity) -> Option<()> {
        Fetch::fetch(&self, entity)
    }

    type __Dense = NoRows;

    #[inline]
    fn __probe(&self, probe: &mut GroupProbe) {
        probe.other();
    }

    #[inline]
    fn __into_dense(self, _len: usize) -> NoRows {
        NoRows
    }

    #[inline]
    fn __par_role(&self) -> ParRole<'w> {
        ParRole::Read(None)
    }

    #[inline]
    fn __par_split(self, _mid: usize) -> (Self, Self) {
        (self, self)
    }
}

// ---------------------------------------------------------------------------
// Turning borrowed storages into fetches: `join`
// ---------------------------------------------------------------------------

/// Storages you borrowed yourself, ready to be joined: `&SparseMap<C>`,
/// `&mut SparseMap<C>`, `Maybe(&map)`, `Maybe(&mut map)`, `With(&map)`,
/// `Without(&map)`, or a tuple of up to 8 of them. See [`join`].
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::query::{join, IntoFetch};
///
/// struct Pos(i32);
/// world! { struct Game<Pos>; }
///
/// fn total<'w>(storages: impl IntoFetch<'w, Fetch = &'w SparseMap<Pos>>) -> i32 {
///     join(storages).into_iter().map(|(_, pos)| pos.0).sum()
/// }
/// let mut world = Game::new();
/// world.spawn_with((Pos(4),));
/// assert_eq!(total(&world.pos), 4);
/// ```
pub trait IntoFetch<'w> {
    /// The fetch these storages become.
    type Fetch: FetchMut<'w>;

    /// Converts the borrows into a fetch.
    fn into_fetch(self) -> Self::Fetch;
}

impl<'w, C: 'static> IntoFetch<'w> for &'w SparseMap<C> {
    type Fetch = &'w SparseMap<C>;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        self
    }
}

impl<'w, C: 'static> IntoFetch<'w> for &'w mut SparseMap<C> {
    type Fetch = ViewMut<'w, C>;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        self.view_mut()
    }
}

impl<'w, C: 'static> IntoFetch<'w> for ViewMut<'w, C> {
    type Fetch = ViewMut<'w, C>;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        self
    }
}

impl<'w, T: IntoFetch<'w>> IntoFetch<'w> for Maybe<T> {
    type Fetch = Maybe<T::Fetch>;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        Maybe(self.0.into_fetch())
    }
}

impl<'w, C: 'static> IntoFetch<'w> for With<&'w SparseMap<C>> {
    type Fetch = Self;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        self
    }
}

impl<'w, C: 'static> IntoFetch<'w> for Without<&'w SparseMap<C>> {
    type Fetch = Self;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        self
    }
}

/// Joins storages you borrowed yourself, so a system can query some fields
/// of the world while using others. The compiler checks that the borrows do
/// not overlap: `join((&mut world.pos, &world.pos))` does not compile.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::query::join;
///
/// struct Pos(f32);
/// struct Vel(f32);
/// struct Log(Vec<String>);
/// world! { struct Game<Pos, Vel, Log>; }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((Pos(0.0), Vel(2.0)));
/// let logger = world.spawn_with((Log(Vec::new()),));
///
/// // Borrow three fields at once: two for the join, one on the side.
/// let log = world.log.get_mut(logger).unwrap();
/// join((&mut world.pos, &world.vel)).for_each(|entity, (pos, vel)| {
///     pos.0 += vel.0;
///     log.0.push(format!("{entity:?} moved to {}", pos.0));
/// });
/// assert_eq!(world.pos.get(e).unwrap().0, 2.0);
/// assert_eq!(world.log.get(logger).unwrap().0, ["0v1 moved to 2"]);
/// ```
///
/// ```compile_fail
/// # use typed_ecs::prelude::*;
/// # use typed_ecs::query::join;
/// # struct Pos(f32);
/// # world! { struct Game<Pos>; }
/// let mut world = Game::new();
/// join((&mut world.pos, &world.pos)).for_each(|_, _| {}); // error: already borrowed
/// ```
#[inline]
pub fn join<'w, T: IntoFetch<'w>>(storages: T) -> Join<'w, T::Fetch> {
    Join::new(storages.into_fetch())
}

// ---------------------------------------------------------------------------
// Mutable query types
// ---------------------------------------------------------------------------

/// One element of a mutable query: `&C`, `&mut C`, `Option<&C>`,
/// `Option<&mut C>`, [`With<C>`] or [`Without<C>`], for a component `C` of
/// `W`.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::query::QueryTerm;
///
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; }
///
/// assert_eq!(<&mut Vel as QueryTerm<'_, Game>>::INDEX, 1);
/// assert!(!<Option<&Pos> as QueryTerm<'_, Game>>::REQUIRED);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query element over `{W}`",
    label = "not a query element over `{W}`",
    note = "a mutable query element is `&C`, `&mut C`, `Option<&C>`, `Option<&mut C>`, `With<C>` or \
            `Without<C>` for a component `C` of `{W}`"
)]
pub trait QueryTerm<'w, W: World + 'w> {
    /// The fetch this element becomes.
    type Fetch: FetchMut<'w>;

    /// The component's storage index in `W` (for the aliasing check).
    const INDEX: usize;

    /// `true` if every result must have the component (`&C`, `&mut C`,
    /// `With<C>`).
    const REQUIRED: bool;

    /// Takes the element's storage out of the world's parts.
    #[doc(hidden)]
    fn __fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch;

    /// Brings the element's storage in step with `world`'s allocator.
    #[doc(hidden)]
    fn __sync(world: &mut W);

    /// `true` if the element's storage is in step with `world`'s allocator.
    #[doc(hidden)]
    fn __in_step(world: &W) -> bool;
}

impl<'w, W: Contains<C> + 'w, C: 'static> QueryTerm<'w, W> for &'w C {
    type Fetch = &'w SparseMap<C>;
    const INDEX: usize = <W as Contains<C>>::INDEX;
    const REQUIRED: bool = true;

    #[inline]
    fn __fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
        <W as ColumnOf<C>>::take(parts)
    }

    #[inline]
    fn __sync(world: &mut W) {
        sync::<W, C>(world);
    }

    #[inline]
    fn __in_step(world: &W) -> bool {
        world.sparse_map().is_synced(world.allocator().stamp())
    }
}

impl<'w, W: Contains<C> + 'w, C: 'static> QueryTerm<'w, W> for &'w mut C {
    type Fetch = ViewMut<'w, C>;
    const INDEX: usize = <W as Contains<C>>::INDEX;
    const REQUIRED: bool = true;

    #[inline]
    fn __fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
        <W as ColumnOf<C>>::take(parts).view_mut()
    }

    #[inline]
    fn __sync(world: &mut W) {
        sync::<W, C>(world);
    }

    #[inline]
    fn __in_step(world: &W) -> bool {
        world.sparse_map().is_synced(world.allocator().stamp())
    }
}

impl<'w, W: Contains<C> + 'w, C: 'static> QueryTerm<'w, W> for Option<&'w C> {
    type Fetch = Maybe<&'w SparseMap<C>>;
    const INDEX: usize = <W as Contains<C>>::INDEX;
    const REQUIRED: bool = false;

    #[inline]
    fn __fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
        Maybe(<W as ColumnOf<C>>::take(parts))
    }

    #[inline]
    fn __sync(world: &mut W) {
        sync::<W, C>(world);
    }

    #[inline]
    fn __in_step(world: &W) -> bool {
        world.sparse_map().is_synced(world.allocator().stamp())
    }
}

impl<'w, W: Contains<C> + 'w, C: 'static> QueryTerm<'w, W> for Option<&'w mut C> {
    type Fetch = Maybe<ViewMut<'w, C>>;
    const INDEX: usize = <W as Contains<C>>::INDEX;
    const REQUIRED: bool = false;

    #[inline]
    fn __fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
        Maybe(<W as ColumnOf<C>>::take(parts).view_mut())
    }

    #[inline]
    fn __sync(world: &mut W) {
        sync::<W, C>(world);
    }

    #[inline]
    fn __in_step(world: &W) -> bool {
        world.sparse_map().is_synced(world.allocator().stamp())
    }
}

impl<'w, W: Contains<C> + 'w, C: 'static> QueryTerm<'w, W> for With<C> {
    type Fetch = With<&'w SparseMap<C>>;
    const INDEX: usize = <W as Contains<C>>::INDEX;
    const REQUIRED: bool = true;

    #[inline]
    fn __fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
        With(<W as ColumnOf<C>>::take(parts))
    }

    #[inline]
    fn __sync(world: &mut W) {
        sync::<W, C>(world);
    }

    #[inline]
    fn __in_step(world: &W) -> bool {
        world.sparse_map().is_synced(world.allocator().stamp())
    }
}

impl<'w, W: Contains<C> + 'w, C: 'static> QueryTerm<'w, W> for Without<C> {
    type Fetch = Without<&'w SparseMap<C>>;
    const INDEX: usize = <W as Contains<C>>::INDEX;
    const REQUIRED: bool = false;

    #[inline]
    fn __fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
        Without(<W as ColumnOf<C>>::take(parts))
    }

    #[inline]
    fn __sync(world: &mut W) {
        sync::<W, C>(world);
    }

    #[inline]
    fn __in_step(world: &W) -> bool {
        world.sparse_map().is_synced(world.allocator().stamp())
    }
}

/// A mutable query over a world `W`: one [`QueryTerm`], or a tuple of up to
/// 8, each component at most once.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; }
///
/// fn step<'w, Q>(world: &'w mut Game) -> usize
/// where
///     Q: QueryMut<'w, Game>,
/// {
///     let mut visited = 0;
///     world.query_mut::<Q>().for_each(|_, _| visited += 1);
///     visited
/// }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(0), Vel(1)));
/// assert_eq!(step::<(&mut Pos, &Vel)>(&mut world), 1);
/// ```
///
/// The same component twice is rejected when the program is built:
///
/// ```compile_fail
/// # use typed_ecs::prelude::*;
/// # struct Pos(i32);
/// # world! { struct Game<Pos>; }
/// let mut world = Game::new();
/// world.query_mut::<(&mut Pos, &Pos)>().for_each(|_, _| {}); // error
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a mutable query over `{W}`",
    label = "not a mutable query over `{W}`",
    note = "a mutable query is one of `&C`, `&mut C`, `Option<&C>`, `Option<&mut C>`, `With<C>`, \
            `Without<C>` for a component `C` of `{W}`, or a tuple of up to 8 of them"
)]
pub trait QueryMut<'w, W: World + 'w> {
    /// The borrowed storages.
    type Fetch: FetchMut<'w>;

    /// Takes the storages out of the world's parts, after checking at compile
    /// time that no component appears twice and one is required.
    #[doc(hidden)]
    fn __fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch;

    /// Brings the storages in step with `world`'s allocator.
    #[doc(hidden)]
    fn __sync(world: &mut W);

    /// `true` if every storage is in step with `world`'s allocator.
    #[doc(hidden)]
    fn __in_step(world: &W) -> bool;
}

macro_rules! impl_query_mut_single {
    ($($term:ty),* $(,)?) => {$(
        impl<'w, W: Contains<C> + 'w, C: 'static> QueryMut<'w, W> for $term {
            type Fetch = <$term as QueryTerm<'w, W>>::Fetch;

            #[inline]
            fn __fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
                const { assert!(<$term as QueryTerm<'w, W>>::REQUIRED, "{}", NEEDS_REQUIRED) };
                <$term as QueryTerm<'w, W>>::__fetch(parts)
            }

            #[inline]
            fn __sync(world: &mut W) {
                <$term as QueryTerm<'w, W>>::__sync(world);
            }

            #[inline]
            fn __in_step(world: &W) -> bool {
                <$term as QueryTerm<'w, W>>::__in_step(world)
            }
        }
    )*};
}

impl_query_mut_single!(
    &'w C,
    &'w mut C,
    Option<&'w C>,
    Option<&'w mut C>,
    With<C>,
    Without<C>
);

// ---------------------------------------------------------------------------
// Tuples
// ---------------------------------------------------------------------------

macro_rules! impl_tuples {
    ($($q:ident),+) => {
        impl<'w, $($q: Fetch<'w>),+> Fetch<'w> for ($($q,)+) {
            type Item = ($($q::Item,)+);

            #[inline]
            fn driver(&self) -> Option<&'w [Entity]> {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                let driver = None;
                $(let driver = shorter(driver, $q.driver());)+
                driver
            }

            #[inline]
            fn fetch(&self, entity: Entity) -> Option<Self::Item> {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                Some(($($q.fetch(entity)?,)+))
            }

            #[inline]
            fn fetch_at(&self, entity: Entity, slot: usize) -> Option<Self::Item> {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                Some(($($q.fetch_at(entity, slot)?,)+))
            }

            type __Dense = Rows<($($q::__Dense,)+)>;

            #[inline]
            fn __probe(&self, probe: &mut GroupProbe) {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                $($q.__probe(probe);)+
            }

            #[inline]
            fn __dense(&self, len: usize) -> Self::__Dense {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                Rows(($($q.__dense(len),)+))
            }

            #[inline]
            fn __synced(&self, entities: &EntityAllocator) -> bool {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                true $(&& $q.__synced(entities))+
            }
        }

        impl<'w, W, $($q: Query<'w, W>),+> Query<'w, W> for ($($q,)+) {
            type Fetch = ($($q::Fetch,)+);
            const REQUIRED: bool = $($q::REQUIRED)||+;

            #[inline]
            fn fetch(world: &'w W) -> Self::Fetch {
                ($($q::fetch(world),)+)
            }
        }
    };
}

macro_rules! impl_mut_tuples {
    ($($q:ident),+) => {
        impl<'w, $($q: FetchMut<'w>),+> FetchMut<'w> for ($($q,)+) {
            type Item<'a> = ($($q::Item<'a>,)+);

            #[inline]
            fn driver(&self) -> Option<&'w [Entity]> {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                let driver = None;
                $(let driver = shorter(driver, $q.driver());)+
                driver
            }

            #[inline]
            fn fetch(&mut self, entity: Entity) -> Option<Self::Item<'_>> {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                Some(($($q.fetch(entity)?,)+))
            }

            #[inline]
            fn fetch_at(&mut self, entity: Entity, slot: usize) -> Option<Self::Item<'_>> {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                Some(($($q.fetch_at(entity, slot)?,)+))
            }

            #[inline]
            fn fetch_owned(self, entity: Entity) -> Option<Self::Item<'w>> {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                Some(($($q.fetch_owned(entity)?,)+))
            }

            type __Dense = Rows<($($q::__Dense,)+)>;

            #[inline]
            fn __probe(&self, probe: &mut GroupProbe) {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                $($q.__probe(probe);)+
            }

            #[inline]
            fn __into_dense(self, len: usize) -> Self::__Dense {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                Rows(($($q.__into_dense(len),)+))
            }

            #[inline]
            fn __par_role(&self) -> ParRole<'w> {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                let role = ParRole::Read(None);
                $(let role = role.and($q.__par_role());)+
                role
            }

            #[inline]
            fn __par_split(self, mid: usize) -> (Self, Self) {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                $(
                    #[allow(non_snake_case)]
                    let $q = $q.__par_split(mid);
                )+
                (($($q.0,)+), ($($q.1,)+))
            }
        }

        impl<'w, $($q: IntoFetch<'w>),+> IntoFetch<'w> for ($($q,)+) {
            type Fetch = ($($q::Fetch,)+);

            #[inline]
            fn into_fetch(self) -> Self::Fetch {
                #[allow(non_snake_case)]
                let ($($q,)+) = self;
                ($($q.into_fetch(),)+)
            }
        }

        impl<'w, W: World + 'w, $($q: QueryTerm<'w, W>),+> QueryMut<'w, W> for ($($q,)+) {
            type Fetch = ($($q::Fetch,)+);

            #[inline]
            fn __fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
                const {
                    assert!(all_distinct(&[$($q::INDEX),+]), "{}", DUPLICATE_IN_QUERY);
                    assert!($($q::REQUIRED)||+, "{}", NEEDS_REQUIRED);
                };
                ($($q::__fetch(parts),)+)
            }

            #[inline]
            fn __sync(world: &mut W) {
                $($q::__sync(world);)+
            }

            #[inline]
            fn __in_step(world: &W) -> bool {
                true $(&& $q::__in_step(world))+
            }
        }
    };
}

impl_tuples!(Q0);
impl_tuples!(Q0, Q1);
impl_tuples!(Q0, Q1, Q2);
impl_tuples!(Q0, Q1, Q2, Q3);
impl_tuples!(Q0, Q1, Q2, Q3, Q4);
impl_tuples!(Q0, Q1, Q2, Q3, Q4, Q5);
impl_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6);
impl_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7);
impl_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8);
impl_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9);
impl_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10);
impl_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11);

impl_mut_tuples!(Q0);
impl_mut_tuples!(Q0, Q1);
impl_mut_tuples!(Q0, Q1, Q2);
impl_mut_tuples!(Q0, Q1, Q2, Q3);
impl_mut_tuples!(Q0, Q1, Q2, Q3, Q4);
impl_mut_tuples!(Q0, Q1, Q2, Q3, Q4, Q5);
impl_mut_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6);
impl_mut_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7);

// ---------------------------------------------------------------------------
// Join: running a fetch
// ---------------------------------------------------------------------------

/// A query ready to run: made by [`World::query_mut`]
/// or [`join`].
///
/// [`for_each`](Join::for_each) runs any query; a `for` loop and
/// `par_for_each` work for the shapes listed in the [module docs](self).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32);
/// struct Vel(f32);
/// world! { struct Game<Pos, Vel>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(0.0), Vel(1.5)));
///
/// // Any shape: for_each.
/// world.query_mut::<(&Vel, &mut Pos)>().for_each(|_, (vel, pos)| pos.0 += vel.0);
/// // `&mut` first, the rest read-only: a for loop too.
/// for (_, (pos, vel)) in world.query_mut::<(&mut Pos, &Vel)>() {
///     pos.0 += vel.0;
/// }
/// assert_eq!(world.pos.values()[0].0, 3.0);
/// ```
#[derive(Debug)]
pub struct Join<'w, F> {
    fetch: F,
    marker: PhantomData<&'w ()>,
}

impl<'w, F> Join<'w, F> {
    #[inline]
    pub(crate) fn new(fetch: F) -> Self {
        Join {
            fetch,
            marker: PhantomData,
        }
    }

    /// The fetch: the borrowed storages.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::query::join;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let world = Game::new();
    /// let storage: &SparseMap<Pos> = join(&world.pos).into_fetch();
    /// assert!(storage.is_empty());
    /// ```
    #[inline]
    pub fn into_fetch(self) -> F {
        self.fetch
    }
}

impl<'w, F: FetchMut<'w>> Join<'w, F> {
    /// Calls `f(entity, items)` for every matching entity, driven by the
    /// smallest required storage. Works for every query shape.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct A(i32);
    /// # struct B(i32);
    /// # world! { struct Game<A, B>; }
    /// let mut world = Game::new();
    /// world.spawn_with((A(1), B(10)));
    /// world.query_mut::<(&mut A, &mut B)>().for_each(|_, (a, b)| {
    ///     std::mem::swap(&mut a.0, &mut b.0);
    /// });
    /// assert_eq!((world.a.values()[0].0, world.b.values()[0].0), (10, 1));
    /// ```
    #[inline]
    pub fn for_each(mut self, mut f: impl FnMut(Entity, F::Item<'_>)) {
        let mut probe = GroupProbe::default();
        self.fetch.__probe(&mut probe);
        if let Some(entities) = packed(&probe, self.fetch.driver()) {
            // Exactly one owning group's storages (or one storage): walk
            // their packed slots side by side.
            let rows = self.fetch.__into_dense(entities.len());
            for (&entity, items) in entities.iter().zip(rows) {
                f(entity, items);
            }
            return;
        }
        let driver = self.fetch.driver().unwrap_or(&[]);
        for (slot, &entity) in driver.iter().enumerate() {
            if let Some(items) = self.fetch.fetch_at(entity, slot) {
                f(entity, items);
            }
        }
    }

    /// The items of one `entity`, if it matches.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct A(i32);
    /// # struct B(i32);
    /// # world! { struct Game<A, B>; }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((A(1), B(10)));
    /// let mut join = world.query_mut::<(&mut A, &B)>();
    /// let (a, b) = join.get(e).unwrap();
    /// a.0 += b.0;
    /// assert_eq!(world.a.get(e).unwrap().0, 11);
    /// ```
    #[inline]
    pub fn get(&mut self, entity: Entity) -> Option<F::Item<'_>> {
        self.fetch.fetch(entity)
    }

    /// Number of matching entities. Visits every candidate.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct A(i32);
    /// # struct B(i32);
    /// # world! { struct Game<A, B>; }
    /// let mut world = Game::new();
    /// world.spawn_with((A(1), B(10)));
    /// world.spawn_with((A(1),));
    /// assert_eq!(world.query_mut::<(&mut A, Without<B>)>().count(), 1);
    /// ```
    pub fn count(self) -> usize {
        let mut count = 0;
        self.for_each(|_, _| count += 1);
        count
    }
}

/// A read-only join iterates like [`World::query`].
impl<'w, F: Fetch<'w>> IntoIterator for Join<'w, F> {
    type Item = (Entity, F::Item);
    type IntoIter = QueryIter<'w, F>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        QueryIter::new(self.fetch)
    }
}

/// Iterator over a [`Join`] whose first element is `&mut C` and whose other
/// elements only read: driven by `C`'s storage, whose values it hands out in
/// dense order.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(0), Vel(2)));
/// world.spawn_with((Pos(0),));
/// let iter = world.query_mut::<(&mut Pos, &Vel)>().into_iter();
/// assert_eq!(iter.size_hint(), (0, Some(2)));
/// assert_eq!(iter.count(), 1);
/// ```
pub struct JoinIter<'w, C, R: Fetch<'w>> {
    /// The first storage's entities, with their dense slots.
    entities: core::iter::Enumerate<slice::Iter<'w, Entity>>,
    values: slice::IterMut<'w, C>,
    rest: R,
    /// `true` when the query is exactly an owning group: it walks `rows`.
    dense: bool,
    /// The group's entities and rows (empty unless `dense`).
    rows: JoinDenseIter<'w, C, R::__Dense>,
}

/// A group's entities and first storage's values, zipped with the rest's rows.
type JoinDenseIter<'w, C, D> = Zip<DenseIter<'w, &'w mut [C]>, <D as IntoIterator>::IntoIter>;

impl<'w, C, R: Fetch<'w>> fmt::Debug for JoinIter<'w, C, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let remaining = if self.dense {
            self.rows.size_hint().0
        } else {
            self.values.len()
        };
        f.debug_struct("JoinIter")
            .field("dense", &self.dense)
            .field("remaining_at_most", &remaining)
            .finish_non_exhaustive()
    }
}

impl<'w, C: 'static> IntoIterator for Join<'w, ViewMut<'w, C>> {
    type Item = (Entity, &'w mut C);
    type IntoIter = IterMut<'w, C>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.fetch.into_iter_mut()
    }
}

/// A one-element tuple iterates like the bare element, yielding `(&mut C,)`.
impl<'w, C: 'static> IntoIterator for Join<'w, (ViewMut<'w, C>,)> {
    type Item = (Entity, (&'w mut C,));
    #[allow(clippy::type_complexity)]
    type IntoIter =
        core::iter::Map<IterMut<'w, C>, fn((Entity, &'w mut C)) -> (Entity, (&'w mut C,))>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        let (view,) = self.fetch;
        view.into_iter_mut()
            .map(|(entity, value)| (entity, (value,)))
    }
}

macro_rules! impl_join_iter {
    ($($r:ident),+) => {
        impl<'w, C: 'static, $($r: Fetch<'w>),+> IntoIterator for Join<'w, (ViewMut<'w, C>, $($r,)+)> {
            type Item = (Entity, (&'w mut C, $($r::Item,)+));
            type IntoIter = JoinIter<'w, C, ($($r,)+)>;

            #[inline]
            fn into_iter(self) -> Self::IntoIter {
                #[allow(non_snake_case)]
                let (view, $($r,)+) = self.fetch;
                let rest = ($($r,)+);
                let mut probe = GroupProbe::default();
                probe.required(GroupMark::of(view.mark()), view.len());
                rest.__probe(&mut probe);
                let driver = view.entities();
                let (entities, values) = view.into_slices();
                if let Some(packed) = packed(&probe, Some(driver)) {
                    let len = packed.len();
                    return JoinIter {
                        entities: [].iter().enumerate(),
                        values: [].iter_mut(),
                        dense: true,
                        rows: packed.iter().copied().zip(values[..len].iter_mut()).zip(rest.__dense(len)),
                        rest,
                    };
                }
                JoinIter {
                    entities: entities.iter().enumerate(),
                    values: values.iter_mut(),
                    dense: false,
                    rows: [].iter().copied().zip([].iter_mut()).zip(rest.__dense(0)),
                    rest,
                }
            }
        }

        impl<'w, C: 'static, $($r: Fetch<'w>),+> Iterator for JoinIter<'w, C, ($($r,)+)> {
            type Item = (Entity, (&'w mut C, $($r::Item,)+));

            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                if self.dense {
                    let ((entity, value), rest) = self.rows.next()?;
                    #[allow(non_snake_case)]
                    let ($($r,)+) = rest;
                    return Some((entity, (value, $($r,)+)));
                }
                loop {
                    let (slot, &entity) = self.entities.next()?;
                    let value = self.values.next()?;
                    if let Some(rest) = Fetch::fetch_at(&self.rest, entity, slot) {
                        #[allow(non_snake_case)]
                        let ($($r,)+) = rest;
                        return Some((entity, (value, $($r,)+)));
                    }
                }
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                if self.dense {
                    self.rows.size_hint()
                } else {
                    (0, Some(self.values.len()))
                }
            }
        }
    };
}

impl_join_iter!(R1);
impl_join_iter!(R1, R2);
impl_join_iter!(R1, R2, R3);
impl_join_iter!(R1, R2, R3, R4);
impl_join_iter!(R1, R2, R3, R4, R5);
impl_join_iter!(R1, R2, R3, R4, R5, R6);
impl_join_iter!(R1, R2, R3, R4, R5, R6, R7);

impl<'w, C: 'static, R: Fetch<'w>> core::iter::FusedIterator for JoinIter<'w, C, R> where
    Self: Iterator
{
}
