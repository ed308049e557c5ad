// Code generic over the world, with public bounds only: functions and
// systems written once, used in an untracked, a tracked and a grouped world
// (and a schedule built in generic code).
use typed_ecs::prelude::*;

pub struct Pos(pub i32);
pub struct Vel(pub i32);

fn step<W: World + Contains<Pos> + Contains<Vel>>(world: &mut W) {
    world.query_mut::<(&mut Pos, &Vel)>().for_each(|_, (p, v)| p.0 += v.0);
    for (_, (p, v)) in world.query_mut::<(&mut Pos, Option<&mut Vel>)>() {
        if let Some(v) = v {
            v.0 = p.0.signum();
        }
    }
}

fn system<W: World + Contains<Pos> + Contains<Vel>>(
    pos: &mut StorageOf<W, Pos>,
    vel: &StorageOf<W, Vel>,
) {
    join((pos, vel)).for_each(|_, (p, v)| p.0 += v.0);
}

fn schedule<W: World + Contains<Pos> + Contains<Vel>>() -> Schedule<W> {
    // Its type named, so that its methods are `AddSystems`'s (see there).
    let mut schedule = Schedule::<W>::new();
    schedule.add_system(system::<W>).add_sync_point();
    schedule
}

/// A plugin's way: the schedule handed in, a stage of generic systems.
fn add_physics<W: World + Contains<Pos> + Contains<Vel>>(schedule: &mut Schedule<W>) {
    schedule.add_systems((system::<W>, |frames: &mut Local<u32>| **frames += 1));
}

world! { pub struct Plain<Pos, Vel>; }
world! { pub struct Watched<Pos, Vel>; tracked (Pos, Vel); }
world! { pub struct Packed<Pos, Vel>; group (Pos, Vel); }

fn run<W: World + Contains<Pos> + Contains<Vel>>(mut world: W) -> i32 {
    let e = world.spawn_with((Pos(1), Vel(2)));
    step(&mut world);
    let mut schedule = schedule::<W>();
    add_physics(&mut schedule);
    schedule.run(&mut world);
    world.get::<Pos>(e).map_or(0, |p| p.0)
}

fn main() {
    assert_eq!(run(Plain::new()), 5);
    assert_eq!(run(Watched::new()), 5);
    assert_eq!(run(Packed::new()), 5);
}
