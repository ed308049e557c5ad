//! Deferred changes (`add_deferred`, `remove_deferred`, `despawn_deferred`),
//! the sync point `finalize_updates` and its order, and `Schedule`.

use std::cell::RefCell;
use std::rc::Rc;

use typed_ecs::prelude::*;
use typed_ecs::AddErrorKind;

#[derive(Debug, Clone, PartialEq)]
struct Hp(i32);

#[derive(Debug, Clone, PartialEq)]
struct Dead(u32);

#[derive(Debug, Clone, PartialEq)]
struct Tag(&'static str);

world! {
    #[derive(Debug, Clone)]
    struct Game<Hp, Dead, Tag>;
}

/// Everything observable about the world, in a comparable form.
fn snapshot(world: &Game) -> String {
    let entities: Vec<Entity> = world.entities().collect();
    format!(
        "{entities:?} | {:?} | {:?} | {:?}",
        world.hp, world.dead, world.tag
    )
}

/// The world's queued changes, as its `Debug` prints them: one count per
/// component, then the queued despawns.
fn queued(world: &Game) -> String {
    let debug = format!("{world:?}");
    let at = debug
        .find("__queued: ")
        .expect("the world's Debug shows its queues");
    debug[at..].to_string()
}

/// What one component's queue holds, as `(queued: 1 adds, 0 removes)`.
fn queued_of(world: &Game, field: &str) -> String {
    let queues = queued(world);
    let from = queues
        .find(&format!(" {field}: "))
        .expect("a queue per component")
        + field.len()
        + 3;
    let to = from + queues[from..].find(')').unwrap() + 1;
    queues[from..to].to_string()
}

fn no_queued_changes(world: &Game) -> bool {
    let queues = queued(world);
    ["hp", "dead", "tag"]
        .iter()
        .all(|field| queued_of(world, field) == "(queued: 0 adds, 0 removes)")
        && queues.contains("__despawns: []")
}

// ----- add_deferred / try_add_deferred -----

#[test]
fn add_deferred_is_invisible_until_finalize() {
    let mut world = Game::new();
    let e = world.spawn();
    let f = world.spawn_with((Hp(1),));
    world.add_deferred(e, Hp(10));
    world.add_deferred(e, Tag("e"));
    world.add_deferred(f, Dead(1));
    assert!(!world.has::<Hp>(e) && !world.has::<Tag>(e) && !world.has::<Dead>(f));
    assert_eq!(world.size::<Hp>(), 1);
    assert_eq!(world.query::<&Hp>().count(), 1);
    assert_eq!(format!("{:?}", world.hp), "{1v1: Hp(1)}");
    assert_eq!(queued_of(&world, "hp"), "(queued: 1 adds, 0 removes)");
    world.finalize_updates();
    assert_eq!(world.get::<Hp>(e), Some(&Hp(10)));
    assert_eq!(world.get::<Tag>(e), Some(&Tag("e")));
    assert_eq!(world.get::<Dead>(f), Some(&Dead(1)));
    assert_eq!(world.get::<Hp>(f), Some(&Hp(1)));
    assert_eq!(world.size::<Hp>(), 2);
    assert!(no_queued_changes(&world));
    world.assert_invariants();
}

#[test]
fn try_add_deferred_error_kinds() {
    let mut world = Game::new();
    let has_hp = world.spawn_with((Hp(1),));
    let bare = world.spawn();
    let gone = world.spawn();
    world.despawn(gone);
    world.try_add_deferred(bare, Hp(2)).unwrap();

    // (handle, value, expected kind, a phrase of the message)
    let table = [
        (gone, Hp(3), AddErrorKind::DeadEntity, "is not alive"),
        (bare, Hp(4), AddErrorKind::AlreadyQueued, "already queued"),
        (
            has_hp,
            Hp(5),
            AddErrorKind::AlreadyPresent,
            "already has one",
        ),
    ];
    for (target, value, kind, phrase) in table {
        let expected = value.clone();
        let error = world.try_add_deferred(target, value).unwrap_err();
        assert_eq!(error.kind(), kind, "{target:?}");
        assert_eq!(error.entity(), target);
        let text = error.to_string();
        assert!(text.contains(phrase), "{text}");
        assert!(
            text.contains(&format!("entity {target:?} in `Game`")),
            "{text}"
        );
        assert!(text.contains("deferred::Hp`"), "{text}");
        assert_eq!(error.into_component(), expected, "the value comes back");
    }
    world.finalize_updates();
    // The first queued add won; the rejected ones changed nothing.
    assert_eq!(world.get::<Hp>(bare), Some(&Hp(2)));
    assert_eq!(world.get::<Hp>(has_hp), Some(&Hp(1)));
    assert_eq!(world.size::<Hp>(), 2);
    assert!(!world.is_alive(gone));
}

#[test]
fn queued_remove_first_allows_a_deferred_replace() {
    let mut world = Game::new();
    let e = world.spawn_with((Hp(1),));
    assert_eq!(
        world.try_add_deferred(e, Hp(2)).unwrap_err().kind(),
        AddErrorKind::AlreadyPresent
    );
    assert!(world.remove_deferred::<Hp>(e));
    world.try_add_deferred(e, Hp(2)).unwrap();
    // Still one add per entity and component.
    assert_eq!(
        world.try_add_deferred(e, Hp(3)).unwrap_err().kind(),
        AddErrorKind::AlreadyQueued
    );
    assert_eq!(world.get::<Hp>(e), Some(&Hp(1)));
    world.finalize_updates();
    assert_eq!(world.get::<Hp>(e), Some(&Hp(2)));
    assert_eq!(world.size::<Hp>(), 1);
    // After the sync point the usual rule applies again.
    assert_eq!(
        world.try_add_deferred(e, Hp(4)).unwrap_err().kind(),
        AddErrorKind::AlreadyPresent
    );
}

#[test]
fn queue_is_per_component_type() {
    let mut world = Game::new();
    let e = world.spawn();
    world.add_deferred(e, Hp(1));
    world.add_deferred(e, Dead(1));
    world.add_deferred(e, Tag("t"));
    world.finalize_updates();
    assert_eq!(
        (
            world.get::<Hp>(e),
            world.get::<Dead>(e),
            world.get::<Tag>(e)
        ),
        (Some(&Hp(1)), Some(&Dead(1)), Some(&Tag("t")))
    );
}

// ----- remove_deferred -----

#[test]
fn remove_deferred_returns_whether_alive_and_waits_for_finalize() {
    let mut world = Game::new();
    let e = world.spawn_with((Hp(1), Tag("e")));
    let bare = world.spawn();
    let gone = world.spawn_with((Hp(9),));
    world.despawn(gone);

    assert!(world.remove_deferred::<Hp>(e));
    assert!(world.remove_deferred::<Hp>(e), "twice is harmless");
    assert!(
        world.remove_deferred::<Hp>(bare),
        "alive without one: still true"
    );
    assert!(!world.remove_deferred::<Hp>(gone));
    assert_eq!(
        world.get::<Hp>(e),
        Some(&Hp(1)),
        "not before the sync point"
    );
    assert_eq!(
        queued_of(&world, "hp"),
        "(queued: 0 adds, 2 removes)",
        "`e` queued once, and `bare`"
    );
    world.finalize_updates();
    assert!(!world.has::<Hp>(e));
    assert_eq!(
        world.get::<Tag>(e),
        Some(&Tag("e")),
        "other components stay"
    );
    assert!(world.is_alive(e) && world.is_alive(bare));
    assert_eq!(world.size::<Hp>(), 0);
    assert!(no_queued_changes(&world));
}

#[test]
fn remove_deferred_of_a_component_removed_meanwhile_does_nothing() {
    let mut world = Game::new();
    let e = world.spawn_with((Hp(1),));
    world.remove_deferred::<Hp>(e);
    assert_eq!(world.remove::<Hp>(e), Some(Hp(1)));
    world.finalize_updates();
    assert!(!world.has::<Hp>(e));
    assert!(world.is_alive(e));
    world.assert_invariants();
}

// ----- despawn_deferred -----

#[test]
fn despawn_deferred_despawns_at_finalize() {
    let mut world = Game::new();
    let e = world.spawn_with((Hp(1), Dead(1)));
    let keep = world.spawn_with((Hp(2),));
    assert!(world.despawn_deferred(e));
    assert!(world.despawn_deferred(e), "twice is harmless");
    assert!(world.is_alive(e));
    assert_eq!(world.entity_count(), 2);
    world.finalize_updates();
    assert!(!world.is_alive(e));
    assert_eq!(world.entity_count(), 1);
    assert_eq!(world.size::<Hp>(), 1);
    assert_eq!(world.size::<Dead>(), 0);
    assert_eq!(world.get::<Hp>(keep), Some(&Hp(2)));
    assert!(!world.despawn_deferred(e));
    // The next spawn reuses the slot once, with a new generation.
    let next = world.spawn();
    assert_eq!((next.index(), next.generation()), (e.index(), 2));
    world.finalize_updates();
    assert!(world.is_alive(next), "the queue was emptied");
}

// ----- the order of the sync point: removals, additions, despawns -----

#[test]
fn remove_then_add_replaces() {
    let mut world = Game::new();
    let e = world.spawn_with((Hp(1),));
    world.remove_deferred::<Hp>(e);
    world.add_deferred(e, Hp(2));
    world.finalize_updates();
    assert_eq!(world.get::<Hp>(e), Some(&Hp(2)));
}

#[test]
fn add_then_remove_still_ends_with_the_added_value() {
    // Queued the other way round: removals run before additions, so the
    // removal cannot undo the add.
    let mut world = Game::new();
    let e = world.spawn();
    world.add_deferred(e, Hp(2));
    world.remove_deferred::<Hp>(e);
    world.finalize_updates();
    assert_eq!(world.get::<Hp>(e), Some(&Hp(2)));

    // Same, when the entity gained the component immediately in between: the
    // queued removal takes the immediate one, the queued add lands.
    let f = world.spawn();
    world.add_deferred(f, Hp(20));
    world.add(f, Hp(10));
    world.remove_deferred::<Hp>(f);
    world.finalize_updates();
    assert_eq!(world.get::<Hp>(f), Some(&Hp(20)));
    assert_eq!(world.size::<Hp>(), 2);
    world.assert_invariants();
}

#[test]
fn queued_add_replaces_a_component_added_immediately_meanwhile() {
    let mut world = Game::new();
    let e = world.spawn();
    world.add_deferred(e, Hp(2));
    world.add(e, Hp(1));
    assert_eq!(world.get::<Hp>(e), Some(&Hp(1)));
    world.finalize_updates();
    assert_eq!(world.get::<Hp>(e), Some(&Hp(2)));
    assert_eq!(world.size::<Hp>(), 1);
}

#[test]
fn add_and_despawn_queued_together_end_despawned() {
    for add_first in [true, false] {
        let mut world = Game::new();
        let e = world.spawn_with((Tag("x"),));
        if add_first {
            world.add_deferred(e, Hp(1));
            world.despawn_deferred(e);
        } else {
            world.despawn_deferred(e);
            world.add_deferred(e, Hp(1));
        }
        world.remove_deferred::<Tag>(e);
        world.finalize_updates();
        assert!(!world.is_alive(e), "add_first={add_first}");
        assert_eq!(world.size::<Hp>(), 0, "add_first={add_first}");
        assert_eq!(world.size::<Tag>(), 0, "add_first={add_first}");
        let reused = world.spawn();
        assert_eq!(reused.index(), e.index());
        assert!(!world.has::<Hp>(reused));
        world.assert_invariants();
    }
}

#[test]
fn despawned_entity_queued_add_is_dropped_and_not_inherited() {
    let mut world = Game::new();
    let e = world.spawn();
    world.add_deferred(e, Hp(1));
    world.add_deferred(e, Tag("e"));
    assert!(world.despawn(e));
    let reused = world.spawn();
    assert_eq!(reused.index(), e.index());
    world.finalize_updates();
    assert!(!world.has::<Hp>(reused) && !world.has::<Tag>(reused));
    assert_eq!((world.size::<Hp>(), world.size::<Tag>()), (0, 0));
    // The reused entity may queue its own add of the same component.
    world.add_deferred(reused, Hp(2));
    world.finalize_updates();
    assert_eq!(world.get::<Hp>(reused), Some(&Hp(2)));
    world.assert_invariants();
}

#[test]
fn despawned_entity_queued_remove_and_despawn_do_not_hit_the_reused_slot() {
    let mut world = Game::new();
    let e = world.spawn_with((Hp(1),));
    world.remove_deferred::<Hp>(e);
    world.despawn_deferred(e);
    assert!(world.despawn(e));
    let reused = world.spawn_with((Hp(2),));
    assert_eq!(reused.index(), e.index());
    world.finalize_updates();
    assert!(world.is_alive(reused));
    assert_eq!(world.get::<Hp>(reused), Some(&Hp(2)));
    world.assert_invariants();
}

#[test]
fn despawned_entity_queued_changes_do_not_block_the_reused_slots_queue() {
    let mut world = Game::new();
    let e = world.spawn_with((Hp(1),));
    world.remove_deferred::<Hp>(e);
    world.add_deferred(e, Tag("old"));
    assert!(world.despawn(e));
    // The entity reusing the slot queues the same changes in the same frame.
    let reused = world.spawn_with((Hp(2),));
    assert_eq!(reused.index(), e.index());
    assert!(world.remove_deferred::<Hp>(reused));
    world.add_deferred(reused, Tag("new"));
    assert_eq!(queued_of(&world, "tag"), "(queued: 1 adds, 0 removes)");
    assert_eq!(queued_of(&world, "hp"), "(queued: 0 adds, 1 removes)");
    world.finalize_updates();
    assert!(!world.has::<Hp>(reused));
    assert_eq!(world.get::<Tag>(reused), Some(&Tag("new")));
    assert_eq!((world.size::<Hp>(), world.size::<Tag>()), (0, 1));
    world.assert_invariants();
}

#[test]
fn remove_all_keeps_queued_changes() {
    let mut world = Game::new();
    let e = world.spawn_with((Hp(1), Tag("t")));
    world.add_deferred(e, Dead(1));
    world.remove_deferred::<Tag>(e);
    assert!(world.remove_all(e));
    world.add(e, Tag("again"));
    world.finalize_updates();
    assert_eq!(world.get::<Dead>(e), Some(&Dead(1)), "queued add survived");
    assert!(!world.has::<Tag>(e), "queued removal survived");
    assert!(!world.has::<Hp>(e));
}

#[test]
fn index_loop_visits_each_entity_once_and_finalize_applies_it_all() {
    let mut world = Game::new();
    let mut spawned = Vec::new();
    for i in 0..50 {
        let e = world.spawn_with((Hp(i),));
        if i % 3 == 0 {
            world.add(e, Tag("t"));
        }
        spawned.push(e);
    }
    // Shuffle the dense order a bit and leave some entities without Hp.
    for &e in spawned.iter().step_by(7) {
        world.remove::<Hp>(e);
    }
    let before: Vec<Entity> = world.hp.entities().to_vec();
    let hp_before = before.len();

    let mut visited = Vec::new();
    for i in 0..world.size::<Hp>() {
        let e = world.entity_at::<Hp>(i);
        visited.push(e);
        world.add_deferred(e, Dead(e.index()));
        world.remove_deferred::<Hp>(e);
        // Nothing moves during the loop.
        assert_eq!(world.size::<Hp>(), hp_before);
        assert_eq!(world.entity_at::<Hp>(i), e);
    }
    assert_eq!(visited, before, "each entity exactly once, in dense order");

    world.finalize_updates();
    assert_eq!(world.size::<Hp>(), 0);
    assert_eq!(world.size::<Dead>(), hp_before);
    for &e in &before {
        assert_eq!(world.get::<Dead>(e), Some(&Dead(e.index())));
        assert!(!world.has::<Hp>(e));
    }
    for &e in spawned.iter().step_by(7) {
        assert!(
            !world.has::<Dead>(e),
            "{e:?} had no Hp, so it was not visited"
        );
    }
    assert_eq!(world.size::<Tag>(), 17, "untouched");
    world.assert_invariants();
}

#[test]
fn additions_are_applied_in_the_order_queued() {
    let mut world = Game::new();
    let e: Vec<Entity> = (0..4).map(|_| world.spawn()).collect();
    for &i in &[2, 0, 3, 1] {
        world.add_deferred(e[i], Hp(i as i32));
    }
    world.finalize_updates();
    assert_eq!(world.hp.entities(), [e[2], e[0], e[3], e[1]]);
}

/// A despawn cancels only the despawned entity's queued add; every other
/// queued add still lands, in the order queued (the cancelled one leaves a
/// hole in the queue; nothing moves into its place).
#[test]
fn a_despawn_cancels_only_its_own_queued_add() {
    let mut world = Game::new();
    let e: Vec<Entity> = (0..4).map(|_| world.spawn()).collect();
    for (i, &entity) in e.iter().enumerate() {
        world.add_deferred(entity, Hp(i as i32));
    }
    world.despawn(e[0]);
    world.finalize_updates();
    assert_eq!(
        world.hp.entities(),
        [e[1], e[2], e[3]],
        "in the order queued"
    );
    for (i, &entity) in e.iter().enumerate().skip(1) {
        assert_eq!(world.get::<Hp>(entity), Some(&Hp(i as i32)));
    }
    world.assert_invariants();
}

#[test]
fn queues_are_empty_after_finalize() {
    let mut world = Game::new();
    let a = world.spawn_with((Hp(1),));
    let b = world.spawn();
    let c = world.spawn_with((Tag("c"),));
    world.remove_deferred::<Hp>(a);
    world.add_deferred(a, Hp(2));
    world.add_deferred(b, Dead(2));
    world.despawn_deferred(c);
    assert!(!no_queued_changes(&world));
    world.finalize_updates();
    let after_first = snapshot(&world);
    assert!(no_queued_changes(&world), "{after_first}");
    // The despawn queue is the world's too; its `Debug` shows it.
    assert!(
        queued(&world).contains("__despawns: []"),
        "{}",
        queued(&world)
    );
    assert_eq!(
        after_first,
        "[0v1, 1v1] | {0v1: Hp(2)} | {1v1: Dead(2)} | {}"
    );
    world.finalize_updates();
    assert_eq!(
        snapshot(&world),
        after_first,
        "a second finalize changes nothing"
    );
    // Nothing was left in the despawn queue for the reused slot either.
    let d = world.spawn();
    assert_eq!(d.index(), c.index());
    world.finalize_updates();
    assert!(world.is_alive(d));
}

#[test]
fn clear_drops_queued_changes() {
    let mut world = Game::new();
    let e = world.spawn_with((Hp(1),));
    world.add_deferred(e, Tag("t"));
    world.remove_deferred::<Hp>(e);
    world.despawn_deferred(e);
    world.clear();
    let f = world.spawn_with((Hp(5),));
    assert_eq!(f.index(), e.index());
    world.finalize_updates();
    assert!(world.is_alive(f));
    assert_eq!(world.get::<Hp>(f), Some(&Hp(5)));
    assert!(!world.has::<Tag>(f));
    assert_eq!(
        world.size::<Tag>(),
        0,
        "the queued add was dropped by clear"
    );
    assert_eq!(world.entity_count(), 1);
    world.assert_invariants();
}

// ----- Schedule -----

type Log = Rc<RefCell<Vec<String>>>;

fn logging_system(log: &Log, label: &'static str) -> impl FnMut(&mut Game) + 'static {
    let log = Rc::clone(log);
    move |world: &mut Game| {
        log.borrow_mut()
            .push(format!("{label}:{}", world.size::<Hp>()));
    }
}

#[test]
fn schedule_runs_systems_in_insertion_order() {
    let log: Log = Rc::default();
    let mut schedule = Schedule::<Game>::new();
    assert!(schedule.is_empty());
    assert_eq!(schedule.len(), 0);
    for label in ["c", "a", "d", "b"] {
        schedule.add_system(logging_system(&log, label));
    }
    assert_eq!(schedule.len(), 4);
    assert!(!schedule.is_empty());
    let mut world = Game::new();
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(
        *log.borrow(),
        ["c:0", "a:0", "d:0", "b:0", "c:0", "a:0", "d:0", "b:0"]
    );
}

fn spawn_hp_deferred(world: &mut Game) {
    let e = world.spawn();
    world.add_deferred(e, Hp(1));
}

#[test]
fn sync_points_apply_queued_changes_between_systems() {
    let log: Log = Rc::default();
    let mut schedule = Schedule::default();
    schedule
        .add_system(spawn_hp_deferred)
        .add_system(logging_system(&log, "before"))
        .add_sync_point()
        .add_system(logging_system(&log, "after"));
    assert_eq!(schedule.len(), 4);
    let mut world = Game::new();
    schedule.run(&mut world);
    assert_eq!(*log.borrow(), ["before:0", "after:1"]);
    schedule.run(&mut world);
    assert_eq!(
        *log.borrow(),
        ["before:0", "after:1", "before:1", "after:2"]
    );
    assert_eq!(world.entity_count(), 2);
}

#[test]
fn schedule_without_sync_point_leaves_changes_queued() {
    let mut schedule = Schedule::new();
    schedule.add_system(spawn_hp_deferred);
    let mut world = Game::new();
    schedule.run(&mut world);
    assert_eq!((world.entity_count(), world.size::<Hp>()), (1, 0));
    world.finalize_updates();
    assert_eq!(world.size::<Hp>(), 1);
}

#[test]
fn systems_keep_state_between_runs() {
    let mut schedule = Schedule::new();
    let mut frame = 0;
    schedule.add_system(move |world: &mut Game| {
        frame += 1;
        world.spawn_with((Hp(frame),));
    });
    let mut world = Game::new();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    let mut values: Vec<i32> = world.hp.values().iter().map(|h| h.0).collect();
    values.sort();
    assert_eq!(values, [1, 2, 3]);
}

#[test]
fn schedule_debug_lists_the_steps() {
    let mut schedule = Schedule::<Game>::new();
    assert_eq!(format!("{schedule:?}"), "[]");
    schedule
        .add_system_named("noop", |_: &mut Game| {})
        .add_sync_point()
        .add_system(spawn_hp_deferred)
        .add_sync_point();
    assert_eq!(
        format!("{schedule:?}"),
        r#"["noop", "sync point", "spawn_hp_deferred", "sync point"]"#
    );
}
