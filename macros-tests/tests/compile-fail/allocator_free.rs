// Entities are retired through the world, which keeps its storages in step;
// the allocator field is read-only.
use typed_ecs::prelude::*;

pub struct Pos(f32);

world! {
    pub struct Game<Pos>;
}

fn main() {
    let mut world = Game::new();
    let e = world.spawn_with((Pos(1.0),));
    world.entities.free(e);
}
