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

// `Cat` is not a component of `Game`.
fn pet(cats: &SparseMap<Cat>) {
    let _ = cats;
}

fn main() {
    Schedule::<Game>::new().add_system(pet);
}
