//! The "Relations and hierarchy" section of the report: the scenarios of
//! [`RELATION_SCENARIOS`](crate::RELATION_SCENARIOS) (issue 29), each row's
//! median over bevy_ecs's and over raw's: `typed_ecs` (its relations),
//! `typed_ecs_by_hand` (parent and child-list components kept by hand),
//! bevy and raw `Vec`s.

use crate::harness::{format_ns, format_ratio, Medians};
use crate::Scenario;
use std::fmt::Write as _;

/// The row every other is divided by first.
pub const REFERENCE: &str = "bevy";

/// The row every other is divided by second: the practical ceiling.
pub const CEILING: &str = "raw";

/// The section: `header` (how and where it was measured), then one table
/// per scenario of `results`.
pub fn section(header: &str, results: &[(&Scenario, Vec<Medians>)]) -> String {
    let mut out = String::from("## Relations and hierarchy\n\n");
    out.push_str(header);
    if !header.ends_with('\n') {
        out.push('\n');
    }
    for (scenario, cases) in results {
        out.push('\n');
        out.push_str(&table(scenario, cases));
    }
    out
}

/// One scenario: a row per implementation, with its median over bevy's
/// and over raw's, and the median itself.
pub fn table(scenario: &Scenario, cases: &[Medians]) -> String {
    let mut out = String::new();
    for case in cases {
        crate::scenario_heading(&mut out, scenario, &crate::short_size(case.size));
        let _ = writeln!(
            out,
            "\n| implementation | **/ {REFERENCE}** | **/ {CEILING}** | median |\n|---|---:|---:|---:|"
        );
        let over = |name: &str, ns: f64| case.get(name).map(|r| ns / r);
        for &(name, ns) in &case.ns {
            let _ = writeln!(
                out,
                "| {name} | **{}** | **{}** | {} |",
                format_ratio(over(REFERENCE, ns)),
                format_ratio(over(CEILING, ns)),
                format_ns(ns)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_divided_by_bevy_and_raw() {
        let scenario = &crate::scenarios::hierarchy::unlink_one::SCENARIO;
        let medians = Medians {
            size: 1_000_000,
            ns: vec![
                ("bevy", 2_000_000.0),
                ("typed_ecs_by_hand", 1_000_000.0),
                ("raw", 100.0),
            ],
        };
        let text = section("header", &[(scenario, vec![medians])]);
        assert!(
            text.starts_with("## Relations and hierarchy\n\nheader\n"),
            "{text}"
        );
        assert!(
            text.contains("| typed_ecs_by_hand | **0.50×** | **10000.00×** | 1.00 ms |"),
            "{text}"
        );
        assert!(
            text.contains("| raw | **0.00×** | **1.00×** | 100 ns |"),
            "{text}"
        );
    }

    #[test]
    fn every_relation_scenario_has_the_reference_rows() {
        for scenario in crate::RELATION_SCENARIOS {
            let names: Vec<&str> = scenario.impls.iter().map(|i| i.name).collect();
            assert!(names.contains(&REFERENCE), "{}", scenario.name);
            assert!(names.contains(&CEILING), "{}", scenario.name);
            assert!(names.contains(&"typed_ecs_by_hand"), "{}", scenario.name);
        }
    }
}
