// Where a world keeps a component is plumbing: through a bound
// `C: Component<W>` it needs a token only typed_ecs can make.
use typed_ecs::prelude::*;

pub struct Pos(i32);
world! { pub struct Game<Pos>; }

fn column<C: Component<Game>>(world: &mut Game) {
    let _ = C::field_mut(world);
}

fn main() {
    column::<Pos>(&mut Game::new());
}
