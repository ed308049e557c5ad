use typed_ecs::prelude::*;

pub struct Pos(f32);

world! {
    pub struct Game<Pos>;
    tracking (Pos);
}

fn main() {}
