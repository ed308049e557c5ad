//! [`Queue`]: one component's queued changes, and [`Despawns`], the queued
//! despawns: the one queue type behind the world's own deferred changes (a
//! field `world!` generates) and every [`Commands`](crate::Commands) buffer.
//! Filled here; applied by `deferred/`, through the structural path.
//!
//! A queue keeps its adds and its removals each in the order queued. Two
//! ways to fill it:
//!
//! * **checked when queued** (the world's own queue: `add_deferred`,
//!   `remove_deferred`): an entity has at most one queued add and one queued
//!   removal, and an add is refused when it cannot be applied as asked (see
//!   [`QueueRefusal`]). An index (entity → its queued add, and whether its
//!   removal is queued) answers in O(1), and lets a despawn cancel the
//!   entity's queued add at once.
//! * **checked when applied** (a `Commands` buffer, filled where the world
//!   cannot be asked): anything may be queued, duplicates included; the
//!   apply checks each change and reports what it refuses. The index stays
//!   empty.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::fmt;

use crate::sparse_map::EntityIndex;
use crate::Entity;

/// What applying a queued add does when the entity already has the
/// component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OnPresent {
    /// Hand the new value back (`add`, `Commands::add`).
    Reject,
    /// Replace the old value and return it (`insert`, `Commands::insert`,
    /// and the world's checked adds: see the rule table in `deferred/`).
    Replace,
}

/// Why a checked queue refuses an add.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum QueueRefusal {
    /// An add of this component is queued for the entity already.
    AlreadyQueued,
    /// The entity has the component, and its removal is not queued.
    AlreadyPresent,
}

/// One queued add: the entity, and its value with what to do if the entity
/// has a value by then (one enum, so an add costs the value and the entity).
#[derive(Clone)]
struct Add<T> {
    entity: Entity,
    value: Value<T>,
}

/// A queued add's value, and what to do with one the entity has by then.
#[derive(Clone)]
enum Value<T> {
    /// Hand the new value back ([`OnPresent::Reject`]).
    Reject(T),
    /// Replace the old one ([`OnPresent::Replace`]).
    Replace(T),
    /// Cancelled: the entity was despawned and the value handed back.
    Cancelled,
}

impl<T> Value<T> {
    /// The value and its rule, unless cancelled.
    #[inline]
    fn into_parts(self) -> Option<(T, OnPresent)> {
        match self {
            Value::Reject(value) => Some((value, OnPresent::Reject)),
            Value::Replace(value) => Some((value, OnPresent::Replace)),
            Value::Cancelled => None,
        }
    }

    /// The value, unless cancelled.
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    fn as_ref(&self) -> Option<&T> {
        match self {
            Value::Reject(value) | Value::Replace(value) => Some(value),
            Value::Cancelled => None,
        }
    }
}

/// One component's queued adds and removals, each in the order queued:
/// the one queue type of a world's own deferred changes and of every
/// [`Commands`](crate::Commands) buffer.
/// Part of the struct `world!` generates for a world's queues.
pub struct Queue<T> {
    /// The adds, in the order queued.
    adds: VecDeque<Add<T>>,
    /// The removals, in the order queued (`None` once cancelled).
    removes: VecDeque<Option<Entity>>,
    /// The number of adds taken off the front since the list was last
    /// empty: `adds[i]` is numbered `taken + i` (wrapping).
    taken: u32,
    /// The same for the removals.
    removes_taken: u32,
    /// Checked queues only: each entity's queued add, by its number.
    added: EntityIndex,
    /// Checked queues only: each entity's queued removal, by its number.
    removing: EntityIndex,
    /// The adds not cancelled.
    live_adds: usize,
    /// The removals not cancelled.
    live_removes: usize,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue {
            adds: VecDeque::new(),
            removes: VecDeque::new(),
            taken: 0,
            removes_taken: 0,
            added: EntityIndex::default(),
            removing: EntityIndex::default(),
            live_adds: 0,
            live_removes: 0,
        }
    }
}

impl<T: Clone> Clone for Queue<T> {
    fn clone(&self) -> Self {
        Queue {
            adds: self.adds.clone(),
            removes: self.removes.clone(),
            taken: self.taken,
            removes_taken: self.removes_taken,
            added: self.added.clone(),
            removing: self.removing.clone(),
            live_adds: self.live_adds,
            live_removes: self.live_removes,
        }
    }
}

/// The counts, as `(queued: 1 adds, 0 removes)`: the values need not be
/// `Debug`.
impl<T> fmt::Debug for Queue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "(queued: {} adds, {} removes)",
            self.live_adds, self.live_removes
        )
    }
}

impl<T> Queue<T> {
    // ----- checked when applied (`Commands`) -----

    /// Queues an add, checked when applied.
    #[inline]
    pub(crate) fn push_add(&mut self, entity: Entity, value: T, on_present: OnPresent) {
        let value = match on_present {
            OnPresent::Reject => Value::Reject(value),
            OnPresent::Replace => Value::Replace(value),
        };
        self.adds.push_back(Add { entity, value });
        self.live_adds += 1;
    }

    /// Queues a removal, checked when applied.
    #[inline]
    pub(crate) fn push_remove(&mut self, entity: Entity) {
        self.removes.push_back(Some(entity));
        self.live_removes += 1;
    }

    // ----- checked when queued (the world's own) -----

    /// The number the next queued add gets.
    #[inline]
    fn next_add(&self) -> u32 {
        self.taken.wrapping_add(self.adds.len() as u32)
    }

    /// Queues an add of `value` to `entity`, which has a value now if
    /// `present`; or refuses it and hands the value back (see
    /// [`QueueRefusal`]). Applied, it replaces a value the entity gained
    /// meanwhile.
    #[inline]
    pub(crate) fn queue_add(
        &mut self,
        entity: Entity,
        value: T,
        present: bool,
    ) -> Result<(), (QueueRefusal, T)> {
        if self.added.get(entity).is_some() {
            return Err((QueueRefusal::AlreadyQueued, value));
        }
        if present && self.removing.get(entity).is_none() {
            return Err((QueueRefusal::AlreadyPresent, value));
        }
        self.added.insert(entity, self.next_add());
        self.push_add(entity, value, OnPresent::Replace);
        Ok(())
    }

    /// Queues the removal of `entity`'s value, once: queuing it again
    /// changes nothing.
    #[inline]
    pub(crate) fn queue_remove(&mut self, entity: Entity) {
        if self.removing.get(entity).is_none() {
            let number = self.removes_taken.wrapping_add(self.removes.len() as u32);
            self.removing.insert(entity, number);
            self.push_remove(entity);
        }
    }

    /// Queues a saved removal, in a queue checked when queued: refused if
    /// the entity is a reserved handle, or its index is queued already.
    #[cfg(feature = "serde")]
    pub(crate) fn load_remove(&mut self, entity: Entity) -> Result<(), alloc::string::String> {
        if entity.is_reserved() {
            return Err(alloc::format!("hold the reserved handle {entity:?}"));
        }
        if self.removing.holds_index(entity.index()) {
            return Err(alloc::format!("hold entity index {} twice", entity.index()));
        }
        self.queue_remove(entity);
        Ok(())
    }

    /// Queues a saved add (applied, it replaces a value the entity has), in
    /// a queue checked when queued: refused, handing nothing back, if the
    /// entity is a reserved handle or its index has an add queued already.
    #[cfg(feature = "serde")]
    pub(crate) fn load_add(
        &mut self,
        entity: Entity,
        value: T,
    ) -> Result<(), alloc::string::String> {
        if entity.is_reserved() {
            return Err(alloc::format!("hold the reserved handle {entity:?}"));
        }
        if self.added.holds_index(entity.index()) {
            return Err(alloc::format!("hold entity index {} twice", entity.index()));
        }
        self.added.insert(entity, self.next_add());
        self.push_add(entity, value, OnPresent::Replace);
        Ok(())
    }

    /// `entity` was despawned: its queued add and removal are cancelled in
    /// O(1), and the add's value handed back for the caller to drop once
    /// the world is consistent. (Checked queues only: a buffer checks each
    /// entity when it is applied.)
    #[inline(always)]
    pub(crate) fn cancel(&mut self, entity: Entity) -> Option<T> {
        // Every despawn asks every queue, which is nearly always empty.
        if self.added.len() == 0 && self.removing.len() == 0 {
            return None;
        }
        self.cancel_queued(entity)
    }

    /// [`cancel`](Self::cancel), with something queued.
    #[inline(never)]
    fn cancel_queued(&mut self, entity: Entity) -> Option<T> {
        if let Some(number) = self.removing.remove(entity) {
            let at = number.wrapping_sub(self.removes_taken) as usize;
            if let Some(removal) = self.removes.get_mut(at) {
                *removal = None;
                self.live_removes -= 1;
            }
        }
        let number = self.added.remove(entity)?;
        let at = number.wrapping_sub(self.taken) as usize;
        let value = core::mem::replace(&mut self.adds.get_mut(at)?.value, Value::Cancelled);
        self.live_adds -= 1;
        value.into_parts().map(|(value, _)| value)
    }

    /// Takes out every queued change whose entity is not alive (the queue
    /// was moved to, or its world given, another allocator), keeping the
    /// rest in order, and hands back the values for the caller to drop
    /// once the world is consistent. Checked queues only.
    pub(crate) fn forget_dead(&mut self, is_alive: impl Fn(Entity) -> bool) -> Vec<T> {
        let mut dead = Vec::new();
        let adds = core::mem::take(&mut self.adds);
        let removes = core::mem::take(&mut self.removes);
        // Everything comes out of the index and the live ones go back in,
        // renumbered from 0.
        for add in &adds {
            self.added.remove(add.entity);
        }
        for &entity in removes.iter().flatten() {
            self.removing.remove(entity);
        }
        (
            self.taken,
            self.removes_taken,
            self.live_adds,
            self.live_removes,
        ) = (0, 0, 0, 0);
        for add in adds {
            match add.value.into_parts() {
                Some((value, on_present)) if is_alive(add.entity) => {
                    self.added.insert(add.entity, self.next_add());
                    self.push_add(add.entity, value, on_present);
                }
                Some((value, _)) => dead.push(value),
                None => {}
            }
        }
        for entity in removes.into_iter().flatten() {
            if is_alive(entity) {
                self.queue_remove(entity);
            }
        }
        dead
    }

    // ----- applying -----

    /// How many adds are queued (and not cancelled).
    #[inline]
    pub(crate) fn len_adds(&self) -> usize {
        self.live_adds
    }

    /// `true` when nothing is queued and the queue is as new: no entry,
    /// not even a cancelled one, and no count of entries taken left from
    /// an apply cut short. Such a queue needs no apply.
    #[inline]
    pub(crate) fn is_clear(&self) -> bool {
        self.adds.is_empty()
            && self.removes.is_empty()
            && self.taken == 0
            && self.removes_taken == 0
    }

    /// Takes the first queued removal off the queue.
    #[inline]
    pub(crate) fn pop_remove(&mut self) -> Option<Entity> {
        while let Some(removal) = self.removes.pop_front() {
            self.removes_taken = self.removes_taken.wrapping_add(1);
            if let Some(entity) = removal {
                self.live_removes -= 1;
                if self.removing.len() != 0 {
                    self.removing.remove(entity);
                }
                return Some(entity);
            }
        }
        self.removes_taken = 0;
        None
    }

    /// Takes the first queued add (not cancelled) off the queue.
    #[inline]
    pub(crate) fn pop_add(&mut self) -> Option<(Entity, T, OnPresent)> {
        while let Some(add) = self.adds.pop_front() {
            self.taken = self.taken.wrapping_add(1);
            if let Some((value, on_present)) = add.value.into_parts() {
                self.live_adds -= 1;
                if self.added.len() != 0 {
                    self.added.remove(add.entity);
                }
                return Some((add.entity, value, on_present));
            }
        }
        self.taken = 0;
        None
    }

    /// Empties the queue, handing back the values for the caller to drop
    /// once the world is consistent.
    pub(crate) fn take(&mut self) -> Vec<T> {
        let mut values = Vec::with_capacity(self.live_adds);
        for add in self.adds.drain(..) {
            if let Some((value, _)) = add.value.into_parts() {
                self.added.remove(add.entity);
                values.push(value);
            }
        }
        for entity in self.removes.drain(..).flatten() {
            self.removing.remove(entity);
        }
        self.taken = 0;
        self.removes_taken = 0;
        self.live_adds = 0;
        self.live_removes = 0;
        values
    }

    /// The entities with a queued add and their values, in order, and the
    /// entities with a queued removal (for saving, and for the checks).
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(crate) fn entries(
        &self,
    ) -> (
        impl Iterator<Item = (Entity, &T)> + Clone + '_,
        impl Iterator<Item = Entity> + Clone + '_,
    ) {
        let adds = self
            .adds
            .iter()
            .filter_map(|add| add.value.as_ref().map(|value| (add.entity, value)));
        (adds, self.removes.iter().flatten().copied())
    }

    /// Checks the counts, and, in a queue checked when queued (`indexed`),
    /// that the index finds each live entry by its number and holds
    /// nothing else.
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(crate) fn check(&self, what: &str, indexed: bool) -> Result<(), alloc::string::String> {
        use alloc::format;
        let live = self
            .adds
            .iter()
            .filter(|add| add.value.as_ref().is_some())
            .count();
        if live != self.live_adds {
            return Err(format!(
                "{what}: {live} adds queued, {} counted",
                self.live_adds
            ));
        }
        let live = self.removes.iter().flatten().count();
        if live != self.live_removes {
            return Err(format!(
                "{what}: {live} removals queued, {} counted",
                self.live_removes
            ));
        }
        self.added.check(what)?;
        self.removing.check(what)?;
        if !indexed {
            if self.added.len() + self.removing.len() != 0 {
                return Err(format!("{what}: a buffer with an index"));
            }
            return Ok(());
        }
        if self.added.len() != self.live_adds || self.removing.len() != self.live_removes {
            return Err(format!(
                "{what}: the index does not hold every queued change once"
            ));
        }
        for (i, add) in self.adds.iter().enumerate() {
            let number = self.taken.wrapping_add(i as u32);
            if add.value.as_ref().is_some() && self.added.get(add.entity) != Some(number) {
                return Err(format!(
                    "{what}: the queued add of {:?} is not indexed",
                    add.entity
                ));
            }
        }
        for (i, removal) in self.removes.iter().enumerate() {
            let number = self.removes_taken.wrapping_add(i as u32);
            if let Some(entity) = *removal {
                if self.removing.get(entity) != Some(number) {
                    return Err(format!(
                        "{what}: the queued removal of {entity:?} is not indexed"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The queued despawns, in the order queued (a world's and a buffer's).
/// Queueing one entity twice is harmless: the second finds it dead.
#[derive(Clone, Default)]
pub struct Despawns(VecDeque<Entity>);

impl fmt::Debug for Despawns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.0).finish()
    }
}

impl Despawns {
    /// Queues the despawn of `entity`.
    #[inline]
    pub(crate) fn push(&mut self, entity: Entity) {
        self.0.push_back(entity);
    }

    /// Takes the first queued despawn off the queue.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Entity> {
        self.0.pop_front()
    }

    /// Number of despawns queued.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// `true` when no despawn is queued.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The despawns queued, in order (for saving, and for the checks).
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(crate) fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.0.iter().copied()
    }

    /// Empties the queue.
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// Keeps only the despawns of alive entities (a despawn of a dead one
    /// does nothing).
    pub(crate) fn forget_dead(&mut self, is_alive: impl Fn(Entity) -> bool) {
        self.0.retain(|&entity| is_alive(entity));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EntityAllocator;
    use std::format;
    use std::vec::Vec;

    /// `n` entities of an allocator, each with an add (its number) and a
    /// removal queued.
    fn each_added_and_removed(n: usize) -> (EntityAllocator, Vec<Entity>, Queue<usize>) {
        let mut entities = EntityAllocator::new();
        let e: Vec<Entity> = (0..n).map(|_| entities.alloc()).collect();
        let mut queue = Queue::default();
        for (value, &entity) in e.iter().enumerate() {
            queue.queue_add(entity, value, false).unwrap();
            queue.queue_remove(entity);
        }
        (entities, e, queue)
    }

    fn check<T>(queue: &Queue<T>) {
        queue.check("queue", true).unwrap();
    }

    #[test]
    fn a_checked_queue_refuses_what_it_cannot_apply_as_asked() {
        let mut entities = EntityAllocator::new();
        let (a, b) = (entities.alloc(), entities.alloc());
        let mut queue = Queue::default();
        // `a` has a value: an add needs its removal queued first.
        assert_eq!(
            queue.queue_add(a, 2, true),
            Err((QueueRefusal::AlreadyPresent, 2))
        );
        queue.queue_remove(a);
        queue.queue_remove(a); // once is enough
        assert_eq!(queue.queue_add(a, 3, true), Ok(()));
        assert_eq!(
            queue.queue_add(a, 4, true),
            Err((QueueRefusal::AlreadyQueued, 4))
        );
        assert_eq!(queue.queue_add(b, 5, false), Ok(()));
        check(&queue);
        assert_eq!(format!("{queue:?}"), "(queued: 2 adds, 1 removes)");
        assert_eq!(queue.pop_remove(), Some(a));
        assert_eq!(queue.pop_remove(), None);
        assert_eq!(queue.pop_add(), Some((a, 3, OnPresent::Replace)));
        assert_eq!(queue.pop_add(), Some((b, 5, OnPresent::Replace)));
        assert_eq!(queue.pop_add(), None);
        check(&queue);
        // Emptied, the queue takes the same entities again.
        queue.queue_remove(a);
        assert_eq!(queue.queue_add(a, 6, true), Ok(()));
        check(&queue);
    }

    /// A despawn cancels the entity's queued add and removal in O(1); the
    /// rest pops in the order queued, and the queue is consistent after
    /// every step (what a panicking `Drop` between two steps leaves).
    #[test]
    fn cancel_takes_one_entity_out_and_keeps_the_order() {
        let (_, e, mut queue) = each_added_and_removed(5);
        assert_eq!(queue.pop_add(), Some((e[0], 0, OnPresent::Replace)));
        assert_eq!(queue.cancel(e[2]), Some(2));
        assert_eq!(queue.cancel(e[2]), None, "cancelled once");
        check(&queue);
        assert_eq!(format!("{queue:?}"), "(queued: 3 adds, 4 removes)");
        let mut adds = Vec::new();
        while let Some((entity, value, _)) = queue.pop_add() {
            adds.push((entity, value));
            check(&queue);
        }
        assert_eq!(adds, [(e[1], 1), (e[3], 3), (e[4], 4)]);
        let removes: Vec<Entity> = core::iter::from_fn(|| queue.pop_remove()).collect();
        assert_eq!(removes, [e[0], e[1], e[3], e[4]]);
        check(&queue);
    }

    #[test]
    fn a_buffer_keeps_everything_and_take_hands_the_values_back() {
        let mut entities = EntityAllocator::new();
        let a = entities.alloc();
        let mut queue = Queue::default();
        queue.push_add(a, 1, OnPresent::Reject);
        queue.push_add(a, 2, OnPresent::Replace);
        queue.push_remove(a);
        queue.push_remove(a);
        assert_eq!(format!("{queue:?}"), "(queued: 2 adds, 2 removes)");
        queue.check("buffer", false).unwrap();
        assert_eq!(queue.pop_add(), Some((a, 1, OnPresent::Reject)));
        assert_eq!(queue.take(), [2]);
        assert_eq!(queue.pop_remove(), None);
        assert_eq!(format!("{queue:?}"), "(queued: 0 adds, 0 removes)");
    }

    /// Moved to another allocator, a queue drops the entries of entities
    /// not alive there and keeps the rest in order, indexed afresh.
    #[test]
    fn forget_dead_keeps_the_alive_in_order() {
        let (mut entities, e, mut queue) = each_added_and_removed(4);
        assert_eq!(queue.pop_add(), Some((e[0], 0, OnPresent::Replace)));
        let dead = queue.forget_dead(|entity| entity != e[1] && entity != e[3]);
        assert_eq!(dead, [1, 3]);
        check(&queue);
        let (adds, removes) = queue.entries();
        assert!(adds.eq([(e[2], &2)]));
        assert!(removes.eq([e[0], e[2]]));
        // The index was rebuilt: a dead entity's index is free again.
        entities.free(e[1]);
        let reused = entities.alloc();
        assert_eq!(queue.queue_add(reused, 9, false), Ok(()));
        assert_eq!(queue.cancel(e[2]), Some(2));
        check(&queue);
    }

    /// A seeded random run of checked adds, removals, cancels and pops
    /// against a model: two lists in the order queued.
    #[test]
    fn random_operations_match_a_list_model() {
        let mut rng = crate::test_rng::Rng::new(0x5eed_0009);
        let mut entities = EntityAllocator::new();
        let mut live: Vec<Entity> = (0..24).map(|_| entities.alloc()).collect();
        let mut present: Vec<Entity> = Vec::new();
        let mut queue: Queue<u64> = Queue::default();
        let mut adds: Vec<(Entity, u64)> = Vec::new();
        let mut removes: Vec<Entity> = Vec::new();
        for step in 0..40_000u64 {
            let e = live[rng.index(live.len())];
            match rng.index(9) {
                0..=2 => {
                    let has = present.contains(&e);
                    let expected = if adds.iter().any(|&(x, _)| x == e) {
                        Err((QueueRefusal::AlreadyQueued, step))
                    } else if has && !removes.contains(&e) {
                        Err((QueueRefusal::AlreadyPresent, step))
                    } else {
                        adds.push((e, step));
                        Ok(())
                    };
                    assert_eq!(queue.queue_add(e, step, has), expected);
                }
                3 | 4 => {
                    queue.queue_remove(e);
                    if !removes.contains(&e) {
                        removes.push(e);
                    }
                }
                5 => {
                    // a despawn: cancelled, and the index used again
                    let expected = adds.iter().position(|&(x, _)| x == e);
                    let expected = expected.map(|at| adds.remove(at).1);
                    removes.retain(|&x| x != e);
                    present.retain(|&x| x != e);
                    assert_eq!(queue.cancel(e), expected);
                    entities.free(e);
                    let at = live.iter().position(|&x| x == e).unwrap();
                    live[at] = entities.alloc();
                }
                6 => {
                    let expected = (!removes.is_empty()).then(|| removes.remove(0));
                    assert_eq!(queue.pop_remove(), expected);
                    present.retain(|&x| Some(x) != expected);
                }
                7 => {
                    let expected = (!adds.is_empty()).then(|| adds.remove(0));
                    let popped = queue.pop_add().map(|(x, value, _)| (x, value));
                    assert_eq!(popped, expected);
                    if let Some((x, _)) = expected {
                        if !present.contains(&x) {
                            present.push(x);
                        }
                    }
                }
                _ => {
                    if rng.chance(2) {
                        let values = queue.take();
                        let expected: Vec<u64> = adds.drain(..).map(|(_, v)| v).collect();
                        assert_eq!(values, expected);
                        removes.clear();
                    }
                }
            }
            if step % 97 == 0 {
                check(&queue);
                let (queued_adds, queued_removes) = queue.entries();
                assert!(queued_adds.map(|(x, &v)| (x, v)).eq(adds.iter().copied()));
                assert!(queued_removes.eq(removes.iter().copied()));
            }
        }
        check(&queue);
    }
}
