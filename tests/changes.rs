//! Change detection, case by case: the walks a `Changed` / `Added` column
//! drives, where the change log's entries and the storage's slots can
//! disagree (tombstones, a compaction in the middle of a walk).

use typed_ecs::prelude::*;
use typed_ecs::{join, Added, Changed};

#[derive(Debug, PartialEq)]
struct Hp(i32);

#[derive(Debug, PartialEq)]
struct Tag;

world! {
    struct Game<Hp, Tag>;
    tracked (Hp);
}

fn changed(world: &Game) -> Vec<Entity> {
    let mut seen: Vec<Entity> = world.query::<Changed<&Hp>>().map(|(e, _)| e).collect();
    seen.sort();
    seen
}

/// A change then a despawn leaves a tombstone among the candidates: it
/// is no one's change.
#[test]
fn a_despawned_entity_is_not_reported_changed() {
    let mut world = Game::new();
    let a = world.spawn_with((Hp(1),));
    let b = world.spawn_with((Hp(2),));
    world.clear_changes();
    world.hp.get_mut(a).unwrap().0 = 10;
    world.hp.get_mut(b).unwrap().0 = 20;
    world.despawn(a);
    assert_eq!(changed(&world), [b]);
    assert_eq!(world.removed::<Hp>(), [a]);
    // The same through a join, and driving a `for_each`.
    let mut seen = Vec::new();
    join(Changed(&world.hp)).for_each(|e, hp| seen.push((e, hp.0)));
    assert_eq!(seen, [(b, 20)]);
}

/// A swap-remove moves the last value into the removed one's slot: the
/// moved value's change is still found, at its new slot.
#[test]
fn a_change_follows_its_value_when_another_is_removed() {
    let mut world = Game::new();
    let all: Vec<Entity> = (0..8).map(|i| world.spawn_with((Hp(i),))).collect();
    world.clear_changes();
    world.hp.get_mut(all[7]).unwrap().0 = 70;
    world.hp.get_mut(all[2]).unwrap().0 = 20;
    world.remove::<Hp>(all[0]).unwrap();
    world.remove::<Hp>(all[1]).unwrap();
    let seen: Vec<(Entity, i32)> = world
        .query::<Changed<&Hp>>()
        .map(|(e, hp)| (e, hp.0))
        .collect();
    assert_eq!(seen, [(all[7], 70), (all[2], 20)]);
}

/// `Changed<&mut C>` writes each value it visits, which appends to the
/// log it walks and, past enough tombstones, compacts it: entries move
/// under the walk. Every changed value is still visited exactly once, and
/// every write is seen at the next look. (The log compacts at its 233rd
/// entry with 100 values stored: rounds 1 and 3 compact in mid-walk.)
#[test]
fn a_writing_walk_survives_the_log_compacting_under_it() {
    let mut world = Game::new();
    let all: Vec<Entity> = (0..100).map(|i| world.spawn_with((Hp(i),))).collect();
    for round in 0..4 {
        world.clear_changes();
        for &e in &all {
            world.hp.get_mut(e).unwrap().0 += 1;
        }
        world.clear_changes();
        // Half of them change; the walk then rewrites each.
        for &e in all.iter().step_by(2) {
            world.hp.get_mut(e).unwrap();
        }
        let mut visits = Vec::new();
        world.query_mut::<Changed<&mut Hp>>().for_each(|e, hp| {
            hp.0 += 1000;
            visits.push(e);
        });
        visits.sort();
        let expected: Vec<Entity> = all.iter().copied().step_by(2).collect();
        assert_eq!(visits, expected, "round {round}");
        assert_eq!(changed(&world), expected, "round {round}");
    }
    for (i, &e) in all.iter().enumerate() {
        let writes = if i % 2 == 0 { 4 * 1000 } else { 0 };
        assert_eq!(world.get::<Hp>(e), Some(&Hp(i as i32 + 4 + writes)));
    }
}

/// A walk over storages that line up (the same entities in the same slots)
/// takes their values a run of slots at a time: each value it hands out is
/// marked changed, and no other.
#[test]
fn a_walk_over_lined_up_storages_marks_what_it_hands_out() {
    let mut world = Game::new();
    let all: Vec<Entity> = (0..100).map(|i| world.spawn_with((Hp(i), Tag))).collect();
    // Values past the tagged ones, and tags off a few in the middle: the
    // walk, driven by the tags, lines up with `Hp` in runs between them.
    for i in 100..120 {
        world.spawn_with((Hp(i),));
    }
    for &e in all.iter().skip(30).step_by(25) {
        world.remove::<Tag>(e);
    }
    world.clear_changes();
    let mut visits = Vec::new();
    world
        .query_mut::<(&mut Hp, With<Tag>)>()
        .for_each(|e, (hp, ())| {
            hp.0 += 1000;
            visits.push(e);
        });
    visits.sort();
    let mut tagged: Vec<Entity> = world.tag.entities().to_vec();
    tagged.sort();
    assert_eq!(visits, tagged);
    assert_eq!(changed(&world), tagged);
}

/// `Added` when another column drives: each entity is looked up by handle.
#[test]
fn added_with_another_driver() {
    let mut world = Game::new();
    let old = world.spawn_with((Hp(0), Tag));
    world.clear_changes();
    let new = world.spawn_with((Hp(1), Tag));
    world.hp.get_mut(old).unwrap().0 = 5;
    for _ in 0..50 {
        world.spawn_with((Hp(9),));
    }
    let added: Vec<Entity> = world
        .query::<(&Tag, Added<&Hp>)>()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(added, [new]);
    let changed: Vec<Entity> = world
        .query::<(&Tag, Changed<&Hp>)>()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(changed, [old, new]);
}

/// Two change columns over one storage and one window list the same
/// candidates: whichever drives, each applies its own filter at the
/// driver's place, and a column that does not drive looks each entity up.
#[test]
fn change_columns_sharing_candidates_each_apply_their_own_filter() {
    let mut world = Game::new();
    let old = world.spawn_with((Hp(0), Tag));
    let quiet = world.spawn_with((Hp(1), Tag));
    world.clear_changes();
    world.hp.get_mut(old).unwrap().0 = 5;
    let new = world.spawn_with((Hp(2),));
    let gone = world.spawn_with((Hp(3), Tag));
    world.despawn(gone);

    let mut both = Vec::new();
    join((Changed(&world.hp), Added(&world.hp))).for_each(|e, (c, a)| both.push((e, c.0, a.0)));
    assert_eq!(both, [(new, 2, 2)]);
    let mut both = Vec::new();
    join((Added(&world.hp), Changed(&world.hp))).for_each(|e, (a, c)| both.push((e, a.0, c.0)));
    assert_eq!(both, [(new, 2, 2)]);

    // The same columns through an iterator (`next`) and a fold.
    let changed: Vec<(Entity, i32)> = join(Changed(&world.hp))
        .into_iter()
        .map(|(e, hp)| (e, hp.0))
        .collect();
    assert_eq!(changed, [(old, 5), (new, 2)]);
    let mut folded = Vec::new();
    world
        .query::<Changed<&Hp>>()
        .for_each(|(e, hp)| folded.push((e, hp.0)));
    assert_eq!(folded, changed);

    // `Tag` (two entities) is shorter than the candidates (three, one a
    // tombstone): it drives,
    // and the change column checks each entity by handle.
    let tagged: Vec<Entity> = world
        .query::<(Changed<&Hp>, &Tag)>()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(tagged, [old]);
    assert!(!world.query::<Changed<&Hp>>().any(|(e, _)| e == quiet));
}

/// A `for` loop over `Changed<&mut C>` takes each value that passes by
/// handle, whichever column drives, marks it again, and visits it once.
#[test]
fn a_for_loop_over_changed_mut_visits_each_change_once() {
    let mut world = Game::new();
    let all: Vec<Entity> = (0..40).map(|i| world.spawn_with((Hp(i),))).collect();
    for &e in all.iter().step_by(10) {
        world.add(e, Tag);
    }
    world.clear_changes();
    let picked: Vec<Entity> = all.iter().copied().step_by(3).collect();
    for &e in &picked {
        world.hp.get_mut(e).unwrap();
    }
    // The candidates drive.
    let mut visits = Vec::new();
    for (e, hp) in world.query_mut::<Changed<&mut Hp>>() {
        hp.0 += 1000;
        visits.push(e);
    }
    assert_eq!(visits, picked);
    assert_eq!(changed(&world), picked);
    // `Tag` (4 entities) drives; only 0 and 30 are both tagged and picked.
    let mut tagged = Vec::new();
    for (e, ((), hp)) in world.query_mut::<(With<Tag>, Changed<&mut Hp>)>() {
        hp.0 += 1000;
        tagged.push(e);
    }
    assert_eq!(tagged, [all[0], all[30]]);
    for (i, &e) in all.iter().enumerate() {
        let writes = [i % 3 == 0, i % 30 == 0].iter().filter(|&&w| w).count();
        assert_eq!(
            world.get::<Hp>(e),
            Some(&Hp(i as i32 + 1000 * writes as i32))
        );
    }
}
