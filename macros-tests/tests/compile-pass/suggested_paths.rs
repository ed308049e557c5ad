// Every public item is defined at a public path: what rustc suggests when an
// import is missing compiles, whichever path it picks.
use typed_ecs::{Bundle, Component, Contains};
use typed_ecs::world;
use typed_ecs::World;

pub struct Pos(pub f32);

world! {
    pub struct Game<Pos>;
}

fn index<W: Contains<C>, C: Component<W>>() -> usize {
    <W as Contains<C>>::INDEX
}

fn spawn_one<B: Bundle<Game>>(game: &mut Game, bundle: B) {
    game.spawn_with(bundle);
}

fn main() {
    let mut game = Game::new();
    let _ = <Game as typed_ecs::World>::spawn(&mut game);
    spawn_one(&mut game, (Pos(1.0),));
    assert_eq!(index::<Game, Pos>(), 0);
    assert_eq!(game.entity_count(), 2);
}
