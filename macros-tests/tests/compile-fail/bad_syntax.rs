use typed_ecs::prelude::*;

pub struct Cat;
pub struct Dog;

world! {
    pub struct CatWorld(Cat, Dog);
}

fn main() {}
