//! Batch spawns: `extend` (the `Extend` impl every world has) and
//! `try_extend` against `spawn_with` in a loop, groups, tracked
//! components, running out of indices, and panics from the iterator.

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

use typed_ecs::prelude::*;
use typed_ecs::query::Added;

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

// ----- drops -----

/// A value that counts its drops.
#[derive(Debug)]
struct Counted {
    drops: Rc<Cell<u32>>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.set(self.drops.get() + 1);
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
    }
}

#[test]
fn extend_drops_every_value_once() {
    let drops = Rc::new(Cell::new(0));
    let mut world = Risky::new();
    world.extend((0..100).map(|_| (counted(&drops), Other(counted(&drops)))));
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
    assert_eq!(drops.get(), 2);
    assert_eq!(world.entity_count(), 104);
    world.assert_invariants();
    drop(world);
    assert_eq!(drops.get(), 2 + 104 * 2);
}
