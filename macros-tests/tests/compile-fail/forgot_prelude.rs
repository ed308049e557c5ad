// Without the prelude, rustc suggests importing the trait; the path it
// suggests must compile (see compile-pass/suggested_paths.rs).
use typed_ecs::world;

pub struct Pos(pub f32);

world! {
    pub struct Game<Pos>;
}

fn main() {
    let mut game = Game::new();
    let _ = game.spawn();
}
