//! The bytes a parent–child link costs (issue 29), printed as markdown on
//! stdout: measured with a counting global allocator (`stats_alloc`), as
//! the `memory` binary measures components, in a process of its own so
//! the counting never taxes timed runs (the report runs it through cargo).
//!
//! ```text
//! cargo run --release -p typed_ecs_benches --bin link_memory
//! ```
//!
//! For each shape (parents × children per parent): the heap a world holds
//! once every entity is spawned with a `Data` and every child linked to its
//! parent, minus the heap of a world with the same entities and `Data` and
//! no links, divided by the number of links. The links are made one child
//! at a time (`hierarchy_spawn`'s way), so the child lists keep the spare
//! capacity a growing `Vec` keeps.

#![forbid(unsafe_code)]

use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::fmt::Write as _;
use typed_ecs_benches::components::Data;
use typed_ecs_benches::scenarios::hierarchy::{by_hand, related, Children, Parent};

/// Counts every allocation.
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The shapes measured: `(parents, children per parent)`.
const SHAPES: [(usize, usize); 2] = [(1_000, 100), (1, 100_000)];

fn main() {
    print!("{}", section());
}

/// The bytes still allocated after `build` (see `typed_ecs_benches::heap`).
fn heap_of<T>(build: impl FnOnce() -> T) -> i128 {
    typed_ecs_benches::heap::heap_of(GLOBAL, build)
}

/// The heap of `linked` less the heap of `unlinked`, per link.
fn per_link<L, U>(links: usize, linked: impl FnOnce() -> L, unlinked: impl FnOnce() -> U) -> f64 {
    (heap_of(linked) - heap_of(unlinked)) as f64 / links as f64
}

/// `Data` for every entity.
fn data() -> Data {
    Data(1.0)
}

/// Bytes per link of a typed_ecs world of `$module` (`related`: the
/// relation, `relate` on both sides; `by_hand`: `Parent`/`Children`
/// components), each child spawned with `$module::spawn_child`.
macro_rules! typed_per_link {
    ($module:ident :: $world:ident, $parents:expr, $per_parent:expr) => {{
        let (parents, per_parent): (usize, usize) = ($parents, $per_parent);
        per_link(
            parents * per_parent,
            || {
                let mut world = $module::$world::new();
                for _ in 0..parents {
                    let parent = world.spawn_with((data(),));
                    for _ in 0..per_parent {
                        $module::spawn_child(&mut world, parent, data());
                    }
                }
                world
            },
            || {
                let mut world = $module::$world::new();
                for _ in 0..parents * (per_parent + 1) {
                    world.spawn_with((data(),));
                }
                world
            },
        )
    }};
}

/// Bytes per link of bevy's `ChildOf`/`Children`.
fn bevy_per_link(parents: usize, per_parent: usize) -> f64 {
    use bevy_ecs::world::World;
    per_link(
        parents * per_parent,
        || {
            let mut world = World::new();
            for _ in 0..parents {
                world.spawn(data()).with_children(|spawner| {
                    for _ in 0..per_parent {
                        spawner.spawn(data());
                    }
                });
            }
            world
        },
        || {
            let mut world = World::new();
            for _ in 0..parents * (per_parent + 1) {
                world.spawn(data());
            }
            world
        },
    )
}

/// Bytes per link of raw `Vec`s: a parent index (`u32`) and a child list
/// (`Vec<u32>`) per entity, beside the `Data` column.
fn raw_per_link(parents: usize, per_parent: usize) -> f64 {
    let n = parents * (per_parent + 1);
    per_link(
        parents * per_parent,
        || {
            let mut data_column = Vec::new();
            let mut parent_column: Vec<u32> = Vec::new();
            let mut children: Vec<Vec<u32>> = Vec::new();
            for _ in 0..parents {
                let parent = data_column.len() as u32;
                data_column.push(data());
                parent_column.push(u32::MAX);
                children.push(Vec::new());
                for _ in 0..per_parent {
                    let child = data_column.len() as u32;
                    data_column.push(data());
                    parent_column.push(parent);
                    children.push(Vec::new());
                    children[parent as usize].push(child);
                }
            }
            (data_column, parent_column, children)
        },
        || (0..n).map(|_| data()).collect::<Vec<_>>(),
    )
}

/// The section.
fn section() -> String {
    let mut out = String::from("### Memory per link\n\n");
    let _ = writeln!(
        out,
        "Measured with a counting global allocator (`stats_alloc`): the heap of a world with \
         every entity spawned with a `Data` ({} bytes) and every child linked to its parent \
         one at a time, minus the heap of the same entities and `Data` without links, per \
         link. typed_ecs's relation keeps, by entity index, each source's link (its target, \
         its place in the target's list and the payload: {} bytes with no payload), and each \
         target's handle and list of sources (a `Vec`) packed, found through 4 bytes an entity \
         index, so its cost per link depends on how many entities are targets. In the by-hand row a link is a `Parent<Entity>` ({} bytes) on the child and an \
         entry ({} bytes) in the parent's `Children<Entity>` ({} bytes, a `Vec`, plus its spare \
         capacity); bevy's is its `ChildOf` ({} bytes) and an entry in its `Children` ({} \
         bytes); raw keeps a `u32` parent index and a `Vec<u32>` child list ({} bytes) for \
         every entity. The world's own bookkeeping for the new components (sparse sets, \
         archetypes, tables) is in the numbers.\n",
        std::mem::size_of::<Data>(),
        2 * std::mem::size_of::<typed_ecs::Entity>() + 4,
        std::mem::size_of::<Parent<typed_ecs::Entity>>(),
        std::mem::size_of::<typed_ecs::Entity>(),
        std::mem::size_of::<Children<typed_ecs::Entity>>(),
        std::mem::size_of::<bevy_ecs::hierarchy::ChildOf>(),
        std::mem::size_of::<bevy_ecs::hierarchy::Children>(),
        std::mem::size_of::<Vec<u32>>(),
    );
    out.push_str(
        "| parents × children | typed_ecs | typed_ecs_by_hand | bevy | raw |\n|---|---:|---:|---:|---:|\n",
    );
    for (parents, per_parent) in SHAPES {
        let _ = writeln!(
            out,
            "| {} × {} | {:.1} B | {:.1} B | {:.1} B | {:.1} B |",
            typed_ecs_benches::short_size(parents),
            typed_ecs_benches::short_size(per_parent),
            typed_per_link!(related::RelWorld, parents, per_parent),
            typed_per_link!(by_hand::TreeWorld, parents, per_parent),
            bevy_per_link(parents, per_parent),
            raw_per_link(parents, per_parent),
        );
    }
    out
}
