//! Model-based test: a seeded generator drives random operations on a world
//! with three components, mirrored on a plain model (a `HashMap` of rows plus
//! its own queues). After every step the world must agree with the model.

use std::collections::{HashMap, HashSet};

use typed_ecs::prelude::*;
use typed_ecs::AddErrorKind;

/// Operations per seed.
const STEPS: usize = 20_000;

#[derive(Debug, Clone, PartialEq)]
struct A(u64);

#[derive(Debug, Clone, PartialEq)]
struct B(u64);

#[derive(Debug, Clone, PartialEq)]
struct C(u64);

world! {
    #[derive(Debug)]
    struct Sim<A, B, C>;
}

/// What the model needs to know about a component type.
trait Comp: Sized + std::fmt::Debug {
    /// Which field of a `Row`.
    const K: usize;
    fn new(value: u64) -> Self;
    fn value(&self) -> u64;
    fn value_mut(&mut self) -> &mut u64;
}

macro_rules! comp {
    ($($t:ident = $k:expr),+) => {
        $(
            impl Comp for $t {
                const K: usize = $k;
                fn new(value: u64) -> Self {
                    $t(value)
                }
                fn value(&self) -> u64 {
                    self.0
                }
                fn value_mut(&mut self) -> &mut u64 {
                    &mut self.0
                }
            }
        )+
    };
}

comp!(A = 0, B = 1, C = 2);

/// Calls `$run.$method::<T>(args)` for the component numbered `$k`.
macro_rules! with_comp {
    ($run:ident, $k:expr, $method:ident ( $($arg:expr),* )) => {
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
}

/// One entity's components in the model.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Row {
    a: Option<u64>,
    b: Option<u64>,
    c: Option<u64>,
}

impl Row {
    fn get(&self, k: usize) -> Option<u64> {
        match k {
            0 => self.a,
            1 => self.b,
            _ => self.c,
        }
    }

    fn slot(&mut self, k: usize) -> &mut Option<u64> {
        match k {
            0 => &mut self.a,
            1 => &mut self.b,
            _ => &mut self.c,
        }
    }
}

/// The model: live entities and their rows, plus queued changes.
#[derive(Default)]
struct Model {
    rows: HashMap<Entity, Row>,
    /// The live entities, for deterministic picking.
    live: Vec<Entity>,
    pending_adds: HashMap<(Entity, usize), u64>,
    pending_removes: HashSet<(Entity, usize)>,
    pending_despawns: Vec<Entity>,
    /// Every handle ever issued, and whether it is alive.
    issued: Vec<Entity>,
    issued_alive: Vec<bool>,
    issued_at: HashMap<Entity, usize>,
}

impl Model {
    fn alive(&self, e: Entity) -> bool {
        self.rows.contains_key(&e)
    }

    fn row(&self, e: Entity) -> Option<Row> {
        self.rows.get(&e).copied()
    }

    fn row_mut(&mut self, e: Entity) -> &mut Row {
        self.rows.get_mut(&e).expect("alive in the model")
    }

    fn spawned(&mut self, e: Entity, row: Row) {
        assert!(
            !self.issued_at.contains_key(&e),
            "{e:?} was handed out twice"
        );
        self.rows.insert(e, row);
        self.live.push(e);
        self.issued_at.insert(e, self.issued.len());
        self.issued.push(e);
        self.issued_alive.push(true);
    }

    /// Immediate despawn: the row and everything queued for it go.
    fn despawn(&mut self, e: Entity) -> bool {
        if self.rows.remove(&e).is_none() {
            return false;
        }
        let at = self.live.iter().position(|&x| x == e).unwrap();
        self.live.swap_remove(at);
        self.pending_adds.retain(|&(x, _), _| x != e);
        self.pending_removes.retain(|&(x, _)| x != e);
        self.issued_alive[self.issued_at[&e]] = false;
        true
    }

    /// Removals, then additions, then despawns.
    fn finalize(&mut self) {
        for (e, k) in std::mem::take(&mut self.pending_removes) {
            *self.row_mut(e).slot(k) = None;
        }
        for ((e, k), value) in std::mem::take(&mut self.pending_adds) {
            *self.row_mut(e).slot(k) = Some(value);
        }
        for e in std::mem::take(&mut self.pending_despawns) {
            self.despawn(e);
        }
    }

    fn clear(&mut self) {
        for e in self.live.clone() {
            self.despawn(e);
        }
        self.pending_despawns.clear();
        assert!(self.rows.is_empty() && self.pending_adds.is_empty());
    }
}

/// The world, the model, the generator and where we are.
struct Run {
    world: Sim,
    model: Model,
    rng: Rng,
    seed: u64,
    step: usize,
    op: String,
    next_value: u64,
    /// How often each operation really changed something, to make sure the
    /// run exercises every path.
    hits: HashMap<&'static str, usize>,
}

impl Run {
    fn new(seed: u64) -> Self {
        Run {
            world: Sim::new(),
            model: Model::default(),
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

    /// A handle to act on: mostly a live one, sometimes any handle ever
    /// issued (often dead), sometimes a forged one.
    fn pick(&mut self) -> Entity {
        let r = self.rng.below(100);
        if r < 80 && !self.model.live.is_empty() {
            self.model.live[self.rng.below(self.model.live.len())]
        } else if r < 96 && !self.model.issued.is_empty() {
            self.model.issued[self.rng.below(self.model.issued.len())]
        } else {
            let index = self.rng.below(self.model.issued.len() + 4) as u64;
            let generation = 1 + self.rng.below(4) as u64;
            Entity::from_bits(index | (generation << 32)).unwrap()
        }
    }

    // ----- operations -----

    fn spawn(&mut self) {
        let e = if self.rng.below(2) == 0 {
            self.world.spawn()
        } else {
            self.world.try_spawn().unwrap()
        };
        self.op = format!("spawn -> {e:?}");
        self.model.spawned(e, Row::default());
    }

    fn spawn_with(&mut self) {
        let v = self.fresh();
        let (e, row) = match self.rng.below(5) {
            0 => (self.world.spawn_with(()), Row::default()),
            1 => (
                self.world.spawn_with((A(v),)),
                Row {
                    a: Some(v),
                    ..Row::default()
                },
            ),
            2 => (
                self.world.try_spawn_with((B(v), C(v + 1))).unwrap(),
                Row {
                    b: Some(v),
                    c: Some(v + 1),
                    ..Row::default()
                },
            ),
            3 => (
                self.world.spawn_with((C(v), A(v + 1))),
                Row {
                    a: Some(v + 1),
                    c: Some(v),
                    ..Row::default()
                },
            ),
            _ => (
                self.world.spawn_with((A(v), B(v + 1), C(v + 2))),
                Row {
                    a: Some(v),
                    b: Some(v + 1),
                    c: Some(v + 2),
                },
            ),
        };
        self.next_value += 2;
        self.op = format!("spawn_with -> {e:?} {row:?}");
        self.model.spawned(e, row);
    }

    fn despawn(&mut self) {
        let e = self.pick();
        self.op = format!("despawn({e:?})");
        let expected = self.model.alive(e);
        assert_eq!(self.world.despawn(e), expected, "{}", self.ctx());
        assert!(self.model.despawn(e) == expected);
        if expected {
            self.hit("despawn");
        }
    }

    fn add<T: Comp>(&mut self)
    where
        Sim: Contains<T>,
    {
        let e = self.pick();
        let v = self.fresh();
        self.op = format!("add::<{}>({e:?}, {v})", T::K);
        let expected = match self.model.row(e) {
            None => Err(AddErrorKind::DeadEntity),
            Some(row) if row.get(T::K).is_some() => Err(AddErrorKind::AlreadyPresent),
            Some(_) => Ok(()),
        };
        if expected.is_ok() && self.rng.below(2) == 0 {
            self.world.add(e, T::new(v));
        } else {
            match self.world.try_add(e, T::new(v)) {
                Ok(()) => assert_eq!(expected, Ok(()), "{}", self.ctx()),
                Err(error) => {
                    assert_eq!(Err(error.kind()), expected, "{}", self.ctx());
                    assert_eq!(error.entity(), e, "{}", self.ctx());
                    assert_eq!(error.into_component().value(), v, "{}", self.ctx());
                }
            }
        }
        if expected.is_ok() {
            *self.model.row_mut(e).slot(T::K) = Some(v);
            self.hit("add");
        }
    }

    fn insert<T: Comp>(&mut self)
    where
        Sim: Contains<T>,
    {
        let e = self.pick();
        let v = self.fresh();
        self.op = format!("insert::<{}>({e:?}, {v})", T::K);
        match self.model.row(e) {
            Some(row) => {
                let old = if self.rng.below(2) == 0 {
                    self.world.insert(e, T::new(v))
                } else {
                    self.world.try_insert(e, T::new(v)).unwrap()
                };
                assert_eq!(old.map(|c| c.value()), row.get(T::K), "{}", self.ctx());
                *self.model.row_mut(e).slot(T::K) = Some(v);
                self.hit("insert");
            }
            None => {
                let error = self.world.try_insert(e, T::new(v)).unwrap_err();
                assert_eq!(error.kind(), AddErrorKind::DeadEntity, "{}", self.ctx());
                assert_eq!(error.into_component().value(), v, "{}", self.ctx());
            }
        }
    }

    fn remove<T: Comp>(&mut self)
    where
        Sim: Contains<T>,
    {
        let e = self.pick();
        self.op = format!("remove::<{}>({e:?})", T::K);
        let removed = if self.rng.below(3) == 0 {
            self.world.storage_mut::<T>().remove(e)
        } else {
            self.world.remove::<T>(e)
        };
        let expected = self.model.row(e).and_then(|row| row.get(T::K));
        assert_eq!(removed.map(|c| c.value()), expected, "{}", self.ctx());
        if expected.is_some() {
            *self.model.row_mut(e).slot(T::K) = None;
            self.hit("remove");
        }
    }

    fn remove_all(&mut self) {
        let e = self.pick();
        self.op = format!("remove_all({e:?})");
        let alive = self.model.alive(e);
        assert_eq!(self.world.remove_all(e), alive, "{}", self.ctx());
        if alive {
            *self.model.row_mut(e) = Row::default();
            self.hit("remove_all");
        }
    }

    fn edit<T: Comp>(&mut self)
    where
        Sim: Contains<T>,
    {
        let e = self.pick();
        let how = self.rng.below(3);
        self.op = format!("edit::<{}>({e:?}) via {how}", T::K);
        let expected = self.model.row(e).and_then(|row| row.get(T::K));
        let value = match how {
            0 => self.world.get_mut::<T>(e),
            1 => self.world.storage_mut::<T>().get_mut(e),
            _ => match self.world.storage::<T>().index_of(e) {
                Some(i) => Some(self.world.value_at_mut::<T>(i)),
                None => None,
            },
        };
        match value {
            Some(c) => {
                assert_eq!(Some(c.value()), expected, "{}", self.ctx());
                *c.value_mut() += 1000;
                *self.model.row_mut(e).slot(T::K) = Some(expected.unwrap() + 1000);
                self.hit("edit");
            }
            None => assert_eq!(expected, None, "{}", self.ctx()),
        }
    }

    fn add_deferred<T: Comp>(&mut self)
    where
        Sim: Contains<T>,
    {
        let e = self.pick();
        let v = self.fresh();
        self.op = format!("add_deferred::<{}>({e:?}, {v})", T::K);
        let key = (e, T::K);
        let expected = match self.model.row(e) {
            None => Err(AddErrorKind::DeadEntity),
            Some(_) if self.model.pending_adds.contains_key(&key) => {
                Err(AddErrorKind::AlreadyQueued)
            }
            Some(row) if row.get(T::K).is_some() && !self.model.pending_removes.contains(&key) => {
                Err(AddErrorKind::AlreadyPresent)
            }
            Some(_) => Ok(()),
        };
        if expected.is_ok() && self.rng.below(2) == 0 {
            self.world.add_deferred(e, T::new(v));
        } else {
            match self.world.try_add_deferred(e, T::new(v)) {
                Ok(()) => assert_eq!(expected, Ok(()), "{}", self.ctx()),
                Err(error) => {
                    assert_eq!(Err(error.kind()), expected, "{}", self.ctx());
                    assert_eq!(error.into_component().value(), v, "{}", self.ctx());
                }
            }
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
        let e = self.pick();
        self.op = format!("remove_deferred::<{}>({e:?})", T::K);
        let alive = self.model.alive(e);
        assert_eq!(self.world.remove_deferred::<T>(e), alive, "{}", self.ctx());
        if alive {
            self.model.pending_removes.insert((e, T::K));
            self.hit("remove_deferred");
        }
    }

    fn despawn_deferred(&mut self) {
        let e = self.pick();
        self.op = format!("despawn_deferred({e:?})");
        let alive = self.model.alive(e);
        assert_eq!(self.world.despawn_deferred(e), alive, "{}", self.ctx());
        if alive {
            self.model.pending_despawns.push(e);
            self.hit("despawn_deferred");
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

    fn step_once(&mut self) {
        let k = self.rng.below(3);
        let crowded = self.model.live.len() > 80;
        match self.rng.below(1000) {
            0..=49 if !crowded => self.spawn(),
            50..=99 if !crowded => self.spawn_with(),
            0..=149 => self.despawn(),
            150..=269 => with_comp!(self, k, add()),
            270..=349 => with_comp!(self, k, insert()),
            350..=429 => with_comp!(self, k, remove()),
            430..=454 => self.remove_all(),
            455..=534 => with_comp!(self, k, edit()),
            535..=654 => with_comp!(self, k, add_deferred()),
            655..=744 => with_comp!(self, k, remove_deferred()),
            745..=789 => self.despawn_deferred(),
            790..=859 => self.finalize(),
            860..=862 => self.clear(),
            // Reads only: the checks after every step do the work.
            _ => self.op = "read".to_owned(),
        }
    }

    // ----- checks -----

    fn check(&self) {
        let world = &self.world;
        let model = &self.model;
        assert_eq!(world.entity_count(), model.rows.len(), "{}", self.ctx());

        for (&e, &alive) in model.issued.iter().zip(&model.issued_alive) {
            assert_eq!(world.is_alive(e), alive, "{e:?}: {}", self.ctx());
        }

        let mut live = model.live.clone();
        live.sort();
        let entities: Vec<Entity> = world.entities().collect();
        assert_eq!(entities, live, "entities(): {}", self.ctx());

        for &e in &model.live {
            let row = model.rows[&e];
            let got = Row {
                a: world.get::<A>(e).map(|c| c.0),
                b: world.get::<B>(e).map(|c| c.0),
                c: world.get::<C>(e).map(|c| c.0),
            };
            assert_eq!(got, row, "{e:?}: {}", self.ctx());
        }

        // Every query result set, against the rows.
        type Results = Vec<(Entity, [Option<u64>; 3])>;
        let mut expected: [Results; 7] = Default::default();
        for &e in &live {
            let row = model.rows[&e];
            let has = [row.a.is_some(), row.b.is_some(), row.c.is_some()];
            for (mask, results) in (1..8usize).zip(expected.iter_mut()) {
                if (0..3).all(|k| mask & (1 << k) == 0 || has[k]) {
                    let pick = |k: usize| row.get(k).filter(|_| mask & (1 << k) != 0);
                    results.push((e, [pick(0), pick(1), pick(2)]));
                }
            }
        }
        let got: [Results; 7] = [
            world
                .query::<&A>()
                .map(|(e, a)| (e, [Some(a.0), None, None]))
                .collect(),
            world
                .query::<&B>()
                .map(|(e, b)| (e, [None, Some(b.0), None]))
                .collect(),
            world
                .query::<(&A, &B)>()
                .map(|(e, (a, b))| (e, [Some(a.0), Some(b.0), None]))
                .collect(),
            world
                .query::<&C>()
                .map(|(e, c)| (e, [None, None, Some(c.0)]))
                .collect(),
            world
                .query::<(&C, &A)>()
                .map(|(e, (c, a))| (e, [Some(a.0), None, Some(c.0)]))
                .collect(),
            world
                .query::<(&B, &C)>()
                .map(|(e, (b, c))| (e, [None, Some(b.0), Some(c.0)]))
                .collect(),
            world
                .query::<(&A, &B, &C)>()
                .map(|(e, (a, b, c))| (e, [Some(a.0), Some(b.0), Some(c.0)]))
                .collect(),
        ];
        for (mask, (mut got, expected)) in (1..8).zip(got.into_iter().zip(expected)) {
            got.sort();
            assert_eq!(got, expected, "query mask {mask:03b}: {}", self.ctx());
        }

        let count = |k: usize| {
            live.iter()
                .filter(|e| model.rows[e].get(k).is_some())
                .count()
        };
        assert_eq!(
            [world.size::<A>(), world.size::<B>(), world.size::<C>()],
            [count(0), count(1), count(2)],
            "{}",
            self.ctx()
        );
    }

    /// The slower checks: stale handles find nothing, and the invariants.
    fn check_deep(&self) {
        let world = &self.world;
        for (&e, &alive) in self.model.issued.iter().zip(&self.model.issued_alive) {
            if !alive {
                assert!(
                    world.get::<A>(e).is_none()
                        && world.get::<B>(e).is_none()
                        && world.get::<C>(e).is_none(),
                    "stale {e:?} found data: {}",
                    self.ctx()
                );
            }
        }
        world.assert_invariants();
    }
}

fn run(seed: u64) {
    let mut run = Run::new(seed);
    for step in 0..STEPS {
        run.step = step;
        run.step_once();
        run.check();
        if step % 100 == 99 {
            run.check_deep();
        }
    }
    run.finalize();
    run.check();
    run.check_deep();

    // The run went through every path, more than a handful of times.
    for what in [
        "despawn",
        "add",
        "insert",
        "remove",
        "remove_all",
        "edit",
        "add_deferred",
        "remove_deferred",
        "despawn_deferred",
        "finalize",
        "clear",
    ] {
        let n = run.hits.get(what).copied().unwrap_or(0);
        assert!(n >= 10, "seed {seed:#x}: {what} happened {n} times");
    }
    assert!(run.model.issued.len() > 1000, "seed {seed:#x}");
}

#[test]
fn model_seed_1() {
    run(0x0123_4567_89ab_cdef);
}

#[test]
fn model_seed_2() {
    run(0xfeed_face_cafe_beef);
}

#[test]
fn model_seed_3() {
    run(3);
}
