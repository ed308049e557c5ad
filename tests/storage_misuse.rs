//! Model-based test of what safe code can do with a world's public fields:
//! take a storage out (`std::mem::take`) and put it back after despawns,
//! assign a clone of another world's storage, swap storages (or whole
//! allocators) between two worlds. Random sequences of those, mixed with
//! ordinary world calls and deferred changes (queued in each world's own
//! queue, which stays with the world while storages and allocators move),
//! run on two worlds with an owning group, next to a model of what each
//! world must show.
//!
//! After every step, for both worlds: every read a world offers (`get`,
//! `has`, `size`, `entity_at`, `value_at`, `query`, `query_mut`,
//! `group_len`) agrees with the model: no dead entity is ever yielded, no
//! entity holds a value it was not given, none holds two; and
//! `assert_invariants` passes. A drop ledger checks that every value is
//! dropped exactly once, and at the end that none is left.
//!
//! The model: each world's alive entities and, per component, the values
//! it shows. A storage that arrives from elsewhere shows the entries whose
//! entity is alive in its new world; its other entries are in *limbo*: the
//! world drops them when it next uses the storage. When a storage moves on,
//! the test reads what it still holds, checking it lies between what the
//! model shows and what it shows plus its limbo.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashSet};

use proptest::prelude::*;
use typed_ecs::prelude::*;

thread_local! {
    static LEDGER: RefCell<HashSet<u64>> = RefCell::new(HashSet::new());
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

/// A value whose life the ledger records. Cloning makes a new value.
#[derive(Debug)]
struct Tracked(u64);

impl Tracked {
    fn new() -> Self {
        let id = NEXT_ID.with(|next| {
            next.set(next.get() + 1);
            next.get()
        });
        LEDGER.with(|ledger| ledger.borrow_mut().insert(id));
        Tracked(id)
    }
}

impl Clone for Tracked {
    fn clone(&self) -> Self {
        Tracked::new()
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let known = LEDGER.with(|ledger| ledger.borrow_mut().remove(&self.0));
        assert!(known, "value #{} dropped twice", self.0);
    }
}

#[derive(Clone, Debug)]
struct P(Tracked);
#[derive(Clone, Debug)]
struct V(Tracked);
#[derive(Clone, Debug)]
struct N(Tracked);

world! {
    struct Game<P, V, N>;
    group (P, V);
}

/// A component's model: entity → the id of the value the world shows.
type Column = BTreeMap<Entity, u64>;

/// Access to one component of [`Game`] by number, for the test.
trait Comp: Clone + 'static
where
    Game: Contains<Self>,
{
    const K: usize;
    fn make() -> Self;
    fn id(&self) -> u64;
    fn field(world: &mut Game) -> &mut SparseMap<Self>;
}

macro_rules! comps {
    ($($t:ident $k:literal $field:ident),*) => {$(
        impl Comp for $t {
            const K: usize = $k;
            fn make() -> Self {
                $t(Tracked::new())
            }
            fn id(&self) -> u64 {
                (self.0).0
            }
            fn field(world: &mut Game) -> &mut SparseMap<Self> {
                &mut world.$field
            }
        }
    )*};
}
comps!(P 0 p, V 1 v, N 2 n);

/// Runs `$body` with `$t` naming component number `$k`.
macro_rules! with_comp {
    ($k:expr, $t:ident => $body:expr) => {
        match $k % 3 {
            0 => {
                type $t = P;
                $body
            }
            1 => {
                type $t = V;
                $body
            }
            _ => {
                type $t = N;
                $body
            }
        }
    };
}

/// The model of one world.
#[derive(Default, Clone)]
struct Model {
    /// Every handle the world's allocator issued (travels with it).
    issued: Vec<Entity>,
    alive: BTreeSet<Entity>,
    shown: [Column; 3],
    /// Per component: entries the storage may still hold whose entity is
    /// not alive, dropped at the world's next use of the storage.
    limbo: [Column; 3],
    /// The world's own queue: per component, the queued adds in order
    /// (entity, value id) and the queued removals (each entity once).
    adds: [Vec<(Entity, u64)>; 3],
    removes: [Vec<Entity>; 3],
    despawns: Vec<Entity>,
    /// Which allocator state the world has (renewed when it retires
    /// entities; travels with the allocator), and which one its queue is
    /// in step with: every entity the queue names is alive there. A world
    /// brings its queue in step (dropping what it holds for the dead)
    /// before it queues into it, spawns, or applies it.
    alloc_id: u64,
    queue_id: u64,
}

/// A storage out of any world, and what it holds.
struct Held {
    storage: HeldStorage,
    content: Column,
}

enum HeldStorage {
    P(SparseMap<P>),
    V(SparseMap<V>),
    N(SparseMap<N>),
}

struct Sim {
    worlds: [Game; 2],
    models: [Model; 2],
    held: Vec<Held>,
    steps: usize,
    /// The last allocator-state number handed out (see `Model::alloc_id`).
    stamps: u64,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Spawn {
        w: u8,
        set: u8,
    },
    Despawn {
        w: u8,
        t: u8,
    },
    Add {
        w: u8,
        t: u8,
        k: u8,
    },
    Insert {
        w: u8,
        t: u8,
        k: u8,
    },
    Remove {
        w: u8,
        t: u8,
        k: u8,
    },
    Clear {
        w: u8,
    },
    QueryMut {
        w: u8,
    },
    /// `std::mem::take` of a storage, kept aside.
    Take {
        w: u8,
        k: u8,
    },
    /// Puts a storage kept aside into a world's field (of its component).
    PutBack {
        w: u8,
        h: u8,
    },
    /// `dst.field = src.field.clone()`.
    CloneFrom {
        w: u8,
        k: u8,
    },
    /// `std::mem::swap` of one field between the two worlds.
    SwapStorage {
        k: u8,
    },
    /// `std::mem::swap` of the two worlds' allocators.
    SwapAllocators,
    AddDeferred {
        w: u8,
        t: u8,
        k: u8,
    },
    RemoveDeferred {
        w: u8,
        t: u8,
        k: u8,
    },
    DespawnDeferred {
        w: u8,
        t: u8,
    },
    Finalize {
        w: u8,
    },
}

fn op_from(code: [u8; 4]) -> Op {
    let [kind, a, b, c] = code;
    let w = a & 1;
    match kind % 30 {
        0..=3 => Op::Spawn { w, set: b },
        4..=5 => Op::Despawn { w, t: b },
        6..=8 => Op::Add { w, t: b, k: c },
        9 => Op::Insert { w, t: b, k: c },
        10..=11 => Op::Remove { w, t: b, k: c },
        12 => Op::Clear { w },
        13..=14 => Op::QueryMut { w },
        15..=16 => Op::Take { w, k: c },
        17..=18 => Op::PutBack { w, h: b },
        19..=20 => Op::CloneFrom { w, k: c },
        21..=22 => Op::SwapStorage { k: c },
        23 => Op::SwapAllocators,
        24..=25 => Op::AddDeferred { w, t: b, k: c },
        26 => Op::RemoveDeferred { w, t: b, k: c },
        27 => Op::DespawnDeferred { w, t: b },
        _ => Op::Finalize { w },
    }
}

impl Sim {
    fn new() -> Self {
        LEDGER.with(|ledger| ledger.borrow_mut().clear());
        Sim {
            worlds: [Game::new(), Game::new()],
            models: [
                Model {
                    alloc_id: 1,
                    queue_id: 1,
                    ..Model::default()
                },
                Model {
                    alloc_id: 2,
                    queue_id: 2,
                    ..Model::default()
                },
            ],
            held: Vec::new(),
            steps: 0,
            stamps: 2,
        }
    }

    /// A handle for world `w`: alive, stale, or never issued.
    fn target(&self, w: usize, t: u8) -> Entity {
        let m = &self.models[w];
        let alive: Vec<Entity> = m.alive.iter().copied().collect();
        match t % 4 {
            0..=1 if !alive.is_empty() => alive[usize::from(t / 4) % alive.len()],
            2 if !m.issued.is_empty() => m.issued[usize::from(t / 4) % m.issued.len()],
            _ => Entity::from_bits(u64::from(t % 16) | (u64::from(t / 16) + 1) << 32).unwrap(),
        }
    }

    fn step(&mut self, op: Op) {
        self.steps += 1;
        match op {
            Op::Spawn { w, set } => self.spawn(w.into(), set),
            Op::Despawn { w, t } => {
                let w = usize::from(w);
                let e = self.target(w, t);
                let alive = self.models[w].alive.contains(&e);
                assert_eq!(self.worlds[w].despawn(e), alive);
                let m = &mut self.models[w];
                if alive {
                    // The group's upkeep brings its storages in step.
                    m.limbo[0].clear();
                    m.limbo[1].clear();
                }
                m.alive.remove(&e);
                for column in &mut m.shown {
                    column.remove(&e);
                }
                if alive {
                    // The world's queue forgets what it held for the entity.
                    for k in 0..3 {
                        m.adds[k].retain(|&(queued, _)| queued != e);
                        m.removes[k].retain(|&queued| queued != e);
                    }
                    self.restamp(w);
                }
            }
            Op::Add { w, t, k } => with_comp!(k, T => self.add::<T>(w.into(), t, false)),
            Op::Insert { w, t, k } => with_comp!(k, T => self.add::<T>(w.into(), t, true)),
            Op::Remove { w, t, k } => with_comp!(k, T => self.remove::<T>(w.into(), t)),
            Op::Clear { w } => {
                let w = usize::from(w);
                self.worlds[w].clear();
                let m = &mut self.models[w];
                m.alive.clear();
                m.shown = Default::default();
                m.limbo = Default::default();
                m.adds = Default::default();
                m.removes = Default::default();
                m.despawns.clear();
                self.restamp(w);
            }
            Op::QueryMut { w } => self.query_mut(w.into()),
            Op::Take { w, k } => with_comp!(k, T => self.take::<T>(w.into())),
            Op::PutBack { w, h } => self.put_back(w.into(), h),
            Op::CloneFrom { w, k } => with_comp!(k, T => self.clone_from::<T>(w.into())),
            Op::SwapStorage { k } => with_comp!(k, T => self.swap_storage::<T>()),
            Op::SwapAllocators => self.swap_allocators(),
            Op::AddDeferred { w, t, k } => with_comp!(k, T => self.add_deferred::<T>(w.into(), t)),
            Op::RemoveDeferred { w, t, k } => {
                with_comp!(k, T => self.remove_deferred::<T>(w.into(), t))
            }
            Op::DespawnDeferred { w, t } => {
                let w = usize::from(w);
                let e = self.target(w, t);
                let alive = self.models[w].alive.contains(&e);
                assert_eq!(self.worlds[w].despawn_deferred(e), alive);
                if alive {
                    self.sync_queue(w);
                    self.models[w].despawns.push(e);
                }
            }
            Op::Finalize { w } => self.finalize(w.into()),
        }
        self.check();
    }

    fn spawn(&mut self, w: usize, set: u8) {
        let world = &mut self.worlds[w];
        let (p, v, n) = (set & 1 != 0, set & 2 != 0, set & 4 != 0);
        let e = match (p, v, n) {
            (false, false, false) => world.spawn(),
            (true, false, false) => world.spawn_with((P::make(),)),
            (true, true, false) => world.spawn_with((P::make(), V::make())),
            (false, true, true) => world.spawn_with((N::make(), V::make())),
            (true, true, true) => world.spawn_with((V::make(), N::make(), P::make())),
            _ => world.spawn_with((N::make(),)),
        };
        // A spawn uses every storage and the queue: limbo is gone.
        self.sync_queue(w);
        let m = &mut self.models[w];
        m.limbo = Default::default();
        assert!(!m.alive.contains(&e), "{e:?} handed out while alive");
        m.alive.insert(e);
        m.issued.push(e);
        let world = &self.worlds[w];
        // Exactly what it was given, nothing more.
        let ids = [
            world.get::<P>(e).map(P::id),
            world.get::<V>(e).map(V::id),
            world.get::<N>(e).map(N::id),
        ];
        let expected = match (p, v, n) {
            (false, false, false) => [false, false, false],
            (true, false, false) => [true, false, false],
            (true, true, false) => [true, true, false],
            (false, true, true) => [false, true, true],
            (true, true, true) => [true, true, true],
            _ => [false, false, true],
        };
        for k in 0..3 {
            assert_eq!(
                ids[k].is_some(),
                expected[k],
                "a fresh {e:?} holds component {k} it was not given, or lacks one it was"
            );
            if let Some(id) = ids[k] {
                m.shown[k].insert(e, id);
            }
        }
    }

    /// After a change to component `k` that runs the group's upkeep (any
    /// change to a grouped component): the upkeep brings the group's
    /// storages in step.
    fn used(&mut self, w: usize, k: usize) {
        if k < 2 {
            let limbo = &mut self.models[w].limbo;
            limbo[0].clear();
            limbo[1].clear();
        }
    }

    fn add<T: Comp>(&mut self, w: usize, t: u8, insert: bool)
    where
        Game: Contains<T>,
    {
        let e = self.target(w, t);
        let value = T::make();
        let id = value.id();
        let alive = self.models[w].alive.contains(&e);
        let had = self.models[w].shown[T::K].get(&e).copied();
        if alive {
            // Adding brings the storage in step first.
            self.models[w].limbo[T::K].clear();
        }
        if insert {
            match self.worlds[w].try_insert(e, value) {
                Ok(old) => {
                    assert!(alive, "insert on dead {e:?} succeeded");
                    assert_eq!(old.map(|old| old.id()), had);
                    self.models[w].shown[T::K].insert(e, id);
                }
                Err(error) => {
                    assert!(!alive);
                    assert_eq!(error.into_component().id(), id);
                }
            }
        } else {
            match self.worlds[w].try_add(e, value) {
                Ok(()) => {
                    assert!(
                        alive && had.is_none(),
                        "add to {e:?} succeeded: a second value?"
                    );
                    self.models[w].shown[T::K].insert(e, id);
                }
                Err(error) => {
                    assert!(!alive || had.is_some(), "add to {e:?} was refused");
                    assert_eq!(error.into_component().id(), id);
                    // Refused: no group upkeep ran.
                    return;
                }
            }
        }
        if alive {
            self.used(w, T::K);
        }
    }

    fn remove<T: Comp>(&mut self, w: usize, t: u8)
    where
        Game: Contains<T>,
    {
        let e = self.target(w, t);
        let expected = self.models[w].shown[T::K].remove(&e);
        let removed = self.worlds[w].remove::<T>(e);
        assert_eq!(
            removed.map(|value| value.id()),
            expected,
            "remove from {e:?}"
        );
        self.used(w, T::K);
    }

    fn query_mut(&mut self, w: usize) {
        let mut seen = Vec::new();
        self.worlds[w]
            .query_mut::<(&mut P, &V)>()
            .for_each(|e, (p, v)| seen.push((e, p.id(), v.id())));
        seen.sort();
        let m = &mut self.models[w];
        let expected: Vec<(Entity, u64, u64)> = m.shown[0]
            .iter()
            .filter_map(|(&e, &p)| Some((e, p, *m.shown[1].get(&e)?)))
            .collect();
        assert_eq!(seen, expected, "query_mut over (P, V)");
        m.limbo[0].clear();
        m.limbo[1].clear();
    }

    fn add_deferred<T: Comp>(&mut self, w: usize, t: u8)
    where
        Game: Contains<T>,
    {
        let e = self.target(w, t);
        let value = T::make();
        let id = value.id();
        let alive = self.models[w].alive.contains(&e);
        if alive {
            // Queueing brings the storage and the queue in step first.
            self.models[w].limbo[T::K].clear();
            self.sync_queue(w);
        }
        let m = &mut self.models[w];
        let queued = m.adds[T::K].iter().any(|&(x, _)| x == e);
        let present = m.shown[T::K].contains_key(&e) && !m.removes[T::K].contains(&e);
        match self.worlds[w].try_add_deferred(e, value) {
            Ok(()) => {
                assert!(
                    alive && !queued && !present,
                    "add_deferred to {e:?} accepted"
                );
                m.adds[T::K].push((e, id));
            }
            Err(error) => {
                assert!(!alive || queued || present, "add_deferred to {e:?} refused");
                assert_eq!(error.into_component().id(), id);
            }
        }
    }

    fn remove_deferred<T: Comp>(&mut self, w: usize, t: u8)
    where
        Game: Contains<T>,
    {
        let e = self.target(w, t);
        let alive = self.models[w].alive.contains(&e);
        assert_eq!(self.worlds[w].remove_deferred::<T>(e), alive);
        if alive {
            self.sync_queue(w);
            let removes = &mut self.models[w].removes[T::K];
            if !removes.contains(&e) {
                removes.push(e);
            }
        }
    }

    /// World `w` retired entities: its allocator's state is new, and its
    /// queue, if in step, stays so (the retired entities' entries went).
    fn restamp(&mut self, w: usize) {
        self.stamps += 1;
        let m = &mut self.models[w];
        if m.queue_id == m.alloc_id {
            m.queue_id = self.stamps;
        }
        m.alloc_id = self.stamps;
    }

    /// World `w` brings its queue in step: what it holds for entities not
    /// alive is dropped.
    fn sync_queue(&mut self, w: usize) {
        let m = &mut self.models[w];
        if m.queue_id != m.alloc_id {
            let alive = m.alive.clone();
            for k in 0..3 {
                m.adds[k].retain(|(e, _)| alive.contains(e));
                m.removes[k].retain(|e| alive.contains(e));
            }
            m.despawns.retain(|e| alive.contains(e));
            m.queue_id = m.alloc_id;
        }
    }

    /// The sync point: every storage and the queue in step, then removals,
    /// additions (replacing what is there) and despawns.
    fn finalize(&mut self, w: usize) {
        self.worlds[w].finalize_updates();
        self.sync_queue(w);
        let m = &mut self.models[w];
        m.limbo = Default::default();
        for k in 0..3 {
            for e in std::mem::take(&mut m.removes[k]) {
                m.shown[k].remove(&e);
            }
        }
        for k in 0..3 {
            for (e, id) in std::mem::take(&mut m.adds[k]) {
                m.shown[k].insert(e, id);
            }
        }
        for e in std::mem::take(&mut self.models[w].despawns) {
            let m = &mut self.models[w];
            if m.alive.remove(&e) {
                for column in &mut m.shown {
                    column.remove(&e);
                }
                self.restamp(w);
            }
        }
    }

    /// What `T`'s storage of world `w` holds now, checked against the model
    /// (all it shows, plus some of its limbo); the limbo is narrowed to it.
    fn resolve<T: Comp>(&mut self, w: usize) -> Column
    where
        Game: Contains<T>,
    {
        let holds: Column = T::field(&mut self.worlds[w])
            .iter()
            .map(|(e, value)| (e, value.id()))
            .collect();
        let m = &mut self.models[w];
        for (e, id) in &m.shown[T::K] {
            assert_eq!(holds.get(e), Some(id), "the storage lost {e:?}'s value");
        }
        for (e, id) in &holds {
            let known = m.shown[T::K].get(e) == Some(id) || m.limbo[T::K].get(e) == Some(id);
            assert!(
                known,
                "the storage holds {e:?} → #{id}, unknown to the model"
            );
        }
        m.limbo[T::K] = holds
            .iter()
            .filter(|(e, _)| !m.shown[T::K].contains_key(e))
            .map(|(&e, &id)| (e, id))
            .collect();
        holds
    }

    /// Puts `content` (what a storage holds) as component `k` of world `w`:
    /// shown where the entity is alive, in limbo elsewhere.
    fn arrive(&mut self, w: usize, k: usize, content: &Column) {
        let m = &mut self.models[w];
        m.shown[k].clear();
        m.limbo[k].clear();
        for (&e, &id) in content {
            if m.alive.contains(&e) {
                m.shown[k].insert(e, id);
            } else {
                m.limbo[k].insert(e, id);
            }
        }
    }

    fn take<T: Comp>(&mut self, w: usize)
    where
        Game: Contains<T>,
        HeldStorage: From<SparseMap<T>>,
    {
        let content = self.resolve::<T>(w);
        let storage = std::mem::take(T::field(&mut self.worlds[w]));
        self.arrive(w, T::K, &Column::new());
        self.held.push(Held {
            storage: storage.into(),
            content,
        });
    }

    fn put_back(&mut self, w: usize, h: u8) {
        if self.held.is_empty() {
            return;
        }
        let Held { storage, content } = self.held.swap_remove(usize::from(h) % self.held.len());
        // The storage it replaces is dropped with everything it holds.
        let k = match storage {
            HeldStorage::P(storage) => {
                self.resolve::<P>(w);
                self.worlds[w].p = storage;
                0
            }
            HeldStorage::V(storage) => {
                self.resolve::<V>(w);
                self.worlds[w].v = storage;
                1
            }
            HeldStorage::N(storage) => {
                self.resolve::<N>(w);
                self.worlds[w].n = storage;
                2
            }
        };
        self.arrive(w, k, &content);
    }

    fn clone_from<T: Comp>(&mut self, w: usize)
    where
        Game: Contains<T>,
    {
        let src = 1 - w;
        self.resolve::<T>(w);
        let copy = T::field(&mut self.worlds[src]).clone();
        let content: Column = copy.iter().map(|(e, value)| (e, value.id())).collect();
        *T::field(&mut self.worlds[w]) = copy;
        self.arrive(w, T::K, &content);
    }

    fn swap_storage<T: Comp>(&mut self)
    where
        Game: Contains<T>,
    {
        let a = self.resolve::<T>(0);
        let b = self.resolve::<T>(1);
        let [w0, w1] = &mut self.worlds;
        std::mem::swap(T::field(w0), T::field(w1));
        self.arrive(0, T::K, &b);
        self.arrive(1, T::K, &a);
    }

    fn swap_allocators(&mut self) {
        let mut contents = Vec::new();
        for w in 0..2 {
            contents.push([
                self.resolve::<P>(w),
                self.resolve::<V>(w),
                self.resolve::<N>(w),
            ]);
        }
        let [w0, w1] = &mut self.worlds;
        std::mem::swap(&mut w0.entities, &mut w1.entities);
        let [m0, m1] = &mut self.models;
        std::mem::swap(&mut m0.issued, &mut m1.issued);
        std::mem::swap(&mut m0.alive, &mut m1.alive);
        // Each queue stays with its world, out of step with its new
        // allocator until the world next uses it.
        std::mem::swap(&mut m0.alloc_id, &mut m1.alloc_id);
        for (w, content) in contents.iter().enumerate() {
            for (k, column) in content.iter().enumerate() {
                self.arrive(w, k, column);
            }
        }
    }

    /// Every read of both worlds against the model, and the ledger.
    fn check(&self) {
        for w in 0..2 {
            let (world, m) = (&self.worlds[w], &self.models[w]);
            world.assert_invariants();
            assert_eq!(world.entity_count(), m.alive.len());
            for &e in &m.issued {
                assert_eq!(world.is_alive(e), m.alive.contains(&e));
            }
            self.check_column::<P>(w);
            self.check_column::<V>(w);
            self.check_column::<N>(w);
            let mut seen: Vec<(Entity, u64, u64)> = world
                .query::<(&P, &V)>()
                .map(|(e, (p, v))| (e, p.id(), v.id()))
                .collect();
            seen.sort();
            let both: Vec<(Entity, u64, u64)> = m.shown[0]
                .iter()
                .filter_map(|(&e, &p)| Some((e, p, *m.shown[1].get(&e)?)))
                .collect();
            assert_eq!(seen, both, "query over (P, V) of world {w}");
            if let Some(len) = world.group_len::<(P, V)>() {
                assert_eq!(len, both.len(), "group_len of world {w}");
            }
        }
        // Every value the model shows is alive; every value alive is shown,
        // in limbo, or in a storage kept aside.
        let mut allowed: HashSet<u64> = HashSet::new();
        let mut shown: HashSet<u64> = HashSet::new();
        for m in &self.models {
            for k in 0..3 {
                shown.extend(m.shown[k].values());
                shown.extend(m.adds[k].iter().map(|&(_, id)| id));
                allowed.extend(m.limbo[k].values());
            }
        }
        for held in &self.held {
            allowed.extend(held.content.values());
        }
        LEDGER.with(|ledger| {
            let ledger = ledger.borrow();
            for id in &shown {
                assert!(ledger.contains(id), "value #{id} was dropped while shown");
            }
            for id in ledger.iter() {
                assert!(
                    shown.contains(id) || allowed.contains(id),
                    "value #{id} leaked"
                );
            }
        });
    }

    fn check_column<T: Comp>(&self, w: usize)
    where
        Game: Contains<T>,
    {
        let (world, m) = (&self.worlds[w], &self.models[w]);
        let expected = &m.shown[T::K];
        assert_eq!(
            world.size::<T>(),
            expected.len(),
            "size of {} in world {w}",
            T::K
        );
        for (&e, &id) in expected {
            assert_eq!(world.get::<T>(e).map(T::id), Some(id));
            assert!(world.has::<T>(e));
        }
        for &e in &m.issued {
            if !expected.contains_key(&e) {
                assert!(
                    world.get::<T>(e).is_none(),
                    "{e:?} shows a value it should not"
                );
            }
        }
        let mut by_index = Column::new();
        for i in 0..world.size::<T>() {
            let e = world.entity_at::<T>(i);
            assert!(m.alive.contains(&e), "entity_at yields dead {e:?}");
            assert!(by_index.insert(e, world.value_at::<T>(i).id()).is_none());
        }
        assert_eq!(&by_index, expected, "index access to {} in world {w}", T::K);
        let queried: Column = world
            .query::<&T>()
            .map(|(e, value)| (e, value.id()))
            .collect();
        assert_eq!(&queried, expected, "query over {} in world {w}", T::K);
    }

    fn finish(self) {
        drop(self.worlds);
        drop(self.held);
        LEDGER.with(|ledger| {
            let ledger = ledger.borrow();
            assert!(ledger.is_empty(), "values never dropped: {ledger:?}");
        });
    }
}

impl From<SparseMap<P>> for HeldStorage {
    fn from(storage: SparseMap<P>) -> Self {
        HeldStorage::P(storage)
    }
}
impl From<SparseMap<V>> for HeldStorage {
    fn from(storage: SparseMap<V>) -> Self {
        HeldStorage::V(storage)
    }
}
impl From<SparseMap<N>> for HeldStorage {
    fn from(storage: SparseMap<N>) -> Self {
        HeldStorage::N(storage)
    }
}

fn run(codes: &[[u8; 4]]) {
    let mut sim = Sim::new();
    for &code in codes {
        sim.step(op_from(code));
    }
    sim.finish();
}

proptest! {
    // PROPTEST_CASES sets the number of sequences (256 by default).
    #[test]
    fn storages_moved_around_never_break_a_world(
        codes in proptest::collection::vec(any::<[u8; 4]>(), 0..200)
    ) {
        run(&codes);
    }
}

/// The three cases of the issue that reported the problem, spelled out.
#[test]
fn the_reported_cases() {
    // A storage taken out while its entity is despawned, then put back.
    let mut world = Game::new();
    let e = world.spawn_with((P::make(), V::make()));
    let taken = std::mem::take(&mut world.p);
    world.despawn(e);
    world.p = taken;
    assert_eq!(world.query::<&P>().count(), 0);
    assert_eq!(world.size::<P>(), 0);
    let reused = world.spawn();
    assert_eq!(reused.index(), e.index());
    world.add(reused, P::make()); // no internal assertion
    assert_eq!(world.p.len(), 1);
    assert!(
        world.try_add(reused, P::make()).is_err(),
        "one value per entity"
    );
    world.add(reused, V::make());
    assert_eq!(world.group_len::<(P, V)>(), Some(1));
    world.assert_invariants();

    // A storage cloned from another world.
    let mut other = Game::new();
    other.spawn_with((N::make(),));
    let mut world = Game::new();
    world.n = other.n.clone();
    let fresh = world.spawn();
    assert!(
        !world.has::<N>(fresh),
        "a fresh entity came out holding a value"
    );
    assert_eq!(world.n.len(), 0);

    // Grouped storages swapped into an empty world.
    let mut full = Game::new();
    for _ in 0..4 {
        full.spawn_with((P::make(), V::make()));
    }
    let mut empty = Game::new();
    std::mem::swap(&mut empty.p, &mut full.p);
    std::mem::swap(&mut empty.v, &mut full.v);
    assert_ne!(empty.group_len::<(P, V)>(), Some(4));
    assert_eq!(empty.query::<(&P, &V)>().count(), 0);
    let mut rows = 0;
    empty.query_mut::<(&mut P, &V)>().for_each(|_, _| rows += 1);
    assert_eq!(rows, 0);
    assert_eq!(empty.group_len::<(P, V)>(), Some(0));
    empty.assert_invariants();
}
