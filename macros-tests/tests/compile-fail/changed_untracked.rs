use typed_ecs::prelude::*;
use typed_ecs::Changed;

pub struct Pos(f32);
pub struct Vel(f32);

world! {
    pub struct Game<Pos, Vel>;
    tracked (Vel);
}

fn main() {
    let world = Game::new();
    for (_e, _pos) in world.query::<Changed<&Pos>>() {}
}
