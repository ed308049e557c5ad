//! Builds `typed_ecs` with `default-features = false` into a `#![no_std]`
//! crate that defines its own panic handler. If `typed_ecs` (or anything it
//! depends on) pulled in `std`, this would fail with "duplicate lang item
//! `panic_impl`". Built by CI with
//! `cargo build --manifest-path no-std-check/Cargo.toml`.

#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::string::String;
use typed_ecs::prelude::*;

/// A name.
pub struct Name(pub String);
/// A position.
pub struct Position(pub i32, pub i32);

world! {
    /// A world on `core` + `alloc` alone.
    pub struct Embedded<Name, Position>;
}

/// Exercises the API without std: spawning, queries, commands, a schedule.
pub fn step(world: &mut Embedded) -> usize {
    let mut commands = Commands::new();
    for (entity, (position, _name)) in world.query_mut::<(&mut Position, &Name)>() {
        position.0 += 1;
        if position.0 > 10 {
            commands.despawn(entity);
        }
    }
    let report = world.apply(&mut commands);
    let mut schedule = Schedule::new();
    schedule.add_system(|world: &mut Embedded| world.finalize_updates());
    schedule.run(world);
    report.rejected().len()
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
