//! The model-based test harness of `typed_ecs`: one world, a plain model of
//! what it must hold, and a checker that runs any sequence of operations on
//! both and compares them after every step.
//!
//! Three drivers share it, so the model is written once:
//!
//! * `tests/model.rs`: seeded runs of 20,000 operations that must reach every
//!   operation and every outcome ([`Coverage`]);
//! * `tests/proptest_model.rs`: random sequences that shrink to a minimal
//!   failing one;
//! * `tests/fuzz_driver.rs` and `fuzz/fuzz_targets/model.rs`: bytes read as
//!   operations ([`ops_from_bytes`]), for random and coverage-guided fuzzing.
//!
//! The world ([`Sim`]) has three components holding a [`Tracked`] payload and
//! one zero-sized [`Marker`]. [`Op`] covers the whole `World` API (immediate,
//! deferred, command buffers, queries, `get_many`, `clear`). After every step
//! the harness compares, for every handle ever issued, `is_alive` and every
//! component (value and identity); `entity_count`; the length of the command
//! buffer; and the drop ledger: the values alive must be exactly the ones the
//! model says are stored, queued, or in the buffer. Every
//! [`DEEP_CHECK_EVERY`] steps it also runs `assert_invariants` and compares
//! each storage's dense arrays and `entities()` with the model. At the end,
//! dropping the world and the buffer must drop every value once.
//!
//! This file holds [`Harness`] and the entry points; `world.rs` the world,
//! its components and the drop ledger; `ops.rs` the operations and their
//! byte decoding; `queries.rs` the query shapes and how they run;
//! `model.rs`, `run.rs` (the other operations), `checker.rs`, `coverage.rs`.
//!
//! Include it with `#[path = "support/harness/mod.rs"] mod harness;` (from
//! `fuzz/fuzz_targets`, `#[path = "../../tests/support/harness/mod.rs"]`);
//! its files load from next to `mod.rs`. It needs only std and `typed_ecs`.
//! The drop ledger is per thread and [`Harness::new`] resets it: run one
//! harness at a time on a thread.

#![allow(dead_code)]

mod checker;
mod coverage;
mod model;
mod ops;
mod queries;
mod run;
mod world;

// The public items, at the paths they had when the harness was one file.
// Each driver uses a few (a sequence pasted from `listing` needs `Target`,
// `K` and `Via`), hence the `allow`.
#[allow(unused_imports)]
pub use self::{
    coverage::{Coverage, OUTCOMES},
    model::Row,
    ops::{ops_from_bytes, Op, Target, Via, OP_KINDS},
    queries::{Term, GET_SHAPES, MUT_SHAPES, READ_SHAPES},
    world::{Comp, Made, Marker, Sim, Tracked, Val, A, B, C, K},
};

use std::panic::{self, AssertUnwindSafe};

use typed_ecs::prelude::*;

use checker::ledger_differs;
use model::Model;
use world::{fresh_value, LEDGER};

/// Entity indices the world may use. Small, so that indices are recycled
/// often (stale handles abound) and spawns run out (`SpawnError`,
/// `RejectReason::OutOfIndices`).
pub const INDEX_LIMIT: usize = 32;

/// `assert_invariants` and the storage-by-storage checks run every this many
/// steps (and at the end).
pub const DEEP_CHECK_EVERY: usize = 16;

/// Bytes per operation in [`ops_from_bytes`]: kind, target mode, target
/// index, component, extra.
pub const CODE_LEN: usize = 5;

/// Runs a harness over `ops` and finishes it; returns what was covered.
pub fn run_ops(ops: &[Op]) -> Coverage {
    let mut harness = Harness::new();
    for op in ops {
        harness.step(op);
    }
    let coverage = harness.coverage().clone();
    harness.finish();
    coverage
}

/// `ops` with each target pinned ([`Harness::pinned`]) to the handle it
/// picks when the sequence runs, up to the step that fails if one does (the
/// steps after it never ran and are left out). The result does what `ops`
/// does, but its targets stay on their entities when earlier operations are
/// dropped, which is what a minimizer needs.
pub fn pin_targets(ops: &[Op]) -> Vec<Op> {
    let mut pinned = Vec::with_capacity(ops.len());
    let _ = panic::catch_unwind(AssertUnwindSafe(|| {
        let mut harness = Harness::new();
        for &op in ops {
            let mut op = op;
            if let Some(target) = op.target_mut() {
                *target = harness.pinned(*target);
            }
            pinned.push(op);
            harness.step(&op);
        }
        harness.finish();
    }));
    pinned
}

/// Why `ops` fails (the panic message), or `None` if it passes.
pub fn failure(ops: &[Op]) -> Option<String> {
    let payload = panic::catch_unwind(AssertUnwindSafe(|| run_ops(ops))).err()?;
    let why = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|why| why.to_string()));
    Some(why.unwrap_or_else(|| "a panic".to_owned()))
}

/// Shrinks a failing sequence: drops runs of operations, then single ones,
/// while it still fails, until no single operation can go; returns it and
/// why it fails. Targets are pinned ([`pin_targets`]) before each pass, since
/// a target is an index into a list (alive entities, issued handles) that
/// shifts when an earlier operation goes. Silences the panic hook (which is
/// global) while it runs.
pub fn minimize(ops: &[Op]) -> (Vec<Op>, String) {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let mut ops = ops.to_vec();
    loop {
        ops = pin_targets(&ops);
        let before = ops.len();
        let mut run = ops.len().div_ceil(2).max(1);
        loop {
            // From the end, so the indices still to try do not move.
            let mut end = ops.len();
            while end > 0 {
                let start = end.saturating_sub(run);
                let mut fewer = ops.clone();
                fewer.drain(start..end);
                if failure(&fewer).is_some() {
                    ops = fewer;
                }
                end = start;
            }
            if run == 1 {
                break;
            }
            run /= 2;
        }
        if ops.len() == before {
            break;
        }
    }
    let why = failure(&ops);
    panic::set_hook(hook);
    (ops, why.unwrap_or_else(|| "it passes".to_owned()))
}

/// `ops`, one per line, as Rust source.
pub fn listing(ops: &[Op]) -> String {
    ops.iter().map(|op| format!("    {op:?},\n")).collect()
}

/// Runs a harness over the operations `data` encodes: the fuzz target.
pub fn run_bytes(data: &[u8]) {
    run_ops(&ops_from_bytes(data));
}

// ---------------------------------------------------------------------------
// The harness
// ---------------------------------------------------------------------------

/// A world, a command buffer kept across operations, and their model.
pub struct Harness {
    world: Sim,
    commands: Commands<Sim>,
    model: Model,
    steps: usize,
    op: Option<Op>,
    /// Values made so far by the current step.
    made: u64,
    coverage: Coverage,
}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}

impl Harness {
    /// An empty world limited to [`INDEX_LIMIT`] entity indices. Resets this
    /// thread's drop ledger.
    pub fn new() -> Self {
        LEDGER.with(|ledger| ledger.borrow_mut().clear());
        let mut world = Sim::new();
        world.set_entity_limit(INDEX_LIMIT as u32);
        assert_eq!(world.component_names(), ["A", "B", "C", "Marker"]);
        Harness {
            world,
            commands: Commands::new(),
            model: Model::default(),
            steps: 0,
            op: None,
            made: 0,
            coverage: Coverage::default(),
        }
    }

    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    /// Number of alive entities.
    pub fn live_count(&self) -> usize {
        self.model.live.len()
    }

    /// Number of handles issued so far.
    pub fn issued_count(&self) -> usize {
        self.model.issued.len()
    }

    /// Applies `op` to the world and the model, then checks they agree.
    pub fn step(&mut self, op: &Op) {
        self.steps += 1;
        self.op = Some(*op);
        self.made = 0;
        self.coverage.hit(op.name());
        self.run(*op);
        self.check();
        self.check_group();
        if self.steps % DEEP_CHECK_EVERY == 0 {
            self.check_deep();
        }
    }

    /// The last checks; then drops the world (only the buffer's values may
    /// survive it) and the buffer (nothing may survive).
    pub fn finish(mut self) {
        self.op = None;
        self.check();
        self.check_deep();
        let Harness {
            world,
            commands,
            model,
            ..
        } = self;
        drop(world);
        if let Some(diff) = ledger_differs(&model.buffered_ids()) {
            panic!("after dropping the world: {diff}");
        }
        drop(commands);
        if let Some(diff) = ledger_differs(&[]) {
            panic!("after dropping the command buffer: {diff}");
        }
    }

    fn ctx(&self) -> String {
        match self.op {
            Some(op) => format!("step {}, {op:?}", self.steps),
            None => format!("after step {}", self.steps),
        }
    }

    fn hit(&mut self, key: &str) {
        self.coverage.hit(key);
    }

    /// A payload for a new value: a function of the operation and of how
    /// many values it made before, not of the steps before it, so that
    /// dropping an unrelated operation from a failing sequence leaves the
    /// values (and what queries decide from them) as they were.
    fn fresh(&mut self) -> u64 {
        self.made += 1;
        fresh_value(self.op, self.made)
    }

    fn target(&self, target: Target) -> Entity {
        let m = &self.model;
        let wrap = |i: usize, len: usize| i % len;
        match target {
            Target::Live(i) if !m.live.is_empty() => m.issued[m.live[wrap(i.into(), m.live.len())]],
            Target::Live(i) | Target::Issued(i) if !m.issued.is_empty() => {
                m.issued[wrap(i.into(), m.issued.len())]
            }
            Target::Recent(i) if !m.issued.is_empty() => {
                m.issued[m.issued.len() - 1 - wrap(i.into(), m.issued.len())]
            }
            Target::Forged(i) => {
                let (index, generation) = (u64::from(i % 32), u64::from(i / 32) + 1);
                Entity::from_bits(index | generation << 32).expect("generation > 0")
            }
            Target::Reserved(i) if !m.reserved.is_empty() => {
                m.reserved[wrap(i.into(), m.reserved.len())]
            }
            Target::Reserved(i) | Target::OldReserved(i) if !m.old_reserved.is_empty() => {
                m.old_reserved[wrap(i.into(), m.old_reserved.len())]
            }
            // Never issued: its index is past the limit.
            _ => Entity::from_bits((INDEX_LIMIT as u64 + 5) | (1 << 32)).expect("generation 1"),
        }
    }

    /// `target` written as the handle it picks now: `Issued(n)` for the
    /// `n`-th handle issued, `Reserved(i)` / `OldReserved(i)` for a reserved
    /// one; unchanged if it picks a handle never issued.
    pub fn pinned(&self, target: Target) -> Target {
        let e = self.target(target);
        let m = &self.model;
        let position = |list: &[Entity]| list.iter().position(|&x| x == e);
        let pinned = if let Some(&no) = m.numbers.get(&e) {
            u16::try_from(no).ok().map(Target::Issued)
        } else if let Some(i) = position(&m.reserved) {
            u8::try_from(i).ok().map(Target::Reserved)
        } else {
            position(&m.old_reserved)
                .and_then(|i| u8::try_from(i).ok())
                .map(Target::OldReserved)
        };
        pinned.unwrap_or(target)
    }
}
