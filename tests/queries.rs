//! `world.query::<Q>()` against a brute-force filter over `entities()` with
//! `has`, for single components and tuples of up to 8, before and after
//! removals, despawns and clears; the driver is the smallest storage.

use typed_ecs::prelude::*;

#[path = "support/rng.rs"]
mod rng;

use rng::Rng;

macro_rules! components {
    ($($name:ident = $k:expr),+ $(,)?) => {
        $(
            #[derive(Debug, Clone, Copy, PartialEq)]
            struct $name(u32);

            impl Value for $name {
                const K: u32 = $k;
                fn new(entity: u32) -> Self {
                    $name(entity * 10 + $k)
                }
            }
        )+
    };
}

/// A component whose value encodes its entity's index and its own kind.
trait Value {
    const K: u32;
    fn new(entity: u32) -> Self;
}

components!(A = 0, B = 1, C = 2, D = 3, E = 4, F = 5, G = 6, H = 7);

world! {
    struct Many<A, B, C, D, E, F, G, H>;
}

fn maybe_add<T: Value>(world: &mut Many, rng: &mut Rng, e: Entity, percent: u64)
where
    Many: Contains<T>,
{
    if rng.chance(percent) {
        world.add(e, T::new(e.index()));
    }
}

/// 300 entities; component `k` is on roughly `90 - 10k` percent of them, so
/// every storage has a different size.
fn populated(seed: u64) -> (Many, Vec<Entity>) {
    let mut rng = Rng::new(seed);
    let mut world = Many::new();
    let mut handles = Vec::new();
    for _ in 0..300 {
        let e = world.spawn();
        maybe_add::<A>(&mut world, &mut rng, e, 90);
        maybe_add::<B>(&mut world, &mut rng, e, 80);
        maybe_add::<C>(&mut world, &mut rng, e, 70);
        maybe_add::<D>(&mut world, &mut rng, e, 60);
        maybe_add::<E>(&mut world, &mut rng, e, 50);
        maybe_add::<F>(&mut world, &mut rng, e, 40);
        maybe_add::<G>(&mut world, &mut rng, e, 30);
        maybe_add::<H>(&mut world, &mut rng, e, 20);
        handles.push(e);
    }
    (world, handles)
}

/// Checks `world.query::<(&T0, ..)>()` against the brute force, and that it
/// is driven by the first smallest storage, in that storage's dense order.
/// Returns the number of results.
macro_rules! check_query {
    ($world:expr; $($t:ident $v:ident),+) => {{
        let world: &Many = &$world;
        let label = stringify!(($(&$t),+));
        let got: Vec<(Entity, Vec<u32>)> = world
            .query::<($(&$t,)+)>()
            .map(|(e, ($($v,)+))| (e, vec![$($v.0),+]))
            .collect();

        // Brute force over every live entity.
        let mut expected: Vec<(Entity, Vec<u32>)> = world
            .entities()
            .filter(|&e| true $(&& world.has::<$t>(e))+)
            .map(|e| (e, vec![$(world.get::<$t>(e).unwrap().0),+]))
            .collect();
        let mut sorted = got.clone();
        sorted.sort();
        expected.sort();
        assert_eq!(sorted, expected, "{label}");
        for (e, values) in &got {
            let kinds = [$(<$t as Value>::K),+];
            for (value, kind) in values.iter().zip(kinds) {
                assert_eq!(*value, e.index() * 10 + kind, "{label}: {e:?}");
            }
        }

        // The driver: the first storage of the smallest size.
        let sizes = [$(world.size::<$t>()),+];
        let drivers: Vec<&[Entity]> = vec![$(world.storage::<$t>().entities()),+];
        let smallest = *sizes.iter().min().unwrap();
        let driver = drivers[sizes.iter().position(|&s| s == smallest).unwrap()];
        // A query over one storage knows its length exactly; a join knows
        // it if its storages hold the driver's entities in the same slots
        // (it walks packed rows), and otherwise only that the driver's
        // length bounds it.
        let single = [$(stringify!($t)),+].len() == 1;
        let (least, most) = world.query::<($(&$t,)+)>().size_hint();
        assert_eq!(most, Some(smallest), "{label}");
        if single {
            assert_eq!(least, smallest, "{label}");
        } else {
            assert!(least == 0 || least == got.len(), "{label}: {least}");
        }
        let in_driver_order: Vec<Entity> = driver
            .iter()
            .copied()
            .filter(|&e| true $(&& world.has::<$t>(e))+)
            .collect();
        let got_order: Vec<Entity> = got.iter().map(|(e, _)| *e).collect();
        assert_eq!(got_order, in_driver_order, "{label}: driver order");
        got.len()
    }};
}

/// Every query shape this file checks, on one world. Returns the result
/// counts, so callers can see the populations were not trivially empty.
fn check_all(world: &Many) -> Vec<usize> {
    vec![
        check_query!(*world; A a),
        check_query!(*world; H h),
        check_query!(*world; A a, B b),
        check_query!(*world; H h, A a),
        check_query!(*world; B b, D d, F f),
        check_query!(*world; G g, C c, E e, A a),
        check_query!(*world; A a, B b, C c, D d, E e),
        check_query!(*world; F f, E e, D d, C c, B b, A a),
        check_query!(*world; A a, B b, C c, D d, E e, F f, G g),
        check_query!(*world; A a, B b, C c, D d, E e, F f, G g, H h),
        check_query!(*world; H h, G g, F f, E e, D d, C c, B b, A a),
    ]
}

#[test]
fn single_component_query_is_the_storage() {
    let (world, _) = populated(1);
    let got: Vec<(Entity, B)> = world.query::<&B>().map(|(e, b)| (e, *b)).collect();
    let storage: Vec<(Entity, B)> = world.b.iter().map(|(e, b)| (e, *b)).collect();
    assert_eq!(got, storage);
    assert_eq!(
        world.query::<&B>().size_hint(),
        (world.size::<B>(), Some(world.size::<B>()))
    );
    assert_eq!(world.query::<&B>().count(), world.size::<B>());
    // A one-element tuple is the same, with the item in a tuple.
    let tuple: Vec<Entity> = world.query::<(&B,)>().map(|(e, (_b,))| e).collect();
    assert_eq!(tuple, world.b.entities());
}

#[test]
fn tuple_queries_match_brute_force() {
    for seed in [1, 2, 3] {
        let (world, _) = populated(seed);
        let counts = check_all(&world);
        assert!(counts[0] > 200, "seed {seed}: {counts:?}");
        assert!(counts[2] > 150, "seed {seed}: {counts:?}");
        assert!(counts[5] > 0, "seed {seed}: {counts:?}");
        world.assert_invariants();
    }
}

#[test]
fn driver_is_the_smallest_storage() {
    let (world, _) = populated(4);
    let sizes = [
        world.size::<A>(),
        world.size::<D>(),
        world.size::<G>(),
        world.size::<H>(),
    ];
    assert!(sizes.windows(2).all(|w| w[0] > w[1]), "{sizes:?}");
    // Whatever the position of the smallest storage in the tuple.
    let hint = |it: (usize, Option<usize>)| it.1;
    assert_eq!(hint(world.query::<(&A, &D)>().size_hint()), Some(sizes[1]));
    assert_eq!(hint(world.query::<(&D, &A)>().size_hint()), Some(sizes[1]));
    assert_eq!(
        hint(world.query::<(&A, &H, &D)>().size_hint()),
        Some(sizes[3])
    );
    assert_eq!(
        hint(world.query::<(&H, &A, &G)>().size_hint()),
        Some(sizes[3])
    );
    assert_eq!(
        hint(world.query::<(&A, &D, &G)>().size_hint()),
        Some(sizes[2])
    );
    // The lower bound is honest: any of the driver's entities may miss.
    assert_eq!(world.query::<(&A, &D)>().size_hint().0, 0);
    // The driver's order: every result comes from H's dense array, in order.
    let got: Vec<Entity> = world.query::<(&A, &H)>().map(|(e, _)| e).collect();
    let mut positions = got.iter().map(|&e| world.h.index_of(e).unwrap());
    let mut last = positions.next().unwrap();
    for p in positions {
        assert!(p > last);
        last = p;
    }
}

#[test]
fn nested_and_repeated_read_only_queries() {
    let (world, _) = populated(5);
    let flat: Vec<(Entity, u32, u32, u32)> = world
        .query::<(&A, &B, &C)>()
        .map(|(e, (a, b, c))| (e, a.0, b.0, c.0))
        .collect();
    let mut nested: Vec<(Entity, u32, u32, u32)> = world
        .query::<((&A, &B), &C)>()
        .map(|(e, ((a, b), c))| (e, a.0, b.0, c.0))
        .collect();
    let mut flat_sorted = flat.clone();
    flat_sorted.sort_by_key(|r| r.0);
    nested.sort_by_key(|r| r.0);
    assert_eq!(nested, flat_sorted);
    // Reading one component twice is fine.
    let twice: Vec<(Entity, u32, u32)> = world
        .query::<(&C, &C)>()
        .map(|(e, (x, y))| (e, x.0, y.0))
        .collect();
    assert_eq!(twice.len(), world.size::<C>());
    assert!(twice.iter().all(|&(_, x, y)| x == y));
    // Two queries at once (both borrow the world shared).
    let outer = world.query::<&G>();
    let inner = world.query::<&H>();
    assert_eq!(
        outer.count() + inner.count(),
        world.size::<G>() + world.size::<H>()
    );
}

#[test]
fn empty_storage_yields_nothing() {
    let mut world = Many::new();
    assert_eq!(world.query::<&A>().next(), None);
    assert_eq!(world.query::<(&A, &B)>().size_hint(), (0, Some(0)));
    for i in 0..50u32 {
        world.spawn_with((A(i * 10), B(i * 10 + 1), C(i * 10 + 2)));
    }
    assert_eq!(world.query::<(&A, &B, &C)>().count(), 50);
    assert_eq!(world.query::<&H>().count(), 0);
    let mut with_h = world.query::<(&A, &B, &C, &H)>();
    assert_eq!(with_h.size_hint(), (0, Some(0)));
    assert!(with_h.next().is_none());
    assert!(with_h.next().is_none(), "fused");
    assert_eq!(world.query::<(&H, &A)>().count(), 0);
    // An eight-component bundle.
    let e = world.spawn_with((
        A::new(99),
        B::new(99),
        C::new(99),
        D::new(99),
        E::new(99),
        F::new(99),
        G::new(99),
        H::new(99),
    ));
    assert_eq!(e.index(), 50);
    let all: Vec<(Entity, u32, u32)> = world
        .query::<(&A, &B, &C, &D, &E, &F, &G, &H)>()
        .map(|(e, (a, _, _, _, _, _, _, h))| (e, a.0, h.0))
        .collect();
    assert_eq!(all, [(e, 990, 997)]);
    // And with no entities at all.
    assert_eq!(
        Many::new()
            .query::<(&A, &B, &C, &D, &E, &F, &G, &H)>()
            .count(),
        0
    );
}

#[test]
fn queries_after_removals_despawns_and_clear() {
    let (mut world, handles) = populated(6);
    let mut rng = Rng::new(66);
    let before = check_all(&world);

    // Removals of every kind, then despawns, then re-adds; check after each.
    for &e in &handles {
        if rng.chance(30) {
            world.remove::<A>(e);
        }
        if rng.chance(30) {
            world.remove::<C>(e);
        }
        if rng.chance(20) {
            world.h.remove(e);
        }
    }
    let after_removals = check_all(&world);
    assert!(after_removals[0] < before[0]);
    assert!(world.query::<&A>().all(|(e, _)| world.has::<A>(e)));

    for &e in handles.iter().step_by(3) {
        world.despawn(e);
    }
    let after_despawns = check_all(&world);
    assert!(after_despawns[0] < after_removals[0]);
    for (e, _) in world.query::<(&A, &B)>() {
        assert!(world.is_alive(e));
        assert_ne!(e.index() % 3, 0, "{e:?} was despawned");
    }

    // New entities reuse the slots and show up with their own values.
    for _ in 0..40 {
        let e = world.spawn();
        world.add(e, A::new(e.index()));
        world.add(e, H::new(e.index()));
        assert_eq!(e.generation(), 2);
    }
    check_all(&world);

    // remove_all and deferred changes.
    for &e in handles.iter().skip(1).step_by(5) {
        world.remove_all(e);
    }
    for i in 0..world.size::<B>() {
        let e = world.entity_at::<B>(i);
        if !world.has::<G>(e) {
            world.add_deferred(e, G::new(e.index()));
        }
    }
    let queued = check_all(&world);
    world.finalize_updates();
    let applied = check_all(&world);
    assert!(applied[5] >= queued[5]);
    world.assert_invariants();

    world.clear();
    assert!(check_all(&world).iter().all(|&n| n == 0));
    let e = world.spawn_with((A::new(0), B::new(0)));
    assert_eq!(
        world
            .query::<(&A, &B)>()
            .map(|(e, _)| e)
            .collect::<Vec<_>>(),
        [e]
    );
}

/// `Or` in `query`, `query_mut` (both walks) and `join`, against the brute
/// force, over random worlds; nested, and beside required elements.
#[test]
fn or_filters_match_the_brute_force() {
    use typed_ecs::Or;
    for seed in 0..20 {
        let (mut world, handles) = populated(seed);
        let expect = |keep: &dyn Fn(Entity) -> bool| -> Vec<Entity> {
            let mut v: Vec<Entity> = handles
                .iter()
                .copied()
                .filter(|&e| world.has::<C>(e) && keep(e))
                .collect();
            v.sort();
            v
        };
        let g_or_not_h = expect(&|e| world.has::<G>(e) || !world.has::<H>(e));
        let nested = expect(&|e| world.has::<H>(e) || (world.has::<F>(e) || world.has::<G>(e)));

        let mut got: Vec<Entity> = world
            .query::<(&C, Or<(With<G>, Without<H>)>)>()
            .map(|(e, _)| e)
            .collect();
        got.sort();
        assert_eq!(got, g_or_not_h, "query, seed {seed}");

        let mut got: Vec<Entity> = world
            .query::<(Or<(With<H>, Or<(With<F>, With<G>)>)>, &C)>()
            .map(|(e, _)| e)
            .collect();
        got.sort();
        assert_eq!(got, nested, "nested, seed {seed}");

        let mut got = Vec::new();
        world
            .query_mut::<(&mut C, Or<(With<G>, Without<H>)>)>()
            .for_each(|e, (c, ())| {
                c.0 += 1;
                got.push(e);
            });
        got.sort();
        assert_eq!(got, g_or_not_h, "query_mut for_each, seed {seed}");

        let mut got = Vec::new();
        for (e, (c, ())) in world.query_mut::<(&mut C, Or<(With<G>, Without<H>)>)>() {
            c.0 -= 1;
            got.push(e);
        }
        got.sort();
        assert_eq!(got, g_or_not_h, "query_mut for, seed {seed}");

        let mut got: Vec<Entity> =
            typed_ecs::join((&mut world.c, Or((With(&world.g), Without(&world.h)))))
                .into_iter()
                .map(|(e, _)| e)
                .collect();
        got.sort();
        assert_eq!(got, g_or_not_h, "join, seed {seed}");
        // Every value went up and down once: none changed.
        assert!(world.c.iter().all(|(e, c)| c.0 == e.index() * 10 + 2));
    }
}

/// `Has<T>` against `world.has`: in a query, a mutable query, `get_many`
/// and a join, on a populated world, after removals and despawns, and
/// next to a storage brought from another world (out of step: `Has` must
/// not see the entries of entities this world does not have).
#[test]
fn has_answers_from_the_sparse_entry_whatever_the_dense_order() {
    // `B` in the reverse order of `A`, and missing for every third entity:
    // the driver's slot never holds the same entity in `B`.
    let mut world = Many::new();
    let handles: Vec<Entity> = (0..40).map(|i| world.spawn_with((A(i),))).collect();
    for (i, &e) in handles.iter().enumerate().rev() {
        if i % 3 != 0 {
            world.insert(e, B(i as u32));
        }
    }
    let mut seen = Vec::new();
    join((&world.a, Has(&world.b))).for_each(|e, (a, has)| seen.push((e, a.0, has)));
    let expected: Vec<(Entity, u32, bool)> = handles
        .iter()
        .enumerate()
        .map(|(i, &e)| (e, i as u32, i % 3 != 0))
        .collect();
    assert_eq!(seen, expected);
}

/// `Has` lines up with any run the other columns line up in: a join of
/// storages spawned together walks its runs with no lookup and answers
/// `Has` for each entity of the run. Checked against lookups, on runs that
/// line up, runs broken by removals, and a written tracked-free column.
#[test]
fn has_in_a_lined_up_join_answers_for_every_entity_of_the_run() {
    for seed in 0..20 {
        let mut rng = Rng::new(seed);
        let mut world = Many::new();
        // `A` and `B` spawned together (they line up); `C` on some.
        let handles: Vec<Entity> = (0..200)
            .map(|i| {
                let e = world.spawn_with((A(i), B(i)));
                if rng.chance(40) {
                    world.add(e, C(i));
                }
                e
            })
            .collect();
        // Despawns keep `A` and `B` lined up; a few removals of `B` (and
        // re-adds) break some runs.
        for &e in &handles {
            if rng.chance(10) {
                world.despawn(e);
            } else if rng.chance(5) {
                if let Some(b) = world.remove::<B>(e) {
                    if rng.chance(50) {
                        world.add(e, b);
                    }
                }
            }
        }
        // In the driver's order: the shorter of `A` and `B`.
        let driver = if world.b.len() < world.a.len() {
            world.b.entities()
        } else {
            world.a.entities()
        };
        let expected: Vec<(Entity, u32, u32, bool)> = driver
            .iter()
            .filter_map(|&e| {
                let (a, b) = (world.a.get(e)?, world.b.get(e)?);
                Some((e, a.0, b.0, world.has::<C>(e)))
            })
            .collect();
        assert!(expected.iter().any(|r| r.3) && expected.iter().any(|r| !r.3));
        let mut seen = Vec::new();
        join((&world.a, &world.b, Has(&world.c)))
            .for_each(|e, (a, b, has)| seen.push((e, a.0, b.0, has)));
        assert_eq!(seen, expected, "seed {seed}");
        let mut written = Vec::new();
        join((&mut world.a, &world.b, Has(&world.c))).for_each(|e, (a, b, has)| {
            a.0 += 1;
            written.push((e, a.0 - 1, b.0, has));
        });
        assert_eq!(written, expected, "seed {seed}, written");
    }
}

#[test]
fn has_tells_each_entity_whether_it_has_the_component() {
    let (mut world, handles) = populated(11);
    for &e in handles.iter().step_by(7) {
        world.remove::<B>(e);
    }
    for &e in handles.iter().step_by(13) {
        world.despawn(e);
    }
    let expected: Vec<(Entity, bool)> = world
        .query::<&A>()
        .map(|(e, _)| (e, world.has::<B>(e)))
        .collect();
    assert!(expected.iter().any(|&(_, has)| has) && expected.iter().any(|&(_, has)| !has));

    let asked: Vec<(Entity, bool)> = world
        .query::<(&A, Has<B>)>()
        .map(|(e, (_, b))| (e, b))
        .collect();
    assert_eq!(asked, expected);
    let joined: Vec<(Entity, bool)> = join((&world.a, Has(&world.b)))
        .into_iter()
        .map(|(e, (_, b))| (e, b))
        .collect();
    assert_eq!(joined, expected);
    let mut written = Vec::new();
    world
        .query_mut::<(&mut A, Has<B>)>()
        .for_each(|e, (_, b)| written.push((e, b)));
    assert_eq!(written, expected);
    for &(e, has) in &expected {
        assert_eq!(world.get_many::<(&A, Has<B>)>(e).map(|(_, b)| b), Some(has));
    }
    // Beside `&H`, every result has an `H`.
    assert_eq!(
        world
            .query::<(&H, Has<H>)>()
            .filter(|(_, (_, has))| !has)
            .count(),
        0
    );

    // A storage from elsewhere: its entries of entities this world does not
    // have (despawned here, or never spawned) are not there for `Has`.
    let (other, _) = populated(12);
    world.b = other.b.clone();
    let stale: Vec<(Entity, bool)> = world
        .query::<(&A, Has<B>)>()
        .map(|(e, (_, b))| (e, b))
        .collect();
    for (e, has) in stale {
        assert!(world.is_alive(e));
        assert_eq!(has, world.b.contains(e), "{e:?}");
    }
    world.assert_invariants();
}

/// 300 entities spawned with `(A, B, C)` (values `10i`, `10i + 1`,
/// `10i + 2`), a tenth of them despawned, and `B` taken off `moved` percent
/// of the others and given back to `re_added` percent of those: moved to the
/// end of its storage, out of line with `A`'s and `C`'s.
fn out_of_line(rng: &mut Rng, moved: u64, re_added: u64) -> (Many, Vec<Entity>) {
    let mut world = Many::new();
    let handles: Vec<Entity> = (0..300)
        .map(|i| world.spawn_with((A(i * 10), B(i * 10 + 1), C(i * 10 + 2))))
        .collect();
    for &e in &handles {
        if rng.chance(10) {
            world.despawn(e);
        } else if rng.chance(moved) {
            if let Some(b) = world.remove::<B>(e) {
                if rng.chance(re_added) {
                    world.add(e, b);
                }
            }
        }
    }
    (world, handles)
}

/// A marker's storage drives (`With`, the shortest): every column after the
/// first storage column that finds the entity tries the slot that one found
/// it in before its own lookup (storages filled alike hold it there). A
/// slot that holds another entity must fall back to the lookup, and the
/// driver, wherever it stands among the terms, must still take its own
/// slot: checked against lookups, on storages lined up, put out of line by
/// removals and re-adds, with the marker first, in the middle and last,
/// and with a written column.
#[test]
fn columns_after_a_lookup_try_the_slot_it_found() {
    for seed in 0..20 {
        let mut rng = Rng::new(seed);
        let (mut world, handles) = out_of_line(&mut rng, 8, 100);
        for (i, &e) in handles.iter().enumerate() {
            if world.is_alive(e) && rng.chance(20) {
                world.add(e, H(i as u32));
            }
            if world.is_alive(e) && rng.chance(30) {
                world.add(e, D(i as u32 * 10 + 3));
            }
        }
        let expected: Vec<(Entity, u32, u32, u32)> = world
            .h
            .entities()
            .iter()
            .map(|&e| {
                let (a, b, c) = (world.a.get(e), world.b.get(e), world.c.get(e));
                (e, a.unwrap().0, b.unwrap().0, c.unwrap().0)
            })
            .collect();
        assert!(expected.len() > 20, "seed {seed}");
        let mut seen = Vec::new();
        join((With(&world.h), &world.a, &world.b, &world.c))
            .for_each(|e, ((), a, b, c)| seen.push((e, a.0, b.0, c.0)));
        assert_eq!(seen, expected, "seed {seed}, marker first");
        seen.clear();
        join((&world.a, &world.b, With(&world.h), &world.c))
            .for_each(|e, (a, b, (), c)| seen.push((e, a.0, b.0, c.0)));
        assert_eq!(seen, expected, "seed {seed}, marker in the middle");
        seen.clear();
        join((&world.a, &mut world.b, &world.c, With(&world.h))).for_each(|e, (a, b, c, ())| {
            seen.push((e, a.0, b.0, c.0));
            b.0 += 1;
        });
        assert_eq!(seen, expected, "seed {seed}, marker last, `B` written");
        for &(e, _, b, _) in &expected {
            assert_eq!(world.b.get(e).unwrap().0, b + 1, "seed {seed}");
        }
        // A value column drives from the middle, after a column that
        // looked the entity up: it takes its own slot, not that one's.
        let expected: Vec<(Entity, u32, u32, u32)> = world
            .d
            .iter()
            .map(|(e, d)| (e, world.a.get(e).unwrap().0, d.0, world.c.get(e).unwrap().0))
            .collect();
        let mut seen = Vec::new();
        join((&world.a, &world.d, &world.c)).for_each(|e, (a, d, c)| seen.push((e, a.0, d.0, c.0)));
        assert_eq!(seen, expected, "seed {seed}, `D` drives");
    }
}

/// `get_many` looks the entity up in its first storage; the others try the
/// slot found there first. Against one lookup per storage, on storages
/// lined up and put out of line, and with a term absent.
#[test]
fn get_many_matches_a_lookup_per_storage() {
    for seed in 0..10 {
        let (mut world, handles) = out_of_line(&mut Rng::new(seed), 10, 70);
        for &e in &handles {
            let expected = match (world.a.get(e), world.b.get(e), world.c.get(e)) {
                (Some(a), Some(b), Some(c)) => Some((a.0, b.0, c.0)),
                _ => None,
            };
            let found = world
                .get_many::<(&A, &mut B, &C)>(e)
                .map(|(a, b, c)| (a.0, b.0, c.0));
            assert_eq!(found, expected, "seed {seed}");
        }
    }
}

/// A walk that finds storages lined up remembers it, and the next walk over
/// the same pair trusts it while neither is reordered (the test builds
/// check each trusted run against the entities). Long random sequences of
/// spawns, despawns, removals and re-adds, each followed by the same joins
/// twice, checked against lookups.
#[test]
fn walks_trust_what_an_earlier_walk_proved_only_until_a_storage_changes() {
    for seed in 0..10 {
        let mut rng = Rng::new(seed);
        let mut world = Many::new();
        let mut handles: Vec<Entity> = Vec::new();
        for step in 0..400 {
            match rng.below(10) {
                0..=3 => {
                    let i = step as u32;
                    handles.push(world.spawn_with((A(i), B(i + 1), C(i + 2))));
                }
                4 if !handles.is_empty() => {
                    let e = handles.swap_remove(rng.below(handles.len() as u64) as usize);
                    world.despawn(e);
                }
                5 if !handles.is_empty() => {
                    let e = handles[rng.below(handles.len() as u64) as usize];
                    if let Some(b) = world.remove::<B>(e) {
                        if rng.chance(50) {
                            world.add(e, b);
                        }
                    }
                }
                6 if !handles.is_empty() => {
                    // A replacement moves nothing.
                    let e = handles[rng.below(handles.len() as u64) as usize];
                    let a = world.a.get(e).unwrap().0;
                    world.insert(e, A(a));
                }
                _ => {}
            }
            let mut expected: Vec<(Entity, u32, u32, u32)> = handles
                .iter()
                .filter_map(|&e| {
                    let (a, b, c) = (world.a.get(e)?, world.b.get(e)?, world.c.get(e)?);
                    Some((e, a.0, b.0, c.0))
                })
                .collect();
            expected.sort();
            for round in 0..2 {
                let mut seen = Vec::new();
                join((&world.a, &world.b, &world.c))
                    .for_each(|e, (a, b, c)| seen.push((e, a.0, b.0, c.0)));
                seen.sort();
                assert_eq!(seen, expected, "seed {seed}, step {step}, round {round}");
                let mut written = Vec::new();
                join((&mut world.c, &world.a, &world.b)).for_each(|e, (c, a, b)| {
                    written.push((e, a.0, b.0, c.0));
                });
                written.sort();
                assert_eq!(
                    written, expected,
                    "seed {seed}, step {step}, round {round}, written"
                );
            }
        }
    }
}
