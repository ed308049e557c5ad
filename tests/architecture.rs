//! The module graph of `src/` has no cycle, and the layers stay in order.
//!
//! Every file of `src/` is a module (`world/storages.rs` is
//! `world::storages`, `query/mod.rs` is `query`). A module depends on
//! another when its code names it: a `crate::…` or `super::…` path, a `use`
//! of a child module, or one of the names `lib.rs` re-exports at the root
//! (`crate::World` is `world`). Doc comments and test modules do not count.
//!
//! CONTRIBUTING.md ("Layout") explains the layers; this test keeps them: the
//! storage and the plumbing sit below every mechanism, and nothing imports
//! the `World` facade except what sits above it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `world/storages.rs` → `world::storages`; `query/mod.rs` → `query`.
fn module_name(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("under src/");
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file: no comment lines, no trailing `#[cfg(test)] mod tests`.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| match line.find(" // ") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths written after `at` (just past `crate::` or `super::`): one
/// path, or each path of a `{…}` group (one level deep).
fn paths_at(code: &str, at: usize) -> Vec<String> {
    let rest = &code[at..];
    let mut end = 0;
    loop {
        end += rest[end..].chars().take_while(|&c| is_ident(c)).count();
        let more =
            rest[end..].starts_with("::") && rest[end + 2..].starts_with(|c: char| is_ident(c));
        if !more {
            break;
        }
        end += 2;
    }
    let head = &rest[..end];
    let group = if rest[end..].starts_with("::{") {
        Some(end + 3)
    } else if end == 0 && rest.starts_with('{') {
        Some(1)
    } else {
        None
    };
    let Some(body_start) = group else {
        return vec![head.to_string()];
    };
    let body = &rest[body_start..];
    let body = &body[..body.find('}').unwrap_or(body.len())];
    body.split(',')
        .map(|item| item.split(" as ").next().unwrap_or("").trim())
        .map(|item| item.trim_start_matches('{').trim())
        .filter(|item| !item.is_empty() && *item != "self")
        .map(|item| match head {
            "" => item.to_string(),
            head => format!("{head}::{item}"),
        })
        .collect()
}

/// The module a path names: the longest prefix that is a module, or the
/// module a root re-export comes from.
fn resolve(
    path: &str,
    modules: &BTreeSet<String>,
    reexports: &BTreeMap<String, String>,
) -> Option<String> {
    let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
    for len in (1..=parts.len()).rev() {
        let candidate = parts[..len].join("::");
        if modules.contains(&candidate) {
            return Some(candidate);
        }
    }
    parts
        .first()
        .and_then(|first| reexports.get(*first).cloned())
}

/// Names `lib.rs` re-exports at the root, and the module of each.
fn root_reexports(lib: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let empty = BTreeMap::new();
    let mut map = BTreeMap::new();
    let code = code_of(lib);
    for (at, _) in code.match_indices("pub use crate::") {
        for path in paths_at(&code, at + "pub use crate::".len()) {
            if let (Some(module), Some(name)) =
                (resolve(&path, modules, &empty), path.rsplit("::").next())
            {
                map.insert(name.to_string(), module);
            }
        }
    }
    map
}

/// The module graph: each module and the modules it depends on.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|file| (module_name(&src, &file), file))
        .filter(|(name, _)| name != "lib" && !name.starts_with("macros"))
        .collect();
    let modules: BTreeSet<String> = named.iter().map(|(name, _)| name.clone()).collect();
    let lib = fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let reexports = root_reexports(&lib, &modules);
    let mut graph = BTreeMap::new();
    for (module, file) in &named {
        let code = code_of(&fs::read_to_string(file).expect("a source file"));
        let parent: Vec<&str> = module.split("::").collect();
        let parent = parent[..parent.len() - 1].join("::");
        let mut edges = BTreeSet::new();
        for (prefix, base) in [("crate::", String::new()), ("super::", parent.clone())] {
            for (at, _) in code.match_indices(prefix) {
                if at > 0 && code[..at].ends_with(|c: char| is_ident(c) || c == '$') {
                    continue; // `$crate::` in a macro, or part of a longer path
                }
                for path in paths_at(&code, at + prefix.len()) {
                    let full = if base.is_empty() {
                        path
                    } else {
                        format!("{base}::{path}")
                    };
                    if let Some(target) = resolve(&full, &modules, &reexports) {
                        edges.insert(target);
                    }
                }
            }
        }
        // `use child::…` and `pub use child::…` inside a module.
        for (at, _) in code.match_indices("use ") {
            let rest = code[at + 4..].trim_start_matches("self::");
            let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
            let child = format!("{module}::{name}");
            if rest[name.len()..].starts_with("::") && modules.contains(&child) {
                edges.insert(child);
            }
        }
        edges.remove(module);
        graph.insert(module.clone(), edges);
    }
    graph
}

/// A cycle through `start`, if there is one.
fn cycle_from(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        at: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in graph.get(at).into_iter().flatten() {
            if next == start {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(graph, start, next, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    walk(graph, start, start, &mut path, &mut seen).then_some(path)
}

#[test]
fn the_module_graph_has_no_cycle() {
    let graph = graph();
    assert!(graph.len() > 20, "the scan found the modules: {graph:?}");
    assert!(
        graph["world"].contains("deferred") && graph["query::plan"].contains("group"),
        "the scan finds imports: {graph:#?}"
    );
    for module in graph.keys() {
        if let Some(cycle) = cycle_from(&graph, module) {
            panic!("import cycle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_layers_stay_in_order() {
    let graph = graph();
    let depends = |module: &str, layer: &str| {
        graph[module]
            .iter()
            .any(|target| target == layer || target.starts_with(&format!("{layer}::")))
    };
    let mechanisms = [
        "commands",
        "component",
        "deferred",
        "group",
        "query",
        "world",
    ];
    for (module, edges) in &graph {
        // The storage knows nothing of worlds, groups or queries.
        if module == "sparse_map" || module.starts_with("sparse_map::") {
            for layer in mechanisms {
                assert!(
                    !depends(module, layer),
                    "{module} imports {layer}: {edges:?}"
                );
            }
        }
        // Nothing below the facade imports it: `World` is the top.
        if module != "schedule" && module != "example_generated" {
            assert!(
                !edges.contains("world"),
                "{module} imports the `World` facade; bound generic code by \
                 `Storages` or `Contains<C>` instead: {edges:?}"
            );
        }
    }
    // The plumbing sits below every mechanism but the command queue type.
    let plumbing = &graph["plumbing"];
    for layer in ["commands", "component", "group", "query", "world"] {
        assert!(
            !depends("plumbing", layer),
            "plumbing imports {layer}: {plumbing:?}"
        );
    }
    assert!(plumbing
        .iter()
        .all(|m| !m.starts_with("deferred") || m == "deferred::queue"));
}

/// Every structural change goes through `src/structural/` (see its module
/// docs): no other module calls the storage's or the allocator's
/// membership methods, or the reactions (owning groups, and later hooks and
/// relations) that hang off them.
/// The code of every file of `src/` outside the modules `owners` (a
/// module and its children), with its module name.
fn code_outside(owners: &[&str]) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .iter()
        .map(|file| (module_name(&src, file), file))
        .filter(|(module, _)| {
            !owners
                .iter()
                .any(|owner| module == owner || module.starts_with(&format!("{owner}::")))
        })
        .map(|(module, file)| {
            (
                module,
                code_of(&fs::read_to_string(file).expect("a source file")),
            )
        })
        .collect()
}

#[test]
fn structural_changes_go_through_one_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // The storage and the allocator make the changes; `structural` alone
    // asks them to (and `in_step` drops what a moved storage holds of dead
    // entities: values the world never held).
    let owners = ["structural", "sparse_map", "entity", "in_step"];
    let calls = [
        // A storage's values: add, replace, remove, detach, empty, forget.
        ".insert_new(",
        ".push_fresh(",
        ".push_value(",
        ".attach(",
        ".attach_fresh(",
        ".remove_in(",
        ".purge(",
        ".take_all(",
        ".resync(",
        ".apply_removals(",
        ".apply_additions(",
        ".pop_pending_add(",
        ".pop_pending_remove(",
        // The allocator: make and free entities.
        ".try_alloc(",
        ".alloc_fresh(",
        ".free_alive(",
        ".free_keeping_stamp(",
        // The reactions.
        "react::",
        "group::entered",
        "group::leaving",
    ];
    let mut found = Vec::new();
    let mut scanned = 0;
    for (module, code) in code_outside(&owners) {
        scanned += 1;
        for call in calls {
            if code.contains(call) {
                found.push(format!("{module} calls `{call}`"));
            }
        }
    }
    assert!(scanned > 20, "the scan found the modules");
    assert!(
        found.is_empty(),
        "structural changes outside `src/structural/` (route them through it): {found:#?}"
    );
    // The check sees such a call where there is one.
    let structural =
        code_of(&fs::read_to_string(src.join("structural/mod.rs")).expect("structural/mod.rs"));
    assert!(structural.contains(".insert_new(") && structural.contains("react::"));
}

/// The module graph with each top-level folder of `src/` as one module.
fn folder_graph() -> BTreeMap<String, BTreeSet<String>> {
    let top = |module: &str| module.split("::").next().unwrap_or(module).to_string();
    let mut folders: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, edges) in graph() {
        let from = top(&module);
        let entry = folders.entry(from.clone()).or_default();
        for edge in edges {
            let to = top(&edge);
            if to != from {
                entry.insert(to);
            }
        }
    }
    folders
}

/// The layers of `src/`, lowest first: each top-level module (a folder
/// counts as one) uses only modules of lower layers. CONTRIBUTING.md
/// ("Layout") says what each is.
const LAYERS: &[&[&str]] = &[
    // Leaves: program-unique numbers, the crate's token, index lists.
    &["unique", "seal", "indices"],
    // Entities and the log with cursors.
    &["entity", "log"],
    // Error types.
    &["error"],
    // The storage (with what it records of its changes).
    &["sparse_map"],
    // The one queue type: one component's queued changes, the despawns.
    &["queue", "relation"],
    // The plumbing `world!` implements.
    &["plumbing"],
    // Change detection's observers.
    &["change"],
    // Storages in step with their world.
    &["in_step"],
    // Owning groups.
    &["group"],
    // The one structural path.
    &["structural"],
    // Changes applied later (the one apply loop); queries; the invariants'
    // checks.
    &["deferred", "query", "invariants"],
    // What a world's type says of its components, for users: `Contains<C>`
    // (it implies that `C`'s storage lends a written query column, so it
    // sits above the queries), `Component`, `Bundle`.
    &["component"],
    // Command buffers, applied by the loop in `deferred`.
    &["commands"],
    // Systems.
    &["system"],
    // The `World` facade; events (a system parameter each, over the log).
    &["world", "event", "hooks"],
    // What sits on the facade: the schedule, saving, the generated example.
    &["schedule", "serde_impls", "example_generated"],
];

/// The layer of a top-level module (`None` if it is not listed).
fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

#[test]
fn folders_are_layers() {
    let folders = folder_graph();
    assert!(
        folders.len() > 15,
        "the scan found the folders: {folders:?}"
    );
    for (module, uses) in &folders {
        let Some(layer) = layer_of(module) else {
            panic!("`{module}` is in no layer: add it to LAYERS (and to CONTRIBUTING.md)");
        };
        for used in uses {
            let used_layer = layer_of(used)
                .unwrap_or_else(|| panic!("`{used}` is in no layer: add it to LAYERS"));
            assert!(
                used_layer < layer,
                "`{module}` (layer {layer}) uses `{used}` (layer {used_layer}): a module uses \
                 only lower layers. {module} uses {uses:?}"
            );
        }
    }
    // The check sees an upward use where there is one.
    assert!(folders["world"].contains("structural"));
    assert!(layer_of("structural") < layer_of("world"));
}

/// One public path per item (CONTRIBUTING.md, "One path per item"): no
/// module of `src/` is public except the prelude, the macro's hidden door
/// and the feature-gated example, and the prelude only names root items.
#[test]
fn one_public_path_per_item() {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("src/lib.rs is readable");
    let code = code_of(&lib);
    let public: Vec<&str> = code
        .lines()
        .filter_map(|line| line.trim().strip_prefix("pub mod "))
        .map(|rest| rest.trim_end_matches([';', '{', ' ']))
        .collect();
    assert_eq!(public, ["example_generated", "prelude", "__private"]);
    let prelude = &code[code.find("pub mod prelude").expect("a prelude")..];
    let prelude = &prelude[..prelude.find("\n}").expect("the prelude ends")];
    for line in prelude.lines().skip(1) {
        let line = line.trim();
        assert!(
            line.is_empty() || line.starts_with("pub use crate::") || !line.starts_with("pub"),
            "the prelude re-exports root items only: {line}"
        );
        assert!(
            !line.contains("::")
                || line.starts_with("pub use crate::{")
                || line == "pub use crate::world;",
            "the prelude names root items, not module paths: {line}"
        );
    }
}

/// The in-step stamps live in one module: `in_step` alone reads, compares
/// or sets the stamp of a storage or of the world's own queue; the layers
/// below receive its verdict (`Alive`: which entries count), the allocator
/// keeps its own stamp, and the storage only holds one.
#[test]
fn stamps_are_compared_in_one_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // Where the stamp is defined: the allocator's, and a storage's field.
    let owners = ["in_step", "entity", "sparse_map"];
    let uses = [
        ".is_synced(",
        ".set_synced(",
        ".stamp()",
        ".next_stamp()",
        ".renew_stamp()",
        ".synced ",
        ".synced =",
    ];
    let mut found = Vec::new();
    for (module, code) in code_outside(&owners) {
        for used in uses {
            if code.contains(used) {
                found.push(format!("{module} uses `{used}`"));
            }
        }
        // Reading the verdict is for everyone; making "all in step" is not.
        for line in code.lines() {
            let made = line.match_indices("Alive::All").any(|(at, what)| {
                !line[at + what.len()..].starts_with(" =>") && !line.contains("matches!(")
            });
            if made {
                found.push(format!("{module} makes `Alive::All`: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "stamps read or set outside `src/in_step.rs` (ask it instead): {found:#?}"
    );
    // The storage holds a stamp but never compares it with a world's.
    let storage = code_of(&fs::read_to_string(src.join("sparse_map/mod.rs")).expect("mod.rs"));
    assert!(!storage.contains("entities.stamp()"));
    // The check sees a use where there is one.
    let in_step = code_of(&fs::read_to_string(src.join("in_step.rs")).expect("in_step.rs"));
    assert!(in_step.contains(".is_synced(") && in_step.contains("Alive::All"));
}
