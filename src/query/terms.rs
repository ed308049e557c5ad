//! Query types: what a query names (`&C`, `&mut C`, `Option<…>`, [`With`],
//! [`Without`], tuples), and how each becomes a [`Fetch`] over a world's
//! storages. The filter types themselves are in `filters.rs`.

use super::changed::{ChangedMut, ChangedRef};
use super::fetch::UpColumn;
use super::fetch::{Fetch, FromStorage, ReadOnly, Writable};
use super::filters::{
    Added, Changed, Has, Lazy, Linked, Maybe, Targeted, Unlinked, Up, With, Without,
};
use super::lazy::LazyViewMut;
use crate::change::Tracked;
use crate::in_step;
use crate::indices::{all_distinct_lists, Indices, DUPLICATE_IN_QUERY, NEEDS_REQUIRED};
use crate::plumbing::{Column, ColumnAccess, ColumnOf, Storages};
use crate::plumbing::{RelationAccess, TrackedColumn};
use crate::relation::{self, Relates};
use crate::seal::{Token, TOKEN};
use crate::SparseMap;

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
    note = "a query is `&C`, `Option<&C>`, `With<C>`, `Without<C>` or `Has<C>` for a component `C` of `{W}`, \
            or a tuple of up to 12 of them, such as `(&A, &B)`"
)]
pub trait Query<'w, W> {
    /// The borrowed storages.
    type Fetch: ReadOnly<'w>;

    /// `true` if the query has a component every result must have (`&C` or
    /// `With<C>`), which drives the iteration.
    const REQUIRED: bool;

    /// Borrows the storages from `world`.
    fn fetch(world: &'w W) -> Self::Fetch;

    /// `true` if every storage the query reads is in step with `world`'s
    /// allocator. Internal: only this crate can make the token.
    #[doc(hidden)]
    fn in_step(world: &'w W, token: Token) -> bool;
}

impl<'w, W: ColumnAccess<C>, C: 'static> Query<'w, W> for &'w C {
    type Fetch = &'w SparseMap<C, <W as ColumnOf<C>>::Track>;
    const REQUIRED: bool = true;

    #[inline]
    fn fetch(world: &'w W) -> Self::Fetch {
        world.sparse_map()
    }

    #[inline]
    fn in_step(world: &'w W, _: Token) -> bool {
        in_step::is_in_step::<W, C>(world)
    }
}

impl<'w, W: ColumnAccess<C>, C: 'static> Query<'w, W> for Option<&'w C> {
    type Fetch = Maybe<&'w SparseMap<C, <W as ColumnOf<C>>::Track>>;
    const REQUIRED: bool = false;

    #[inline]
    fn fetch(world: &'w W) -> Self::Fetch {
        Maybe(world.sparse_map())
    }

    #[inline]
    fn in_step(world: &'w W, _: Token) -> bool {
        in_step::is_in_step::<W, C>(world)
    }
}

impl<'w, W: ColumnAccess<C>, C: 'static> Query<'w, W> for With<C> {
    type Fetch = With<&'w SparseMap<C, <W as ColumnOf<C>>::Track>>;
    const REQUIRED: bool = true;

    #[inline]
    fn fetch(world: &'w W) -> Self::Fetch {
        With(world.sparse_map())
    }

    #[inline]
    fn in_step(world: &'w W, _: Token) -> bool {
        in_step::is_in_step::<W, C>(world)
    }
}

impl<'w, W: ColumnAccess<C>, C: 'static> Query<'w, W> for Has<C> {
    type Fetch = Has<&'w SparseMap<C, <W as ColumnOf<C>>::Track>>;
    const REQUIRED: bool = false;

    #[inline]
    fn fetch(world: &'w W) -> Self::Fetch {
        Has(world.sparse_map())
    }

    #[inline]
    fn in_step(world: &'w W, _: Token) -> bool {
        in_step::is_in_step::<W, C>(world)
    }
}

impl<'w, W: ColumnAccess<C>, C: 'static> Query<'w, W> for Without<C> {
    type Fetch = Without<&'w SparseMap<C, <W as ColumnOf<C>>::Track>>;
    const REQUIRED: bool = false;

    #[inline]
    fn fetch(world: &'w W) -> Self::Fetch {
        Without(world.sparse_map())
    }

    #[inline]
    fn in_step(world: &'w W, _: Token) -> bool {
        in_step::is_in_step::<W, C>(world)
    }
}

// ----- change filters: `Changed<&C>`, `Added<&mut C>`, … (world's view) -----

macro_rules! impl_change_terms {
    ($($filter:ident => $added:literal),+) => {$(
        impl<'w, W: ColumnAccess<C>, C: TrackedColumn<W> + 'static> Query<'w, W> for $filter<&'w C> {
            type Fetch = ChangedRef<'w, C>;
            const REQUIRED: bool = true;

            #[inline]
            fn fetch(world: &'w W) -> Self::Fetch {
                let map = C::field(world, TOKEN);
                ChangedRef::new(map, map.log().world_view(), $added)
            }

            #[inline]
            fn in_step(world: &'w W, _: Token) -> bool {
                in_step::is_in_step::<W, C>(world)
            }
        }

        impl<'w, W: Storages, C: Column<W>> TermId<W> for $filter<&'w C> {
            type Of = C;
            type Id = C::Id;
        }

        impl<'w, W: Storages, C: Column<W>> DistinctTerms<W> for $filter<&'w C> {}

        impl<'w, W: Storages, C: Column<W>> TermId<W> for $filter<&'w mut C> {
            type Of = C;
            type Id = C::Id;
        }

        impl<'w, W: Storages, C: Column<W>> DistinctTerms<W> for $filter<&'w mut C> {}

        impl<'w, W: ColumnAccess<C> + 'w, C: TrackedColumn<W> + 'static> QueryTerm<'w, W> for $filter<&'w C> {
            const INDICES: Indices = Indices::one(<W as ColumnAccess<C>>::INDEX);
        }

        impl<'w, W: ColumnAccess<C> + 'w, C: TrackedColumn<W> + 'static> QueryParts<'w, W> for $filter<&'w C> {
            type Fetch = ChangedRef<'w, C>;
            const REQUIRED: bool = true;
            const EACH_COMPONENT_ONCE: () = ();

            #[inline]
            fn fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
                let map: &'w crate::SparseMap<C, Tracked> = C::take(parts, TOKEN);
                ChangedRef::new(map, map.log().world_view(), $added)
            }

            #[inline]
            fn sync(world: &mut W) {
                in_step::sync::<W, C>(world);
            }

            #[inline]
            fn in_step(world: &W) -> bool {
                in_step::is_in_step::<W, C>(world)
            }
        }

        impl<'w, W: ColumnAccess<C> + 'w, C: TrackedColumn<W> + 'static> QueryTerm<'w, W> for $filter<&'w mut C> {
            const INDICES: Indices = Indices::one(<W as ColumnAccess<C>>::INDEX);
        }

        impl<'w, W: ColumnAccess<C> + 'w, C: TrackedColumn<W> + 'static> QueryParts<'w, W> for $filter<&'w mut C> {
            type Fetch = ChangedMut<'w, C>;
            const REQUIRED: bool = true;
            const EACH_COMPONENT_ONCE: () = ();

            #[inline]
            fn fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
                let map: &'w mut crate::SparseMap<C, Tracked> = C::take(parts, TOKEN);
                let window = map.log().world_view();
                ChangedMut::new(map, window, $added)
            }

            #[inline]
            fn sync(world: &mut W) {
                in_step::sync::<W, C>(world);
            }

            #[inline]
            fn in_step(world: &W) -> bool {
                in_step::is_in_step::<W, C>(world)
            }
        }
    )+};
}

impl_change_terms!(Changed => false, Added => true);

macro_rules! impl_query_tuples {
    ($($q:ident),+) => {
        impl<'w, W, $($q: Query<'w, W>),+> Query<'w, W> for ($($q,)+) {
            type Fetch = ($($q::Fetch,)+);
            const REQUIRED: bool = $($q::REQUIRED)||+;

            #[inline]
            fn fetch(world: &'w W) -> Self::Fetch {
                ($($q::fetch(world),)+)
            }

            #[inline]
            fn in_step(world: &'w W, token: Token) -> bool {
                // `&`, not `&&`: no branch per storage.
                true $(& $q::in_step(world, token))+
            }
        }
    };
}

impl_query_tuples!(Q0);
impl_query_tuples!(Q0, Q1);
impl_query_tuples!(Q0, Q1, Q2);
impl_query_tuples!(Q0, Q1, Q2, Q3);
impl_query_tuples!(Q0, Q1, Q2, Q3, Q4);
impl_query_tuples!(Q0, Q1, Q2, Q3, Q4, Q5);
impl_query_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6);
impl_query_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7);
impl_query_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8);
impl_query_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9);
impl_query_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10);
impl_query_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11);

/// One element of a mutable query: `&C`, `&mut C`, `Option<&C>`,
/// `Option<&mut C>`, [`With<C>`] or [`Without<C>`], for a component `C` of
/// `W`, or an [`Or`](super::Or) of filters.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{Or, QueryTerm};
///
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; }
///
/// assert_eq!(<&mut Vel as QueryTerm<'_, Game>>::INDICES.as_slice(), [1]);
/// assert_eq!(<Or<(With<Pos>, With<Vel>)> as QueryTerm<'_, Game>>::INDICES.as_slice(), [0, 1]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query element over `{W}`",
    label = "not a query element over `{W}`",
    note = "a mutable query element is `&C`, `&mut C`, `Option<&C>`, `Option<&mut C>`, `With<C>`, \
            `Without<C>`, `Has<C>`, `Lazy<C>` for a component `C` of `{W}`, or an `Or` of filters"
)]
pub trait QueryTerm<'w, W: Storages + 'w>: QueryParts<'w, W> {
    /// The storage index in `W` of each component the element names (one,
    /// or an `Or`'s several), for the aliasing check.
    const INDICES: Indices;
}

/// The half of [`QueryMut`] that the type checker proves: the query's
/// elements name different components of `W`, each pair meeting a
/// `Differ` bound on their storage indices as types (an [`Or`](super::Or)
/// is checked when the program is built only). Not public API: write
/// `QueryMut<'w, W>`.
#[doc(hidden)] // Reached through `QueryMut` only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` may name a component of `{W}` twice",
    label = "not known to name each component once",
    note = "bound the query by `QueryMut<'w, {W}>`, which includes this check"
)]
pub trait DistinctTerms<W> {}

/// What the check that a query names each component once sees of one of
/// its elements: the component it names (`Of`, what a failure names) and
/// that component's storage index as a type (`Id`). Sealed in effect: only
/// this crate's query elements implement it.
pub trait TermId<W> {
    /// The component the element names.
    type Of;
    /// Its storage index in `W`, as a type.
    type Id;
}

/// A query element's `Id`.
macro_rules! term_id {
    ($q:ident) => {
        <$q as TermId<W>>::Id
    };
}

/// A query element's component, as a failed check names it.
macro_rules! term_of {
    ($q:ident) => {
        <$q as TermId<W>>::Of
    };
}

macro_rules! impl_query_term {
    ($($term:ty => $fetch:ty, $required:literal;)+) => {$(
        impl<'w, W: ColumnAccess<C> + 'w, C: 'static> QueryTerm<'w, W> for $term
        where
            <W as ColumnOf<C>>::Track: Writable<C>,
        {
            const INDICES: Indices = Indices::one(<W as ColumnAccess<C>>::INDEX);
        }

        impl<'w, W: Storages, C: Column<W>> TermId<W> for $term {
            type Of = C;
            type Id = C::Id;
        }

        impl<'w, W: Storages, C: Column<W>> DistinctTerms<W> for $term {}

        impl<'w, W: ColumnAccess<C> + 'w, C: 'static> QueryParts<'w, W> for $term
        where
            <W as ColumnOf<C>>::Track: Writable<C>,
        {
            type Fetch = $fetch;
            const REQUIRED: bool = $required;
            const EACH_COMPONENT_ONCE: () = ();

            #[inline]
            fn fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
                FromStorage::from_storage(<W as ColumnAccess<C>>::take(parts))
            }

            #[inline]
            fn sync(world: &mut W) {
                in_step::sync::<W, C>(world);
            }

            #[inline]
            fn in_step(world: &W) -> bool {
                in_step::is_in_step::<W, C>(world)
            }
        }
    )+};
}

impl_query_term! {
    &'w C => &'w SparseMap<C, <W as ColumnOf<C>>::Track>, true;
    &'w mut C => <<W as ColumnOf<C>>::Track as Writable<C>>::View<'w>, true;
    Option<&'w C> => Maybe<&'w SparseMap<C, <W as ColumnOf<C>>::Track>>, false;
    Option<&'w mut C> => Maybe<<<W as ColumnOf<C>>::Track as Writable<C>>::View<'w>>, false;
    With<C> => With<&'w SparseMap<C, <W as ColumnOf<C>>::Track>>, true;
    Without<C> => Without<&'w SparseMap<C, <W as ColumnOf<C>>::Track>>, false;
    Has<C> => Has<&'w SparseMap<C, <W as ColumnOf<C>>::Track>>, false;
    Lazy<C> => LazyViewMut<'w, C>, true;
}

// ----- relation terms: `Up<R, &C>`, `Up<R, Option<&C>>`, `Linked<R>`,
// `Unlinked<R>`, `Targeted<R>` -----

/// `true` if the relation `R`'s two sides in `world` are in step (a field
/// swapped, taken or cloned is not until the next relation operation).
#[inline]
fn relation_in_step<W: Relates<R>, R>(world: &W) -> bool {
    relation::in_step(world.links(), world.sources())
}

/// The allocator, if a read-only query must check that targets are alive
/// (the relation is not in step).
#[inline]
fn alive_check<W: Storages + Relates<R>, R>(world: &W) -> Option<&crate::EntityAllocator> {
    (!relation_in_step::<W, R>(world)).then(|| world.allocator(TOKEN))
}

/// An `Up` term's two forms: what it reads on the target, from a world
/// (`query`) or its split borrow (`query_mut`).
macro_rules! impl_up_terms {
    ($($q:ty => $inner:ty, |$map:ident| $wrap:expr;)+) => {$(
        impl<'w, W: ColumnAccess<C> + Relates<R, Forward = crate::Links<R>>, R: 'w, C: 'static> Query<'w, W> for Up<R, $q> {
            type Fetch = UpColumn<'w, R, $inner>;
            const REQUIRED: bool = false;

            #[inline]
            fn fetch(world: &'w W) -> Self::Fetch {
                let $map = world.sparse_map();
                UpColumn {
                    links: world.links(),
                    inner: $wrap,
                    alive: alive_check::<W, R>(world),
                }
            }

            #[inline]
            fn in_step(world: &'w W, _: Token) -> bool {
                in_step::is_in_step::<W, C>(world) & relation_in_step::<W, R>(world)
            }
        }

        impl<'w, W: Storages, R, C: Column<W>> TermId<W> for Up<R, $q> {
            type Of = C;
            type Id = C::Id;
        }

        impl<'w, W: Storages, R, C: Column<W>> DistinctTerms<W> for Up<R, $q> {}

        impl<'w, W: ColumnAccess<C> + RelationAccess<R> + Relates<R, Forward = crate::Links<R>> + 'w, R: 'w, C: 'static> QueryTerm<'w, W> for Up<R, $q> {
            const INDICES: Indices = Indices::one(<W as ColumnAccess<C>>::INDEX);
        }

        impl<'w, W: ColumnAccess<C> + RelationAccess<R> + Relates<R, Forward = crate::Links<R>> + 'w, R: 'w, C: 'static> QueryParts<'w, W> for Up<R, $q> {
            type Fetch = UpColumn<'w, R, $inner>;
            const REQUIRED: bool = false;
            const EACH_COMPONENT_ONCE: () = ();

            #[inline]
            fn fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
                let links = <W as RelationAccess<R>>::links(parts, TOKEN);
                let $map: &'w SparseMap<C, <W as ColumnOf<C>>::Track> = <W as ColumnAccess<C>>::take(parts);
                UpColumn {
                    links,
                    inner: $wrap,
                    alive: None,
                }
            }

            #[inline]
            fn sync(world: &mut W) {
                in_step::sync::<W, C>(world);
                world.sides().in_step();
            }

            #[inline]
            fn in_step(world: &W) -> bool {
                in_step::is_in_step::<W, C>(world) && relation_in_step::<W, R>(world)
            }
        }
    )+};
}

impl_up_terms! {
    &'w C => &'w SparseMap<C, <W as ColumnOf<C>>::Track>, |map| map;
    Option<&'w C> => Maybe<&'w SparseMap<C, <W as ColumnOf<C>>::Track>>, |map| Maybe(map);
}

/// A relation filter term: it reads one side of `R`, names no component
/// (so it differs from every other term), and is not required.
macro_rules! impl_relation_filter_terms {
    ($($filter:ident => $side:ty, $method:ident;)+) => {$(
        impl<'w, W: Storages + Relates<R>, R: 'w> Query<'w, W> for $filter<R> {
            type Fetch = $filter<&'w $side>;
            const REQUIRED: bool = false;

            #[inline]
            fn fetch(world: &'w W) -> Self::Fetch {
                $filter(world.$method())
            }

            #[inline]
            fn in_step(world: &'w W, _: Token) -> bool {
                relation_in_step::<W, R>(world)
            }
        }

        impl<W: Storages, R> TermId<W> for $filter<R> {
            type Of = R;
            type Id = crate::indices::Several;
        }

        impl<W: Storages, R> DistinctTerms<W> for $filter<R> {}

        impl<'w, W: RelationAccess<R> + 'w, R: 'w> QueryTerm<'w, W> for $filter<R> {
            const INDICES: Indices = Indices::EMPTY;
        }

        impl<'w, W: RelationAccess<R> + 'w, R: 'w> QueryParts<'w, W> for $filter<R> {
            type Fetch = $filter<&'w $side>;
            const REQUIRED: bool = false;
            const EACH_COMPONENT_ONCE: () = ();

            #[inline]
            fn fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
                $filter(<W as RelationAccess<R>>::$method(parts, TOKEN))
            }

            #[inline]
            fn sync(world: &mut W) {
                world.sides().in_step();
            }

            #[inline]
            fn in_step(world: &W) -> bool {
                relation_in_step::<W, R>(world)
            }
        }
    )+};
}

impl_relation_filter_terms! {
    Linked => <W as Relates<R>>::Forward, links;
    Unlinked => <W as Relates<R>>::Forward, links;
    Targeted => crate::Sources<R>, sources;
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
            `Without<C>`, `Has<C>`, `Lazy<C>` for a component `C` of `{W}`, or a tuple of up to 8 of \
            them"
)]
pub trait QueryMut<'w, W: Storages + 'w>: QueryParts<'w, W> + DistinctTerms<W> {}

impl<'w, W: Storages + 'w, Q: QueryParts<'w, W> + DistinctTerms<W>> QueryMut<'w, W> for Q {}

/// What the query `Q` over the world `W` yields for one entity: the
/// `(&mut A, &B)` of a `(&mut A, &B)` query. What
/// [`World::get_many`](crate::World::get_many) returns.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::QueryItem;
///
/// struct A(i32);
/// struct B(i32);
/// world! { struct Game<A, B>; }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((A(1), B(2)));
/// let item: Option<QueryItem<'_, Game, (&mut A, &B)>> = world.get_many::<(&mut A, &B)>(e);
/// let (a, b) = item.unwrap();
/// a.0 += b.0;
/// ```
pub type QueryItem<'w, W, Q> =
    <<Q as QueryParts<'w, W>>::Fetch as crate::query::fetch::FetchItem<'w>>::Item<'w>;

/// How a mutable query takes its storages from a world: the interface of
/// [`QueryMut`]. Sealed: implemented by this crate's terms only (`&C`,
/// `&mut C`, `Option<…>`, [`With`], [`Without`], [`Changed`], [`Added`],
/// [`Or`](super::filters::Or) and tuples). `Q::Fetch` is the query's [`Fetch`].
pub trait QueryParts<'w, W: Storages + 'w>: crate::seal::Sealed {
    /// The borrowed storages.
    type Fetch: Fetch<'w>;

    /// `true` if a term is required (`&C`, `&mut C`, `With<C>`).
    const REQUIRED: bool;

    /// Evaluated where a query is made (inside the user-facing method, so
    /// that a build error's last note points at the caller's line): fails
    /// the build if a component appears twice.
    const EACH_COMPONENT_ONCE: ();

    /// Likewise: fails the build if no term is required.
    const ONE_REQUIRED: () = assert!(Self::REQUIRED, "{}", NEEDS_REQUIRED);

    /// Takes the storages out of the world's split borrow.
    fn fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch;

    /// Brings the storages in step with `world`'s allocator.
    fn sync(world: &mut W);

    /// `true` if every storage is in step with `world`'s allocator.
    fn in_step(world: &W) -> bool;
}

macro_rules! impl_query_mut_tuples {
    ($($q:ident),+) => {
        impl<'w, W: Storages + 'w, $($q: QueryTerm<'w, W> + 'w),+> QueryParts<'w, W> for ($($q,)+) {
            type Fetch = ($($q::Fetch,)+);
            const REQUIRED: bool = $($q::REQUIRED)||+;
            const EACH_COMPONENT_ONCE: () = assert!(
                all_distinct_lists(&[$($q::INDICES.as_slice()),+]),
                "{}",
                DUPLICATE_IN_QUERY
            );

            #[inline]
            fn fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
                ($($q::fetch(parts),)+)
            }

            #[inline]
            fn sync(world: &mut W) {
                $($q::sync(world);)+
            }

            #[inline]
            fn in_step(world: &W) -> bool {
                true $(&& $q::in_step(world))+
            }
        }

        crate::indices::impl_pairwise!(DistinctTerms<W> where [$($q: TermId<W>,)+] term_id term_of; $($q),+);
    };
}

impl_query_mut_tuples!(Q0);
impl_query_mut_tuples!(Q0, Q1);
impl_query_mut_tuples!(Q0, Q1, Q2);
impl_query_mut_tuples!(Q0, Q1, Q2, Q3);
impl_query_mut_tuples!(Q0, Q1, Q2, Q3, Q4);
impl_query_mut_tuples!(Q0, Q1, Q2, Q3, Q4, Q5);
impl_query_mut_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6);
impl_query_mut_tuples!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7);

// The terms, sealed (`&T`, `&mut T` and tuples are sealed by `system`).
impl<T> crate::seal::Sealed for Option<T> {}
impl<T> crate::seal::Sealed for With<T> {}
impl<T> crate::seal::Sealed for Without<T> {}
impl<T> crate::seal::Sealed for Has<T> {}
impl<T> crate::seal::Sealed for Lazy<T> {}
impl<T> crate::seal::Sealed for Changed<T> {}
impl<T> crate::seal::Sealed for Added<T> {}
impl<T> crate::seal::Sealed for super::filters::Or<T> {}
impl<T> crate::seal::Sealed for Maybe<T> {}
impl<R, Q> crate::seal::Sealed for Up<R, Q> {}
impl<R> crate::seal::Sealed for Linked<R> {}
impl<R> crate::seal::Sealed for Unlinked<R> {}
impl<R> crate::seal::Sealed for Targeted<R> {}
