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

// An exclusive system (`&mut Game`) cannot share a stage.
fn hud(world: &mut Game) {
    let _ = world;
}
fn drag(vel: &mut SparseMap<Vel>) {
    let _ = vel;
}

fn main() {
    Schedule::<Game>::new().add_systems((drag, hud));
}
