//! Stages against their systems one by one, over random schedules: for
//! each seed, a random sequence of stages, single systems and sync points is
//! built twice, once with `add_systems` and once with every member added on
//! its own, and both run on clones of one random world. The worlds must stay
//! equal, frame after frame (with the `rayon` feature the stages run on
//! several threads), and every invariant must hold.

use std::time::Duration;

use typed_ecs::prelude::*;

#[path = "support/rng.rs"]
mod rng;

use rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq)]
struct A(u64);
#[derive(Debug, Clone, Copy, PartialEq)]
struct B(u64);
#[derive(Debug, Clone, Copy, PartialEq)]
struct C(u64);
#[derive(Debug, Clone, Copy, PartialEq)]
struct D(u64);

#[derive(Debug, Clone, Default, PartialEq)]
struct Total(u64);
#[derive(Debug, Clone, Default, PartialEq)]
struct Seed(u64);

world! {
    #[derive(Debug, Clone)]
    struct Sim<A, B, C, D>;
    resources { total: Total, seed: Seed }
    group (A, B);
}

/// Writes A, reads B.
fn sa(a: &mut SparseMap<A>, b: &SparseMap<B>) {
    join((a, b)).for_each(|_, (a, b)| a.0 = (a.0 + b.0) % 10_007);
}

/// Writes B, reads Total.
fn sb(b: &mut SparseMap<B>, total: &Total) {
    for b in b.values_mut() {
        b.0 = (b.0 * 3 + total.0) % 1_009;
    }
}

/// Writes C, reads A, queues commands.
fn sc(c: &mut SparseMap<C>, a: &SparseMap<A>, commands: &mut Commands<Sim>) {
    for (entity, c) in c.iter_mut() {
        c.0 += 1;
        match a.get(entity) {
            Some(a) if a.0 % 5 == 0 => commands.despawn(entity),
            Some(a) => commands.add(entity, D(a.0)),
            None => commands.remove::<C>(entity),
        }
    }
}

/// Writes D and Seed, reads the allocator.
fn sd(d: &mut SparseMap<D>, entities: &EntityAllocator, seed: &mut Seed) {
    for (entity, d) in d.iter_mut() {
        d.0 =
            d.0.wrapping_mul(31)
                .wrapping_add(u64::from(entities.is_alive(entity)));
        seed.0 = seed
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(d.0);
    }
}

/// Reads A and B, writes Total.
fn se(a: &SparseMap<A>, b: &SparseMap<B>, total: &mut Total) {
    total.0 = (a.values().iter().map(|a| a.0).sum::<u64>() + b.len() as u64) % 997;
}

/// Reads Seed, queues spawns.
fn sf(seed: &Seed, commands: &mut Commands<Sim>) {
    if seed.0 % 3 != 1 {
        commands.spawn_with((A(seed.0 % 100), B(seed.0 % 7), C(1)));
    }
}

/// Reads C and D, queues commands.
fn sg(c: &SparseMap<C>, d: &SparseMap<D>, commands: &mut Commands<Sim>) {
    for (entity, c) in c.iter() {
        if c.0 % 4 == 3 && d.contains(entity) {
            commands.remove::<D>(entity);
            commands.add(entity, B(c.0));
        }
    }
}

/// Exclusive: spawns and despawns directly.
fn sx(world: &mut Sim) {
    let n = world.entity_count() as u64;
    if n % 2 == 0 {
        world.spawn_with((C(n), D(n)));
    } else if let Some(&e) = world.c.entities().first() {
        world.despawn(e);
    }
}

fn random_world(rng: &mut Rng) -> Sim {
    let mut world = Sim::new();
    for _ in 0..rng.below(40) {
        let e = world.spawn();
        if rng.below(2) == 0 {
            world.add(e, A(rng.below(100)));
        }
        if rng.below(2) == 0 {
            world.add(e, B(rng.below(100)));
        }
        if rng.below(2) == 0 {
            world.add(e, C(rng.below(100)));
        }
        if rng.below(3) == 0 {
            world.add(e, D(rng.below(100)));
        }
    }
    world.seed.0 = rng.below(1000);
    world
}

/// The same random schedule twice: with stages, and one system at a time.
fn random_schedules(rng: &mut Rng) -> (Schedule<Sim>, Schedule<Sim>) {
    let mut staged = Schedule::new();
    let mut single = Schedule::new();
    // Most schedules hand every stage to rayon's pool (feature `rayon`);
    // the rest keep the default, where light stages stay on this thread.
    if rng.below(4) != 0 {
        staged.set_parallel_work(Duration::ZERO);
    }
    for _ in 0..1 + rng.below(8) {
        match rng.below(8) {
            0 => {
                staged.add_systems((sa, sd));
                single.add_system(sa).add_system(sd);
            }
            1 => {
                staged.add_systems((sb, sc, sd));
                single.add_system(sb).add_system(sc).add_system(sd);
            }
            2 => {
                staged.add_systems((sa, sf, sg));
                single.add_system(sa).add_system(sf).add_system(sg);
            }
            3 => {
                staged.add_systems((se, sc, sd));
                single.add_system(se).add_system(sc).add_system(sd);
            }
            4 => {
                staged.add_systems((sg, sf, sb));
                single.add_system(sg).add_system(sf).add_system(sb);
            }
            5 => {
                staged.add_systems((sx,));
                single.add_system(sx);
            }
            6 => {
                staged.add_system(se);
                single.add_system(se);
            }
            _ => {
                staged.add_sync_point();
                single.add_sync_point();
            }
        }
    }
    (staged, single)
}

#[test]
fn stages_match_their_systems_one_by_one() {
    let seeds: u64 = if cfg!(debug_assertions) { 300 } else { 3000 };
    for seed in 1..=seeds {
        let mut rng = Rng::new(seed);
        let mut a = random_world(&mut rng);
        let mut b = a.clone();
        let (mut staged, mut single) = random_schedules(&mut rng);
        assert_eq!(staged.len(), single.len());
        for frame in 0..1 + rng.below(6) {
            staged.run(&mut a);
            single.run(&mut b);
            a.assert_invariants();
            assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "seed {seed}, frame {frame}: {:?}",
                staged.names().collect::<Vec<_>>()
            );
            let reports_a: Vec<_> = staged
                .last_reports()
                .map(|(_, r)| r.spawned().len())
                .collect();
            let reports_b: Vec<_> = single
                .last_reports()
                .map(|(_, r)| r.spawned().len())
                .collect();
            assert_eq!(reports_a, reports_b, "seed {seed}");
        }
    }
}
