// `get_many` with a component twice: a type error at the caller's line.
use typed_ecs::prelude::*;

pub struct Pos(f32);
pub struct Vel(f32);
pub struct Hp(u32);

world! {
    pub struct Game<Pos, Vel, Hp>;
}

fn main() {
    let mut world = Game::new();
    let e = world.spawn_with((Pos(0.0), Vel(1.0), Hp(3)));
    let _ = world.get_many::<(&Hp, &mut Vel, Option<&Vel>)>(e);
}
