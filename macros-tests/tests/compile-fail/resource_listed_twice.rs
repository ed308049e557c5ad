use typed_ecs::prelude::*;

pub struct Pos(pub f32);
#[derive(Default)]
pub struct Time(pub f32);

// A system asks for a resource by its type: each type once.
world! {
    pub struct Game<Pos>;
    resources { now: Time, then: Time }
}

fn main() {}
