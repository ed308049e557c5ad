use typed_ecs::prelude::*;
use typed_ecs::Or;

pub struct Pos(pub f32);
pub struct Tag;

world! {
    pub struct Game<Pos, Tag>;
}

fn main() {
    let mut world = Game::new();
    // `Pos` is written and read by the `Or`: the same storage twice.
    world
        .query_mut::<(&mut Pos, Or<(With<Pos>, With<Tag>)>)>()
        .for_each(|_, _| {});
}
