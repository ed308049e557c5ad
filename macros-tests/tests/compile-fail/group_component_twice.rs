use typed_ecs::prelude::*;

pub struct Position(pub f32);
pub struct Velocity(pub f32);
pub struct Mass(pub f32);

// `Position` may belong to one group only.
world! {
    pub struct Physics<Position, Velocity, Mass>;
    group (Position, Velocity);
    group (Position, Mass);
}

fn main() {}
