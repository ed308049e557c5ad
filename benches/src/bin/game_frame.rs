//! Prints the "Game frame" section of `BENCHMARKS.md`: `game_frame`'s
//! whole frame on typed_ecs, bevy_ecs, hecs and by hand (`raw`), and each of its systems
//! (see `typed_ecs_benches::game` for the method).
//!
//! ```text
//! cargo run --release -p typed_ecs_benches --bin game_frame -- [--quick] [--size N] [--warmup N] [--frames N] [--chunk N] [--trace N]
//! cargo run --release -p typed_ecs_benches --features bevy_multi_threaded --bin game_frame -- --parallel [--parallel-work MICROS] [--quick] …
//! ```
//!
//! Every implementation gets two instances, one plain and one with a time
//! stamp around every step. All eight run `--warmup` frames (200) untimed,
//! then `--frames` frames (1,000), `--chunk` (10) at a time: in each round
//! every implementation, in an order that rotates from round to round,
//! runs a chunk of plain frames timed as a whole (one frame sample: the
//! chunk's time over its length), then the same chunk of stamped frames
//! (one sample per step per frame). The medians are the section's figures.
//! At the end the eight must be in the same state, or the binary fails.
//! `--quick` times 200 frames after 100. `--trace N` runs typed_ecs alone
//! for N frames and prints its populations every 100 frames instead.
//!
//! `--parallel` prints instead a small section of its own: the whole frame
//! (no stamps) of typed_ecs single-threaded, typed_ecs with its parallel
//! stages on (`parallel_work` at its default, 40 µs, or `--parallel-work`
//! µs), bevy on its single-threaded executor and bevy on its
//! `MultiThreadedExecutor` (only when built with this crate's
//! `bevy_multi_threaded` feature), timed in the same rotating rounds, all
//! four checked to end in the same state; then the ratios (issue 30's
//! target: typed_ecs parallel ≤ 0.6× bevy multi-threaded), and which of
//! typed_ecs's stages had work enough to go to the pool, and each step of
//! typed_ecs's frame single-threaded and parallel (`run_timed` on fresh
//! instances after their warm-up).

#![forbid(unsafe_code)]

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use typed_ecs_benches::game::{self, GameTimes, StateSummary, SystemMedians};
use typed_ecs_benches::harness::{format_ns, format_ratio, median};
use typed_ecs_benches::scenarios::game_frame::{SystemTimes, SCENARIO, SYSTEMS, TIMED};
use typed_ecs_benches::{Check, Instance};

const USAGE: &str = "usage: game_frame [--quick] [--size N] [--warmup N] [--frames N] \
                     [--chunk N] [--trace N] [--parallel [--parallel-work MICROS]]";

/// How the section is made, for its first paragraph.
pub const COMMAND: &str = "cargo run --release -p typed_ecs_benches --bin game_frame";

/// How the `--parallel` section is made.
pub const PARALLEL_COMMAND: &str = "cargo run --release -p typed_ecs_benches --features \
                                    bevy_multi_threaded --bin game_frame -- --parallel";

/// What typed_ecs's frame is limited by, when it misses its target:
/// callgrind on typed_ecs's stamped frames (`--trace 300` under
/// `valgrind --tool=callgrind`, at the commit the section names), and the
/// same for bevy.
const WHY_MISSED: &str = "typed_ecs loses on three systems and wins or ties the others (the \
    table below). **hunger** walks `join((Lazy(energy), ids))`: the two storages side by side, \
    each energy a `Mut` marked only if written (a quarter of them a frame). The run's flags are \
    now read 64 at a time and only the set ones visited (2.3–2.5× bevy's time before, with a \
    branch on every flag); what is left is the marks themselves: each records the value in the \
    change log (about 40 instructions: the slot's 16-byte record read, its old entry, often at a \
    random place, turned into a tombstone, a new entry appended), and the log's compaction of \
    superseded entries one frame in three; bevy's mark is one store of a tick beside the value. \
    **grid rebuild** walks `(&Pos, &Id, With<Prey>)`, driven by the marker's storage (the \
    shortest), whose order is not `Pos`'s: each animal is looked up in `Pos` (its sparse entry, \
    then its value, both random reads), and `Id` reads its value at the slot `Pos` found it \
    in, with no lookup or check of its own where the line-up proofs cover it (the movement's \
    walk proves `Id` against `Pos` every frame), where bevy and hecs walk a table in order: \
    the grid's cells and their sorting, which all pay, are most of the time. Driving by \
    `Pos` and asking the marker per entity instead was tried and measured slower: the answer \
    is a branch on a pattern the predictor cannot learn. **reproduction** walks \
    `(&Energy, &Id, &Pos, Has<Prey>)` in lined-up runs; what is left is its `Has` lookup per \
    animal (a random read of the marker's sparse entry, cold after the grid's work) and the \
    spawns it queues.";

struct Options {
    size: usize,
    warmup: usize,
    frames: usize,
    chunk: usize,
    quick: bool,
    trace: Option<usize>,
    /// `--parallel`: the parallel section instead of the usual one.
    parallel: bool,
    /// `--parallel-work`: typed_ecs's parallel instance's `parallel_work`
    /// (its default if `None`).
    parallel_work: Option<Duration>,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        size: SCENARIO.sizes[0],
        warmup: 0,
        frames: 0,
        chunk: 10,
        quick: false,
        trace: None,
        parallel: false,
        parallel_work: None,
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
            "--parallel" => options.parallel = true,
            "--parallel-work" => {
                let micros = args
                    .next()
                    .and_then(|n| n.parse::<u64>().ok())
                    .ok_or("`--parallel-work` needs a number of microseconds")?;
                options.parallel_work = Some(Duration::from_micros(micros));
            }
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
    if options.parallel {
        return match measure_parallel(&options) {
            Ok(section) => {
                print!("{section}");
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("game_frame: {message}");
                ExitCode::FAILURE
            }
        };
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

    // The instances must agree.
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
         executor, so both are single-threaded; hecs calls plain functions, and `raw` is the \
         game written by hand with no ECS (the animals in one `Vec` of structs, an animal's \
         handle its index), the baseline. Ratios are \
         typed_ecs's median over the other's: **below 1 typed_ecs is faster**.\n",
        options.warmup, options.frames, options.chunk
    )
}

/// Whether `check` is `reference`, but for the last bits of `f64` sums
/// taken in another order.
fn same_state(reference: &Check, check: &Check) -> bool {
    check.len() == reference.len()
        && check.iter().zip(reference).all(|((la, a), (lb, b))| {
            la == lb && (a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()))
        })
}

/// The `--parallel` section: the whole frame of each crate single-threaded
/// and with its parallel stages or executor, timed in rotating rounds as
/// [`measure`] does (plain instances only), checked to end in one state;
/// the ratios, and how much work typed_ecs's stages had.
fn measure_parallel(options: &Options) -> Result<String, String> {
    use ::typed_ecs::ScheduleStats;
    use typed_ecs_benches::harness::CpuTimes;
    use typed_ecs_benches::scenarios::game_frame::{bevy, typed_ecs};
    use typed_ecs_benches::scenarios::parallel_stage::bevy_threads;

    const TYPED_SINGLE: &str = "typed_ecs single-threaded";
    const TYPED_PARALLEL: &str = "typed_ecs parallel";
    const BEVY_SINGLE: &str = "bevy single-threaded";
    const BEVY_MULTI: &str = "bevy multi-threaded";
    let size = options.size;
    let parallel = || typed_ecs::build_with(size, false, options.parallel_work);
    let mut contenders: Vec<(&str, Box<dyn Instance>, Vec<f64>)> = vec![
        (TYPED_SINGLE, Box::new(typed_ecs::setup(size)), Vec::new()),
        (TYPED_PARALLEL, Box::new(parallel()), Vec::new()),
        (BEVY_SINGLE, Box::new(bevy::setup(size)), Vec::new()),
    ];
    #[cfg(feature = "bevy_multi_threaded")]
    contenders.push((
        BEVY_MULTI,
        Box::new(bevy::setup_multi_threaded(size)),
        Vec::new(),
    ));
    if !cfg!(feature = "bevy_multi_threaded") {
        eprintln!(
            "game_frame: bevy multi-threaded needs this crate's feature: \
             `--features bevy_multi_threaded`"
        );
    }
    for (name, _, _) in &contenders {
        eprint!(" [{name}]");
    }
    eprintln!(" set up at {size}");

    let load_before = CpuTimes::now();
    for (_, instance, _) in &mut contenders {
        for _ in 0..options.warmup {
            instance.run();
        }
    }
    let count = contenders.len();
    let rounds = options.frames / options.chunk;
    for round in 0..rounds {
        for k in 0..count {
            let (_, instance, samples) = &mut contenders[(round + k) % count];
            let start = Instant::now();
            for _ in 0..options.chunk {
                instance.run();
            }
            samples.push(start.elapsed().as_nanos() as f64 / options.chunk as f64);
        }
        if (round + 1) % (rounds / 10).max(1) == 0 {
            eprint!(" {}", (round + 1) * options.chunk);
        }
    }
    eprintln!(" frames timed");
    let others = load_before
        .zip(CpuTimes::now())
        .map(|(a, b)| b.others_since(&a));

    let reference = contenders[0].1.check();
    for (name, instance, _) in &contenders {
        let check = instance.check();
        if !same_state(&reference, &check) {
            return Err(format!(
                "{name} ended in another state than {TYPED_SINGLE}:\n  {reference:?}\n  {check:?}"
            ));
        }
    }
    let medians: Vec<(&str, f64)> = contenders
        .iter_mut()
        .map(|(name, _, samples)| (*name, median(samples)))
        .collect();
    let of = |name: &str| medians.iter().find(|m| m.0 == name).map(|m| m.1);
    let ratio = |a: &str, b: &str| Some(of(a)? / of(b)?);
    for &(name, ns) in &medians {
        eprintln!("  {name:<26} frame {:>9}", format_ns(ns));
    }

    // Which stages had work enough for the pool: a fresh parallel
    // instance, warmed up as the timed ones, then timed step by step.
    // Which stages had work enough for the pool, and where the parallel
    // frame's time goes: fresh instances, single-threaded and parallel,
    // warmed up as the timed ones, then each step timed by `run_timed`,
    // a chunk of each in turn.
    let probe_frames = options.frames.min(500);
    let mut probes = [typed_ecs::setup(size), parallel()];
    let mut stats = [(); 2].map(|()| ScheduleStats::with_window(probe_frames));
    for probe in &mut probes {
        for _ in 0..options.warmup {
            probe.run();
        }
    }
    for _ in 0..probe_frames / options.chunk {
        for (probe, stats) in probes.iter_mut().zip(&mut stats) {
            for _ in 0..options.chunk {
                probe.run_timed(stats);
            }
        }
    }
    let single_steps = typed_ecs::step_medians(&stats[0]);
    let steps = typed_ecs::step_medians(&stats[1]);
    let work = probes[1].parallel_work();

    let mut out = String::new();
    let quick = if options.quick {
        " (`--quick`: expect noise)"
    } else {
        ""
    };
    let threads = rayon::current_num_threads();
    let bevy = match bevy_threads() {
        Some(n) => format!(
            "bevy's `MultiThreadedExecutor` on its `ComputeTaskPool` ({n} threads), its \
             systems ordered as typed_ecs's stages"
        ),
        None => "no bevy multi-threaded row (built without `--features bevy_multi_threaded`)"
            .to_string(),
    };
    let load = others.map_or(String::new(), |cores| {
        format!(
            " While they were timed, other processes kept {cores:.2} of the machine's {} cores \
             busy on average.",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        )
    });
    let _ = writeln!(
        out,
        "## Game frame, parallel\n\n`game_frame`'s whole frame (no stamps) with parallel \
         stages, beside the single-threaded frames: made by `{PARALLEL_COMMAND}`{quick} in a \
         process of its own, {} frames untimed, then \
         {} frames {} at a time in rounds whose order rotates; all end in the same state. \
         typed_ecs's parallel schedule has `parallel_work` at {} on rayon's pool ({threads} \
         threads); {bevy}.{load}\n",
        options.warmup,
        options.frames,
        options.chunk,
        match options.parallel_work {
            None => format!("its default ({})", format_ns(work.as_nanos() as f64)),
            Some(_) => format_ns(work.as_nanos() as f64),
        },
    );
    let _ = writeln!(out, "| implementation | median frame |\n|---|---:|");
    for name in [TYPED_SINGLE, TYPED_PARALLEL, BEVY_SINGLE, BEVY_MULTI] {
        let time = of(name).map_or_else(|| "n/a".to_string(), format_ns);
        let _ = writeln!(out, "| {name} | {time} |");
    }
    let target = ratio(TYPED_PARALLEL, BEVY_MULTI);
    let verdict = match target {
        Some(r) if r <= 0.6 => "met",
        Some(_) => "**missed**",
        None => "not measured",
    };
    let _ = writeln!(
        out,
        "\n| ratio | measured | target |\n|---|---:|---|\n\
         | {TYPED_PARALLEL} / {BEVY_MULTI} | **{}** | ≤ 0.60×: {verdict} |\n\
         | {TYPED_PARALLEL} / {TYPED_SINGLE} | {} | |\n\
         | {BEVY_MULTI} / {BEVY_SINGLE} | {} | |\n\
         | {TYPED_SINGLE} / {BEVY_SINGLE} | {} | |\n\
         | {TYPED_SINGLE} / {BEVY_MULTI} | {} | |",
        format_ratio(target),
        format_ratio(ratio(TYPED_PARALLEL, TYPED_SINGLE)),
        format_ratio(ratio(BEVY_MULTI, BEVY_SINGLE)),
        format_ratio(ratio(TYPED_SINGLE, BEVY_SINGLE)),
        format_ratio(ratio(TYPED_SINGLE, BEVY_MULTI)),
    );
    let frame = steps
        .iter()
        .find(|(name, _)| name == "frame")
        .map_or(Duration::ZERO, |s| s.1);
    let _ = writeln!(
        out,
        "\ntyped_ecs's stages (medians of `run_timed` over {probe_frames} frames of a \
         parallel instance; a stage goes to the pool when its members' work reached {}; \
         frame {}):\n",
        format_ns(work.as_nanos() as f64),
        format_ns(frame.as_nanos() as f64),
    );
    let _ = writeln!(
        out,
        "| stage | members' work | share of the frame | on |\n|---|---:|---:|---|"
    );
    for stage in typed_ecs::STAGES {
        let total: Duration = steps
            .iter()
            .filter(|(name, _)| stage.contains(&name.as_str()))
            .map(|s| s.1)
            .sum();
        let share = total.as_secs_f64() / frame.as_secs_f64().max(f64::MIN_POSITIVE);
        let on = if total >= work {
            "the pool"
        } else {
            "the calling thread"
        };
        let _ = writeln!(
            out,
            "| ({}) | {} | {:.0}% | {on} |",
            stage.join(", "),
            format_ns(total.as_nanos() as f64),
            share * 100.0
        );
    }
    let _ = writeln!(
        out,
        "\nEach step of typed_ecs's frame, single-threaded and parallel (medians of \
         `run_timed` over {probe_frames} frames of each, a chunk of each in turn; a member of \
         a stage on the pool is timed on the thread that ran it):\n\n\
         | step | single-threaded | parallel | parallel / single-threaded |\n|---|---:|---:|---:|"
    );
    for ((name, single), (_, parallel)) in single_steps.iter().zip(&steps) {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} |",
            format_ns(single.as_nanos() as f64),
            format_ns(parallel.as_nanos() as f64),
            format_ratio(Some(parallel.as_secs_f64() / single.as_secs_f64())),
        );
    }
    Ok(out)
}
