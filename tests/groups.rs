//! Owning groups: every way an entity can gain or lose a grouped component
//! keeps the group packed; queries over exactly a group walk it densely and
//! agree with a world that has no group; and whatever is done to storages
//! behind the world's back only makes the world stop trusting the group
//! until it rebuilds it.

use std::collections::BTreeMap;

use typed_ecs::join;
use typed_ecs::prelude::*;

#[path = "support/rng.rs"]
mod rng;

use rng::Rng;

#[derive(Debug, Clone, PartialEq)]
struct Pos(i64);
#[derive(Debug, Clone, PartialEq)]
struct Vel(i64);
#[derive(Debug, Clone, PartialEq)]
struct Mass(i64);
#[derive(Debug, Clone, PartialEq)]
struct Tag;

world! {
    #[derive(Debug, Clone)]
    struct Grouped<Pos, Vel, Mass, Tag>;
    group (Pos, Vel);
}

world! {
    #[derive(Debug, Clone)]
    struct Plain<Pos, Vel, Mass, Tag>;
}

world! {
    struct Triple<Pos, Vel, Mass, Tag>;
    group (Pos, Vel, Mass);
}

/// The entities that have both `Pos` and `Vel`, sorted.
fn with_both(world: &Grouped) -> Vec<Entity> {
    let mut both: Vec<Entity> = world
        .pos
        .entities()
        .iter()
        .copied()
        .filter(|&e| world.vel.contains(e))
        .collect();
    both.sort();
    both
}

/// The group is trusted, holds exactly the entities with both components,
/// and they come first, in the same order, in both storages.
#[track_caller]
fn assert_packed(world: &Grouped) {
    world.assert_invariants();
    let both = with_both(world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(both.len()));
    let mut front: Vec<Entity> = world.pos.entities()[..both.len()].to_vec();
    assert_eq!(front, world.vel.entities()[..both.len()]);
    front.sort();
    assert_eq!(front, both);
}

#[test]
fn every_immediate_change_keeps_the_group_packed() {
    let mut world = Grouped::new();
    assert_packed(&world);
    let a = world.spawn_with((Pos(1), Mass(1)));
    let b = world.spawn_with((Vel(2), Pos(2)));
    let c = world.spawn_with((Pos(3), Vel(3), Tag));
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(2));

    world.add(a, Vel(1)); // completes `a`
    assert_packed(&world);
    assert_eq!(world.insert(b, Pos(20)), Some(Pos(2))); // replaces, stays grouped
    assert_packed(&world);
    assert_eq!(world.remove::<Vel>(c), Some(Vel(3)));
    assert_packed(&world);
    assert_eq!(world.try_insert(c, Vel(30)).unwrap(), None);
    assert_packed(&world);
    assert!(world.remove_all(b));
    assert_packed(&world);
    assert!(world.despawn(a));
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(1));
    assert_eq!(world.remove::<Mass>(c), None); // not a group component
    assert_packed(&world);
    world.clear();
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(0));
}

#[test]
fn deferred_changes_and_commands_keep_the_group_packed() {
    let mut world = Grouped::new();
    let es: Vec<Entity> = (0..20).map(|i| world.spawn_with((Pos(i),))).collect();
    for &e in &es[..10] {
        world.add_deferred(e, Vel(1));
    }
    world.remove_deferred::<Pos>(es[3]);
    world.despawn_deferred(es[4]);
    world.finalize_updates();
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(8));

    let mut commands = Commands::new();
    for &e in &es[10..15] {
        commands.add(e, Vel(2));
    }
    commands.remove::<Vel>(es[0]);
    commands.despawn(es[1]);
    let spawned = commands.spawn_with((Pos(100), Vel(100)));
    commands.add(spawned, Tag);
    let report = world.apply(&mut commands);
    assert!(report.is_clean(), "{:?}", report.rejected());
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(8 - 2 + 5 + 1));
}

/// Runs the same random operations on a grouped and a plain world and
/// compares every query shape after each step.
#[test]
fn queries_agree_with_a_world_without_groups() {
    let mut grouped = Grouped::new();
    let mut plain = Plain::new();
    let mut live: Vec<(Entity, Entity)> = Vec::new();
    let mut rng = Rng::new(0x5eed);
    let mut next = |n: usize| rng.index(n);
    for step in 0..3000_i64 {
        match next(8) {
            0 | 1 => {
                let g = grouped.spawn_with((Pos(step), Vel(step * 2)));
                let p = plain.spawn_with((Pos(step), Vel(step * 2)));
                live.push((g, p));
            }
            2 => {
                let g = grouped.spawn_with((Pos(step), Mass(step)));
                let p = plain.spawn_with((Pos(step), Mass(step)));
                live.push((g, p));
            }
            3 if !live.is_empty() => {
                let (g, p) = live.swap_remove(next(live.len()));
                assert_eq!(grouped.despawn(g), plain.despawn(p));
            }
            4 if !live.is_empty() => {
                let (g, p) = live[next(live.len())];
                assert_eq!(grouped.remove::<Vel>(g), plain.remove::<Vel>(p));
            }
            5 if !live.is_empty() => {
                let (g, p) = live[next(live.len())];
                assert_eq!(grouped.insert(g, Vel(step)), plain.insert(p, Vel(step)));
            }
            6 if !live.is_empty() => {
                let (g, p) = live[next(live.len())];
                assert_eq!(grouped.remove::<Pos>(g), plain.remove::<Pos>(p));
            }
            _ if !live.is_empty() => {
                let (g, p) = live[next(live.len())];
                assert_eq!(grouped.insert(g, Pos(-step)), plain.insert(p, Pos(-step)));
            }
            _ => {}
        }
        if step % 50 == 0 {
            assert_packed(&grouped);
            compare_queries(&mut grouped, &mut plain, &live);
        }
    }
}

/// Every query over exactly the group, in every form, against the plain world.
fn compare_queries(grouped: &mut Grouped, plain: &mut Plain, live: &[(Entity, Entity)]) {
    let to_plain: BTreeMap<Entity, Entity> = live.iter().copied().collect();
    let sorted = |mut rows: Vec<(Entity, i64, i64)>| {
        rows.iter_mut().for_each(|row| row.0 = to_plain[&row.0]);
        rows.sort_by_key(|row| row.0);
        rows
    };
    let expected: Vec<(Entity, i64, i64)> = {
        let mut rows: Vec<_> = plain
            .query::<(&Pos, &Vel)>()
            .map(|(e, (p, v))| (e, p.0, v.0))
            .collect();
        rows.sort_by_key(|row| row.0);
        rows
    };
    let read: Vec<_> = grouped
        .query::<(&Vel, &Pos)>()
        .map(|(e, (v, p))| (e, p.0, v.0))
        .collect();
    assert_eq!(sorted(read), expected, "read-only query");
    let mut each = Vec::new();
    grouped
        .query_mut::<(&mut Pos, &Vel)>()
        .for_each(|e, (p, v)| each.push((e, p.0, v.0)));
    assert_eq!(sorted(each), expected, "for_each");
    let looped: Vec<_> = grouped
        .query_mut::<(&mut Pos, &Vel)>()
        .into_iter()
        .map(|(e, (p, v))| (e, p.0, v.0))
        .collect();
    assert_eq!(sorted(looped), expected, "for loop");
    let mut both_mut = Vec::new();
    join((&mut grouped.vel, &mut grouped.pos)).for_each(|e, (v, p)| both_mut.push((e, p.0, v.0)));
    assert_eq!(sorted(both_mut), expected, "join of two &mut");
    let mut looped_mut = Vec::new();
    for (e, (v, p)) in grouped.query_mut::<(&mut Vel, &mut Pos)>() {
        looped_mut.push((e, p.0, v.0));
    }
    assert_eq!(sorted(looped_mut), expected, "for loop over two &mut");
    let filtered: Vec<_> = grouped
        .query::<(&Pos, With<Vel>)>()
        .map(|(e, (p, ()))| (e, p.0, grouped.vel.get(e).unwrap().0))
        .collect();
    assert_eq!(sorted(filtered), expected, "filter");
    // Not exactly the group: looked up, same answers.
    let count = grouped.query::<(&Pos, &Vel, Option<&Mass>)>().count();
    assert_eq!(count, expected.len());
    let count = plain.query::<(&Pos, Without<Vel>)>().count();
    assert_eq!(grouped.query::<(&Pos, Without<Vel>)>().count(), count);
}

#[test]
fn dense_walks_write_in_place() {
    let mut world = Grouped::new();
    let es: Vec<Entity> = (0..100)
        .map(|i| world.spawn_with((Pos(i), Vel(1))))
        .collect();
    world.spawn_with((Pos(1000),)); // not grouped
    world
        .query_mut::<(&mut Pos, &Vel)>()
        .for_each(|_, (p, v)| p.0 += v.0);
    for (_, (v, p)) in world.query_mut::<(&mut Vel, &Pos)>() {
        v.0 = p.0 * 10;
    }
    for (i, &e) in es.iter().enumerate() {
        let i = i as i64;
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i + 1)));
        assert_eq!(world.get::<Vel>(e), Some(&Vel((i + 1) * 10)));
    }
    assert_packed(&world);
}

#[test]
fn removing_straight_from_a_storage_is_noticed() {
    let mut world = Grouped::new();
    let es: Vec<Entity> = (0..10)
        .map(|i| world.spawn_with((Pos(i), Vel(i))))
        .collect();
    // Not grouped: removing it behind the world's back is harmless.
    let loner = world.spawn_with((Pos(99),));
    assert_eq!(world.pos.remove(loner), Some(Pos(99)));
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(10));
    // Grouped: the world stops trusting the group…
    assert_eq!(world.pos.remove(es[2]), Some(Pos(2)));
    assert_eq!(world.group_len::<(Pos, Vel)>(), None);
    world.assert_invariants();
    // …queries still answer right, by looking entities up…
    assert_eq!(world.query::<(&Pos, &Vel)>().count(), 9);
    // …and the next change through the world rebuilds it.
    world.add(es[2], Pos(2));
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(10));

    // `query_mut` rebuilds too.
    world.vel.remove(es[5]);
    assert_eq!(world.group_len::<(Pos, Vel)>(), None);
    assert_eq!(world.query_mut::<(&mut Pos, &Vel)>().count(), 9);
    assert_packed(&world);
}

#[test]
fn a_clone_is_rebuilt_before_it_is_trusted() {
    let mut world = Grouped::new();
    for i in 0..10 {
        world.spawn_with((Pos(i), Vel(i)));
    }
    let mut copy = world.clone();
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(10));
    assert_eq!(copy.group_len::<(Pos, Vel)>(), None);
    assert_eq!(copy.query::<(&Pos, &Vel)>().count(), 10);
    copy.query_mut::<(&mut Pos, &Vel)>()
        .for_each(|_, (p, v)| p.0 += v.0);
    assert_eq!(copy.group_len::<(Pos, Vel)>(), Some(10));

    // A storage cloned and put back later is not trusted either.
    let saved = world.pos.clone();
    let e = world.spawn_with((Pos(50), Vel(50)));
    world.pos = saved;
    assert_eq!(world.group_len::<(Pos, Vel)>(), None);
    assert!(!world.pos.contains(e));
    world.remove::<Vel>(e);
    assert_packed(&world);
}

#[test]
fn storages_moved_between_worlds_are_noticed() {
    let mut one = Grouped::new();
    let mut two = Grouped::new();
    for i in 0..5 {
        one.spawn_with((Pos(i), Vel(i)));
        two.spawn_with((Pos(i),));
    }
    two.spawn_with((Vel(0),));
    std::mem::swap(&mut one.pos, &mut two.pos);
    assert_eq!(one.group_len::<(Pos, Vel)>(), None);
    assert_eq!(two.group_len::<(Pos, Vel)>(), None);
    // Not packed any more (`one.pos` is two's, over the same handles): a
    // `for` loop over both storages, borrowed as they are, is driven by
    // one and takes the other's values by handle.
    let mut pairs = Vec::new();
    for (e, (pos, vel)) in join((&mut one.pos, &mut one.vel)) {
        pos.0 += 100;
        vel.0 += 10;
        pairs.push((e, pos.0, vel.0));
    }
    assert_eq!(pairs.len(), 5);
    for (e, pos, vel) in pairs {
        assert_eq!(
            (one.pos.get(e), one.vel.get(e)),
            (Some(&Pos(pos)), Some(&Vel(vel)))
        );
        assert_eq!((pos - 100, vel - 10), (e.index() as i64, e.index() as i64));
    }

    // Taken out, changed without it, put back: still noticed.
    let mut world = Grouped::new();
    let a = world.spawn_with((Pos(1),));
    let taken = std::mem::take(&mut world.pos);
    world.add(a, Vel(1)); // rebuilds the group around the empty storage
    world.pos = taken;
    assert_eq!(world.group_len::<(Pos, Vel)>(), None);
    world.spawn_with((Tag,)); // no group component: nothing to rebuild
    assert_eq!(world.group_len::<(Pos, Vel)>(), None);
    world.add(a, Mass(1)); // still none
    world.remove::<Vel>(a); // a group component: rebuilt, then `a` leaves
    assert_packed(&world);
}

#[test]
fn stale_handles_find_nothing_in_a_group() {
    let mut world = Grouped::new();
    let old = world.spawn_with((Pos(1), Vel(1)));
    world.despawn(old);
    let new = world.spawn_with((Pos(2), Vel(2)));
    assert_eq!(new.index(), old.index());
    assert_eq!(world.get::<Pos>(old), None);
    assert_eq!(world.remove::<Vel>(old), None);
    assert!(world.try_add(old, Vel(3)).is_err());
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(1));
    let seen: Vec<Entity> = world.query::<(&Pos, &Vel)>().map(|(e, _)| e).collect();
    assert_eq!(seen, [new]);
}

#[test]
fn a_group_of_three_and_queries_that_are_not_exactly_it() {
    let mut world = Triple::new();
    for i in 0..30 {
        let e = world.spawn_with((Pos(i), Vel(i)));
        if i % 3 == 0 {
            world.add(e, Mass(i));
        }
        if i % 2 == 0 {
            world.add(e, Tag);
        }
    }
    world.assert_invariants();
    assert_eq!(world.group_len::<(Pos, Vel, Mass)>(), Some(10));
    // Exactly the group, in another order: dense.
    assert_eq!(world.query::<(&Mass, &Pos, &Vel)>().count(), 10);
    // A part of it: every entity with both, grouped or not.
    assert_eq!(world.query::<(&Pos, &Vel)>().count(), 30);
    // More than it.
    assert_eq!(world.query::<(&Pos, &Vel, &Mass, &Tag)>().count(), 5);
    let mut sum = 0;
    world
        .query_mut::<(&mut Mass, &Pos, &Vel)>()
        .for_each(|_, (m, p, v)| {
            m.0 += p.0 + v.0;
            sum += m.0;
        });
    assert_eq!(sum, (0..30).step_by(3).map(|i| 3 * i).sum::<i64>());
}

#[test]
fn every_component_is_dropped_once() {
    use std::cell::Cell;
    use std::rc::Rc;

    struct Counted(Rc<Cell<u32>>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }
    struct Other(#[allow(dead_code)] Counted);
    world! {
        struct Drops<Counted, Other>;
        group (Counted, Other);
    }

    let drops = Rc::new(Cell::new(0));
    let made = |n: &mut u32| {
        *n += 1;
        Counted(drops.clone())
    };
    let mut n = 0;
    let mut world = Drops::new();
    let mut es = Vec::new();
    for i in 0..50 {
        let e = world.spawn_with((made(&mut n), Other(made(&mut n))));
        if i % 4 == 0 {
            world.remove::<Counted>(e);
        }
        es.push(e);
    }
    for &e in es.iter().step_by(3) {
        world.despawn(e);
    }
    for &e in es.iter().skip(1).step_by(5) {
        let _ = world.try_insert(e, made(&mut n));
        let _ = world.try_add_deferred(e, Other(made(&mut n)));
        world.remove_deferred::<Other>(e);
    }
    world.finalize_updates();
    world.assert_invariants();
    world.counted.remove(es[1]); // behind the world's back
    world.spawn_with((made(&mut n), Other(made(&mut n))));
    world.assert_invariants();
    drop(world);
    assert_eq!(drops.get(), n);
}

#[test]
fn spawn_batch_extends_a_group_or_packs_it_entity_by_entity() {
    // Every entity grouped before: the batch is appended to the group.
    let mut world = Grouped::new();
    let first = world.spawn_batch((0..100).map(|i| (Pos(i), Vel(i))));
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(100));
    // An entity outside the group sits between: packed one by one.
    world.spawn_with((Pos(-1),));
    let second = world.spawn_batch((0..50).map(|i| (Vel(i), Pos(i), Tag)));
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(150));
    // Only part of the group: the entities join when they complete it.
    let halves = world.spawn_batch((0..10).map(|i| (Pos(i),)));
    for &e in &halves[..5] {
        world.add(e, Vel(0));
    }
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(155));
    // Reused indices (from despawns) work the same.
    for &e in &first[..20] {
        world.despawn(e);
    }
    let reused = world.spawn_batch((0..30).map(|i| (Pos(i), Vel(i))));
    assert!(reused.iter().any(|e| e.generation() > 1));
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(165));
    for (i, &e) in second.iter().enumerate() {
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i as i64)));
    }
}

#[test]
fn a_panicking_iterator_leaves_the_batch_spawned_so_far() {
    let mut world = Grouped::new();
    world.spawn_batch((0..10).map(|i| (Pos(i), Vel(i))));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.spawn_batch((0..10).map(|i| {
            assert!(i < 6, "the iterator gives up");
            (Pos(i), Vel(i), Mass(i))
        }));
    }));
    assert!(result.is_err());
    // The six bundles made before the panic were spawned, whole.
    assert_eq!(world.entity_count(), 16);
    assert_eq!(world.size::<Mass>(), 6);
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(16));
    let masses: Vec<i64> = world
        .query::<(&Mass, &Pos)>()
        .map(|(_, (m, p))| {
            assert_eq!(m.0, p.0);
            m.0
        })
        .collect();
    assert_eq!(masses.len(), 6);
}

#[test]
fn a_batch_out_of_indices_hands_back_the_rest() {
    let mut world = Grouped::new();
    world.set_entity_limit(5);
    world.spawn_with((Pos(0), Vel(0)));
    let error = world
        .try_spawn_batch((1..10).map(|i| (Pos(i), Vel(i))))
        .unwrap_err();
    assert!(error.to_string().contains("out of entity indices"));
    let (spawned, rest) = error.into_inner();
    assert_eq!(spawned.len(), 4);
    let rest: Vec<i64> = rest.map(|(p, _)| p.0).collect();
    assert_eq!(rest, [5, 6, 7, 8, 9]);
    assert_packed(&world);
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(5));
}

#[test]
fn an_or_beside_a_group_is_checked_per_entity() {
    use typed_ecs::Or;
    let mut world = Grouped::new();
    let a = world.spawn_with((Pos(1), Vel(1), Tag));
    let b = world.spawn_with((Pos(2), Vel(2), Mass(2)));
    let c = world.spawn_with((Pos(3), Vel(3)));
    world.spawn_with((Pos(4), Tag));
    assert_eq!(world.group_len::<(Pos, Vel)>(), Some(3));
    let mut seen = Vec::new();
    world
        .query_mut::<(&mut Pos, &Vel, Or<(With<Tag>, With<Mass>)>)>()
        .for_each(|e, (p, v, ())| {
            p.0 += v.0;
            seen.push(e);
        });
    seen.sort();
    assert_eq!(seen, [a, b]);
    assert_eq!(world.get::<Pos>(c), Some(&Pos(3)));
    let mut read: Vec<Entity> = world
        .query::<(&Pos, &Vel, Or<(Without<Tag>, With<Mass>)>)>()
        .map(|(e, _)| e)
        .collect();
    read.sort();
    assert_eq!(read, [b, c]);
    world.assert_invariants();
}

#[test]
fn a_for_loop_over_a_group_its_clone_and_for_each_visit_the_same_rows() {
    let mut world = Grouped::new();
    let mut plain = Plain::new();
    for i in 0..100 {
        world.spawn_with((Pos(i), Vel(2 * i)));
        plain.spawn_with((Pos(i), Vel(2 * i)));
        if i % 3 == 0 {
            // Outside the group: a `Pos` alone.
            world.spawn_with((Pos(-i),));
            plain.spawn_with((Pos(-i),));
        }
    }
    let rows = |iter: &mut dyn Iterator<Item = (Entity, (&Pos, &Vel))>| {
        let mut rows: Vec<(Entity, i64, i64)> = iter.map(|(e, (p, v))| (e, p.0, v.0)).collect();
        rows.sort_by_key(|row| row.0.to_bits());
        rows
    };
    let mut iter = world.query::<(&Pos, &Vel)>();
    // Partly walked, then cloned: both go on from the same row.
    let first = iter.next().map(|(e, (p, v))| (e, p.0, v.0));
    let mut copy = iter.clone();
    let mut walked = rows(&mut iter);
    let mut copied = rows(&mut copy);
    walked.extend(first);
    copied.extend(first);
    walked.sort_by_key(|row| row.0.to_bits());
    copied.sort_by_key(|row| row.0.to_bits());
    let mut each = Vec::new();
    join((&world.pos, &world.vel)).for_each(|e, (p, v)| each.push((e, p.0, v.0)));
    each.sort_by_key(|row| row.0.to_bits());
    let expected = rows(&mut plain.query::<(&Pos, &Vel)>());
    assert_eq!(walked.len(), 100);
    assert_eq!(walked, expected);
    assert_eq!(copied, expected);
    assert_eq!(each, expected);
    // Written through a `for` loop over the group: every row once.
    for (_, (p, v)) in world.query_mut::<(&mut Pos, &Vel)>() {
        p.0 += v.0;
    }
    assert!(world
        .query::<(&Pos, &Vel)>()
        .all(|(_, (p, v))| p.0 * 2 == v.0 * 3));
}
