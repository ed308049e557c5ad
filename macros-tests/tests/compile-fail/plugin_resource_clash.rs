// A resource of the world with the name of a plugin's resource: the error
// names the plugin and the resource.
use typed_ecs::prelude::*;

pub struct Health(pub i32);
#[derive(Default)]
pub struct Pull(pub f32);

world! {
    pub struct Game<Health>;
    resources { gravity: Pull }
    plugins (physics::Physics);
}

fn main() {
    let _ = Game::new();
}
