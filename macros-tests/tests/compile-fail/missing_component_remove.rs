use typed_ecs::prelude::*;

pub struct Cat;
pub struct Dog;

world! {
    pub struct CatWorld<Cat>;
}

fn main() {
    let mut world = CatWorld::new();
    let e = world.spawn();
    let _dog: Option<Dog> = world.remove::<Dog>(e);
}
