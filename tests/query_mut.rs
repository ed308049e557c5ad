//! `world.query_mut::<Q>()` for every element kind (`&C`, `&mut C`,
//! `Option<&C>`, `Option<&mut C>`, `With<C>`, `Without<C>`), alone and in
//! tuples of up to 8, run every way a `Join` can be run (`for_each`, `for`
//! loops, `Join::get`, `Join::count`,
//! `World::get_many`), each checked against a brute force over
//! `world.entities()` with `get`: the visited set, the items, and the values
//! written. Also: the driver is the smallest required storage, `join` over
//! borrowed fields (disjoint from other borrowed fields), read-only
//! `world.query` with options, filters and nested tuples, and stale handles.

use std::collections::BTreeMap;

use typed_ecs::prelude::*;
use typed_ecs::{join, Maybe};

#[path = "support/rng.rs"]
mod rng;

use rng::Rng;

/// What every component of this file is: a `u32` with a kind number.
trait Value {
    const K: usize;
    fn new(v: u32) -> Self;
    fn get(&self) -> u32;
    fn set(&mut self, v: u32);
}

macro_rules! components {
    ($($name:ident = $k:expr),+ $(,)?) => {
        $(
            #[derive(Debug, Clone, Copy, PartialEq)]
            struct $name(u32);

            impl Value for $name {
                const K: usize = $k;
                fn new(v: u32) -> Self {
                    $name(v)
                }
                fn get(&self) -> u32 {
                    self.0
                }
                fn set(&mut self, v: u32) {
                    self.0 = v;
                }
            }
        )+
    };
}

components!(A = 0, B = 1, C = 2, D = 3, E = 4, F = 5, G = 6, H = 7);

world! {
    struct Many<A, B, C, D, E, F, G, H>;
}

/// What a write through `&mut C` does to a value.
const WRITE: u32 = 1000;

// ---------------------------------------------------------------------------
// Observing items
// ---------------------------------------------------------------------------

/// One observed item of a query result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Obs {
    /// `&C` or `&mut C`: kind and value (before the write).
    Val(usize, u32),
    /// `Option<&C>` or `Option<&mut C>`.
    Opt(usize, Option<u32>),
    /// `With` / `Without`.
    Unit,
}

/// Turns a query item into observations, writing through every `&mut`.
trait Observe {
    fn observe(self, out: &mut Vec<Obs>);
}

impl<T: Value> Observe for &T {
    fn observe(self, out: &mut Vec<Obs>) {
        out.push(Obs::Val(T::K, self.get()));
    }
}

impl<T: Value> Observe for &mut T {
    fn observe(self, out: &mut Vec<Obs>) {
        out.push(Obs::Val(T::K, self.get()));
        self.set(self.get() + WRITE);
    }
}

impl<T: Value> Observe for Option<&T> {
    fn observe(self, out: &mut Vec<Obs>) {
        out.push(Obs::Opt(T::K, self.map(T::get)));
    }
}

impl<T: Value> Observe for Option<&mut T> {
    fn observe(self, out: &mut Vec<Obs>) {
        out.push(Obs::Opt(T::K, self.as_deref().map(T::get)));
        if let Some(value) = self {
            value.set(value.get() + WRITE);
        }
    }
}

impl Observe for () {
    fn observe(self, out: &mut Vec<Obs>) {
        out.push(Obs::Unit);
    }
}

macro_rules! observe_tuples {
    ($(($($t:ident),+))+) => {$(
        impl<$($t: Observe),+> Observe for ($($t,)+) {
            #[allow(non_snake_case)]
            fn observe(self, out: &mut Vec<Obs>) {
                let ($($t,)+) = self;
                $($t.observe(out);)+
            }
        }
    )+};
}

observe_tuples! {
    (Q0)
    (Q0, Q1)
    (Q0, Q1, Q2)
    (Q0, Q1, Q2, Q3)
    (Q0, Q1, Q2, Q3, Q4)
    (Q0, Q1, Q2, Q3, Q4, Q5)
    (Q0, Q1, Q2, Q3, Q4, Q5, Q6)
    (Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7)
    (Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8)
    (Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9)
    (Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10)
    (Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11)
}

fn observe(items: impl Observe) -> Vec<Obs> {
    let mut out = Vec::new();
    items.observe(&mut out);
    out
}

// ---------------------------------------------------------------------------
// The brute force
// ---------------------------------------------------------------------------

/// A query element, as data.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Ref,
    Mut,
    Opt,
    OptMut,
    With,
    Without,
}

/// `(kind, component number)` of a query element written as tokens.
macro_rules! spec {
    (&mut $t:ident) => {
        (Kind::Mut, <$t as Value>::K)
    };
    (& $t:ident) => {
        (Kind::Ref, <$t as Value>::K)
    };
    (Option<&mut $t:ident>) => {
        (Kind::OptMut, <$t as Value>::K)
    };
    (Option<& $t:ident>) => {
        (Kind::Opt, <$t as Value>::K)
    };
    (With<$t:ident>) => {
        (Kind::With, <$t as Value>::K)
    };
    (Without<$t:ident>) => {
        (Kind::Without, <$t as Value>::K)
    };
}

type Row = [Option<u32>; 8];
type Snapshot = BTreeMap<Entity, Row>;

fn row(world: &Many, e: Entity) -> Row {
    [
        world.get::<A>(e).map(A::get),
        world.get::<B>(e).map(B::get),
        world.get::<C>(e).map(C::get),
        world.get::<D>(e).map(D::get),
        world.get::<E>(e).map(E::get),
        world.get::<F>(e).map(F::get),
        world.get::<G>(e).map(G::get),
        world.get::<H>(e).map(H::get),
    ]
}

/// Every live entity's components, through `entities()` and `get`.
fn snapshot(world: &Many) -> Snapshot {
    world.entities().map(|e| (e, row(world, e))).collect()
}

/// What the query described by `spec` must yield on `snap`.
fn expected(snap: &Snapshot, spec: &[(Kind, usize)]) -> BTreeMap<Entity, Vec<Obs>> {
    let mut out = BTreeMap::new();
    'entities: for (&e, row) in snap {
        let mut obs = Vec::new();
        for &(kind, k) in spec {
            match kind {
                Kind::Ref | Kind::Mut => match row[k] {
                    Some(v) => obs.push(Obs::Val(k, v)),
                    None => continue 'entities,
                },
                Kind::Opt | Kind::OptMut => obs.push(Obs::Opt(k, row[k])),
                Kind::With if row[k].is_some() => obs.push(Obs::Unit),
                Kind::Without if row[k].is_none() => obs.push(Obs::Unit),
                Kind::With | Kind::Without => continue 'entities,
            }
        }
        out.insert(e, obs);
    }
    out
}

/// `snap` after the query described by `spec` wrote through every `&mut`
/// of every entity in `matched`.
fn written(
    mut snap: Snapshot,
    spec: &[(Kind, usize)],
    matched: &BTreeMap<Entity, Vec<Obs>>,
) -> Snapshot {
    for e in matched.keys() {
        let row = snap.get_mut(e).unwrap();
        for &(kind, k) in spec {
            if matches!(kind, Kind::Mut | Kind::OptMut) {
                if let Some(v) = &mut row[k] {
                    *v += WRITE;
                }
            }
        }
    }
    snap
}

type Sink<'s> = dyn FnMut(Entity, Vec<Obs>) + 's;
type Runner<'r> = Box<dyn FnMut(&mut Many, &mut Sink<'_>) + 'r>;

/// Names a way of running a query, fixing the closure's signature.
fn runner<'r>(
    name: &'static str,
    f: impl FnMut(&mut Many, &mut Sink<'_>) + 'r,
) -> (&'static str, Runner<'r>) {
    (name, Box::new(f))
}

/// Runs every runner in turn, each against the brute force on the world as
/// the previous runner left it; checks `count` too. Returns the number of
/// results (the same every time: writes never change membership).
fn run_case(
    world: &mut Many,
    label: &str,
    spec: &[(Kind, usize)],
    count: impl Fn(&mut Many) -> usize,
    runners: Vec<(&'static str, Runner<'_>)>,
) -> usize {
    let before = snapshot(world);
    let results = expected(&before, spec).len();
    assert!(results > 0, "{label}: the population gives no results");
    for (name, mut run) in runners {
        let snap = snapshot(world);
        let want = expected(&snap, spec);
        let mut got = BTreeMap::new();
        run(world, &mut |e, obs| {
            assert!(
                got.insert(e, obs).is_none(),
                "{label} via {name}: {e:?} visited twice"
            );
        });
        assert_eq!(got, want, "{label} via {name}: results");
        assert_eq!(
            snapshot(world),
            written(snap, spec, &want),
            "{label} via {name}: values after the writes"
        );
    }
    assert_eq!(count(world), results, "{label}: Join::count");
    // `count` wrote nothing.
    assert_eq!(expected(&snapshot(world), spec).len(), results, "{label}");
    results
}

/// Every way to run the query `$q` (a `for` loop over `query_mut` runs
/// every shape), plus the runner named by the flag `ro` (`world.query`).
macro_rules! case_impl {
    ($w:expr, $issued:expr, $label:expr, $spec:expr, $q:ty $(, $flag:ident)*) => {{
        let issued: &[Entity] = $issued;
        let runners = vec![
            runner("for_each", |w, sink| {
                w.query_mut::<$q>()
                    .for_each(|e, items| sink(e, observe(items)));
            }),
            runner("Join::get", move |w, sink| {
                let mut join = w.query_mut::<$q>();
                for &e in issued {
                    if let Some(items) = join.get(e) {
                        sink(e, observe(items));
                    }
                }
            }),
            runner("get_many", move |w, sink| {
                for &e in issued {
                    if let Some(items) = w.get_many::<$q>(e) {
                        sink(e, observe(items));
                    }
                }
            }),
            runner("for loop", |w, sink| {
                for (e, items) in w.query_mut::<$q>() {
                    sink(e, observe(items));
                }
            }),
            $(flag_runner!($flag, $q),)*
        ];
        run_case(
            $w,
            $label,
            &$spec,
            |w: &mut Many| w.query_mut::<$q>().count(),
            runners,
        )
    }};
}

macro_rules! flag_runner {
    (ro, $q:ty) => {
        runner("world.query", |w, sink| {
            for (e, items) in w.query::<$q>() {
                sink(e, observe(items));
            }
        })
    };
}

/// `case!(world, issued; [elem] [elem] …; flags)` checks the tuple query of
/// those elements; `case!(world, issued; single [elem]; flags)` checks the
/// element as a query on its own (not a 1-tuple).
macro_rules! case {
    ($w:expr, $issued:expr; single [$($t:tt)+] $(; $($flag:ident)+)?) => {
        case_impl!(
            $w,
            $issued,
            stringify!($($t)+),
            [spec!($($t)+)],
            $($t)+
            $($(, $flag)+)?
        )
    };
    ($w:expr, $issued:expr; $([$($t:tt)+])+ $(; $($flag:ident)+)?) => {
        case_impl!(
            $w,
            $issued,
            stringify!(($($($t)+),+)),
            [$(spec!($($t)+)),+],
            ($($($t)+,)+)
            $($(, $flag)+)?
        )
    };
}

// ---------------------------------------------------------------------------
// The population
// ---------------------------------------------------------------------------

/// How often each component is on an entity: every storage a different size,
/// `H` tiny.
const PERCENT: [u64; 8] = [80, 60, 50, 40, 30, 70, 20, 4];

fn maybe_add<T: Value>(world: &mut Many, rng: &mut Rng, e: Entity)
where
    Many: Contains<T>,
{
    if rng.chance(PERCENT[T::K]) {
        world.add(e, T::new(e.index() * 10 + T::K as u32));
    }
}

/// Takes `T` off `e`, if it has one, `percent` times in 100.
fn maybe_remove<T: Value>(world: &mut Many, rng: &mut Rng, e: Entity, percent: u64)
where
    Many: Contains<T>,
{
    if rng.chance(percent) {
        world.remove::<T>(e);
    }
}

/// Takes `T` off `e` and puts it back (at the end of its storage), if it
/// has one, `percent` times in 100.
fn maybe_put_back<T: Value>(world: &mut Many, rng: &mut Rng, e: Entity, percent: u64)
where
    Many: Contains<T>,
{
    if rng.chance(percent) {
        if let Some(value) = world.remove::<T>(e) {
            world.add(e, value);
        }
    }
}

fn dress(world: &mut Many, rng: &mut Rng, e: Entity) {
    maybe_add::<A>(world, rng, e);
    maybe_add::<B>(world, rng, e);
    maybe_add::<C>(world, rng, e);
    maybe_add::<D>(world, rng, e);
    maybe_add::<E>(world, rng, e);
    maybe_add::<F>(world, rng, e);
    maybe_add::<G>(world, rng, e);
    maybe_add::<H>(world, rng, e);
}

/// A world that went through despawns, index reuse and removals, and every
/// handle it ever issued plus some forged and reserved ones.
fn populated(seed: u64) -> (Many, Vec<Entity>) {
    let mut rng = Rng::new(seed);
    let mut world = Many::new();
    let mut issued = Vec::new();
    for _ in 0..500 {
        let e = world.spawn();
        dress(&mut world, &mut rng, e);
        issued.push(e);
    }
    // Despawn about a third, then reuse their indices.
    for &e in &issued.clone() {
        if rng.chance(33) {
            assert!(world.despawn(e));
        }
    }
    for _ in 0..150 {
        let e = world.spawn();
        dress(&mut world, &mut rng, e);
        issued.push(e);
    }
    // Some removals on the survivors.
    for &e in &issued.clone() {
        if world.is_alive(e) && rng.chance(10) {
            world.remove::<A>(e);
        }
        if world.is_alive(e) && rng.chance(10) {
            world.remove::<B>(e);
        }
    }
    let reused = issued
        .iter()
        .filter(|e| e.generation() > 1 && world.is_alive(**e))
        .count();
    assert!(reused > 50, "the population reuses indices");
    // Handles that never were: out of range, a generation not reached, and
    // a reserved handle of a command buffer.
    issued.push(Entity::from_bits(100_000 | (1 << 32)).unwrap());
    issued.push(Entity::from_bits(3 | (77 << 32)).unwrap());
    issued.push(Commands::<Many>::new().spawn());
    (world, issued)
}

/// A world whose storages mostly line up (list the same entities in the
/// same slots), as a game's do when it spawns entities with one bundle,
/// so that a driven walk takes long runs as rows; then changes that put
/// some slots out of line: a component taken off and put back (it goes to
/// the end), removals, despawns with index reuse, and a rare `H`.
fn lined_up(seed: u64) -> (Many, Vec<Entity>) {
    fn bundle(i: u32) -> (A, B, C, D, E, F, G) {
        let v = |k: u32| i * 10 + k;
        (
            A(v(0)),
            B(v(1)),
            C(v(2)),
            D(v(3)),
            E(v(4)),
            F(v(5)),
            G(v(6)),
        )
    }
    let mut rng = Rng::new(seed);
    let mut world = Many::new();
    let mut issued: Vec<Entity> = (0..1300).map(|i| world.spawn_with(bundle(i))).collect();
    for &e in &issued {
        let (w, rng) = (&mut world, &mut rng);
        maybe_put_back::<A>(w, rng, e, 1);
        maybe_put_back::<B>(w, rng, e, 1);
        // Every component off some entities, so `Without` finds some.
        maybe_remove::<A>(w, rng, e, 1);
        maybe_remove::<B>(w, rng, e, 2);
        maybe_remove::<C>(w, rng, e, 3);
        maybe_remove::<D>(w, rng, e, 3);
        maybe_remove::<E>(w, rng, e, 2);
        maybe_remove::<F>(w, rng, e, 2);
        maybe_remove::<G>(w, rng, e, 2);
        if rng.chance(5) {
            world.add(e, H(e.index() * 10 + 7));
        }
        if rng.chance(1) {
            world.despawn(e);
        }
    }
    issued.extend((2000..2040).map(|i| world.spawn_with(bundle(i))));
    (world, issued)
}

// ---------------------------------------------------------------------------
// Every shape
// ---------------------------------------------------------------------------

#[test]
fn single_elements() {
    let (mut world, issued) = populated(1);
    let w = &mut world;
    let i = &issued[..];
    case!(w, i; single [&A]; ro);
    case!(w, i; single [&H]; ro);
    case!(w, i; single [&mut A]);
    case!(w, i; single [&mut H]);
    case!(w, i; single [With<B>]; ro);
    case!(w, i; single [With<H>]; ro);
    // One-element tuples.
    case!(w, i; [&mut C]);
    case!(w, i; [&C]; ro);
    case!(w, i; [With<C>]; ro);
}

#[test]
fn pairs() {
    for (mut world, issued) in [populated(2), lined_up(2)] {
        pairs_in(&mut world, &issued);
    }
}

fn pairs_in(w: &mut Many, i: &[Entity]) {
    case!(w, i; [&mut A] [&B]);
    case!(w, i; [&B] [&mut A]);
    case!(w, i; [&mut A] [&mut B]);
    case!(w, i; [&mut A] [Option<&B>]);
    case!(w, i; [&mut A] [Option<&mut B>]);
    case!(w, i; [Option<&mut A>] [&mut B]);
    case!(w, i; [Option<&mut A>] [&B]);
    case!(w, i; [Option<&A>] [&B]; ro);
    case!(w, i; [Option<&A>] [&mut B]);
    case!(w, i; [&mut A] [With<B>]);
    case!(w, i; [&mut A] [Without<B>]);
    case!(w, i; [With<A>] [&mut B]);
    case!(w, i; [Without<A>] [&mut B]);
    case!(w, i; [&A] [&B]; ro);
    case!(w, i; [&A] [With<H>]; ro);
    case!(w, i; [&mut A] [&H]);
    case!(w, i; [&mut H] [&A]);
    case!(w, i; [With<A>] [Without<B>]; ro);
    case!(w, i; [Without<H>] [&A]; ro);
    case!(w, i; [Option<&mut A>] [With<B>]);
    case!(w, i; [Without<C>] [Option<&mut D>] [With<A>]);
}

#[test]
fn triples_to_eights() {
    for (mut world, issued) in [populated(3), lined_up(3)] {
        triples_to_eights_in(&mut world, &issued);
    }
}

fn triples_to_eights_in(w: &mut Many, i: &[Entity]) {
    // 3
    case!(w, i; [&mut A] [&B] [Without<C>]);
    case!(w, i; [&mut A] [&mut B] [Option<&mut C>]);
    case!(w, i; [&A] [Option<&B>] [With<C>]; ro);
    case!(w, i; [With<F>] [&mut A] [Option<&C>]);
    // 4
    case!(w, i; [Option<&mut A>] [&mut B] [Without<C>] [&D]);
    case!(w, i; [&mut F] [&A] [Option<&G>] [Without<H>]);
    case!(w, i; [&A] [&B] [Option<&C>] [Without<D>]; ro);
    // 5
    case!(w, i; [&mut A] [&B] [Option<&C>] [With<D>] [Without<E>]);
    case!(w, i; [&mut A] [&mut B] [&mut F] [Option<&mut C>] [Option<&mut H>]);
    // 6
    case!(w, i; [&mut A] [&mut B] [&mut C] [Option<&mut D>] [Option<&E>] [Without<G>]);
    case!(w, i; [&mut F] [Option<&A>] [Option<&B>] [Option<&C>] [Without<D>] [Option<&H>]);
    // 7
    case!(w, i; [&mut A] [&B] [Option<&C>] [With<F>] [Without<G>] [Option<&D>] [Option<&E>]);
    case!(w, i; [Option<&mut A>] [Option<&mut B>] [Option<&mut C>] [Option<&mut D>] [Option<&mut E>] [Option<&mut G>] [&mut F]);
    // 8
    case!(w, i; [&mut A] [&B] [Option<&C>] [Option<&D>] [Without<E>] [&F] [Option<&G>] [Option<&H>]);
    case!(w, i; [&mut A] [&mut B] [Option<&mut C>] [Option<&mut D>] [Option<&mut E>] [&mut F] [Option<&mut G>] [Without<H>]);
    case!(w, i; [&A] [&B] [Option<&C>] [Option<&D>] [Without<E>] [With<F>] [Option<&G>] [Option<&H>]; ro);
    case!(w, i; [Option<&mut A>] [With<B>] [&mut C] [Without<D>] [Option<&E>] [&F] [Option<&mut G>] [Without<H>]);
    case!(w, i; [Option<&H>] [Option<&G>] [Without<F>] [Option<&mut E>] [&mut D] [Option<&C>] [Option<&B>] [Option<&mut A>]);
}

/// The same shapes keep agreeing as the world changes under them: after
/// despawns, index reuse and a clear, no stale entity comes back.
#[test]
fn shapes_after_churn_and_clear() {
    let (mut world, mut issued) = populated(4);
    let mut rng = Rng::new(44);
    for round in 0..3 {
        let live: Vec<Entity> = world.entities().collect();
        for e in live {
            if rng.chance(40) {
                world.despawn(e);
            }
        }
        if round == 1 {
            world.clear();
        }
        for _ in 0..200 {
            let e = world.spawn();
            dress(&mut world, &mut rng, e);
            issued.push(e);
        }
        let w = &mut world;
        let i = &issued[..];
        case!(w, i; [&mut A] [&B] [Without<C>]);
        case!(w, i; [Option<&mut A>] [&mut B] [With<F>]);
        case!(w, i; [&A] [Option<&B>] [Without<H>]; ro);
        case!(w, i; single [&mut F]);
        world.assert_invariants();
    }
}

// ---------------------------------------------------------------------------
// The driver
// ---------------------------------------------------------------------------

/// A world with 2,000 `A`s and 10 `H`s, the `H`s added in the reverse of the
/// `A` order so the two dense orders differ.
fn lopsided() -> (Many, Vec<Entity>) {
    let mut world = Many::new();
    let all: Vec<Entity> = (0..2000).map(|i| world.spawn_with((A(i), B(i)))).collect();
    let rare: Vec<Entity> = all.iter().copied().step_by(200).collect();
    for &e in rare.iter().rev() {
        world.add(e, H(e.index()));
    }
    // One `H` without an `A`, so a join on both filters something out.
    let lone = world.spawn_with((H(9999),));
    let mut rare = rare;
    rare.push(lone);
    (world, rare)
}

#[test]
fn for_each_and_for_loops_are_driven_by_the_smallest_required_storage() {
    let (mut world, rare) = lopsided();
    let h_order: Vec<Entity> = world
        .h
        .entities()
        .iter()
        .copied()
        .filter(|&e| world.has::<A>(e))
        .collect();
    let a_order: Vec<Entity> = world
        .a
        .entities()
        .iter()
        .copied()
        .filter(|&e| world.has::<H>(e))
        .collect();
    assert_eq!(h_order.len(), 10);
    assert_ne!(h_order, a_order, "the test needs two different orders");

    // for_each follows H's dense order whether H is first or second, read or
    // written, required as a component or as a filter.
    let mut seen = Vec::new();
    world
        .query_mut::<(&mut A, &H)>()
        .for_each(|e, _| seen.push(e));
    assert_eq!(seen, h_order);
    seen.clear();
    world
        .query_mut::<(&mut H, &mut A)>()
        .for_each(|e, _| seen.push(e));
    assert_eq!(seen, h_order);
    seen.clear();
    world
        .query_mut::<(&mut A, With<H>, &B)>()
        .for_each(|e, _| seen.push(e));
    assert_eq!(seen, h_order);
    seen.clear();
    world
        .query_mut::<(Option<&mut B>, &mut A, &H)>()
        .for_each(|e, _| seen.push(e));
    assert_eq!(seen, h_order);

    // So does a `for` loop, whichever storage it writes, and however many.
    let looped: Vec<Entity> = world
        .query_mut::<(&mut A, &H)>()
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(looped, h_order);
    let looped: Vec<Entity> = world
        .query_mut::<(&H, &mut A)>()
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(looped, h_order);
    let looped: Vec<Entity> = world
        .query_mut::<(&mut A, With<H>, &mut B)>()
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(looped, h_order);
    let looped: Vec<Entity> = world
        .query_mut::<(&A, &H)>()
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(looped, h_order);

    // `Option` and `Without` never drive: A's order again.
    seen.clear();
    world
        .query_mut::<(&mut A, Option<&H>)>()
        .for_each(|e, _| seen.push(e));
    assert_eq!(seen, world.a.entities());
    seen.clear();
    world
        .query_mut::<(Without<H>, &mut A)>()
        .for_each(|e, _| seen.push(e));
    let without: Vec<Entity> = world
        .a
        .entities()
        .iter()
        .copied()
        .filter(|e| !rare.contains(e))
        .collect();
    assert_eq!(seen, without);
}

// ---------------------------------------------------------------------------
// get_many
// ---------------------------------------------------------------------------

#[test]
fn get_many() {
    let mut world = Many::new();
    let full = world.spawn_with((A(1), B(2), C(3)));
    let no_c = world.spawn_with((A(10), B(20)));
    let only_a = world.spawn_with((A(100),));
    let only_b = world.spawn_with((B(200), C(300)));

    {
        let (a, b, c) = world
            .get_many::<(&mut A, &B, Option<&C>)>(full)
            .expect("full matches");
        assert_eq!((b.0, c.map(|c| c.0)), (2, Some(3)));
        a.0 += b.0 + c.unwrap().0;
    }
    assert_eq!(world.get::<A>(full), Some(&A(6)));
    {
        let (a, b, c) = world
            .get_many::<(&mut A, &B, Option<&C>)>(no_c)
            .expect("C is optional");
        assert_eq!((a.0, b.0, c), (10, 20, None));
        a.0 = 11;
    }
    assert_eq!(world.get::<A>(no_c), Some(&A(11)));
    assert!(world.get_many::<(&mut A, &B, Option<&C>)>(only_a).is_none());
    assert!(world.get_many::<(&mut A, &B, Option<&C>)>(only_b).is_none());

    // Two mutable at once, and an optional mutable.
    {
        let (b, c) = world.get_many::<(&mut B, Option<&mut C>)>(full).unwrap();
        std::mem::swap(&mut b.0, &mut c.unwrap().0);
    }
    assert_eq!(
        (world.get::<B>(full), world.get::<C>(full)),
        (Some(&B(3)), Some(&C(2)))
    );
    {
        let (c, b) = world.get_many::<(Option<&mut C>, &mut B)>(no_c).unwrap();
        assert!(c.is_none());
        b.0 = 21;
    }
    assert_eq!(world.get::<B>(no_c), Some(&B(21)));

    // Filters.
    assert!(world
        .get_many::<(&mut A, With<B>, Without<C>)>(no_c)
        .is_some());
    assert!(world
        .get_many::<(&mut A, With<B>, Without<C>)>(full)
        .is_none());
    assert!(world
        .get_many::<(&mut A, With<B>, Without<C>)>(only_a)
        .is_none());
    assert!(world.get_many::<(Without<A>, &mut B)>(only_b).is_some());
    assert!(world.get_many::<(Without<A>, &mut B)>(full).is_none());
    assert_eq!(world.get_many::<With<A>>(only_a), Some(()));
    assert_eq!(world.get_many::<With<A>>(only_b), None);
    {
        let (a, ()) = world.get_many::<(&mut A, Without<B>)>(only_a).unwrap();
        a.0 += 1;
    }
    assert_eq!(world.get::<A>(only_a), Some(&A(101)));
    // Single elements.
    *world.get_many::<&mut A>(only_a).unwrap() = A(7);
    assert_eq!(world.get_many::<&A>(only_a), Some(&A(7)));
    assert!(world.get_many::<&mut A>(only_b).is_none());

    // Dead and stale handles: the index is reused by an entity that has
    // everything, and still the old handle finds nothing.
    assert!(world.despawn(full));
    assert!(world.get_many::<(&mut A, &B, Option<&C>)>(full).is_none());
    let reuse = world.spawn_with((A(5), B(5), C(5)));
    assert_eq!(reuse.index(), full.index());
    assert!(world.get_many::<(&mut A, &B, Option<&C>)>(full).is_none());
    assert!(world.get_many::<&mut A>(full).is_none());
    assert!(world.get_many::<(With<A>, &C)>(full).is_none());
    let (a, b, c) = world.get_many::<(&mut A, &B, Option<&C>)>(reuse).unwrap();
    assert_eq!((a.0, b.0, c.map(|c| c.0)), (5, 5, Some(5)));

    // Handles that never were.
    let reserved = Commands::<Many>::new().spawn();
    assert!(world
        .get_many::<(&mut A, &B, Option<&C>)>(reserved)
        .is_none());
    let forged = Entity::from_bits(1_000_000 | (1 << 32)).unwrap();
    assert!(world.get_many::<(&mut A, Option<&C>)>(forged).is_none());
    let future = Entity::from_bits(u64::from(reuse.index()) | (9 << 32)).unwrap();
    assert!(world.get_many::<(&mut A, Option<&C>)>(future).is_none());

    // remove then get_many: missing required.
    world.remove::<B>(reuse);
    assert!(world.get_many::<(&mut A, &B, Option<&C>)>(reuse).is_none());
    assert!(world.get_many::<(&mut A, Option<&B>, &C)>(reuse).is_some());
}

// ---------------------------------------------------------------------------
// join over borrowed fields
// ---------------------------------------------------------------------------

#[test]
fn join_over_borrowed_fields_with_other_fields_borrowed_mutably() {
    let (mut world, _) = populated(5);
    let before = snapshot(&world);
    // A "log" entity in G's storage, borrowed mutably for the whole join.
    let logger = world.spawn_with((G(0),));

    let log = world.g.get_mut(logger).unwrap();
    let h_storage = &mut world.h; // another field, borrowed mutably too
    let mut visited = BTreeMap::new();
    join((
        &mut world.a,
        Maybe(&world.b),
        Maybe(&mut world.c),
        With(&world.d),
        Without(&world.e),
    ))
    .for_each(|e, (a, b, c, (), ())| {
        visited.insert(e, (a.0, b.map(|b| b.0), c.as_deref().map(|c| c.0)));
        a.0 += 1;
        if let Some(c) = c {
            c.0 += b.map_or(7, |b| b.0);
        }
        log.0 += 1;
    });
    for h in h_storage.values_mut() {
        h.0 += 3;
    }

    // Brute force.
    let mut expected = BTreeMap::new();
    let mut after = before.clone();
    for (&e, row) in &before {
        if row[0].is_some() && row[3].is_some() && row[4].is_none() {
            expected.insert(e, (row[0].unwrap(), row[1], row[2]));
            let new = after.get_mut(&e).unwrap();
            new[0] = Some(row[0].unwrap() + 1);
            if let Some(c) = row[2] {
                new[2] = Some(c + row[1].unwrap_or(7));
            }
        }
        if let Some(h) = row[7] {
            after.get_mut(&e).unwrap()[7] = Some(h + 3);
        }
    }
    assert!(expected.len() > 20);
    assert!(expected
        .values()
        .any(|&(_, b, c)| b.is_some() && c.is_some()));
    assert!(expected
        .values()
        .any(|&(_, b, c)| b.is_none() && c.is_some()));
    assert!(expected.values().any(|&(_, _, c)| c.is_none()));
    assert_eq!(visited, expected);
    assert_eq!(world.get::<G>(logger), Some(&G(expected.len() as u32)));
    assert!(world.despawn(logger));
    assert_eq!(snapshot(&world), after);

    // `for` loops over joins: `&mut` first with read-only rest, and fully
    // read-only, while another field is borrowed mutably.
    let before = snapshot(&world);
    let f_storage = &mut world.f;
    let mut looped = 0;
    for (e, (b, (), d)) in join((&mut world.b, Without(&world.a), Maybe(&world.d))) {
        assert!(before[&e][0].is_none() && before[&e][1] == Some(b.0));
        assert_eq!(d.map(|d| d.0), before[&e][3]);
        b.0 += 100;
        looped += 1;
    }
    f_storage.values_mut().iter_mut().for_each(|f| f.0 = 0);
    let expected_loop = before
        .values()
        .filter(|row| row[0].is_none() && row[1].is_some())
        .count();
    assert!(expected_loop > 5);
    assert_eq!(looped, expected_loop);

    let g_storage = &mut world.g;
    let read: BTreeMap<Entity, (u32, Option<u32>)> =
        join((&world.a, Maybe(&world.b), With(&world.c)))
            .into_iter()
            .map(|(e, (a, b, ()))| (e, (a.0, b.map(|b| b.0))))
            .collect();
    g_storage.values_mut().iter_mut().for_each(|g| g.0 = 1);
    let now = snapshot(&world);
    let expected_read: BTreeMap<Entity, (u32, Option<u32>)> = now
        .iter()
        .filter(|(_, row)| row[0].is_some() && row[2].is_some())
        .map(|(&e, row)| (e, (row[0].unwrap(), row[1])))
        .collect();
    assert_eq!(read, expected_read);
    for (&e, row) in &now {
        let old = before[&e];
        let b_bumped = old[0].is_none() && old[1].is_some();
        assert_eq!(row[1], old[1].map(|b| if b_bumped { b + 100 } else { b }));
        assert_eq!(row[5], old[5].map(|_| 0));
        assert_eq!(row[6], old[6].map(|_| 1));
    }

    // A single `&mut` storage as a join, as a loop.
    for (_, h) in join(&mut world.h) {
        h.0 = 42;
    }
    assert!(world.h.values().iter().all(|h| h.0 == 42));
    // Join::get on a borrowed-fields join.
    let some = *world.a.entities().first().unwrap();
    let mut j = join((&mut world.a, Maybe(&world.b)));
    let (a, _) = j.get(some).unwrap();
    a.0 = 99;
    assert_eq!(world.get::<A>(some), Some(&A(99)));
}

// ---------------------------------------------------------------------------
// Read-only query with options, filters and nested tuples
// ---------------------------------------------------------------------------

#[test]
fn read_only_query_options_filters_and_nesting() {
    let (world, _) = populated(6);
    let snap = snapshot(&world);

    let got: BTreeMap<Entity, (u32, Option<u32>)> = world
        .query::<(&A, Option<&B>)>()
        .map(|(e, (a, b))| (e, (a.0, b.map(|b| b.0))))
        .collect();
    let want: BTreeMap<Entity, (u32, Option<u32>)> = snap
        .iter()
        .filter(|(_, r)| r[0].is_some())
        .map(|(&e, r)| (e, (r[0].unwrap(), r[1])))
        .collect();
    assert!(want.values().any(|v| v.1.is_none()) && want.values().any(|v| v.1.is_some()));
    assert_eq!(got, want);

    let got: Vec<Entity> = world
        .query::<(With<C>, Without<D>)>()
        .map(|(e, ((), ()))| e)
        .collect();
    let mut got_sorted = got.clone();
    got_sorted.sort();
    let want: Vec<Entity> = snap
        .iter()
        .filter(|(_, r)| r[2].is_some() && r[3].is_none())
        .map(|(&e, _)| e)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got_sorted, want);

    // Nested tuples, 12 elements in all.
    type Nested<'w> = (
        (&'w A, Option<&'w B>),
        (With<C>, (Without<D>, Option<&'w E>)),
        &'w F,
        (Option<&'w G>, Option<&'w H>),
    );
    let got: BTreeMap<Entity, Vec<Obs>> = world
        .query::<Nested<'_>>()
        .map(|(e, items)| (e, observe(items)))
        .collect();
    let flat = [
        (Kind::Ref, 0),
        (Kind::Opt, 1),
        (Kind::With, 2),
        (Kind::Without, 3),
        (Kind::Opt, 4),
        (Kind::Ref, 5),
        (Kind::Opt, 6),
        (Kind::Opt, 7),
    ];
    let want = expected(&snap, &flat);
    assert!(want.len() > 5);
    assert_eq!(got, want);

    // Twelve elements flat.
    let got = world
        .query::<(
            &A,
            Option<&B>,
            Option<&C>,
            Option<&D>,
            Option<&E>,
            Option<&F>,
            Option<&G>,
            Option<&H>,
            Without<H>,
            With<A>,
            Option<&A>,
            Option<&B>,
        )>()
        .count();
    let want = snap
        .values()
        .filter(|r| r[0].is_some() && r[7].is_none())
        .count();
    assert_eq!(got, want);

    // Driver: the smallest required storage's dense order.
    let order: Vec<Entity> = world.query::<(&A, With<H>)>().map(|(e, _)| e).collect();
    let want: Vec<Entity> = world
        .h
        .entities()
        .iter()
        .copied()
        .filter(|&e| world.has::<A>(e))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(order, want);
}

// ---------------------------------------------------------------------------
// Stale handles
// ---------------------------------------------------------------------------

#[test]
fn despawned_and_reused_entities_are_never_yielded_stale() {
    let mut world = Many::new();
    let old = world.spawn_with((A(1), B(1)));
    let keep = world.spawn_with((A(2), B(2)));
    assert!(world.despawn(old));
    let new = world.spawn_with((A(3),)); // same index, no B
    assert_eq!(new.index(), old.index());
    assert_ne!(new, old);

    let mut seen = Vec::new();
    world.query_mut::<(&mut A, &B)>().for_each(|e, (a, _)| {
        a.0 += 10;
        seen.push(e);
    });
    assert_eq!(seen, [keep]);
    assert_eq!(world.get::<A>(new), Some(&A(3)));
    let all: Vec<(Entity, u32)> = world
        .query_mut::<&mut A>()
        .into_iter()
        .map(|(e, a)| (e, a.0))
        .collect();
    assert_eq!(all.tap_sort(), vec![(new, 3), (keep, 12)].tap_sort());
    {
        let mut j = world.query_mut::<(&mut A, Option<&B>)>();
        assert!(j.get(old).is_none());
        assert!(j.get(new).is_some());
    }
    assert!(world.get_many::<&mut A>(old).is_none());
    let mut seen = Vec::new();
    world
        .query_mut::<(Option<&mut B>, &A)>()
        .for_each(|e, _| seen.push(e));
    seen.sort();
    assert_eq!(seen, [new, keep].to_vec().tap_sort());

    // Despawn every entity, respawn as many with the same indices; the old
    // handles never show up and the new ones all do.
    let olds: Vec<Entity> = world.entities().collect();
    for &e in &olds {
        world.despawn(e);
    }
    assert_eq!(world.query_mut::<&mut A>().count(), 0);
    let news: Vec<Entity> = (0..olds.len())
        .map(|i| world.spawn_with((A(i as u32), B(0))))
        .collect();
    let mut seen = Vec::new();
    world
        .query_mut::<(&mut A, &mut B)>()
        .for_each(|e, _| seen.push(e));
    seen.sort();
    assert_eq!(seen, news.clone().tap_sort());
    for e in olds {
        assert!(!seen.contains(&e));
        assert!(world.query_mut::<(&mut A, &B)>().get(e).is_none());
    }
}

/// `Vec::sort` as an expression.
trait TapSort {
    fn tap_sort(self) -> Self;
}

impl<T: Ord> TapSort for Vec<T> {
    fn tap_sort(mut self) -> Self {
        self.sort();
        self
    }
}
