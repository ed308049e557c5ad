//! A join's lookups by handle (`Join::get`, `query_mut().get`) take the
//! first storage's slot unchecked in the later storages where a line-up
//! proof says they hold the same entities there. Whatever happens to the
//! storages between proving and looking up, a lookup answers what each
//! storage's own `get` answers: never another entity's value, never a
//! stale handle's.
//!
//! The oracle everywhere is each storage's own `get`, which reads no
//! proof. `Join::trusted_slots` (feature `testing`) shows the trust is in
//! play, so that no test here passes by never trusting.

use typed_ecs::prelude::*;
use typed_ecs::{join, Lazy};

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct A(u64);
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct B(u64);
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct C(u64);
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct T(u64);

#[cfg(feature = "serde")]
world! {
    #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
    struct Plain<A, B, C, T>;
}

#[cfg(not(feature = "serde"))]
world! {
    #[derive(Debug, Clone)]
    struct Plain<A, B, C, T>;
}

world! {
    #[derive(Debug, Clone)]
    struct Grouped<A, B, C, T>;
    group (A, B);
}

world! {
    #[derive(Debug, Clone)]
    struct Tracking<A, B, C, T>;
    tracked (A, B, C);
}

/// The handles to look up: every entity ever made (live and stale), and
/// some of their indices at a later generation (not made yet, or made).
fn probes(made: &[Entity], rng: &mut Rng) -> Vec<Entity> {
    let mut probes = made.to_vec();
    for _ in 0..40 {
        if let Some(&e) = made.get(rng.index(made.len().max(1))) {
            let later = e.to_bits() + (1 << 32);
            probes.extend(Entity::from_bits(later));
        }
    }
    probes
}

/// Each storage's own answer for `e` in `a`, `b` and `c`, if all have it.
fn want3<X: Clone, Y: Clone, Z: Clone>(
    a: Option<&X>,
    b: Option<&Y>,
    c: Option<&Z>,
) -> Option<(X, Y, Z)> {
    Some((a?.clone(), b?.clone(), c?.clone()))
}

/// What a walk hands out: each entity with its `A`, `B` and `C`, in any
/// order of the columns. `make` makes the join twice: `for_each` walks
/// one, a `for` loop the other (packed rows where every storage holds the
/// driver's entities in the same slots, lookups otherwise), and both must
/// hand out the same, in the same order.
fn walk<'w, F>(make: impl Fn() -> typed_ecs::Join<'w, F>) -> Vec<(Entity, u64, u64, u64)>
where
    F: typed_ecs::Fetch<'w>,
    for<'a> F::Item<'a>: Abc,
{
    let mut seen = Vec::new();
    make().for_each(|e, items| {
        let (a, b, c) = items.abc();
        seen.push((e, a, b, c));
    });
    let looped = make().into_iter();
    let (least, most) = looped.size_hint();
    let looped: Vec<_> = looped
        .map(|(e, items)| {
            let (a, b, c) = items.abc();
            (e, a, b, c)
        })
        .collect();
    assert_eq!(looped, seen, "a `for` loop and `for_each` differ");
    if least == seen.len() && least > 0 {
        PACKED_LOOPS.with(|packed| packed.set(packed.get() + 1));
    }
    assert!(
        least <= seen.len() && most.is_some_and(|most| seen.len() <= most),
        "a `for` loop's size hint ({least}, {most:?}) for {} items",
        seen.len()
    );
    seen
}

thread_local! {
    /// The `for` loops of this thread's test that walked packed rows (a
    /// size hint exact and not 0): so that no test here passes by never
    /// walking them.
    static PACKED_LOOPS: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// The `A`, `B` and `C` of a join's items.
trait Abc {
    fn abc(&self) -> (u64, u64, u64);
}

impl Abc for (&A, &B, &C) {
    fn abc(&self) -> (u64, u64, u64) {
        (self.0 .0, self.1 .0, self.2 .0)
    }
}

impl Abc for (&B, &C, &A) {
    fn abc(&self) -> (u64, u64, u64) {
        (self.2 .0, self.0 .0, self.1 .0)
    }
}

impl Abc for (&A, &B, &C, ()) {
    fn abc(&self) -> (u64, u64, u64) {
        (self.0 .0, self.1 .0, self.2 .0)
    }
}

impl Abc for (&A, &B, &C, &T) {
    fn abc(&self) -> (u64, u64, u64) {
        (self.0 .0, self.1 .0, self.2 .0)
    }
}

impl Abc for (&A, &C, &T, &B) {
    fn abc(&self) -> (u64, u64, u64) {
        (self.0 .0, self.3 .0, self.1 .0)
    }
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

/// A world's random life (spawns, despawns reusing indices, removals and
/// additions of one component, clears, clones, storages and worlds
/// swapped, a save and load where the world has one), each round followed
/// by lookups of every handle through joins of several shapes.
macro_rules! random_life {
    ($name:ident, $W:ident, $reload:expr) => {
        #[test]
        fn $name() {
            let reload: Option<fn(&$W) -> $W> = $reload;
            let mut rng = Rng::new(0xC0FFEE);
            let mut world = $W::new();
            let mut other = $W::new();
            let mut made: Vec<Entity> = Vec::new();
            let mut v = 0u64;
            let mut trusted = 0;
            for round in 0..500 {
                for _ in 0..rng.below(12) {
                    let live: Vec<Entity> = world.entities().collect();
                    let pick = |rng: &mut Rng| live.get(rng.index(live.len().max(1))).copied();
                    v += 1;
                    match rng.below(80) {
                        0..=6 => {
                            let e = world.spawn_with((A(v), B(v), C(v)));
                            if rng.chance(40) {
                                world.insert(e, T(v));
                            }
                            made.push(e);
                        }
                        20..=55 => made.push(world.spawn_with((A(v), B(v), C(v)))),
                        7 => made.push(world.spawn_with((B(v), A(v)))),
                        8 => made.push(world.spawn_with((C(v), A(v), T(v)))),
                        9 => {
                            let n = rng.below(30);
                            made.extend(
                                world.spawn_batch((0..n).map(|i| (A(v + i), B(v + i), C(v + i)))),
                            );
                        }
                        12 => {
                            if let Some(e) = pick(&mut rng) {
                                world.remove::<B>(e);
                            }
                        }
                        13 => {
                            if let Some(e) = pick(&mut rng) {
                                world.remove::<A>(e);
                            }
                        }
                        14 => {
                            if let Some(e) = pick(&mut rng) {
                                world.insert(e, B(v));
                                world.insert(e, A(v));
                            }
                        }
                        15 => {
                            if let Some(e) = pick(&mut rng) {
                                world.insert(e, C(v));
                            }
                        }
                        16 => world.clear(),
                        17 => {
                            if rng.chance(50) {
                                other = world.clone();
                            } else {
                                world = world.clone();
                            }
                        }
                        18 => match rng.below(3) {
                            0 => std::mem::swap(&mut world.a, &mut other.a),
                            1 => std::mem::swap(&mut world.b, &mut other.b),
                            _ => std::mem::swap(&mut world, &mut other),
                        },
                        19 => {
                            if let Some(reload) = reload {
                                world = reload(&world);
                            }
                        }
                        _ => {
                            if let Some(e) = pick(&mut rng) {
                                world.despawn(e);
                            }
                        }
                    }
                }
                let probes = probes(&made, &mut rng);
                for _ in 0..3 {
                    {
                        let mut j = join((&world.a, &world.b, &world.c));
                        let below = j.trusted_slots();
                        for &e in &probes {
                            let want = want3(world.a.get(e), world.b.get(e), world.c.get(e));
                            let slot = world.a.entities().iter().position(|&x| x == e);
                            trusted += usize::from(want.is_some() && slot < Some(below));
                            let got = j.get(e).map(|(x, y, z)| (x.clone(), y.clone(), z.clone()));
                            assert_eq!(got, want, "round {round}: (a, b, c) {e:?}");
                        }
                    }
                    {
                        let mut j = join((&world.b, &world.a));
                        for &e in &probes {
                            let want = world.b.get(e).cloned().zip(world.a.get(e).cloned());
                            let got = j.get(e).map(|(x, y)| (x.clone(), y.clone()));
                            assert_eq!(got, want, "round {round}: (b, a) {e:?}");
                        }
                    }
                    {
                        let mut j = join((&world.c, Maybe(&world.b), &world.a, With(&world.t)));
                        for &e in &probes {
                            let want = (world.t.contains(e))
                                .then(|| {
                                    want3(world.c.get(e), Some(&world.b.get(e)), world.a.get(e))
                                })
                                .flatten()
                                .map(|(x, m, y)| (x, m.cloned(), y));
                            let got = j
                                .get(e)
                                .map(|(x, m, y, ())| (x.clone(), m.cloned(), y.clone()));
                            assert_eq!(got, want, "round {round}: (c, b?, a, with t) {e:?}");
                        }
                    }
                    {
                        let mut j = join((&world.a, &world.a, &world.b));
                        for &e in &probes {
                            let want = want3(world.a.get(e), world.a.get(e), world.b.get(e));
                            let got = j
                                .get(e)
                                .map(|(x, x2, y)| (x.clone(), x2.clone(), y.clone()));
                            assert_eq!(got, want, "round {round}: (a, a, b) {e:?}");
                        }
                    }
                    {
                        // Storages of two worlds.
                        let mut j = join((&world.a, &other.b, &world.c));
                        for &e in &probes {
                            let want = want3(world.a.get(e), other.b.get(e), world.c.get(e));
                            let got = j.get(e).map(|(x, y, z)| (x.clone(), y.clone(), z.clone()));
                            assert_eq!(got, want, "round {round}: across worlds {e:?}");
                        }
                    }
                    // Walks prove too, and what they hand out is each
                    // entity's own: of `entities`, those with an A, a B and
                    // a C, with them.
                    let abc_of = |entities: &[Entity]| -> Vec<_> {
                        entities
                            .iter()
                            .filter_map(|&e| {
                                Some((e, want3(world.a.get(e), world.b.get(e), world.c.get(e))?))
                            })
                            .map(|(e, (x, y, z))| (e, x.0, y.0, z.0))
                            .collect()
                    };
                    let want = abc_of(world.a.entities());
                    let seen = walk(|| join((&world.a, &world.b, &world.c)));
                    assert_eq!(
                        sorted(seen),
                        sorted(want.clone()),
                        "round {round}: walk (a, b, c)"
                    );
                    let seen = walk(|| join((&world.b, &world.c, &world.a)));
                    assert_eq!(sorted(seen), sorted(want), "round {round}: walk (b, c, a)");
                    // Walks driven by a shorter storage look the first
                    // storage up and trust its slot in the later ones.
                    for (what, seen) in [
                        (
                            "(a, b, c, with t)",
                            walk(|| join((&world.a, &world.b, &world.c, With(&world.t)))),
                        ),
                        (
                            "(a, b, c, t)",
                            walk(|| join((&world.a, &world.b, &world.c, &world.t))),
                        ),
                        (
                            "(a, c, t, b)",
                            walk(|| join((&world.a, &world.c, &world.t, &world.b))),
                        ),
                    ] {
                        let want = abc_of(world.t.entities());
                        assert_eq!(sorted(seen), sorted(want), "round {round}: {what}");
                    }
                    // Written joins (`query_mut` applies what is queued first).
                    let want: Vec<_> = probes
                        .iter()
                        .map(|&e| want3(world.a.get(e), world.b.get(e), world.c.get(e)))
                        .collect();
                    let mut j = world.query_mut::<(&mut A, &B, &C)>();
                    for (&e, want) in probes.iter().zip(&want) {
                        let got = j.get(e).map(|(x, y, z)| (x.clone(), y.clone(), z.clone()));
                        assert_eq!(&got, want, "round {round}: query_mut (a, b, c) {e:?}");
                    }
                    let want: Vec<_> = probes
                        .iter()
                        .map(|&e| world.b.get(e).cloned().zip(world.a.get(e).cloned()))
                        .collect();
                    let mut j = world.query_mut::<(&B, &mut A, Option<&mut C>)>();
                    for (&e, want) in probes.iter().zip(&want) {
                        let got = j.get(e).map(|(x, y, _)| (x.clone(), y.clone()));
                        assert_eq!(&got, want, "round {round}: query_mut (b, a, c?) {e:?}");
                    }
                }
                world.assert_invariants();
            }
            assert!(
                trusted > 1_000,
                "the proofs were hardly in play: {trusted} lookups"
            );
            let packed = PACKED_LOOPS.with(|packed| packed.get());
            assert!(
                packed > 100,
                "`for` loops hardly walked packed rows: {packed}"
            );
        }
    };
}

/// A save and load (feature `serde`).
fn reload() -> Option<fn(&Plain) -> Plain> {
    #[cfg(feature = "serde")]
    return Some(|world| serde_json::from_str(&serde_json::to_string(world).unwrap()).unwrap());
    #[cfg(not(feature = "serde"))]
    None
}

random_life!(a_plain_world_s_random_life, Plain, reload());
random_life!(a_grouped_world_s_random_life, Grouped, None);
random_life!(a_tracking_world_s_random_life, Tracking, None);

/// Proven first, then each kind of change, each followed by lookups of
/// every handle (live, stale, later generations) through many shapes:
/// first columns that are no storage's, nested tuples, written views.
#[test]
fn every_kind_of_change_after_a_proof() {
    fn check(w: &mut Tracking, handles: &[Entity], what: &str) {
        let mut trusted = 0;
        for _ in 0..4 {
            let mut j = join((&w.a, &w.b, &w.c));
            trusted += j.trusted_slots().min(w.a.len());
            for &e in handles {
                let want = want3(w.a.get(e), w.b.get(e), w.c.get(e));
                let got = j.get(e).map(|(x, y, z)| (x.0, y.0, z.0));
                assert_eq!(got, want.map(|(x, y, z)| (x.0, y.0, z.0)), "{what}: {e:?}");
            }
        }
        assert!(trusted > 0, "{what}: nothing trusted");
        for _ in 0..3 {
            let mut j = join((Maybe(&w.t), &w.a, &w.b));
            for &e in handles {
                let want =
                    w.a.get(e)
                        .zip(w.b.get(e))
                        .map(|(x, y)| (w.t.get(e).map(|t| t.0), x.0, y.0));
                let got = j.get(e).map(|(t, x, y)| (t.map(|t| t.0), x.0, y.0));
                assert_eq!(got, want, "{what}: t? first {e:?}");
            }
            let mut j = join((Without(&w.t), &w.a, &w.b));
            for &e in handles {
                let want = w.a.get(e).zip(w.b.get(e)).filter(|_| !w.t.contains(e));
                let got = j.get(e).map(|((), x, y)| (x.0, y.0));
                assert_eq!(
                    got,
                    want.map(|(x, y)| (x.0, y.0)),
                    "{what}: without t first {e:?}"
                );
            }
            let mut j = join((Has(&w.t), &w.a, &w.b));
            for &e in handles {
                let want =
                    w.a.get(e)
                        .zip(w.b.get(e))
                        .map(|(x, y)| (w.t.contains(e), x.0, y.0));
                let got = j.get(e).map(|(h, x, y)| (h, x.0, y.0));
                assert_eq!(got, want, "{what}: has t first {e:?}");
            }
            let mut j = join(((&w.a, &w.b), &w.c));
            for &e in handles {
                let want =
                    want3(w.a.get(e), w.b.get(e), w.c.get(e)).map(|(x, y, z)| (x.0, y.0, z.0));
                let got = j.get(e).map(|((x, y), z)| (x.0, y.0, z.0));
                assert_eq!(got, want, "{what}: ((a, b), c) {e:?}");
            }
            let mut j = join((&w.a, (&w.b, &w.c)));
            for &e in handles {
                let want =
                    want3(w.a.get(e), w.b.get(e), w.c.get(e)).map(|(x, y, z)| (x.0, y.0, z.0));
                let got = j.get(e).map(|(x, (y, z))| (x.0, y.0, z.0));
                assert_eq!(got, want, "{what}: (a, (b, c)) {e:?}");
            }
        }
        let want: Vec<_> = handles
            .iter()
            .map(|&e| want3(w.a.get(e), w.b.get(e), w.c.get(e)).map(|(x, y, z)| (x.0, y.0, z.0)))
            .collect();
        for _ in 0..3 {
            {
                let mut j = join((&mut w.a, &w.b, &mut w.c));
                for (&e, want) in handles.iter().zip(&want) {
                    let got = j.get(e).map(|(x, y, z)| (x.0, y.0, z.0));
                    assert_eq!(&got, want, "{what}: (&mut a, b, &mut c) {e:?}");
                }
            }
            {
                let mut j = join((Lazy(&mut w.a), Lazy(&mut w.b), &w.c));
                for (&e, want) in handles.iter().zip(&want) {
                    let got = j.get(e).map(|(x, y, z)| (x.0, y.0, z.0));
                    assert_eq!(&got, want, "{what}: (lazy a, lazy b, c) {e:?}");
                }
            }
            let mut j = join((w.a.view_mut(), w.b.view_mut(), &w.c));
            for (&e, want) in handles.iter().zip(&want) {
                let got = j.get(e).map(|(x, y, z)| (x.0, y.0, z.0));
                assert_eq!(&got, want, "{what}: views {e:?}");
            }
        }
        w.assert_invariants();
    }

    let mut w = Tracking::new();
    let mut made: Vec<Entity> = (0..1200)
        .map(|i| w.spawn_with((A(i), B(i), C(i))))
        .collect();
    for i in (0..1200).step_by(5) {
        w.insert(made[i], T(i as u64));
    }
    let mut rng = Rng::new(3);
    // Walks prove the storages line up.
    join((&w.a, &w.b, &w.c)).for_each(|_, _| {});
    check(&mut w, &probes(&made, &mut rng), "fresh");
    // Despawns inside the proven slots, their indices reused.
    for k in [5, 100, 700] {
        w.despawn(made[k]);
    }
    for i in 0..3 {
        made.push(w.spawn_with((A(5000 + i), B(5000 + i), C(5000 + i))));
    }
    check(&mut w, &probes(&made, &mut rng), "despawned and reused");
    // Out of one later storage and back: to its end.
    w.remove::<B>(made[600]);
    w.insert(made[600], B(77));
    check(&mut w, &probes(&made, &mut rng), "b removed and added");
    // Out of the first storage alone, and back.
    w.remove::<A>(made[650]);
    check(&mut w, &probes(&made, &mut rng), "a removed");
    w.insert(made[650], A(20));
    check(&mut w, &probes(&made, &mut rng), "a added again");
    // Values replaced in place.
    for &e in made.iter().skip(500).take(300) {
        if w.is_alive(e) {
            w.insert(e, B(9));
        }
    }
    check(&mut w, &probes(&made, &mut rng), "b replaced");
    // A storage swapped with a clone's, and back.
    let mut other = w.clone();
    std::mem::swap(&mut w.b, &mut other.b);
    check(&mut w, &probes(&made, &mut rng), "b swapped with a clone's");
    other.b.clone_from(&w.b);
    std::mem::swap(&mut w.b, &mut other.b);
    check(&mut w, &probes(&made, &mut rng), "clone_from, then swapped");
    // Cleared, and filled in other orders.
    w.clear();
    made.clear();
    for i in 0..900 {
        let e = w.spawn();
        made.push(e);
        match if i < 300 { 0 } else { i % 3 } {
            0 => {
                w.insert(e, A(i));
                w.insert(e, B(i));
                w.insert(e, C(i));
            }
            1 => {
                w.insert(e, B(i));
                w.insert(e, A(i));
            }
            _ => {
                w.insert(e, C(i));
                w.insert(e, A(i));
                w.insert(e, B(i));
            }
        }
    }
    join((&w.a, &w.b, &w.c)).for_each(|_, _| {});
    check(&mut w, &probes(&made, &mut rng), "refilled");
    // Everything despawned, and spawned again at the same indices.
    for e in made.clone() {
        w.despawn(e);
    }
    for i in 0..900 {
        made.push(w.spawn_with((A(i), B(i + 1), C(i + 2))));
    }
    join((&w.a, &w.b, &w.c)).for_each(|_, _| {});
    check(&mut w, &probes(&made, &mut rng), "all indices reused");
}

/// An owning group packs (swaps) storages that were proven to line up.
#[test]
fn a_group_packing_proven_storages() {
    let mut w = Grouped::new();
    let made: Vec<Entity> = (0..1500).map(|i| w.spawn_with((A(i), C(i)))).collect();
    let check = |w: &Grouped, what: &str| {
        for _ in 0..4 {
            let mut j = join((&w.c, &w.a));
            for &e in &made {
                let want = w.c.get(e).zip(w.a.get(e)).map(|(x, y)| (x.0, y.0));
                assert_eq!(j.get(e).map(|(x, y)| (x.0, y.0)), want, "{what}");
            }
            let mut j = join((&w.a, &w.c, Maybe(&w.b)));
            for &e in &made {
                let want =
                    w.a.get(e)
                        .zip(w.c.get(e))
                        .map(|(x, y)| (x.0, y.0, w.b.get(e).map(|b| b.0)));
                assert_eq!(
                    j.get(e).map(|(x, y, b)| (x.0, y.0, b.map(|b| b.0))),
                    want,
                    "{what}"
                );
            }
        }
    };
    join((&w.c, &w.a)).for_each(|_, _| {});
    assert!(join((&w.c, &w.a)).trusted_slots() > 0);
    check(&w, "before the group");
    // B to every third entity, from the last: the group moves A's entities.
    for (k, &e) in made.iter().enumerate().rev() {
        if k % 3 == 0 {
            w.insert(e, B(k as u64));
        }
    }
    check(&w, "after the group packed");
}

/// Threads join the same shared storages at once, each first storage a
/// different one (more orders than a storage keeps proofs for: proofs
/// evict each other), walking and looking up.
#[test]
fn joins_on_many_threads() {
    let mut world = Plain::new();
    let made: Vec<Entity> = (0..3000)
        .map(|i| world.spawn_with((A(i), B(i + 1), C(i + 2))))
        .collect();
    for &e in made.iter().step_by(97) {
        world.remove::<C>(e);
        world.insert(e, C(9999));
    }
    let w = &world;
    std::thread::scope(|s| {
        for t in 0..6 {
            let made = &made;
            s.spawn(move || {
                for round in 0..60 {
                    match (t + round) % 3 {
                        0 => {
                            let mut j = join((&w.a, &w.b, &w.c));
                            for &e in made {
                                let want = want3(w.a.get(e), w.b.get(e), w.c.get(e));
                                assert_eq!(
                                    j.get(e).map(|(x, y, z)| (x.0, y.0, z.0)),
                                    want.map(|(x, y, z)| (x.0, y.0, z.0))
                                );
                            }
                        }
                        1 => {
                            let mut j = join((&w.c, &w.a));
                            for &e in made {
                                let want = w.c.get(e).zip(w.a.get(e)).map(|(x, y)| (x.0, y.0));
                                assert_eq!(j.get(e).map(|(x, y)| (x.0, y.0)), want);
                            }
                            join((&w.c, &w.b))
                                .for_each(|e, (_, y)| assert_eq!(w.b.get(e), Some(y)));
                        }
                        _ => {
                            let mut j = join((&w.b, &w.c, &w.a));
                            for &e in made {
                                let want = want3(w.b.get(e), w.c.get(e), w.a.get(e));
                                assert_eq!(
                                    j.get(e).map(|(x, y, z)| (x.0, y.0, z.0)),
                                    want.map(|(x, y, z)| (x.0, y.0, z.0))
                                );
                            }
                        }
                    }
                }
            });
        }
    });
}
