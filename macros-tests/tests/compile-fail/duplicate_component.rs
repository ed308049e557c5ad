use typed_ecs::prelude::*;

pub struct Cat;

world! {
    pub struct CatWorld<Cat, Cat>;
}

fn main() {}
