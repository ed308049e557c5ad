// An owning group's upkeep is crate-private: a bound `G: Group<W>` only
// names the group.
use typed_ecs::prelude::*;

pub struct Pos(i32);
pub struct Vel(i32);
world! {
    pub struct Game<Pos, Vel>;
    group (Pos, Vel);
}

fn group<G: typed_ecs::Group<Game>>(world: &Game) -> Option<usize> {
    G::len(world)
}

fn main() {
    group::<(Pos, Vel)>(&Game::new());
}
