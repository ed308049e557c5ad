use typed_ecs::prelude::*;

pub struct Pos(pub f32);
#[derive(Default)]
pub struct Time(pub f32);

// A resource field named like a component field.
world! {
    pub struct Game<Pos>;
    resources { pos: Time }
}

fn main() {}
