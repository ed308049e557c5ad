#![no_implicit_prelude]

pub struct Position(pub f32);
pub struct Velocity(pub f32);

::typed_ecs::world! {
    pub struct Game<Position, Velocity>;
}

::typed_ecs::world! {
    pub struct Game2 { pos: Position, vel: Velocity }
}

fn main() {
    use ::std::default::Default;
    use ::typed_ecs::World;
    let mut world = Game::new();
    let e = world.spawn_with((Position(0.0), Velocity(1.0)));
    world.finalize_updates();
    ::std::assert!(world.has::<Velocity>(e));
    let _ = Game2::default();
}
