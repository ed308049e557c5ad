// A bundle with a component the world lacks: one error, about membership
// (the check that each component appears once stays silent).
use typed_ecs::prelude::*;

pub struct Pos(f32);
pub struct Vel(f32);
pub struct Missing;

world! {
    pub struct Game<Pos, Vel>;
}

fn main() {
    let mut world = Game::new();
    world.spawn_with((Pos(0.0), Missing, Vel(1.0)));
}
