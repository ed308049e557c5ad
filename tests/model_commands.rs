//! Model-based test of mutable queries and command buffers: a seeded
//! generator drives immediate changes, deferred changes and sync points,
//! `query_mut` / `join` passes that rewrite values, and `Commands` buffers
//! filled during queries and applied (sometimes several steps later), all
//! mirrored on a plain `HashMap<Entity, Row>` model. The model applies
//! buffers in the documented order (spawns, removals, additions, despawns)
//! and predicts the exact `ApplyReport`. After every step the world must
//! agree with the model on every handle ever issued.

use std::any::type_name;
use std::collections::{HashMap, HashSet};

use typed_ecs::commands::{CommandKind, RejectReason, Rejected};
use typed_ecs::prelude::*;
use typed_ecs::query::{join, Maybe};
use typed_ecs::AddErrorKind;

/// Steps per seed.
const STEPS: usize = 5_000;

#[derive(Debug, Clone, Copy, PartialEq)]
struct A(u64);

#[derive(Debug, Clone, Copy, PartialEq)]
struct B(u64);

#[derive(Debug, Clone, Copy, PartialEq)]
struct C(u64);

world! {
    struct Sim<A, B, C>;
}

/// What the model needs to know about a component type.
trait Comp: Sized + Copy + std::fmt::Debug {
    /// Which field of a `Row`, and the storage's declaration position.
    const K: usize;
    fn new(value: u64) -> Self;
    fn value(self) -> u64;
}

macro_rules! comp {
    ($($t:ident = $k:expr),+) => {$(
        impl Comp for $t {
            const K: usize = $k;
            fn new(value: u64) -> Self {
                $t(value)
            }
            fn value(self) -> u64 {
                self.0
            }
        }
    )+};
}

comp!(A = 0, B = 1, C = 2);

/// Type names, indexed by `K`, as a report spells them.
fn name(k: usize) -> &'static str {
    [type_name::<A>(), type_name::<B>(), type_name::<C>()][k]
}

/// Calls `$run.$method::<T>(args)` for the component numbered `$k`.
macro_rules! with_comp {
    ($run:expr, $k:expr, $method:ident ( $($arg:expr),* )) => {
        match $k {
            0 => $run.$method::<A>($($arg),*),
            1 => $run.$method::<B>($($arg),*),
            _ => $run.$method::<C>($($arg),*),
        }
    };
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// In `0..n`, `n > 0`.
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// One entity's components in the model.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Row([Option<u64>; 3]);

/// A command as the model records it, in queue order.
#[derive(Debug, Clone, Copy)]
enum Cmd {
    Add(Entity, usize, u64),
    Remove(Entity, usize),
    Despawn(Entity),
}

/// The model: live rows, the world's own deferred queues, and the commands
/// recorded in the (one, reused) buffer.
#[derive(Default)]
struct Model {
    rows: HashMap<Entity, Row>,
    live: Vec<Entity>,
    pending_adds: HashMap<(Entity, usize), u64>,
    pending_removes: HashSet<(Entity, usize)>,
    pending_despawns: Vec<Entity>,
    /// The buffer: its commands and how many spawns it has reserved.
    commands: Vec<Cmd>,
    spawns: usize,
    /// Every handle ever issued.
    issued: Vec<Entity>,
    issued_set: HashSet<Entity>,
}

impl Model {
    fn alive(&self, e: Entity) -> bool {
        self.rows.contains_key(&e)
    }

    fn get(&self, e: Entity, k: usize) -> Option<u64> {
        self.rows.get(&e).and_then(|row| row.0[k])
    }

    fn slot(&mut self, e: Entity, k: usize) -> &mut Option<u64> {
        &mut self.rows.get_mut(&e).expect("alive in the model").0[k]
    }

    fn spawned(&mut self, e: Entity, row: Row) {
        assert!(self.issued_set.insert(e), "{e:?} was handed out twice");
        assert!(!e.is_reserved());
        self.rows.insert(e, row);
        self.live.push(e);
        self.issued.push(e);
    }

    /// Immediate despawn: the row and everything the world queued for it go.
    fn despawn(&mut self, e: Entity) -> bool {
        if self.rows.remove(&e).is_none() {
            return false;
        }
        let at = self.live.iter().position(|&x| x == e).unwrap();
        self.live.swap_remove(at);
        self.pending_adds.retain(|&(x, _), _| x != e);
        self.pending_removes.retain(|&(x, _)| x != e);
        true
    }

    /// The sync point: removals, then additions, then despawns.
    fn finalize(&mut self) {
        for (e, k) in std::mem::take(&mut self.pending_removes) {
            *self.slot(e, k) = None;
        }
        for ((e, k), value) in std::mem::take(&mut self.pending_adds) {
            *self.slot(e, k) = Some(value);
        }
        for e in std::mem::take(&mut self.pending_despawns) {
            self.despawn(e);
        }
    }

    /// Applies the recorded buffer given the entities the world spawned for
    /// it, and returns the rejections the report must list, in order.
    fn apply(&mut self, spawned: &[Entity]) -> Vec<Rejected> {
        assert_eq!(spawned.len(), self.spawns, "one entity per reserved spawn");
        for &e in spawned {
            self.spawned(e, Row::default());
        }
        let resolve = |e: Entity| -> Option<Entity> {
            if e.is_reserved() {
                let ordinal = reserved_ordinal(e);
                spawned.get(ordinal).copied()
            } else {
                Some(e)
            }
        };
        let commands = std::mem::take(&mut self.commands);
        self.spawns = 0;
        let mut rejected = Vec::new();
        let reject = |entity, command, component, rejected: &mut Vec<Rejected>| {
            rejected.push(Rejected {
                entity,
                command,
                component,
                reason: RejectReason::DeadEntity,
            })
        };
        // Removals, one storage after the other in declaration order.
        for k in 0..3 {
            for cmd in &commands {
                if let Cmd::Remove(e, ck) = *cmd {
                    if ck != k {
                        continue;
                    }
                    match resolve(e).filter(|&r| self.alive(r)) {
                        Some(real) => *self.slot(real, k) = None,
                        None => reject(e, CommandKind::Remove, Some(name(k)), &mut rejected),
                    }
                }
            }
        }
        // Additions, likewise.
        for k in 0..3 {
            for cmd in &commands {
                if let Cmd::Add(e, ck, value) = *cmd {
                    if ck != k {
                        continue;
                    }
                    match resolve(e).filter(|&r| self.alive(r)) {
                        Some(real) if self.get(real, k).is_some() => rejected.push(Rejected {
                            entity: e,
                            command: CommandKind::Add,
                            component: Some(name(k)),
                            reason: RejectReason::AlreadyPresent,
                        }),
                        Some(real) => *self.slot(real, k) = Some(value),
                        None => reject(e, CommandKind::Add, Some(name(k)), &mut rejected),
                    }
                }
            }
        }
        // Despawns, in queue order.
        for cmd in &commands {
            if let Cmd::Despawn(e) = *cmd {
                let despawned = resolve(e).is_some_and(|real| self.despawn(real));
                if !despawned {
                    reject(e, CommandKind::Despawn, None, &mut rejected);
                }
            }
        }
        rejected
    }

    fn clear(&mut self) {
        for e in self.live.clone() {
            self.despawn(e);
        }
        self.pending_despawns.clear();
    }
}

/// The world, the model, the buffer, the generator and where we are.
struct Run {
    world: Sim,
    model: Model,
    commands: Commands<Sim>,
    rng: Rng,
    seed: u64,
    step: usize,
    op: String,
    next_value: u64,
    hits: HashMap<&'static str, usize>,
}

/// A handle to act on: mostly a live one, sometimes any handle ever issued
/// (often dead), sometimes a forged one.
fn pick(rng: &mut Rng, model: &Model) -> Entity {
    let r = rng.below(100);
    if r < 75 && !model.live.is_empty() {
        model.live[rng.below(model.live.len())]
    } else if r < 97 && !model.issued.is_empty() {
        model.issued[rng.below(model.issued.len())]
    } else {
        let index = rng.below(model.issued.len() + 4) as u64;
        let generation = 1 + rng.below(4) as u64;
        Entity::from_bits(index | (generation << 32)).unwrap()
    }
}

impl Run {
    fn new(seed: u64) -> Self {
        Run {
            world: Sim::new(),
            model: Model::default(),
            commands: Commands::new(),
            rng: Rng(seed),
            seed,
            step: 0,
            op: String::new(),
            next_value: 0,
            hits: HashMap::new(),
        }
    }

    fn ctx(&self) -> String {
        format!("seed {:#x}, step {}, op {}", self.seed, self.step, self.op)
    }

    fn hit(&mut self, what: &'static str) {
        *self.hits.entry(what).or_default() += 1;
    }

    fn fresh(&mut self) -> u64 {
        self.next_value += 1;
        self.next_value
    }

    // ----- immediate operations -----

    fn spawn(&mut self) {
        let v = self.fresh();
        let (e, row) = match self.rng.below(4) {
            0 => (self.world.spawn(), Row::default()),
            1 => (
                self.world.spawn_with((A(v), B(v + 1))),
                Row([Some(v), Some(v + 1), None]),
            ),
            2 => (self.world.spawn_with((C(v),)), Row([None, None, Some(v)])),
            _ => (
                self.world.spawn_with((B(v), C(v + 1), A(v + 2))),
                Row([Some(v + 2), Some(v), Some(v + 1)]),
            ),
        };
        self.next_value += 2;
        self.op = format!("spawn -> {e:?} {row:?}");
        self.model.spawned(e, row);
    }

    fn despawn(&mut self) {
        let e = pick(&mut self.rng, &self.model);
        self.op = format!("despawn({e:?})");
        let expected = self.model.alive(e);
        assert_eq!(self.world.despawn(e), expected, "{}", self.ctx());
        assert_eq!(self.model.despawn(e), expected);
        if expected {
            self.hit("despawn");
        }
    }

    fn add<T: Comp>(&mut self)
    where
        Sim: Contains<T>,
    {
        let e = pick(&mut self.rng, &self.model);
        let v = self.fresh();
        self.op = format!("try_add::<{}>({e:?}, {v})", T::K);
        let expected = match self.model.rows.get(&e) {
            None => Err(AddErrorKind::DeadEntity),
            Some(row) if row.0[T::K].is_some() => Err(AddErrorKind::AlreadyPresent),
            Some(_) => Ok(()),
        };
        match self.world.try_add(e, T::new(v)) {
            Ok(()) => assert_eq!(expected, Ok(()), "{}", self.ctx()),
            Err(error) => {
                assert_eq!(Err(error.kind()), expected, "{}", self.ctx());
                assert_eq!(error.into_component().value(), v, "{}", self.ctx());
            }
        }
        if expected.is_ok() {
            *self.model.slot(e, T::K) = Some(v);
            self.hit("add");
        }
    }

    fn insert<T: Comp>(&mut self)
    where
        Sim: Contains<T>,
    {
        let e = pick(&mut self.rng, &self.model);
        let v = self.fresh();
        self.op = format!("try_insert::<{}>({e:?}, {v})", T::K);
        let got = self.world.try_insert(e, T::new(v));
        if self.model.alive(e) {
            let old = got.unwrap_or_else(|_| panic!("{}", self.ctx()));
            assert_eq!(old.map(T::value), self.model.get(e, T::K), "{}", self.ctx());
            *self.model.slot(e, T::K) = Some(v);
            self.hit("insert");
        } else {
            let error = got.unwrap_err();
            assert_eq!(error.kind(), AddErrorKind::DeadEntity, "{}", self.ctx());
        }
    }

    fn remove<T: Comp>(&mut self)
    where
        Sim: Contains<T>,
    {
        let e = pick(&mut self.rng, &self.model);
        self.op = format!("remove::<{}>({e:?})", T::K);
        let expected = self.model.get(e, T::K);
        assert_eq!(
            self.world.remove::<T>(e).map(T::value),
            expected,
            "{}",
            self.ctx()
        );
        if expected.is_some() {
            *self.model.slot(e, T::K) = None;
            self.hit("remove");
        }
    }

    // ----- deferred operations and the sync point -----

    fn add_deferred<T: Comp>(&mut self)
    where
        Sim: Contains<T>,
    {
        let e = pick(&mut self.rng, &self.model);
        let v = self.fresh();
        self.op = format!("try_add_deferred::<{}>({e:?}, {v})", T::K);
        let key = (e, T::K);
        let expected = match self.model.rows.get(&e) {
            None => Err(AddErrorKind::DeadEntity),
            Some(_) if self.model.pending_adds.contains_key(&key) => {
                Err(AddErrorKind::AlreadyQueued)
            }
            Some(row) if row.0[T::K].is_some() && !self.model.pending_removes.contains(&key) => {
                Err(AddErrorKind::AlreadyPresent)
            }
            Some(_) => Ok(()),
        };
        match self.world.try_add_deferred(e, T::new(v)) {
            Ok(()) => assert_eq!(expected, Ok(()), "{}", self.ctx()),
            Err(error) => assert_eq!(Err(error.kind()), expected, "{}", self.ctx()),
        }
        if expected.is_ok() {
            self.model.pending_adds.insert(key, v);
            self.hit("add_deferred");
        }
    }

    fn remove_deferred<T: Comp>(&mut self)
    where
        Sim: Contains<T>,
    {
        let e = pick(&mut self.rng, &self.model);
        self.op = format!("remove_deferred::<{}>({e:?})", T::K);
        let alive = self.model.alive(e);
        assert_eq!(self.world.remove_deferred::<T>(e), alive, "{}", self.ctx());
        if alive {
            self.model.pending_removes.insert((e, T::K));
        }
    }

    fn despawn_deferred(&mut self) {
        let e = pick(&mut self.rng, &self.model);
        self.op = format!("despawn_deferred({e:?})");
        let alive = self.model.alive(e);
        assert_eq!(self.world.despawn_deferred(e), alive, "{}", self.ctx());
        if alive {
            self.model.pending_despawns.push(e);
        }
    }

    fn finalize(&mut self) {
        self.op = "finalize_updates".to_owned();
        self.world.finalize_updates();
        self.model.finalize();
        self.hit("finalize");
    }

    fn clear(&mut self) {
        self.op = "clear".to_owned();
        self.world.clear();
        self.model.clear();
        self.hit("clear");
    }

    // ----- query passes that write -----

    /// Entities the model says match, sorted.
    fn model_matches(&self, keep: impl Fn(&Row) -> bool) -> Vec<Entity> {
        let mut out: Vec<Entity> = self
            .model
            .rows
            .iter()
            .filter(|(_, row)| keep(row))
            .map(|(&e, _)| e)
            .collect();
        out.sort();
        out
    }

    fn check_visited(&self, mut visited: Vec<Entity>, expected: Vec<Entity>) {
        let n = visited.len();
        visited.sort();
        visited.dedup();
        assert_eq!(
            visited.len(),
            n,
            "an entity was visited twice: {}",
            self.ctx()
        );
        assert_eq!(visited, expected, "visited set: {}", self.ctx());
    }

    fn query_pass(&mut self) {
        let which = self.rng.below(4);
        self.op = format!("query pass {which}");
        let mut visited = Vec::new();
        let expected;
        match which {
            0 => {
                // for_each over (&mut A, &B, Without<C>): a += b.
                expected = self
                    .model_matches(|r| r.0[0].is_some() && r.0[1].is_some() && r.0[2].is_none());
                self.world
                    .query_mut::<(&mut A, &B, Without<C>)>()
                    .for_each(|e, (a, b, ())| {
                        a.0 = a.0.wrapping_add(b.0);
                        visited.push(e);
                    });
                for &e in &expected {
                    let b = self.model.get(e, 1).unwrap();
                    let a = self.model.slot(e, 0).as_mut().unwrap();
                    *a = a.wrapping_add(b);
                }
            }
            1 => {
                // A for loop over (&mut B, Option<&C>, With<A>).
                expected = self.model_matches(|r| r.0[0].is_some() && r.0[1].is_some());
                for (e, (b, c, ())) in self.world.query_mut::<(&mut B, Option<&C>, With<A>)>() {
                    b.0 = b.0.wrapping_mul(3).wrapping_add(c.map_or(1, |c| c.0));
                    visited.push(e);
                }
                for &e in &expected {
                    let c = self.model.get(e, 2);
                    let b = self.model.slot(e, 1).as_mut().unwrap();
                    *b = b.wrapping_mul(3).wrapping_add(c.unwrap_or(1));
                }
            }
            2 => {
                // for_each over (Option<&mut A>, &mut C): two writes.
                expected = self.model_matches(|r| r.0[2].is_some());
                self.world
                    .query_mut::<(Option<&mut A>, &mut C)>()
                    .for_each(|e, (a, c)| {
                        c.0 = c.0.wrapping_add(1);
                        if let Some(a) = a {
                            a.0 ^= c.0;
                        }
                        visited.push(e);
                    });
                for &e in &expected {
                    let c = self.model.slot(e, 2).as_mut().unwrap();
                    *c = c.wrapping_add(1);
                    let c = *c;
                    if let Some(a) = self.model.slot(e, 0).as_mut() {
                        *a ^= c;
                    }
                }
            }
            _ => {
                // join over borrowed fields.
                expected = self.model_matches(|r| r.0[2].is_some() && r.0[1].is_none());
                join((
                    &mut self.world.c,
                    Maybe(&self.world.a),
                    Without(&self.world.b),
                ))
                .for_each(|e, (c, a, ())| {
                    c.0 = c.0.wrapping_mul(5).wrapping_add(a.map_or(0, |a| a.0));
                    visited.push(e);
                });
                for &e in &expected {
                    let a = self.model.get(e, 0);
                    let c = self.model.slot(e, 2).as_mut().unwrap();
                    *c = c.wrapping_mul(5).wrapping_add(a.unwrap_or(0));
                }
            }
        }
        if !expected.is_empty() {
            self.hit("query pass");
        }
        self.check_visited(visited, expected);
    }

    // ----- command buffers -----

    /// Fills the buffer during a query: each visited entity may get commands
    /// about itself, a random (maybe dead) entity, or a new reserved one.
    fn fill_commands(&mut self) {
        let in_for_loop = self.rng.chance(40);
        self.op = format!("fill commands (for loop: {in_for_loop})");
        let Run {
            world,
            model,
            commands,
            rng,
            next_value,
            ..
        } = self;
        let mut recorded = Vec::new();
        let mut spawns = model.spawns;
        let mut visited = Vec::new();
        let mut act = |e: Entity, a: &mut A, b: Option<&B>| {
            visited.push(e);
            a.0 = a.0.wrapping_add(b.map_or(2, |b| b.0));
            if !rng.chance(30) {
                return;
            }
            *next_value += 1;
            let v = *next_value;
            let target = if rng.chance(50) { e } else { pick(rng, model) };
            match rng.below(8) {
                0 => {
                    commands.add(target, B(v));
                    recorded.push(Cmd::Add(target, 1, v));
                }
                1 => {
                    commands.add(target, C(v));
                    recorded.push(Cmd::Add(target, 2, v));
                }
                2 => {
                    let k = rng.below(3);
                    with_comp!(commands, k, remove(target));
                    recorded.push(Cmd::Remove(target, k));
                }
                3 => {
                    // Replace: remove then add in one buffer.
                    commands.remove::<C>(target);
                    commands.add(target, C(v));
                    recorded.push(Cmd::Remove(target, 2));
                    recorded.push(Cmd::Add(target, 2, v));
                }
                4 => {
                    commands.despawn(target);
                    recorded.push(Cmd::Despawn(target));
                    if rng.chance(30) {
                        // Twice: the second is rejected (if the first was not).
                        commands.despawn(target);
                        recorded.push(Cmd::Despawn(target));
                    }
                }
                5 => {
                    let r = commands.spawn_with((C(v), A(v + 1)));
                    assert_eq!(reserved_ordinal(r), spawns);
                    spawns += 1;
                    recorded.push(Cmd::Add(r, 2, v));
                    recorded.push(Cmd::Add(r, 0, v + 1));
                    match rng.below(4) {
                        0 => {
                            commands.add(r, B(v + 2));
                            recorded.push(Cmd::Add(r, 1, v + 2));
                        }
                        1 => {
                            commands.despawn(r);
                            recorded.push(Cmd::Despawn(r));
                        }
                        2 => {
                            // A second add of A to the reserved handle: rejected.
                            commands.add(r, A(v + 3));
                            recorded.push(Cmd::Add(r, 0, v + 3));
                        }
                        _ => {}
                    }
                    *next_value += 3;
                }
                6 => {
                    let r = commands.spawn();
                    spawns += 1;
                    commands.add(r, B(v));
                    commands.remove::<B>(r); // runs first: the B stays
                    recorded.push(Cmd::Add(r, 1, v));
                    recorded.push(Cmd::Remove(r, 1));
                }
                _ => {
                    // Add A to someone: often already present.
                    commands.add(target, A(v));
                    recorded.push(Cmd::Add(target, 0, v));
                }
            }
        };
        let expected_visits;
        if in_for_loop {
            expected_visits = {
                let mut v: Vec<Entity> = model
                    .rows
                    .iter()
                    .filter(|(_, r)| r.0[0].is_some() && r.0[2].is_none())
                    .map(|(&e, _)| e)
                    .collect();
                v.sort();
                v
            };
            for (e, (a, b, ())) in world.query_mut::<(&mut A, Option<&B>, Without<C>)>() {
                act(e, a, b);
            }
        } else {
            expected_visits = {
                let mut v: Vec<Entity> = model
                    .rows
                    .iter()
                    .filter(|(_, r)| r.0[0].is_some())
                    .map(|(&e, _)| e)
                    .collect();
                v.sort();
                v
            };
            world
                .query_mut::<(&mut A, Option<&B>)>()
                .for_each(|e, (a, b)| act(e, a, b));
        }
        // One per add, remove, despawn and spawn (a spawn_with's components
        // are recorded as adds).
        assert_eq!(
            commands.len(),
            model.commands.len() + recorded.len() + spawns,
            "commands.len(): seed {:#x}, step {}",
            self.seed,
            self.step
        );
        // Mirror the value writes of the pass, then record the commands.
        for &e in &expected_visits {
            let b = self.model.get(e, 1);
            let a = self.model.slot(e, 0).as_mut().unwrap();
            *a = a.wrapping_add(b.unwrap_or(2));
        }
        self.model.commands.extend(recorded);
        self.model.spawns = spawns;
        self.check_visited(visited, expected_visits);
        self.hit("fill");
    }

    fn apply_commands(&mut self) {
        self.op = format!(
            "apply ({} commands, {} spawns)",
            self.model.commands.len(),
            self.model.spawns
        );
        let reserved: Vec<Entity> = {
            // The reserved handles of this buffer, by ordinal, as recorded.
            let mut seen: Vec<Entity> = self
                .model
                .commands
                .iter()
                .map(|cmd| match *cmd {
                    Cmd::Add(e, ..) | Cmd::Remove(e, _) | Cmd::Despawn(e) => e,
                })
                .filter(|e| e.is_reserved())
                .collect();
            seen.sort();
            seen.dedup();
            seen
        };
        let report = self.world.apply(&mut self.commands);
        assert!(self.commands.is_empty(), "{}", self.ctx());
        assert_eq!(self.commands.len(), 0);
        let spawned = report.spawned().to_vec();
        for r in reserved {
            let ordinal = reserved_ordinal(r);
            assert_eq!(
                report.entity(r),
                spawned.get(ordinal).copied(),
                "{}",
                self.ctx()
            );
        }
        let expected = self.model.apply(&spawned);
        assert_eq!(report.rejected(), expected, "report: {}", self.ctx());
        assert_eq!(report.is_clean(), expected.is_empty());
        if !spawned.is_empty() {
            self.hit("apply spawned");
        }
        for r in &expected {
            self.hit(match (r.command, r.reason) {
                (CommandKind::Add, RejectReason::AlreadyPresent) => "reject add present",
                (CommandKind::Add, _) => "reject add dead",
                (CommandKind::Remove, _) => "reject remove dead",
                (CommandKind::Despawn, _) => "reject despawn dead",
                _ => "reject other",
            });
        }
        self.hit("apply");
    }

    fn clear_commands(&mut self) {
        self.op = "clear commands".to_owned();
        self.commands.clear();
        assert!(self.commands.is_empty());
        self.model.commands.clear();
        self.model.spawns = 0;
    }

    fn step_once(&mut self) {
        let k = self.rng.below(3);
        let crowded = self.model.live.len() > 80;
        match self.rng.below(1000) {
            0..=79 if !crowded => self.spawn(),
            0..=139 => self.despawn(),
            140..=239 => with_comp!(self, k, add()),
            240..=299 => with_comp!(self, k, insert()),
            300..=369 => with_comp!(self, k, remove()),
            370..=439 => with_comp!(self, k, add_deferred()),
            440..=489 => with_comp!(self, k, remove_deferred()),
            490..=519 => self.despawn_deferred(),
            520..=579 => self.finalize(),
            580..=699 => self.query_pass(),
            700..=819 => self.fill_commands(),
            820..=939 => self.apply_commands(),
            940..=949 => self.clear_commands(),
            950..=952 => self.clear(),
            _ => self.op = "read".to_owned(),
        }
    }

    // ----- checks -----

    fn check(&mut self) {
        let world = &self.world;
        let model = &self.model;
        assert_eq!(world.entity_count(), model.rows.len(), "{}", self.ctx());
        for &e in &model.issued {
            let want = model.rows.get(&e).copied();
            assert_eq!(world.is_alive(e), want.is_some(), "{e:?}: {}", self.ctx());
            let got = Row([
                world.get::<A>(e).map(|c| c.0),
                world.get::<B>(e).map(|c| c.0),
                world.get::<C>(e).map(|c| c.0),
            ]);
            assert_eq!(got, want.unwrap_or_default(), "{e:?}: {}", self.ctx());
        }

        // Two queries' result sets.
        let mut got: Vec<(Entity, u64, Option<u64>)> = world
            .query::<(&A, Option<&C>, Without<B>)>()
            .map(|(e, (a, c, ()))| (e, a.0, c.map(|c| c.0)))
            .collect();
        got.sort();
        let mut want: Vec<(Entity, u64, Option<u64>)> = model
            .rows
            .iter()
            .filter(|(_, r)| r.0[0].is_some() && r.0[1].is_none())
            .map(|(&e, r)| (e, r.0[0].unwrap(), r.0[2]))
            .collect();
        want.sort();
        assert_eq!(
            got,
            want,
            "query (&A, Option<&C>, Without<B>): {}",
            self.ctx()
        );

        let mut got = Vec::new();
        self.world
            .query_mut::<(&mut C, With<B>)>()
            .for_each(|e, (c, ())| got.push((e, c.0)));
        got.sort();
        let mut want: Vec<(Entity, u64)> = self
            .model
            .rows
            .iter()
            .filter(|(_, r)| r.0[1].is_some() && r.0[2].is_some())
            .map(|(&e, r)| (e, r.0[2].unwrap()))
            .collect();
        want.sort();
        assert_eq!(got, want, "query_mut (&mut C, With<B>): {}", self.ctx());
    }
}

fn run(seed: u64) {
    let mut run = Run::new(seed);
    for step in 0..STEPS {
        run.step = step;
        run.step_once();
        run.check();
        if step % 100 == 99 {
            run.world.assert_invariants();
        }
    }
    run.apply_commands();
    run.finalize();
    run.check();
    run.world.assert_invariants();

    for what in [
        "despawn",
        "add",
        "insert",
        "remove",
        "add_deferred",
        "finalize",
        "query pass",
        "fill",
        "apply",
        "apply spawned",
        "reject add present",
        "reject add dead",
        "reject remove dead",
        "reject despawn dead",
    ] {
        let n = run.hits.get(what).copied().unwrap_or(0);
        assert!(n >= 10, "seed {seed:#x}: {what} happened {n} times");
    }
    assert!(run.model.issued.len() > 300, "seed {seed:#x}");
}

#[test]
fn model_commands_seed_1() {
    run(0x5eed_0001);
}

#[test]
fn model_commands_seed_2() {
    run(0xdead_beef_cafe_f00d);
}

#[test]
fn model_commands_seed_3() {
    run(42);
}

/// The position of a reserved handle's spawn in its buffer, from its `Debug`
/// form `reserved#{ordinal}@{buffer}`.
fn reserved_ordinal(e: Entity) -> usize {
    let text = format!("{e:?}");
    let ordinal = text
        .strip_prefix("reserved#")
        .and_then(|rest| rest.split('@').next());
    ordinal
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text} is not a reserved handle"))
}
