//! Every public `World` method and its fallible twin, the panicking forms and
//! their messages, and what `world!` generates (both macro forms, the `pub`
//! fields, constructors, consts and derives).

use std::cell::RefCell;
use std::collections::HashSet;
use std::panic::{self, AssertUnwindSafe};

use typed_ecs::prelude::*;
use typed_ecs::{AddError, AddErrorKind, EntityAllocator};

#[derive(Debug, Clone, PartialEq)]
struct Pos(i32, i32);

#[derive(Debug, Clone, PartialEq)]
struct Vel(i32);

#[derive(Debug, Clone, PartialEq)]
struct Name(String);

#[derive(Debug, Clone, PartialEq)]
struct MoveSpeed(u8);

world! {
    /// The world most tests use.
    #[derive(Debug, Clone)]
    struct Game<Pos, Vel, Name>;
}

/// A generic component, for the field form.
#[derive(Debug, Clone, PartialEq)]
struct Vec3<T>(T, T, T);

world! {
    /// The field form: explicit names, generic and tuple component types.
    #[derive(Debug)]
    struct Physics {
        /// Where things are.
        pos: Vec3<f32>,
        grid: Vec3<i32>,
        cell: (i32, i32),
        label: Name,
    }
}

world! {
    struct Snake<MoveSpeed, Name,>;
}

fn name(s: &str) -> Name {
    Name(s.to_owned())
}

/// A handle this world never issued (index far past any slot).
fn foreign() -> Entity {
    Entity::from_bits(9_999 | (1 << 32)).unwrap()
}

// ----- construction -----

#[test]
fn new_default_and_with_capacity_start_empty_and_behave_alike() {
    let cases: [(&str, Game); 4] = [
        ("new", Game::new()),
        ("default", Game::default()),
        ("with_capacity(0)", Game::with_capacity(0)),
        ("with_capacity(64)", Game::with_capacity(64)),
    ];
    for (label, mut world) in cases {
        assert_eq!(world.entity_count(), 0, "{label}");
        assert_eq!(world.entities().count(), 0, "{label}");
        assert_eq!(
            (
                world.size::<Pos>(),
                world.size::<Vel>(),
                world.size::<Name>()
            ),
            (0, 0, 0),
            "{label}"
        );
        assert!(world.pos.is_empty() && world.vel.is_empty() && world.name.is_empty());
        assert!(world.entities.is_empty(), "{label}");

        let handles: Vec<Entity> = (0..100).map(|_| world.spawn()).collect();
        for (i, e) in handles.iter().enumerate() {
            assert_eq!((e.index(), e.generation()), (i as u32, 1), "{label}");
            world.add(*e, Vel(i as i32));
        }
        assert_eq!(world.entity_count(), 100, "{label}");
        assert_eq!(world.size::<Vel>(), 100, "{label}");
        assert_eq!(world.get::<Vel>(handles[42]), Some(&Vel(42)), "{label}");
        world.assert_invariants();
    }
}

// ----- entities -----

#[test]
fn spawn_and_try_spawn_hand_out_sequential_generation_one_handles() {
    let mut world = Game::new();
    let a = world.spawn();
    let b = world.try_spawn().expect("room");
    let c = world.spawn();
    assert_eq!(format!("{a:?} {b:?} {c}"), "0v1 1v1 2v1");
    assert_eq!([a.index(), b.index(), c.index()], [0, 1, 2]);
    assert!(world.is_alive(a) && world.is_alive(b) && world.is_alive(c));
    assert_eq!(world.entity_count(), 3);
    assert!(!world.has::<Pos>(a) && !world.has::<Vel>(b) && !world.has::<Name>(c));
}

#[test]
fn spawn_with_bundles_of_zero_to_three_components() {
    let mut world = Game::new();
    // (bundle label, entity, expected has Pos/Vel/Name)
    let cases = [
        ("()", world.spawn_with(()), [false, false, false]),
        (
            "(Pos,)",
            world.spawn_with((Pos(1, 1),)),
            [true, false, false],
        ),
        ("(Vel,)", world.spawn_with((Vel(2),)), [false, true, false]),
        (
            "(Vel, Name)",
            world.spawn_with((Vel(3), name("three"))),
            [false, true, true],
        ),
        (
            "(Name, Pos)",
            world.spawn_with((name("four"), Pos(4, 4))),
            [true, false, true],
        ),
        (
            "(Pos, Vel, Name)",
            world.spawn_with((Pos(5, 5), Vel(5), name("five"))),
            [true, true, true],
        ),
        (
            "(Name, Vel, Pos)",
            world.spawn_with((name("six"), Vel(6), Pos(6, 6))),
            [true, true, true],
        ),
    ];
    for (i, (label, e, expected)) in cases.iter().enumerate() {
        assert_eq!(e.index(), i as u32, "{label}");
        assert!(world.is_alive(*e), "{label}");
        let got = [
            world.has::<Pos>(*e),
            world.has::<Vel>(*e),
            world.has::<Name>(*e),
        ];
        assert_eq!(&got, expected, "{label}");
    }
    assert_eq!(world.get::<Name>(cases[3].1), Some(&name("three")));
    assert_eq!(world.get::<Pos>(cases[6].1), Some(&Pos(6, 6)));
    assert_eq!(world.get::<Vel>(cases[6].1), Some(&Vel(6)));
    assert_eq!(world.entity_count(), 7);
    assert_eq!(
        (
            world.size::<Pos>(),
            world.size::<Vel>(),
            world.size::<Name>()
        ),
        (4, 4, 4)
    );
    world.assert_invariants();
}

#[test]
fn try_spawn_with_returns_the_entity_with_its_components() {
    let mut world = Game::new();
    let a = world.try_spawn_with(()).unwrap();
    let b = world.try_spawn_with((Vel(7),)).unwrap();
    let c = world
        .try_spawn_with((Pos(1, 2), Vel(8), name("c")))
        .unwrap();
    assert_eq!([a.index(), b.index(), c.index()], [0, 1, 2]);
    assert!(!world.has::<Vel>(a));
    assert_eq!(world.get::<Vel>(b), Some(&Vel(7)));
    assert_eq!(world.get::<Pos>(c), Some(&Pos(1, 2)));
    assert_eq!(world.get::<Name>(c), Some(&name("c")));
    assert_eq!(world.entity_count(), 3);
}

#[test]
fn despawn_returns_true_once_then_false() {
    let mut world = Game::new();
    let a = world.spawn_with((Pos(1, 1), Vel(1), name("a")));
    let b = world.spawn_with((Pos(2, 2), Vel(2)));
    // (handle, expected result) in order
    let table = [
        (a, true),
        (a, false),
        (foreign(), false),
        (b, true),
        (b, false),
    ];
    for (i, (e, expected)) in table.into_iter().enumerate() {
        assert_eq!(world.despawn(e), expected, "row {i}: despawn({e:?})");
        assert!(!world.is_alive(e), "row {i}");
    }
    assert_eq!(world.entity_count(), 0);
    assert_eq!(
        (
            world.size::<Pos>(),
            world.size::<Vel>(),
            world.size::<Name>()
        ),
        (0, 0, 0)
    );
    // Slots are reused last-freed-first, with a bumped generation.
    let c = world.spawn();
    assert_eq!((c.index(), c.generation()), (b.index(), 2));
    let d = world.spawn();
    assert_eq!((d.index(), d.generation()), (a.index(), 2));
    assert_eq!(format!("{d:?}"), "0v2");
    world.assert_invariants();
}

#[test]
fn despawn_deferred_returns_whether_alive_and_waits_for_finalize() {
    let mut world = Game::new();
    let a = world.spawn_with((Vel(1),));
    let dead = world.spawn();
    world.despawn(dead);
    assert!(world.despawn_deferred(a));
    assert!(!world.despawn_deferred(dead));
    assert!(!world.despawn_deferred(foreign()));
    assert!(world.is_alive(a), "nothing happens before the sync point");
    assert_eq!(world.get::<Vel>(a), Some(&Vel(1)));
    world.finalize_updates();
    assert!(!world.is_alive(a));
    assert_eq!(world.size::<Vel>(), 0);
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn is_alive_and_entity_count_track_spawns_and_despawns() {
    let mut world = Game::new();
    let mut live: Vec<Entity> = Vec::new();
    let mut dead: Vec<Entity> = Vec::new();
    for round in 0..5 {
        for _ in 0..10 {
            live.push(world.spawn());
        }
        for _ in 0..(3 + round) {
            let e = live.remove(round % live.len());
            assert!(world.despawn(e));
            dead.push(e);
        }
        assert_eq!(world.entity_count(), live.len());
        assert!(live.iter().all(|&e| world.is_alive(e)));
        assert!(dead.iter().all(|&e| !world.is_alive(e)));
    }
    assert_eq!(world.entity_count(), 50 - (3 + 4 + 5 + 6 + 7));
}

#[test]
fn entities_iterates_live_handles_in_index_order() {
    let mut world = Game::new();
    let e: Vec<Entity> = (0..6).map(|_| world.spawn()).collect();
    world.despawn(e[1]);
    world.despawn(e[3]);
    world.despawn(e[4]);
    let iter = world.entities();
    assert_eq!(iter.len(), 3);
    assert_eq!(iter.collect::<Vec<_>>(), [e[0], e[2], e[5]]);

    // Reuse (last freed first): 4, then 3.
    let r4 = world.spawn();
    let r3 = world.spawn();
    assert_eq!((r4.index(), r3.index()), (4, 3));
    assert_eq!(
        world.entities().collect::<Vec<_>>(),
        [e[0], e[2], r3, r4, e[5]]
    );
    assert_eq!(
        format!("{:?}", world.entities().collect::<Vec<_>>()),
        "[0v1, 2v1, 3v2, 4v2, 5v1]"
    );
}

// ----- components -----

#[test]
fn add_get_get_mut_has_remove_round_trip() {
    let mut world = Game::new();
    let e = world.spawn();
    let other = world.spawn_with((Pos(9, 9),));
    assert!(!world.has::<Pos>(e));
    assert_eq!(world.get::<Pos>(e), None);
    assert_eq!(world.get_mut::<Pos>(e), None);

    world.add(e, Pos(1, 2));
    assert!(world.has::<Pos>(e));
    assert!(!world.has::<Vel>(e));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1, 2)));

    world.get_mut::<Pos>(e).unwrap().1 = 20;
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1, 20)));

    assert_eq!(world.remove::<Pos>(e), Some(Pos(1, 20)));
    assert_eq!(world.remove::<Pos>(e), None);
    assert_eq!(world.remove::<Vel>(e), None);
    assert!(!world.has::<Pos>(e));
    assert!(world.is_alive(e), "remove keeps the entity");
    assert_eq!(
        world.get::<Pos>(other),
        Some(&Pos(9, 9)),
        "others untouched"
    );
    world.assert_invariants();
}

#[test]
fn try_add_succeeds_then_reports_each_error_kind() {
    let mut world = Game::new();
    let e = world.spawn();
    let gone = world.spawn();
    world.despawn(gone);
    assert!(world.try_add(e, Pos(1, 1)).is_ok());

    // (handle, component, expected kind, a phrase of the message)
    let table = [
        (
            e,
            Pos(2, 2),
            AddErrorKind::AlreadyPresent,
            "already has one",
        ),
        (gone, Pos(3, 3), AddErrorKind::DeadEntity, "is not alive"),
        (
            foreign(),
            Pos(4, 4),
            AddErrorKind::DeadEntity,
            "is not alive",
        ),
    ];
    for (target, component, kind, phrase) in table {
        let expected_value = component.clone();
        let error: AddError<Pos> = world.try_add(target, component).unwrap_err();
        assert_eq!(error.kind(), kind);
        assert_eq!(error.entity(), target);
        assert_eq!(error.component(), &expected_value);
        let text = error.to_string();
        assert!(text.contains(phrase), "{text}");
        assert!(text.contains(&format!("entity {target:?}")), "{text}");
        assert!(text.contains("Pos`"), "{text}");
        assert!(text.contains("`Game`"), "{text}");
        let debug = format!("{error:?}");
        assert!(debug.contains(&format!("{kind:?}")), "{debug}");
        // A std error, boxable.
        let boxed: Box<dyn std::error::Error> = Box::new(error);
        assert_eq!(boxed.to_string(), text);
    }
    // Nothing changed.
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1, 1)));
    assert_eq!(world.size::<Pos>(), 1);

    // into_component gives the value back.
    let back = world.try_add(e, Pos(7, 7)).unwrap_err().into_component();
    assert_eq!(back, Pos(7, 7));
}

#[test]
fn add_error_display_names_entity_component_and_world() {
    let mut world = Game::new();
    let e = world.spawn_with((Vel(1),));
    let text = world.try_add(e, Vel(2)).unwrap_err().to_string();
    assert!(
        text.starts_with("cannot add `world_api::Vel` to entity 0v1 in `Game`"),
        "{text}"
    );
    world.despawn(e);
    let text = world.try_add(e, name("x")).unwrap_err().to_string();
    assert!(
        text.starts_with("cannot add `world_api::Name` to entity 0v1 in `Game`"),
        "{text}"
    );
    assert!(text.contains("not alive"), "{text}");
}

#[test]
fn insert_adds_or_replaces_and_returns_the_old_value() {
    let mut world = Game::new();
    let e = world.spawn();
    assert_eq!(world.insert(e, Vel(1)), None);
    assert_eq!(world.insert(e, Vel(2)), Some(Vel(1)));
    assert_eq!(world.insert(e, Vel(3)), Some(Vel(2)));
    assert_eq!(world.get::<Vel>(e), Some(&Vel(3)));
    assert_eq!(world.size::<Vel>(), 1);

    assert_eq!(world.try_insert(e, Vel(4)).unwrap(), Some(Vel(3)));
    let f = world.spawn();
    assert_eq!(world.try_insert(f, Vel(5)).unwrap(), None);
    assert_eq!(world.size::<Vel>(), 2);
}

#[test]
fn try_insert_on_a_dead_entity_hands_the_value_back() {
    let mut world = Game::new();
    let e = world.spawn_with((Vel(1),));
    world.despawn(e);
    for target in [e, foreign()] {
        let error = world.try_insert(target, Vel(2)).unwrap_err();
        assert_eq!(error.kind(), AddErrorKind::DeadEntity);
        assert_eq!(error.entity(), target);
        assert!(error.to_string().contains("is not alive"));
        assert_eq!(error.into_component(), Vel(2));
    }
    assert_eq!(world.size::<Vel>(), 0);
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn remove_all_empties_the_entity_but_keeps_it_alive() {
    let mut world = Game::new();
    let a = world.spawn_with((Pos(1, 1), Vel(1), name("a")));
    let b = world.spawn_with((Pos(2, 2), Vel(2), name("b")));
    let bare = world.spawn();
    assert!(world.remove_all(a));
    assert!(world.is_alive(a));
    assert!(!world.has::<Pos>(a) && !world.has::<Vel>(a) && !world.has::<Name>(a));
    assert!(world.remove_all(a), "alive with nothing: still true");
    assert!(world.remove_all(bare));
    // b untouched
    assert_eq!(world.get::<Pos>(b), Some(&Pos(2, 2)));
    assert_eq!(world.get::<Vel>(b), Some(&Vel(2)));
    assert_eq!(world.get::<Name>(b), Some(&name("b")));
    assert_eq!(world.entity_count(), 3);
    // dead: false, nothing changes
    world.despawn(a);
    assert!(!world.remove_all(a));
    assert!(!world.remove_all(foreign()));
    assert_eq!(
        (
            world.size::<Pos>(),
            world.size::<Vel>(),
            world.size::<Name>()
        ),
        (1, 1, 1)
    );
    // the entity can be given components again
    world.add(bare, Vel(9));
    assert_eq!(world.get::<Vel>(bare), Some(&Vel(9)));
    world.assert_invariants();
}

// ----- index access and storages -----

#[test]
fn size_entity_at_value_at_agree_with_the_storage() {
    let mut world = Game::new();
    let e: Vec<Entity> = (0..5).map(|i| world.spawn_with((Vel(i),))).collect();
    world.remove::<Vel>(e[1]); // swap-remove: e[4] moves into slot 1
    assert_eq!(world.size::<Vel>(), 4);
    assert_eq!(world.size::<Pos>(), 0);
    let expected_order = [e[0], e[4], e[2], e[3]];
    for (i, &expected) in expected_order.iter().enumerate() {
        assert_eq!(world.entity_at::<Vel>(i), expected);
        assert_eq!(
            world.value_at::<Vel>(i),
            world.get::<Vel>(expected).unwrap()
        );
        assert_eq!(world.storage::<Vel>().entities()[i], expected);
        assert_eq!(world.storage::<Vel>().index_of(expected), Some(i));
    }
    assert_eq!(world.value_at::<Vel>(1), &Vel(4));
    for i in 0..world.size::<Vel>() {
        world.value_at_mut::<Vel>(i).0 *= 10;
    }
    assert_eq!(
        world.storage::<Vel>().values(),
        &[Vel(0), Vel(40), Vel(20), Vel(30)]
    );
    // The non-panicking twins.
    assert_eq!(world.storage::<Vel>().entities().get(4), None);
    assert_eq!(world.storage::<Vel>().values().get(4), None);
    assert!(world.storage_mut::<Vel>().values_mut().get_mut(4).is_none());
}

#[test]
fn storage_and_storage_mut_are_the_fields() {
    let mut world = Game::new();
    let a = world.spawn_with((Pos(1, 1), Vel(1)));
    let b = world.spawn_with((Pos(2, 2),));
    assert!(std::ptr::eq(world.storage::<Pos>(), &world.pos));
    assert!(std::ptr::eq(world.storage::<Vel>(), &world.vel));
    for p in world.storage_mut::<Pos>().values_mut() {
        p.0 += 100;
    }
    assert_eq!(world.pos.get(a), Some(&Pos(101, 1)));
    assert_eq!(world.pos.get(b), Some(&Pos(102, 2)));
    assert_eq!(world.storage::<Pos>().len(), 2);
    assert!(world.storage::<Name>().is_empty());
    // Removing through the storage works and keeps the entity alive.
    assert_eq!(world.storage_mut::<Vel>().remove(a), Some(Vel(1)));
    assert!(world.is_alive(a) && !world.has::<Vel>(a));
}

#[test]
fn public_fields_are_sparse_maps() {
    let mut world = Game::new();
    let a = world.spawn_with((Pos(1, 0), Vel(10)));
    let b = world.spawn_with((Pos(2, 0),));
    let c = world.spawn_with((Vel(30),));

    // Read side.
    assert_eq!(world.pos.len(), 2);
    assert!(!world.pos.is_empty() && world.name.is_empty());
    assert!(world.pos.contains(a) && !world.pos.contains(c));
    assert_eq!(world.pos.get(b), Some(&Pos(2, 0)));
    assert_eq!(world.pos.entities(), &[a, b]);
    assert_eq!(world.pos.values(), &[Pos(1, 0), Pos(2, 0)]);
    assert_eq!(world.pos.index_of(b), Some(1));
    assert_eq!(world.pos.index_of(c), None);
    let pairs: Vec<(Entity, i32)> = world.vel.iter().map(|(e, v)| (e, v.0)).collect();
    assert_eq!(pairs, [(a, 10), (c, 30)]);
    let via_into_iter: Vec<Entity> = (&world.vel).into_iter().map(|(e, _)| e).collect();
    assert_eq!(via_into_iter, [a, c]);
    assert_eq!(world.vel.iter().next_back().map(|(e, _)| e), Some(c));
    assert_eq!(world.vel.iter().len(), 2);

    // Write side.
    for p in world.pos.values_mut() {
        p.1 = 5;
    }
    for (e, v) in world.vel.iter_mut() {
        v.0 += e.index() as i32;
    }
    for (_, v) in &mut world.vel {
        v.0 += 1;
    }
    world.pos.get_mut(a).unwrap().0 = -1;
    assert_eq!(world.get::<Pos>(a), Some(&Pos(-1, 5)));
    assert_eq!(world.get::<Pos>(b), Some(&Pos(2, 5)));
    assert_eq!(world.get::<Vel>(a), Some(&Vel(11)));
    assert_eq!(world.get::<Vel>(c), Some(&Vel(33)));

    // Two storages borrowed at once (disjoint fields).
    let (pos, vel) = (&mut world.pos, &world.vel);
    for (e, p) in pos.iter_mut() {
        if let Some(v) = vel.get(e) {
            p.0 += v.0;
        }
    }
    assert_eq!(world.get::<Pos>(a), Some(&Pos(10, 5)));
    assert_eq!(world.get::<Pos>(b), Some(&Pos(2, 5)));

    // Debug of one storage is a map from entity to value.
    assert_eq!(format!("{:?}", world.vel), "{0v1: Vel(11), 2v1: Vel(33)}");
}

#[test]
fn the_entities_field_is_the_allocator() {
    let mut world = Game::new();
    let a = world.spawn();
    let b = world.spawn();
    world.despawn(a);
    let allocator: &EntityAllocator = &world.entities;
    assert_eq!(allocator.len(), world.entity_count());
    assert!(!allocator.is_empty());
    assert!(allocator.is_alive(b) && !allocator.is_alive(a));
    assert_eq!(
        allocator.iter().collect::<Vec<_>>(),
        world.entities().collect::<Vec<_>>()
    );
    assert_eq!(allocator.iter().collect::<Vec<_>>(), [b]);
}

// ----- whole world -----

#[test]
fn clear_stales_every_handle_and_never_reissues_one() {
    let mut world = Game::new();
    let old: Vec<Entity> = (0..20)
        .map(|i| world.spawn_with((Pos(i, i), Vel(i))))
        .collect();
    world.despawn(old[3]);
    world.add_deferred(old[4], name("queued"));
    world.despawn_deferred(old[5]);
    world.clear();
    assert_eq!(world.entity_count(), 0);
    assert_eq!(world.entities().count(), 0);
    assert_eq!(
        (
            world.size::<Pos>(),
            world.size::<Vel>(),
            world.size::<Name>()
        ),
        (0, 0, 0)
    );
    for &e in &old {
        assert!(!world.is_alive(e));
        assert_eq!(world.get::<Pos>(e), None);
        assert!(!world.despawn(e));
    }
    let fresh: Vec<Entity> = (0..25).map(|_| world.spawn()).collect();
    let old_set: HashSet<Entity> = old.iter().copied().collect();
    for &e in &fresh {
        assert!(!old_set.contains(&e), "{e:?} was issued before clear");
        assert!(!world.has::<Pos>(e) && !world.has::<Name>(e));
    }
    // The queued changes were dropped with the rest.
    world.finalize_updates();
    assert_eq!(world.entity_count(), 25);
    assert_eq!(world.size::<Name>(), 0);
    // The world works as before.
    world.add(fresh[0], Vel(1));
    assert_eq!(world.get::<Vel>(fresh[0]), Some(&Vel(1)));
    world.assert_invariants();
}

#[test]
fn names_and_consts() {
    assert_eq!(Game::NAME, "Game");
    assert_eq!(Game::COMPONENT_NAMES, ["Pos", "Vel", "Name"]);
    assert_eq!(Game::new().component_names(), ["Pos", "Vel", "Name"]);
    assert_eq!(Physics::NAME, "Physics");
    let physics = Physics::new();
    assert_eq!(physics.component_names(), Physics::COMPONENT_NAMES);
    assert_eq!(physics.component_names().len(), 4);
    let squashed: Vec<String> = Physics::COMPONENT_NAMES
        .iter()
        .map(|n| n.replace(' ', ""))
        .collect();
    assert_eq!(squashed, ["Vec3<f32>", "Vec3<i32>", "(i32,i32)", "Name"]);
    assert_eq!(Snake::COMPONENT_NAMES, ["MoveSpeed", "Name"]);
}

#[test]
fn field_form_with_generic_component_types() {
    let mut world = Physics::with_capacity(4);
    let e = world.spawn_with((Vec3(0.5_f32, 1.0, 2.0), Vec3(1, 2, 3), (4, 2)));
    let f = world.spawn_with((Vec3(9_i32, 9, 9), name("f")));
    assert_eq!(world.pos.get(e), Some(&Vec3(0.5, 1.0, 2.0)));
    assert_eq!(world.grid.get(e), Some(&Vec3(1, 2, 3)));
    assert_eq!(world.cell.get(e), Some(&(4, 2)));
    assert_eq!(world.label.get(f), Some(&name("f")));
    assert_eq!(world.get::<Vec3<i32>>(f), Some(&Vec3(9, 9, 9)));
    assert!(!world.has::<Vec3<f32>>(f));
    assert_eq!(world.insert(f, Vec3(1.5_f32, 0.0, 0.0)), None);
    world.get_mut::<Vec3<f32>>(e).unwrap().0 = -1.0;
    assert_eq!(world.remove::<Vec3<f32>>(e), Some(Vec3(-1.0, 1.0, 2.0)));
    assert_eq!(world.size::<Vec3<f32>>(), 1);
    assert_eq!(world.size::<Vec3<i32>>(), 2);
    let both: Vec<Entity> = world
        .query::<(&Vec3<i32>, &(i32, i32))>()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(both, [e]);
    assert!(format!("{world:?}").starts_with("Physics {"));
    world.assert_invariants();
}

#[test]
fn list_form_names_fields_in_snake_case() {
    let mut world = Snake::default();
    let e = world.spawn_with((MoveSpeed(3), name("s")));
    assert_eq!(world.move_speed.get(e), Some(&MoveSpeed(3)));
    assert_eq!(world.name.get(e), Some(&name("s")));
}

#[test]
fn derived_clone_is_independent_of_the_original() {
    let mut world = Game::new();
    let a = world.spawn_with((Pos(1, 1), Vel(1)));
    let b = world.spawn_with((name("b"),));
    let dead = world.spawn();
    world.despawn(dead);
    world.add_deferred(b, Vel(2));

    let mut copy = world.clone();
    assert_eq!(format!("{copy:?}"), format!("{world:?}"));

    // Change the original: the copy does not see it.
    world.get_mut::<Pos>(a).unwrap().0 = 100;
    world.despawn(b);
    let c = world.spawn();
    world.add(c, name("c"));
    assert_eq!(copy.get::<Pos>(a), Some(&Pos(1, 1)));
    assert!(copy.is_alive(b) && !copy.is_alive(c));
    assert_eq!(copy.get::<Name>(b), Some(&name("b")));
    assert_eq!(copy.entity_count(), 2);
    assert_eq!(copy.get::<Name>(c), None);

    // The copy has its own queue too.
    copy.finalize_updates();
    assert_eq!(copy.get::<Vel>(b), Some(&Vel(2)));
    world.finalize_updates();
    assert_eq!(world.size::<Vel>(), 1);

    // Change the copy: the original does not see it.
    copy.remove_all(a);
    let d = copy.spawn();
    assert_eq!(format!("{d:?}"), "2v2", "the copy reuses its own free slot");
    assert_eq!(format!("{c:?}"), "1v2");
    assert!(!world.is_alive(d) && copy.is_alive(d));
    assert_eq!(world.get::<Pos>(a), Some(&Pos(100, 1)));
    assert_eq!(world.get::<Name>(c), Some(&name("c")));
    world.assert_invariants();
    copy.assert_invariants();
}

#[test]
fn world_debug_shows_fields_and_values() {
    let mut world = Game::new();
    let e = world.spawn_with((Pos(1, 2),));
    world.add_deferred(e, Vel(3));
    let text = format!("{world:?}");
    assert!(
        text.starts_with("Game { entities: EntityAllocator"),
        "{text}"
    );
    assert!(text.contains("pos: {0v1: Pos(1, 2)}"), "{text}");
    assert!(text.contains("vel: {}"), "{text}");
    assert!(text.contains("name: {}"), "{text}");
    // The queued changes come last, one count per component.
    let queued = &text[text.find("__queued: ").expect(&text)..];
    assert!(
        queued.contains("vel: (queued: 1 adds, 0 removes)"),
        "{text}"
    );
    assert!(queued.contains("__despawns: []"), "{text}");
}

/// A component that implements nothing at all.
struct Opaque;

world! {
    struct Plain<Opaque>;
}

#[test]
fn add_error_needs_no_debug_on_the_component() {
    let mut world = Plain::new();
    let e = world.spawn();
    world.try_add(e, Opaque).unwrap(); // `unwrap` needs `AddError<Opaque>: Debug`
    let error = world.try_add(e, Opaque).unwrap_err();
    let debug = format!("{error:?}");
    assert!(debug.starts_with("AddError {"), "{debug}");
    assert!(
        debug.contains("AlreadyPresent") && debug.contains("0v1"),
        "{debug}"
    );
    assert!(
        debug.contains("Plain") && debug.contains("Opaque"),
        "{debug}"
    );
    assert_eq!(world.size::<Opaque>(), 1);
}

// ----- panicking forms -----

#[test]
#[should_panic(
    expected = "cannot add `world_api::Pos` to entity 0v1 in `Game`: the entity is not alive"
)]
fn add_on_dead_entity_panics() {
    let mut world = Game::new();
    let e = world.spawn();
    world.despawn(e);
    world.add(e, Pos(0, 0));
}

#[test]
#[should_panic(
    expected = "cannot add `world_api::Vel` to entity 1v1 in `Game`: the entity already has one"
)]
fn add_when_present_panics() {
    let mut world = Game::new();
    world.spawn();
    let e = world.spawn_with((Vel(1),));
    world.add(e, Vel(2));
}

#[test]
#[should_panic(
    expected = "cannot add `world_api::Name` to entity 0v2 in `Game`: the entity is not alive"
)]
fn insert_on_dead_entity_panics() {
    let mut world = Game::new();
    let e = world.spawn();
    world.despawn(e);
    let reused = world.spawn();
    world.despawn(reused);
    world.insert(reused, name("x"));
}

#[test]
#[should_panic(
    expected = "cannot add `world_api::Pos` to entity 0v1 in `Game`: the entity is not alive"
)]
fn add_deferred_on_dead_entity_panics() {
    let mut world = Game::new();
    let e = world.spawn();
    world.despawn(e);
    world.add_deferred(e, Pos(0, 0));
}

#[test]
#[should_panic(
    expected = "cannot queue `world_api::Pos` for entity 0v1 in `Game`: an add of that component is already queued"
)]
fn add_deferred_twice_panics() {
    let mut world = Game::new();
    let e = world.spawn();
    world.add_deferred(e, Pos(0, 0));
    world.add_deferred(e, Pos(1, 1));
}

#[test]
#[should_panic(
    expected = "cannot add `world_api::Vel` to entity 0v1 in `Game`: the entity already has one"
)]
fn add_deferred_when_present_panics() {
    let mut world = Game::new();
    let e = world.spawn_with((Vel(0),));
    world.add_deferred(e, Vel(1));
}

#[test]
#[should_panic(
    expected = "index 2 is out of range for the `world_api::Pos` storage of `Game`, which holds 2 values"
)]
fn entity_at_out_of_range_panics() {
    let mut world = Game::new();
    world.spawn_with((Pos(0, 0),));
    world.spawn_with((Pos(1, 1),));
    world.entity_at::<Pos>(2);
}

#[test]
#[should_panic(
    expected = "index 0 is out of range for the `world_api::Vel` storage of `Game`, which holds 0 values"
)]
fn value_at_out_of_range_panics() {
    let mut world = Game::new();
    world.spawn_with((Pos(0, 0),));
    world.value_at::<Vel>(0);
}

#[test]
#[should_panic(
    expected = "index 7 is out of range for the `world_api::Name` storage of `Game`, which holds 1 values"
)]
fn value_at_mut_out_of_range_panics() {
    let mut world = Game::new();
    world.spawn_with((name("a"),));
    world.value_at_mut::<Name>(7);
}

thread_local! {
    /// Where the last panic on this thread happened, when capturing.
    static PANIC_AT: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
}

/// Runs `f`, which must panic, and returns the file of the panic location.
fn panic_file(f: impl FnOnce()) -> String {
    PANIC_AT.with(|slot| *slot.borrow_mut() = Some(None));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    assert!(result.is_err(), "expected a panic");
    PANIC_AT
        .with(|slot| slot.borrow_mut().take())
        .flatten()
        .expect("the hook saw the panic")
}

#[test]
fn panics_point_at_the_caller() {
    // Install a hook that records the location on threads that ask for it
    // and defers to the previous hook everywhere else.
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let captured = PANIC_AT.with(|slot| match &mut *slot.borrow_mut() {
                Some(location) => {
                    *location = info.location().map(|l| l.file().to_owned());
                    true
                }
                None => false,
            });
            if !captured {
                previous(info);
            }
        }));
    });

    let here = file!();
    let mut world = Game::new();
    let e = world.spawn_with((Pos(0, 0),));
    let dead = world.spawn();
    world.despawn(dead);
    type Case = (&'static str, Box<dyn FnOnce(&mut Game)>);
    let cases: Vec<Case> = vec![
        ("add present", Box::new(move |w| w.add(e, Pos(1, 1)))),
        ("add dead", Box::new(move |w| w.add(dead, Pos(1, 1)))),
        (
            "insert dead",
            Box::new(move |w| {
                w.insert(dead, Vel(1));
            }),
        ),
        (
            "add_deferred dead",
            Box::new(move |w| w.add_deferred(dead, Vel(1))),
        ),
        (
            "entity_at",
            Box::new(|w| {
                w.entity_at::<Vel>(0);
            }),
        ),
        (
            "value_at",
            Box::new(|w| {
                w.value_at::<Vel>(0);
            }),
        ),
        (
            "value_at_mut",
            Box::new(|w| {
                w.value_at_mut::<Vel>(0);
            }),
        ),
        (
            "spawn_batch out of indices",
            Box::new(|w| {
                w.set_entity_limit(2);
                w.spawn_batch((0..3).map(|i| (Pos(i, i),)));
            }),
        ),
        (
            "extend out of indices",
            Box::new(|w| w.extend((0..3).map(|i| (Pos(i, i),)))),
        ),
    ];
    for (label, case) in cases {
        let file = panic_file(|| case(&mut world));
        assert_eq!(file, here, "{label} should report the caller's location");
    }
    world.assert_invariants();
    assert_eq!(world.get::<Pos>(e), Some(&Pos(0, 0)));
}

#[test]
fn get_many_mut_hands_out_distinct_values_or_none() {
    let mut world = Game::new();
    let a = world.spawn_with((Vel(1),));
    let b = world.spawn_with((Vel(2),));
    let c = world.spawn_with((Vel(3),));
    let bare = world.spawn();
    let [x, y, z] = world.vel.get_many_mut([c, a, b]).unwrap();
    std::mem::swap(x, z);
    y.0 *= 10;
    assert_eq!(world.vel.values(), [Vel(10), Vel(3), Vel(2)]);
    assert_eq!(world.vel.get_many_mut([a, bare]), None, "one has no value");
    assert_eq!(world.vel.get_many_mut([b, c, b]), None, "b named twice");
    assert_eq!(world.vel.get_many_mut([]), Some([]));
    assert!(world.despawn(a));
    let reused = world.spawn_with((Vel(7),));
    assert_eq!(reused.index(), a.index());
    assert_eq!(world.vel.get_many_mut([a, b]), None, "a is stale");
    assert_eq!(world.vel.get_many_mut([reused]).map(|[v]| v.0), Some(7));
}
