//! The "Game frame" section of `BENCHMARKS.md`: the scenarios of
//! [`GAME_SCENARIOS`](crate::GAME_SCENARIOS) (`game_frame`), the whole
//! frame of each implementation and each of its systems, and the issue's
//! target. Written by the `game_frame` binary, which the report runs in a
//! process of its own.
//!
//! The frame is timed without stamps (a batch of frames timed as a whole);
//! each system is timed on a second instance of the same implementation
//! whose frame has a time stamp before the first system and after every
//! step ([`game_frame::TIMED`](crate::scenarios::game_frame::TIMED)). Both
//! instances of every implementation run the same frames in lockstep, so
//! every row is measured on the same states.

use crate::harness::{format_ns, format_ratio};
use crate::scenarios::game_frame::SYSTEMS;
use std::fmt::Write as _;

/// The target: typed_ecs's frame takes at most this fraction of
/// bevy_ecs's (single-threaded executor).
pub const FRAME_VS_BEVY_AT_MOST: f64 = 0.8;

/// The target 3: typed_ecs's conditional-write loop (the `hunger`
/// row: a tracked energy written in one animal of four) takes at most this
/// multiple of bevy_ecs's time.
pub const HUNGER_VS_BEVY_AT_MOST: f64 = 1.5;

/// One implementation's medians.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemMedians {
    /// The implementation (`typed_ecs`, `bevy`, `hecs`, `raw`).
    pub name: &'static str,
    /// The median frame without stamps, ns.
    pub frame_ns: f64,
    /// The median of each row of [`SYSTEMS`], ns, from the stamped frames.
    pub rows_ns: Vec<f64>,
    /// The median stamped frame (first stamp to last), ns.
    pub stamped_frame_ns: f64,
}

impl SystemMedians {
    /// The sum of the rows' medians but the first (the stamps alone).
    pub fn systems_ns(&self) -> f64 {
        self.rows_ns.iter().skip(1).sum()
    }
}

/// What one run of the `game_frame` binary measured.
#[derive(Debug, Clone, PartialEq)]
pub struct GameTimes {
    /// The scenario's size (entities at the start).
    pub size: usize,
    /// Untimed frames before the timed ones.
    pub warmup: usize,
    /// Frames timed, per implementation and instance.
    pub frames: usize,
    /// Frames per sample of the unstamped frame.
    pub chunk: usize,
    /// Each implementation's medians, typed_ecs first.
    pub medians: Vec<SystemMedians>,
    /// Prey and predators alive at the end, and births and deaths per
    /// timed frame.
    pub state: StateSummary,
}

/// The simulation's state at the end of the timed frames.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StateSummary {
    /// Entities alive (tiles, prey and predators).
    pub entities: usize,
    /// Prey alive.
    pub prey: usize,
    /// Predators alive.
    pub predators: usize,
    /// Births per timed frame.
    pub births_per_frame: f64,
    /// Deaths per timed frame.
    pub deaths_per_frame: f64,
}

impl GameTimes {
    /// The medians of `name`.
    pub fn get(&self, name: &str) -> Option<&SystemMedians> {
        self.medians.iter().find(|m| m.name == name)
    }

    /// typed_ecs's frame over `name`'s.
    pub fn frame_ratio(&self, name: &str) -> Option<f64> {
        self.frame_ratio_of("typed_ecs", name)
    }

    /// `ours`'s frame over `theirs`'s.
    pub fn frame_ratio_of(&self, ours: &str, theirs: &str) -> Option<f64> {
        Some(self.get(ours)?.frame_ns / self.get(theirs)?.frame_ns)
    }

    /// typed_ecs's row `row` over `name`'s.
    pub fn row_ratio(&self, row: usize, name: &str) -> Option<f64> {
        let ours = self.get("typed_ecs")?.rows_ns.get(row)?;
        let theirs = self.get(name)?.rows_ns.get(row)?;
        Some(ours / theirs)
    }
}

/// The section: `header` (how and where it was measured), the target,
/// the frames, each system, and `why` (what limits typed_ecs, said only
/// when the target is missed).
pub fn section(header: &str, times: &GameTimes, why: &str) -> String {
    let mut out = String::from("## Game frame\n\n");
    out.push_str(header);
    if !header.ends_with('\n') {
        out.push('\n');
    }
    out.push('\n');

    let ratio = times.frame_ratio("bevy");
    out.push_str("### Target\n\n| scenario | target | measured | |\n|---|---|---:|---|\n");
    let met = ratio.is_some_and(|r| r <= FRAME_VS_BEVY_AT_MOST);
    let _ = writeln!(
        out,
        "| `game_frame` | typed_ecs frame ≤ {FRAME_VS_BEVY_AT_MOST:.2}× bevy_ecs's \
         (single-threaded) | {} | {} |",
        format_ratio(ratio),
        if met { "met" } else { "**missed**" }
    );
    let hunger = SYSTEMS
        .iter()
        .position(|&step| step == "hunger")
        .and_then(|row| times.row_ratio(row, "bevy"));
    let _ = writeln!(
        out,
        "| `game_frame`, hunger | the conditional-write loop (`hunger`: a tracked energy \
         written in one animal of four) ≤ {HUNGER_VS_BEVY_AT_MOST:.2}× bevy_ecs's | {} | {} |",
        format_ratio(hunger),
        if hunger.is_some_and(|r| r <= HUNGER_VS_BEVY_AT_MOST) {
            "met"
        } else {
            "**missed**"
        }
    );
    if !met && !why.is_empty() {
        let _ = writeln!(out, "\nWhat limits it: {why}");
        if let Some(raw) = times.frame_ratio_of("raw", "bevy") {
            let _ = writeln!(
                out,
                "\nThe baseline written by hand with no ECS (`raw`: a `Vec` of structs, an \
                 animal's handle its index, a flag beside each energy) runs the frame in {} \
                 bevy's time, and typed_ecs's frame takes {} the hand-written one's: the \
                 target asks it to take at most {}.",
                format_ratio(Some(raw)),
                format_ratio(times.frame_ratio("raw")),
                format_ratio(Some(FRAME_VS_BEVY_AT_MOST / raw)),
            );
        }
    }

    let s = times.state;
    let _ = writeln!(
        out,
        "\n### The frame\n\n{} entities at the start; after {} untimed and {} timed frames, {} \
         alive ({} prey, {} predators), with {:.1} births and {:.1} deaths a frame over the \
         timed ones. Median frame, without stamps:\n",
        times.size,
        times.warmup,
        times.frames,
        s.entities,
        s.prey,
        s.predators,
        s.births_per_frame,
        s.deaths_per_frame,
    );
    out.push_str("| implementation | **typed_ecs / it** | median frame |\n|---|---:|---:|\n");
    for m in &times.medians {
        let _ = writeln!(
            out,
            "| {} | **{}** | {} |",
            m.name,
            format_ratio(times.frame_ratio(m.name)),
            format_ns(m.frame_ns)
        );
    }

    out.push_str(
        "\n### Each system\n\nThe median time between two stamps, over the timed frames of \
         the stamped instances: a system and what its schedule pays to reach it and the next \
         stamp. The first row is two stamps with nothing between.\n\n\
         | step | **typed_ecs / bevy** | **typed_ecs / hecs** | **typed_ecs / raw** | typed_ecs | \
         bevy | hecs | raw |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let cell = |name: &str, f: &dyn Fn(&SystemMedians) -> f64| {
        times
            .get(name)
            .map_or_else(|| "n/a".to_string(), |m| format_ns(f(m)))
    };
    for (row, step) in SYSTEMS.iter().enumerate() {
        let ns = |m: &SystemMedians| m.rows_ns.get(row).copied().unwrap_or(f64::NAN);
        let _ = writeln!(
            out,
            "| {step} | **{}** | **{}** | **{}** | {} | {} | {} | {} |",
            format_ratio(times.row_ratio(row, "bevy")),
            format_ratio(times.row_ratio(row, "hecs")),
            format_ratio(times.row_ratio(row, "raw")),
            cell("typed_ecs", &ns),
            cell("bevy", &ns),
            cell("hecs", &ns),
            cell("raw", &ns),
        );
    }
    let sum_ratio =
        |name: &str| Some(times.get("typed_ecs")?.systems_ns() / times.get(name)?.systems_ns());
    let _ = writeln!(
        out,
        "| the steps' medians, summed | **{}** | **{}** | **{}** | {} | {} | {} | {} |",
        format_ratio(sum_ratio("bevy")),
        format_ratio(sum_ratio("hecs")),
        format_ratio(sum_ratio("raw")),
        cell("typed_ecs", &SystemMedians::systems_ns),
        cell("bevy", &SystemMedians::systems_ns),
        cell("hecs", &SystemMedians::systems_ns),
        cell("raw", &SystemMedians::systems_ns),
    );
    let stamped = |name: &str| {
        Some(times.get("typed_ecs")?.stamped_frame_ns / times.get(name)?.stamped_frame_ns)
    };
    let _ = writeln!(
        out,
        "| the stamped frame | **{}** | **{}** | **{}** | {} | {} | {} | {} |",
        format_ratio(stamped("bevy")),
        format_ratio(stamped("hecs")),
        format_ratio(stamped("raw")),
        cell("typed_ecs", &|m| m.stamped_frame_ns),
        cell("bevy", &|m| m.stamped_frame_ns),
        cell("hecs", &|m| m.stamped_frame_ns),
        cell("raw", &|m| m.stamped_frame_ns),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(typed_ecs_frame: f64) -> GameTimes {
        let rows = |k: f64| (0..SYSTEMS.len()).map(|i| k * (i + 1) as f64).collect();
        GameTimes {
            size: 20_000,
            warmup: 200,
            frames: 1_000,
            chunk: 10,
            medians: vec![
                SystemMedians {
                    name: "typed_ecs",
                    frame_ns: typed_ecs_frame,
                    rows_ns: rows(2_000.0),
                    stamped_frame_ns: 160_000.0,
                },
                SystemMedians {
                    name: "hecs",
                    frame_ns: 400_000.0,
                    rows_ns: rows(4_000.0),
                    stamped_frame_ns: 320_000.0,
                },
                SystemMedians {
                    name: "bevy",
                    frame_ns: 200_000.0,
                    rows_ns: rows(1_000.0),
                    stamped_frame_ns: 80_000.0,
                },
                SystemMedians {
                    name: "raw",
                    frame_ns: 100_000.0,
                    rows_ns: rows(500.0),
                    stamped_frame_ns: 40_000.0,
                },
            ],
            state: StateSummary {
                entities: 15_800,
                prey: 3_400,
                predators: 2_400,
                births_per_frame: 71.5,
                deaths_per_frame: 71.0,
            },
        }
    }

    #[test]
    fn the_target_is_judged_and_every_row_shown() {
        let text = section("header", &times(150_000.0), "why");
        assert!(
            text.contains("| `game_frame` | typed_ecs frame ≤ 0.80× bevy_ecs's (single-threaded) | 0.75× | met |"),
            "{text}"
        );
        assert!(!text.contains("What limits"), "{text}");
        // Every row of typed_ecs takes twice bevy's time here.
        assert!(
            text.contains("≤ 1.50× bevy_ecs's | 2.00× | **missed** |"),
            "{text}"
        );
        assert!(
            text.contains("| typed_ecs | **1.00×** | 150 µs |"),
            "{text}"
        );
        assert!(text.contains("| hecs | **0.38×** | 400 µs |"), "{text}");
        assert!(text.contains("| raw | **1.50×** | 100 µs |"), "{text}");
        assert!(
            text.contains(
                "| movement | **2.00×** | **0.50×** | **4.00×** | 4.00 µs | 2.00 µs | 8.00 µs | \
                 1.00 µs |"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "| the stamped frame | **2.00×** | **0.50×** | **4.00×** | 160 µs | 80.0 µs | 320 µs | \
                 40.0 µs |"
            ),
            "{text}"
        );
        assert!(
            text.contains("| the steps' medians, summed | **2.00×** | **0.50×** | **4.00×** |"),
            "{text}"
        );
        assert!(
            text.contains("15800 alive (3400 prey, 2400 predators), with 71.5 births"),
            "{text}"
        );
        for step in SYSTEMS {
            assert!(text.contains(&format!("| {step} |")), "{step}");
        }
    }

    #[test]
    fn the_hunger_row_meets_its_target_at_one_and_a_half_times_bevy_s() {
        let mut times = times(150_000.0);
        let hunger = SYSTEMS.iter().position(|&s| s == "hunger").unwrap();
        let bevy = times.get("bevy").unwrap().rows_ns[hunger];
        times.medians[0].rows_ns[hunger] = 1.5 * bevy;
        let text = section("header", &times, "why");
        assert!(
            text.contains("≤ 1.50× bevy_ecs's | 1.50× | met |"),
            "{text}"
        );
        times.medians[0].rows_ns[hunger] = 1.51 * bevy;
        let text = section("header", &times, "why");
        assert!(text.contains("| 1.51× | **missed** |"), "{text}");
    }

    #[test]
    fn a_missed_target_says_why() {
        let text = section("header", &times(300_000.0), "the lookups");
        assert!(text.contains("| 1.50× | **missed** |"), "{text}");
        assert!(text.contains("What limits it: the lookups"), "{text}");
        // raw 100 µs, bevy 200 µs, typed_ecs 300 µs: 0.50×, 3.00×, and
        // 0.80 / 0.50.
        assert!(
            text.contains("runs the frame in 0.50× bevy's time, and typed_ecs's frame takes 3.00× the hand-written one's"),
            "{text}"
        );
        assert!(
            text.contains("the target asks it to take at most 1.60×."),
            "{text}"
        );
        // Met: nothing to say.
        let text = section("header", &times(150_000.0), "the lookups");
        assert!(!text.contains("hand-written"), "{text}");
    }
}
