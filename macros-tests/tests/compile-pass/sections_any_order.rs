// The sections after the struct line come in any order, in both forms.
use typed_ecs::prelude::*;

#[derive(Default)]
pub struct Time(f32);
pub struct Pos(f32);
pub struct Vel(f32);
pub struct Tag;

world! {
    pub struct GroupsFirst<Pos, Vel, Tag>;
    group (Pos, Vel);
    tracked (Pos);
    resources { time: Time }
}

world! {
    pub struct Fields { pos: Pos, vel: Vel, tag: Tag }
    tracked (Vel);
    group (Pos, Vel);
    resources { time: Time }
}

fn main() {
    let mut a = GroupsFirst::new();
    let e = a.spawn_with((Pos(1.0), Vel(2.0)));
    a.time.0 = 0.5;
    assert_eq!(a.group_len::<(Pos, Vel)>(), Some(1));
    assert_eq!(a.query::<Changed<&Pos>>().count(), 1);
    assert!(a.has::<Vel>(e) && !a.has::<Tag>(e));

    let mut b = Fields::new();
    b.spawn_with((Pos(1.0), Vel(2.0), Tag));
    assert_eq!(b.group_len::<(Pos, Vel)>(), Some(1));
    assert_eq!(b.query::<Added<&Vel>>().count(), 1);
    assert_eq!(b.time.0, 0.0);
}
