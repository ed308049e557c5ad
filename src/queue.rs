//! One component's queue in a [`Commands`](crate::Commands) buffer. A leaf:
//! the world's plumbing names this type (a buffer's queues are a struct
//! `world!` generates), so it imports nothing but [`Entity`].

use alloc::collections::VecDeque;
use core::fmt;

use crate::Entity;

/// One component's queued adds and removes in a
/// [`Commands`](crate::Commands) buffer: part of the struct `world!`
/// generates for the buffer. Each is taken out as it is applied, so a
/// panicking `Drop` leaves the rest queued, in order.
pub struct Queue<T> {
    /// Each add, and whether it replaces a value the entity has (`insert`)
    /// rather than being rejected (`add`).
    pub(crate) adds: VecDeque<(Entity, T, bool)>,
    pub(crate) removes: VecDeque<Entity>,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue {
            adds: VecDeque::new(),
            removes: VecDeque::new(),
        }
    }
}

impl<T> fmt::Debug for Queue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Queue")
            .field("adds", &self.adds.len())
            .field("removes", &self.removes.len())
            .finish()
    }
}

impl<T> Queue<T> {
    /// Queues an add, which is rejected at apply if the entity has a value.
    #[inline]
    pub(crate) fn push_add(&mut self, entity: Entity, value: T) {
        self.adds.push_back((entity, value, false));
    }

    /// Queues an insert, which replaces a value the entity has at apply.
    #[inline]
    pub(crate) fn push_insert(&mut self, entity: Entity, value: T) {
        self.adds.push_back((entity, value, true));
    }
}
