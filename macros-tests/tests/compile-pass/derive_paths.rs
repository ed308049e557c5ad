// Derive paths are kept exactly as written, a leading `::` included: in a
// crate with a module named `core`, `::core::fmt::Debug` still names the
// crate's `Debug`.
#![allow(dead_code)]

mod core {}

use typed_ecs::prelude::*;

#[derive(::core::fmt::Debug, ::core::clone::Clone)]
pub struct Position(f32);

world! {
    #[derive(::core::fmt::Debug, ::core::clone::Clone)]
    pub struct Game<Position>;
}

world! {
    #[derive(std::fmt::Debug, Clone)]
    pub struct Fields { pos: Position }
}

fn main() {
    let mut world = Game::new();
    world.spawn_with((Position(1.0),));
    let copy = world.clone();
    assert_eq!(copy.size::<Position>(), 1);
    assert!(format!("{copy:?}").contains("Position"));
    let fields = Fields::new().clone();
    assert!(format!("{fields:?}").contains("pos"));
}
