// An `on_add` line whose hook takes the batch of a removal.
use typed_ecs::prelude::*;

pub struct Health(pub u32);

world! {
    pub struct Game<Health>;
    hooks { on_add(Health) => detach; }
}

fn detach(removed: OnRemove<Health>) {
    let _ = removed.len();
}

fn main() {
    let _ = Game::new();
}
