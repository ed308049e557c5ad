use typed_ecs::prelude::*;

pub struct Position(pub f32);
pub struct Velocity(pub f32);

world! {
    pub struct Physics<Position, Velocity>;
    group (Position, Position);
}

fn main() {}
