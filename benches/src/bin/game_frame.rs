//! Prints the "Game frame" section of `BENCHMARKS.md`: `game_frame`'s
//! whole frame on typed_ecs, bevy_ecs and hecs, and each of its systems
//! (see `typed_ecs_benches::game` for the method).
//!
//! ```text
//! cargo run --release -p typed_ecs_benches --bin game_frame -- [--quick] [--size N] [--warmup N] [--frames N] [--chunk N] [--trace N]
//! ```
//!
//! Every implementation gets two instances, one plain and one with a time
//! stamp around every step. All six run `--warmup` frames (200) untimed,
//! then `--frames` frames (1,000), `--chunk` (10) at a time: in each round
//! every implementation, in an order that rotates from round to round,
//! runs a chunk of plain frames timed as a whole (one frame sample: the
//! chunk's time over its length), then the same chunk of stamped frames
//! (one sample per step per frame). The medians are the section's figures.
//! At the end the six must be in the same state, or the binary fails.
//! `--quick` times 200 frames after 100. `--trace N` runs typed_ecs alone
//! for N frames and prints its populations every 100 frames instead.

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::{Duration, Instant};
use typed_ecs_benches::game::{self, GameTimes, StateSummary, SystemMedians};
use typed_ecs_benches::harness::{format_ns, format_ratio, median};
use typed_ecs_benches::scenarios::game_frame::{SystemTimes, SCENARIO, SYSTEMS, TIMED};
use typed_ecs_benches::{Check, Instance};

const USAGE: &str = "usage: game_frame [--quick] [--size N] [--warmup N] [--frames N] \
                     [--chunk N] [--trace N]";

/// How the section is made, for its first paragraph.
pub const COMMAND: &str = "cargo run --release -p typed_ecs_benches --bin game_frame";

/// What typed_ecs's frame is limited by, when it misses its target:
/// callgrind on typed_ecs's stamped frames (`--trace 300` under
/// `valgrind --tool=callgrind`, at the commit the section names), and the
/// same for bevy.
const WHY_MISSED: &str = "typed_ecs loses on three systems and wins or ties the others (the \
    table below). **hunger** walks `join((Lazy(energy), ids))`: the two storages side by side, \
    each energy a `Mut` marked only if written (a quarter of them a frame). Over the first 20 \
    frames it executes 8.41 M instructions (0.90× the 9.32 M of `for_each_mut` with a lookup of \
    each id): 41% the marks (the run's flags scanned, each flagged value recorded in the change \
    log), 22% the log's compaction of superseded entries, 30% the walk; bevy's mark is one store \
    of a tick beside the value. **grid rebuild** walks `(&Pos, &Id, With<Prey>)`, driven by the \
    marker's storage (the shortest), whose order is not `Pos`'s: both other storages are looked \
    up per animal, where bevy and hecs walk a table. **reproduction** walks \
    `(&Energy, &Id, &Pos, Has<Prey>)` in lined-up runs now (`Has` answers for each entity of a \
    run; it was 3.8× bevy's time when `Has` sent every animal to a lookup in every storage); \
    what is left is its `Has` lookup per animal and the spawns it queues.";

struct Options {
    size: usize,
    warmup: usize,
    frames: usize,
    chunk: usize,
    quick: bool,
    trace: Option<usize>,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        size: SCENARIO.sizes[0],
        warmup: 0,
        frames: 0,
        chunk: 10,
        quick: false,
        trace: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut number = || {
            args.next()
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("`{flag}` needs a positive number"))
        };
        match flag.as_str() {
            "--quick" => options.quick = true,
            "--size" => options.size = number()?,
            "--warmup" => options.warmup = number()?,
            "--frames" => options.frames = number()?,
            "--chunk" => options.chunk = number()?,
            "--trace" => options.trace = Some(number()?),
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if options.warmup == 0 {
        options.warmup = if options.quick { 100 } else { 200 };
    }
    if options.frames == 0 {
        options.frames = if options.quick { 200 } else { 1_000 };
    }
    options.frames = options.frames.div_ceil(options.chunk) * options.chunk;
    Ok(options)
}

fn main() -> ExitCode {
    let options = match parse() {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("game_frame: {message}");
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
        eprintln!("game_frame: warning: a debug build; time it with `--release`");
    }
    if let Some(frames) = options.trace {
        trace(options.size, frames);
        return ExitCode::SUCCESS;
    }
    match measure(&options) {
        Ok(times) => {
            print!("{}", game::section(&header(&options), &times, WHY_MISSED));
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("game_frame: {message}");
            ExitCode::FAILURE
        }
    }
}

/// typed_ecs's populations every 100 frames.
fn trace(size: usize, frames: usize) {
    let mut instance = (TIMED[0].setup)(size);
    let start = Instant::now();
    for frame in 1..=frames {
        instance.run();
        if frame % 100 == 0 {
            let (prey, predators) = instance.populations();
            let check = instance.check();
            eprintln!(
                "frame {frame:6}: {prey:6} prey {predators:6} predators, {:8.0} grass, {:8} births, {:8} deaths",
                value(&check, "sum of grass"),
                value(&check, "births"),
                value(&check, "deaths"),
            );
        }
    }
    eprintln!(
        "{} a frame (stamped)",
        format_ns(start.elapsed().as_nanos() as f64 / frames as f64)
    );
}

/// The value labelled `label` in `check`.
fn value(check: &Check, label: &str) -> f64 {
    check
        .iter()
        .find(|(l, _)| *l == label)
        .map_or(f64::NAN, |&(_, v)| v)
}

/// One implementation: its two instances and their samples.
struct Contender {
    name: &'static str,
    plain: Box<dyn Instance>,
    stamped: Box<dyn SystemTimes>,
    frame_samples: Vec<f64>,
    row_samples: Vec<Vec<f64>>,
    stamped_frames: Vec<f64>,
}

fn measure(options: &Options) -> Result<GameTimes, String> {
    let size = options.size;
    let mut contenders: Vec<Contender> = SCENARIO
        .impls
        .iter()
        .map(|imp| {
            let stamped = TIMED
                .iter()
                .find(|t| t.name == imp.name)
                .expect("every implementation has a stamped twin");
            eprint!(" [{}]", imp.name);
            Contender {
                name: imp.name,
                plain: (imp.setup)(size),
                stamped: (stamped.setup)(size),
                frame_samples: Vec::new(),
                row_samples: vec![Vec::new(); SYSTEMS.len()],
                stamped_frames: Vec::new(),
            }
        })
        .collect();
    eprintln!(" set up at {size}");

    for c in &mut contenders {
        for _ in 0..options.warmup {
            c.plain.run();
            c.stamped.run();
        }
    }
    let before = contenders[0].plain.check();
    let count = contenders.len();
    let rounds = options.frames / options.chunk;
    for round in 0..rounds {
        for k in 0..count {
            let c = &mut contenders[(round + k) % count];
            let start = Instant::now();
            for _ in 0..options.chunk {
                c.plain.run();
            }
            let elapsed = start.elapsed();
            c.frame_samples
                .push(elapsed.as_nanos() as f64 / options.chunk as f64);
            for _ in 0..options.chunk {
                c.stamped.run();
                let times = c.stamped.times();
                for (samples, time) in c.row_samples.iter_mut().zip(times) {
                    samples.push(time.as_nanos() as f64);
                }
                let total: Duration = times.iter().sum();
                c.stamped_frames.push(total.as_nanos() as f64);
            }
        }
        if (round + 1) % (rounds / 10).max(1) == 0 {
            eprint!(" {}", (round + 1) * options.chunk);
        }
    }
    eprintln!(" frames timed");

    // The six instances must agree.
    let reference = contenders[0].plain.check();
    for c in &contenders {
        for (what, check) in [("plain", c.plain.check()), ("stamped", c.stamped.check())] {
            let same = check.len() == reference.len()
                && check.iter().zip(&reference).all(|((la, a), (lb, b))| {
                    la == lb && (a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()))
                });
            if !same {
                return Err(format!(
                    "{} ({what}) ended in another state than typed_ecs:\n  {reference:?}\n  {check:?}",
                    c.name
                ));
            }
        }
    }
    let (prey, predators) = contenders[0].stamped.populations();
    let frames = options.frames as f64;
    let state = StateSummary {
        entities: (value(&reference, "tiles")
            + value(&reference, "prey")
            + value(&reference, "predators")) as usize,
        prey,
        predators,
        births_per_frame: (value(&reference, "births") - value(&before, "births")) / frames,
        deaths_per_frame: (value(&reference, "deaths") - value(&before, "deaths")) / frames,
    };

    let medians: Vec<SystemMedians> = contenders
        .iter_mut()
        .map(|c| SystemMedians {
            name: c.name,
            frame_ns: median(&mut c.frame_samples),
            rows_ns: c.row_samples.iter_mut().map(|s| median(s)).collect(),
            stamped_frame_ns: median(&mut c.stamped_frames),
        })
        .collect();
    let times = GameTimes {
        size,
        warmup: options.warmup,
        frames: options.frames,
        chunk: options.chunk,
        medians,
        state,
    };
    for m in &times.medians {
        eprintln!(
            "  {:<10} frame {:>9}  typed_ecs / it {}",
            m.name,
            format_ns(m.frame_ns),
            format_ratio(times.frame_ratio(m.name))
        );
    }
    Ok(times)
}

/// The section's first paragraph.
fn header(options: &Options) -> String {
    let quick = if options.quick {
        " (`--quick`: expect noise)"
    } else {
        ""
    };
    format!(
        "The issue's game-shaped frame (issue 30, target 1): `game_frame`, a predator/prey \
         simulation written for typed_ecs, bevy_ecs and hecs as a new user of each would write \
         it from its docs (the module `benches/src/scenarios/game_frame.rs` says how), every \
         implementation checked to end in the same state. Made by `{COMMAND}`{quick} in a \
         process of its own: each implementation has a plain instance and one with a time \
         stamp around every step; all run {} frames untimed, then {} frames {} at a time, in \
         rounds whose order rotates, the plain instance's chunk timed as a whole (one frame \
         sample) and the stamped one's steps each frame. typed_ecs's stages stay on the \
         calling thread (`parallel_work` at its maximum) and bevy runs its single-threaded \
         executor, so both are single-threaded; hecs calls plain functions. Ratios are \
         typed_ecs's median over the other's: **below 1 typed_ecs is faster**.\n",
        options.warmup, options.frames, options.chunk
    )
}
