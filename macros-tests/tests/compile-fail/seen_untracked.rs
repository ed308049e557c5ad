use typed_ecs::prelude::*;
use typed_ecs::Seen;

pub struct Pos(f32);

world! {
    pub struct Game<Pos>;
}

fn watch(_pos: &SparseMap<Pos>, _seen: &mut Seen<Pos>) {}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add_system(watch);
}
