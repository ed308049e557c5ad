use typed_ecs::prelude::*;

pub struct Pos(f32);

world! {
    pub struct Game<Pos>;
}

fn main() {
    let mut world = Game::new();
    let e = world.spawn_with((Pos(0.0),));
    let _ = world.get_many::<(&mut Pos, Option<&mut Pos>)>(e);
}
