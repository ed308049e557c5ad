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

// One member writes `Pos`, another reads it: they cannot share a stage.
fn movement(pos: &mut SparseMap<Pos>, vel: &SparseMap<Vel>) {
    let _ = (pos, vel);
}
fn render(pos: &SparseMap<Pos>) {
    let _ = pos;
}

fn main() {
    Schedule::<Game>::new().add_systems((movement, render));
}
