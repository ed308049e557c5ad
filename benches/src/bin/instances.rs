//! How steady an implementation of a scenario is from one instance to the
//! next, and over time: `--count` fresh instances of each implementation
//! asked for, set up in one process and all alive at once, sampled in
//! interleaved rounds (in each round every instance takes one sample, in an
//! order that rotates from round to round, as in the report); then the
//! median sample per instance, and the spread: slowest median / fastest.
//!
//! ```text
//! cargo run --release -p typed_ecs_benches --bin instances -- \
//!     [--scenario add_remove] [--impls typed_ecs,specs] [--count 16] \
//!     [--rounds 101] [--batch 4] [--size N] [--sequential] [--perturb] \
//!     [--trace ROUNDS] [--verbose] [--markdown]
//! ```
//!
//! A sample is `--batch` runs timed as a whole, after one untimed warm-up
//! run of that instance (so that the caches hold it, as in the report).
//! The last line compares the implementations: the first one's median over
//! all its samples divided by each other one's.
//!
//! What the options are for (issue 14, item 4):
//!
//! * `--sequential`: each instance takes all its samples in a row, one
//!   instance after another, the way a harness that times instances one at
//!   a time does. On a machine whose speed changes over time this turns the
//!   machine's states into a spread between instances that interleaving
//!   does not show.
//! * `--perturb`: before each setup, allocates blocks of pseudo-random
//!   sizes and frees half of them, so that each instance's arrays fall
//!   elsewhere relative to each other (see `--verbose`).
//! * `--trace ROUNDS`: per block of `ROUNDS` rounds, each implementation's
//!   median in that block divided by its median over all rounds, plus two
//!   canaries timed the same way: `chain` (one chain of dependent
//!   multiply-adds: follows the core's clock) and `wide` (eight independent
//!   chains: follows the core's clock and how much of the core this thread
//!   gets). A block where every column drops together is the machine, not
//!   the code.
//! * `--verbose`: each instance's median / the fastest, with the addresses
//!   (mod 4096) that its [`Instance::addresses`] reports.
//! * `--markdown`: prints the report's "Steady add/remove" section instead
//!   (the spreads and the ratio against their targets, and per block of 10
//!   rounds the ratio beside the `wide` canary); `report` runs it so.
//!
//! What it showed on the 2-vCPU benchmark VM (issue 14, item 4): 16
//! interleaved `add_remove` instances of typed_ecs spread 1.02–1.05 (specs
//! 1.03–1.05), and 1.03–1.05 over 24 with `--perturb`, whatever their
//! offsets mod 4096; the same instances timed `--sequential` spread up to
//! 1.3 (specs up to 1.97). `--trace` shows why: the machine switches, for
//! every instance at once, between two states in which the `chain` canary
//! is equal and the `wide` one is 1.5× faster (the host gives the vCPU's
//! core to it alone or shares it: a clock change would move `chain` too).
//! specs, hecs and raw speed up with `wide` (1.6×, 1.5×, 1.25×); typed_ecs,
//! whose loops wait on dependent loads rather than on the core's width,
//! by 1.03–1.05×. So typed_ecs / specs is about 0.55 in one state and 0.9
//! in the other, and only interleaved samples compare instances fairly.

#![forbid(unsafe_code)]

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;
use typed_ecs_benches::harness::median;
use typed_ecs_benches::{scenario, Instance};

struct Options {
    scenario: String,
    impls: Vec<String>,
    count: usize,
    rounds: usize,
    batch: usize,
    size: Option<usize>,
    sequential: bool,
    perturb: bool,
    trace: usize,
    verbose: bool,
    markdown: bool,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        scenario: "add_remove".into(),
        impls: vec!["typed_ecs".into(), "specs".into()],
        count: 16,
        rounds: 101,
        batch: 4,
        size: None,
        sequential: false,
        perturb: false,
        trace: 0,
        verbose: false,
        markdown: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        let number = |text: String| text.parse::<usize>().map_err(|e| format!("{e}"));
        match arg.as_str() {
            "--scenario" => options.scenario = value()?,
            "--impls" => options.impls = value()?.split(',').map(String::from).collect(),
            "--count" => options.count = number(value()?)?.max(1),
            "--rounds" => options.rounds = number(value()?)?.max(1),
            "--batch" => options.batch = number(value()?)?.max(1),
            "--size" => options.size = Some(number(value()?)?),
            "--sequential" => options.sequential = true,
            "--perturb" => options.perturb = true,
            "--trace" => options.trace = number(value()?)?,
            "--verbose" => options.verbose = true,
            "--markdown" => options.markdown = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(options)
}

/// Blocks of pseudo-random sizes, every other one freed again at once: the
/// next setup finds the heap in another state. The kept ones go to `kept`.
fn perturb_heap(seed: &mut u64, kept: &mut Vec<Vec<u8>>) {
    let mut freed = Vec::new();
    for j in 0..24 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let block = vec![0u8; 1 + (*seed >> 33) as usize % 6000];
        if j % 2 == 0 {
            kept.push(block);
        } else {
            freed.push(block);
        }
    }
    drop(freed);
}

/// Nanoseconds for `lanes` independent chains of multiply-adds, 100,000
/// steps in all.
fn canary(lanes: usize) -> f64 {
    let mut x = [1u64; 8];
    let steps = 100_000 / lanes;
    let start = Instant::now();
    for _ in 0..steps {
        for value in &mut x[..lanes] {
            *value = value.wrapping_mul(black_box(3)).wrapping_add(1);
        }
    }
    black_box(x);
    start.elapsed().as_nanos() as f64
}

fn main() -> ExitCode {
    let mut options = match parse() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    if options.markdown {
        if options.sequential || options.impls.len() != 2 {
            eprintln!("`--markdown` compares two implementations, interleaved");
            return ExitCode::FAILURE;
        }
        options.trace = MARKDOWN_BLOCK;
    }
    let Some(scenario) = scenario(&options.scenario) else {
        eprintln!("no scenario `{}`", options.scenario);
        return ExitCode::FAILURE;
    };
    if scenario.fresh_state {
        eprintln!("`{}` sets up a fresh state per run", scenario.name);
        return ExitCode::FAILURE;
    }
    let size = options.size.unwrap_or(scenario.sizes[0]);
    let mut imps = Vec::new();
    for name in &options.impls {
        let Some(imp) = scenario.impls.iter().find(|i| i.name == name) else {
            eprintln!("`{}` has no implementation `{name}`", scenario.name);
            return ExitCode::FAILURE;
        };
        imps.push(imp);
    }

    // Every instance of every implementation, alive at once: (which
    // implementation, the instance, its samples by round).
    let mut instances: Vec<Sampled> = Vec::new();
    let mut kept = Vec::new();
    let mut seed = 0x9E37_79B9_7F4A_7C15;
    for (which, imp) in imps.iter().enumerate() {
        for _ in 0..options.count {
            if options.perturb {
                perturb_heap(&mut seed, &mut kept);
            }
            let mut instance = (imp.setup)(size);
            instance.run();
            instances.push((which, instance, Vec::with_capacity(options.rounds)));
        }
    }

    // Interleaved: in each round every instance takes one sample, in an
    // order that rotates. `--sequential`: each instance takes all its
    // samples in a row.
    let total = instances.len();
    let order: Vec<usize> = if options.sequential {
        (0..total)
            .flat_map(|i| std::iter::repeat_n(i, options.rounds))
            .collect()
    } else {
        (0..options.rounds)
            .flat_map(|round| (0..total).map(move |k| (round + k) % total))
            .collect()
    };
    // The canaries, one sample each per round (per instance's block of
    // rounds with `--sequential`, which has no common rounds).
    let mut chain = Vec::new();
    let mut wide = Vec::new();
    for (step, i) in order.into_iter().enumerate() {
        let (_, instance, samples) = &mut instances[i];
        instance.run(); // warm-up: the caches hold this instance again
        let start = Instant::now();
        for _ in 0..options.batch {
            instance.run();
        }
        samples.push(start.elapsed().as_nanos() as f64 / options.batch as f64);
        if options.trace > 0 && (step + 1) % total == 0 {
            chain.push(canary(1));
            wide.push(canary(8));
        }
    }

    if options.markdown {
        print!(
            "{}",
            markdown(&options, &imps, &instances, &mut chain, &mut wide)
        );
        return ExitCode::SUCCESS;
    }
    if options.trace > 0 && !options.sequential {
        trace(&options, &imps, &instances, &mut chain, &mut wide);
    }

    let mut overall = Vec::new();
    for (which, imp) in imps.iter().enumerate() {
        let mut medians = Vec::new();
        let mut addresses = Vec::new();
        for (_, instance, samples) in instances.iter_mut().filter(|(w, ..)| *w == which) {
            medians.push(median(samples));
            addresses.push(instance.addresses());
        }
        let fastest = medians.iter().copied().fold(f64::INFINITY, f64::min);
        let slowest = medians.iter().copied().fold(0.0, f64::max);
        if options.verbose {
            for (i, (m, addresses)) in medians.iter().zip(&addresses).enumerate() {
                let addresses: Vec<String> = addresses
                    .iter()
                    .map(|(what, address)| format!("{what}%4096={:4}", address % 4096))
                    .collect();
                println!(
                    "{} #{i:2}: {:.3} x fastest  {}",
                    imp.name,
                    m / fastest,
                    addresses.join(" ")
                );
            }
        }
        let mut sorted = medians.clone();
        sorted.sort_by(f64::total_cmp);
        let relative: Vec<String> = sorted
            .iter()
            .map(|m| format!("{:.2}", m / fastest))
            .collect();
        println!(
            "{}: slowest/fastest {:.3} over {} instances (sorted, / fastest: {})",
            imp.name,
            slowest / fastest,
            medians.len(),
            relative.join(" ")
        );
        overall.push((imp.name, block_median(&instances, which, 0..options.rounds)));
    }
    if let Some(&(first, base)) = overall.first() {
        for (name, ns) in &overall[1..] {
            println!(
                "{first} / {name} (medians of all samples): {:.3}",
                base / ns
            );
        }
    }
    ExitCode::SUCCESS
}

/// An instance of one of the implementations asked for: which one, the
/// instance, and its samples by round.
type Sampled = (usize, Box<dyn Instance>, Vec<f64>);

/// The median of implementation `which`'s samples in `rounds`, over all its
/// instances.
fn block_median(instances: &[Sampled], which: usize, rounds: std::ops::Range<usize>) -> f64 {
    let mut samples: Vec<f64> = instances
        .iter()
        .filter(|(w, ..)| *w == which)
        .flat_map(|(_, _, samples)| samples[rounds.clone()].iter().copied())
        .collect();
    median(&mut samples)
}

/// Rounds per block in the `--markdown` section's table.
const MARKDOWN_BLOCK: usize = 10;

/// The targets of issue 14, item 4: the slowest of the instances of the
/// first implementation at most this many times the fastest ...
const SPREAD_TARGET: f64 = 1.15;
/// ... and the first implementation's median at most this many times the
/// second's.
const RATIO_TARGET: f64 = 0.70;

/// The report's "Steady add/remove" section: each implementation's spread
/// over its instances, the first's median over all samples divided by the
/// second's, both against their targets, and per block of rounds that ratio
/// beside the canaries.
fn markdown(
    options: &Options,
    imps: &[&typed_ecs_benches::Impl],
    instances: &[Sampled],
    chain: &mut [f64],
    wide: &mut [f64],
) -> String {
    use std::fmt::Write as _;
    let verdict = |met: bool| if met { "met" } else { "**missed**" };
    let (ours, theirs) = (imps[0].name, imps[1].name);
    let rounds = options.rounds;
    let of = |which: usize, rounds: std::ops::Range<usize>| block_median(instances, which, rounds);
    let whole = [of(0, 0..rounds), of(1, 0..rounds)];
    let mut out = String::from(
        "## Steady add/remove

",
    );
    let _ = writeln!(
        out,
        "{count} fresh instances each of {ours} and {theirs} in `{scenario}`, set up in one \
         process and all alive at once, then sampled in {rounds} interleaved rounds (each \
         instance one sample a round, in an order that rotates; a sample is {batch} runs after \
         a warm-up run). The spread is an implementation's slowest instance median divided by \
         its fastest. Regenerate: `cargo run --release -p typed_ecs_benches --bin instances -- \
         --markdown`.\n",
        count = options.count,
        scenario = options.scenario,
        batch = options.batch,
    );
    out.push_str(
        "| implementation | slowest / fastest instance | instances, sorted, / fastest |\n",
    );
    out.push_str("|---|---:|---|\n");
    let mut spreads = Vec::new();
    for (which, imp) in imps.iter().enumerate() {
        let mut medians: Vec<f64> = instances
            .iter()
            .filter(|(w, ..)| *w == which)
            .map(|(_, _, samples)| median(&mut samples.clone()))
            .collect();
        medians.sort_by(f64::total_cmp);
        let fastest = medians[0];
        let spread = medians[medians.len() - 1] / fastest;
        let sorted: Vec<String> = medians
            .iter()
            .map(|m| format!("{:.2}", m / fastest))
            .collect();
        let _ = writeln!(out, "| {} | {spread:.3} | {} |", imp.name, sorted.join(" "));
        spreads.push(spread);
    }
    let ratio = whole[0] / whole[1];
    let _ = writeln!(
        out,
        "\n| target | measured | |\n|---|---:|---|\n\
         | {ours}'s slowest instance ≤ {SPREAD_TARGET:.2}× its fastest | {:.3}× | {} |\n\
         | {ours} / {theirs} ≤ {RATIO_TARGET:.2}× (medians of all samples) | {ratio:.3}× | {} |\n",
        spreads[0],
        verdict(spreads[0] <= SPREAD_TARGET),
        verdict(ratio <= RATIO_TARGET),
    );
    let _ = writeln!(
        out,
        "Per block of {MARKDOWN_BLOCK} rounds: the block's median of each implementation's \
         samples divided by its median over all rounds, {ours} / {theirs} in the block, and two \
         canaries timed between rounds, divided the same way: `chain`, one chain of dependent \
         multiply-adds (it follows the core's clock), and `wide`, eight independent chains (it \
         also follows how much of the core this thread gets). **Below 1 a block is faster.**\n"
    );
    let _ = writeln!(
        out,
        "| rounds | {ours} | {theirs} | {ours} / {theirs} | chain | wide |\n|---|---:|---:|---:|---:|---:|"
    );
    let (chain_all, wide_all) = (median(&mut chain.to_vec()), median(&mut wide.to_vec()));
    for start in (0..rounds).step_by(MARKDOWN_BLOCK) {
        let end = (start + MARKDOWN_BLOCK).min(rounds);
        let (a, b) = (of(0, start..end), of(1, start..end));
        let _ = writeln!(
            out,
            "| {start}..{end} | {:.2} | {:.2} | {:.3} | {:.2} | {:.2} |",
            a / whole[0],
            b / whole[1],
            a / b,
            median(&mut chain[start..end]) / chain_all,
            median(&mut wide[start..end]) / wide_all,
        );
    }
    out.push_str(WHY);
    out
}

/// What the section's measurements have shown on this machine.
const WHY: &str = "\nThe times of `add_remove` were bimodal between instances of the same code \
    when a harness timed one instance after another. Interleaved, the instances agree within a \
    few percent whatever their arrays' offsets (`--perturb`, `--verbose`): the code has no slow \
    instance. What moves is the machine: the `wide` canary switches between two speeds about \
    1.5× apart while `chain` stays put (the host gives this vCPU's core to it alone or shares \
    it; a clock change would move `chain` too). specs, hecs and raw, whose loops are limited by \
    the core's width, speed up with `wide`; typed_ecs, whose add and remove wait on dependent \
    loads (the sparse entry, then the dense slot), barely does. So typed_ecs / specs depends on \
    which state a run catches: earlier runs on this VM measured about 0.55 while `wide` was slow \
    and about 0.9 while it was fast. A run whose `wide` column stays within a few percent, as \
    the blocks above show, saw one state throughout.\n";

/// Prints, per block of `--trace` rounds, each implementation's and each
/// canary's median in the block / its median over all rounds.
fn trace(
    options: &Options,
    imps: &[&typed_ecs_benches::Impl],
    instances: &[Sampled],
    chain: &mut [f64],
    wide: &mut [f64],
) {
    let rounds = options.rounds;
    let of = |which: usize, rounds: std::ops::Range<usize>| block_median(instances, which, rounds);
    let whole: Vec<f64> = (0..imps.len()).map(|w| of(w, 0..rounds)).collect();
    let (chain_all, wide_all) = (median(&mut chain.to_vec()), median(&mut wide.to_vec()));
    let names: Vec<&str> = imps.iter().map(|i| i.name).collect();
    println!(
        "per {} rounds, block median / median of all rounds: {} | chain wide",
        options.trace,
        names.join(" ")
    );
    for start in (0..rounds).step_by(options.trace) {
        let end = (start + options.trace).min(rounds);
        let mut line: Vec<String> = (0..imps.len())
            .map(|w| format!("{:.2}", of(w, start..end) / whole[w]))
            .collect();
        line.push("|".into());
        line.push(format!("{:.2}", median(&mut chain[start..end]) / chain_all));
        line.push(format!("{:.2}", median(&mut wide[start..end]) / wide_all));
        println!("  rounds {start:4}..{end:4}: {}", line.join(" "));
    }
}
