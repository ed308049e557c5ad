// A mutable query that names a component twice through a relation: the
// entity's `Transform`, written, and its parent's, read.
use typed_ecs::prelude::*;

pub struct Transform(pub f32);
pub struct ChildOf;

world! {
    pub struct Scene<Transform>;
    relations { child_of: ChildOf -> children [despawn, tree]; }
}

fn main() {
    let mut scene = Scene::new();
    scene
        .query_mut::<(&mut Transform, Up<ChildOf, &Transform>)>()
        .for_each(|_, (own, parent)| own.0 *= parent.0);
}
