// A hook that keeps a `Local`: hooks keep nothing between their batches.
use typed_ecs::prelude::*;

pub struct Health(pub u32);

world! {
    pub struct Game<Health>;
    hooks { on_add(Health) => count; }
}

fn count(added: OnAdd<Health>, seen: &mut Local<usize>) {
    seen.0 += added.len();
}

fn main() {
    let _ = Game::new();
}
