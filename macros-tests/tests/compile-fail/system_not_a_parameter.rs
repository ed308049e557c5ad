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

// A `u32` is not something a system can borrow from the world.
fn count(n: u32) {
    let _ = n;
}

fn main() {
    Schedule::<Game>::new().add_system(count);
}
