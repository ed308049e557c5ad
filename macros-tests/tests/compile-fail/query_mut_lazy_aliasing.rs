use typed_ecs::prelude::*;
use typed_ecs::Lazy;

pub struct Energy(i32);

world! {
    pub struct Game<Energy>;
    tracked (Energy);
}

fn main() {
    let mut world = Game::new();
    // `Lazy<Energy>` writes the storage `&Energy` reads.
    world.query_mut::<(Lazy<Energy>, &Energy)>().for_each(|_, _| {});
}
