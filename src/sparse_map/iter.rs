//! Iterators over a storage's entity array and value array in step.

use crate::Entity;

/// Writes an iterator over a storage's entity array and value array in step.
macro_rules! pair_iter {
    ($(#[$meta:meta])* $name:ident, $values:ident, $($value_ref:tt)+) => {
        $(#[$meta])*
        #[derive(Debug)]
        pub struct $name<'a, T> {
            pub(super) entities: core::slice::Iter<'a, Entity>,
            pub(super) values: core::slice::$values<'a, T>,
        }

        impl<'a, T> Iterator for $name<'a, T> {
            type Item = (Entity, $($value_ref)+ T);

            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                Some((*self.entities.next()?, self.values.next()?))
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                self.values.size_hint()
            }
        }

        impl<T> DoubleEndedIterator for $name<'_, T> {
            #[inline]
            fn next_back(&mut self) -> Option<Self::Item> {
                Some((*self.entities.next_back()?, self.values.next_back()?))
            }
        }

        impl<T> ExactSizeIterator for $name<'_, T> {}
        impl<T> core::iter::FusedIterator for $name<'_, T> {}
    };
}

pair_iter!(
    /// Iterator over `(Entity, &T)` of a [`SparseMap`](super::SparseMap), made by
    /// [`SparseMap::iter`](super::SparseMap::iter).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(f32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(3.0),));
    /// let iter: typed_ecs::Iter<'_, Pos> = world.pos.iter();
    /// assert_eq!(iter.len(), 1);
    /// ```
    Iter, Iter, &'a
);

pair_iter!(
    /// Iterator over `(Entity, &mut T)` of a [`SparseMap`](super::SparseMap), made
    /// by [`SparseMap::iter_mut`](super::SparseMap::iter_mut), and of a query over one `&mut T`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(f32);
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(3.0),));
    /// let iter: typed_ecs::IterMut<'_, Pos> = world.pos.iter_mut();
    /// assert_eq!(iter.len(), 1);
    /// ```
    IterMut, IterMut, &'a mut
);

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            entities: self.entities.clone(),
            values: self.values.clone(),
        }
    }
}
