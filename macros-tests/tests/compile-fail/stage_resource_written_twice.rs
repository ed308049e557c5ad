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

// Two members write the same resource.
fn tick(time: &mut Time) {
    time.0 += 1.0;
}
fn rewind(time: &mut Time, vel: &SparseMap<Vel>) {
    let _ = (time, vel);
}

fn main() {
    Schedule::<Game>::new().add_systems((tick, rewind));
}
