// Code generic over the query, the bundle or the world compiles with the
// bounds a user would write: `QueryMut` and `Bundle` on a concrete world
// (they include the check that each component appears once), and
// `Contains` alone in code generic over the world (the `World` methods
// check that when the program is built).
use typed_ecs::prelude::*;

pub struct Pos(i32);
pub struct Vel(i32);

world! {
    pub struct Game<Pos, Vel>;
}

fn count<'w, Q: QueryMut<'w, Game>>(world: &'w mut Game) -> usize {
    let mut visited = 0;
    world.query_mut::<Q>().for_each(|_, _| visited += 1);
    visited
}

fn spawn_twice<B: Bundle<Game>>(world: &mut Game, make: impl Fn() -> B) {
    world.spawn_with(make());
    world.spawn_batch([make()]);
}

fn spawn_mover<W: World + Contains<Pos> + Contains<Vel>>(world: &mut W) -> Entity {
    world.spawn_batch([(Pos(0), Vel(2))]);
    world.spawn_with((Pos(2), Vel(2)))
}

fn step_any<'w, W: World, Q: QueryMut<'w, W>>(world: &'w mut W) -> usize {
    let mut visited = 0;
    world.query_mut::<Q>().for_each(|_, _| visited += 1);
    visited
}

fn main() {
    let mut world = Game::new();
    spawn_twice(&mut world, || (Pos(1), Vel(1)));
    let e = spawn_mover(&mut world);
    assert_eq!(world.pos.get(e).unwrap().0, 2);
    assert_eq!(count::<(&mut Pos, &Vel)>(&mut world), 4);
    assert_eq!(step_any::<Game, &mut Vel>(&mut world), 4);
}
