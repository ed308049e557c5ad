use typed_ecs::prelude::*;

pub struct Pos(f32);
pub struct Vel(f32);

world! {
    pub struct Game<Pos, Vel>;
    tracked (Pos);
    group (Pos, Vel);
    tracked (Vel);
}

fn main() {}
