//! The guide's "Coming from bevy" table stays true: every typed_ecs name a
//! row gives exists in the crate, and no row says typed_ecs lacks something
//! (a cell starting "not yet" or "no") whose bevy name the crate now has.
//! A renamed method, or a feature that lands while its row still says "not
//! yet", fails here.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

fn read(path: &str) -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("readable")
}

/// Every name the crate defines: items, methods, macros.
fn defined_names() -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut BTreeSet<String>) {
        for entry in fs::read_dir(dir).expect("src/ is readable") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, out);
                continue;
            }
            let text = fs::read_to_string(&path).expect("a source file");
            for keyword in [
                "fn ",
                "struct ",
                "trait ",
                "type ",
                "enum ",
                "macro_rules! ",
            ] {
                for (at, _) in text.match_indices(keyword) {
                    let name: String = text[at + keyword.len()..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.insert(name);
                    }
                }
            }
        }
    }
    let mut names = BTreeSet::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut names,
    );
    names
}

/// The identifiers in the code spans of `cell` that name an API item: a
/// capitalised name (a type or trait) or a name called as a method, a
/// function or a macro (`name(`, `name!`, `name::<`).
fn api_names(cell: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (i, span) in cell.split('`').enumerate() {
        if i % 2 == 0 {
            continue; // outside a code span
        }
        let chars: Vec<char> = span.chars().collect();
        let mut at = 0;
        while at < chars.len() {
            if chars[at].is_ascii_alphabetic() || chars[at] == '_' {
                let start = at;
                while at < chars.len() && (chars[at].is_ascii_alphanumeric() || chars[at] == '_') {
                    at += 1;
                }
                let name: String = chars[start..at].iter().collect();
                let rest: String = chars[at..].iter().take(3).collect();
                let called =
                    rest.starts_with('(') || rest.starts_with('!') || rest.starts_with("::<");
                let capital = name.starts_with(|c: char| c.is_ascii_uppercase());
                let keyword = ["fn", "mut", "move", "impl", "dyn", "for"].contains(&name.as_str());
                if (capital || called) && !keyword {
                    names.push(name);
                }
            } else {
                at += 1;
            }
        }
    }
    names
}

/// The rows of the table under `heading`: (left cell, right cell).
fn table_rows(guide: &str, heading: &str) -> Vec<(String, String)> {
    let start = guide.find(heading).expect("the heading is in the guide");
    let section = &guide[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    section
        .lines()
        .filter(|line| line.starts_with('|') && !line.starts_with("|---"))
        .skip(1) // the header row
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').splitn(2, " | ").collect();
            (
                cells[0].trim().to_string(),
                cells.get(1).unwrap_or(&"").trim().to_string(),
            )
        })
        .collect()
}

// Names that stand for the reader's own types and values in the examples.
const PLACEHOLDERS: &[&str] = &[
    "A", "B", "C", "E", "R", "T", "W", "Time", "Parent", "Children", "Entity", "Vec", "Option",
    "Default", "Some", "None", "Ok", "Err", "MyPlugin",
];

#[test]
fn the_coming_from_bevy_table_names_what_exists() {
    let guide = read("docs/guide.md");
    let defined = defined_names();
    let rows = table_rows(&guide, "## Coming from bevy");
    assert!(rows.len() > 15, "the table was found: {rows:?}");
    let mut missing = Vec::new();
    for (bevy, ours) in &rows {
        for name in api_names(ours) {
            if !defined.contains(&name) && !PLACEHOLDERS.contains(&name.as_str()) {
                missing.push(format!("`{name}` in the row for {bevy}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the guide names what the crate does not have: {missing:#?}"
    );
}

#[test]
fn no_row_says_not_yet_for_what_the_crate_has() {
    let guide = read("docs/guide.md");
    let defined = defined_names();
    let mut stale = Vec::new();
    for (bevy, ours) in table_rows(&guide, "## Coming from bevy") {
        let lacking = ours.starts_with("not yet") || ours.starts_with("no ");
        if !lacking {
            continue;
        }
        for name in api_names(&bevy) {
            if defined.contains(&name) && !PLACEHOLDERS.contains(&name.as_str()) {
                stale.push(format!("`{name}`: the row says \"{ours}\""));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "rows that say typed_ecs lacks what it has: {stale:#?}"
    );
}

#[test]
fn the_checks_see_a_stale_row() {
    // A row like the one this test was written after: it must be caught.
    let guide = "## Coming from bevy\n\n| bevy_ecs | typed_ecs |\n|---|---|\n\
                 | `Changed<T>`, `Added<T>` | not yet: change detection is planned |\n\
                 | `Query` | `world.quarry_mut::<Q>()` |\n";
    let defined = defined_names();
    let rows = table_rows(guide, "## Coming from bevy");
    assert_eq!(rows.len(), 2);
    assert!(api_names(&rows[0].0).iter().any(|n| defined.contains(n)));
    assert!(
        api_names(&rows[1].1).iter().any(|n| !defined.contains(n)),
        "{:?}",
        api_names(&rows[1].1)
    );
}
