// An `on_remove` hook of `Health` takes the storage of `Health` mutably:
// it could change what it reacts to. The error names the hook and says to
// read it and queue changes with `Commands`.
use typed_ecs::prelude::*;

pub struct Health(pub u32);

world! {
    pub struct Game<Health>;
    hooks { on_remove(Health) => detach; }
}

fn detach(removed: OnRemove<Health>, health: &mut SparseMap<Health>) {
    let _ = (removed.len(), health.len());
}

fn main() {
    let _ = Game::new();
}
