use typed_ecs::prelude::*;

pub struct Pos(pub f32);
pub struct Vel(pub f32);
pub struct Cat;
#[derive(Default)]
pub struct Time(pub f32);
#[derive(Default)]
pub struct Score(pub u32);

world! {
    pub struct Game<Pos, Vel>;
    resources { time: Time }
}

// `&mut Game` is the whole world: it comes alone.
fn hud(world: &mut Game, pos: &SparseMap<Pos>) {
    let _ = (world, pos);
}

fn main() {
    Schedule::<Game>::new().add_system(hud);
}
