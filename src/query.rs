//! Queries: iterate the entities that have every component in a set.
//!
//! A query type (`&A`, or a tuple such as `(&A, &B)`) names what to read. It
//! is turned into a [`Fetch`]: the storages it reads, borrowed from the world.
//! Iteration walks the entities of the *smallest* storage in the query (the
//! driver) and looks each one up in the others, so its cost follows the
//! rarest component, not the world's size.

use core::slice;

use crate::world::Contains;
use crate::{Entity, SparseMap};

/// The storages a query reads, borrowed for `'w`, and how to read one
/// entity's items from them.
///
/// Implemented for `&SparseMap<C>` and for tuples of fetches. You rarely name
/// it: [`World::query`](crate::World::query) builds one from a query type.
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
    /// What one entity yields: `&'w C`, or a tuple of items.
    type Item;

    /// The entities to iterate: the smallest dense entity array among the
    /// storages this fetch requires, or `None` if it requires none.
    fn driver(&self) -> Option<&'w [Entity]>;

    /// The items of `entity`, or `None` if it lacks a required component.
    fn fetch(&self, entity: Entity) -> Option<Self::Item>;
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
}

/// A read-only query over a world `W`: `&C` for a component `C` of `W`, or a
/// tuple of up to 12 queries.
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
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query over `{W}`",
    label = "not a query over `{W}`",
    note = "a query is `&C` for a component `C` of `{W}`, or a tuple of up to 12 of them, such as `(&A, &B)`"
)]
pub trait Query<'w, W> {
    /// The borrowed storages.
    type Fetch: Fetch<'w>;

    /// Borrows the storages from `world`.
    fn fetch(world: &'w W) -> Self::Fetch;
}

impl<'w, W: Contains<C>, C: 'w> Query<'w, W> for &'w C {
    type Fetch = &'w SparseMap<C>;

    #[inline]
    fn fetch(world: &'w W) -> Self::Fetch {
        world.sparse_map()
    }
}

/// Returns whichever of two candidate driver slices is shorter.
#[inline]
fn shorter<'w>(a: Option<&'w [Entity]>, b: Option<&'w [Entity]>) -> Option<&'w [Entity]> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.len() < a.len() { b } else { a }),
        (a, None) => a,
        (None, b) => b,
    }
}

macro_rules! impl_query_tuple {
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
        }

        impl<'w, W, $($q: Query<'w, W>),+> Query<'w, W> for ($($q,)+) {
            type Fetch = ($($q::Fetch,)+);

            #[inline]
            fn fetch(world: &'w W) -> Self::Fetch {
                ($($q::fetch(world),)+)
            }
        }
    };
}

impl_query_tuple!(Q0);
impl_query_tuple!(Q0, Q1);
impl_query_tuple!(Q0, Q1, Q2);
impl_query_tuple!(Q0, Q1, Q2, Q3);
impl_query_tuple!(Q0, Q1, Q2, Q3, Q4);
impl_query_tuple!(Q0, Q1, Q2, Q3, Q4, Q5);
impl_query_tuple!(Q0, Q1, Q2, Q3, Q4, Q5, Q6);
impl_query_tuple!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7);
impl_query_tuple!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8);
impl_query_tuple!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9);
impl_query_tuple!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10);
impl_query_tuple!(Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11);

/// Iterator over the results of a query: `(Entity, items)` for every entity
/// that has all the query's components. Made by
/// [`World::query`](crate::World::query).
///
/// Order follows the driving (smallest) storage's dense order and is not
/// otherwise promised.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::QueryIter;
///
/// struct Pos(i32);
/// world! { struct Game<Pos>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(1),));
/// let mut iter: QueryIter<'_, _> = world.query::<&Pos>();
/// assert_eq!(iter.size_hint(), (0, Some(1)));
/// assert_eq!(iter.next().map(|(_, pos)| pos.0), Some(1));
/// ```
#[derive(Clone, Debug)]
pub struct QueryIter<'w, F> {
    fetch: F,
    entities: slice::Iter<'w, Entity>,
}

impl<'w, F: Fetch<'w>> QueryIter<'w, F> {
    /// Iterates `fetch`, driven by its smallest required storage.
    pub(crate) fn new(fetch: F) -> Self {
        let driver = fetch.driver().unwrap_or(&[]);
        QueryIter {
            fetch,
            entities: driver.iter(),
        }
    }
}

impl<'w, F: Fetch<'w>> Iterator for QueryIter<'w, F> {
    type Item = (Entity, F::Item);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        for &entity in self.entities.by_ref() {
            if let Some(items) = self.fetch.fetch(entity) {
                return Some((entity, items));
            }
        }
        None
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.entities.len()))
    }
}

impl<'w, F: Fetch<'w>> core::iter::FusedIterator for QueryIter<'w, F> {}
