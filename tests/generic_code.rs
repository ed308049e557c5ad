//! Code generic over the world, with public bounds only (`W: World +
//! Contains<C>`), runs in a world that tracks its components, in one that
//! does not, and in one that groups them, with the same results (issue 26,
//! "Generic code is first-class").

use typed_ecs::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Frozen;

world! { struct Plain<Pos, Vel, Frozen>; }
world! { struct Watched<Pos, Vel, Frozen>; tracked (Pos, Vel); }
world! { struct Packed<Pos, Vel, Frozen>; group (Pos, Vel); }
world! { struct Both<Pos, Vel, Frozen>; tracked (Pos); group (Pos, Vel); }

/// What a reusable physics crate would write: no world named anywhere.
trait Physics: World + Contains<Pos> + Contains<Vel> + Contains<Frozen> {}
impl<W: World + Contains<Pos> + Contains<Vel> + Contains<Frozen>> Physics for W {}

fn spawn_movers<W: Physics>(world: &mut W) -> Vec<Entity> {
    let mut spawned = vec![world.spawn_with((Pos(0), Vel(1)))];
    spawned.extend(world.spawn_batch((2..5).map(|v| (Pos(v * 10), Vel(v)))));
    let frozen = world.spawn_with((Pos(7), Vel(100), Frozen));
    spawned.push(frozen);
    spawned
}

fn integrate_for_each<W: Physics>(world: &mut W) {
    world
        .query_mut::<(&mut Pos, &Vel, Without<Frozen>)>()
        .for_each(|_, (pos, vel, ())| pos.0 += vel.0);
}

fn integrate_for_loop<W: Physics>(world: &mut W) {
    for (_, (pos, vel)) in world.query_mut::<(&mut Pos, &Vel)>() {
        if vel.0 < 100 {
            pos.0 += vel.0;
        }
    }
}

fn slow_down<W: Physics>(world: &mut W, entity: Entity) -> bool {
    match world.get_many::<(&Pos, &mut Vel)>(entity) {
        Some((pos, vel)) => {
            vel.0 -= pos.0.signum();
            true
        }
        None => false,
    }
}

fn total<W: Physics>(world: &W) -> (i64, i64, usize) {
    let pos = world.query::<&Pos>().map(|(_, p)| p.0).sum();
    let vel = world
        .query::<(&Vel, Option<&Frozen>)>()
        .map(|(_, (v, _))| v.0)
        .sum();
    (pos, vel, world.query::<With<Frozen>>().count())
}

fn freeze_fast<W: Physics>(world: &mut W) -> usize {
    let mut commands = Commands::<W>::new();
    for (entity, (vel, ())) in world.query::<(&Vel, Without<Frozen>)>() {
        if vel.0 >= 4 {
            commands.add(entity, Frozen);
        }
    }
    let spawned = commands.spawn();
    commands.add(spawned, Pos(-1));
    assert!(world.apply(&mut commands).is_clean());
    world.size::<Frozen>()
}

fn by_hand<W: Physics>(world: &mut W, entity: Entity) -> Option<i64> {
    world.get_mut::<Pos>(entity)?.0 *= 2;
    let old = world.remove::<Vel>(entity)?;
    world.add(entity, Vel(old.0 + 1));
    world.storage_mut::<Pos>().get_mut(entity)?.0 += 1;
    Some(world.get::<Pos>(entity)?.0 + world.storage::<Vel>().get(entity)?.0)
}

/// Generic over the component, bounded on the component's side: what a
/// test harness or an editor writes.
fn count_twice<W: World, C: Component<W>>(world: &W) -> usize {
    world.size::<C>() + world.storage::<C>().len()
}

/// A system written once, for every world with the components: its
/// parameters name the storages with `StorageOf`.
fn movement<W: Physics>(
    pos: &mut StorageOf<W, Pos>,
    vel: &StorageOf<W, Vel>,
    frozen: &StorageOf<W, Frozen>,
) {
    join((pos, vel, Without(frozen))).for_each(|_, (p, v, ())| p.0 += v.0);
}

fn run<W: Physics>(mut world: W) -> Vec<i64> {
    let movers = spawn_movers(&mut world);
    integrate_for_each(&mut world);
    integrate_for_loop(&mut world);
    assert!(slow_down(&mut world, movers[1]));
    // Named `Schedule<W>`: a schedule of a type not yet inferred would be
    // taken for a declared world's (see `AddSystems`).
    let mut schedule = Schedule::<W>::new();
    schedule.add_system(movement::<W>).add_sync_point();
    schedule.run(&mut world);
    let (pos, vel, frozen) = total(&world);
    let frozen_after = freeze_fast(&mut world);
    let by_hand = by_hand(&mut world, movers[2]).unwrap_or(-1);
    world.despawn(movers[0]);
    assert!(
        !slow_down(&mut world, movers[0]),
        "a stale handle finds nothing"
    );
    world.assert_invariants();
    let mut out = vec![pos, vel, frozen as i64, frozen_after as i64, by_hand];
    out.extend(
        movers
            .iter()
            .map(|&e| world.get::<Pos>(e).map_or(-1, |p| p.0)),
    );
    out
}

#[test]
fn generic_code_runs_the_same_in_every_kind_of_world() {
    let plain = run(Plain::new());
    assert_eq!(plain, run(Watched::new()), "tracked");
    assert_eq!(plain, run(Packed::new()), "grouped");
    assert_eq!(plain, run(Both::new()), "tracked and grouped");
    // Worked by hand. Positions 0, 20, 30, 40 (velocities 1, 2, 3, 4) and
    // a frozen 7: moved by `for_each` and by the `for` loop (1, 22, 33, 44,
    // then 2, 24, 36, 48); the second slowed to 1; moved by the system (3,
    // 25, 39, 52). The third, by hand: 39 * 2 + 1 = 79, its velocity 3 + 1.
    let positions = 3 + 25 + 39 + 52 + 7;
    let velocities = 1 + 1 + 3 + 4 + 100;
    let by_hand = 79 + 4;
    let last = [-1, 25, 79, 52, 7]; // the first was despawned
    assert_eq!(plain[..5], [positions, velocities, 1, 2, by_hand]);
    assert_eq!(plain[5..], last);
}

#[test]
fn code_bounded_on_the_components_side_calls_world_methods() {
    let mut world = Both::new();
    spawn_movers(&mut world);
    assert_eq!(count_twice::<Both, Frozen>(&world), 2);
    assert_eq!(count_twice::<Both, Pos>(&world), 10);
}

#[test]
fn a_generic_system_marks_what_it_writes_in_a_tracked_world() {
    let mut world = Watched::new();
    let moving = world.spawn_with((Pos(0), Vel(1)));
    let still = world.spawn_with((Pos(0), Vel(0), Frozen));
    world.clear_changes();
    let mut schedule = Schedule::new();
    schedule.add_system(movement::<Watched>);
    schedule.run(&mut world);
    let changed: Vec<Entity> = world.query::<Changed<&Pos>>().map(|(e, _)| e).collect();
    assert_eq!(changed, [moving]);
    assert_eq!(world.get::<Pos>(still), Some(&Pos(0)));
}
