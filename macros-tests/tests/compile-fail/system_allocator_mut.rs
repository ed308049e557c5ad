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

// Systems read the allocator; they spawn and despawn through `Commands`.
fn grow(entities: &mut EntityAllocator) {
    let _ = entities;
}

fn main() {
    Schedule::<Game>::new().add_system(grow);
}
