// A misspelt kind of hook.
use typed_ecs::prelude::*;

pub struct Health(pub u32);

world! {
    pub struct Game<Health>;
    hooks { on_insert(Health) => attach; }
}

fn attach(added: OnAdd<Health>) {
    let _ = added.len();
}

fn main() {
    let _ = Game::new();
}
