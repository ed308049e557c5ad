use typed_ecs::prelude::*;

pub struct Pos(pub f32);
#[derive(Default)]
pub struct Time(pub f32);

// `entities` is the allocator's field.
world! {
    pub struct Game<Pos>;
    resources { entities: Time }
}

fn main() {}
