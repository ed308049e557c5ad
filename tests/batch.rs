//! Batch spawns and despawns: `extend` (the `Extend` impl every world has)
//! and `try_extend` against `spawn_with` in a loop, `despawn_batch` against
//! `despawn` in a loop (a `HashMap` model of who holds what), stale and
//! repeated handles, groups, tracked components, queued changes, storages
//! moved away during a batch, and panics from the iterator or a `Drop`.

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

use typed_ecs::prelude::*;
use typed_ecs::Added;

#[path = "support/rng.rs"]
mod rng;

use rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Pos(i64);

#[derive(Debug, Clone, Copy, PartialEq)]
struct Vel(i64);

#[derive(Debug, Clone, Copy, PartialEq)]
struct Tag;

world! {
    struct Grouped<Pos, Vel, Tag>;
    group (Pos, Vel);
}

world! {
    struct Plain<Pos, Vel, Tag>;
}

world! {
    struct Watched<Pos, Vel>;
    tracked (Pos);
    group (Pos, Vel);
}

/// Everything a `Grouped` world holds, as a model: each alive entity's
/// components.
type Rows = HashMap<Entity, (Option<Pos>, Option<Vel>, bool)>;

fn rows(world: &Grouped) -> Rows {
    world
        .entities()
        .map(|e| {
            (
                e,
                (
                    world.get::<Pos>(e).copied(),
                    world.get::<Vel>(e).copied(),
                    world.has::<Tag>(e),
                ),
            )
        })
        .collect()
}

// ----- extend and try_extend -----

#[test]
fn extend_makes_what_spawn_with_in_a_loop_makes() {
    // Two worlds with the same history, one spawning in batches, the other
    // one entity at a time: the same handles, in the same order, hold the
    // same components. Reused indices (more than a chunk of them) first,
    // then new ones.
    let mut batch = Grouped::new();
    let mut single = Grouped::new();
    for world in [&mut batch, &mut single] {
        let all: Vec<Entity> = (0..300).map(|i| world.spawn_with((Pos(i),))).collect();
        for &e in all.iter().step_by(2) {
            world.despawn(e);
        }
    }
    let bundles = |from: i64| (from..from + 400).map(|i| (Vel(i), Pos(-i)));
    batch.extend(bundles(0));
    let mut made = Vec::new();
    for bundle in bundles(0) {
        made.push(single.spawn_with(bundle));
    }
    assert_eq!(
        batch.entities().collect::<Vec<_>>(),
        single.entities().collect::<Vec<_>>()
    );
    assert_eq!(rows(&batch), rows(&single));
    assert!(made.iter().any(|e| e.generation() > 1), "reused indices");
    assert!(made.iter().any(|e| e.generation() == 1), "new indices");
    for (i, &e) in made.iter().enumerate() {
        assert_eq!(batch.get::<Vel>(e), Some(&Vel(i as i64)));
    }
    assert_eq!(batch.group_len::<(Pos, Vel)>(), Some(400));
    batch.assert_invariants();
    // `spawn_batch` hands out the very handles `spawn_with` does.
    let handles = batch.spawn_batch(bundles(1000));
    let singles: Vec<Entity> = bundles(1000).map(|b| single.spawn_with(b)).collect();
    assert_eq!(handles, singles);
    batch.assert_invariants();
}

#[test]
fn extend_with_nothing_or_empty_bundles() {
    let mut world = Grouped::new();
    world.extend(std::iter::empty::<(Pos,)>());
    assert_eq!(world.entity_count(), 0);
    world.extend((0..5).map(|_| ()));
    assert_eq!(world.entity_count(), 5);
    assert_eq!(world.try_extend((0..3).map(|_| (Tag,))).ok(), Some(3));
    assert_eq!(world.size::<Tag>(), 3);
    world.assert_invariants();
}

#[test]
fn extend_keeps_a_group_packed_whatever_came_before() {
    let mut world = Grouped::new();
    // The group holds every entity of its storages: the batch is appended.
    world.extend((0..100).map(|i| (Pos(i), Vel(i))));
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(100));
    // An entity outside the group sits between: each enters on its own.
    world.spawn_with((Pos(-1),));
    world.extend((0..50).map(|i| (Vel(i), Pos(i), Tag)));
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(150));
    // Half the group: nobody enters.
    world.extend((0..10).map(|i| (Vel(i),)));
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(150));
    world.assert_invariants();
    // A group that waits to be rebuilt is rebuilt.
    let e = world.spawn_with((Pos(7), Vel(7)));
    world.pos.remove(e);
    assert_eq!(world.group_len::<(Pos, Vel)>(), None);
    world.extend((0..3).map(|i| (Pos(i), Vel(i))));
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(153));
    world.assert_invariants();
}

#[test]
fn try_extend_hands_back_what_did_not_fit() {
    for reuse in [false, true] {
        let mut world = Grouped::new();
        world.set_entity_limit(5);
        let first: Vec<Entity> = (0..3).map(|i| world.spawn_with((Pos(i),))).collect();
        if reuse {
            // Two free indices to reuse before the two new ones.
            world.despawn(first[0]);
            world.despawn(first[1]);
        }
        let before = world.entity_count();
        let error = world
            .try_extend((10..20).map(|i| (Pos(i), Vel(i))))
            .unwrap_err();
        assert!(
            error.to_string().contains("out of entity indices"),
            "{error}"
        );
        let (spawned, rest) = error.into_inner();
        assert_eq!(spawned, 5 - before);
        assert_eq!(world.entity_count(), 5);
        let rest: Vec<i64> = rest.map(|(pos, _)| pos.0).collect();
        assert_eq!(rest, (10 + spawned as i64..20).collect::<Vec<_>>());
        assert_eq!(world.group_len::<(Pos, Vel)>(), Some(spawned));
        world.assert_invariants();
        // Full: nothing more, and nothing is lost.
        let error = world.try_extend([(Pos(0),)]).unwrap_err();
        let (spawned, mut rest) = error.into_inner();
        assert_eq!(
            (spawned, rest.next(), rest.next()),
            (0, Some((Pos(0),)), None)
        );
    }
}

#[test]
fn a_limit_below_the_indices_in_use_leaves_no_room() {
    let mut world = Plain::new();
    world.extend((0..4).map(|i| (Pos(i),)));
    world.set_entity_limit(2);
    let error = world.try_extend([(Pos(9),)]).unwrap_err();
    assert_eq!(error.into_inner().0, 0);
    assert_eq!(world.entity_count(), 4);
    world.assert_invariants();
}

#[test]
fn extend_out_of_indices_panics_naming_the_world_and_the_twin() {
    let mut world = Plain::new();
    world.set_entity_limit(3);
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        world.extend((0..5).map(|i| (Pos(i),)));
    }))
    .unwrap_err();
    let message = payload
        .downcast_ref::<String>()
        .expect("a formatted message");
    assert!(message.starts_with("Plain: "), "{message}");
    assert!(message.contains("out of entity indices"), "{message}");
    assert!(message.contains("try_extend"), "{message}");
    // What fit was spawned, whole.
    assert_eq!(world.entity_count(), 3);
    assert_eq!(world.size::<Pos>(), 3);
    world.assert_invariants();
}

#[test]
fn a_panicking_iterator_leaves_what_extend_spawned_so_far() {
    // Past a chunk of reused indices, and into the new ones.
    for (reused, before_panic) in [(0, 10), (100, 30), (100, 70), (100, 150)] {
        let mut world = Grouped::new();
        let old: Vec<Entity> = world.spawn_batch((0..reused).map(|i| (Pos(i), Vel(i))));
        for &e in &old {
            world.despawn(e);
        }
        world.extend((0..5).map(|i| (Pos(i), Vel(i))));
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            world.extend((0..1000).map(|i| {
                assert!(i < before_panic, "the iterator gives up");
                (Pos(i), Vel(i), Tag)
            }));
        }));
        assert!(result.is_err());
        let made = before_panic as usize;
        assert_eq!(world.entity_count(), 5 + made);
        assert_eq!(world.size::<Tag>(), made);
        assert_eq!(world.group_len::<(Pos, Vel)>(), Some(5 + made));
        world.assert_invariants();
        for (e, (pos, vel, ())) in world.query::<(&Pos, &Vel, With<Tag>)>() {
            assert_eq!(pos.0, vel.0, "{e:?}");
        }
    }
}

#[test]
fn extended_entities_are_added_for_change_detection() {
    let mut world = Watched::new();
    world.spawn_with((Pos(0),));
    world.clear_changes();
    world.extend((1..4).map(|i| (Pos(i), Vel(i))));
    let mut added: Vec<i64> = world.query::<Added<&Pos>>().map(|(_, p)| p.0).collect();
    added.sort();
    assert_eq!(added, [1, 2, 3]);
    world.assert_invariants();
}

// ----- despawn_batch -----

#[test]
fn despawn_batch_skips_stale_dead_repeated_and_foreign_handles() {
    let mut world = Grouped::new();
    let all = world.spawn_batch((0..10).map(|i| (Pos(i), Vel(i))));
    let stale = all[0];
    world.despawn(stale);
    let recycled = world.spawn_with((Pos(100),)); // `stale`'s index, a new generation
    assert_eq!(recycled.index(), stale.index());
    let forged = Entity::from_bits(500 | (1 << 32)).unwrap(); // never issued
    let batch = [stale, all[1], all[2], all[1], forged, all[2], stale];
    assert_eq!(world.despawn_batch(batch), 2);
    assert!(world.is_alive(recycled), "a stale handle despawns nothing");
    assert_eq!(world.get::<Pos>(recycled), Some(&Pos(100)));
    assert_eq!(world.entity_count(), 8);
    // Again: everything is dead by now.
    assert_eq!(world.despawn_batch(batch), 0);
    assert_eq!(world.despawn_batch([]), 0);
    world.assert_invariants();
    // The indices are reused once each, under a new generation.
    let again = world.spawn_batch((0..2).map(|i| (Pos(i),)));
    assert!(again.iter().all(|e| e.generation() == 2));
    assert_ne!(again[0].index(), again[1].index());
    world.assert_invariants();
}

#[test]
fn despawn_batch_matches_despawn_in_a_loop() {
    // Random worlds, random batches (alive, stale and repeated handles):
    // `despawn_batch` and `despawn` in a loop leave the same entities with
    // the same components, report the same count, and agree with a model.
    let mut rng = Rng::new(14);
    for _ in 0..200 {
        let mut batch_world = Grouped::new();
        let mut loop_world = Grouped::new();
        let mut model = Rows::new();
        let mut issued = Vec::new();
        for step in 0..(20 + rng.below(60)) as i64 {
            let bundle = (
                rng.chance(80).then_some(Pos(step)),
                rng.chance(60).then_some(Vel(step)),
                rng.chance(30),
            );
            let make = |world: &mut Grouped| {
                let e = world.spawn();
                if let Some(p) = bundle.0 {
                    world.add(e, p);
                }
                if let Some(v) = bundle.1 {
                    world.add(e, v);
                }
                if bundle.2 {
                    world.add(e, Tag);
                }
                e
            };
            let e = make(&mut batch_world);
            assert_eq!(make(&mut loop_world), e);
            model.insert(e, bundle);
            issued.push(e);
            if rng.chance(20) {
                let gone = issued[rng.index(issued.len())];
                let despawned = batch_world.despawn(gone);
                assert_eq!(loop_world.despawn(gone), despawned);
                assert_eq!(model.remove(&gone).is_some(), despawned);
            }
        }
        let batch: Vec<Entity> = (0..rng.below(30))
            .map(|_| issued[rng.index(issued.len())])
            .collect();
        let mut expected = 0;
        for &e in &batch {
            if loop_world.despawn(e) {
                expected += 1;
            }
            model.remove(&e);
        }
        assert_eq!(batch_world.despawn_batch(batch.iter().copied()), expected);
        assert_eq!(rows(&batch_world), model);
        assert_eq!(rows(&loop_world), model);
        assert_eq!(
            batch_world.group_len::<(Pos, Vel)>(),
            loop_world.group_len::<(Pos, Vel)>()
        );
        batch_world.assert_invariants();
        // Both reuse the same indices, in the same order.
        let a = batch_world.spawn_batch((0..40).map(|i| (Pos(i), Vel(i))));
        let b = loop_world.spawn_batch((0..40).map(|i| (Pos(i), Vel(i))));
        assert_eq!(a, b);
        batch_world.assert_invariants();
    }
}

#[test]
fn despawn_batch_drops_queued_changes_and_lets_queued_despawns_pass() {
    let mut world = Plain::new();
    let a = world.spawn_with((Pos(1),));
    let b = world.spawn_with((Pos(2), Vel(2)));
    world.add_deferred(a, Vel(1));
    world.remove_deferred::<Vel>(b);
    world.despawn_deferred(a);
    assert_eq!(world.despawn_batch([a, b]), 2);
    world.assert_invariants();
    let fresh = world.spawn_batch([(Pos(3),), (Pos(4),)]);
    world.finalize_updates(); // the queued despawn of `a` finds it dead
    assert!(fresh.iter().all(|&e| world.is_alive(e)));
    assert_eq!(world.size::<Vel>(), 0);
    world.assert_invariants();
}

#[test]
fn despawn_batch_records_removals_of_tracked_components() {
    let mut world = Watched::new();
    let all = world.spawn_batch((0..6).map(|i| (Pos(i), Vel(i))));
    let bare = world.spawn_with((Vel(9),));
    world.clear_changes();
    world.get_mut::<Pos>(all[4]).unwrap().0 = 40;
    assert_eq!(
        world.despawn_batch([all[3], bare, all[1], all[3], all[4]]),
        4
    );
    assert_eq!(world.removed::<Pos>(), [all[3], all[1], all[4]]);
    let changed: Vec<Entity> = world
        .query::<typed_ecs::Changed<&Pos>>()
        .map(|(e, _)| e)
        .collect();
    assert!(changed.is_empty(), "{changed:?}");
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(3));
    world.assert_invariants();
}

#[test]
fn a_storage_away_during_despawn_batch_is_cleaned_when_it_comes_back() {
    let mut world = Grouped::new();
    let all = world.spawn_batch((0..10).map(|i| (Pos(i), Vel(i))));
    let away = std::mem::take(&mut world.pos);
    assert_eq!(world.despawn_batch(all[..4].iter().copied()), 4);
    world.pos = away;
    // The storage still holds them, but the world knows it is behind.
    assert_eq!(world.pos.len(), 10);
    assert!(all[..4].iter().all(|&e| world.get::<Pos>(e).is_none()));
    assert_eq!(world.query::<&Pos>().count(), 6);
    world.extend((0..4).map(|i| (Pos(i),))); // reuses the indices
    assert_eq!(world.size::<Pos>(), 10);
    assert_eq!(world.pos.len(), 10);
    world.assert_invariants();
}

#[test]
fn a_panicking_iterator_leaves_the_despawns_so_far() {
    let mut world = Grouped::new();
    let all = world.spawn_batch((0..10).map(|i| (Pos(i), Vel(i))));
    let away = std::mem::take(&mut world.vel);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        world.despawn_batch(all.iter().enumerate().map(|(i, &e)| {
            assert!(i < 3, "the iterator gives up");
            e
        }));
    }));
    assert!(result.is_err());
    assert_eq!(world.entity_count(), 7);
    assert!(all[..3].iter().all(|&e| !world.is_alive(e)));
    assert!(all[3..].iter().all(|&e| world.is_alive(e)));
    world.assert_invariants();
    // The stamps were renewed before the panic went on.
    world.vel = away;
    assert_eq!(world.query::<&Vel>().count(), 7);
    world.assert_invariants();
}

// ----- drops -----

/// A value that counts its drops, and panics on its drop when armed.
#[derive(Debug)]
struct Counted {
    drops: Rc<Cell<u32>>,
    armed: bool,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.set(self.drops.get() + 1);
        if self.armed {
            panic!("boom");
        }
    }
}

#[derive(Debug)]
struct Other(#[allow(dead_code)] Counted);

world! {
    struct Risky<Counted, Other>;
    group (Counted, Other);
}

fn counted(drops: &Rc<Cell<u32>>) -> Counted {
    Counted {
        drops: Rc::clone(drops),
        armed: false,
    }
}

#[test]
fn batch_spawns_and_despawns_drop_every_value_once() {
    let drops = Rc::new(Cell::new(0));
    let mut world = Risky::new();
    world.extend((0..100).map(|_| (counted(&drops), Other(counted(&drops)))));
    let all: Vec<Entity> = world.entities().collect();
    // A queued add goes with its entity.
    world.remove_deferred::<Other>(all[1]);
    world.add_deferred(all[1], Other(counted(&drops)));
    assert_eq!(drops.get(), 0);
    assert_eq!(world.despawn_batch(all[..60].iter().copied()), 60);
    assert_eq!(drops.get(), 60 * 2 + 1);
    // The iterator panics: the bundles made are kept, the one in hand
    // when it panicked is dropped once.
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        world.extend((0..10).map(|i| {
            let bundle = (counted(&drops), Other(counted(&drops)));
            assert!(i < 4, "the iterator gives up");
            bundle
        }));
    }));
    assert!(result.is_err());
    assert_eq!(drops.get(), 121 + 2);
    assert_eq!(world.entity_count(), 44);
    world.assert_invariants();
    drop(world);
    assert_eq!(drops.get(), 123 + 44 * 2);
}

#[test]
fn a_panicking_drop_during_despawn_batch_stops_it_with_the_world_consistent() {
    let drops = Rc::new(Cell::new(0));
    let mut world = Risky::new();
    let all = world.spawn_batch((0..10).map(|_| (counted(&drops), Other(counted(&drops)))));
    world.get_mut::<Counted>(all[4]).unwrap().armed = true;
    // One storage is away while the batch runs.
    let away = std::mem::take(&mut world.other);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        world.despawn_batch(all.iter().copied())
    }));
    assert!(result.is_err(), "the bomb went off");
    // The entities up to the bomb's are despawned, its own whole (it was
    // detached before its values were dropped); the others are not.
    assert_eq!(drops.get(), 5);
    assert!(all[..5].iter().all(|&e| !world.is_alive(e)));
    assert!(all[5..].iter().all(|&e| world.is_alive(e)));
    world.assert_invariants();
    // The stamps were renewed: the storage that was away is behind.
    world.other = away;
    assert_eq!(world.query::<&Other>().count(), 5);
    world.spawn(); // brings every storage in step: the dead entries go
    assert_eq!(drops.get(), 10);
    assert_eq!(world.other.len(), 5);
    world.assert_invariants();
    drop(world);
    assert_eq!(drops.get(), 20);
}
