use typed_ecs::prelude::*;

pub struct Position(f32);
pub struct Velocity(f32);

world! { pub struct Menu<Position>; }
world! { pub struct Level<Position, Velocity>; }

fn count<W: Contains<Position>>(world: &W) -> usize {
    world.size::<Position>()
}

fn main() {
    let mut menu = Menu::new();
    let mut level = Level::new();
    menu.spawn_with((Position(0.0),));
    level.spawn_with((Position(0.0), Velocity(1.0)));
    level.spawn_with((Position(0.0),));
    assert_eq!((count(&menu), count(&level)), (1, 2));
}
