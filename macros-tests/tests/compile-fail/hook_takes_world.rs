// A hook that takes the whole world: it runs in the middle of a change.
use typed_ecs::prelude::*;

pub struct Health(pub u32);

world! {
    pub struct Game<Health>;
    hooks { on_add(Health) => everything; }
}

fn everything(added: OnAdd<Health>, world: &mut Game) {
    let _ = (added.len(), world.entity_count());
}

fn main() {
    let _ = Game::new();
}
