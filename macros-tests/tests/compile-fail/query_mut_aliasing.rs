use typed_ecs::prelude::*;

pub struct Pos(f32);
pub struct Vel(f32);

world! {
    pub struct Game<Pos, Vel>;
}

fn main() {
    let mut world = Game::new();
    world.query_mut::<(&mut Pos, &Vel, &Pos)>().for_each(|_, _| {});
}
