// A `for` loop runs a query that writes one storage, wherever its `&mut`
// element stands, and any read-only join (for more shapes, see
// for_loop_every_shape.rs).
use typed_ecs::prelude::*;

pub struct Pos(f32);
pub struct Vel(f32);
pub struct Frozen;

world! {
    pub struct Game<Pos, Vel, Frozen>;
}

fn main() {
    let mut world = Game::new();
    world.spawn_with((Pos(0.0), Vel(1.0)));
    for (_e, (vel, pos)) in world.query_mut::<(&Vel, &mut Pos)>() {
        pos.0 += vel.0;
    }
    for (_e, (vel, (), pos)) in world.query_mut::<(&Vel, Without<Frozen>, &mut Pos)>() {
        pos.0 += vel.0;
    }
    for (_e, (pos, vel)) in world.query_mut::<(&Pos, &Vel)>() {
        let _ = pos.0 + vel.0;
    }
}
