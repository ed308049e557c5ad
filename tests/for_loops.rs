//! `for` loops over queries and joins (`QueryIter`). Where every column
//! holds the driver's entities in the same slots (storages filled by the
//! same spawns), a loop walks packed rows, with no lookup and its size hint
//! exact; elsewhere it looks each entity up. Either way it hands out what
//! `for_each` hands out, in the same order, marks exactly the tracked
//! values it handed out, and never hands out an entity its world does not
//! have.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use typed_ecs::prelude::*;
use typed_ecs::{join, Changed, Lazy, Maybe};

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Pos(i64);
#[derive(Debug, Clone, Copy, PartialEq)]
struct Vel(i64);
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tag;
#[derive(Debug, Clone, Copy, PartialEq)]
struct Extra(i64);

world! {
    struct Game<Pos, Vel, Tag, Extra>;
}

world! {
    struct Watched<Pos, Vel, Tag, Extra>;
    tracked (Pos);
}

/// `n` entities spawned with `(Pos(i), Vel(10 * i), Tag)`.
fn spawned(n: i64) -> (Game, Vec<Entity>) {
    let mut world = Game::new();
    let made = (0..n)
        .map(|i| world.spawn_with((Pos(i), Vel(10 * i), Tag)))
        .collect();
    (world, made)
}

/// Each entity of `world.pos`, in its order, with its position and
/// velocity, if it has both: what every two-column walk must hand out.
fn expected(world: &Game, driver: &[Entity]) -> Vec<(Entity, i64, i64)> {
    driver
        .iter()
        .filter_map(|&e| Some((e, world.pos.get(e)?.0, world.vel.get(e)?.0)))
        .collect()
}

#[test]
fn storages_spawned_together_walk_packed_rows() {
    let (mut world, made) = spawned(100);
    let want = expected(&world, &made);

    let iter = world.query::<(&Pos, &Vel)>();
    assert_eq!(iter.size_hint(), (100, Some(100)), "packed: length known");
    let got: Vec<_> = iter.map(|(e, (p, v))| (e, p.0, v.0)).collect();
    assert_eq!(got, want);

    let iter = join((&world.pos, Maybe(&world.vel), With(&world.tag)));
    assert_eq!(iter.into_iter().size_hint(), (100, Some(100)));
    let got: Vec<_> = join((&world.pos, Maybe(&world.vel), With(&world.tag)))
        .into_iter()
        .map(|(e, (p, v, ()))| (e, p.0, v.unwrap().0))
        .collect();
    assert_eq!(got, want);

    // Written: every row once, each `&mut` its own entity's.
    let iter = world.query_mut::<(&mut Pos, &Vel)>().into_iter();
    assert_eq!(iter.size_hint(), (100, Some(100)));
    for (_, (p, v)) in iter {
        p.0 += v.0;
    }
    for (k, &e) in made.iter().enumerate() {
        assert_eq!(world.pos.get(e), Some(&Pos(11 * k as i64)), "{e:?}");
    }
    for (_, (p, v)) in join((&mut world.pos, &mut world.vel)) {
        std::mem::swap(&mut p.0, &mut v.0);
    }
    for (k, &e) in made.iter().enumerate() {
        let k = k as i64;
        assert_eq!(world.pos.get(e), Some(&Pos(10 * k)), "{e:?}");
        assert_eq!(world.vel.get(e), Some(&Vel(11 * k)), "{e:?}");
    }
    // Despawns remove an entity's slot from every storage alike: still
    // lined up, still packed.
    world.despawn(made[10]);
    world.despawn(made[0]);
    assert_eq!(world.query::<(&Pos, &Vel)>().size_hint(), (98, Some(98)));
    let got: Vec<_> = world
        .query::<(&Pos, &Vel)>()
        .map(|(e, (p, v))| (e, p.0, v.0))
        .collect();
    assert_eq!(got, expected(&world, world.pos.entities()));
}

#[test]
fn columns_that_answer_per_entity_look_up_and_agree() {
    let (mut world, made) = spawned(50);
    for &e in made.iter().step_by(3) {
        world.add(e, Extra(1));
    }
    // `Has` answers from each entity's sparse entry; a `Lazy` column's
    // marks follow its runs: neither hands out packed rows.
    let mut got = Vec::new();
    for (e, (p, has)) in join((&world.pos, Has(&world.extra))) {
        got.push((e, p.0, has));
    }
    let want: Vec<_> = made
        .iter()
        .enumerate()
        .map(|(k, &e)| (e, k as i64, k % 3 == 0))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        join((&world.pos, Has(&world.extra)))
            .into_iter()
            .size_hint()
            .0,
        0
    );

    let mut watched = Watched::new();
    let made: Vec<Entity> = (0..50)
        .map(|i| watched.spawn_with((Pos(i), Vel(1))))
        .collect();
    watched.clear_changes();
    for (_, (mut p, v)) in join((Lazy(&mut watched.pos), &watched.vel)) {
        if p.0 % 5 == 0 {
            p.0 += v.0;
        }
    }
    let changed: Vec<Entity> = watched.query::<Changed<&Pos>>().map(|(e, _)| e).collect();
    // A loop's items may outlive it: each `Mut` it hands out is marked.
    assert_eq!(
        changed, made,
        "a `Lazy` column in a loop marks what it handed out"
    );
    let positions: Vec<i64> = watched.pos.values().iter().map(|p| p.0).collect();
    let want: Vec<i64> = (0..50)
        .map(|i| if i % 5 == 0 { i + 1 } else { i })
        .collect();
    assert_eq!(positions, want);
}

#[test]
fn a_broken_line_up_falls_back_to_lookups() {
    let (mut world, made) = spawned(60);
    // `made[7]` loses its velocity: the last velocity moves into its slot,
    // so `Vel` no longer holds `Pos`'s entities in `Pos`'s slots, from the
    // first 16 on (line-ups are counted 16 slots at a time).
    world.remove::<Vel>(made[7]);
    let iter = world.query::<(&Pos, &Vel)>();
    assert_eq!(
        iter.size_hint(),
        (0, Some(59)),
        "driven by `Vel`, looked up"
    );
    let got: Vec<_> = iter.map(|(e, (p, v))| (e, p.0, v.0)).collect();
    assert_eq!(got, expected(&world, world.vel.entities()));
    for (_, (p, v)) in world.query_mut::<(&mut Pos, &Vel)>() {
        p.0 += v.0;
    }
    for (k, &e) in made.iter().enumerate() {
        let k = k as i64;
        let moved = if k == 7 { k } else { 11 * k };
        assert_eq!(world.pos.get(e), Some(&Pos(moved)), "{e:?}");
    }
}

/// Storages that line up with the driver in their first slots only: a
/// loop that writes no storage but its driver walks those slots as rows,
/// then looks the rest up; one that writes another storage, or a tracked
/// one, looks every entity up. Each hands out every match once, in the
/// driver's order.
#[test]
fn a_line_up_in_part_walks_its_first_slots_as_rows() {
    let (mut world, made) = spawned(60);
    // Slots 0 to 39 of `Vel` still hold `Pos`'s entities; slot 40 holds
    // the last one's, moved there: two whole runs of 16 line up.
    world.remove::<Vel>(made[40]);
    let iter = world.query::<(&Pos, &Vel)>();
    assert_eq!(iter.size_hint(), (32, Some(59)), "32 rows, then lookups");
    let got: Vec<_> = iter.map(|(e, (p, v))| (e, p.0, v.0)).collect();
    assert_eq!(got, expected(&world, world.vel.entities()));
    let counted = world.query::<(&Pos, &Vel)>().count();
    assert_eq!(counted, 59, "`count` folds the rows, then the lookups");

    // The written `Vel` drives (it is the shorter): rows, then lookups.
    let iter = world.query_mut::<(&mut Vel, &Pos)>().into_iter();
    assert_eq!(iter.size_hint(), (32, Some(59)));
    let mut order = Vec::new();
    for (e, (v, p)) in iter {
        v.0 += p.0;
        order.push(e);
    }
    assert_eq!(order, world.vel.entities());
    // The written `Pos` does not drive: every entity looked up.
    let iter = world.query_mut::<(&mut Pos, &Vel)>().into_iter();
    assert_eq!(iter.size_hint(), (0, Some(59)));
    for (_, (p, v)) in iter {
        p.0 -= v.0;
    }
    for (k, &e) in made.iter().enumerate() {
        let k = k as i64;
        if k == 40 {
            assert_eq!(world.vel.get(e), None);
            assert_eq!(world.pos.get(e), Some(&Pos(k)), "{e:?}");
        } else {
            assert_eq!(world.vel.get(e), Some(&Vel(11 * k)), "{e:?}");
            assert_eq!(world.pos.get(e), Some(&Pos(-10 * k)), "{e:?}");
        }
    }

    // A tracked written driver: looked up, each value marked as handed out.
    let mut watched = Watched::new();
    let made: Vec<Entity> = (0..60)
        .map(|i| watched.spawn_with((Pos(i), Vel(1))))
        .collect();
    watched.remove::<Pos>(made[40]);
    watched.clear_changes();
    let mut iter = watched.query_mut::<(&mut Pos, &Vel)>().into_iter();
    assert_eq!(iter.size_hint(), (0, Some(59)));
    let handed: Vec<Entity> = iter.by_ref().take(45).map(|(e, _)| e).collect();
    drop(iter);
    let mut changed: Vec<Entity> = watched.query::<Changed<&Pos>>().map(|(e, _)| e).collect();
    changed.sort();
    let mut handed = handed;
    handed.sort();
    assert_eq!(changed, handed);
}

#[test]
fn a_loop_marks_exactly_the_tracked_values_it_handed_out() {
    let mut world = Watched::new();
    let made: Vec<Entity> = (0..40)
        .map(|i| world.spawn_with((Pos(i), Vel(1))))
        .collect();
    let changed = |world: &Watched| -> Vec<Entity> {
        world.query::<Changed<&Pos>>().map(|(e, _)| e).collect()
    };

    // Stopped after 12 rows.
    world.clear_changes();
    let mut iter = world.query_mut::<(&mut Pos, &Vel)>().into_iter();
    assert_eq!(iter.size_hint(), (40, Some(40)), "packed");
    for (_, (p, v)) in iter.by_ref().take(12) {
        p.0 += v.0;
    }
    drop(iter);
    assert_eq!(changed(&world), made[..12]);

    // A panic in the loop's body: the rows handed out are marked.
    world.clear_changes();
    let unwound = catch_unwind(AssertUnwindSafe(|| {
        for (e, (p, _)) in world.query_mut::<(&mut Pos, &Vel)>() {
            p.0 = -1;
            if e == made[5] {
                panic!("the loop's body panicked");
            }
        }
    }));
    assert!(unwound.is_err());
    assert_eq!(changed(&world), made[..6]);

    // To the end, through `fold` (`count`): every row.
    world.clear_changes();
    assert_eq!(
        world.query_mut::<(&mut Pos, &Vel)>().into_iter().count(),
        40
    );
    assert_eq!(changed(&world), made);
}

#[test]
fn a_world_skips_the_entities_it_does_not_have_in_storages_from_another() {
    // Two worlds with the same handles; `one` despawns its last entity,
    // then takes both storages from `two`, which still has it: the
    // storages line up with each other, but one of their entities is not
    // alive in `one`.
    let (mut one, made) = spawned(20);
    let (mut two, _) = spawned(20);
    one.despawn(made[19]);
    std::mem::swap(&mut one.pos, &mut two.pos);
    std::mem::swap(&mut one.vel, &mut two.vel);
    let got: Vec<Entity> = one.query::<(&Pos, &Vel)>().map(|(e, _)| e).collect();
    assert_eq!(got, made[..19]);
    let mut count = 0;
    for (e, _) in one.query::<(&Pos, &Vel)>() {
        assert!(one.is_alive(e), "{e:?}");
        count += 1;
    }
    assert_eq!(count, 19);
}

/// A random life of a world against a `HashMap` model: spawns with some
/// components, despawns, components added and removed; each round, `for`
/// loops of several shapes write and read, and every value must be the
/// model's. Some rounds' storages line up (the loops walk packed rows),
/// some do not (they look up), some in part (rows, then lookups): each is
/// counted, so that none goes untested.
#[test]
fn random_lives_of_for_loops_against_a_model() {
    let (mut packed, mut looked_up, mut in_part) = (0, 0, 0);
    for seed in 0..8 {
        let mut rng = Rng::new(seed);
        // Seeds 0 to 3 spawn, despawn and add `Extra` only: `Pos`, `Vel`
        // and `Tag` stay lined up. Seeds 4 to 7 also break the line-ups (a
        // lone `Pos`, a velocity removed or added), from round 40 on, when
        // the storages hold about 80 entities lined up; the first break,
        // and the despawns after it, break them further and further to
        // the front: their loops walk rows, then look up, and in the end
        // look every entity up.
        let mut world = Game::new();
        let mut model: HashMap<Entity, (i64, Option<i64>, bool, Option<i64>)> = HashMap::new();
        let mut made: Vec<Entity> = Vec::new();
        for round in 0..150 {
            let breaks = seed >= 4 && round >= 40;
            for _ in 0..rng.below(6) {
                let i = rng.below(1000) as i64;
                let e = if !breaks || rng.chance(90) {
                    world.spawn_with((Pos(i), Vel(i % 7), Tag))
                } else {
                    world.spawn_with((Pos(i),))
                };
                let full = world.has::<Vel>(e);
                model.insert(e, (i, full.then_some(i % 7), full, None));
                made.push(e);
            }
            if !made.is_empty() {
                for _ in 0..rng.below(3) {
                    let e = made[rng.index(made.len())];
                    match rng.below(4) {
                        0 => {
                            world.despawn(e);
                            model.remove(&e);
                        }
                        1 if breaks && model.contains_key(&e) => {
                            world.remove::<Vel>(e);
                            model.get_mut(&e).unwrap().1 = None;
                        }
                        2 if breaks && model.contains_key(&e) => {
                            world.insert(e, Vel(3));
                            model.get_mut(&e).unwrap().1 = Some(3);
                        }
                        3 if model.contains_key(&e) => {
                            world.insert(e, Extra(round));
                            model.get_mut(&e).unwrap().3 = Some(round);
                        }
                        _ => {}
                    }
                }
            }
            // Written: position += velocity.
            let iter = world.query_mut::<(&mut Pos, &Vel)>().into_iter();
            let (least, most) = iter.size_hint();
            let mut handed = 0;
            for (e, (p, v)) in iter {
                p.0 += v.0;
                handed += 1;
                let (pos, vel, _, _) = model.get_mut(&e).expect("a live entity");
                *pos += vel.expect("an entity with a velocity");
            }
            if least == handed && handed > 0 {
                packed += 1;
            } else if least < handed {
                looked_up += 1;
            }
            assert!(handed <= most.unwrap(), "seed {seed} round {round}");
            // Written through `Vel`, the shorter storage, which drives:
            // rows as far as `Pos` lines up with it, then lookups.
            let iter = world.query_mut::<(&mut Vel, &Pos)>().into_iter();
            let (least, _) = iter.size_hint();
            let mut handed = 0;
            for (e, (v, p)) in iter {
                v.0 = (v.0 + p.0).rem_euclid(7);
                handed += 1;
                let (pos, vel, _, _) = model.get_mut(&e).expect("a live entity");
                let vel = vel.as_mut().expect("an entity with a velocity");
                *vel = (*vel + *pos).rem_euclid(7);
            }
            if 0 < least && least < handed {
                in_part += 1;
            }
            // Written through a join with an optional and a filter column.
            for (e, (p, extra, ())) in join((&mut world.pos, Maybe(&world.extra), With(&world.tag)))
            {
                let (pos, _, tagged, model_extra) = model.get_mut(&e).expect("a live entity");
                assert!(*tagged, "seed {seed} round {round}: {e:?} has no tag");
                assert_eq!(extra.map(|x| x.0), *model_extra);
                p.0 -= 1;
                *pos -= 1;
            }
            // Read: every value the model's.
            let mut seen = 0;
            for (e, (p, v)) in world.query::<(&Pos, Option<&Vel>)>() {
                let (pos, vel, _, _) = model[&e];
                assert_eq!(
                    (p.0, v.map(|v| v.0)),
                    (pos, vel),
                    "seed {seed} round {round}"
                );
                seen += 1;
            }
            assert_eq!(seen, model.len(), "seed {seed} round {round}");
        }
        world.assert_invariants();
    }
    assert!(
        packed > 100 && looked_up > 100 && in_part > 100,
        "packed {packed}, looked up {looked_up}, lined up in part {in_part}"
    );
}
