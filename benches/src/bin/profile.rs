//! Runs one implementation of one scenario, for a profiler: set up once (or
//! per run, for scenarios that consume their state), then `RUNS` runs.
//!
//! ```text
//! cargo build --release -p typed_ecs_benches --bin profile
//! valgrind --tool=callgrind target/release/profile add_remove typed_ecs 20
//! ```
//!
//! Instruction counts from callgrind are repeatable on a shared machine where
//! timings are not: compare two builds' counts for a change that moves a few
//! percent. The setup is counted too; profile with two values of `RUNS` and
//! subtract to get the cost of the runs alone, or count only the runs with
//! `--toggle-collect='*scenarios::SCENARIO::typed_ecs::State*Instance*run*'`
//! (which also leaves out each run's untimed `Instance::prepare`).
//!
//! `profile --list` prints `SCENARIO<TAB>IMPLEMENTATION`, one a line, for
//! every typed_ecs implementation (its name starts with `typed_ecs`) of
//! every scenario it can run, for scripts that count them all
//! (`benches/counts.sh`).

#![forbid(unsafe_code)]

use std::process::ExitCode;
use typed_ecs_benches::{
    scenario, CHANGE_SCENARIOS, GAME_SCENARIOS, RELATION_SCENARIOS, SCENARIOS, STAGE_SCENARIOS,
};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--list") {
        // The lists `scenario` looks names up in.
        for s in SCENARIOS
            .iter()
            .chain(STAGE_SCENARIOS)
            .chain(CHANGE_SCENARIOS)
            .chain(GAME_SCENARIOS)
            .chain(RELATION_SCENARIOS)
        {
            for i in s.impls.iter().filter(|i| i.name.starts_with("typed_ecs")) {
                println!("{}\t{}", s.name, i.name);
            }
        }
        return ExitCode::SUCCESS;
    }
    let (Some(name), Some(implementation)) = (args.first(), args.get(1)) else {
        let names: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
        eprintln!(
            "usage: profile SCENARIO IMPLEMENTATION [RUNS] [SIZE] | profile --list\nscenarios: {names:?}"
        );
        return ExitCode::FAILURE;
    };
    let Some(scenario) = scenario(name) else {
        eprintln!("no scenario `{name}`");
        return ExitCode::FAILURE;
    };
    let Some(chosen) = scenario.impls.iter().find(|i| i.name == implementation) else {
        eprintln!("`{name}` has no implementation `{implementation}`");
        return ExitCode::FAILURE;
    };
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(10);
    let size = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(scenario.sizes[0]);
    if scenario.fresh_state {
        for _ in 0..runs {
            let mut instance = (chosen.setup)(size);
            instance.prepare();
            instance.run();
        }
    } else {
        let mut instance = (chosen.setup)(size);
        for _ in 0..runs {
            instance.prepare();
            instance.run();
        }
        println!("{:?}", instance.check());
    }
    ExitCode::SUCCESS
}
