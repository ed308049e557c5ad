// The plumbing behind `World` is not callable from a user crate: there are
// no hidden methods on the world, and the bundle and group plumbing sit on
// sealed traits whose methods are crate-private or need a token only
// typed_ecs can make (see also the `sealed_*` cases).
use typed_ecs::prelude::*;

pub struct Pos(i32);
pub struct Vel(i32);

world! {
    pub struct Game<Pos, Vel>;
    group (Pos, Vel);
}

fn main() {
    let mut world = Game::new();
    let e = world.spawn_with((Pos(1), Vel(2)));
    world.__purge(e);
    world.__apply_additions();
    (Pos(3),).insert_into(&mut world, e);
    <(Pos, Vel) as typed_ecs::Group<Game>>::rebuild(&mut world);
}
