use typed_ecs::prelude::*;

pub struct Cat;
pub struct Dog;

world! {
    pub struct CatWorld<Cat>;
}

fn main() {
    let world = CatWorld::new();
    for (_e, (_cat, _dog)) in world.query::<(&Cat, &Dog)>() {}
}
