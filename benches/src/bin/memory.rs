//! The Memory section of `BENCHMARKS.md`, printed as markdown on stdout:
//! what storing a component costs each crate, measured with a counting
//! global allocator (`stats_alloc`). The report binary runs this one in a
//! process of its own, so the counting allocator (a few atomic additions
//! per allocation) never taxes the timed runs.
//!
//! ```text
//! cargo run --release -p typed_ecs_benches --bin memory
//! ```
//!
//! - Bytes per (entity, component) beyond `size_of` the component: a world
//!   of 100,000 entities each holding one `Position`, minus a world holding
//!   the same entities without it, per entity, less 12 bytes; once with the
//!   entities spawned one at a time, once sized up front with the crate's
//!   own means (typed_ecs: `with_capacity`).
//! - The bytes one component on entity index 1,000,000 costs: 1,000,001
//!   entities with nothing, then the allocation delta of adding one `Data`
//!   to the last one.
//! - The heap of `game_frame`'s state after its setup and
//!   [`GAME_FRAMES`] frames, by implementation, and typed_ecs's by storage.

#![forbid(unsafe_code)]

use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::fmt::Write as _;
use typed_ecs_benches::components::{Data, Position};
use typed_ecs_benches::Instance;

/// Counts every allocation.
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() {
    print!("{}", memory_section());
}

/// Entities in the per-component measurement.
const MEMORY_N: usize = 100_000;
/// The entity index of the far-away-component measurement.
const FAR_INDEX: usize = 1_000_000;

/// The bytes still allocated after `build` (see `typed_ecs_benches::heap`).
fn heap_of<T>(build: impl FnOnce() -> T) -> i128 {
    typed_ecs_benches::heap::heap_of(GLOBAL, build)
}

fn position() -> Position {
    Position([1.0, 2.0, 3.0])
}

/// Bytes per (entity, component) beyond `size_of::<Position>()`: a world
/// of [`MEMORY_N`] entities with a `Position` each, minus the same world's
/// entities without it.
fn overhead(with: i128, without: i128) -> f64 {
    (with - without) as f64 / MEMORY_N as f64 - std::mem::size_of::<Position>() as f64
}

/// One row of the per-component table: grown one at a time, and reserved
/// up front (with what), if the crate can.
struct MemoryRow {
    name: &'static str,
    grown: f64,
    reserved: Option<(f64, &'static str)>,
    far: Option<i128>,
}

typed_ecs::world! { struct MemWorld<Position>; }
typed_ecs::world! { struct FarWorld<Data>; }

fn typed_ecs_memory() -> MemoryRow {
    use typed_ecs::prelude::*;
    let n = MEMORY_N;
    let grown = overhead(
        heap_of(|| {
            let mut w = MemWorld::new();
            for _ in 0..n {
                w.spawn_with((position(),));
            }
            w
        }),
        heap_of(|| {
            let mut w = MemWorld::new();
            for _ in 0..n {
                w.spawn();
            }
            w
        }),
    );
    // `with_capacity(n)` reserves the allocator and every storage: the
    // baseline is that world without the `Position` storage's reservation.
    let reservation = heap_of(|| typed_ecs::SparseMap::<Position>::with_capacity(n));
    let reserved = overhead(
        heap_of(|| {
            let mut w = MemWorld::with_capacity(n);
            for _ in 0..n {
                w.spawn_with((position(),));
            }
            w
        }),
        heap_of(|| {
            let mut w = MemWorld::with_capacity(n);
            for _ in 0..n {
                w.spawn();
            }
            w
        }) - reservation,
    );
    let mut far = FarWorld::new();
    let mut last = far.spawn();
    for _ in 0..FAR_INDEX {
        last = far.spawn();
    }
    assert_eq!(last.index() as usize, FAR_INDEX);
    let far_bytes = heap_of(|| far.add(last, Data(1.0)));
    MemoryRow {
        name: "typed_ecs",
        grown,
        reserved: Some((reserved, "`with_capacity(n)`")),
        far: Some(far_bytes),
    }
}

fn hecs_memory() -> MemoryRow {
    use hecs::World;
    let n = MEMORY_N;
    let grown = overhead(
        heap_of(|| {
            let mut w = World::new();
            for _ in 0..n {
                w.spawn((position(),));
            }
            w
        }),
        heap_of(|| {
            let mut w = World::new();
            for _ in 0..n {
                w.spawn(());
            }
            w
        }),
    );
    let reserved = overhead(
        heap_of(|| {
            let mut w = World::new();
            w.reserve::<(Position,)>(n as u32);
            for _ in 0..n {
                w.spawn((position(),));
            }
            w
        }),
        heap_of(|| {
            let mut w = World::new();
            w.reserve::<()>(n as u32);
            for _ in 0..n {
                w.spawn(());
            }
            w
        }),
    );
    let mut far = World::new();
    let mut last = far.spawn(());
    for _ in 0..FAR_INDEX {
        last = far.spawn(());
    }
    let far_bytes = heap_of(|| far.insert_one(last, Data(1.0)).unwrap());
    MemoryRow {
        name: "hecs",
        grown,
        reserved: Some((reserved, "`reserve::<(Position,)>(n)`")),
        far: Some(far_bytes),
    }
}

fn bevy_memory() -> MemoryRow {
    use bevy_ecs::world::World;
    let n = MEMORY_N;
    let grown = overhead(
        heap_of(|| {
            let mut w = World::new();
            for _ in 0..n {
                w.spawn((position(),));
            }
            w
        }),
        heap_of(|| {
            let mut w = World::new();
            for _ in 0..n {
                w.spawn_empty();
            }
            w
        }),
    );
    let reserved = overhead(
        heap_of(|| {
            let mut w = World::new();
            w.spawn_batch((0..n).map(|_| (position(),)));
            w
        }),
        heap_of(|| {
            let mut w = World::new();
            w.spawn_batch((0..n).map(|_| ()));
            w
        }),
    );
    let mut far = World::new();
    let mut last = far.spawn_empty().id();
    for _ in 0..FAR_INDEX {
        last = far.spawn_empty().id();
    }
    let far_bytes = heap_of(|| {
        far.entity_mut(last).insert(Data(1.0));
    });
    MemoryRow {
        name: "bevy",
        grown,
        reserved: Some((reserved, "`spawn_batch`")),
        far: Some(far_bytes),
    }
}

fn shipyard_memory() -> MemoryRow {
    use shipyard::World;
    let n = MEMORY_N;
    let grown = overhead(
        heap_of(|| {
            let mut w = World::new();
            for _ in 0..n {
                w.add_entity((position(),));
            }
            w
        }),
        heap_of(|| {
            let mut w = World::new();
            for _ in 0..n {
                w.add_entity(());
            }
            w
        }),
    );
    let reserved = overhead(
        heap_of(|| {
            let mut w = World::new();
            w.bulk_add_entity((0..n).map(|_| (position(),)));
            w
        }),
        heap_of(|| {
            let mut w = World::new();
            w.bulk_add_entity((0..n).map(|_| ()));
            w
        }),
    );
    let mut far = World::new();
    let mut last = far.add_entity(());
    for _ in 0..FAR_INDEX {
        last = far.add_entity(());
    }
    let far_bytes = heap_of(|| far.add_component(last, (Data(1.0),)));
    MemoryRow {
        name: "shipyard",
        grown,
        reserved: Some((reserved, "`bulk_add_entity`")),
        far: Some(far_bytes),
    }
}

fn sparsey_memory() -> MemoryRow {
    use sparsey::World;
    let n = MEMORY_N;
    let world = || {
        World::builder()
            .register::<Position>()
            .register::<Data>()
            .build()
    };
    let grown = overhead(
        heap_of(|| {
            let mut w = world();
            for _ in 0..n {
                w.create((position(),));
            }
            w
        }),
        heap_of(|| {
            let mut w = world();
            for _ in 0..n {
                w.create(());
            }
            w
        }),
    );
    let reserved = overhead(
        heap_of(|| {
            let mut w = world();
            w.extend((0..n).map(|_| (position(),)));
            w
        }),
        heap_of(|| {
            let mut w = world();
            w.extend((0..n).map(|_| ()));
            w
        }),
    );
    let mut far = world();
    let mut last = far.create(());
    for _ in 0..FAR_INDEX {
        last = far.create(());
    }
    let far_bytes = heap_of(|| far.insert(last, (Data(1.0),)));
    MemoryRow {
        name: "sparsey",
        grown,
        reserved: Some((reserved, "`extend`")),
        far: Some(far_bytes),
    }
}

fn specs_memory() -> MemoryRow {
    use specs::{Builder, World, WorldExt};
    let n = MEMORY_N;
    let world = || {
        let mut w = World::new();
        w.register::<Position>();
        w.register::<Data>();
        w
    };
    let grown = overhead(
        heap_of(|| {
            let mut w = world();
            for _ in 0..n {
                w.create_entity().with(position()).build();
            }
            w
        }),
        heap_of(|| {
            let mut w = world();
            for _ in 0..n {
                w.create_entity().build();
            }
            w
        }),
    );
    let mut far = world();
    let mut last = far.create_entity().build();
    for _ in 0..FAR_INDEX {
        last = far.create_entity().build();
    }
    let far_bytes = heap_of(|| {
        far.write_storage::<Data>().insert(last, Data(1.0)).unwrap();
    });
    MemoryRow {
        name: "specs",
        grown,
        reserved: None,
        far: Some(far_bytes),
    }
}

fn raw_memory() -> MemoryRow {
    let n = MEMORY_N;
    let grown = overhead(
        heap_of(|| {
            let mut v = Vec::new();
            (0..n).for_each(|_| v.push(position()));
            v
        }),
        0,
    );
    let reserved = overhead(
        heap_of(|| {
            let mut v = Vec::with_capacity(n);
            (0..n).for_each(|_| v.push(position()));
            v
        }),
        0,
    );
    MemoryRow {
        name: "raw",
        grown,
        reserved: Some((reserved, "`Vec::with_capacity(n)`")),
        far: None,
    }
}

fn memory_section() -> String {
    let rows = [
        typed_ecs_memory(),
        hecs_memory(),
        bevy_memory(),
        shipyard_memory(),
        sparsey_memory(),
        specs_memory(),
        raw_memory(),
    ];
    let typed_far = rows[0].far.unwrap_or_default();

    let mut out = String::from("## Memory\n\n");
    let _ = writeln!(
        out,
        "Measured with a counting global allocator (`stats_alloc`): the bytes a structure still \
         holds once built.\n\n\
         **One `Data` on entity index 1,000,000 costs typed_ecs {} bytes** ({}): a world of \
         1,000,001 entities with no component, then the allocation delta of adding one `Data` \
         ({} bytes) to the last one.\n",
        thousands(typed_far),
        kib(typed_far),
        std::mem::size_of::<Data>()
    );
    let _ = writeln!(
        out,
        "### Bytes per (entity, component) beyond `size_of::<Position>()` ({} bytes)\n\n\
         A world of {} entities each holding one `Position`, minus a world holding the same \
         entities without it, divided by {} and less {} bytes: what storing the component costs \
         beyond its own size. *Grown* spawns the entities one at a time (so it includes the \
         spare capacity a growing array keeps); *reserved* sizes things up front with the crate's \
         own means, where it has them (for typed_ecs, `with_capacity(n)`, whose baseline is the \
         same world less the `Position` storage's own reservation). raw is a `Vec<Position>`.\n",
        std::mem::size_of::<Position>(),
        thousands(MEMORY_N as i128),
        thousands(MEMORY_N as i128),
        std::mem::size_of::<Position>()
    );
    out.push_str("| implementation | grown one at a time | reserved up front | reserved with |\n");
    out.push_str("|---|---:|---:|---|\n");
    for row in &rows {
        let (reserved, how) = row
            .reserved
            .map_or(("n/a".to_string(), "no reservation API"), |(bytes, how)| {
                (format!("{bytes:.1} B"), how)
            });
        let _ = writeln!(
            out,
            "| {} | {:.1} B | {reserved} | {how} |",
            row.name, row.grown
        );
    }
    out.push_str(
        "\n### One component on entity index 1,000,000, by crate\n\n\
         The same measurement as above for each crate: 1,000,001 entities with no component, \
         then the allocation delta of adding one `Data` to the last one.\n\n\
         | implementation | bytes |\n|---|---:|\n",
    );
    for row in &rows {
        if let Some(bytes) = row.far {
            let _ = writeln!(
                out,
                "| {} | {} ({}) |",
                row.name,
                thousands(bytes),
                kib(bytes)
            );
        }
    }
    out.push_str(&memory_targets(&rows[0]));
    out.push_str(&game_heap());
    out
}

/// Frames of `game_frame` run before its heap is measured: as many as the
/// callgrind counts of its frame (`profile game_frame IMPLEMENTATION 220`).
const GAME_FRAMES: usize = 220;

/// `instance` after [`GAME_FRAMES`] frames.
fn played<I: Instance>(mut instance: I) -> I {
    for _ in 0..GAME_FRAMES {
        instance.prepare();
        instance.run();
    }
    instance
}

/// The bytes `value` frees when dropped.
fn freed<T>(value: T) -> i128 {
    let before = typed_ecs_benches::heap::live_bytes(GLOBAL);
    drop(value);
    before - typed_ecs_benches::heap::live_bytes(GLOBAL)
}

/// The "game frame's heap" tables: what each implementation's state of
/// `game_frame` holds after [`GAME_FRAMES`] frames, and what each of
/// typed_ecs's storages and its grid hold of it.
fn game_heap() -> String {
    use typed_ecs_benches::scenarios::game_frame::{self as game, typed_ecs as te};
    let size = game::SCENARIO.sizes[0];
    let totals = [
        ("typed_ecs", heap_of(|| played(te::setup(size)))),
        ("hecs", heap_of(|| played(game::hecs::setup(size)))),
        ("bevy", heap_of(|| played(game::bevy::setup(size)))),
    ];
    let mut state = played(te::setup(size));
    let world = &mut state.world;
    let parts = [
        ("`Pos`", freed(std::mem::take(&mut world.pos))),
        ("`Vel`", freed(std::mem::take(&mut world.vel))),
        (
            "`Energy` (tracked)",
            freed(std::mem::take(&mut world.energy)),
        ),
        ("`Id`", freed(std::mem::take(&mut world.id))),
        ("`Prey`", freed(std::mem::take(&mut world.prey))),
        ("`Predator`", freed(std::mem::take(&mut world.predator))),
        ("`Grass`", freed(std::mem::take(&mut world.grass))),
        (
            "the grid (a resource)",
            freed(std::mem::take(&mut world.grid)),
        ),
    ];
    let mut out = format!(
        "\n### The game frame's heap\n\n\
         The bytes `game_frame`'s state still holds after its setup ({} entities) and {} frames \
         (the frames the callgrind counts of its frame run), by implementation; each holds the \
         same neighbour grid (`Grid`, one `Vec` per cell and kind). Then typed_ecs's by part: \
         each storage, and the grid, taken out of its world and dropped.\n\n\
         | implementation | heap | **/ typed_ecs** |\n|---|---:|---:|\n",
        thousands(size as i128),
        GAME_FRAMES
    );
    let typed = totals[0].1 as f64;
    for (name, bytes) in totals {
        let _ = writeln!(
            out,
            "| {name} | {} | **{:.2}×** |",
            kib(bytes),
            bytes as f64 / typed
        );
    }
    out.push_str("\n| typed_ecs part | heap |\n|---|---:|\n");
    for (name, bytes) in parts {
        let _ = writeln!(out, "| {name} | {} |", kib(bytes));
    }
    // The same frames leave the same heap: the total less the parts is
    // what the world and its schedule hold besides.
    let rest = totals[0].1 - parts.iter().map(|(_, bytes)| bytes).sum::<i128>();
    let _ = writeln!(
        out,
        "| the rest (the entity allocator, the queues, the schedule, the other resources) | {} |",
        kib(rest)
    );
    out
}

/// The memory targets, against typed_ecs's row.
fn memory_targets(typed: &MemoryRow) -> String {
    const AT_MOST: f64 = 16.0;
    // One 16 KiB sparse page (2048 entries of 8 bytes), plus the dense
    // entry: the entity and the value.
    let page_and_entry = (2048 * 8 + 8 + std::mem::size_of::<Data>()) as i128;
    let verdict = |met: bool| if met { "met" } else { "**missed**" };
    let mut out = String::from("\n### Targets\n\n| target | measured | |\n|---|---:|---|\n");
    let _ = writeln!(
        out,
        "| ≤ {AT_MOST:.0} B per (entity, component) beyond the component, at {} entities, \
         sized up front | {:.1} B | {} |",
        thousands(MEMORY_N as i128),
        typed.reserved.map_or(f64::NAN, |(bytes, _)| bytes),
        verdict(typed.reserved.is_some_and(|(bytes, _)| bytes <= AT_MOST))
    );
    let _ = writeln!(
        out,
        "| the same, grown one spawn at a time | {:.1} B | {} |",
        typed.grown,
        verdict(typed.grown <= AT_MOST)
    );
    let far = typed.far.unwrap_or_default();
    let _ = writeln!(
        out,
        "| one component on entity 1,000,000: at most one sparse page plus the dense entry \
         ({} B) | {} B | {} |",
        thousands(page_and_entry),
        thousands(far),
        verdict(far <= page_and_entry)
    );
    out.push_str(
        "\nA stored component costs typed_ecs 16 bytes beyond itself: its entity in the dense \
         array (8) and its sparse entry (8: the dense slot and the entity's generation, so a \
         lookup checks the handle without reading the dense array; in 16 KiB pages of 2048 \
         entries, each made on first use, kept in one array). The last page is \
         partly used: 100,000 entities fill 49 pages (100,352 entries), hence a few hundredths \
         of a byte above 16. Grown one spawn at a time, the arrays also keep the spare \
         capacity of a doubling `Vec`: at 100,000 values the dense arrays hold 131,072, so 31% \
         of the 8-byte entity and of the value itself is spare (the pages' array grows by an \
         eighth, at least a page, so it keeps a few pages spare: 0.2 B). That spare capacity \
         is what the grown row adds (a plain `Vec<Position>` keeps the same 31%: the raw \
         row's 3.7 B). One component on a far entity costs one page, its 4-byte place in the \
         page table (which spans only the pages in use), and the dense entry: the target \
         line leaves the place out.\n",
    );
    out
}

fn kib(bytes: i128) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

fn thousands(n: i128) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        out.insert(0, '-');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test only: the counting allocator sees every thread, and the
    /// test harness runs tests on threads of their own at the same time.
    #[test]
    fn counting_and_formatting() {
        assert_eq!(heap_of(|| vec![0u8; 4096]), 4096);
        // Grown by reallocation: the final capacity, counted once.
        let grown = heap_of(|| {
            let mut v = Vec::new();
            (0..1000u32).for_each(|i| v.push(i));
            assert_eq!(v.capacity(), 1024);
            v
        });
        assert_eq!(grown, 4096);

        assert_eq!(thousands(1_000_001), "1,000,001");
        assert_eq!(thousands(-16_384), "-16,384");
        assert_eq!(thousands(12), "12");
        assert_eq!(kib(16_384), "16.0 KiB");
    }
}
