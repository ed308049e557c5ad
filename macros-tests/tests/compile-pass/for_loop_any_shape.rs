// A `for` loop needs the `&mut` element first; other shapes use `for_each`.
use typed_ecs::prelude::*;

pub struct Pos(f32);
pub struct Vel(f32);

world! {
    pub struct Game<Pos, Vel>;
}

fn main() {
    let mut world = Game::new();
    for (_e, (_vel, _pos)) in world.query_mut::<(&Vel, &mut Pos)>() {}
}
