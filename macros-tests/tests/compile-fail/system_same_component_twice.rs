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

// Two borrows of one storage, one of them `&mut`, in one system.
fn nudge(pos: &mut SparseMap<Pos>, seen: &SparseMap<Pos>) {
    let _ = (pos, seen);
}

fn main() {
    Schedule::<Game>::new().add_system(nudge);
}
