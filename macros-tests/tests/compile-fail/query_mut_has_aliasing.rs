use typed_ecs::prelude::*;

pub struct Pos(i32);

world! {
    pub struct Game<Pos>;
}

fn main() {
    let mut world = Game::new();
    // `Has<Pos>` reads the storage `&mut Pos` writes.
    world.query_mut::<(&mut Pos, Has<Pos>)>().for_each(|_, _| {});
}
