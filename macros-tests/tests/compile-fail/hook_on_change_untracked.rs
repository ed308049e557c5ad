// `on_change` of a component whose changes the world does not track.
use typed_ecs::prelude::*;

pub struct Pos(pub f32);
#[derive(Default)]
pub struct Grid(pub Vec<Entity>);

world! {
    pub struct Game<Pos>;
    resources { grid: Grid }
    hooks { on_change(Pos) => reindex; }
}

fn reindex(moved: OnChange<Pos>, grid: &mut Grid) {
    grid.0.extend_from_slice(&moved);
}

fn main() {
    let _ = Game::new();
}
