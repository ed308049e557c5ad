// A tracked component's storage named as an untracked one: the message
// says which kind to write, and the spelling that follows `tracked (…)`.
use typed_ecs::prelude::*;

pub struct Energy(pub f32);

world! {
    pub struct Eco<Energy>;
    tracked (Energy);
}

fn drain(energy: &mut SparseMap<Energy>) {
    energy.values_mut().iter_mut().for_each(|e| e.0 -= 1.0);
}

fn main() {
    Schedule::<Eco>::new().add_system(drain);
}
