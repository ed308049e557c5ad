//! Instruction counts and simulated cache misses of the cube examples,
//! `falling_cubes` and `seed_cubes`, from valgrind's cachegrind; the
//! `seed_cubes` figures are set next to the ones published in the article
//! that example translates.
//!
//! It builds both examples in release mode, then runs each under
//! `valgrind --tool=cachegrind --cache-sim=yes` twice with 10,000 cubes: once
//! with `--frames 0` (setup and teardown only) and once with `--frames N`. The
//! difference of the two is the cost of N frames, so the setup does not blur
//! the per-frame numbers.
//!
//! ```text
//! cargo run --release -p typed_ecs_benches --bin cachegrind -- [--frames 60]
//! ```
//!
//! The markdown report goes to `<workspace>/target/bench-report/cachegrind.md`
//! and to stdout; cachegrind's own output files go next to it.

#![forbid(unsafe_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

const ENTITIES: u64 = 10_000;
const HEADING: &str = "## Cachegrind: the cube examples, 10,000 cubes\n\n";

/// An example this tool measures, and what its frames do.
struct Subject {
    example: &'static str,
    /// What the difference of the two runs holds, for the report.
    frame_work: &'static str,
    /// Whether to set the figures next to the article's published ones.
    next_to_the_article: bool,
}

const SUBJECTS: &[Subject] = &[
    Subject {
        example: "falling_cubes",
        frame_work:
            "gravity, integrate, the (recycle, tick) stage and the sync point, plus printing the timing table",
        next_to_the_article: false,
    },
    Subject {
        example: "seed_cubes",
        frame_work: "the article's physics update every frame, with the clock read before and \
            after it",
        next_to_the_article: true,
    },
];

/// The cachegrind summary at the end of the article `seed_cubes` translates
/// (Austin Morlan, "A Simple Entity Component System (ECS) [C++]", 2019,
/// section *Demo*), as published.
const ARTICLE_OUTPUT: &str = "\
==15445== I   refs:      3,632,270,619
==15445== I1  misses:       87,147,982
==15445== LLi misses:           26,599
==15445== I1  miss rate:          2.40%
==15445== LLi miss rate:          0.00%
==15445==
==15445== D   refs:      1,583,125,924  (1,045,689,190 rd   + 537,436,734 wr)
==15445== D1  misses:       11,968,989  (    7,776,523 rd   +   4,192,466 wr)
==15445== LLd misses:          505,598  (      270,649 rd   +     234,949 wr)
==15445== D1  miss rate:           0.8% (          0.7%     +         0.8%  )
==15445== LLd miss rate:           0.0% (          0.0%     +         0.0%  )
==15445==
==15445== LL refs:          99,116,971  (   94,924,505 rd   +   4,192,466 wr)
==15445== LL misses:           532,197  (      297,248 rd   +     234,949 wr)
==15445== LL miss rate:            0.0% (          0.0%     +         0.0%  )
";

/// The counts of cachegrind's summary, or a difference of two.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Counts {
    i_refs: u64,
    i1_misses: u64,
    d_refs: u64,
    d1_misses: u64,
    lld_misses: u64,
    ll_misses: u64,
}

impl Counts {
    /// What `self` counted beyond `earlier`.
    fn minus(&self, earlier: &Counts) -> Counts {
        Counts {
            i_refs: self.i_refs.saturating_sub(earlier.i_refs),
            i1_misses: self.i1_misses.saturating_sub(earlier.i1_misses),
            d_refs: self.d_refs.saturating_sub(earlier.d_refs),
            d1_misses: self.d1_misses.saturating_sub(earlier.d1_misses),
            lld_misses: self.lld_misses.saturating_sub(earlier.lld_misses),
            ll_misses: self.ll_misses.saturating_sub(earlier.ll_misses),
        }
    }
}

/// The totals of cachegrind's summary (what it prints to stderr at exit).
#[derive(Debug, Clone, PartialEq)]
struct Summary {
    counts: Counts,
    /// As valgrind printed them, like `1.3%`.
    d1_miss_rate: String,
    lld_miss_rate: String,
    ll_miss_rate: String,
}

/// Reads the summary lines (`==123== D1  misses:  24,327  (8,117 rd + …)`)
/// out of valgrind's stderr. Only the first number of each line (the total)
/// is kept.
fn parse_summary(stderr: &str) -> Result<Summary, String> {
    let mut fields = std::collections::HashMap::new();
    for line in stderr.lines() {
        // Valgrind's own lines start with `==pid==`; the program's don't.
        let Some(rest) = line.strip_prefix("==") else {
            continue;
        };
        let Some((_pid, text)) = rest.split_once("==") else {
            continue;
        };
        let Some((key, value)) = text.split_once(':') else {
            continue;
        };
        let key = key.split_whitespace().collect::<Vec<_>>().join(" ");
        if let Some(total) = value.split_whitespace().next() {
            fields.insert(key, total.to_string());
        }
    }
    let text = |key: &str| {
        fields
            .get(key)
            .cloned()
            .ok_or_else(|| format!("no `{key}:` line in valgrind's output"))
    };
    let count = |key: &str| {
        let value = text(key)?;
        value
            .replace(',', "")
            .parse::<u64>()
            .map_err(|_| format!("`{key}:` is not a count: `{value}`"))
    };
    let rate = |key: &str| {
        let value = text(key)?;
        match value.strip_suffix('%').map(str::parse::<f64>) {
            Some(Ok(_)) => Ok(value),
            _ => Err(format!("`{key}:` is not a percentage: `{value}`")),
        }
    };
    Ok(Summary {
        counts: Counts {
            i_refs: count("I refs")?,
            i1_misses: count("I1 misses")?,
            d_refs: count("D refs")?,
            d1_misses: count("D1 misses")?,
            lld_misses: count("LLd misses")?,
            ll_misses: count("LL misses")?,
        },
        d1_miss_rate: rate("D1 miss rate")?,
        lld_miss_rate: rate("LLd miss rate")?,
        ll_miss_rate: rate("LL miss rate")?,
    })
}

/// One run of an example under cachegrind.
struct Run {
    frames: u32,
    summary: Summary,
    out_file: PathBuf,
    /// The example's first line of output (what happened to the cubes).
    story: String,
}

fn cachegrind(binary: &Path, report_dir: &Path, frames: u32) -> Result<Run, String> {
    let out_pattern = report_dir.join("cachegrind.out.%p");
    let child = Command::new("valgrind")
        .arg("--tool=cachegrind")
        .arg("--cache-sim=yes")
        .arg(format!("--cachegrind-out-file={}", out_pattern.display()))
        .arg(binary)
        .args(["--frames", &frames.to_string()])
        .args(["--entities", &ENTITIES.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start valgrind: {e}"))?;
    // Valgrind runs the program in its own process, so `%p` is this pid.
    let pid = child.id();
    let output = child
        .wait_with_output()
        .map_err(|e| format!("valgrind: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "`valgrind … {} --frames {frames}` failed ({}):\n{stderr}",
            binary.display(),
            output.status
        ));
    }
    let summary = parse_summary(&stderr)?;
    let story = String::from_utf8_lossy(&output.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    Ok(Run {
        frames,
        summary,
        out_file: report_dir.join(format!("cachegrind.out.{pid}")),
        story,
    })
}

/// One example measured: its `--frames 0` run and its `--frames N` run.
struct Measured<'a> {
    subject: &'a Subject,
    setup: Run,
    frames: Run,
}

impl Measured<'_> {
    /// The frames alone: the second run less the first.
    fn difference(&self) -> Counts {
        self.frames.summary.counts.minus(&self.setup.summary.counts)
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut rest = digits.as_str();
    let mut groups = Vec::new();
    while rest.len() > 3 {
        let (head, group) = rest.split_at(rest.len() - 3);
        groups.push(group);
        rest = head;
    }
    groups.push(rest);
    groups.reverse();
    groups.join(",")
}

/// `value` with `decimals` decimals, or, when that would round a small value
/// to 0, with two significant digits.
fn short(value: f64, decimals: usize) -> String {
    if value == 0.0 || value >= 10f64.powi(-(decimals as i32)) {
        format!("{value:.decimals$}")
    } else {
        let decimals = (1.0 - value.log10().floor()) as usize;
        format!("{value:.decimals$}")
    }
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        "n/a".to_string()
    } else {
        format!("{}%", short(100.0 * part as f64 / whole as f64, 2))
    }
}

/// The simulated caches, from the `desc:` lines of cachegrind's out-file.
fn cache_config(out_file: &Path) -> Vec<String> {
    std::fs::read_to_string(out_file)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.strip_prefix("desc:"))
        .map(|desc| desc.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn report(root: &Path, version: &str, measured: &[Measured]) -> String {
    let n = measured.first().map_or(0, |m| m.frames.frames);
    let mut out = String::from(HEADING);
    let _ = writeln!(
        out,
        "The release build of each example runs under \
         `valgrind --tool=cachegrind --cache-sim=yes` twice with `--entities {ENTITIES}`: once \
         with `--frames 0` (spawning the cubes, then teardown) and once with `--frames {n}`. \
         The difference of the two runs is the cost of {n} frames alone. Counts are \
         cachegrind's totals; the first two rows' miss rates are valgrind's own (misses / data \
         refs), the difference row's are computed from its counts. LL is the simulated \
         last-level cache.\n"
    );
    let _ = writeln!(
        out,
        "Regenerate: `cargo run --release -p typed_ecs_benches --bin cachegrind -- --frames {n}`\n"
    );
    let config = measured
        .first()
        .map(|m| cache_config(&m.frames.out_file))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{version}, {}; simulated caches: {}.\n",
        command_line("rustc", &["--version"]),
        if config.is_empty() {
            "unknown".to_string()
        } else {
            config.join("; ")
        }
    );
    for m in measured {
        out.push_str(&example_section(root, m));
        if m.subject.next_to_the_article {
            out.push('\n');
            out.push_str(&article_section(m, version));
        }
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// Per frame per cube.
fn per_cube(count: u64, frames: u32) -> f64 {
    count as f64 / (f64::from(frames) * ENTITIES as f64)
}

fn example_section(root: &Path, m: &Measured) -> String {
    let n = m.frames.frames;
    let d = m.difference();
    let mut out = format!("### `{}`\n\n", m.subject.example);
    let _ = writeln!(
        out,
        "`examples/{}.rs`; the difference holds {}.\n",
        m.subject.example, m.subject.frame_work
    );
    out.push_str(
        "| Run | I refs | D refs | D1 misses | D1 miss rate | LLd misses | LLd miss rate | LL misses |\n",
    );
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for run in [&m.setup, &m.frames] {
        let s = &run.summary;
        let c = &s.counts;
        let _ = writeln!(
            out,
            "| `--frames {}` | {} | {} | {} | {} | {} | {} | {} |",
            run.frames,
            thousands(c.i_refs),
            thousands(c.d_refs),
            thousands(c.d1_misses),
            s.d1_miss_rate,
            thousands(c.lld_misses),
            s.lld_miss_rate,
            thousands(c.ll_misses),
        );
    }
    let _ = writeln!(
        out,
        "| {n} frames (difference) | {} | {} | {} | {} | {} | {} | {} |\n",
        thousands(d.i_refs),
        thousands(d.d_refs),
        thousands(d.d1_misses),
        percent(d.d1_misses, d.d_refs),
        thousands(d.lld_misses),
        percent(d.lld_misses, d.d_refs),
        thousands(d.ll_misses),
    );
    let _ = writeln!(
        out,
        "Per frame per cube: **{:.1} instructions**, {:.1} data refs, {:.3} D1 misses, \
         {} LLd misses.\n",
        per_cube(d.i_refs, n),
        per_cube(d.d_refs, n),
        per_cube(d.d1_misses, n),
        short(per_cube(d.lld_misses, n), 5),
    );
    let _ = writeln!(
        out,
        "The example said: \"{}\". Line-by-line counts: `cg_annotate {}`.",
        m.frames.story,
        relative(&m.frames.out_file, root)
    );
    out
}

/// `seed_cubes` next to the figures the article published for its demo.
fn article_section(m: &Measured, valgrind: &str) -> String {
    let article = parse_summary(ARTICLE_OUTPUT).expect("the article's summary parses");
    let n = m.frames.frames;
    let d = m.difference();
    let example = m.subject.example;
    let mut out = String::from("#### Next to the article's figures\n\n");
    out.push_str(
        "The article's demo printed the cachegrind summary below (its last listing); the rows \
         under it are this example's. A whole run is the only kind of figure the article gives; \
         the frames alone, per frame and per cube are what can be compared across programs.\n\n",
    );
    out.push_str(
        "| | I refs | I1 miss rate | D refs | D1 misses | D1 miss rate | LLd misses | LL miss rate |\n",
    );
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (label, s) in [
        (
            "the article's demo: one whole run, as published".to_string(),
            &article,
        ),
        (
            format!("`{example} --frames {n}`: one whole run"),
            &m.frames.summary,
        ),
    ] {
        let c = &s.counts;
        let _ = writeln!(
            out,
            "| {label} | {} | {} | {} | {} | {} | {} | {} |",
            thousands(c.i_refs),
            percent(c.i1_misses, c.i_refs),
            thousands(c.d_refs),
            thousands(c.d1_misses),
            s.d1_miss_rate,
            thousands(c.lld_misses),
            s.ll_miss_rate,
        );
    }
    let _ = writeln!(
        out,
        "| `{example}`: {n} frames, start-up and set-up subtracted | {} | {} | {} | {} | {} | {} | {} |",
        thousands(d.i_refs),
        percent(d.i1_misses, d.i_refs),
        thousands(d.d_refs),
        thousands(d.d1_misses),
        percent(d.d1_misses, d.d_refs),
        thousands(d.lld_misses),
        percent(d.ll_misses, d.i_refs + d.d_refs),
    );
    let per_frame = |count: u64| (count as f64 / f64::from(n)).round() as u64;
    let _ = writeln!(
        out,
        "| `{example}`: one frame of {} cubes | {} | | {} | {} | | {} | |",
        thousands(ENTITIES),
        thousands(per_frame(d.i_refs)),
        thousands(per_frame(d.d_refs)),
        thousands(per_frame(d.d1_misses)),
        thousands(per_frame(d.lld_misses)),
    );
    let _ = writeln!(
        out,
        "| `{example}`: one cube in one frame | {:.1} | | {:.1} | {:.3} | | {} | |\n",
        per_cube(d.i_refs, n),
        per_cube(d.d_refs, n),
        per_cube(d.d1_misses, n),
        short(per_cube(d.lld_misses, n), 5),
    );
    let frame_cost = d.i_refs as f64 / f64::from(n);
    let article_i = article.counts.i_refs;
    let _ = writeln!(
        out,
        "What differs in the work measured, and why the rows do not line up:\n\n\
         - **What ran.** The article's figures are one whole run of its demo program. That \
         program created the cubes (10,000 in the article's text; its listings size the arrays \
         by a `MAX_ENTITIES` of 5,000) and ran `PhysicsSystem::Update` every frame, but it also \
         had a rendering system, which the article leaves out of its listings (\"keep in mind \
         there is also a rendering system\") and whose output it shows: the cubes drawn on \
         screen, seen through a camera, every frame until the program was quit. Its count also \
         holds the start-up (loading libraries, opening the window and the graphics context), \
         the drawing and the graphics driver's work, and the exit. Its I1 miss rate, {} ({} \
         misses), is that of a large body of code such as a driver; this update fits in the \
         instruction cache ({} here). `{example}` is the simulation alone, with nothing drawn.\n\
         - **How much of it.** The article does not say how long its run was, so its counts \
         cannot be divided per frame or per cube. Ours are {n} frames of the same update \
         (position before velocity, `dt` from a clock read around it), with start-up, set-up and \
         exit subtracted, so they can.\n\
         - **The miss rates** are ratios over different mixes of work. Ours are those of the \
         update streaming its three storages: the components alone are 72 bytes a cube, 720 KB \
         for 10,000 cubes, more than the simulated D1, so every frame reads them again from LL. \
         The article's 0.8% spreads its update's misses over the set-up, drawing and driver \
         accesses of the same run; a lower rate there does not mean fewer misses per cube.\n\
         - **The programs and tools.** The article's ECS finds each component through a \
         `typeid`-keyed `std::unordered_map` of `shared_ptr`s, then an entity-keyed \
         `std::unordered_map`, for every entity of a `std::set`; ours is a query over three \
         sparse sets. Its C++ compiler and flags are not given; ours is rustc's release profile. \
         Its valgrind is one of 2019, ours {valgrind}. Cachegrind simulates the caches of the \
         machine it runs on: ours are listed above, the article's are not given.\n\
         - **A scale, not a frame count.** At {} instructions a frame, the article's {} would \
         pay for about {} frames of this update alone; its frames also drew every cube.",
        percent(article.counts.i1_misses, article_i),
        thousands(article.counts.i1_misses),
        percent(d.i1_misses, d.i_refs),
        thousands(frame_cost.round() as u64),
        thousands(article_i),
        thousands((article_i as f64 / frame_cost).round() as u64),
    );
    out
}

fn command_line(program: &str, args: &[&str]) -> String {
    match Command::new(program).args(args).output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        _ => format!("unknown (`{program} {}` failed)", args.join(" ")),
    }
}

fn parse_frames() -> Result<u32, String> {
    let mut frames = 60;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--help" | "-h" => return Err(String::new()),
            "--frames" => {
                let value = args.next().ok_or("`--frames` needs a number")?;
                frames = value
                    .parse()
                    .ok()
                    .filter(|&frames: &u32| frames > 0)
                    .ok_or_else(|| {
                        format!("`--frames` needs a positive whole number, not `{value}`")
                    })?;
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(frames)
}

/// Measures, and returns the report (also written to `report_dir`).
fn run(frames: u32) -> Result<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("the bench crate has no parent directory")?
        .to_path_buf();
    let report_dir = root.join("target/bench-report");
    std::fs::create_dir_all(&report_dir).map_err(|e| format!("{}: {e}", report_dir.display()))?;
    let text = measure(&root, &report_dir, frames)?;
    let path = report_dir.join("cachegrind.md");
    std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text)
}

fn measure(root: &Path, report_dir: &Path, frames: u32) -> Result<String, String> {
    let version = match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        result => {
            let why = match result {
                Ok(out) => format!("`valgrind --version` exited with {}", out.status),
                Err(e) => format!("`valgrind --version` could not start: {e}"),
            };
            eprintln!("valgrind is missing: {why}");
            return Ok(format!(
                "{HEADING}Not measured: valgrind is not installed on this machine ({why}). \
                 Install it (for example `apt-get install valgrind`) and regenerate with \
                 `cargo run --release -p typed_ecs_benches --bin cachegrind -- --frames {frames}`.\n"
            ));
        }
    };

    // The default target dir, whatever ours is, so the binaries are where we look.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = vec!["build", "--release"];
    for subject in SUBJECTS {
        build.extend(["--example", subject.example]);
    }
    let status = Command::new(&cargo)
        .args(&build)
        .current_dir(root)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .status()
        .map_err(|e| format!("could not run `{cargo} build`: {e}"))?;
    if !status.success() {
        return Err(format!("`cargo {}` failed ({status})", build.join(" ")));
    }

    let mut measured = Vec::new();
    for subject in SUBJECTS {
        let binary = root.join("target/release/examples").join(format!(
            "{}{}",
            subject.example,
            std::env::consts::EXE_SUFFIX
        ));
        eprintln!("cachegrind: {} --frames 0", subject.example);
        let setup = cachegrind(&binary, report_dir, 0)?;
        eprintln!("cachegrind: {} --frames {frames}", subject.example);
        let frames = cachegrind(&binary, report_dir, frames)?;
        measured.push(Measured {
            subject,
            setup,
            frames,
        });
    }
    Ok(report(root, &version, &measured))
}

fn main() -> ExitCode {
    let frames = match parse_frames() {
        Ok(frames) => frames,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("error: {message}");
            }
            eprintln!("usage: cachegrind [--frames N]   (default: 60 frames)");
            return if message.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
    };
    match run(frames) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What valgrind 3.19 printed for `falling_cubes --frames 60 --entities 10000`,
    /// with the program's own output mixed in as it was.
    const SAMPLE: &str = "\
60 frames of 10000 cubes: 10000 alive at the end, 0 fell through the floor and 0 were respawned
==23569== Cachegrind, a cache and branch-prediction profiler
==23569== Copyright (C) 2002-2017, and GNU GPL'd, by Nicholas Nethercote et al.
==23569== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info
==23569== Command: /tmp/target-tools/release/examples/falling_cubes --frames 60 --entities 10000
==23569== 
--23569-- warning: L3 cache found, using its data for the LL simulation.
==23569== 
==23569== I   refs:      56,975,606
==23569== I1  misses:         2,199
==23569== LLi misses:         2,162
==23569== I1  miss rate:       0.00%
==23569== LLi miss rate:       0.00%
==23569== 
==23569== D   refs:      21,743,885  (18,472,305 rd   + 3,271,580 wr)
==23569== D1  misses:     1,343,525  ( 1,325,934 rd   +    17,591 wr)
==23569== LLd misses:        17,948  (     1,706 rd   +    16,242 wr)
==23569== D1  miss rate:        6.2% (       7.2%     +       0.5%  )
==23569== LLd miss rate:        0.1% (       0.0%     +       0.5%  )
==23569== 
==23569== LL refs:        1,345,724  ( 1,328,133 rd   +    17,591 wr)
==23569== LL misses:         20,110  (     3,868 rd   +    16,242 wr)
==23569== LL miss rate:         0.0% (       0.0%     +       0.5%  )
";

    #[test]
    fn parses_a_real_summary() {
        assert_eq!(
            parse_summary(SAMPLE),
            Ok(Summary {
                counts: Counts {
                    i_refs: 56_975_606,
                    i1_misses: 2_199,
                    d_refs: 21_743_885,
                    d1_misses: 1_343_525,
                    lld_misses: 17_948,
                    ll_misses: 20_110,
                },
                d1_miss_rate: "6.2%".to_string(),
                lld_miss_rate: "0.1%".to_string(),
                ll_miss_rate: "0.0%".to_string(),
            })
        );
    }

    /// The article's figures, read the same way as ours.
    #[test]
    fn parses_the_articles_summary() {
        let article = parse_summary(ARTICLE_OUTPUT).unwrap();
        assert_eq!(
            article.counts,
            Counts {
                i_refs: 3_632_270_619,
                i1_misses: 87_147_982,
                d_refs: 1_583_125_924,
                d1_misses: 11_968_989,
                lld_misses: 505_598,
                ll_misses: 532_197,
            }
        );
        assert_eq!(article.d1_miss_rate, "0.8%");
        assert_eq!(article.ll_miss_rate, "0.0%");
        assert_eq!(
            percent(article.counts.i1_misses, article.counts.i_refs),
            "2.40%"
        );
    }

    #[test]
    fn a_summary_without_the_cache_simulation_is_an_error() {
        let without: String = SAMPLE
            .lines()
            .filter(|line| !["I1", "D1", "LL"].iter().any(|cache| line.contains(cache)))
            .map(|line| format!("{line}\n"))
            .collect();
        let error = parse_summary(&without).unwrap_err();
        assert!(error.contains("I1 misses"), "{error}");
    }

    #[test]
    fn percentages() {
        assert_eq!(percent(1_319_141, 19_897_723), "6.63%");
        assert_eq!(percent(193, 19_897_723), "0.00097%");
        assert_eq!(percent(0, 5), "0.00%");
        assert_eq!(percent(1, 0), "n/a");
    }

    #[test]
    fn small_values_keep_two_significant_digits() {
        assert_eq!(short(0.003_56, 5), "0.00356");
        assert_eq!(short(1.0 / 3_000_000.0, 5), "0.00000033");
        assert_eq!(short(0.0, 5), "0.00000");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(56_975_606), "56,975,606");
    }
}
