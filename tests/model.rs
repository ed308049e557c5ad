//! Model-based test, seeded: a SplitMix64 generator drives 20,000 operations
//! per seed through the harness in `support/harness/`, which checks the
//! world against its model after every step. Each run must reach every
//! operation and every outcome (each error and rejection kind) at least
//! `MIN_HITS` times, so a change that makes a path unreachable fails here.

#[path = "support/harness/mod.rs"]
mod harness;

use harness::{Coverage, Harness, Op, CODE_LEN, INDEX_LIMIT};

#[path = "support/rng.rs"]
mod rng;

use rng::Rng;

/// Operations per seed.
const STEPS: usize = 20_000;

/// Each counter of the coverage must reach this, per seed.
const MIN_HITS: u64 = 10;

/// Steps per phase: the run alternates between filling the world (up to its
/// index limit, so spawns fail) and emptying it.
const PHASE: usize = 500;

/// How often each operation is drawn: `(name, while filling, while emptying)`.
const WEIGHTS: &[(&str, u32, u32)] = &[
    ("Spawn", 40, 6),
    ("TrySpawn", 30, 4),
    ("SpawnWith", 60, 8),
    ("Despawn", 12, 40),
    ("Add", 40, 40),
    ("TryAdd", 30, 30),
    ("Insert", 30, 30),
    ("TryInsert", 20, 20),
    ("Remove", 30, 30),
    ("RemoveAll", 10, 10),
    ("Edit", 30, 30),
    ("AddDeferred", 40, 40),
    ("TryAddDeferred", 30, 30),
    ("RemoveDeferred", 40, 40),
    ("DespawnDeferred", 8, 20),
    ("FinalizeUpdates", 40, 40),
    ("CmdAdd", 40, 40),
    ("CmdRemove", 25, 25),
    ("CmdDespawn", 12, 20),
    ("CmdSpawn", 20, 10),
    ("CmdSpawnWith", 20, 10),
    ("CmdApply", 40, 40),
    ("CmdClear", 3, 3),
    ("Query", 30, 30),
    ("QueryMut", 30, 30),
    ("QueryCommands", 20, 20),
    ("GetMany", 30, 30),
    ("Clear", 1, 3),
    ("SaveLoad", 6, 6),
];

/// Percent of operations that act on the same target and component as the
/// one before (when both take them), so that changes meet on one entity.
const SAME_TARGET: u64 = 35;

/// Percent of fresh targets forced to be alive entities; the others are
/// drawn like any byte (half of those alive, the rest any issued handle, a
/// recent, forged or reserved one).
const LIVE_TARGET: u64 = 50;

/// Pairs that meet on one entity and component: after the first, the second
/// follows `FOLLOW_UP` percent of the time, on the same target.
const FOLLOW_UPS: &[(&str, &str)] = &[
    ("RemoveDeferred", "AddDeferred"),
    ("AddDeferred", "Add"),
    ("Add", "TryAddDeferred"),
    ("CmdRemove", "CmdAdd"),
    ("DespawnDeferred", "AddDeferred"),
];
const FOLLOW_UP: u64 = 30;

fn kind(name: &str) -> usize {
    Op::kind_of(name).unwrap_or_else(|| panic!("no operation {name}"))
}

/// Draws operations: kinds by weight, arguments at random.
struct Generator {
    rng: Rng,
    /// `(kind, weight)` while filling and while emptying the world.
    phases: [Vec<(usize, u32)>; 2],
    follow_ups: Vec<(usize, usize)>,
    last_kind: usize,
    /// The last operation's target mode, target index, component and extra.
    last: [u8; CODE_LEN - 1],
}

impl Generator {
    fn new(seed: u64) -> Self {
        let phase = |column: usize| -> Vec<(usize, u32)> {
            WEIGHTS
                .iter()
                .map(|&(name, fill, empty)| (kind(name), [fill, empty][column]))
                .collect()
        };
        let phases = [phase(0), phase(1)];
        assert_eq!(phases[0].len(), harness::OP_KINDS, "a weight per operation");
        Generator {
            rng: Rng::new(seed),
            phases,
            follow_ups: FOLLOW_UPS
                .iter()
                .map(|&(first, then)| (kind(first), kind(then)))
                .collect(),
            last_kind: 0,
            last: [0; CODE_LEN - 1],
        }
    }

    fn draw(&mut self, step: usize) -> Op {
        let rng = &mut self.rng;
        let follow_up = self
            .follow_ups
            .iter()
            .find(|&&(first, _)| first == self.last_kind)
            .map(|&(_, then)| then)
            .filter(|_| rng.below(100) < FOLLOW_UP);
        let kind = follow_up.unwrap_or_else(|| {
            let kinds = &self.phases[(step / PHASE) % 2];
            let total: u32 = kinds.iter().map(|&(_, weight)| weight).sum();
            let mut pick = rng.below(u64::from(total)) as u32;
            for &(kind, weight) in kinds {
                if pick < weight {
                    return kind;
                }
                pick -= weight;
            }
            unreachable!("pick < total")
        });
        let same = follow_up.is_some() || rng.below(100) < SAME_TARGET;
        let bytes = rng.next_u64().to_le_bytes();
        let (reused, fresh) = self.last.split_at_mut(CODE_LEN - 2);
        if !same {
            reused.copy_from_slice(&bytes[..CODE_LEN - 2]);
            if rng.below(100) < LIVE_TARGET {
                // Target modes 0 to 7 pick an alive entity.
                reused[0] &= !0x08;
            }
        }
        fresh[0] = bytes[CODE_LEN - 2];
        self.last_kind = kind;
        Op::from_parts(kind, self.last)
    }
}

fn run(seed: u64) {
    let mut generator = Generator::new(seed);
    let mut harness = Harness::new();
    let mut full = 0;
    for step in 0..STEPS {
        harness.step(&generator.draw(step));
        if harness.live_count() == INDEX_LIMIT {
            full += 1;
        }
    }
    let coverage: Coverage = harness.coverage().clone();
    let issued = harness.issued_count();
    harness.finish();

    let missing = coverage.below(MIN_HITS);
    assert!(
        missing.is_empty(),
        "seed {seed:#x}: below {MIN_HITS} hits: {missing:?}\n{}",
        coverage.summary()
    );
    assert!(
        full > 100,
        "seed {seed:#x}: the world was full {full} times"
    );
    assert!(
        issued > 1_000,
        "seed {seed:#x}: only {issued} handles issued"
    );
    println!(
        "seed {seed:#x}: {issued} handles issued, full for {full} steps\n{}",
        coverage.summary()
    );
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
