// A `for` loop hands out `&mut` into the one storage it walks; a query that
// writes two storages runs with `for_each`.
use typed_ecs::prelude::*;

pub struct Pos(f32);
pub struct Vel(f32);

world! {
    pub struct Game<Pos, Vel>;
}

fn main() {
    let mut world = Game::new();
    for (_e, (_pos, _vel)) in world.query_mut::<(&mut Pos, &mut Vel)>() {}
}
