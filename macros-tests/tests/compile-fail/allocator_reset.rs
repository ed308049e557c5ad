// Resetting the allocator would hand out old handles again.
use typed_ecs::prelude::*;

pub struct Pos(f32);

world! {
    pub struct Game<Pos>;
}

fn main() {
    let mut world = Game::new();
    world.spawn_with((Pos(1.0),));
    world.entities = typed_ecs::EntityAllocator::new();
    world.entities = Default::default();
}
