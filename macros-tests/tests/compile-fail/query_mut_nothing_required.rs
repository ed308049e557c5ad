use typed_ecs::prelude::*;

pub struct Pos(f32);
pub struct Frozen;

world! {
    pub struct Game<Pos, Frozen>;
}

fn main() {
    let mut world = Game::new();
    world.query_mut::<(Option<&mut Pos>, Without<Frozen>)>().for_each(|_, _| {});
}
