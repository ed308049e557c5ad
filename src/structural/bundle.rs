//! How a bundle's values enter the storages: the [`BundleParts`] impls of
//! tuples of 0 to 16 components. Part of the structural path: spawning
//! calls these, nothing else does.

use crate::plumbing::{parts, DistinctComponents};
use crate::plumbing::{Column, ColumnAccess, Storages};
use crate::Entity;

/// A bundle element's `Id`.
macro_rules! bundle_id {
    ($c:ident) => {
        <$c as Column<W>>::Id
    };
}

/// A bundle element, as a failed check names it.
macro_rules! itself {
    ($c:ident) => {
        $c
    };
}

macro_rules! one {
    ($c:ident) => {
        1
    };
}

macro_rules! impl_bundle {
    ($($c:ident),*) => {
        impl<W: Storages $(+ ColumnAccess<$c>)*, $($c),*> parts::BundleParts<W> for ($($c,)*) {
            const LEN: usize = 0 $(+ one!($c))*;
            const INDICES: &'static [usize] = &[$(<W as ColumnAccess<$c>>::INDEX),*];

            #[allow(non_snake_case, unused_variables)]
            #[inline]
            fn insert_into(self, world: &mut W, entity: Entity, token: crate::seal::Token) {
                let ($($c,)*) = self;
                $(world.sparse_map_mut().push_fresh(entity, $c);)*
            }

            #[allow(non_snake_case, unused_variables)]
            fn queue_into(self, queues: &mut <W as Storages>::Queues, entity: Entity, token: crate::seal::Token) {
                let ($($c,)*) = self;
                $(<W as ColumnAccess<$c>>::queue(queues).push_add(entity, $c, crate::queue::OnPresent::Reject);)*
            }

            #[allow(unused_variables)]
            fn reserve(world: &mut W, additional: usize, token: crate::seal::Token) {
                $(<W as ColumnAccess<$c>>::sparse_map_mut(world).reserve_guess(additional);)*
            }

            #[allow(non_snake_case, unused_variables)]
            #[inline]
            fn push_values(self, world: &mut W, token: crate::seal::Token) {
                let ($($c,)*) = self;
                $(<W as ColumnAccess<$c>>::sparse_map_mut(world).push_value($c);)*
            }

            #[allow(unused_variables)]
            fn attach(world: &mut W, entities: &[Entity], token: crate::seal::Token) {
                $(<W as ColumnAccess<$c>>::sparse_map_mut(world).attach(entities);)*
            }

            #[allow(unused_variables)]
            fn attach_fresh(world: &mut W, start: u32, len: u32, token: crate::seal::Token) {
                let fresh = crate::entity::Fresh { start, len };
                $(<W as ColumnAccess<$c>>::sparse_map_mut(world).attach_fresh(fresh);)*
            }
        }

        crate::indices::impl_pairwise!(DistinctComponents<W> where [W: Storages, $($c: Column<W>,)*] bundle_id itself; $($c),*);
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
