//! Instruction counts and simulated cache misses of the `falling_cubes`
//! example, from valgrind's cachegrind.
//!
//! It builds the example in release mode, then runs it under
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
const HEADING: &str = "## Cachegrind: the `falling_cubes` example, 10,000 cubes\n\n";

/// The totals of cachegrind's summary (what it prints to stderr at exit).
#[derive(Debug, Clone, PartialEq)]
struct Summary {
    i_refs: u64,
    d_refs: u64,
    d1_misses: u64,
    lld_misses: u64,
    ll_misses: u64,
    /// As valgrind printed them, like `1.3%`.
    d1_miss_rate: String,
    lld_miss_rate: String,
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
        i_refs: count("I refs")?,
        d_refs: count("D refs")?,
        d1_misses: count("D1 misses")?,
        lld_misses: count("LLd misses")?,
        ll_misses: count("LL misses")?,
        d1_miss_rate: rate("D1 miss rate")?,
        lld_miss_rate: rate("LLd miss rate")?,
    })
}

/// One run of the example under cachegrind.
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
            "`valgrind … falling_cubes --frames {frames}` failed ({}):\n{stderr}",
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

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        "n/a".to_string()
    } else {
        let rate = 100.0 * part as f64 / whole as f64;
        // Small rates keep two significant digits instead of rounding to 0.
        if rate == 0.0 || rate >= 0.01 {
            format!("{rate:.2}%")
        } else {
            let decimals = (1.0 - rate.log10().floor()) as usize;
            format!("{rate:.decimals$}%")
        }
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

fn report(root: &Path, version: &str, setup: &Run, frames: &Run) -> String {
    let n = frames.frames;
    let (a, b) = (&setup.summary, &frames.summary);
    let diff = |f: fn(&Summary) -> u64| f(b).saturating_sub(f(a));
    let i_refs = diff(|s| s.i_refs);
    let d_refs = diff(|s| s.d_refs);
    let d1_misses = diff(|s| s.d1_misses);
    let lld_misses = diff(|s| s.lld_misses);
    let ll_misses = diff(|s| s.ll_misses);
    let per = |count: u64| count as f64 / (f64::from(n) * ENTITIES as f64);

    let mut out = String::from(HEADING);
    let _ = writeln!(
        out,
        "The release build of `examples/falling_cubes.rs` runs under \
         `valgrind --tool=cachegrind --cache-sim=yes` twice with `--entities {ENTITIES}`: once \
         with `--frames 0` (spawning the cubes, then teardown) and once with `--frames {n}`. \
         The difference of the two runs is the cost of {n} frames alone (gravity, integrate, \
         recycle and the sync point, plus printing the timing table). Counts are cachegrind's \
         totals; the first two rows' miss rates are valgrind's own (misses / data refs), the \
         difference row's are computed from its counts. LL is the simulated last-level cache.\n"
    );
    let _ = writeln!(
        out,
        "Regenerate: `cargo run --release -p typed_ecs_benches --bin cachegrind -- --frames {n}`\n"
    );
    let _ = writeln!(
        out,
        "{version}, {}; simulated caches: {}.\n",
        command_line("rustc", &["--version"]),
        {
            let config = cache_config(&frames.out_file);
            if config.is_empty() {
                "unknown".to_string()
            } else {
                config.join("; ")
            }
        }
    );
    out.push_str(
        "| Run | I refs | D refs | D1 misses | D1 miss rate | LLd misses | LLd miss rate | LL misses |\n",
    );
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for run in [setup, frames] {
        let s = &run.summary;
        let _ = writeln!(
            out,
            "| `--frames {}` | {} | {} | {} | {} | {} | {} | {} |",
            run.frames,
            thousands(s.i_refs),
            thousands(s.d_refs),
            thousands(s.d1_misses),
            s.d1_miss_rate,
            thousands(s.lld_misses),
            s.lld_miss_rate,
            thousands(s.ll_misses),
        );
    }
    let _ = writeln!(
        out,
        "| {n} frames (difference) | {} | {} | {} | {} | {} | {} | {} |\n",
        thousands(i_refs),
        thousands(d_refs),
        thousands(d1_misses),
        percent(d1_misses, d_refs),
        thousands(lld_misses),
        percent(lld_misses, d_refs),
        thousands(ll_misses),
    );
    let _ = writeln!(
        out,
        "Per frame per cube: **{:.1} instructions**, {:.1} data refs, {:.3} D1 misses, \
         {:.5} LLd misses.\n",
        per(i_refs),
        per(d_refs),
        per(d1_misses),
        per(lld_misses),
    );
    let _ = writeln!(
        out,
        "The example said: \"{}\". Line-by-line counts: `cg_annotate {}`.",
        frames.story,
        relative(&frames.out_file, root)
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

    // The default target dir, whatever ours is, so the binary is where we look.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(&cargo)
        .args(["build", "--release", "--example", "falling_cubes"])
        .current_dir(root)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .status()
        .map_err(|e| format!("could not run `{cargo} build`: {e}"))?;
    if !status.success() {
        return Err(format!(
            "`cargo build --release --example falling_cubes` failed ({status})"
        ));
    }
    let binary = root
        .join("target/release/examples")
        .join(format!("falling_cubes{}", std::env::consts::EXE_SUFFIX));

    eprintln!("cachegrind: falling_cubes --frames 0");
    let setup = cachegrind(&binary, report_dir, 0)?;
    eprintln!("cachegrind: falling_cubes --frames {frames}");
    let measured = cachegrind(&binary, report_dir, frames)?;
    Ok(report(root, &version, &setup, &measured))
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
                i_refs: 56_975_606,
                d_refs: 21_743_885,
                d1_misses: 1_343_525,
                lld_misses: 17_948,
                ll_misses: 20_110,
                d1_miss_rate: "6.2%".to_string(),
                lld_miss_rate: "0.1%".to_string(),
            })
        );
    }

    #[test]
    fn a_summary_without_the_cache_simulation_is_an_error() {
        let without: String = SAMPLE
            .lines()
            .filter(|line| !line.contains("D1") && !line.contains("LL"))
            .map(|line| format!("{line}\n"))
            .collect();
        let error = parse_summary(&without).unwrap_err();
        assert!(error.contains("D1 misses"), "{error}");
    }

    #[test]
    fn percentages() {
        assert_eq!(percent(1_319_141, 19_897_723), "6.63%");
        assert_eq!(percent(193, 19_897_723), "0.00097%");
        assert_eq!(percent(0, 5), "0.00%");
        assert_eq!(percent(1, 0), "n/a");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(56_975_606), "56,975,606");
    }
}
