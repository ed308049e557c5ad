// A `for` loop runs every query shape: two `&mut`, in any order, grouped
// or not, optional `&mut`, and `Changed<&mut C>`.
use typed_ecs::prelude::*;
use typed_ecs::Changed;

pub struct Pos(f32);
pub struct Vel(f32);
pub struct Hp(i32);

world! {
    pub struct Game<Pos, Vel, Hp>;
    tracked (Hp);
    group (Pos, Vel);
}

fn main() {
    let mut world = Game::new();
    let e = world.spawn_with((Pos(0.0), Vel(1.0), Hp(3)));
    for (_, (pos, vel)) in world.query_mut::<(&mut Pos, &mut Vel)>() {
        pos.0 += vel.0;
        vel.0 = 0.0;
    }
    for (_, (hp, pos)) in world.query_mut::<(&mut Hp, &mut Pos)>() {
        hp.0 += 1;
        pos.0 *= 2.0;
    }
    for (_, (vel, hp)) in world.query_mut::<(&Vel, Option<&mut Hp>)>() {
        if let Some(hp) = hp {
            hp.0 += vel.0 as i32;
        }
    }
    for (_, hp) in world.query_mut::<Changed<&mut Hp>>() {
        hp.0 *= 10;
    }
    assert_eq!(world.get::<Pos>(e).unwrap().0, 2.0);
    assert_eq!(world.get::<Hp>(e).unwrap().0, 40);
}
