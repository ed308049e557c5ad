use typed_ecs::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vec3<T>(T, T, T);

pub mod physics {
    #[derive(Debug, PartialEq)]
    pub struct Mass(pub f32);
}

world! {
    #[derive(Debug)]
    pub(crate) struct Physics {
        /// Where it is.
        #[allow(unused)]
        pos: Vec3<f32>,
        vel: Vec3<f64>,
        mass: physics::Mass,
        tags: Vec<&'static str>,
    }
}

fn main() {
    let mut world = Physics::with_capacity(16);
    let e = world.spawn_with((Vec3(0.0_f32, 1.0, 2.0), physics::Mass(3.0), vec!["heavy"]));
    world.add(e, Vec3(1.0_f64, 1.0, 1.0));
    assert_eq!(world.mass.get(e), Some(&physics::Mass(3.0)));
    assert_eq!(world.vel.values(), &[Vec3(1.0, 1.0, 1.0)]);
    assert_eq!(world.tags.get(e).map(Vec::len), Some(1));
}
