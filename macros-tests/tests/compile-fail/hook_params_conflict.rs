// A hook whose parameters conflict with each other (the systems rule):
// the same storage, once mutably.
use typed_ecs::prelude::*;

pub struct Health(pub u32);
pub struct Bar(pub u32);

world! {
    pub struct Game<Health, Bar>;
    hooks { on_add(Health) => attach; }
}

fn attach(added: OnAdd<Health>, bars: &mut SparseMap<Bar>, again: &SparseMap<Bar>) {
    let _ = (added.len(), bars.len(), again.len());
}

fn main() {
    let _ = Game::new();
}
