//! Hooks: every add, removal and change reported exactly once to every
//! hook of its component, in declared order, with the right values, through
//! every path (direct, batch, deferred, `Commands`, despawn, `remove_all`,
//! `clear`, load), panics in hooks included; the commands hooks queue are
//! applied breadth-first up to the world's depth, and the rest reported;
//! every value dropped exactly once.

#[path = "support/rng.rs"]
mod rng;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};

use rng::Rng;
use typed_ecs::prelude::*;
use typed_ecs::{HookKind, Skipped};

// ----- values that count themselves -----

thread_local! {
    /// By value id: how many copies of it are alive (made, cloned or
    /// loaded, minus dropped).
    static ALIVE: RefCell<HashMap<u64, i64>> = RefCell::new(HashMap::new());
}

fn made(id: u64) {
    ALIVE.with(|alive| *alive.borrow_mut().entry(id).or_insert(0) += 1);
}

/// A hooked component whose every copy is counted: `Val(id)`.
#[derive(Debug, PartialEq, Eq)]
pub struct Val(u64);

impl Val {
    fn new(id: u64) -> Self {
        made(id);
        Val(id)
    }
}

impl Clone for Val {
    fn clone(&self) -> Self {
        Val::new(self.0)
    }
}

impl Drop for Val {
    fn drop(&mut self) {
        ALIVE.with(|alive| {
            let mut alive = alive.borrow_mut();
            let count = alive
                .get_mut(&self.0)
                .expect("a value dropped that was never made");
            *count -= 1;
            assert!(*count >= 0, "value {} dropped twice", self.0);
        });
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Val {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Val {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        u64::deserialize(d).map(Val::new)
    }
}

/// A component without hooks.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Plain(u32);

/// A tracked component with an `on_change` hook.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Pos(i64);

// ----- what the hooks saw -----

/// One call of a hook: its name, its batch, and whether it panicked then.
#[derive(Debug, Clone)]
pub struct Call {
    hook: &'static str,
    entries: Vec<(Entity, Option<u64>)>,
    panicked: bool,
}

/// Every call, in order.
#[derive(Default)]
pub struct Calls(Vec<Call>);

/// The hook that panics at its next call, if any.
#[derive(Default)]
pub struct Chaos(Option<&'static str>);

macro_rules! game {
    ($($attribute:tt)*) => {
        world! {
            $($attribute)*
            pub struct Game<Val, Plain, Pos>;
            resources {
                #[serde(skip)]
                calls: Calls,
                #[serde(skip)]
                chaos: Chaos,
            }
            tracked (Pos);
            hooks {
                on_add(Val) => add_first, add_second;
                on_remove(Val) => remove_first, remove_second;
                on_change(Pos) => moved;
            }
        }
    };
}

#[cfg(feature = "serde")]
game!(#[derive(serde::Serialize, serde::Deserialize)]);
#[cfg(not(feature = "serde"))]
game!();

/// Records the call, then panics if the chaos says this hook does.
fn record(
    calls: &mut Calls,
    chaos: &mut Chaos,
    hook: &'static str,
    entries: Vec<(Entity, Option<u64>)>,
) {
    let panics = chaos.0 == Some(hook);
    calls.0.push(Call {
        hook,
        entries,
        panicked: panics,
    });
    if panics {
        chaos.0 = None;
        panic!("hook {hook} panics, as the test asked");
    }
}

fn add_first(added: OnAdd<Val>, vals: &SparseMap<Val>, calls: &mut Calls, chaos: &mut Chaos) {
    // The world is consistent: each entity that still has a `Val` has it
    // in the storage the hook reads.
    let entries = added
        .iter()
        .map(|&e| (e, vals.get(e).map(|v| v.0)))
        .collect();
    record(calls, chaos, "add_first", entries);
}

fn add_second(added: OnAdd<Val>, vals: &SparseMap<Val>, calls: &mut Calls, chaos: &mut Chaos) {
    let entries = added
        .iter()
        .map(|&e| (e, vals.get(e).map(|v| v.0)))
        .collect();
    record(calls, chaos, "add_second", entries);
}

fn remove_first(removed: OnRemove<Val>, calls: &mut Calls, chaos: &mut Chaos) {
    let entries = removed.into_iter().map(|(e, v)| (e, Some(v.0))).collect();
    record(calls, chaos, "remove_first", entries);
}

fn remove_second(removed: OnRemove<Val>, calls: &mut Calls, chaos: &mut Chaos) {
    let entries = removed.into_iter().map(|(e, v)| (e, Some(v.0))).collect();
    record(calls, chaos, "remove_second", entries);
}

fn moved(changed: OnChange<Pos>, calls: &mut Calls, chaos: &mut Chaos) {
    let entries = changed.iter().map(|&e| (e, None)).collect();
    record(calls, chaos, "moved", entries);
}

// ----- the model -----

/// What the world should hold, and what the hooks should have seen.
#[derive(Default)]
struct Model {
    vals: BTreeMap<Entity, u64>,
    plain: BTreeMap<Entity, u32>,
    pos: BTreeMap<Entity, i64>,
    /// Entities whose `Pos` changed since the last sync point.
    moved: BTreeSet<Entity>,
    /// Every `(entity, value)` that gained a `Val`, and that lost one.
    added: Vec<(Entity, u64)>,
    removed: Vec<(Entity, u64)>,
    /// Every entity the `on_change` hook should have been told of.
    changed: Vec<Entity>,
    /// The last sync point of this step: how long `changed` was, and what
    /// had moved (a hook of an earlier line that panics there stops the
    /// `on_change` line: its changes wait for the next sync point).
    last_sync: Option<(usize, BTreeSet<Entity>)>,
}

impl Model {
    fn alive(&self, world: &Game) -> Vec<Entity> {
        let mut all: BTreeSet<Entity> = self.vals.keys().copied().collect();
        all.extend(self.plain.keys());
        all.extend(self.pos.keys());
        all.retain(|e| world.is_alive(*e));
        all.into_iter().collect()
    }

    fn add_val(&mut self, e: Entity, id: u64) {
        if let Some(old) = self.vals.insert(e, id) {
            panic!("model: {e:?} had {old}");
        }
        self.added.push((e, id));
    }

    fn remove_val(&mut self, e: Entity) {
        if let Some(id) = self.vals.remove(&e) {
            self.removed.push((e, id));
        }
    }

    fn despawn(&mut self, e: Entity) {
        self.remove_val(e);
        self.plain.remove(&e);
        if self.pos.remove(&e).is_some() {
            self.moved.remove(&e);
        }
    }

    fn set_pos(&mut self, e: Entity, p: i64) {
        self.pos.insert(e, p);
        self.moved.insert(e);
    }

    /// A sync point: the `on_change` hook sees what moved and still has a
    /// `Pos`.
    fn sync(&mut self) {
        self.last_sync = Some((self.changed.len(), self.moved.clone()));
        let moved = std::mem::take(&mut self.moved);
        self.changed
            .extend(moved.into_iter().filter(|e| self.pos.contains_key(e)));
    }
}

/// The world's contents against the model's.
fn check_contents(world: &Game, model: &Model) {
    let vals: BTreeMap<Entity, u64> = world.val.iter().map(|(e, v)| (e, v.0)).collect();
    assert_eq!(vals, model.vals);
    let plain: BTreeMap<Entity, u32> = world.plain.iter().map(|(e, p)| (e, p.0)).collect();
    assert_eq!(plain, model.plain);
    let pos: BTreeMap<Entity, i64> = world.pos.iter().map(|(e, p)| (e, p.0)).collect();
    assert_eq!(pos, model.pos);
}

// ----- one run -----

struct Run {
    rng: Rng,
    next_id: u64,
    world: Game,
    model: Model,
    /// Every call of every hook, across reloads.
    calls: Vec<Call>,
    /// Every hook that missed a batch.
    skipped: Vec<Skipped>,
    /// How many times a hook panicked.
    panics: usize,
}

impl Run {
    fn new(seed: u64) -> Self {
        Run {
            rng: Rng::new(seed),
            next_id: 0,
            world: Game::new(),
            model: Model::default(),
            calls: Vec::new(),
            skipped: Vec::new(),
            panics: 0,
        }
    }

    fn val(&mut self) -> (Val, u64) {
        self.next_id += 1;
        (Val::new(self.next_id), self.next_id)
    }

    fn pick(&mut self) -> Option<Entity> {
        let alive = self.model.alive(&self.world);
        (!alive.is_empty()).then(|| alive[self.rng.index(alive.len())])
    }

    /// The hooks' calls and report since the last look.
    fn collect(&mut self) {
        self.calls.append(&mut self.world.calls.0);
        self.take_report();
    }

    /// The hooks' report since it was last taken.
    fn take_report(&mut self) {
        let report = self.world.take_hook_report();
        assert!(report.commands().is_empty() && report.beyond_depth() == 0);
        self.skipped.extend(report.skipped().iter().cloned());
    }

    /// One random operation, through one of the paths. A hook may be told
    /// to panic during it: the change is applied all the same.
    fn step(&mut self) {
        if self.rng.chance(6) {
            let hook = [
                "add_first",
                "add_second",
                "remove_first",
                "remove_second",
                "moved",
            ][self.rng.index(5)];
            self.world.chaos.0 = Some(hook);
        }
        self.model.last_sync = None;
        let calls_before = self.world.calls.0.len();
        let result = catch_unwind(AssertUnwindSafe(|| self.operation()));
        if result.is_err() {
            self.panics += 1;
            let moved_ran = self.world.calls.0[calls_before..]
                .iter()
                .any(|c| c.hook == "moved");
            if let (false, Some((len, moved))) = (moved_ran, self.model.last_sync.take()) {
                // The sync point stopped before its `on_change` line.
                self.model.changed.truncate(len);
                let still: Vec<Entity> = moved
                    .into_iter()
                    .filter(|e| self.model.pos.contains_key(e))
                    .collect();
                self.model.moved.extend(still);
            }
        }
        self.world.chaos.0 = None;
        // The report is taken now and then: a line a panic stopped is
        // reported even when others ran since.
        self.calls.append(&mut self.world.calls.0);
        if self.rng.chance(20) {
            self.take_report();
        }
        check_contents(&self.world, &self.model);
    }

    // The model's map and the world are changed side by side: `entry` would
    // hold the map across the world's call.
    #[allow(clippy::map_entry)]
    fn operation(&mut self) {
        // The model changes first: the world applies each change before
        // any hook runs, so a panicking hook leaves it applied.
        match self.rng.below(16) {
            0 => {
                let (v, _) = self.val();
                let p = self.rng.below(100) as i64;
                self.spawning(|world| {
                    world.spawn_with((v, Pos(p)));
                });
            }
            1 => {
                self.spawning(|world| {
                    world.spawn_with((Plain(1),));
                });
            }
            2 => {
                let n = 1 + self.rng.index(5);
                let bundles: Vec<(Val, u64)> = (0..n).map(|_| self.val()).collect();
                self.spawning(|world| {
                    world.spawn_batch(bundles.into_iter().map(|(v, _)| (v, Plain(2))));
                });
            }
            3 => {
                if let Some(e) = self.pick() {
                    let (v, id) = self.val();
                    if self.model.vals.contains_key(&e) {
                        // A replacement is no add and no removal.
                        let old = self.model.vals.insert(e, id);
                        let got = self.world.insert(e, v).map(|v| v.0);
                        assert_eq!(got, old);
                    } else {
                        self.model.add_val(e, id);
                        self.world.add(e, v);
                    }
                }
            }
            4 => {
                if let Some(e) = self.pick() {
                    let expected = self.model.vals.get(&e).copied();
                    self.model.remove_val(e);
                    let mut got = None;
                    let result = catch_unwind(AssertUnwindSafe(|| {
                        got = self.world.remove::<Val>(e).map(|v| v.0);
                    }));
                    if let Err(panic) = result {
                        std::panic::resume_unwind(panic);
                    }
                    assert_eq!(got, expected, "remove hands the value back");
                }
            }
            5 => {
                if let Some(e) = self.pick() {
                    self.model.despawn(e);
                    self.world.despawn(e);
                }
            }
            6 => {
                let n = self.rng.index(4);
                let picked: Vec<Entity> = (0..n).filter_map(|_| self.pick()).collect();
                let unique: BTreeSet<Entity> = picked.iter().copied().collect();
                for &e in &picked {
                    if unique.contains(&e) {
                        self.model.despawn(e);
                    }
                }
                self.world.despawn_batch(picked);
            }
            7 => {
                if let Some(e) = self.pick() {
                    self.model.remove_val(e);
                    self.model.plain.remove(&e);
                    if self.model.pos.remove(&e).is_some() {
                        self.model.moved.remove(&e);
                    }
                    self.world.remove_all(e);
                }
            }
            8 | 9 => self.deferred(),
            10 | 11 => self.commands(),
            12 => {
                if let Some(e) = self.pick() {
                    if let Some(p) = self.world.pos.get_mut(e) {
                        p.0 += 1;
                        let p = p.0;
                        self.model.set_pos(e, p);
                    }
                }
            }
            13 => {
                self.model.sync();
                self.world.finalize_updates();
            }
            14 => {
                if self.rng.chance(15) {
                    let all: Vec<Entity> = self.model.vals.keys().copied().collect();
                    for e in all {
                        self.model.remove_val(e);
                    }
                    self.model.plain.clear();
                    self.model.pos.clear();
                    self.model.moved.clear();
                    self.world.clear();
                }
            }
            _ => self.reload(),
        }
    }

    /// Runs `spawn`, which makes entities (a hook may panic after it did),
    /// and adds to the model what the new entities hold, read from the
    /// world: the values are unique, so this is the model's own record.
    fn spawning(&mut self, spawn: impl FnOnce(&mut Game)) {
        let before: BTreeSet<Entity> = self.world.entities.iter().collect();
        let result = catch_unwind(AssertUnwindSafe(|| spawn(&mut self.world)));
        self.spawned(&before);
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    }

    /// The model takes in the entities alive now that were not `before`.
    fn spawned(&mut self, before: &BTreeSet<Entity>) {
        let made: Vec<Entity> = self
            .world
            .entities
            .iter()
            .filter(|e| !before.contains(e))
            .collect();
        for e in made {
            if let Some(v) = self.world.val.get(e) {
                let id = v.0;
                self.model.add_val(e, id);
            }
            if let Some(p) = self.world.plain.get(e) {
                self.model.plain.insert(e, p.0);
            }
            if let Some(p) = self.world.pos.get(e) {
                let p = p.0;
                self.model.set_pos(e, p);
            }
        }
    }

    /// The world's own queue: changes checked when queued, applied at the
    /// sync point, in the rule table's order (removals, additions,
    /// despawns).
    #[allow(clippy::map_entry)]
    fn deferred(&mut self) {
        let mut removals = Vec::new();
        let mut additions = Vec::new();
        let mut despawns = Vec::new();
        for _ in 0..self.rng.index(5) {
            let Some(e) = self.pick() else { break };
            match self.rng.below(3) {
                0 => {
                    let (v, id) = self.val();
                    if self.world.try_add_deferred(e, v).is_ok() {
                        additions.push((e, id));
                    }
                }
                1 => {
                    if self.world.remove_deferred::<Val>(e) {
                        removals.push(e);
                    }
                }
                _ => {
                    if self.world.despawn_deferred(e) {
                        despawns.push(e);
                    }
                }
            }
        }
        // Removals first: a queued removal of a value the entity has.
        for e in removals {
            self.model.remove_val(e);
        }
        for (e, id) in additions {
            if self.model.vals.contains_key(&e) {
                // Added after the add was queued: the queued one replaces.
                self.model.vals.insert(e, id);
            } else {
                self.model.add_val(e, id);
            }
        }
        for e in despawns {
            self.model.despawn(e);
        }
        self.model.sync();
        self.world.finalize_updates();
    }

    /// A command buffer: checked when applied, in the same order.
    fn commands(&mut self) {
        let mut commands = Commands::<Game>::new();
        let mut removals = Vec::new();
        let mut additions = Vec::new();
        let mut despawns = Vec::new();
        let mut spawns = Vec::new();
        for _ in 0..self.rng.index(5) {
            match (self.rng.below(4), self.pick()) {
                (0, Some(e)) => {
                    let (v, id) = self.val();
                    commands.add(e, v);
                    additions.push((e, id));
                }
                (1, Some(e)) => {
                    commands.remove::<Val>(e);
                    removals.push(e);
                }
                (2, Some(e)) => {
                    commands.despawn(e);
                    despawns.push(e);
                }
                _ => {
                    let (v, id) = self.val();
                    spawns.push((commands.spawn_with((v,)), id));
                }
            }
        }
        let alive_before: BTreeSet<Entity> = self.world.entities.iter().collect();
        // Everything is applied before any hook runs: a panicking hook
        // leaves the buffer applied.
        let result = catch_unwind(AssertUnwindSafe(|| self.world.apply(&mut commands)));
        // Spawns first (their handles are real by the queues' turn).
        let _ = spawns;
        self.spawned(&alive_before);
        for e in removals {
            self.model.remove_val(e);
        }
        for (e, id) in additions {
            // Rejected if it has one (after the removals).
            if !self.model.vals.contains_key(&e) && alive_before.contains(&e) {
                self.model.add_val(e, id);
            }
        }
        for e in despawns {
            self.model.despawn(e);
        }
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    }

    /// Saved and loaded: a load makes a new world, and runs no hook; its
    /// `on_change` hook first sees every `Pos` as changed.
    fn reload(&mut self) {
        #[cfg(feature = "serde")]
        {
            // Pending reactions (left by a panic) run first.
            self.model.sync();
            self.world.finalize_updates();
            self.collect();
            let json = serde_json::to_string(&self.world).unwrap();
            self.world = serde_json::from_str(&json).unwrap();
            self.model.moved = self.model.pos.keys().copied().collect();
        }
    }
}

/// Every hook's calls, flattened: `(entity, value)` per entry, sorted.
fn seen_by(calls: &[Call], hook: &str) -> Vec<(Entity, Option<u64>)> {
    let mut seen: Vec<_> = calls
        .iter()
        .filter(|call| call.hook == hook)
        .flat_map(|call| call.entries.iter().copied())
        .collect();
    seen.sort();
    seen
}

/// What the second hook of a line should have seen: what the first saw,
/// minus the batches over which the first panicked.
fn after_first(calls: &[Call], first: &str) -> Vec<(Entity, Option<u64>)> {
    let mut seen: Vec<_> = calls
        .iter()
        .filter(|call| call.hook == first && !call.panicked)
        .flat_map(|call| call.entries.iter().copied())
        .collect();
    seen.sort();
    seen
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

fn run_model(seed: u64, steps: usize) -> usize {
    let mut run = Run::new(seed);
    for _ in 0..steps {
        run.step();
    }
    // A last sync point, without panics: what waited runs.
    run.model.sync();
    run.world.finalize_updates();
    run.collect();
    check_contents(&run.world, &run.model);
    let calls = &run.calls;

    // Declared order: within a line, the second hook's call follows the
    // first's, over the same batch.
    for pair in calls.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        for (first, second) in [
            ("add_first", "add_second"),
            ("remove_first", "remove_second"),
        ] {
            if b.hook == second {
                assert_eq!(
                    a.hook, first,
                    "seed {seed}: {second} runs right after {first}"
                );
                assert_eq!(a.entries, b.entries, "seed {seed}: one batch for the line");
            }
        }
    }

    // Every add and removal reported exactly once to the first hook of
    // its line, with its value (an entity that lost its `Val` before the
    // add hooks ran sees `None`).
    let added_model = sorted(run.model.added.clone());
    let added_seen: Vec<(Entity, u64)> = {
        let mut seen: Vec<(Entity, u64)> = Vec::new();
        let add_calls: Vec<&Call> = calls.iter().filter(|c| c.hook == "add_first").collect();
        for call in &add_calls {
            for &(e, value) in &call.entries {
                // The value the entity gained: the one the model recorded
                // for it (checked against the storage when it still had it).
                let gained = run
                    .model
                    .added
                    .iter()
                    .filter(|(m, _)| *m == e)
                    .map(|(_, id)| *id)
                    .collect::<Vec<_>>();
                assert!(
                    !gained.is_empty(),
                    "seed {seed}: {e:?} reported added, never was"
                );
                if let Some(value) = value {
                    assert!(
                        gained.contains(&value),
                        "seed {seed}: {e:?} has a value it never gained"
                    );
                }
                seen.push((e, *gained.last().unwrap()));
            }
        }
        sorted(seen)
    };
    let added_entities: Vec<Entity> = added_model.iter().map(|(e, _)| *e).collect();
    let seen_entities: Vec<Entity> = sorted(added_seen.iter().map(|(e, _)| *e).collect());
    assert_eq!(seen_entities, sorted(added_entities), "seed {seed}: adds");
    assert_eq!(
        seen_by(calls, "remove_first"),
        sorted(
            run.model
                .removed
                .iter()
                .map(|&(e, v)| (e, Some(v)))
                .collect()
        ),
        "seed {seed}: removals, with their values"
    );
    assert_eq!(
        seen_by(calls, "moved"),
        sorted(run.model.changed.iter().map(|&e| (e, None)).collect()),
        "seed {seed}: changes"
    );

    // The second hook of each line saw what the first did, but for the
    // batches the first panicked over: those are reported skipped.
    for (first, second, kind) in [
        ("add_first", "add_second", HookKind::Add),
        ("remove_first", "remove_second", HookKind::Remove),
    ] {
        assert_eq!(
            seen_by(calls, second),
            after_first(calls, first),
            "seed {seed}: {second}"
        );
        let panicked: Vec<usize> = calls
            .iter()
            .filter(|c| c.hook == first && c.panicked)
            .map(|c| c.entries.len())
            .collect();
        let skipped: Vec<usize> = run
            .skipped
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| {
                assert_eq!(s.hook, second);
                s.batch
            })
            .collect();
        assert_eq!(skipped, panicked, "seed {seed}: skipped {second}");
    }
    // A hook last in its line that panics skips nothing.
    assert!(run.skipped.iter().all(|s| s.kind != HookKind::Change));

    let panics = run.panics;
    drop(run);
    ALIVE.with(|alive| {
        let alive = alive.borrow();
        let leaked: Vec<_> = alive.iter().filter(|(_, &n)| n != 0).collect();
        assert!(
            leaked.is_empty(),
            "seed {seed}: values not dropped exactly once: {leaked:?}"
        );
    });
    panics
}

#[test]
fn hooks_see_every_change_once_in_order_through_every_path() {
    // Quiet the expected panics' messages.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        if !message.contains("as the test asked") {
            eprintln!("{message}");
        }
    }));
    let mut panics = 0;
    for seed in 0..40 {
        panics += run_model(seed, 400);
    }
    std::panic::set_hook(hook);
    assert!(panics > 20, "the runs panicked in hooks ({panics} times)");
}

/// The commands hooks queue: applied breadth-first (every hook of a level
/// runs before the commands it queued are applied), up to the world's
/// depth; the rest reported and applied at the next change.
mod cascades {
    use typed_ecs::prelude::*;

    pub struct Link(pub u32);
    pub struct Tag;
    #[derive(Default)]
    pub struct Order(pub Vec<(&'static str, u32)>);

    world! {
        pub struct Chain<Link, Tag>;
        resources { order: Order }
        hooks (depth 3) {
            on_add(Link) => extend;
            on_add(Tag) => tagged;
        }
    }

    /// Each link up to 5 queues the next one, tagged.
    fn extend(
        added: OnAdd<Link>,
        links: &SparseMap<Link>,
        order: &mut Order,
        commands: &mut Commands<Chain>,
    ) {
        for e in added {
            let n = links.get(e).expect("it has the link it gained").0;
            order.0.push(("link", n));
            if n < 5 {
                commands.spawn_with((Link(n + 1), Tag));
            }
        }
    }

    fn tagged(added: OnAdd<Tag>, links: &SparseMap<Link>, order: &mut Order) {
        for e in added {
            order.0.push(("tag", links.get(e).map_or(99, |l| l.0)));
        }
    }

    #[test]
    fn breadth_first_up_to_the_depth_then_reported_and_continued() {
        let mut world = Chain::new();
        world.spawn_with((Link(0), Tag));
        // Level 0 is the spawn's own hooks; levels 1 to 3 the commands.
        assert_eq!(
            world.order.0,
            [
                ("link", 0),
                ("tag", 0),
                ("link", 1),
                ("tag", 1),
                ("link", 2),
                ("tag", 2),
                ("link", 3),
                ("tag", 3)
            ]
        );
        let report = world.take_hook_report();
        assert_eq!(report.beyond_depth(), 1, "the buffer spawning link 4 waits");
        assert_eq!(world.link.len(), 4);
        // The next change applies what waited.
        world.order.0.clear();
        world.finalize_updates();
        assert_eq!(
            world.order.0,
            [("link", 4), ("tag", 4), ("link", 5), ("tag", 5)]
        );
        assert!(world.take_hook_report().is_clean());
        assert_eq!(world.link.len(), 6);
    }

    #[test]
    fn a_batch_is_one_call_per_hook() {
        let mut world = Chain::new();
        world.spawn_batch((0..3).map(|_| (Link(5), Tag)));
        assert_eq!(
            world.order.0,
            [
                ("link", 5),
                ("link", 5),
                ("link", 5),
                ("tag", 5),
                ("tag", 5),
                ("tag", 5)
            ]
        );
    }
}

/// Hooks with a schedule: what systems queue is applied at the sync
/// point, and the hooks run there; events sent by a hook reach readers.
mod with_a_schedule {
    use typed_ecs::prelude::*;

    pub struct Health(pub u32);
    pub struct Spawned(pub Entity);
    #[derive(Default)]
    pub struct Seen(pub Vec<Entity>);

    world! {
        pub struct Game<Health>;
        resources { seen: Seen }
        events { spawned: Spawned }
        hooks { on_add(Health) => announce; }
    }

    fn announce(added: OnAdd<Health>, out: &mut Writer<Spawned>) {
        for e in added {
            out.send(Spawned(e));
        }
    }

    fn spawner(commands: &mut Commands<Game>) {
        commands.spawn_with((Health(1),));
    }

    fn listener(events: &Events<Spawned>, inbox: &mut Reader<Spawned>, seen: &mut Seen) {
        seen.0.extend(inbox.read(events).map(|s| s.0));
    }

    #[test]
    fn systems_commands_run_hooks_at_the_sync_point() {
        let mut world = Game::new();
        let mut schedule = Schedule::new();
        schedule
            .add_system(spawner)
            .add_sync_point()
            .add_system(listener);
        schedule.run(&mut world);
        assert_eq!(world.health.len(), 1);
        assert_eq!(world.seen.0, world.health.entities());
    }
}

/// `remove` hands the value back after the hooks saw it; a world without
/// hooks reports clean.
mod values {
    use typed_ecs::prelude::*;

    #[derive(Debug, PartialEq)]
    pub struct Body(pub u32);
    #[derive(Default)]
    pub struct Freed(pub Vec<u32>);

    world! {
        pub struct Game<Body>;
        resources { freed: Freed }
        hooks { on_remove(Body) => first, second, third; }
    }

    fn first(removed: OnRemove<Body>, freed: &mut Freed) {
        freed.0.extend(removed.iter().map(|(_, b)| b.0));
    }
    fn second(removed: OnRemove<Body>, freed: &mut Freed) {
        freed.0.extend(removed.iter().map(|(_, b)| b.0 * 10));
    }
    fn third(removed: OnRemove<Body>, freed: &mut Freed) {
        freed.0.extend(removed.iter().map(|(_, b)| b.0 * 100));
    }

    world! { pub struct Bare<Body>; }

    #[test]
    fn remove_returns_the_value_the_hooks_saw_in_order() {
        let mut world = Game::new();
        let e = world.spawn_with((Body(7),));
        assert_eq!(world.remove::<Body>(e), Some(Body(7)));
        assert_eq!(world.freed.0, [7, 70, 700]);
        assert_eq!(world.remove::<Body>(e), None);
        assert_eq!(world.freed.0.len(), 3, "nothing removed, nothing seen");
    }

    #[test]
    fn clear_reports_every_value_and_a_bare_world_is_clean() {
        let mut world = Game::new();
        world.spawn_batch((1..=3).map(|n| (Body(n),)));
        world.clear();
        assert_eq!(world.freed.0, [1, 2, 3, 10, 20, 30, 100, 200, 300]);
        let mut bare = Bare::new();
        let e = bare.spawn_with((Body(1),));
        bare.despawn(e);
        assert!(bare.take_hook_report().is_clean());
    }
}
