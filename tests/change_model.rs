//! Change detection against a model: random operations (batch spawns and
//! despawns among them, and writes through queries whose other terms reject
//! some entities, `for` loops left early, `Mut` writes only when a value
//! differs) on a world with a tracked, grouped component, and
//! two observers looking at random times (the world's own view, cleared at
//! random, and a system in a schedule with its own `Seen`). The model
//! records the order of every event; each observer must report exactly the
//! entities whose changes (adds, removals) it has not seen yet, each once.
//! Every invariant must hold, and every value is dropped exactly once.
//!
//! `CHANGE_SEQUENCES` sets the number of sequences (default 300; CI runs
//! 10,000 in release).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use typed_ecs::prelude::*;
use typed_ecs::Seen;
use typed_ecs::Tracked;
use typed_ecs::{join, Added, Changed};

#[path = "support/observed.rs"]
mod observed;
#[path = "support/rng.rs"]
mod rng;

use observed::{as_set, sorted, Look};

use rng::Rng;

thread_local! {
    static LIVE: RefCell<i64> = const { RefCell::new(0) };
}

/// A value that counts itself: created +1, dropped -1.
#[derive(Debug, PartialEq)]
struct Pos(u64);

impl Pos {
    fn new(v: u64) -> Pos {
        LIVE.with(|l| *l.borrow_mut() += 1);
        Pos(v)
    }
}

impl Drop for Pos {
    fn drop(&mut self) {
        LIVE.with(|l| *l.borrow_mut() -= 1);
    }
}

#[derive(Debug, Clone, Copy)]
struct Vel(#[allow(dead_code)] u64);

world! {
    struct Game<Pos, Vel>;
    tracked (Pos);
    group (Pos, Vel);
}

/// What the model keeps: for each entity with `Pos`, the event numbers of
/// its add and latest change; every removal, with its event number.
#[derive(Default)]
struct Model {
    event: u64,
    pos: BTreeMap<Entity, (u64, u64)>,
    vel: BTreeSet<Entity>,
    removals: Vec<(u64, Entity)>,
    alive: Vec<Entity>,
    /// Entities despawned, for stale handles in a batch despawn.
    dead: Vec<Entity>,
}

impl Model {
    fn tick(&mut self) -> u64 {
        self.event += 1;
        self.event
    }
    fn added(&mut self, e: Entity) {
        let t = self.tick();
        self.pos.insert(e, (t, t));
    }
    fn changed(&mut self, e: Entity) {
        let t = self.tick();
        self.pos.get_mut(&e).expect("the model has it").1 = t;
    }
    fn removed(&mut self, e: Entity) {
        if self.pos.remove(&e).is_some() {
            let t = self.tick();
            self.removals.push((t, e));
        }
    }
    /// (changed, added, removed) after event `since`.
    fn since(&self, since: u64) -> (BTreeSet<Entity>, BTreeSet<Entity>, Vec<Entity>) {
        let changed = self
            .pos
            .iter()
            .filter(|(_, &(_, c))| c > since)
            .map(|(&e, _)| e);
        let added = self
            .pos
            .iter()
            .filter(|(_, &(a, _))| a > since)
            .map(|(&e, _)| e);
        let removed = self
            .removals
            .iter()
            .filter(|&&(t, _)| t > since)
            .map(|&(_, e)| e);
        (changed.collect(), added.collect(), removed.collect())
    }
}

fn run(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut world = Game::new();
    let mut model = Model::default();
    let looked = Rc::new(RefCell::new(Look::default()));
    let mut schedule = Schedule::<Game>::new();
    let out = Rc::clone(&looked);
    // Not `Send`: added as an exclusive-free single system is fine (a
    // schedule runs single systems on the calling thread).
    let observer = move |pos: &SparseMap<Pos, Tracked>, seen: &mut Seen<Pos>| {
        let mut out = out.borrow_mut();
        out.changed.clear();
        out.added.clear();
        join(seen.changed(pos)).for_each(|e, _| out.changed.push(e));
        join(seen.added(pos)).for_each(|e, _| out.added.push(e));
        out.removed = seen.removed(pos).to_vec();
    };
    schedule.add_system(observer);
    // The schedule runs once first: removals are kept for its systems from
    // its first run on (before, `clear_changes` alone trims them).
    schedule.run(&mut world);
    let mut world_since = 0; // the world's view: events after this
    let mut system_since = 0; // the system's: events after this
    let steps = 20 + rng.below(180);
    for _ in 0..steps {
        match rng.below(20) {
            0 | 1 => {
                let e = if rng.chance(50) {
                    world.spawn_with((Pos::new(1), Vel(1)))
                } else {
                    world.spawn_with((Pos::new(1),))
                };
                model.alive.push(e);
                model.added(e);
                if world.has::<Vel>(e) {
                    model.vel.insert(e);
                }
            }
            2 if !model.alive.is_empty() => {
                let e = model.alive[rng.index(model.alive.len())];
                if world.try_add(e, Pos::new(2)).is_ok() {
                    model.added(e);
                }
            }
            3 if !model.alive.is_empty() => {
                let e = model.alive[rng.index(model.alive.len())];
                let had = world.remove::<Pos>(e).is_some();
                assert_eq!(had, model.pos.contains_key(&e), "seed {seed}");
                model.removed(e);
            }
            4 if !model.alive.is_empty() => {
                let i = rng.index(model.alive.len());
                let e = model.alive.swap_remove(i);
                world.despawn(e);
                model.removed(e);
                model.vel.remove(&e);
                model.dead.push(e);
            }
            5 if !model.alive.is_empty() => {
                let e = model.alive[rng.index(model.alive.len())];
                if let Some(p) = world.get_mut::<Pos>(e) {
                    p.0 += 1;
                    model.changed(e);
                }
            }
            6 if !model.alive.is_empty() => {
                let e = model.alive[rng.index(model.alive.len())];
                let had = model.pos.contains_key(&e);
                world.insert(e, Pos::new(3));
                if had {
                    model.changed(e);
                } else {
                    model.added(e);
                }
            }
            7 => {
                // `&mut Pos` for every entity with both: the group's walk.
                world
                    .query_mut::<(&mut Pos, &Vel)>()
                    .for_each(|_, (p, _)| p.0 += 1);
                let both: Vec<Entity> = model
                    .pos
                    .keys()
                    .filter(|e| model.vel.contains(e))
                    .copied()
                    .collect();
                for e in both {
                    model.changed(e);
                }
            }
            8 => {
                for p in world.pos.values_mut() {
                    p.0 += 1;
                }
                let all: Vec<Entity> = model.pos.keys().copied().collect();
                for e in all {
                    model.changed(e);
                }
            }
            9 if !model.alive.is_empty() => {
                let e = model.alive[rng.index(model.alive.len())];
                if !model.pos.contains_key(&e) && world.try_add_deferred(e, Pos::new(4)).is_ok() {
                    world.finalize_updates();
                    model.added(e);
                }
            }
            10 => {
                world.clear_changes();
                world_since = model.event;
            }
            11 => {
                // The world's view, through each kind of query.
                let (changed, added, removed) = model.since(world_since);
                let got: Vec<Entity> = world.query::<Changed<&Pos>>().map(|(e, _)| e).collect();
                assert_eq!(
                    as_set(&got, "query Changed", seed),
                    changed,
                    "seed {seed}: query Changed"
                );
                let mut got = Vec::new();
                world
                    .query_mut::<Added<&Pos>>()
                    .for_each(|e, _| got.push(e));
                assert_eq!(
                    as_set(&got, "query_mut Added", seed),
                    added,
                    "seed {seed}: query_mut Added"
                );
                let mut got = Vec::new();
                join((Changed(&world.pos), &world.vel)).for_each(|e, _| got.push(e));
                let with_vel: BTreeSet<Entity> = changed
                    .iter()
                    .filter(|e| model.vel.contains(e))
                    .copied()
                    .collect();
                assert_eq!(
                    as_set(&got, "join Changed", seed),
                    with_vel,
                    "seed {seed}: join"
                );
                assert_eq!(
                    sorted(world.removed::<Pos>()),
                    sorted(&removed),
                    "seed {seed}: removed"
                );
            }
            12 => {
                // A schedule run: the world's view starts afresh, and the
                // system looks at what happened since its last run.
                let expected = model.since(system_since);
                schedule.run(&mut world);
                world_since = model.event;
                system_since = model.event;
                let got = looked.borrow();
                assert_eq!(
                    as_set(&got.changed, "Seen changed", seed),
                    expected.0,
                    "seed {seed}: Seen changed"
                );
                assert_eq!(
                    as_set(&got.added, "Seen added", seed),
                    expected.1,
                    "seed {seed}: Seen added"
                );
                assert_eq!(
                    sorted(&got.removed),
                    sorted(&expected.2),
                    "seed {seed}: Seen removed"
                );
            }
            13 if rng.chance(10) => {
                world.clear();
                let all: Vec<Entity> = model.pos.keys().copied().collect();
                for e in all {
                    model.removed(e);
                }
                model.alive.clear();
                model.vel.clear();
            }
            14 if !model.alive.is_empty() => {
                // A batch despawn: a few alive entities, one of them named
                // twice, and a stale handle if there is one.
                let mut batch: Vec<Entity> = (0..1 + rng.below(4))
                    .map(|_| model.alive[rng.index(model.alive.len())])
                    .collect();
                batch.push(batch[0]);
                if !model.dead.is_empty() {
                    let stale = model.dead[rng.index(model.dead.len())];
                    batch.insert(rng.index(batch.len()), stale);
                }
                let despawned = world.despawn_batch(batch.iter().copied());
                let mut expected = 0;
                for e in batch {
                    if let Some(i) = model.alive.iter().position(|&a| a == e) {
                        model.alive.swap_remove(i);
                        model.removed(e);
                        model.vel.remove(&e);
                        model.dead.push(e);
                        expected += 1;
                    }
                }
                assert_eq!(despawned, expected, "seed {seed}: despawn_batch's count");
            }
            15 => {
                // A batch spawn that keeps no handles: the new entities are
                // the alive ones the model does not know.
                let n = rng.below(5) as usize;
                let with_vel = rng.chance(50);
                if with_vel {
                    world.extend((0..n).map(|_| (Pos::new(1), Vel(1))));
                } else {
                    world.extend((0..n).map(|_| (Pos::new(1),)));
                }
                let known: BTreeSet<Entity> = model.alive.iter().copied().collect();
                let fresh: Vec<Entity> = world.entities().filter(|e| !known.contains(e)).collect();
                assert_eq!(fresh.len(), n, "seed {seed}: extend spawned {n}");
                for e in fresh {
                    model.alive.push(e);
                    model.added(e);
                    if with_vel {
                        model.vel.insert(e);
                    }
                }
            }
            16 => {
                // A written term another term rejects is not a change.
                let mut handed = Vec::new();
                world
                    .query_mut::<(&mut Pos, Without<Vel>)>()
                    .for_each(|e, (p, ())| {
                        p.0 += 1;
                        handed.push(e);
                    });
                for e in handed {
                    model.changed(e);
                }
            }
            17 => {
                // A `for` loop over the group (a packed walk) left early:
                // what it yielded is marked, and nothing else.
                let stop = rng.below(4) as usize;
                let mut handed = Vec::new();
                for (e, (p, _)) in world.query_mut::<(&mut Pos, &Vel)>() {
                    handed.push(e);
                    if handed.len() > stop {
                        break;
                    }
                    p.0 += 1;
                }
                for e in handed {
                    model.changed(e);
                }
            }
            18 => {
                // Written through a `Mut` only when it differs.
                let mut written = Vec::new();
                world.pos.for_each_mut(|e, mut p| {
                    let next = Pos::new(p.0 - p.0 % 2);
                    if p.set_if_neq(next) {
                        written.push(e);
                    }
                });
                for e in written {
                    model.changed(e);
                }
            }
            19 if !model.alive.is_empty() => {
                // A lookup that finds nothing marks nothing.
                let e = model.alive[rng.index(model.alive.len())];
                let found = world.get_many::<(&mut Pos, &Vel)>(e).is_some();
                assert_eq!(
                    found,
                    model.pos.contains_key(&e) && model.vel.contains(&e),
                    "seed {seed}: get_many"
                );
                if found {
                    model.changed(e);
                }
            }
            _ => {}
        }
        world.assert_invariants();
    }
    drop(world);
    drop(schedule);
    assert_eq!(
        LIVE.with(|l| *l.borrow()),
        0,
        "seed {seed}: a value leaked or dropped twice"
    );
}

#[test]
fn observers_see_each_change_exactly_once() {
    let sequences: u64 = std::env::var("CHANGE_SEQUENCES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    for seed in 0..sequences {
        run(seed);
    }
}
