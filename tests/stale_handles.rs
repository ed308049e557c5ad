//! A handle to a despawned entity is stale: after its slot is reused, every
//! accessor through it sees nothing and changes nothing, and the new
//! occupant's data is untouched.

use std::panic::{self, AssertUnwindSafe};

use typed_ecs::prelude::*;
use typed_ecs::AddErrorKind;

#[derive(Debug, Clone, PartialEq)]
struct A(u32);

#[derive(Debug, Clone, PartialEq)]
struct B(u32);

world! {
    #[derive(Debug, Clone)]
    struct Game<A, B>;
}

/// A world where `old` was despawned and `new` reuses its slot, with a
/// bystander entity on each side.
struct Setup {
    world: Game,
    old: Entity,
    new: Entity,
}

fn setup() -> Setup {
    let mut world = Game::new();
    world.spawn_with((A(100), B(100)));
    let old = world.spawn_with((A(1), B(1)));
    world.spawn_with((A(200),));
    assert!(world.despawn(old));
    let new = world.spawn_with((A(2), B(2)));
    assert_eq!(new.index(), old.index());
    assert_eq!(new.generation(), old.generation() + 1);
    assert_ne!(new, old);
    assert!(old < new, "same index: ordered by generation");
    Setup { world, old, new }
}

/// Everything observable, to check nothing changed.
fn snapshot(world: &Game) -> String {
    let entities: Vec<Entity> = world.entities().collect();
    format!("{entities:?} {:?} {:?}", world.a, world.b)
}

fn assert_new_untouched(world: &Game, new: Entity) {
    assert!(world.is_alive(new));
    assert_eq!(world.get::<A>(new), Some(&A(2)));
    assert_eq!(world.get::<B>(new), Some(&B(2)));
    world.assert_invariants();
}

#[test]
fn reads_through_a_stale_handle_find_nothing() {
    let Setup {
        mut world,
        old,
        new,
    } = setup();
    let before = snapshot(&world);
    assert!(!world.is_alive(old));
    assert_eq!(world.get::<A>(old), None);
    assert_eq!(world.get::<B>(old), None);
    assert_eq!(world.get_mut::<A>(old), None);
    assert!(!world.has::<A>(old) && !world.has::<B>(old));
    assert_eq!(world.a.get(old), None);
    assert_eq!(world.a.get_mut(old), None);
    assert!(!world.a.contains(old) && !world.b.contains(old));
    assert_eq!(world.a.index_of(old), None);
    assert_eq!(world.storage::<B>().index_of(old), None);
    assert!(world.a.index_of(new).is_some());
    assert!(!world.entities().any(|e| e == old));
    assert_eq!(snapshot(&world), before);
    assert_new_untouched(&world, new);
}

#[test]
fn queries_yield_the_new_entity_never_the_stale_one() {
    let Setup { world, old, new } = setup();
    let single: Vec<(Entity, u32)> = world.query::<&A>().map(|(e, a)| (e, a.0)).collect();
    assert!(single.contains(&(new, 2)));
    assert!(single.iter().all(|&(e, _)| e != old));
    let pairs: Vec<(Entity, u32, u32)> = world
        .query::<(&A, &B)>()
        .map(|(e, (a, b))| (e, a.0, b.0))
        .collect();
    assert_eq!(pairs.len(), 2);
    assert!(pairs.contains(&(new, 2, 2)));
    assert!(pairs.iter().all(|&(e, ..)| e != old));
}

#[test]
fn writes_through_a_stale_handle_change_nothing() {
    let Setup {
        mut world,
        old,
        new,
    } = setup();
    let before = snapshot(&world);

    assert_eq!(world.remove::<A>(old), None);
    assert_eq!(world.remove::<B>(old), None);
    assert_eq!(world.a.remove(old), None);
    assert!(!world.remove_all(old));
    assert!(!world.despawn(old));

    let error = world.try_insert(old, A(9)).unwrap_err();
    assert_eq!(error.kind(), AddErrorKind::DeadEntity);
    assert_eq!(error.entity(), old);
    assert_eq!(error.into_component(), A(9));

    let error = world.try_add(old, B(9)).unwrap_err();
    assert_eq!(error.kind(), AddErrorKind::DeadEntity);
    assert_eq!(error.into_component(), B(9));

    let error = world.try_add_deferred(old, A(9)).unwrap_err();
    assert_eq!(error.kind(), AddErrorKind::DeadEntity);
    assert_eq!(error.into_component(), A(9));

    assert!(!world.remove_deferred::<A>(old));
    assert!(!world.despawn_deferred(old));

    assert_eq!(snapshot(&world), before);
    world.finalize_updates();
    assert_eq!(snapshot(&world), before, "nothing was queued");
    assert_new_untouched(&world, new);
}

#[test]
fn panicking_writes_through_a_stale_handle_change_nothing() {
    let Setup {
        mut world,
        old,
        new,
    } = setup();
    let before = snapshot(&world);
    type Case = (&'static str, Box<dyn FnOnce(&mut Game)>);
    let cases: Vec<Case> = vec![
        ("add", Box::new(move |w| w.add(old, A(9)))),
        (
            "insert",
            Box::new(move |w| {
                w.insert(old, B(9));
            }),
        ),
        ("add_deferred", Box::new(move |w| w.add_deferred(old, B(9)))),
    ];
    for (label, case) in cases {
        let result = panic::catch_unwind(AssertUnwindSafe(|| case(&mut world)));
        let message = *result
            .expect_err(label)
            .downcast::<String>()
            .expect("a formatted message");
        assert!(
            message.contains(&format!("entity {old} in `Game`")),
            "{message}"
        );
        assert!(message.contains("is not alive"), "{message}");
        assert_eq!(snapshot(&world), before, "{label}");
    }
    world.finalize_updates();
    assert_eq!(snapshot(&world), before);
    assert_new_untouched(&world, new);
}

#[test]
fn many_generations_of_one_slot() {
    let mut world = Game::new();
    let mut history = Vec::new();
    for round in 0..20 {
        let e = world.spawn_with((A(round),));
        assert_eq!((e.index(), e.generation()), (0, round + 1));
        history.push(e);
        for (i, &old) in history.iter().enumerate() {
            let current = i + 1 == history.len();
            assert_eq!(world.is_alive(old), current);
            assert_eq!(world.get::<A>(old).is_some(), current);
        }
        assert!(world.despawn(e));
    }
    assert_eq!(world.entity_count(), 0);
    world.assert_invariants();
}

#[test]
fn stale_handles_from_before_a_clear() {
    let mut world = Game::new();
    let old: Vec<Entity> = (0..5).map(|i| world.spawn_with((A(i), B(i)))).collect();
    world.clear();
    let new: Vec<Entity> = (0..5).map(|i| world.spawn_with((A(10 + i),))).collect();
    let before = snapshot(&world);
    for &e in &old {
        assert!(!world.is_alive(e));
        assert_eq!(world.get::<A>(e), None);
        assert_eq!(world.remove::<A>(e), None);
        assert!(!world.remove_all(e));
        assert!(!world.despawn(e));
        assert!(world.try_insert(e, A(0)).is_err());
        assert!(!world.remove_deferred::<A>(e));
        assert!(!world.despawn_deferred(e));
    }
    world.finalize_updates();
    assert_eq!(snapshot(&world), before);
    for &e in &new {
        assert!(world.has::<A>(e));
    }
}

// ----- handles made from bits -----

#[test]
fn to_bits_from_bits_round_trip() {
    let Setup { world, old, new } = setup();
    let mut handles: Vec<Entity> = world.entities().collect();
    handles.push(old);
    for e in handles {
        let bits = e.to_bits();
        assert_ne!(bits, 0);
        assert_eq!(
            bits,
            (u64::from(e.generation()) << 32) | u64::from(e.index())
        );
        assert_eq!(Entity::from_bits(bits), Some(e));
    }
    let rebuilt = Entity::from_bits(new.to_bits()).unwrap();
    assert_eq!(world.get::<A>(rebuilt), Some(&A(2)));
    assert!(world.is_alive(rebuilt));
    assert_eq!(Entity::from_bits(0), None);
    assert_eq!(Entity::from_bits(u64::from(u32::MAX)), None, "generation 0");
    let max = Entity::from_bits(u64::MAX).unwrap();
    assert_eq!((max.index(), max.generation()), (u32::MAX, u32::MAX));
    assert_eq!(max.to_bits(), u64::MAX);
}

#[test]
fn handle_with_a_wrong_generation_finds_nothing() {
    let Setup {
        mut world,
        old,
        new,
    } = setup();
    let before = snapshot(&world);
    let ahead = Entity::from_bits(new.to_bits() + (1 << 32)).unwrap();
    let far_ahead =
        Entity::from_bits(u64::from(new.index()) | (u64::from(u32::MAX) << 32)).unwrap();
    let behind = Entity::from_bits(new.to_bits() - (1 << 32)).unwrap();
    assert_eq!(behind, old);
    let no_slot = Entity::from_bits(u64::from(u32::MAX - 1) | (1 << 32)).unwrap();
    let max = Entity::from_bits(u64::MAX).unwrap();
    for e in [ahead, far_ahead, behind, no_slot, max] {
        assert!(!world.is_alive(e), "{e:?}");
        assert_eq!(world.get::<A>(e), None, "{e:?}");
        assert!(!world.has::<B>(e), "{e:?}");
        assert_eq!(world.remove::<A>(e), None, "{e:?}");
        assert!(!world.remove_all(e), "{e:?}");
        assert!(!world.despawn(e), "{e:?}");
        assert_eq!(
            world.try_add(e, A(0)).unwrap_err().kind(),
            AddErrorKind::DeadEntity
        );
        assert!(!world.despawn_deferred(e));
        assert!(world.query::<&A>().all(|(found, _)| found != e));
    }
    world.finalize_updates();
    assert_eq!(snapshot(&world), before);
    assert_new_untouched(&world, new);
}

// ----- the public allocator field -----

/// The `entities` field is readable while a storage is borrowed, and it
/// agrees with the world. (Freeing or resetting through it does not compile:
/// see `macros-tests/tests/compile-fail/allocator_*.rs`.)
#[test]
fn the_allocator_field_is_a_read_only_view_of_the_world() {
    let mut world = Game::new();
    let old = world.spawn_with((A(1),));
    let kept = world.spawn_with((A(2),));
    world.despawn(old);
    let reused = world.spawn();
    let storage = &mut world.a;
    storage.get_mut(kept).unwrap().0 += 1;
    assert!(!world.entities.is_alive(old));
    assert!(world.entities.is_alive(kept) && world.entities.is_alive(reused));
    assert_eq!(world.entities.len(), 2);
    assert_eq!(world.entities.iter().collect::<Vec<_>>(), [reused, kept]);
    world.assert_invariants();
}
