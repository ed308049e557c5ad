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

// `Score` is not a resource of `Game`.
fn add_point(score: &mut Score) {
    score.0 += 1;
}

fn main() {
    Schedule::<Game>::new().add_system(add_point);
}
