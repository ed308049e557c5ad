// A misspelt despawn policy.
use typed_ecs::prelude::*;

pub struct Name(pub &'static str);
pub struct ChildOf;

world! {
    pub struct Scene<Name>;
    relations { child_of: ChildOf -> children [despwan, tree]; }
}

fn main() {
    let _ = Scene::new();
}
