// A hook line names a type that is not one of the world's components.
use typed_ecs::prelude::*;

pub struct Health(pub u32);
pub struct Mana(pub u32);

world! {
    pub struct Game<Health>;
    hooks { on_add(Mana) => attach; }
}

fn attach(added: OnAdd<Mana>) {
    let _ = added.len();
}

fn main() {
    let _ = Game::new();
}
