//! `par_for_each` (feature `rayon`) gives exactly what `for_each` gives.
//! Run with `cargo test --features rayon --test parallel`.
#![cfg(feature = "rayon")]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use typed_ecs::prelude::*;
use typed_ecs::{join, Maybe};

#[derive(Debug, Clone, Copy, PartialEq)]
struct A(u64);

#[derive(Debug, Clone, Copy, PartialEq)]
struct B(u64);

#[derive(Debug, Clone, Copy, PartialEq)]
struct C;

world! {
    #[derive(Clone)]
    struct Par<A, B, C>;
}

/// ~10,000 live entities, with despawns and index reuse behind them: every
/// entity has an `A`, two thirds a `B`, one in five a `C`.
fn populated() -> Par {
    let mut world = Par::new();
    let mut handles = Vec::new();
    for i in 0..11_000u64 {
        let e = world.spawn_with((A(i),));
        if i % 3 != 0 {
            world.add(e, B(i * 7 + 1));
        }
        if i % 5 == 0 {
            world.add(e, C);
        }
        handles.push(e);
    }
    for e in handles.iter().step_by(4) {
        world.despawn(*e);
    }
    for i in 0..2_000u64 {
        let e = world.spawn_with((A(100_000 + i), B(i)));
        if i % 2 == 0 {
            world.add(e, C);
        }
    }
    assert!(world.entity_count() > 10_000);
    world
}

/// Every component of every entity, for comparing worlds.
fn contents(world: &Par) -> BTreeMap<Entity, (Option<u64>, Option<u64>, bool)> {
    world
        .entities()
        .map(|e| {
            (
                e,
                (
                    world.get::<A>(e).map(|a| a.0),
                    world.get::<B>(e).map(|b| b.0),
                    world.has::<C>(e),
                ),
            )
        })
        .collect()
}

/// Not idempotent, so a double visit shows.
fn mix(a: u64, e: Entity, b: u64) -> u64 {
    a.wrapping_mul(31).wrapping_add(u64::from(e.index())) ^ b
}

#[test]
fn par_for_each_single_mut_matches_for_each() {
    let mut sequential = populated();
    let mut parallel = sequential.clone();
    let before = contents(&sequential);

    let mut visits = 0;
    sequential.query_mut::<&mut A>().for_each(|e, a| {
        a.0 = mix(a.0, e, 0);
        visits += 1;
    });
    let par_visits = AtomicUsize::new(0);
    parallel.query_mut::<&mut A>().par_for_each(|e, a| {
        a.0 = mix(a.0, e, 0);
        par_visits.fetch_add(1, Ordering::Relaxed);
    });

    assert_eq!(visits, sequential.entity_count());
    assert_eq!(par_visits.into_inner(), visits);
    let after = contents(&parallel);
    assert_eq!(after, contents(&sequential));
    assert_ne!(after, before, "the pass changed something");
    parallel.assert_invariants();
}

#[test]
fn par_for_each_with_filters_matches_for_each() {
    let mut sequential = populated();
    let mut parallel = sequential.clone();
    let before = contents(&sequential);

    let mut visited = Vec::new();
    sequential
        .query_mut::<(&mut A, &B, Without<C>)>()
        .for_each(|e, (a, b, ())| {
            a.0 = mix(a.0, e, b.0);
            visited.push(e);
        });
    let par_visits = AtomicUsize::new(0);
    parallel
        .query_mut::<(&mut A, &B, Without<C>)>()
        .par_for_each(|e, (a, b, ())| {
            a.0 = mix(a.0, e, b.0);
            par_visits.fetch_add(1, Ordering::Relaxed);
        });

    let expected = before
        .values()
        .filter(|(a, b, c)| a.is_some() && b.is_some() && !c)
        .count();
    assert!(expected > 5_000);
    assert_eq!(visited.len(), expected);
    assert_eq!(par_visits.into_inner(), expected);
    let after = contents(&parallel);
    assert_eq!(after, contents(&sequential));
    // Exactly the matching entities changed.
    for (e, row) in &before {
        let changed = after[e] != *row;
        assert_eq!(changed, row.1.is_some() && !row.2, "{e:?}");
    }

    // Options and With, and a join over borrowed fields.
    sequential
        .query_mut::<(&mut A, Option<&B>, With<C>)>()
        .for_each(|e, (a, b, ())| a.0 = mix(a.0, e, b.map_or(5, |b| b.0)));
    parallel
        .query_mut::<(&mut A, Option<&B>, With<C>)>()
        .par_for_each(|e, (a, b, ())| a.0 = mix(a.0, e, b.map_or(5, |b| b.0)));
    assert_eq!(contents(&parallel), contents(&sequential));

    join((&mut sequential.b, Maybe(&sequential.a)))
        .for_each(|e, (b, a)| b.0 = mix(b.0, e, a.map_or(0, |a| a.0)));
    join((&mut parallel.b, Maybe(&parallel.a)))
        .par_for_each(|e, (b, a)| b.0 = mix(b.0, e, a.map_or(0, |a| a.0)));
    assert_eq!(contents(&parallel), contents(&sequential));
    parallel.assert_invariants();
}

world! {
    #[derive(Clone)]
    struct Packed<A, B, C>;
    group (A, B);
}

/// `Par`'s population, in a world where `A` and `B` are a group.
fn packed() -> Packed {
    let source = populated();
    let mut world = Packed::new();
    let mut handles = std::collections::HashMap::new();
    for e in source.entities() {
        let new = world.spawn();
        handles.insert(e, new);
        if let Some(&a) = source.get::<A>(e) {
            world.add(new, a);
        }
        if let Some(&b) = source.get::<B>(e) {
            world.add(new, b);
        }
        if source.has::<C>(e) {
            world.add(new, C);
        }
    }
    world
}

fn packed_contents(world: &Packed) -> BTreeMap<Entity, (Option<u64>, Option<u64>, bool)> {
    world
        .entities()
        .map(|e| {
            let row = (
                world.get::<A>(e).map(|a| a.0),
                world.get::<B>(e).map(|b| b.0),
                world.has::<C>(e),
            );
            (e, row)
        })
        .collect()
}

/// A query that is exactly a group runs in parallel whatever it writes,
/// two `&mut` included, and matches `for_each`.
#[test]
fn par_for_each_over_a_group_writes_every_storage() {
    let mut sequential = packed();
    let mut parallel = sequential.clone();
    parallel.query_mut::<(&A, &B)>().count(); // a clone is rebuilt first
    assert!(parallel.group_len::<(A, B)>().unwrap() > 5_000);
    let before = packed_contents(&sequential);

    let mut visits = 0;
    sequential
        .query_mut::<(&mut B, &mut A)>()
        .for_each(|e, (b, a)| {
            a.0 = mix(a.0, e, b.0);
            b.0 = mix(b.0, e, a.0);
            visits += 1;
        });
    let par_visits = AtomicUsize::new(0);
    let threads = std::sync::Mutex::new(std::collections::HashSet::new());
    parallel
        .query_mut::<(&mut B, &mut A)>()
        .par_for_each(|e, (b, a)| {
            a.0 = mix(a.0, e, b.0);
            b.0 = mix(b.0, e, a.0);
            par_visits.fetch_add(1, Ordering::Relaxed);
            let first_here = threads.lock().unwrap().insert(std::thread::current().id());
            if first_here {
                // Give the pool's other threads time to steal a piece: on
                // a loaded machine one thread could otherwise do it all.
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
    assert_eq!(par_visits.into_inner(), visits);
    assert_eq!(packed_contents(&parallel), packed_contents(&sequential));
    assert_ne!(packed_contents(&parallel), before);
    if rayon::current_num_threads() > 1 {
        assert!(threads.into_inner().unwrap().len() > 1, "ran on one thread");
    }

    // With a filter, and as a join of borrowed fields.
    sequential
        .query_mut::<(With<A>, &mut B)>()
        .for_each(|e, ((), b)| b.0 = mix(b.0, e, 1));
    parallel
        .query_mut::<(With<A>, &mut B)>()
        .par_for_each(|e, ((), b)| b.0 = mix(b.0, e, 1));
    join((&mut sequential.a, &mut sequential.b)).for_each(|e, (a, b)| a.0 = mix(a.0, e, b.0));
    join((&mut parallel.a, &mut parallel.b)).par_for_each(|e, (a, b)| a.0 = mix(a.0, e, b.0));
    assert_eq!(packed_contents(&parallel), packed_contents(&sequential));
    parallel.assert_invariants();
}

/// Two `&mut` storages that are not a group cannot be split safely: the
/// walk runs on the calling thread, and still visits everything once.
#[test]
fn par_for_each_over_two_ungrouped_mut_runs_on_one_thread() {
    let mut sequential = populated();
    let mut parallel = sequential.clone();
    sequential
        .query_mut::<(&mut A, &mut B)>()
        .for_each(|e, (a, b)| {
            a.0 = mix(a.0, e, b.0);
            b.0 += 1;
        });
    let caller = std::thread::current().id();
    parallel
        .query_mut::<(&mut A, &mut B)>()
        .par_for_each(|e, (a, b)| {
            assert_eq!(std::thread::current().id(), caller);
            a.0 = mix(a.0, e, b.0);
            b.0 += 1;
        });
    assert_eq!(contents(&parallel), contents(&sequential));

    // An optional `&mut` cannot be split either.
    sequential
        .query_mut::<(&A, Option<&mut B>)>()
        .for_each(|_, (a, b)| {
            if let Some(b) = b {
                b.0 ^= a.0;
            }
        });
    parallel
        .query_mut::<(&A, Option<&mut B>)>()
        .par_for_each(|_, (a, b)| {
            if let Some(b) = b {
                b.0 ^= a.0;
            }
        });
    assert_eq!(contents(&parallel), contents(&sequential));

    // One `&mut` that is not first, and a read-only query: both split.
    sequential
        .query_mut::<(&A, &mut B, Without<C>)>()
        .for_each(|e, (a, b, ())| b.0 = mix(b.0, e, a.0));
    parallel
        .query_mut::<(&A, &mut B, Without<C>)>()
        .par_for_each(|e, (a, b, ())| b.0 = mix(b.0, e, a.0));
    assert_eq!(contents(&parallel), contents(&sequential));
    let total = AtomicUsize::new(0);
    parallel.query_mut::<(&A, &B)>().par_for_each(|_, (a, b)| {
        total.fetch_add((a.0 ^ b.0) as usize & 0xff, Ordering::Relaxed);
    });
    let mut expected = 0;
    sequential
        .query_mut::<(&A, &B)>()
        .for_each(|_, (a, b)| expected += (a.0 ^ b.0) as usize & 0xff);
    assert_eq!(total.into_inner(), expected);
    parallel.assert_invariants();
}

world! {
    #[derive(Clone)]
    struct Lined<A, B>;
}

world! {
    #[derive(Clone)]
    struct LinedTracked<A, B>;
    tracked (A);
}

/// `par_for_each` over storages filled by the same spawns (their lined-up
/// slots are split as rows, as a group's), lined up in their first slots
/// only (rows, then lookups), and not lined up at all: what `for_each`
/// does, each entity once, and, tracked, exactly the matches marked.
macro_rules! lined_up_case {
    ($name:ident, $W:ident $(, $marked:ident)?) => {
        #[test]
        fn $name() {
            for shape in ["all", "in part", "none"] {
                let mut world = $W::new();
                let made: Vec<Entity> = (0..20_000u64)
                    .map(|i| match shape {
                        "none" => world.spawn_with((A(i),)),
                        _ => world.spawn_with((A(i), B(i * 3))),
                    })
                    .collect();
                match shape {
                    // `made[12_000]`'s `A` off and on: the last moves into
                    // its slot, and it goes to the end; then 300 entities
                    // with an `A` alone, which the walk looks up and skips.
                    "in part" => {
                        let a = world.remove::<A>(made[12_000]).unwrap();
                        world.add(made[12_000], a);
                        for i in 0..300 {
                            world.spawn_with((A(i),));
                        }
                    }
                    // `B` in the reverse order, on four entities of five.
                    "none" => {
                        for (i, &e) in made.iter().enumerate().rev() {
                            if i % 5 != 0 {
                                world.add(e, B(i as u64 * 3));
                            }
                        }
                    }
                    _ => {}
                }
                world.clear_changes();
                let mut sequential = world.clone();
                let mut visits = 0;
                sequential
                    .query_mut::<(&mut A, &B)>()
                    .for_each(|e, (a, b)| {
                        a.0 = mix(a.0, e, b.0);
                        visits += 1;
                    });
                let par_visits = AtomicUsize::new(0);
                world.query_mut::<(&mut A, &B)>().par_for_each(|e, (a, b)| {
                    a.0 = mix(a.0, e, b.0);
                    par_visits.fetch_add(1, Ordering::Relaxed);
                });
                assert_eq!(par_visits.into_inner(), visits, "{shape}");
                let values = |w: &$W| -> BTreeMap<Entity, u64> {
                    w.a.iter().map(|(e, a)| (e, a.0)).collect()
                };
                assert_eq!(values(&world), values(&sequential), "{shape}");
                $(
                    // `$marked`: the world tracks `A`.
                    let _ = stringify!($marked);
                    let changed = |w: &$W| -> Vec<Entity> {
                        let mut changed: Vec<Entity> =
                            w.query::<typed_ecs::Changed<&A>>().map(|(e, _)| e).collect();
                        changed.sort();
                        changed
                    };
                    let mut matched: Vec<Entity> =
                        world.query::<(&A, &B)>().map(|(e, _)| e).collect();
                    matched.sort();
                    assert_eq!(changed(&world), matched, "{shape}: marks");
                    assert_eq!(changed(&sequential), matched, "{shape}: for_each's marks");
                )?
                world.assert_invariants();
            }
        }
    };
}

lined_up_case!(par_for_each_over_storages_lined_up_matches_for_each, Lined);
lined_up_case!(
    par_for_each_over_tracked_storages_lined_up_marks_what_matched,
    LinedTracked,
    marked
);
