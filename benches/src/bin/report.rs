//! Regenerates `BENCHMARKS.md`: every scenario's implementations timed
//! interleaved in this one process (see `typed_ecs_benches::harness`), the
//! Memory section printed by the `memory` binary (run through cargo: its
//! counting global allocator stays out of this process, where it would tax
//! every allocation of the timed runs), the Parallel stages section printed
//! by the `stages` binary (run through cargo with the `bevy_multi_threaded`
//! feature, which this process goes without), the Change detection section
//! (its scenarios timed here, after the others, and the zero-cost check
//! written by `benches/zero_cost.sh`), and the compile-time and cachegrind
//! sections written by their own tools, and the Game frame section printed
//! by the `game_frame` binary (in a process of its own, like the others).
//!
//! ```text
//! cargo run --release -p typed_ecs_benches --bin report -- [--quick] [--only NAME]... [--rounds N] [--out PATH]
//! ```
//!
//! `--quick` takes 5 rounds (a smoke run); the default is 31. `--only`
//! (repeatable) limits the timed scenarios; naming only stage scenarios
//! (`parallel_stage`, `stage_overhead`) times those alone, naming only
//! others leaves the Parallel stages section out; likewise for the change
//! scenarios (`changed_iter`, `changed_frame`, `simple_iter_tracked`) and
//! the Change detection section, and `game_frame` and the Game frame
//! section, and the relation scenarios (`hierarchy_spawn`,
//! `hierarchy_unlink_one`, `hierarchy_despawn_tree`,
//! `transform_propagation`) and the Relations and hierarchy section (with
//! the bytes per link that the `link_memory` binary prints, in a process of
//! its own). `--out` defaults to `BENCHMARKS.md` at the workspace root.

#![forbid(unsafe_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use typed_ecs_benches::harness::{self, Medians};
use typed_ecs_benches::{
    changes, relations, scenario, short_size, Scenario, CHANGE_SCENARIOS, GAME_SCENARIOS,
    RELATION_SCENARIOS, SCENARIOS, STAGE_SCENARIOS,
};

const USAGE: &str = "usage: report [--quick] [--only SCENARIO]... [--rounds N] [--out PATH]";
const COMMAND: &str = "cargo run --release -p typed_ecs_benches --bin report";
const MEMORY_COMMAND: &str = "cargo run --release -p typed_ecs_benches --bin memory";
const STEADY_COMMAND: &str =
    "cargo run --release -p typed_ecs_benches --bin instances -- --markdown";
const STAGES_COMMAND: &str =
    "cargo run --release -p typed_ecs_benches --features bevy_multi_threaded --bin stages";
const GAME_COMMAND: &str = "cargo run --release -p typed_ecs_benches --bin game_frame";
const LINK_MEMORY_COMMAND: &str = "cargo run --release -p typed_ecs_benches --bin link_memory";

struct Options {
    quick: bool,
    rounds: usize,
    only: Vec<&'static Scenario>,
    out: PathBuf,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the bench crate lives in the workspace")
        .to_path_buf()
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        quick: false,
        rounds: 0,
        only: Vec::new(),
        out: workspace_root().join("BENCHMARKS.md"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("`{flag}` needs a value"));
        match flag.as_str() {
            "--quick" => options.quick = true,
            "--only" => {
                let name = value()?;
                let known = SCENARIOS
                    .iter()
                    .chain(STAGE_SCENARIOS)
                    .chain(CHANGE_SCENARIOS)
                    .chain(GAME_SCENARIOS)
                    .chain(RELATION_SCENARIOS)
                    .map(|s| s.name)
                    .collect::<Vec<_>>()
                    .join(", ");
                options.only.push(
                    scenario(&name)
                        .ok_or_else(|| format!("no scenario `{name}`; there are: {known}"))?,
                );
            }
            "--rounds" => {
                let text = value()?;
                options.rounds =
                    text.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                        format!("`--rounds` needs a positive number, not `{text}`")
                    })?;
            }
            "--out" => options.out = PathBuf::from(value()?),
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if options.rounds == 0 {
        options.rounds = if options.quick { 5 } else { 31 };
    }
    Ok(options)
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("report: {message}");
            }
            eprintln!("{USAGE}");
            return if message.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
    };
    if cfg!(debug_assertions) {
        eprintln!("report: warning: a debug build; time it with `--release`");
    }

    let is_relation = |s: &&Scenario| RELATION_SCENARIOS.iter().any(|t| t.name == s.name);
    let only_relations = !options.only.is_empty() && options.only.iter().all(is_relation);
    let memory = if only_relations {
        String::new()
    } else {
        memory_section()
    };
    let steady = if options.only.is_empty() || options.only.iter().any(|s| s.name == "add_remove") {
        steady_section()
    } else {
        String::new()
    };
    let is_stage = |s: &&Scenario| STAGE_SCENARIOS.iter().any(|t| t.name == s.name);
    let stage_only: Vec<&Scenario> = options.only.iter().copied().filter(is_stage).collect();
    let stages = if options.only.is_empty() || !stage_only.is_empty() {
        stages_section(&options, &stage_only)
    } else {
        String::new()
    };
    let is_game = |s: &&Scenario| GAME_SCENARIOS.iter().any(|t| t.name == s.name);
    let game = if options.only.is_empty() || options.only.iter().any(is_game) {
        game_section(&options)
    } else {
        String::new()
    };
    settle_allocator();
    let is_change = |s: &&Scenario| CHANGE_SCENARIOS.iter().any(|t| t.name == s.name);
    let scenarios: Vec<&Scenario> = if options.only.is_empty() {
        SCENARIOS.iter().collect()
    } else {
        options
            .only
            .iter()
            .copied()
            .filter(|s| !is_stage(s) && !is_change(s) && !is_game(s) && !is_relation(s))
            .collect()
    };
    let change_scenarios: Vec<&Scenario> = if options.only.is_empty() {
        CHANGE_SCENARIOS.iter().collect()
    } else {
        options.only.iter().copied().filter(is_change).collect()
    };
    let relation_scenarios: Vec<&Scenario> = if options.only.is_empty() {
        RELATION_SCENARIOS.iter().collect()
    } else {
        options.only.iter().copied().filter(is_relation).collect()
    };
    let mut results = Vec::new();
    for scenario in scenarios {
        let mut cases = Vec::new();
        for &size in scenario.sizes {
            eprint!("{} at {}:", scenario.name, short_size(size));
            let medians = harness::measure(scenario, size, options.rounds, |name| {
                eprint!(" {name}");
            });
            eprintln!(
                "  → typed_ecs / best peer {}, typed_ecs / raw {}",
                harness::format_ratio(medians.vs_best_peer()),
                harness::format_ratio(medians.vs_raw())
            );
            cases.push(medians);
        }
        results.push((scenario, cases));
    }
    let changes = if change_scenarios.is_empty() {
        String::new()
    } else {
        changes_section(&options, &change_scenarios)
    };
    let relations = if relation_scenarios.is_empty() {
        String::new()
    } else {
        relations_section(&options, &relation_scenarios)
    };

    let text = report(
        &options,
        &results,
        &Sections {
            memory,
            steady,
            stages,
            changes,
            game,
            relations,
        },
    );
    if let Err(error) = std::fs::write(&options.out, &text) {
        eprintln!("report: {}: {error}", options.out.display());
        return ExitCode::FAILURE;
    }
    eprintln!("report: wrote {}", options.out.display());
    ExitCode::SUCCESS
}

// ---------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------

/// The sections other binaries print or that are timed apart, each empty
/// when left out.
struct Sections {
    memory: String,
    steady: String,
    stages: String,
    changes: String,
    game: String,
    relations: String,
}

fn report(options: &Options, results: &[(&Scenario, Vec<Medians>)], sections: &Sections) -> String {
    let Sections {
        memory,
        steady,
        stages,
        changes,
        game,
        relations,
    } = sections;
    let mut out = String::new();
    let _ = writeln!(out, "# Benchmarks\n");
    let _ = writeln!(
        out,
        "Generated by `{COMMAND}{}` on {} (UTC). Do not edit by hand: rerun the command.\n",
        if options.quick { " -- --quick" } else { "" },
        today()
    );
    let _ = writeln!(out, "- Machine: {}", machine());
    let _ = writeln!(out, "- Compiler: `{}`", rustc_version());
    let _ = writeln!(
        out,
        "- Crates: typed_ecs (this repository, feature `rayon`), hecs 0.11, bevy_ecs 0.20 \
         (default features off, so without `multi_threaded`, except in the Parallel stages \
         section), shipyard 0.11, sparsey 0.13 (feature `parallel`), specs 0.20 (default \
         features: `parallel`)."
    );
    let _ = writeln!(
        out,
        "- Rounds: {}{}.\n",
        options.rounds,
        if options.quick {
            " (`--quick`: a smoke run, expect noise)"
        } else {
            ""
        }
    );

    out.push_str(
        "Ratios are typed_ecs's median time divided by another's: **below 1 typed_ecs is \
         faster**, above 1 it is slower. *Best peer* is the fastest of hecs, bevy_ecs, shipyard, \
         sparsey and specs in that row; *raw* is plain `Vec`s with no ECS, the practical \
         ceiling. Absolute times are secondary: they depend on the machine.\n\n",
    );

    out.push_str("## Summary\n\n");
    out.push_str(&harness::summary_table(results));

    out.push_str("\n## Targets\n\n");
    out.push_str(&targets_table(results));

    out.push_str("\n## Scenarios\n\n");
    out.push_str(
        "What each implementation does in each scenario is written down in the doc comment of \
         its module in `benches/src/scenarios/`. Every implementation uses the same component \
         types and the same hand-written math kernels (`benches/src/components.rs`), so only the \
         ECS differs; the crate's tests check that all of them end in the same state. \
         `cargo bench -p typed_ecs_benches` runs the same code under criterion.\n\n",
    );
    for (scenario, cases) in results {
        out.push_str(&harness::scenario_table(scenario, cases));
        out.push('\n');
    }

    out.push_str("## Method\n\n");
    let _ = writeln!(
        out,
        "All implementations of a scenario are set up side by side in one process, then timed in \
         {} rounds. In each round every implementation takes one sample, in an order that rotates \
         from round to round, so drifts of a shared machine fall on all of them alike. A sample \
         is a batch of runs sized to take about 2 ms (at least one run), timed as a whole, after \
         one untimed warm-up run; a table shows the median sample divided by its batch size. \
         Scenarios whose run consumes its state (`deferred_sync`) set up a fresh world per run \
         before the clock starts (no warm-up) and drop it after it stops. The Memory section comes from a \
         separate process (`{MEMORY_COMMAND}`), so its counting allocator does not tax the \
         timed runs.\n",
        options.rounds
    );

    if !steady.is_empty() {
        out.push('\n');
        out.push_str(steady);
    }
    if !stages.is_empty() {
        out.push('\n');
        out.push_str(stages);
    }
    if !memory.is_empty() {
        out.push('\n');
        out.push_str(memory);
    }
    out.push('\n');
    out.push_str(&included(
        "compile_time.md",
        "## Compile time",
        "cargo run --release -p typed_ecs_benches --bin compile_time",
    ));
    out.push('\n');
    out.push_str(&included(
        "cachegrind.md",
        "## Cachegrind",
        "cargo run --release -p typed_ecs_benches --bin cachegrind",
    ));
    if !changes.is_empty() {
        out.push('\n');
        out.push_str(changes);
    }
    if !game.is_empty() {
        out.push('\n');
        out.push_str(game);
    }
    if !relations.is_empty() {
        out.push('\n');
        out.push_str(relations);
    }
    out
}

/// The Relations and hierarchy section: `scenarios` (of
/// [`RELATION_SCENARIOS`]) timed here the report's way, each row over
/// bevy's and raw's, then the bytes per link the `link_memory` binary
/// prints in a process of its own.
fn relations_section(options: &Options, scenarios: &[&'static Scenario]) -> String {
    let mut results = Vec::new();
    for &scenario in scenarios {
        let mut cases = Vec::new();
        for &size in scenario.sizes {
            eprint!("{} at {}:", scenario.name, short_size(size));
            let medians = harness::measure(scenario, size, options.rounds, |name| {
                eprint!(" [{name}]");
            });
            eprintln!();
            for &(name, ns) in &medians.ns {
                eprintln!("  {name:<22} {}", harness::format_ns(ns));
            }
            cases.push(medians);
        }
        results.push((scenario, cases));
    }
    let header = format!(
        "Hierarchies side by side with bevy_ecs's `ChildOf`/`Children` (issue 29). typed_ecs \
         has no relations yet: its row, `typed_ecs_by_hand`, is a typed_ecs world with \
         `Parent(Entity)` and `Children(Vec<Entity>)` components kept by hand, as a typed_ecs \
         user keeps them today (`benches/src/scenarios/hierarchy.rs`). Timed as above ({} \
         rounds), in the same process, after the other scenarios. Each row's median is divided \
         by bevy's and by raw's: **above 1 the row is slower**.",
        options.rounds
    );
    let mut out = relations::section(&header, &results);
    out.push('\n');
    out.push_str(&printed_by(
        "link_memory",
        &[],
        "### Memory per link",
        LINK_MEMORY_COMMAND,
    ));
    out
}

/// The Game frame section: what the `game_frame` binary prints (the whole
/// frame and each system of `game_frame` on typed_ecs, bevy_ecs and hecs),
/// run through cargo in a process of its own.
fn game_section(options: &Options) -> String {
    let args: &[&str] = if options.quick { &["--quick"] } else { &[] };
    printed_by("game_frame", args, "## Game frame", GAME_COMMAND)
}

/// The Change detection section: `scenarios` (of [`CHANGE_SCENARIOS`])
/// timed here the report's way, their targets, and the zero-cost check
/// that `benches/zero_cost.sh` writes.
fn changes_section(options: &Options, scenarios: &[&'static Scenario]) -> String {
    let mut results = Vec::new();
    for &scenario in scenarios {
        let mut cases = Vec::new();
        for &size in scenario.sizes {
            eprint!("{} at {}:", scenario.name, short_size(size));
            let medians = harness::measure(scenario, size, options.rounds, |name| {
                eprint!(" [{name}]");
            });
            eprintln!();
            for &(name, ns) in &medians.ns {
                eprintln!("  {name:<22} {}", harness::format_ns(ns));
            }
            cases.push(medians);
        }
        results.push((scenario, cases));
    }
    let header = format!(
        "What finding the entities that changed costs, with typed_ecs's change detection \
         (`tracked (…);` in `world!`, the `Changed` query term, `clear_changes`) and without \
         it, and what tracking costs a system that writes every value. Timed as above ({} \
         rounds), in the same process, after the other scenarios. Each table divides every \
         row's median by that of the implementation its bold column names: **above 1 the row \
         is slower**.",
        options.rounds
    );
    let zero_cost = included(
        "zero_cost.md",
        "### Zero cost when untracked",
        "benches/zero_cost.sh",
    );
    changes::section(&header, &results, &zero_cost)
}

/// What a target compares typed_ecs with.
#[derive(Clone, Copy)]
enum Against {
    Raw,
    BestPeer,
    /// The `typed_ecs_grouped` row against `typed_ecs`: the same world
    /// without its owning group.
    Ungrouped,
    /// One peer, by its implementation name.
    Peer(&'static str),
    /// The `typed_ecs_plain` row (the same world with no group declared)
    /// against `raw` or one peer, by its implementation name.
    Plain(&'static str),
}

/// One of the speed targets the performance work set, and what limits it
/// when it is missed (said only then).
struct Target {
    scenario: &'static str,
    size: usize,
    against: Against,
    at_most: f64,
    why_missed: &'static str,
}

/// What limits `simple_iter_plain`, should it miss a target.
const PLAIN_JOIN: &str =
    "with no group, `for_each` is driven by one storage and walks the runs of \
    slots where the other lists the same entities as rows, as the grouped walk does. A storage \
    remembers, while neither is reordered, the slots it found lined up with the driver's, so \
    every walk after the first compares nothing: callgrind counts 9.3 instructions an entity \
    against the grouped walk's 9.0, raw's 9 and bevy's 12. What is left is the driver's entity \
    array, 8 bytes an entity that the grouped walk does not read, and the comparison (16 \
    entities of each at a time) in the first walk after either storage was reordered.";

/// What limits `scaling` at 1M entities, should it miss its target.
const SCALING: &str = "the grouped walk reads and writes the same bytes as raw's loop \
    (callgrind's cache simulation: 18 data references and 1.125 first-level misses an entity \
    for both) in the same 9 instructions an entity, since the walk zips the entities in with \
    its columns (12 before). At 1M the 24 MB of positions and velocities stream from the \
    shared last-level cache and memory, and the ratio moves from run to run on this machine \
    (1.02× and 1.28× in two runs of one build, 1.08× to 1.68× over earlier ones). Fresh \
    instances of the same world also differ by up to 1.16× from each other at 1M (raw's by \
    1.01×; `instances --scenario scaling --size 1000000 --verbose`), with their arrays at the \
    same offsets mod 4096. Ruled out, by the same interleaved measurement: the world's \
    footprint (a world of only the two grouped components measured 1.14× raw too) and `Vec` \
    growth (raw's four arrays grown one push at a time, their capacity doubling as the \
    storages' does: 1.02× raw). Not yet explained is why the same loop over the same bytes \
    costs more at this size only.";

/// What limits the plain row of `scaling` at 1M entities, should it miss.
const SCALING_PLAIN: &str = "with no group the walk reads the driver's entity array beside \
    the values (the storages' memory of having lined up spares it the second one): 8 bytes an \
    entity on top of the 24 of the values, at 1M streamed from memory, where bytes are the \
    cost. callgrind counts 9.3 instructions an entity against the grouped walk's 9.0 and \
    raw's 9. A declared group needs neither entity array.";

/// What limits `despawn_churn` and `despawn_churn_batch` against the best
/// peer, should they miss.
const DESPAWN: &str = "the frame is close to even with sparsey's in work: callgrind counts \
    323 instructions a despawn and a spawn (309 with `despawn_batch`) against sparsey's 319, \
    two thirds of them in the two storages' swap-removes and the spawns' pushes. The \
    wall-clock ratio follows the machine: on the same code it measured from 0.70 (an earlier \
    day) to 1.06 (this stop) against sparsey.";

const TARGETS: &[Target] = &[
    Target {
        scenario: "simple_insert",
        size: 10_000,
        against: Against::Raw,
        at_most: 1.5,
        why_missed: "raw collects four `Vec`s from an iterator, one after another: the copies \
            vectorize and no element is checked. A sparse set writes three arrays per component \
            (the value, its entity, its sparse entry), plus the entity's slot in the allocator. \
            `extend` fills the entity and sparse arrays and the allocator's slots in bulk for a \
            run of new indices; what is left is one checked push per value, the four storages \
            side by side (a bundle is one tuple): callgrind counts 89 instructions an entity \
            against raw's 14.",
    },
    Target {
        scenario: "simple_insert",
        size: 10_000,
        against: Against::BestPeer,
        at_most: 0.6,
        why_missed: "",
    },
    Target {
        scenario: "simple_iter",
        size: 10_000,
        against: Against::Raw,
        at_most: 1.1,
        why_missed: "",
    },
    Target {
        scenario: "simple_iter_plain",
        size: 10_000,
        against: Against::Raw,
        at_most: 1.4,
        why_missed: PLAIN_JOIN,
    },
    Target {
        scenario: "simple_iter_plain",
        size: 10_000,
        against: Against::Peer("bevy"),
        at_most: 0.9,
        why_missed: PLAIN_JOIN,
    },
    Target {
        scenario: "scaling",
        size: 1_000_000,
        against: Against::Raw,
        at_most: 1.1,
        why_missed: SCALING,
    },
    Target {
        scenario: "scaling",
        size: 1_000_000,
        against: Against::Plain("raw"),
        at_most: 1.4,
        why_missed: SCALING_PLAIN,
    },
    Target {
        scenario: "scaling",
        size: 1_000_000,
        against: Against::Plain("bevy"),
        at_most: 0.9,
        why_missed: SCALING_PLAIN,
    },
    Target {
        scenario: "fragmented_iter",
        size: 20,
        against: Against::Raw,
        at_most: 1.2,
        why_missed: "",
    },
    Target {
        scenario: "heavy_compute",
        size: 1_000,
        against: Against::Raw,
        at_most: 1.02,
        why_missed: "",
    },
    Target {
        scenario: "heavy_compute_par",
        size: 1_000,
        against: Against::Raw,
        at_most: 1.02,
        why_missed: "",
    },
    Target {
        scenario: "add_remove",
        size: 10_000,
        against: Against::Raw,
        at_most: 4.0,
        why_missed: "raw writes one `Option` in place per add or remove. An add checks the \
            entity is alive, looks its sparse entry up and pushes to two arrays; a remove looks \
            up two sparse entries (its own and the moved one's) and swap-removes from two \
            arrays: callgrind counts 59 instructions an operation against raw's 11.5 (and \
            specs's 83). The same work is still faster than every other crate.",
    },
    Target {
        scenario: "random_get",
        size: 100_000,
        against: Against::BestPeer,
        at_most: 1.0,
        why_missed: "a lookup reads the same two random cache lines as sparsey's, the sparse \
            entry (slot and generation, 8 bytes) and the value: callgrind's cache simulation \
            counts 2.10 first-level misses a lookup for both. Since the pages sit in one array \
            in page order, a lookup in a storage with no missing page reads no page table, and \
            it runs 18 instructions, sparsey's 19 (23 with the table). The ratio swings \
            around 1 on this shared machine from run to run (0.68-1.01x over eleven runs): what \
            is left is the work of both, not a difference between them.",
    },
    Target {
        scenario: "despawn_churn",
        size: 100_000,
        against: Against::BestPeer,
        at_most: 1.0,
        why_missed: DESPAWN,
    },
    Target {
        scenario: "despawn_churn",
        size: 100_000,
        against: Against::Ungrouped,
        at_most: 1.1,
        why_missed: "an owning group keeps its entities packed at the front of every storage \
            it owns, so despawning a grouped entity first swaps it out of the group in both \
            storages, then swap-removes it from each: callgrind counts 1.49 times the \
            instructions of the same world without the group (51.0 M against 34.2 M for ten \
            frames). EnTT's owning groups pay the same; the group is for worlds that iterate \
            the pair far more often than they despawn its members.",
    },
    Target {
        scenario: "add_remove",
        size: 10_000,
        against: Against::Ungrouped,
        at_most: 1.1,
        why_missed: "adding `B` makes the entity join the group (free when it sits right after \
            the group in `A`, a swap in `A` and `B` otherwise) and removing it makes the entity \
            leave (a swap in both) before `B`'s swap-remove; and after one frame `A`'s order is \
            no longer the order of the adds, so most joins swap too. Callgrind counts 335 \
            instructions an add and a remove against 118 without the group; 109 of them are \
            the 2.9 swaps (`SparseSet::swap`, 37 instructions each, two sparse entries \
            rewritten), the rest the checks of who joins and leaves. A group over components whose owners change every frame pays this by \
            design (EnTT's owning groups too): group what you iterate together, not what \
            comes and goes.",
    },
    Target {
        scenario: "random_get",
        size: 100_000,
        against: Against::Ungrouped,
        at_most: 1.03,
        why_missed: "",
    },
    Target {
        scenario: "despawn_churn_batch",
        size: 100_000,
        against: Against::BestPeer,
        at_most: 1.0,
        why_missed: DESPAWN,
    },
    Target {
        scenario: "deferred_sync",
        size: 10_000,
        against: Against::BestPeer,
        at_most: 1.0,
        why_missed: "",
    },
    Target {
        scenario: "hooks",
        size: 10_000,
        against: Against::Peer("bevy"),
        at_most: 0.5,
        why_missed: "each `world.add` and `world.remove` settles its hooks before it returns: \
            callgrind counts 324 instructions a hooked change against 85 for the same change \
            with the index kept by hand (bevy 883). Of the 239 more, averaged over adds and \
            removes, 75 look for commands the hooks queued (`take_waiting` drains an empty \
            `VecDeque` into a new `Vec` at every settle), 69 are the settle loop's own, 50 the \
            hook lines' dispatch and 15 listing each added entity for its hook.",
    },
];

/// Row `ours`'s median divided by row `theirs`'s, if both ran.
fn ratio_of(medians: &Medians, ours: &str, theirs: &str) -> Option<f64> {
    medians
        .get(ours)
        .zip(medians.get(theirs))
        .map(|(ours, theirs)| ours / theirs)
}

/// The speed targets, each against this run's medians, and what limits the
/// ones missed.
fn targets_table(results: &[(&Scenario, Vec<Medians>)]) -> String {
    let mut out = String::from(
        "The targets the performance work set, against this run. A target on a noisy shared \
         machine can swing across its line from one run to the next when the ratio is within a \
         few percent of it.\n\n\
         | scenario | target | measured | |\n|---|---:|---:|---|\n",
    );
    let mut missed = String::new();
    for target in TARGETS {
        let medians = results
            .iter()
            .filter(|(scenario, _)| scenario.name == target.scenario)
            .flat_map(|(_, cases)| cases)
            .find(|case| case.size == target.size);
        let Some(medians) = medians else {
            continue;
        };
        let (ratio, what) = match target.against {
            Against::Raw => (medians.vs_raw(), "raw"),
            Against::BestPeer => (medians.vs_best_peer(), "best peer"),
            Against::Ungrouped => (medians.group_cost(), "without the group"),
            Against::Peer(name) => (ratio_of(medians, "typed_ecs", name), name),
            Against::Plain("raw") => (ratio_of(medians, "typed_ecs_plain", "raw"), "raw, no group"),
            Against::Plain(name) => (ratio_of(medians, "typed_ecs_plain", name), name),
        };
        let Some(ratio) = ratio else {
            continue;
        };
        let met = ratio <= target.at_most;
        let _ = writeln!(
            out,
            "| `{}` | ≤ {:.2}× {what} | {} | {} |",
            target.scenario,
            target.at_most,
            harness::format_ratio(Some(ratio)),
            if met { "met" } else { "**missed**" }
        );
        if !met && !target.why_missed.is_empty() {
            let _ = writeln!(
                missed,
                "- `{}` ({} {what}, target {:.2}×): {}",
                target.scenario,
                harness::format_ratio(Some(ratio)),
                target.at_most,
                target.why_missed
            );
        }
    }
    if !missed.is_empty() {
        out.push_str("\nWhat limits the targets missed:\n\n");
        out.push_str(&missed);
    }
    out.push_str(
        "\nThe steady add/remove, parallel-stage, change-detection, memory and compile-time \
         targets are in their own sections below.\n",
    );
    out
}

/// Puts the system allocator in the state a long-running program reaches
/// after its first large free, before anything is timed. glibc's malloc
/// serves large blocks with `mmap` (fresh, page-faulting memory each time)
/// until a freed `mmap` block raises that threshold, up to 32 MiB; without
/// this, the scenarios that happen to run first would pay for page faults
/// that later ones do not, and by how much would depend on each crate's
/// allocation sizes. Freeing one 16 MiB block settles it for everyone.
fn settle_allocator() {
    drop(std::hint::black_box(vec![0u8; 16 << 20]));
}

/// The Memory section: what the `memory` binary prints, run through cargo
/// (which builds it first if needed) in a process of its own.
fn memory_section() -> String {
    printed_by("memory", &[], "## Memory", MEMORY_COMMAND)
}

/// The Steady add/remove section: what the `instances` binary prints with
/// `--markdown`, in a process of its own.
fn steady_section() -> String {
    printed_by(
        "instances",
        &["--markdown"],
        "## Steady add/remove",
        STEADY_COMMAND,
    )
}

/// What the benchmark binary `bin` prints when run through cargo with
/// `args` (`command` is how the document names that), or a section headed
/// `title` that says it failed.
fn printed_by(bin: &str, args: &[&str], title: &str, command: &str) -> String {
    eprintln!("{bin}: {command}");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .current_dir(workspace_root())
        .args([
            "run",
            "--release",
            "--quiet",
            "-p",
            "typed_ecs_benches",
            "--bin",
            bin,
            "--",
        ])
        .args(args)
        .stderr(std::process::Stdio::inherit())
        .output();
    match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        result => {
            let why = match result {
                Ok(out) => format!("it exited with {}", out.status),
                Err(error) => format!("it could not start: {error}"),
            };
            eprintln!("{bin}: {why}");
            format!("{title}\n\nNot measured: `{command}` failed ({why}).\n")
        }
    }
}

/// The Parallel stages section: what the `stages` binary prints, run
/// through cargo with the `bevy_multi_threaded` feature (bevy's
/// multi-threaded executor, which this process is built without) in a
/// process of its own. `only`: the stage scenarios to time (all if empty).
fn stages_section(options: &Options, only: &[&Scenario]) -> String {
    eprintln!("stages: {STAGES_COMMAND}");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command.current_dir(workspace_root()).args([
        "run",
        "--release",
        "--quiet",
        "-p",
        "typed_ecs_benches",
        "--features",
        "bevy_multi_threaded",
        "--bin",
        "stages",
        "--",
        "--rounds",
        &options.rounds.to_string(),
    ]);
    if options.quick {
        command.arg("--quick");
    }
    for scenario in only {
        command.args(["--only", scenario.name]);
    }
    let output = command.stderr(std::process::Stdio::inherit()).output();
    match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        result => {
            let why = match result {
                Ok(out) => format!("it exited with {}", out.status),
                Err(error) => format!("it could not start: {error}"),
            };
            eprintln!("stages: {why}");
            format!("## Parallel stages\n\nNot measured: `{STAGES_COMMAND}` failed ({why}).\n")
        }
    }
}

/// `target/bench-report/NAME` verbatim, or a line saying how to make it.
fn included(name: &str, heading: &str, command: &str) -> String {
    let path = workspace_root().join("target/bench-report").join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let mut text = text;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
        Err(_) => format!(
            "{heading}\n\nNot included: `target/bench-report/{name}` does not exist yet. `{command}` \
             writes it; then rerun this report.\n"
        ),
    }
}

/// The CPU model and the core count.
fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == "model name").then(|| value.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let listed = cpuinfo
        .lines()
        .filter(|line| line.starts_with("processor"))
        .count();
    let usable = std::thread::available_parallelism().map_or(1, |n| n.get());
    if listed == 0 || listed == usable {
        format!("{model}, {usable} cores")
    } else {
        format!("{model}, {usable} cores usable ({listed} listed)")
    }
}

fn rustc_version() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|| "rustc (version unknown)".to_string())
}

/// Today's date (UTC), `YYYY-MM-DD`, from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }
}
