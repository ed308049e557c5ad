use typed_ecs::prelude::*;

pub struct Pos(f32);

world! {
    pub struct Game<Pos>;
}

fn main() {
    let world = Game::new();
    let _ = world.removed::<Pos>();
}
