//! [`Or`]: a filter that passes an entity if one of 2 to 4 filters does.
//!
//! Every piece of an `Or` is here: its fetch (planned as optional, so a
//! query with an `Or` is driven by its required elements and never walks a
//! packed group), its cursor, its `join` form and its query forms.

use super::fetch::{Access, Cursor, FetchItem, IntoFetch, ReadOnly, Unpacked};
use super::filters::{Or, With, Without};
use super::plan::Planner;
use super::terms::{DistinctTerms, Query, QueryParts, QueryTerm, TermId};
use crate::indices::{Indices, DUPLICATE_IN_QUERY};
use crate::plumbing::Storages;
use crate::{Entity, SparseMap};

/// A fetch that is a filter: it yields `()` and reads only membership.
/// What an [`Or`] may hold. Sealed: implemented for [`With`], [`Without`]
/// and `Or` itself.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a filter an `Or` can hold",
    note = "an `Or` holds 2 to 4 filters: `With<C>`, `Without<C>` or another `Or`"
)]
pub trait Filter<'w>: ReadOnly<'w> {}

impl<'w, C: 'static, K: crate::change::Track> Filter<'w> for With<&'w SparseMap<C, K>> {}
impl<'w, C: 'static, K: crate::change::Track> Filter<'w> for Without<&'w SparseMap<C, K>> {}

macro_rules! impl_or {
    ($($f:ident $t:ident),+) => {
        impl<'w, $($f: Filter<'w>),+> Filter<'w> for Or<($($f,)+)> {}

        impl<'w, $($f: Filter<'w>),+> ReadOnly<'w> for Or<($($f,)+)> {}

        impl<'w, $($f: Filter<'w>),+> FetchItem<'w> for Or<($($f,)+)> {
            type Item<'a> = ();
        }

        #[allow(non_snake_case)]
        impl<'w, $($f: Filter<'w>),+> Access<'w> for Or<($($f,)+)> {
            type Found = ();
            type Cursor = Or<($($f::Cursor,)+)>;
            const COLUMNS: usize = 0 $(+ $f::COLUMNS)+;

            #[inline]
            fn plan(&self, planner: &mut Planner<'w>) {
                let ($($f,)+) = &self.0;
                planner.optional(|planner| {
                    $($f.plan(planner);)+
                });
            }

            #[inline]
            fn find(&self, entity: Entity, slot: usize) -> Option<()> {
                let ($($f,)+) = &self.0;
                (false $(|| $f.find(entity, slot).is_some())+).then_some(())
            }

            #[inline(always)]
            fn fetch(&mut self, (): (), _: Entity) {}

            #[inline(always)]
            fn fetch_owned(self, (): (), _: Entity) {}

            #[inline]
            fn into_cursor(self) -> Self::Cursor {
                let ($($f,)+) = self.0;
                Or(($($f.into_cursor(),)+))
            }

            #[inline]
            fn split_at(self, _mid: usize) -> (Self, Self) {
                (self, self)
            }

            #[inline]
            fn drive(&mut self, driver: &[Entity]) {
                let ($($f,)+) = &mut self.0;
                $($f.drive(driver);)+
            }
        }

        impl<'w, $($f: Filter<'w>),+> Unpacked<'w> for Or<($($f,)+)> {}

        #[allow(non_snake_case)]
        impl<$($f: Cursor),+> Cursor for Or<($($f,)+)> {
            type Item = ();

            #[inline]
            fn next(&mut self, entity: Entity, slot: usize) -> Option<()> {
                let ($($f,)+) = &mut self.0;
                (false $(|| $f.next(entity, slot).is_some())+).then_some(())
            }
        }

        #[allow(non_snake_case)]
        impl<'w, $($t: IntoFetch<'w>),+> IntoFetch<'w> for Or<($($t,)+)>
        where
            $($t::Fetch: Filter<'w>,)+
        {
            type Fetch = Or<($($t::Fetch,)+)>;

            #[inline]
            fn into_fetch(self) -> Self::Fetch {
                let ($($t,)+) = self.0;
                Or(($($t.into_fetch(),)+))
            }
        }

        impl<'w, W, $($t: Query<'w, W>),+> Query<'w, W> for Or<($($t,)+)>
        where
            $($t::Fetch: Filter<'w>,)+
        {
            type Fetch = Or<($($t::Fetch,)+)>;
            const REQUIRED: bool = false;

            #[inline]
            fn fetch(world: &'w W) -> Self::Fetch {
                Or(($($t::fetch(world),)+))
            }

            #[inline]
            fn in_step(world: &'w W, token: crate::seal::Token) -> bool {
                true $(& $t::in_step(world, token))+
            }
        }

        impl<W, $($t),+> TermId<W> for Or<($($t,)+)> {
            type Of = Self;
            type Id = crate::indices::Several;
        }

        impl<W, $($t),+> DistinctTerms<W> for Or<($($t,)+)> {}

        impl<'w, W: Storages + 'w, $($t: QueryTerm<'w, W>),+> QueryTerm<'w, W> for Or<($($t,)+)>
        where
            $($t::Fetch: Filter<'w>,)+
        {
            const INDICES: Indices = Indices::EMPTY $(.and($t::INDICES))+;
        }

        impl<'w, W: Storages + 'w, $($t: QueryTerm<'w, W>),+> QueryParts<'w, W> for Or<($($t,)+)>
        where
            $($t::Fetch: Filter<'w>,)+
        {
            type Fetch = Or<($($t::Fetch,)+)>;
            const REQUIRED: bool = false;
            const EACH_COMPONENT_ONCE: () = assert!(
                crate::indices::all_distinct(<Self as QueryTerm<'w, W>>::INDICES.as_slice()),
                "{}",
                DUPLICATE_IN_QUERY
            );

            #[inline]
            fn fetch(parts: &mut <W as Storages>::Parts<'w>) -> Self::Fetch {
                Or(($($t::fetch(parts),)+))
            }

            #[inline]
            fn sync(world: &mut W) {
                $($t::sync(world);)+
            }

            #[inline]
            fn in_step(world: &W) -> bool {
                true $(&& $t::in_step(world))+
            }
        }
    };
}

impl_or!(F0 T0, F1 T1);
impl_or!(F0 T0, F1 T1, F2 T2);
impl_or!(F0 T0, F1 T1, F2 T2, F3 T3);
