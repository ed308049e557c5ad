use typed_ecs::prelude::*;

pub struct Pos(f32);
pub struct Vel(f32);

world! {
    pub struct Game<Pos>;
    tracked (Vel);
}

fn main() {
    let _ = Game::new();
}
