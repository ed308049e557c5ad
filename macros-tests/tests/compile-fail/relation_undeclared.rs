// Relating by a relation the world does not declare. (With one relation
// declared, rustc infers it and says the payload has the wrong type.)
use typed_ecs::prelude::*;

pub struct Name(pub &'static str);
pub struct ChildOf;
pub struct Likes;
pub struct Targets;

world! {
    pub struct Scene<Name>;
    relations { child_of: ChildOf -> children; targets: Targets -> targeted_by; }
}

fn main() {
    let mut scene = Scene::new();
    let (a, b) = (scene.spawn(), scene.spawn());
    let _ = scene.relate(a, Likes, b);
}
