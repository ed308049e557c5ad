//! The report's measurement: every implementation of a case sampled in
//! interleaved rounds, and the markdown tables of the medians.
//!
//! A *sample* is a batch of runs sized to take about 2 ms (at least one
//! run), timed as a whole and divided by the batch size. An instance whose
//! runs need untimed work first ([`Instance::prepares`]) has each run timed
//! on its own, after its [`Instance::prepare`], and the times added up. In
//! each round every implementation takes one sample, in an order that
//! rotates from round to round, so slow drifts of a shared machine (other
//! jobs, frequency) fall on all of them alike. The result per implementation
//! is the median sample.

use crate::{short_size, Impl, Instance, Scenario, IMPLEMENTATIONS};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// How long one sample should take.
const SAMPLE_TARGET: Duration = Duration::from_millis(2);

/// The medians of one case (a scenario at one size), in ns per run, by
/// implementation name.
#[derive(Debug, Clone, PartialEq)]
pub struct Medians {
    /// The entity count (or the scenario's own size unit).
    pub size: usize,
    /// `(implementation, ns per run)`, in the scenario's order.
    pub ns: Vec<(&'static str, f64)>,
}

impl Medians {
    /// The median of `name`, if it ran.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.ns.iter().find(|(n, _)| *n == name).map(|&(_, ns)| ns)
    }

    /// The fastest peer (neither typed_ecs nor raw) and its time.
    pub fn best_peer(&self) -> Option<(&'static str, f64)> {
        self.ns
            .iter()
            .filter(|(n, _)| !n.starts_with("typed_ecs") && *n != "raw")
            .copied()
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// typed_ecs / best peer.
    pub fn vs_best_peer(&self) -> Option<f64> {
        Some(self.get("typed_ecs")? / self.best_peer()?.1)
    }

    /// typed_ecs / raw.
    pub fn vs_raw(&self) -> Option<f64> {
        Some(self.get("typed_ecs")? / self.get("raw")?)
    }

    /// typed_ecs with an owning group / typed_ecs without: what declaring
    /// the group costs (scenarios with a `typed_ecs_grouped` row).
    pub fn group_cost(&self) -> Option<f64> {
        Some(self.get("typed_ecs_grouped")? / self.get("typed_ecs")?)
    }
}

/// One implementation being sampled.
struct Contender {
    imp: Impl,
    /// The instance reused by every sample (`None` for fresh-state
    /// scenarios, which set up a new one per run).
    instance: Option<Box<dyn Instance>>,
    batch: usize,
    samples: Vec<f64>,
}

impl Contender {
    /// Times `batch` runs; returns ns per run. Setups of fresh-state
    /// scenarios happen before the clock starts, drops after it stops.
    fn sample(&mut self, size: usize) -> f64 {
        let ns = match &mut self.instance {
            // Runs that need untimed work first are timed one by one.
            Some(instance) if instance.prepares() => {
                instance.prepare();
                instance.run(); // warm-up, as below
                let mut elapsed = Duration::ZERO;
                for _ in 0..self.batch {
                    instance.prepare();
                    let start = Instant::now();
                    instance.run();
                    elapsed += start.elapsed();
                }
                elapsed
            }
            Some(instance) => {
                instance.run(); // warm-up: caches hold this instance again
                let start = Instant::now();
                for _ in 0..self.batch {
                    instance.run();
                }
                start.elapsed()
            }
            None => {
                let mut fresh: Vec<Box<dyn Instance>> = (0..self.batch)
                    .map(|_| {
                        let mut instance = (self.imp.setup)(size);
                        instance.prepare();
                        instance
                    })
                    .collect();
                let start = Instant::now();
                for instance in &mut fresh {
                    instance.run();
                }
                let elapsed = start.elapsed();
                drop(fresh);
                elapsed
            }
        };
        ns.as_nanos() as f64 / self.batch as f64
    }

    /// Sizes the batch so that a sample takes about [`SAMPLE_TARGET`].
    fn calibrate(&mut self, size: usize) {
        self.batch = 1;
        loop {
            let per_run = self.sample(size).max(1.0);
            let wanted = (SAMPLE_TARGET.as_nanos() as f64 / per_run).ceil() as usize;
            let wanted = wanted.clamp(1, 1_000_000);
            // Stop once a sample at this batch size took at least half the
            // target, or the batch is as small as it gets.
            if wanted <= self.batch * 2 {
                self.batch = wanted.max(1);
                return;
            }
            self.batch = wanted;
        }
    }
}

/// Samples every implementation of `scenario` at `size` for `rounds`
/// rounds, interleaved, and returns their medians. `progress` is told each
/// implementation's name as it is set up.
pub fn measure(
    scenario: &Scenario,
    size: usize,
    rounds: usize,
    mut progress: impl FnMut(&str),
) -> Medians {
    let mut contenders: Vec<Contender> = scenario
        .impls
        .iter()
        .map(|&imp| {
            progress(imp.name);
            let mut contender = Contender {
                imp,
                instance: (!scenario.fresh_state).then(|| (imp.setup)(size)),
                batch: 1,
                samples: Vec::with_capacity(rounds),
            };
            contender.calibrate(size);
            contender
        })
        .collect();

    let count = contenders.len();
    for round in 0..rounds {
        for k in 0..count {
            let contender = &mut contenders[(round + k) % count];
            let ns = contender.sample(size);
            contender.samples.push(ns);
        }
    }

    Medians {
        size,
        ns: contenders
            .iter_mut()
            .map(|c| (c.imp.name, median(&mut c.samples)))
            .collect(),
    }
}

/// The median of `values` (sorted in place); the mean of the middle two
/// for an even count.
pub fn median(values: &mut [f64]) -> f64 {
    assert!(!values.is_empty(), "no samples");
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// A duration in ns, for humans: `812 ns`, `12.3 µs`, `4.56 ms`.
pub fn format_ns(ns: f64) -> String {
    let (value, unit) = match ns {
        ns if ns < 1e3 => (ns, "ns"),
        ns if ns < 1e6 => (ns / 1e3, "µs"),
        ns if ns < 1e9 => (ns / 1e6, "ms"),
        ns => (ns / 1e9, "s"),
    };
    let digits = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.digits$} {unit}")
}

/// A ratio: `1.23×`.
pub fn format_ratio(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "n/a".to_string(), |r| format!("{r:.2}×"))
}

/// The markdown table of one scenario: a row per case (size), the two
/// ratios first, then each implementation's median ("n/a" for crates
/// without the facility).
pub fn scenario_table(scenario: &Scenario, cases: &[Medians]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### `{}`\n\nTimed: {}.", scenario.name, scenario.what);
    if !scenario.notes.is_empty() {
        let _ = writeln!(out, "\n{}", scenario.notes);
    }
    out.push('\n');

    let mut header = String::from("| entities | **typed_ecs / best peer** | **typed_ecs / raw** |");
    let mut rule = String::from("|---:|---:|---:|");
    // Rows beyond the standard ones (`typed_ecs_grouped`), after them.
    let extra: Vec<&str> = scenario
        .impls
        .iter()
        .map(|imp| imp.name)
        .filter(|name| !IMPLEMENTATIONS.contains(name))
        .collect();
    let columns: Vec<&str> = IMPLEMENTATIONS.iter().copied().chain(extra).collect();
    for name in &columns {
        let _ = write!(header, " {name} |");
        rule.push_str("---:|");
    }
    let _ = writeln!(out, "{header}\n{rule}");

    for case in cases {
        let best = case
            .best_peer()
            .map_or(String::new(), |(name, _)| format!(" ({name})"));
        let _ = write!(
            out,
            "| {}{} | **{}**{best} | **{}** |",
            short_size(case.size),
            scenario.size_note,
            format_ratio(case.vs_best_peer()),
            format_ratio(case.vs_raw()),
        );
        for name in &columns {
            let cell = case.get(name).map_or_else(|| "n/a".to_string(), format_ns);
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    out
}

/// The summary table: one row per case of every scenario, ratios only.
pub fn summary_table(results: &[(&Scenario, Vec<Medians>)]) -> String {
    let mut out = String::from(
        "| scenario | entities | **typed_ecs / best peer** | best peer | **typed_ecs / raw** |\n\
         |---|---:|---:|---|---:|\n",
    );
    for (scenario, cases) in results {
        for case in cases {
            let _ = writeln!(
                out,
                "| `{}` | {}{} | **{}** | {} | **{}** |",
                scenario.name,
                short_size(case.size),
                scenario.size_note,
                format_ratio(case.vs_best_peer()),
                case.best_peer().map_or("n/a", |(name, _)| name),
                format_ratio(case.vs_raw()),
            );
        }
    }
    out
}

/// CPU time so far (Linux's `/proc`, in clock ticks): the whole machine's,
/// busy and in all, and this process's. What the stage binaries report as
/// the load of other processes while they timed.
pub struct CpuTimes {
    total: u64,
    busy: u64,
    own: u64,
}

impl CpuTimes {
    /// Now (`None` where `/proc` cannot be read).
    pub fn now() -> Option<Self> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        // cpu user nice system idle iowait irq softirq steal …
        let ticks: Vec<u64> = stat
            .lines()
            .next()?
            .split_whitespace()
            .skip(1)
            .map(|t| t.parse().ok())
            .collect::<Option<_>>()?;
        let (idle, iowait) = (*ticks.get(3)?, *ticks.get(4)?);
        let total: u64 = ticks.iter().take(8).sum();
        let own = std::fs::read_to_string("/proc/self/stat").ok()?;
        // After the command name's closing parenthesis come fields 3 on;
        // utime and stime are fields 14 and 15.
        let fields: Vec<&str> = own.rsplit_once(')')?.1.split_whitespace().collect();
        let utime: u64 = fields.get(11)?.parse().ok()?;
        let stime: u64 = fields.get(12)?.parse().ok()?;
        Some(CpuTimes {
            total,
            busy: total - idle - iowait,
            own: utime + stime,
        })
    }

    /// The cores other processes kept busy on average since `earlier`.
    pub fn others_since(&self, earlier: &CpuTimes) -> f64 {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        let wall = (self.total - earlier.total) as f64 / cores;
        let others = (self.busy - earlier.busy).saturating_sub(self.own - earlier.own);
        if wall > 0.0 {
            others as f64 / wall
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn medians() -> Medians {
        Medians {
            size: 10_000,
            ns: vec![
                ("typed_ecs", 300.0),
                ("hecs", 200.0),
                ("bevy", 150.0),
                ("specs", 900.0),
                ("raw", 100.0),
            ],
        }
    }

    #[test]
    fn ratios_use_the_fastest_peer_and_raw() {
        let m = medians();
        assert_eq!(m.best_peer(), Some(("bevy", 150.0)));
        assert_eq!(m.vs_best_peer(), Some(2.0));
        assert_eq!(m.vs_raw(), Some(3.0));
    }

    #[test]
    fn table_marks_missing_crates() {
        let table = scenario_table(&crate::scenarios::simple_iter::SCENARIO, &[medians()]);
        assert!(table.contains("| 10k | **2.00×** (bevy) | **3.00×** | 300 ns | 200 ns | 150 ns | n/a | n/a | 900 ns | 100 ns |"), "{table}");
    }

    #[test]
    fn medians_and_formats() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(format_ns(812.0), "812 ns");
        assert_eq!(format_ns(12_345.0), "12.3 µs");
        assert_eq!(format_ns(4_560_000.0), "4.56 ms");
        assert_eq!(format_ratio(Some(2.704)), "2.70×");
        assert_eq!(format_ratio(None), "n/a");
    }

    #[test]
    fn measure_times_prepared_runs() {
        // changed_iter's writes happen off the clock, before each run.
        let scenario = &crate::scenarios::changed_iter::SCENARIO;
        let medians = measure(scenario, 1_000, 2, |_| {});
        assert_eq!(medians.ns.len(), scenario.impls.len());
        assert!(medians.ns.iter().all(|&(_, ns)| ns > 0.0));
    }

    #[test]
    fn measure_runs_every_implementation() {
        let scenario = &crate::scenarios::fragmented_iter::SCENARIO;
        let medians = measure(scenario, 2, 3, |_| {});
        assert_eq!(medians.ns.len(), scenario.impls.len());
        assert!(medians.ns.iter().all(|&(_, ns)| ns > 0.0));
    }
}
