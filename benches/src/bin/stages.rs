//! Prints the "Parallel stages" section of `BENCHMARKS.md`: the scenarios
//! of `STAGE_SCENARIOS` timed the report's way (interleaved rounds, medians;
//! see `typed_ecs_benches::harness`) and their two targets.
//!
//! ```text
//! cargo run --release -p typed_ecs_benches --features bevy_multi_threaded --bin stages -- [--quick] [--only NAME]... [--rounds N]
//! ```
//!
//! The report runs it in a process of its own, with the feature: bevy_ecs's
//! `multi_threaded`, which the other scenarios go without (it would change
//! what bevy's `par_iter_mut` does there). Without the feature the bevy
//! multi-threaded rows are missing and the section says so.

#![forbid(unsafe_code)]

use std::process::ExitCode;
use typed_ecs_benches::harness::{self, CpuTimes, Medians};
use typed_ecs_benches::{short_size, stages, Scenario, STAGE_SCENARIOS};

const USAGE: &str = "usage: stages [--quick] [--only SCENARIO]... [--rounds N]";

/// How the section is made, for its first paragraph.
pub const COMMAND: &str =
    "cargo run --release -p typed_ecs_benches --features bevy_multi_threaded --bin stages";

fn main() -> ExitCode {
    let mut rounds = 0;
    let mut quick = false;
    let mut only: Vec<&'static Scenario> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--quick" => quick = true,
            "--rounds" => match args.next().and_then(|n| n.parse().ok()).filter(|&n| n > 0) {
                Some(n) => rounds = n,
                None => return usage("`--rounds` needs a positive number"),
            },
            "--only" => {
                let name = args.next().unwrap_or_default();
                match STAGE_SCENARIOS.iter().find(|s| s.name == name) {
                    Some(scenario) => only.push(scenario),
                    None => return usage(&format!("no stage scenario `{name}`")),
                }
            }
            "--help" | "-h" => {
                eprintln!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unknown option `{other}`")),
        }
    }
    if rounds == 0 {
        rounds = if quick { 5 } else { 31 };
    }
    if cfg!(debug_assertions) {
        eprintln!("stages: warning: a debug build; time it with `--release`");
    }
    if only.is_empty() {
        only = STAGE_SCENARIOS.iter().collect();
    }

    let before = CpuTimes::now();
    let mut results: Vec<(&Scenario, Vec<Medians>)> = Vec::new();
    for scenario in only {
        let mut cases = Vec::new();
        for &size in scenario.sizes {
            eprint!("{} at {}:", scenario.name, short_size(size));
            let medians = harness::measure(scenario, size, rounds, |name| eprint!(" [{name}]"));
            eprintln!();
            for &(name, ns) in &medians.ns {
                eprintln!("  {name:<22} {}", harness::format_ns(ns));
            }
            cases.push(medians);
        }
        results.push((scenario, cases));
    }
    let others = before.zip(CpuTimes::now()).map(|(a, b)| b.others_since(&a));
    if let Some(cores) = others {
        eprintln!("stages: other processes kept {cores:.2} cores busy on average");
    }
    let bevy_threads = typed_ecs_benches::scenarios::parallel_stage::bevy_threads();
    let header = header(rounds, quick, bevy_threads, others);
    print!("{}", stages::section(&header, &results));
    ExitCode::SUCCESS
}

fn usage(message: &str) -> ExitCode {
    eprintln!("stages: {message}\n{USAGE}");
    ExitCode::FAILURE
}

/// The section's first paragraph: how, and on how many threads.
fn header(rounds: usize, quick: bool, bevy_threads: Option<usize>, others: Option<f64>) -> String {
    let threads = rayon::current_num_threads();
    let bevy = match bevy_threads {
        Some(n) => format!(
            "bevy_ecs is built with its `multi_threaded` feature here (only here: this process \
             is built apart, with this crate's `bevy_multi_threaded` feature), so its \
             `MultiThreadedExecutor` runs systems on its `ComputeTaskPool` ({n} threads)."
        ),
        None => "This run was built without this crate's `bevy_multi_threaded` feature, so \
                 bevy's multi-threaded executor is not measured."
            .to_string(),
    };
    let quick = if quick {
        ", `--quick`: expect noise"
    } else {
        ""
    };
    let others = others.map_or(String::new(), |cores| {
        format!(
            " A speed-up needs idle cores: while these scenarios were timed, other processes \
             kept {cores:.2} of the machine's {} cores busy on average.",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        )
    });
    format!(
        "The issue's proof that a stage runs its systems in parallel, and what a stage costs \
         when its systems have nothing to do. Made by `{COMMAND}` in a process of its own, \
         timed as above ({rounds} rounds{quick}), on {threads} rayon threads. {bevy} Each \
         parallel run is compared with its own sequential run: the typed_ecs stage with the same \
         systems added one by one with `add_system`, bevy's multi-threaded executor with its \
         single-threaded one, rayon with plain loops. The first column is the figure to read: \
         time over the typed_ecs sequential schedule's, **below 1 is faster**.{others}\n"
    )
}
