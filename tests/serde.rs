//! Saving and loading worlds (feature `serde`): round trips through JSON and
//! postcard keep entities, generations, the free list, queued changes and
//! every component; stale handles stay stale; new spawns never collide with
//! loaded ids; malformed or hostile data is an error, never a broken world.

#![cfg(feature = "serde")]

use serde::{Deserialize, Serialize};
use typed_ecs::prelude::*;

#[path = "support/rng.rs"]
mod rng;

use rng::Rng;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Position {
    pub x: f32,
    pub y: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Name(pub String);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target(pub Entity);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frozen;

world! {
    /// A saved game.
    #[derive(Debug, Clone, Serialize, Deserialize)]
    pub struct Save<Position, Name, Target, Frozen>;
}

world! {
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Fields {
        pos: Position,
        tags: Vec<String>,
    }
}

/// Serde derive paths with a leading `::`, kept as written, next to a
/// module named `core`.
mod leading_colons {
    #![allow(dead_code)]
    mod core {}
    use typed_ecs::prelude::*;

    #[derive(::serde::Serialize, ::serde::Deserialize, ::core::fmt::Debug)]
    pub struct Tag(pub u8);

    world! {
        #[derive(::core::fmt::Debug, ::serde::Serialize, ::serde::Deserialize)]
        pub struct Tagged<Tag>;
    }
}

world! {
    /// A saved game with an owning group.
    #[derive(Serialize, Deserialize)]
    pub struct GroupedSave<Position, Name, Frozen>;
    group (Position, Name);
}

/// A world with history: despawns (so generations and a free list), queued
/// changes, handles stored in components.
fn sample() -> (Save, Vec<Entity>) {
    let mut world = Save::new();
    let mut handles = Vec::new();
    for i in 0..20 {
        let e = world.spawn_with((
            Position {
                x: i as f32,
                y: -(i as f32),
            },
            Name(format!("n{i}")),
        ));
        handles.push(e);
    }
    for &e in handles.iter().step_by(4) {
        world.despawn(e);
    }
    // Reuse some slots (generation 2) and free them again (generation 3).
    for _ in 0..3 {
        let e = world.spawn_with((Frozen,));
        handles.push(e);
    }
    world.despawn(handles[20]);
    world.add(handles[1], Target(handles[2]));
    world.add_deferred(handles[2], Frozen);
    world.remove_deferred::<Name>(handles[3]);
    world.despawn_deferred(handles[5]);
    world.assert_invariants();
    (world, handles)
}

/// Everything observable about a world, for comparing two of them.
fn snapshot(world: &Save, handles: &[Entity]) -> Vec<String> {
    let mut lines: Vec<String> = handles
        .iter()
        .map(|&e| {
            format!(
                "{e:?} alive={} {:?} {:?} {:?} {:?}",
                world.is_alive(e),
                world.get::<Position>(e),
                world.get::<Name>(e),
                world.get::<Target>(e),
                world.get::<Frozen>(e)
            )
        })
        .collect();
    lines.push(format!("count={}", world.entity_count()));
    lines.push(format!("{:?}", world.entities().collect::<Vec<_>>()));
    lines
}

/// After a load, both worlds behave the same from here on: queued changes,
/// spawns (which reuse the same free slots) and despawns.
fn assert_same_future(mut original: Save, mut loaded: Save, handles: &[Entity]) {
    assert_eq!(snapshot(&original, handles), snapshot(&loaded, handles));
    for world in [&mut original, &mut loaded] {
        world.finalize_updates();
        world.assert_invariants();
    }
    assert_eq!(snapshot(&original, handles), snapshot(&loaded, handles));
    let spawned_a: Vec<Entity> = (0..8).map(|_| original.spawn()).collect();
    let spawned_b: Vec<Entity> = (0..8).map(|_| loaded.spawn()).collect();
    assert_eq!(spawned_a, spawned_b, "the free list survived");
    for e in &spawned_b {
        assert!(!handles.contains(e), "{e:?} collides with a loaded id");
    }
    loaded.assert_invariants();
}

#[test]
fn json_round_trip_keeps_everything() {
    let (world, handles) = sample();
    let json = serde_json::to_string_pretty(&world).unwrap();
    let loaded: Save = serde_json::from_str(&json).unwrap();
    loaded.assert_invariants();
    assert_same_future(world, loaded, &handles);
}

#[test]
fn postcard_round_trip_keeps_everything() {
    let (world, handles) = sample();
    let bytes = postcard::to_allocvec(&world).unwrap();
    let loaded: Save = postcard::from_bytes(&bytes).unwrap();
    assert_same_future(world, loaded, &handles);
}

#[test]
fn stale_handles_stay_stale_after_a_load() {
    let (world, handles) = sample();
    let dead: Vec<Entity> = handles
        .iter()
        .copied()
        .filter(|&e| !world.is_alive(e))
        .collect();
    assert!(!dead.is_empty());
    let loaded: Save = serde_json::from_str(&serde_json::to_string(&world).unwrap()).unwrap();
    for &e in &dead {
        assert!(!loaded.is_alive(e));
        assert_eq!(loaded.get::<Position>(e), None);
    }
    // A stored handle still points at the same entity.
    let target = loaded.get::<Target>(handles[1]).unwrap().0;
    assert_eq!(loaded.get::<Name>(target), Some(&Name("n2".into())));
}

#[test]
fn explicit_field_worlds_and_serde_paths_work() {
    let mut world = Fields::new();
    let e = world.spawn_with((Position { x: 1.0, y: 2.0 }, vec!["a".to_string()]));
    let loaded: Fields = serde_json::from_str(&serde_json::to_string(&world).unwrap()).unwrap();
    assert_eq!(loaded.tags.get(e), Some(&vec!["a".to_string()]));
    assert_eq!(loaded.pos.get(e), Some(&Position { x: 1.0, y: 2.0 }));
}

#[test]
fn leading_colon_derive_paths_work() {
    use leading_colons::{Tag, Tagged};
    let mut world = Tagged::new();
    let e = world.spawn_with((Tag(7),));
    let loaded: Tagged = serde_json::from_str(&serde_json::to_string(&world).unwrap()).unwrap();
    assert_eq!(loaded.get::<Tag>(e).map(|tag| tag.0), Some(7));
    assert!(format!("{loaded:?}").contains("Tag"));
}

#[test]
fn entity_storage_and_allocator_round_trip_alone() {
    let (world, _) = sample();
    let entities: typed_ecs::EntityAllocator =
        serde_json::from_str(&serde_json::to_string(&world.entities).unwrap()).unwrap();
    assert_eq!(
        entities.iter().collect::<Vec<_>>(),
        world.entities.iter().collect::<Vec<_>>()
    );
    let names: SparseMap<Name> =
        serde_json::from_str(&serde_json::to_string(&world.name).unwrap()).unwrap();
    assert_eq!(names.entities(), world.name.entities());
    names.assert_invariants();
    let e: Entity = serde_json::from_str("[7, 3]").unwrap();
    assert_eq!((e.index(), e.generation()), (7, 3));
}

/// Loads `json` after applying `edit` to the saved form of `sample()`, and
/// returns the error message.
fn load_error(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let (world, _) = sample();
    let mut value = serde_json::to_value(&world).unwrap();
    edit(&mut value);
    match serde_json::from_value::<Save>(value) {
        Ok(_) => panic!("hostile data was accepted"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn generation_zero_is_rejected() {
    let error = load_error(|v| v["name"]["values"][0][0][1] = 0.into());
    assert!(error.contains("generation is never 0"), "{error}");
    let error = load_error(|v| v["entities"]["slots"][1][0] = 0.into());
    assert!(error.contains("generation 0"), "{error}");
}

#[test]
fn duplicate_entities_in_a_storage_are_rejected() {
    let error = load_error(|v| {
        let first = v["position"]["values"][0].clone();
        v["position"]["values"].as_array_mut().unwrap().push(first);
    });
    assert!(error.contains("twice"), "{error}");
    // Another generation of an index already stored: the dense/sparse
    // mismatch a hand-edited save would produce.
    let error = load_error(|v| {
        let mut other = v["position"]["values"][0].clone();
        other[0][1] = 99.into();
        v["position"]["values"].as_array_mut().unwrap().push(other);
    });
    assert!(error.contains("twice"), "{error}");
}

#[test]
fn an_entity_past_the_allocator_is_rejected() {
    let error = load_error(|v| v["name"]["values"][0][0] = serde_json::json!([5000, 1]));
    assert!(error.contains("not alive"), "{error}");
    let error = load_error(|v| v["frozen"]["pending_adds"][0][0] = serde_json::json!([5000, 1]));
    assert!(error.contains("not alive"), "{error}");
}

#[test]
fn a_stale_entity_in_a_storage_is_rejected() {
    // Index 0 was despawned (generation 2 now): a value for 0v1 is stale.
    let error = load_error(|v| v["position"]["values"][1][0] = serde_json::json!([0, 1]));
    assert!(error.contains("not alive"), "{error}");
}

#[test]
fn a_broken_free_list_is_rejected() {
    let error = load_error(|v| v["entities"]["free"].as_array_mut().unwrap().push(1.into()));
    assert!(error.contains("alive"), "{error}");
    let error = load_error(|v| {
        let first = v["entities"]["free"][0].clone();
        v["entities"]["free"].as_array_mut().unwrap().push(first);
    });
    assert!(error.contains("twice"), "{error}");
    let error = load_error(|v| {
        v["entities"]["free"]
            .as_array_mut()
            .unwrap()
            .push(100_000.into())
    });
    assert!(error.contains("does not exist"), "{error}");
    let error = load_error(|v| v["entities"]["free"] = serde_json::json!([]));
    assert!(error.contains("neither free nor retired"), "{error}");
}

/// Saves `world` as JSON and as postcard, loads both, and checks each
/// loaded world against the original (now and after the sync point).
fn round_trips(world: &Save, handles: &[Entity]) {
    let json = serde_json::to_string(world).unwrap();
    let from_json: Save = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}\n{json}"));
    let bytes = postcard::to_allocvec(world).unwrap();
    let from_postcard: Save = postcard::from_bytes(&bytes).unwrap();
    for loaded in [from_json, from_postcard] {
        loaded.assert_invariants();
        assert_same_future(world.clone(), loaded, handles);
    }
}

#[test]
fn a_despawn_queued_for_an_entity_despawned_since_loads() {
    // Queued for the sync point, then killed by another system first.
    let mut world = Save::new();
    let e = world.spawn_with((Position { x: 1.0, y: 1.0 }, Name("e".into())));
    let other = world.spawn_with((Name("other".into()),));
    world.despawn_deferred(e);
    world.despawn_deferred(e); // queueing twice is harmless
    world.despawn(e);
    world.assert_invariants();
    round_trips(&world, &[e, other]);
    // The index is reused before the sync point: the queued despawn still
    // names the old entity, and must not touch the new one.
    let reused = world.spawn_with((Name("reused".into()),));
    assert_eq!(reused.index(), e.index());
    round_trips(&world, &[e, other, reused]);
    let json = serde_json::to_string(&world).unwrap();
    let mut loaded: Save = serde_json::from_str(&json).unwrap();
    loaded.finalize_updates();
    assert!(loaded.is_alive(reused));
}

#[test]
fn a_queued_add_for_an_entity_that_gained_the_component_loads() {
    // Documented: the queued value replaces the one added in the meantime.
    let mut world = Save::new();
    let e = world.spawn();
    world.add_deferred(e, Position { x: 1.0, y: 1.0 });
    world.add(e, Position { x: 2.0, y: 2.0 });
    world.assert_invariants();
    round_trips(&world, &[e]);
    let json = serde_json::to_string(&world).unwrap();
    let mut loaded: Save = serde_json::from_str(&json).unwrap();
    loaded.finalize_updates();
    assert_eq!(
        loaded.get::<Position>(e),
        Some(&Position { x: 1.0, y: 1.0 })
    );
}

#[test]
fn the_same_states_reached_through_commands_load() {
    let mut world = Save::new();
    let e = world.spawn();
    let f = world.spawn();
    world.add_deferred(e, Frozen);
    world.despawn_deferred(f);
    let mut commands = Commands::new();
    commands.add(e, Frozen);
    commands.despawn(f);
    assert!(world.apply(&mut commands).is_clean());
    world.assert_invariants();
    round_trips(&world, &[e, f]);
}

#[test]
fn hostile_queues_are_rejected() {
    // A despawn queued for a handle the allocator never handed out could
    // kill whichever entity gets that handle later.
    let error = load_error(|v| {
        v["entities"]["pending_despawns"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!([0, 7]));
    });
    assert!(error.contains("never handed out"), "{error}");
    let error = load_error(|v| {
        v["entities"]["pending_despawns"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!([5000, 1]));
    });
    assert!(error.contains("never handed out"), "{error}");
    // Queued changes for entities that are not alive.
    let error = load_error(|v| {
        v["frozen"]["pending_adds"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!([[0, 1], null]));
    });
    assert!(error.contains("not alive"), "{error}");
    let error = load_error(|v| {
        v["name"]["pending_removes"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!([0, 1]));
    });
    assert!(error.contains("not alive"), "{error}");
}

#[test]
fn a_storage_out_of_step_is_saved_as_the_world_sees_it() {
    let (mut world, handles) = sample();
    let taken = std::mem::take(&mut world.name);
    world.despawn(handles[1]);
    world.name = taken; // still holds handles[1]'s name and queued changes
    assert_eq!(world.get::<Name>(handles[1]), None);
    round_trips(&world, &handles);
    let json = serde_json::to_value(&world).unwrap();
    let saved = json["name"]["values"].as_array().unwrap();
    assert_eq!(saved.len(), world.size::<Name>());
}

#[test]
fn missing_unknown_and_truncated_data_are_rejected() {
    let error = load_error(|v| {
        v.as_object_mut().unwrap().remove("target");
    });
    assert!(error.contains("target"), "{error}");
    let error = load_error(|v| v["monsters"] = serde_json::json!({}));
    assert!(error.contains("monsters"), "{error}");
    let (world, _) = sample();
    let bytes = postcard::to_allocvec(&world).unwrap();
    for cut in [1, bytes.len() / 2, bytes.len() - 1] {
        assert!(postcard::from_bytes::<Save>(&bytes[..cut]).is_err());
    }
}

#[test]
fn random_bytes_never_make_a_broken_world() {
    let (world, _) = sample();
    let bytes = postcard::to_allocvec(&world).unwrap();
    let mut rng = Rng::new(0x5eed);
    let mut accepted = 0;
    for _ in 0..2_000 {
        let mut corrupt = bytes.clone();
        for _ in 0..3 {
            let at = rng.index(corrupt.len());
            corrupt[at] = rng.next_u64() as u8;
        }
        if let Ok(loaded) = postcard::from_bytes::<Save>(&corrupt) {
            // Whatever was accepted is a consistent world.
            loaded.assert_invariants();
            accepted += 1;
        }
    }
    assert!(accepted < 2_000, "corruption was never noticed");
}

/// A group is not saved: the loaded world packs it again, and queries over
/// it see the same entities.
#[test]
fn a_loaded_world_packs_its_groups() {
    let mut world = GroupedSave::new();
    let mut handles = Vec::new();
    for i in 0..30 {
        let e = world.spawn_with((Position {
            x: i as f32,
            y: 0.0,
        },));
        if i % 3 != 0 {
            world.add(e, Name(format!("n{i}")));
        }
        handles.push(e);
    }
    world.despawn(handles[4]);
    let saved = serde_json::to_string(&world).unwrap();
    let loaded: GroupedSave = serde_json::from_str(&saved).unwrap();
    loaded.assert_invariants();
    assert_eq!(loaded.group_len::<(Position, Name)>(), Some(19));
    let names = |world: &GroupedSave| {
        let mut names: Vec<(Entity, String)> = world
            .query::<(&Position, &Name)>()
            .map(|(e, (_, name))| (e, name.0.clone()))
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(&loaded), names(&world));
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    pub frame: u64,
    pub seed: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HighScores(pub Vec<(String, u32)>);

world! {
    /// A saved game with resources and a group.
    #[derive(Debug, Serialize, Deserialize)]
    pub struct WithResources<Position, Name>;
    resources { clock: Clock, scores: HighScores }
    group (Position, Name);
}

#[test]
fn resources_are_saved_and_loaded_with_the_world() {
    let mut world = WithResources::new();
    world.clock = Clock { frame: 41, seed: 7 };
    world.scores.0.push(("ann".into(), 3));
    let e = world.spawn_with((Position { x: 1.0, y: 2.0 }, Name("a".into())));

    let json = serde_json::to_string(&world).unwrap();
    assert!(json.contains(r#""clock":{"frame":41,"seed":7}"#), "{json}");
    let loaded: WithResources = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded.clock, world.clock);
    assert_eq!(loaded.scores, world.scores);
    assert_eq!(loaded.name.get(e), Some(&Name("a".into())));
    assert_eq!(loaded.entity_count(), 1, "resources are not entities");
    loaded.assert_invariants();

    let bytes = postcard::to_allocvec(&world).unwrap();
    let loaded: WithResources = postcard::from_bytes(&bytes).unwrap();
    assert_eq!((loaded.clock.frame, loaded.scores.0.len()), (41, 1));
    loaded.assert_invariants();
}

#[test]
fn a_save_without_a_resource_loads_it_as_its_default() {
    let mut world = WithResources::new();
    world.clock.frame = 5;
    world.scores.0.push(("bo".into(), 1));
    let mut value = serde_json::to_value(&world).unwrap();
    value.as_object_mut().unwrap().remove("scores");
    let loaded: WithResources = serde_json::from_value(value.clone()).unwrap();
    assert_eq!((loaded.clock.frame, loaded.scores.0.len()), (5, 0));

    // A resource of the wrong shape is an error, never a default.
    value
        .as_object_mut()
        .unwrap()
        .insert("clock".into(), serde_json::json!("not a clock"));
    let error = serde_json::from_value::<WithResources>(value).unwrap_err();
    assert!(error.to_string().contains("invalid type"), "{error}");
}

/// A per-tick cache: rebuilt every frame, never saved, and not
/// serialisable at all.
#[derive(Debug, Default, PartialEq)]
pub struct NeighbourCache(pub Vec<(Entity, Entity)>);

world! {
    #[derive(Debug, Serialize, Deserialize)]
    pub struct WithCache<Position>;
    resources {
        clock: Clock,
        /// Rebuilt each tick: not saved.
        #[serde(skip)]
        neighbours: NeighbourCache,
    }
}

#[test]
fn a_resource_marked_serde_skip_is_not_saved_and_loads_as_its_default() {
    let mut world = WithCache::new();
    world.clock.frame = 9;
    let e = world.spawn_with((Position { x: 1.0, y: 1.0 },));
    world.neighbours.0.push((e, e));

    let json = serde_json::to_string(&world).unwrap();
    assert!(!json.contains("neighbours"), "{json}");
    let loaded: WithCache = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded.clock.frame, 9);
    assert_eq!(loaded.neighbours, NeighbourCache::default());
    assert!(loaded.position.contains(e));

    let bytes = postcard::to_allocvec(&world).unwrap();
    let loaded: WithCache = postcard::from_bytes(&bytes).unwrap();
    assert_eq!((loaded.clock.frame, loaded.neighbours.0.len()), (9, 0));

    // A save written while the resource was still saved loads too: the
    // value is not read, and the resource starts from its default.
    let mut value = serde_json::to_value(&world).unwrap();
    value
        .as_object_mut()
        .unwrap()
        .insert("neighbours".into(), serde_json::json!([[1, 2]]));
    let loaded: WithCache = serde_json::from_value(value).unwrap();
    assert_eq!(loaded.neighbours, NeighbourCache::default());
}

/// What a system saw of `Position` in its latest run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    pub added: Vec<Entity>,
    pub changed: Vec<Entity>,
}

world! {
    /// A saved game that tracks positions, with a group over them.
    #[derive(Debug, Serialize, Deserialize)]
    pub struct TrackedSave<Position, Name>;
    resources { observed: Observed }
    tracked (Position);
    group (Position, Name);
}

fn observe(
    pos: &typed_ecs::SparseMap<Position, typed_ecs::Tracked>,
    seen: &mut typed_ecs::Seen<Position>,
    observed: &mut Observed,
) {
    use typed_ecs::join;
    let mut added = Vec::new();
    join(seen.added(pos)).for_each(|e, _| added.push(e));
    let mut changed = Vec::new();
    join(seen.changed(pos)).for_each(|e, _| changed.push(e));
    added.sort();
    changed.sort();
    *observed = Observed { added, changed };
}

/// A load starts clean (documented in the guide, "Reacting to change"):
/// the loaded world's own view reports nothing, whatever the saved world
/// had not yet cleared, and a system's first run reports every entity as
/// added and changed. Changes after the load are reported as usual.
#[test]
fn a_loaded_world_starts_clean_and_a_systems_first_run_sees_everything() {
    use typed_ecs::{Added, Changed};
    let mut world = TrackedSave::new();
    let mut handles: Vec<Entity> = (0..6)
        .map(|i| {
            let pos = Position {
                x: i as f32,
                y: 0.0,
            };
            if i % 2 == 0 {
                world.spawn_with((pos, Name(format!("n{i}"))))
            } else {
                world.spawn_with((pos,))
            }
        })
        .collect();
    world.clear_changes();
    world.get_mut::<Position>(handles[1]).unwrap().x = 10.0;
    world.remove::<Position>(handles[4]).unwrap();
    world.despawn(handles[5]);
    assert_eq!(world.query::<Changed<&Position>>().count(), 1);
    assert_eq!(world.removed::<Position>().len(), 2);
    handles.truncate(4);

    let loads: [TrackedSave; 2] = [
        serde_json::from_str(&serde_json::to_string(&world).unwrap()).unwrap(),
        postcard::from_bytes(&postcard::to_allocvec(&world).unwrap()).unwrap(),
    ];
    for mut loaded in loads {
        loaded.assert_invariants();
        assert_eq!(loaded.query::<Changed<&Position>>().count(), 0);
        assert_eq!(loaded.query::<Added<&Position>>().count(), 0);
        assert!(loaded.removed::<Position>().is_empty());
        assert_eq!(loaded.get::<Position>(handles[1]).map(|p| p.x), Some(10.0));

        let mut schedule = Schedule::new();
        schedule.add_system(observe);
        schedule.run(&mut loaded);
        let mut everyone = handles.clone();
        everyone.sort();
        let all = Observed {
            added: everyone.clone(),
            changed: everyone,
        };
        assert_eq!(loaded.observed, all, "a system's first run sees everything");

        loaded.get_mut::<Position>(handles[2]).unwrap().y = 1.0;
        assert_eq!(
            loaded
                .query::<Changed<&Position>>()
                .map(|(e, _)| e)
                .collect::<Vec<_>>(),
            [handles[2]],
            "changes after a load are reported"
        );
        schedule.run(&mut loaded);
        let only = Observed {
            added: vec![],
            changed: vec![handles[2]],
        };
        assert_eq!(loaded.observed, only);
    }
}
