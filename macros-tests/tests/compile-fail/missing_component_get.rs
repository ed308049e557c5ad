use typed_ecs::prelude::*;

pub struct Cat;
pub struct Dog;

world! {
    pub struct CatWorld<Cat>;
}

fn main() {
    let world = CatWorld::new();
    let e = Entity::from_bits(1 << 32).unwrap();
    let _dog = world.get::<Dog>(e);
}
