use typed_ecs::prelude::*;
use typed_ecs::join;

pub struct Pos(f32);

world! {
    pub struct Game<Pos>;
}

fn main() {
    let mut world = Game::new();
    join((&mut world.pos, &world.pos)).for_each(|_, _| {});
}
