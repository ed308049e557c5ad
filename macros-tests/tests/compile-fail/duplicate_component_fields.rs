use typed_ecs::prelude::*;

pub struct Position(f32, f32);

world! {
    pub struct Game {
        here: Position,
        there: Position,
    }
}

fn main() {}
