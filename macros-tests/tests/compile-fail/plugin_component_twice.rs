// A component the world declares and a plugin declares too: the error
// names the plugin, the component and the fix.
use typed_ecs::prelude::*;

world! {
    pub struct Game { pos: physics::Pos }
    plugins (physics::Physics);
}

fn main() {
    let _ = Game::new();
}
