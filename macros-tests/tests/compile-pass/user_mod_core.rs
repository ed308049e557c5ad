// A user module named `core` (and `std`, `alloc`, `paste`) must not break the expansion.
#![allow(dead_code)]

mod core {}
mod std {}
mod alloc {}
mod paste {}
mod static_assertions {}

use typed_ecs::prelude::*;

pub struct Position(f32);

world! {
    pub struct Game<Position>;
}

fn main() {
    let mut world = Game::new();
    world.spawn_with((Position(1.0),));
    assert_eq!(world.size::<Position>(), 1);
}
