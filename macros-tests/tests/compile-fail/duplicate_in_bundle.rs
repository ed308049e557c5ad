use typed_ecs::prelude::*;

pub struct Cat(u8);

world! {
    pub struct CatWorld<Cat>;
}

fn main() {
    let mut world = CatWorld::new();
    world.spawn_with((Cat(1), Cat(2)));
}
