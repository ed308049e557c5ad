//! Owning groups in both forms, several per world, with generic types, in a
//! crate that denies missing docs.
#![deny(missing_docs)]

use typed_ecs::prelude::*;

/// A vector.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vec3<T>(pub T, pub T, pub T);
/// A position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position(pub f32);
/// A velocity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Velocity(pub f32);
/// A mass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mass(pub f32);
/// A tag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tag;

world! {
    /// Two groups, list form.
    #[derive(Debug, Clone)]
    pub struct Listed<Position, Velocity, Mass, Tag>;
    group (Position, Velocity);
    group (Mass, Tag,);
}

world! {
    /// A group of three, field form, generic types.
    pub struct Fielded {
        pos: Vec3<f32>,
        vel: Vec3<f64>,
        mass: Mass,
        tag: Tag,
    }
    group (Vec3<f32>, Vec3<f64>, Mass);
}

fn main() {
    let mut world = Listed::new();
    let e = world.spawn_with((Position(0.0), Velocity(1.0), Mass(2.0), Tag));
    assert_eq!(world.group_len::<(Position, Velocity)>(), Some(1));
    assert_eq!(world.group_len::<(Mass, Tag)>(), Some(1));
    world.remove::<Tag>(e);
    assert_eq!(world.group_len::<(Mass, Tag)>(), Some(0));
    let copy = world.clone();
    assert_eq!(copy.group_len::<(Position, Velocity)>(), None);

    let mut fielded = Fielded::new();
    fielded.spawn_with((Vec3(0.0_f32, 0.0, 0.0), Vec3(1.0_f64, 0.0, 0.0), Mass(1.0)));
    assert_eq!(fielded.group_len::<(Vec3<f32>, Vec3<f64>, Mass)>(), Some(1));
}
