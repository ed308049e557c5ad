//! Comparison benchmarks: typed_ecs against hecs, bevy_ecs, shipyard,
//! sparsey, specs, and plain `Vec`s ("raw", no ECS: the practical ceiling).
//!
//! Every scenario is a module of [`scenarios`] with one submodule per
//! implementation, each holding a `setup` function and an [`Instance`] whose
//! `run` is the timed part. The criterion bench (`benches/compare.rs`) and
//! the report binary (`src/bin/report.rs`, which writes `BENCHMARKS.md`)
//! both go through [`SCENARIOS`], so they time exactly the same code, and
//! the tests here check that every implementation does the same work.
//!
//! The component types and the math kernels are shared ([`components`]):
//! only the ECS differs.

#![forbid(unsafe_code)]
// `events_many_types` declares 100 events, which `world!` reads one at a
// time (its resources are split, saved or not, by a recursive macro).
#![recursion_limit = "512"]

pub mod changes;
pub mod components;
pub mod game;
pub mod harness;
pub mod heap;
pub mod relations;
pub mod rng;
pub mod scenarios;
pub mod stages;

/// The implementations, in table order. "Peers" are all of them but
/// `typed_ecs` and `raw`. A scenario may add typed_ecs variants after them
/// (`typed_ecs_grouped`: the same world with an owning group), shown in
/// extra columns and never counted as peers.
pub const IMPLEMENTATIONS: [&str; 7] = [
    "typed_ecs",
    "hecs",
    "bevy",
    "shipyard",
    "sparsey",
    "specs",
    "raw",
];

/// What a run left behind, as labelled numbers: entity and component counts
/// and sums of component values. Equal across implementations when they did
/// the same work.
pub type Check = Vec<(&'static str, f64)>;

/// One implementation of one scenario, set up and ready to run.
pub trait Instance {
    /// The timed part: one run of the scenario.
    fn run(&mut self);
    /// Counts and sums describing the state, for the tests.
    fn check(&self) -> Check;
    /// Untimed work before each run, for a scenario that times one part of
    /// a frame: `changed_iter` times the visit of what changed, and makes
    /// the changes here. Everything that runs an instance calls it before
    /// each [`run`](Instance::run). None by default.
    fn prepare(&mut self) {}
    /// `true` when [`prepare`](Instance::prepare) does anything: the
    /// timings then take each run on its own, with `prepare` off the clock,
    /// instead of a batch of runs as a whole.
    fn prepares(&self) -> bool {
        false
    }
    /// Where the instance's main arrays are, as `(what, address)`, for the
    /// `instances` binary to relate timings to layout. None by default.
    fn addresses(&self) -> Vec<(&'static str, usize)> {
        Vec::new()
    }
}

/// One implementation of a scenario: its name and its (untimed) setup.
#[derive(Clone, Copy)]
pub struct Impl {
    /// One of [`IMPLEMENTATIONS`].
    pub name: &'static str,
    /// Makes a fresh instance at the given size.
    pub setup: fn(usize) -> Box<dyn Instance>,
}

impl std::fmt::Debug for Impl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A scenario: what is timed, at which sizes, by which implementations.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// Its name, as in `--only NAME` and criterion's group names.
    pub name: &'static str,
    /// One line: what one run does.
    pub what: &'static str,
    /// The sizes it runs at (one case per size). The meaning of a size is
    /// the scenario's: see its module.
    pub sizes: &'static [usize],
    /// Said after the size in the tables, when the size is not a plain
    /// entity count (`fragmented_iter`: " × 26 types").
    pub size_note: &'static str,
    /// A small size for the tests.
    pub test_size: usize,
    /// `true` when a run consumes its state, so every run needs a fresh
    /// setup (not timed). Otherwise one setup serves any number of runs.
    pub fresh_state: bool,
    /// The implementations. A crate missing here has no facility for the
    /// scenario and shows as "n/a".
    pub impls: &'static [Impl],
    /// Notes for the report: approximations and per-crate caveats.
    pub notes: &'static str,
}

/// Builds an `&'static [Impl]` from implementation modules that each have
/// `setup(usize) -> State` with `State: Instance`, named after the module;
/// `impls![in parent: a, b]` takes them from `parent::a`, `parent::b`, and
/// `impls![typed_ecs = batch, b]` names the module `batch` `typed_ecs`.
macro_rules! impls {
    (in $parent:ident: $($module:ident),* $(,)?) => {
        &[$($crate::Impl {
            name: stringify!($module),
            setup: |n| Box::new($parent::$module::setup(n)),
        }),*]
    };
    ($($name:ident $(= $module:ident)?),* $(,)?) => {
        &[$($crate::Impl {
            name: stringify!($name),
            setup: $crate::impls!(@setup $name $($module)?),
        }),*]
    };
    (@setup $name:ident) => {
        |n| Box::new($name::setup(n))
    };
    (@setup $name:ident $module:ident) => {
        |n| Box::new($module::setup(n))
    };
}
pub(crate) use impls;

/// Every scenario, in report order.
pub const SCENARIOS: &[Scenario] = &[
    scenarios::simple_insert::SCENARIO,
    scenarios::simple_iter::SCENARIO,
    scenarios::simple_iter::SCENARIO_PLAIN,
    scenarios::fragmented_iter::SCENARIO,
    scenarios::heavy_compute::SCENARIO,
    scenarios::heavy_compute::SCENARIO_PAR,
    scenarios::simple_iter::SCENARIO_PAR,
    scenarios::add_remove::SCENARIO,
    scenarios::add_backwards::SCENARIO,
    scenarios::random_get::SCENARIO,
    scenarios::random_get_many::SCENARIO,
    scenarios::follow_target::SCENARIO,
    scenarios::despawn_churn::SCENARIO,
    scenarios::despawn_churn::SCENARIO_BATCH,
    scenarios::deferred_sync::SCENARIO,
    scenarios::hooks::SCENARIO,
    scenarios::hooks::SCENARIO_BATCH,
    scenarios::events::SCENARIO,
    scenarios::events_many_types::SCENARIO,
    scenarios::events_apart::send::SCENARIO,
    scenarios::events_apart::read::SCENARIO,
    scenarios::fixed_costs::system::SCENARIO,
    scenarios::fixed_costs::seen::SCENARIO,
    scenarios::fixed_costs::sync::SCENARIO,
    scenarios::commands_frame::SCENARIO,
    scenarios::sparse_spread::SCENARIO,
    scenarios::simple_iter::SCENARIO_SCALING,
];

/// The scenarios of stages of systems, which compare typed_ecs with itself
/// (a stage against the same systems one after the other) rather than with
/// every peer: their implementations are named for what they run (`typed_ecs
/// stage`, `bevy multi-threaded`, …), not by crate. `BENCHMARKS.md` shows
/// them in a section of their own (see [`stages`]).
pub const STAGE_SCENARIOS: &[Scenario] = &[
    scenarios::parallel_stage::SCENARIO,
    scenarios::stage_overhead::SCENARIO,
];

/// The scenarios of change detection, which compare ways of finding what
/// changed (typed_ecs's `Changed` query, a full scan, bevy's `Changed`
/// filter, specs' `FlaggedStorage` read into a `BitSet`, a dirty list kept
/// by hand) and tracked storages with untracked
/// ones: their implementations are named for what they run, like
/// [`STAGE_SCENARIOS`]'s. `BENCHMARKS.md` shows them in a section of their
/// own (see [`changes`]).
pub const CHANGE_SCENARIOS: &[Scenario] = &[
    scenarios::changed_iter::SCENARIO,
    scenarios::changed_iter::SCENARIO_FRAME,
    scenarios::changed_iter::SCENARIO_TRACKED,
    scenarios::get_mut_tracked::SCENARIO,
];

/// The scenarios of whole game frames, written for typed_ecs, bevy_ecs
/// and hecs only (no raw row: a game has no "plain `Vec`s" version worth
/// the name). `BENCHMARKS.md` shows them in a section of their own, with
/// each system timed too (see [`game`] and the `game_frame` binary).
pub const GAME_SCENARIOS: &[Scenario] = &[scenarios::game_frame::SCENARIO];

/// The scenarios of relations and hierarchy (issue 29), against bevy_ecs's
/// `ChildOf`/`Children`: typed_ecs has no relations yet, so its row is
/// `typed_ecs_by_hand` (parent and child-list components kept by hand),
/// and there is no `typed_ecs` row to divide by. The report shows them in
/// a section of their own, each row over bevy's and raw's (see
/// [`relations`]).
pub const RELATION_SCENARIOS: &[Scenario] = &[
    scenarios::hierarchy::spawn::SCENARIO,
    scenarios::hierarchy::unlink_one::SCENARIO,
    scenarios::hierarchy::despawn_tree::SCENARIO,
    scenarios::hierarchy::propagation::SCENARIO,
];

/// The scenario called `name`, among [`SCENARIOS`], [`STAGE_SCENARIOS`],
/// [`CHANGE_SCENARIOS`], [`GAME_SCENARIOS`] and [`RELATION_SCENARIOS`].
pub fn scenario(name: &str) -> Option<&'static Scenario> {
    SCENARIOS
        .iter()
        .chain(STAGE_SCENARIOS)
        .chain(CHANGE_SCENARIOS)
        .chain(GAME_SCENARIOS)
        .chain(RELATION_SCENARIOS)
        .find(|s| s.name == name)
}

/// A scenario's heading in a report section: its name, what is timed,
/// `sizes`, and its notes.
pub fn scenario_heading(out: &mut String, scenario: &Scenario, sizes: &str) {
    use std::fmt::Write as _;
    let _ = writeln!(
        out,
        "### `{}`\n\nTimed: {}. Size: {}{}.",
        scenario.name, scenario.what, sizes, scenario.size_note,
    );
    if !scenario.notes.is_empty() {
        let _ = writeln!(out, "\n{}", scenario.notes);
    }
}

/// A size for humans: `1k`, `10k`, `1M`.
pub fn short_size(n: usize) -> String {
    match n {
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n >= 1_000 && n % 1_000 == 0 => format!("{}k", n / 1_000),
        n => n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative difference small enough for sums of f32 values taken in a
    /// different order, far too small to hide a missed or doubled entity.
    fn close(a: f64, b: f64) -> bool {
        a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
    }

    fn assert_same(scenario: &str, stage: &str, reference: (&str, &Check), other: (&str, &Check)) {
        let same = reference.1.len() == other.1.len()
            && reference
                .1
                .iter()
                .zip(other.1)
                .all(|((la, a), (lb, b))| la == lb && close(*a, *b));
        assert!(
            same,
            "{scenario} ({stage}): {} and {} differ\n  {}: {:?}\n  {}: {:?}",
            reference.0, other.0, reference.0, reference.1, other.0, other.1
        );
    }

    /// Runs every implementation of `scenario` at its test size, `runs`
    /// times, and checks that they all end in the same state, and that the
    /// runs changed it.
    fn same_work(scenario: &Scenario, runs: usize) {
        let mut results = Vec::new();
        for imp in scenario.impls {
            let mut instance = (imp.setup)(scenario.test_size);
            let before = instance.check();
            for _ in 0..runs {
                instance.prepare();
                instance.run();
            }
            let after = instance.check();
            assert_ne!(
                before, after,
                "{}: a run of {} changed nothing",
                scenario.name, imp.name
            );
            results.push((imp.name, before, after));
        }
        let (name, before, after) = &results[0];
        for (other, other_before, other_after) in &results[1..] {
            assert_same(
                scenario.name,
                "after setup",
                (name, before),
                (other, other_before),
            );
            assert_same(
                scenario.name,
                "after the runs",
                (name, after),
                (other, other_after),
            );
        }
    }

    #[test]
    fn every_scenario_has_typed_ecs_first_and_raw_last() {
        for scenario in SCENARIOS {
            assert_eq!(scenario.impls.first().map(|i| i.name), Some("typed_ecs"));
            assert_eq!(scenario.impls.last().map(|i| i.name), Some("raw"));
            for imp in scenario.impls {
                // Besides the standard rows, typed_ecs variants (the same
                // work over another world), which are not peers.
                assert!(
                    IMPLEMENTATIONS.contains(&imp.name) || imp.name.starts_with("typed_ecs_"),
                    "{}",
                    imp.name
                );
            }
        }
    }

    #[test]
    fn simple_insert() {
        same_work(&scenarios::simple_insert::SCENARIO, 2);
    }

    #[test]
    fn simple_iter() {
        same_work(&scenarios::simple_iter::SCENARIO, 3);
    }

    #[test]
    fn simple_iter_plain() {
        same_work(&scenarios::simple_iter::SCENARIO_PLAIN, 3);
    }

    #[test]
    fn fragmented_iter() {
        same_work(&scenarios::fragmented_iter::SCENARIO, 3);
    }

    #[test]
    fn heavy_compute() {
        same_work(&scenarios::heavy_compute::SCENARIO, 1);
    }

    #[test]
    fn heavy_compute_par() {
        same_work(&scenarios::heavy_compute::SCENARIO_PAR, 1);
    }

    #[test]
    fn heavy_compute_par_matches_sequential() {
        let mut seq = (scenarios::heavy_compute::SCENARIO.impls[0].setup)(64);
        let mut par = (scenarios::heavy_compute::SCENARIO_PAR.impls[0].setup)(64);
        seq.run();
        par.run();
        assert_eq!(seq.check(), par.check());
    }

    #[test]
    fn add_remove() {
        same_work(&scenarios::add_remove::SCENARIO, 2);
    }

    #[test]
    fn add_backwards() {
        same_work(&scenarios::add_backwards::SCENARIO, 1);
    }

    #[test]
    fn random_get() {
        same_work(&scenarios::random_get::SCENARIO, 2);
    }

    #[test]
    fn random_get_many() {
        same_work(&scenarios::random_get_many::SCENARIO, 2);
    }

    #[test]
    fn follow_target() {
        same_work(&scenarios::follow_target::SCENARIO, 2);
    }

    #[test]
    fn despawn_churn() {
        // More frames than the churn needs to cycle the world once.
        same_work(&scenarios::despawn_churn::SCENARIO, 13);
    }

    #[test]
    fn despawn_churn_batch() {
        same_work(&scenarios::despawn_churn::SCENARIO_BATCH, 13);
    }

    #[test]
    fn deferred_sync() {
        same_work(&scenarios::deferred_sync::SCENARIO, 1);
    }

    #[test]
    fn hooks() {
        same_work(&scenarios::hooks::SCENARIO, 2);
        same_work(&scenarios::hooks::SCENARIO_BATCH, 2);
    }

    #[test]
    fn hooks_keep_the_index() {
        // Every implementation's index agrees with its world after each
        // run, was told of every add and every removal, and is empty
        // again (each run removes what it added).
        let n = scenarios::hooks::SCENARIO.test_size;
        for scenario in [scenarios::hooks::SCENARIO, scenarios::hooks::SCENARIO_BATCH] {
            for imp in scenario.impls {
                let mut instance = (imp.setup)(n);
                for run in 1..=3 {
                    instance.run();
                    let check = instance.check();
                    let value = |label: &str| {
                        check
                            .iter()
                            .find(|(l, _)| *l == label)
                            .map(|&(_, v)| v)
                            .unwrap_or_else(|| panic!("{} has no {label:?}", imp.name))
                    };
                    let name = (scenario.name, imp.name, run);
                    assert_eq!(value("index disagrees with the world"), 0.0, "{name:?}");
                    assert_eq!(value("indexed"), 0.0, "{name:?}");
                    assert_eq!(value("with Health"), 0.0, "{name:?}");
                    assert_eq!(value("adds indexed"), (run * n) as f64, "{name:?}");
                    assert_eq!(value("removals indexed"), (run * n) as f64, "{name:?}");
                }
            }
        }
    }

    #[test]
    fn events() {
        same_work(&scenarios::events::SCENARIO, 3);
        same_work(&scenarios::events_many_types::SCENARIO, 3);
        same_work(&scenarios::events_apart::send::SCENARIO, 3);
        same_work(&scenarios::events_apart::read::SCENARIO, 3);
    }

    #[test]
    fn fixed_costs() {
        same_work(&scenarios::fixed_costs::system::SCENARIO, 3);
        same_work(&scenarios::fixed_costs::seen::SCENARIO, 3);
        same_work(&scenarios::fixed_costs::sync::SCENARIO, 3);
    }

    #[test]
    fn commands_frame() {
        // More frames than a life, so that newborns die too.
        same_work(&scenarios::commands_frame::SCENARIO, 230);
    }

    #[test]
    fn sparse_spread() {
        same_work(&scenarios::sparse_spread::SCENARIO, 2);
    }

    #[test]
    fn scaling() {
        same_work(&scenarios::simple_iter::SCENARIO_SCALING, 1);
    }

    #[test]
    fn parallel_stage() {
        same_work(&scenarios::parallel_stage::SCENARIO, 2);
    }

    #[test]
    fn stage_overhead() {
        same_work(&scenarios::stage_overhead::SCENARIO, 3);
    }

    #[test]
    fn changed_iter() {
        // More frames than the shuffle is cut into: every entity is written
        // again, and the dirty flags, logs and ticks are reused.
        same_work(&scenarios::changed_iter::SCENARIO, 103);
    }

    #[test]
    fn changed_frame() {
        same_work(&scenarios::changed_iter::SCENARIO_FRAME, 103);
    }

    #[test]
    fn get_mut_tracked() {
        // More runs than the change log has room for between compactions.
        same_work(&scenarios::get_mut_tracked::SCENARIO, 40);
    }

    #[test]
    fn changed_iter_visits_each_write_once() {
        // Whatever the implementations agree on, it is the writes: each
        // frame visits exactly the entities it wrote, with their new x,
        // whether the writes are timed or not.
        use scenarios::changed_iter::{FRAMES, SCENARIO, SCENARIO_FRAME};
        let n = SCENARIO.test_size;
        let written = (3 * n / FRAMES) as f64;
        for scenario in [SCENARIO, SCENARIO_FRAME] {
            for imp in scenario.impls {
                let mut instance = (imp.setup)(n);
                assert_eq!(instance.prepares(), scenario.name == "changed_iter");
                let before = instance.check();
                for _ in 0..3 {
                    instance.prepare();
                    instance.run();
                }
                let after = instance.check();
                let name = (scenario.name, imp.name);
                assert_eq!(after[0], ("frames", 3.0), "{name:?}");
                assert_eq!(after[1], ("changed positions visited", written), "{name:?}");
                // Each write adds 1 to x, and the visits see the new values.
                assert_eq!(after[3].1 - before[3].1, written, "{name:?}");
            }
        }
    }

    #[test]
    fn simple_iter_tracked() {
        same_work(&scenarios::changed_iter::SCENARIO_TRACKED, 3);
    }

    #[test]
    fn simple_iter_tracked_matches_simple_iter() {
        let mut untracked = (scenarios::simple_iter::SCENARIO.impls[0].setup)(100);
        let mut tracked = (scenarios::changed_iter::SCENARIO_TRACKED.impls[0].setup)(100);
        untracked.run();
        tracked.run();
        assert_eq!(untracked.check(), tracked.check());
    }

    #[test]
    fn parallel_stage_matches_heavy_compute() {
        // Each component of the stage goes through heavy_compute's kernel.
        let mut heavy = (scenarios::heavy_compute::SCENARIO.impls[0].setup)(20);
        let mut stage = (scenarios::parallel_stage::SCENARIO.impls[0].setup)(20);
        heavy.run();
        stage.run();
        let heavy = heavy.check();
        let stage = stage.check();
        assert_eq!(heavy[1].1, stage[1].1, "positions");
        assert_eq!(heavy[2].1, stage[2].1, "matrices");
    }

    #[test]
    fn game_frame() {
        same_work(&scenarios::game_frame::SCENARIO, 10);
    }

    #[test]
    fn game_frame_agrees_stamped_or_not_and_stays_bounded() {
        // Every implementation, with and without its stamps, in the same
        // state every 40 frames; the populations neither die out nor
        // explode (the `game_frame` binary shows them steady over
        // thousands of frames at full size).
        use scenarios::game_frame::{SYSTEMS, TIMED};
        let scenario = &scenarios::game_frame::SCENARIO;
        let n = scenario.test_size;
        let mut plain: Vec<_> = scenario
            .impls
            .iter()
            .map(|imp| (imp.name, (imp.setup)(n)))
            .collect();
        let mut stamped: Vec<_> = TIMED.iter().map(|imp| (imp.name, (imp.setup)(n))).collect();
        for frame in 1..=160 {
            for (_, instance) in &mut plain {
                instance.run();
            }
            for (name, instance) in &mut stamped {
                instance.run();
                assert_eq!(instance.times().len(), SYSTEMS.len(), "{name}");
                let (prey, predators) = instance.populations();
                assert!(
                    prey >= n / 10 && predators >= n / 10 && prey + predators <= n,
                    "{name} at frame {frame}: {prey} prey, {predators} predators"
                );
            }
            if frame % 40 == 0 {
                let (name, reference) = (&plain[0].0, plain[0].1.check());
                for (other, instance) in plain.iter().skip(1) {
                    assert_same(
                        scenario.name,
                        "plain",
                        (name, &reference),
                        (other, &instance.check()),
                    );
                }
                for (other, instance) in &stamped {
                    assert_same(
                        scenario.name,
                        "stamped",
                        (name, &reference),
                        (other, &instance.check()),
                    );
                }
            }
        }
    }

    #[test]
    fn game_frame_parallel_agrees_with_single_threaded() {
        // typed_ecs with its stages on the pool (every frame at
        // `parallel_work` zero; at its default, whenever the stage's work
        // reaches it), and bevy's multi-threaded executor with the
        // feature: in the single-threaded instances' state every 40
        // frames.
        use scenarios::game_frame::{bevy, typed_ecs};
        use std::time::Duration;
        let scenario = &scenarios::game_frame::SCENARIO;
        let n = scenario.test_size;
        let mut single: Vec<(&str, Box<dyn Instance>)> = vec![
            ("typed_ecs", Box::new(typed_ecs::setup(n))),
            ("bevy", Box::new(bevy::setup(n))),
        ];
        let mut parallel: Vec<(&str, Box<dyn Instance>)> = vec![
            (
                "typed_ecs always on the pool",
                Box::new(typed_ecs::build_with(n, false, Some(Duration::ZERO))),
            ),
            ("typed_ecs parallel", Box::new(typed_ecs::setup_parallel(n))),
        ];
        #[cfg(feature = "bevy_multi_threaded")]
        parallel.push((
            "bevy multi-threaded",
            Box::new(bevy::setup_multi_threaded(n)),
        ));
        for frame in 1..=120 {
            for (_, instance) in single.iter_mut().chain(&mut parallel) {
                instance.run();
            }
            if frame % 40 == 0 {
                let (name, reference) = (single[0].0, single[0].1.check());
                for (other, instance) in single.iter().chain(&parallel).skip(1) {
                    assert_same(
                        scenario.name,
                        "parallel",
                        (name, &reference),
                        (other, &instance.check()),
                    );
                }
            }
        }
    }

    #[test]
    fn hierarchy_spawn() {
        same_work(&scenarios::hierarchy::spawn::SCENARIO, 2);
    }

    #[test]
    fn hierarchy_unlink_one() {
        same_work(&scenarios::hierarchy::unlink_one::SCENARIO, 50);
    }

    #[test]
    fn hierarchy_despawn_tree() {
        same_work(&scenarios::hierarchy::despawn_tree::SCENARIO, 2);
    }

    #[test]
    fn transform_propagation() {
        same_work(&scenarios::hierarchy::propagation::SCENARIO, 2);
    }

    #[test]
    fn hierarchies_are_whole_and_consistent() {
        // Both sides of every link agree in every row, before and after
        // the runs; the tree is gone after a despawn and back after a
        // prepare; every global is the recursive reference's, to the bit.
        use scenarios::hierarchy as h;
        let value = |check: &Check, label: &str| {
            check
                .iter()
                .find(|(l, _)| *l == label)
                .map(|&(_, v)| v)
                .unwrap_or_else(|| panic!("no {label:?}"))
        };
        for scenario in [
            h::spawn::SCENARIO,
            h::unlink_one::SCENARIO,
            h::despawn_tree::SCENARIO,
        ] {
            let n = scenario.test_size;
            for imp in scenario.impls {
                let mut instance = (imp.setup)(n);
                for run in 0..3 {
                    if run > 0 {
                        instance.prepare();
                        instance.run();
                    }
                    let check = instance.check();
                    let name = (scenario.name, imp.name, run);
                    let disagree = value(&check, "list entries whose parent disagrees");
                    assert_eq!(disagree, 0.0, "{name:?}");
                    assert_eq!(
                        value(&check, "with a parent"),
                        value(&check, "child list entries"),
                        "{name:?}"
                    );
                    let (entities, linked) = match (scenario.name, run) {
                        ("hierarchy_spawn", run) => (n / 100 + run * n, run * n),
                        ("hierarchy_unlink_one", _) => (n + 1, n),
                        (_, 0) => (n, n - 1),
                        _ => (0, 0),
                    };
                    assert_eq!(value(&check, "entities"), entities as f64, "{name:?}");
                    assert_eq!(value(&check, "with a parent"), linked as f64, "{name:?}");
                }
            }
        }
        let scenario = h::propagation::SCENARIO;
        for imp in scenario.impls {
            let mut instance = (imp.setup)(scenario.test_size);
            let unset = value(&instance.check(), "globals unlike the recursive reference");
            assert_eq!(unset, scenario.test_size as f64, "{}", imp.name);
            for _ in 0..2 {
                instance.run();
                let differ = value(&instance.check(), "globals unlike the recursive reference");
                assert_eq!(differ, 0.0, "{}", imp.name);
            }
        }
    }

    #[test]
    fn hierarchy_shapes() {
        use scenarios::hierarchy::{forest_parent, tree_parent};
        let depth = |parent: fn(usize) -> Option<usize>, i: usize| {
            std::iter::successors(Some(i), |&j| parent(j)).count()
        };
        let deepest = |parent: fn(usize) -> Option<usize>, n: usize| {
            (0..n).map(|i| depth(parent, i)).max().unwrap()
        };
        assert_eq!(deepest(tree_parent, 100_000), 10);
        assert_eq!(deepest(forest_parent, 100_000), 5);
        assert!((0..100_000).all(|i| tree_parent(i).is_none_or(|p| p < i)));
        assert!((0..100_000).all(|i| forest_parent(i).is_none_or(|p| p < i)));
    }

    #[test]
    fn a_wrong_implementation_is_caught() {
        // The comparison itself must be able to fail: a check with one
        // entity missing is not "the same".
        let good: Check = vec![("entities", 100.0), ("sum", 250.5)];
        let bad: Check = vec![("entities", 99.0), ("sum", 250.5)];
        let result = std::panic::catch_unwind(|| {
            assert_same("demo", "after", ("good", &good), ("bad", &bad));
        });
        assert!(result.is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(short_size(1_000), "1k");
        assert_eq!(short_size(1_000_000), "1M");
        assert_eq!(short_size(520), "520");
    }
}
