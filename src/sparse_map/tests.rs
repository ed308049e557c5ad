//! Unit tests of the storage, with a seeded random run against a `HashMap`
//! model.

use super::pages::PAGE_LEN;
use super::*;
use crate::entity::Alive;
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
fn pages_made_out_of_order_keep_their_entries_and_read_straight_without_gaps() {
    let at = |index: usize| Entity::from_bits(index as u64 | (1 << 32)).unwrap();
    let mut map = SparseMap::new();
    // Pages 3, 1, 2 (a gap at 2 until it is made), then 0 in front.
    let order = [3, 1, 2, 0];
    for (n, &page) in order.iter().enumerate() {
        for k in [0, 7, PAGE_LEN - 1] {
            map.insert(at(page * PAGE_LEN + k), page * 10 + k);
        }
        assert_eq!(map.sparse_pages(), n + 1);
        // Pages 1 and 3 alone leave page 2 missing between them.
        assert_eq!(map.set.sparse.is_straight(), n != 1, "after page {page}");
        for &made in &order[..=n] {
            for k in [0, 7, PAGE_LEN - 1] {
                assert_eq!(map.get(at(made * PAGE_LEN + k)), Some(&(made * 10 + k)));
            }
            assert_eq!(map.get(at(made * PAGE_LEN + 8)), None);
        }
        for missing in order[n + 1..].iter().chain(&[4, 100]) {
            assert_eq!(map.get(at(missing * PAGE_LEN)), None);
        }
        map.assert_invariants();
    }
    assert_eq!(map.remove(at(2 * PAGE_LEN + 7)), Some(27));
    assert_eq!(map.get(at(2 * PAGE_LEN + 7)), None);
    assert_eq!(map.get(at(3 * PAGE_LEN + 7)), Some(&37));
    map.assert_invariants();
}

/// Makes a page for each of `pages` (one entry in it, at `k`), checking
/// the storage every `every` pages and at the end; returns it.
fn pages_made_in(pages: &[usize], every: usize) -> SparseMap<usize> {
    let at = |index: usize| Entity::from_bits(index as u64 | (1 << 32)).unwrap();
    let mut map = SparseMap::new();
    for (n, &page) in pages.iter().enumerate() {
        map.insert(at(page * PAGE_LEN + page % 7), page);
        if n % every == 0 {
            map.assert_invariants();
        }
    }
    map.assert_invariants();
    assert_eq!(map.sparse_pages(), pages.len());
    for &page in pages {
        assert_eq!(map.get(at(page * PAGE_LEN + page % 7)), Some(&page));
        assert_eq!(map.get(at(page * PAGE_LEN + page % 7 + 1)), None);
    }
    map
}

#[test]
fn pages_made_from_the_highest_down_cost_a_bounded_number_of_page_copies() {
    // Each page made in front of the others used to move all of them on:
    // 200 * 199 / 2 = 19,900 page copies here. Now they are appended and
    // put in order once an eighth of them are new: fewer than ten copies
    // a page.
    let pages: Vec<usize> = (0..200).rev().collect();
    let map = pages_made_in(&pages, 16);
    assert!(
        map.set.sparse.copied < 10 * pages.len(),
        "{} page copies for {} pages",
        map.set.sparse.copied,
        pages.len()
    );
}

#[test]
fn pages_made_in_shuffled_order_keep_their_entries_and_end_in_order() {
    // A shuffle of 0..64 (an odd multiplier is a bijection modulo 64).
    let pages: Vec<usize> = (0..64).map(|i| (i * 37 + 11) % 64).collect();
    let map = pages_made_in(&pages, 1);
    assert!(map.set.sparse.copied <= 2 * pages.len());
    // Eight more pages after them (an eighth of the pages) put them in
    // order if the last of the 64 did not.
    let mut more = pages.clone();
    more.extend(64..72);
    let map = pages_made_in(&more, 8);
    assert!(map.set.sparse.is_straight());
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
fn resync_drops_what_the_allocator_says_is_dead() {
    let mut entities = EntityAllocator::new();
    let (a, b, c) = (entities.alloc(), entities.alloc(), entities.alloc());
    let mut map = SparseMap::new();
    map.insert(a, 1);
    map.insert(b, 2);
    map.insert(c, 3);
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
    assert_eq!(removed, [2, 3], "each dead entity's value, once");
    assert!(map.is_synced(entities.stamp()));
    assert_eq!(map.entities(), &[a]);
    map.assert_invariants();
    assert!(map.dead_entries(|e| entities.is_alive(e)).is_empty());
}

#[test]
fn lookups_for_a_world_count_what_alive_says() {
    let mut entities = EntityAllocator::new();
    let (a, b) = (entities.alloc(), entities.alloc());
    let mut map = SparseMap::new();
    map.insert(a, 1);
    map.insert(b, 2);
    entities.free(b); // while the storage was not watching
    let check = Alive::Check(&entities);
    assert_eq!(map.get_in(a, check), Some(&1));
    assert_eq!(map.get_in(b, check), None);
    assert_eq!(map.get_mut_in(b, check), None);
    assert_eq!(map.remove_in(b, check), None);
    assert_eq!(map.len(), 2, "nothing removed for a dead entity");
    assert_eq!(map.remove_in(a, check), Some(1));
    // In step, a lookup takes the storage's word for it.
    assert_eq!(map.get_in(b, Alive::All), Some(&2));
}

#[test]
fn debug_prints_a_map() {
    let mut entities = EntityAllocator::new();
    let a = entities.alloc();
    let mut map = SparseMap::new();
    map.insert(a, 'x');
    assert_eq!(format!("{map:?}"), "{0v1: 'x'}");
}

/// A seeded random run of inserts, removes, recycles and slot swaps,
/// checked step by step against a `HashMap` model (the queued changes have
/// their own in `queue.rs`).
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
                // despawn: the world removes the value before freeing the index
                let e = live.swap_remove(rng.index(live.len()));
                assert_eq!(map.remove(e), model.remove(&e));
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
            _ if map.len() > 1 => {
                // a slot swap, as a group packs: the values keep their entities
                map.swap_slots(rng.index(map.len()), rng.index(map.len()));
            }
            _ => {}
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
    assert_eq!(map.get(entities[0]), None);
    assert_eq!(map.set.sparse.generation(entities[0].index()), 0);
}
