// `Bounce` requires `Pos` and `Vel`, which this world lacks (it does not
// include `Physics`): the error names the component, the world and the
// plugin (`Bounce_requires`).
use typed_ecs::prelude::*;

pub struct Health(pub i32);

world! {
    pub struct Game<Health>;
    plugins (physics::Bounce);
}

fn main() {
    let _ = Game::new();
}
