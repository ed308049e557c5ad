use std::rc::Rc;

use typed_ecs::prelude::*;

pub struct Pos(pub f32);
#[derive(Default)]
pub struct Shared(pub Rc<u32>);

world! {
    pub struct Game<Pos>;
    resources { shared: Shared }
}

// A stage's members may run on other threads: what they borrow must be
// `Send` (`Sync` when shared). `add_system` alone takes it.
fn peek(shared: &Shared) {
    let _ = shared;
}

fn main() {
    Schedule::<Game>::new().add_system(peek);
    Schedule::<Game>::new().add_systems((peek,));
}
