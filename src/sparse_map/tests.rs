//! Unit tests of the storage, with a seeded random run against a `HashMap`
//! model.

use super::pages::PAGE_LEN;
use super::*;
use crate::EntityAllocator;
use std::collections::HashMap;
use std::format;

#[test]
fn insert_get_remove() {
    let mut entities = EntityAllocator::new();
    let (a, b, c) = (entities.alloc(), entities.alloc(), entities.alloc());
    let mut map = SparseMap::new();
    assert_eq!(map.insert(a, "a"), None);
    assert_eq!(map.insert(b, "b"), None);
    assert_eq!(map.insert(c, "c"), None);
    assert_eq!(map.insert(b, "B"), Some("b"));
    assert_eq!(map.remove(a), Some("a"));
    // swap-remove moved c into slot 0
    assert_eq!(map.entities(), &[c, b]);
    assert_eq!(map.values(), &["c", "B"]);
    assert_eq!(map.get(a), None);
    assert_eq!(map.get(c), Some(&"c"));
    map.assert_invariants();
}

#[test]
fn stale_handle_finds_nothing() {
    let mut entities = EntityAllocator::new();
    let a = entities.alloc();
    let mut map = SparseMap::new();
    map.insert(a, 1);
    map.remove(a);
    entities.free(a);
    let reused = entities.alloc();
    assert_eq!(reused.index(), a.index());
    map.insert(reused, 2);
    assert_eq!(map.get(a), None);
    assert!(!map.contains(a));
    assert_eq!(map.remove(a), None);
    assert_eq!(map.get(reused), Some(&2));
}

#[test]
fn sparse_index_is_paged() {
    let far = Entity::from_bits(1_000_000 | (1 << 32)).unwrap();
    let mut map = SparseMap::new();
    map.insert(far, 7u8);
    assert_eq!(map.sparse_pages(), 1);
    assert_eq!(map.get(far), Some(&7));
    // The page table spans only the pages in use.
    assert_eq!(map.set.sparse.table.len(), 1);
    assert_eq!(map.set.sparse.table.capacity(), 1);
    // A storage of one value holds one dense entry.
    assert_eq!((map.set.dense.capacity(), map.set.data.capacity()), (1, 1));
    let near = Entity::from_bits(1 << 32).unwrap();
    assert_eq!(map.get(near), None);
    map.insert(near, 1);
    assert_eq!(map.sparse_pages(), 2);
    // Growing at the front keeps every entry where it was.
    assert_eq!(map.set.sparse.table.len(), 1_000_000 / PAGE_LEN + 1);
    assert_eq!(map.get(far), Some(&7));
    assert_eq!(map.get(near), Some(&1));
    let middle = Entity::from_bits(500_000 | (1 << 32)).unwrap();
    map.insert(middle, 2);
    assert_eq!(map.sparse_pages(), 3);
    assert_eq!(map.remove(far), Some(7));
    assert_eq!(map.get(middle), Some(&2));
    map.assert_invariants();
}

#[test]
fn largest_index_works() {
    let last = Entity::from_bits(u64::from(u32::MAX - 1) | (1 << 32)).unwrap();
    let mut map = SparseMap::new();
    map.insert(last, ());
    assert!(map.contains(last));
    assert_eq!(map.remove(last), Some(()));
    map.assert_invariants();
}

#[test]
fn queued_changes_apply_removals_then_additions() {
    let mut entities = EntityAllocator::new();
    let (a, b) = (entities.alloc(), entities.alloc());
    let mut map = SparseMap::new();
    map.insert(a, 1);
    assert!(matches!(
        map.queue_add(a, 2),
        Err((AddErrorKind::AlreadyPresent, 2))
    ));
    map.queue_remove(a);
    map.queue_add(a, 3).unwrap();
    assert!(matches!(
        map.queue_add(a, 4),
        Err((AddErrorKind::AlreadyQueued, 4))
    ));
    map.queue_add(b, 5).unwrap();
    assert_eq!(map.get(a), Some(&1), "nothing moves before the sync point");
    map.apply_removals();
    map.apply_additions();
    assert_eq!(map.get(a), Some(&3));
    assert_eq!(map.get(b), Some(&5));
    map.assert_invariants();
    // the queues are empty and reusable
    map.queue_remove(b);
    map.apply_removals();
    map.apply_additions();
    assert_eq!(map.entities(), &[a]);
    map.assert_invariants();
}

/// The sync point takes queued changes one at a time, first queued
/// first, and the queue holds a consistent rest after every step (what a
/// panicking `Drop` between two steps leaves).
#[test]
fn queues_pop_in_the_order_queued_and_stay_consistent() {
    let mut entities = EntityAllocator::new();
    let e: std::vec::Vec<Entity> = (0..6).map(|_| entities.alloc()).collect();
    // An index on another page, so the re-indexing crosses pages.
    let far = Entity::new(3 * PAGE_LEN as u32 + 7, core::num::NonZeroU32::MIN);
    let mut map = SparseMap::new();
    for (value, &entity) in [e[3], e[0], far, e[5], e[1]].iter().enumerate() {
        map.queue_add(entity, value).unwrap();
        map.queue_remove(entity);
    }
    assert!(map.ready_pending_adds() && map.ready_pending_removes());
    assert_eq!(map.pop_pending_add(), Some((e[3], 0)));
    assert_eq!(map.pop_pending_remove(), Some(e[3]));
    map.assert_invariants();
    // A despawn in between takes its entity's queued changes out.
    assert_eq!(map.purge(far), (None, Some(2)));
    map.assert_invariants();
    assert_eq!(map.pop_pending_add(), Some((e[0], 1)));
    map.assert_invariants();
    // Readying again (the next sync point) keeps every entry.
    assert!(map.ready_pending_adds());
    let mut rest = std::vec::Vec::new();
    while let Some((entity, _)) = map.pop_pending_add() {
        rest.push(entity);
        map.assert_invariants();
    }
    rest.sort();
    assert_eq!(rest, [e[1], e[5]]);
    assert!(!map.ready_pending_adds());
    let mut removes: std::vec::Vec<Entity> =
        core::iter::from_fn(|| map.pop_pending_remove()).collect();
    removes.sort();
    assert_eq!(removes, [e[0], e[1], e[5]]);
    assert!(!map.ready_pending_removes());
    map.assert_invariants();
}

#[test]
fn purge_detaches_value_and_queued_add() {
    let mut entities = EntityAllocator::new();
    let a = entities.alloc();
    let mut map = SparseMap::new();
    map.insert(a, 1);
    map.queue_remove(a);
    map.queue_add(a, 2).unwrap();
    assert_eq!(map.purge(a), (Some(1), Some(2)));
    map.apply_removals();
    map.apply_additions();
    assert!(map.is_empty());
    map.assert_invariants();
}

#[test]
fn resync_drops_what_the_allocator_says_is_dead() {
    let mut entities = EntityAllocator::new();
    let (a, b, c) = (entities.alloc(), entities.alloc(), entities.alloc());
    let mut map = SparseMap::new();
    map.insert(a, 1);
    map.insert(b, 2);
    map.insert(c, 3);
    map.queue_remove(b);
    map.queue_add(c, 30).unwrap_err();
    map.queue_remove(c);
    map.queue_add(c, 30).unwrap();
    assert!(
        !map.is_synced(entities.stamp()),
        "a new storage is in step with nothing"
    );
    entities.free(b);
    entities.free(c);
    let alive = |e| entities.is_alive(e);
    let mut dead = map.dead_entries(alive);
    dead.sort();
    dead.dedup();
    assert_eq!(dead, [b, c]);
    assert_eq!(
        map.live_slots(alive)
            .map(|slot| map.entities()[slot])
            .collect::<Vec<_>>(),
        [a]
    );
    let mut removed = map.resync(&dead, entities.stamp());
    removed.sort();
    assert_eq!(removed, [2, 3, 30], "values and queued adds, once each");
    assert!(map.is_synced(entities.stamp()));
    assert_eq!(map.entities(), &[a]);
    map.assert_invariants();
    assert!(map.dead_entries(|e| entities.is_alive(e)).is_empty());
}

#[test]
fn lookups_for_a_world_skip_the_dead_until_in_step() {
    let mut entities = EntityAllocator::new();
    let (a, b) = (entities.alloc(), entities.alloc());
    let mut map = SparseMap::new();
    map.insert(a, 1);
    map.insert(b, 2);
    map.set_synced(entities.stamp());
    entities.free(b); // while the storage was not watching
    assert!(!map.is_synced(entities.stamp()));
    assert_eq!(map.get_in(a, &entities), Some(&1));
    assert_eq!(map.get_in(b, &entities), None);
    assert_eq!(map.get_mut_in(b, &entities), None);
    assert_eq!(map.remove_in(b, &entities), None);
    assert_eq!(map.len(), 2, "nothing removed for a dead entity");
    assert_eq!(map.remove_in(a, &entities), Some(1));
    // In step, a lookup takes the storage's word for it.
    map.set_synced(entities.stamp());
    assert_eq!(map.get_in(b, &entities), Some(&2));
}

#[test]
fn debug_prints_a_map() {
    let mut entities = EntityAllocator::new();
    let a = entities.alloc();
    let mut map = SparseMap::new();
    map.insert(a, 'x');
    assert_eq!(format!("{map:?}"), "{0v1: 'x'}");
    map.queue_remove(a);
    assert_eq!(format!("{map:?}"), "{0v1: 'x'} (queued: 0 adds, 1 removes)");
}

/// A seeded random run of inserts, removes, recycles and queued changes,
/// checked step by step against a `HashMap` model.
#[test]
fn random_operations_match_hashmap_model() {
    let mut rng = crate::test_rng::Rng::new(0x5eed_0002);
    let mut entities = EntityAllocator::new();
    let mut live: Vec<Entity> = Vec::new();
    let mut map: SparseMap<u64> = SparseMap::new();
    let mut model: HashMap<Entity, u64> = HashMap::new();
    for step in 0..50_000u64 {
        match rng.index(10) {
            0 | 1 => live.push(entities.alloc()),
            2 if !live.is_empty() => {
                // despawn: the world purges before freeing the index
                let e = live.swap_remove(rng.index(live.len()));
                let (value, queued) = map.purge(e);
                assert_eq!(value, model.remove(&e));
                assert_eq!(queued, None);
                entities.free(e);
            }
            3..=5 if !live.is_empty() => {
                let e = live[rng.index(live.len())];
                assert_eq!(map.insert(e, step), model.insert(e, step));
            }
            6 | 7 if !live.is_empty() => {
                let e = live[rng.index(live.len())];
                assert_eq!(map.remove(e), model.remove(&e));
            }
            8 if !live.is_empty() => {
                let e = live[rng.index(live.len())];
                if let Some(v) = map.get_mut(e) {
                    *v += 1;
                    *model.get_mut(&e).unwrap() += 1;
                }
            }
            _ => {
                // a batch of queued changes and a sync point
                let mut removes = Vec::new();
                let mut adds = Vec::new();
                for _ in 0..rng.index(8) {
                    if live.is_empty() {
                        break;
                    }
                    let e = live[rng.index(live.len())];
                    if rng.index(2) == 0 {
                        map.queue_remove(e);
                        removes.push(e);
                    } else if map.queue_add(e, step).is_ok() {
                        adds.push(e);
                    }
                }
                map.apply_removals();
                map.apply_additions();
                for e in removes {
                    model.remove(&e);
                }
                for e in adds {
                    model.insert(e, step);
                }
            }
        }
        assert_eq!(map.len(), model.len());
        if step % 1000 == 0 {
            map.assert_invariants();
        }
    }
    map.assert_invariants();
    for (&e, v) in &model {
        assert_eq!(map.get(e), Some(v));
    }
    for (e, v) in map.iter() {
        assert_eq!(model.get(&e), Some(v));
    }
}

#[test]
fn sparse_entries_hold_the_generation_through_moves() {
    // Every way a value moves keeps its entry's slot and generation: a
    // lookup trusts the entry and never reads the dense entity.
    let gen = |g| core::num::NonZeroU32::new(g).unwrap();
    let entities: Vec<Entity> = (0..6).map(|i| Entity::new(i * 700, gen(i + 1))).collect();
    let mut map = SparseMap::new();
    for (i, &e) in entities.iter().enumerate() {
        map.insert(e, i);
    }
    let holds = |map: &SparseMap<usize>| {
        map.set.check_invariants("map").unwrap();
        for (slot, &e) in map.entities().iter().enumerate() {
            assert_eq!(map.set.sparse.generation(e.index()), e.generation());
            assert_eq!(map.index_of(e), Some(slot));
            // Another generation of the same index finds nothing.
            let other = Entity::new(e.index(), gen(e.generation() + 10));
            assert_eq!(map.index_of(other), None);
        }
    };
    holds(&map);
    map.swap_slots(0, 4); // as a group packs
    holds(&map);
    assert_eq!(map.remove(entities[0]), Some(0)); // swap-remove moves the last
    holds(&map);
    map.set.reverse(); // as a queue is readied
    holds(&map);
    assert!(map.set.pop().is_some());
    holds(&map);
    assert_eq!(map.get(entities[0]), None);
    assert_eq!(map.set.sparse.generation(entities[0].index()), 0);
}
