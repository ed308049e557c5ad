// The plumbing behind `World` (the split borrows, the allocator) cannot be
// called through a bound: its methods take a token only typed_ecs can make.
use typed_ecs::prelude::*;

fn plumbing<W: World>(world: &mut W) {
    let _ = world.parts();
    let _ = world.borrows();
    let _ = world.allocator_mut();
}

// Nor is the storage behind a `Contains` bound reached but through
// `World::storage` and `World::storage_mut`.
fn storage<W: Contains<Pos>>(world: &mut W) {
    let _ = world.sparse_map_mut();
}

pub struct Pos(i32);
world! { pub struct Game<Pos>; }

fn main() {
    plumbing(&mut Game::new());
    storage(&mut Game::new());
}
