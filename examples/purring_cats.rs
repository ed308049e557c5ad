//! The canonical typed_ecs program: a cat café world, one system, one cat.
//!
//! Run it with `cargo run --release --example purring_cats`.

use typed_ecs::prelude::*;

/// Where a cat is.
#[derive(Debug, Clone)]
pub struct Moveable {
    pub x: f32,
    pub y: f32,
}

impl Moveable {
    pub fn new(x: f32, y: f32) -> Self {
        Moveable { x, y }
    }
}

/// What a cat is called.
#[derive(Debug, Clone)]
pub struct Nameable(pub String);

/// A cat that purrs.
#[derive(Debug, Clone)]
pub struct Purrable;

world! {
    /// Everything that lives in the cat café.
    #[derive(Debug, Clone)]
    pub struct CatWorld<Moveable, Nameable, Purrable>;
}

fn all_cats_purr(world: &mut CatWorld) {
    for (_cat, (name, _purr)) in world.query::<(&Nameable, &Purrable)>() {
        println!("The cat {} purrs", name.0);
    }
}

fn main() {
    let mut world = CatWorld::new();
    let mut schedule = Schedule::new();
    schedule.add_system(all_cats_purr);

    let kitty = world.spawn();
    world.add(kitty, Nameable("Kitty".into()));
    world.add(kitty, Moveable::new(1.0, 2.0));
    world.add(kitty, Purrable);

    schedule.run(&mut world);
}
