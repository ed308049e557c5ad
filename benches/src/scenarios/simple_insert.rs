//! `simple_insert`: make a world, spawn `n` entities (10,000) with
//! `(Transform, Position, Rotation, Velocity)`, and drop the world. All of
//! it is timed.
//!
//! - typed_ecs: `StdWorld::new()` and `extend` (its batch spawn that does
//!   not collect the handles, as hecs's and bevy's lazy `spawn_batch`
//!   dropped unread do not). The world declares the owning group
//!   `(Position, Velocity)` that `simple_iter` uses, so spawning keeps it
//!   packed.
//! - hecs: `World::new()` and `spawn_batch`.
//! - bevy: `World::new()` and `spawn_batch`.
//! - shipyard: `World::new()` and `bulk_add_entity`.
//! - sparsey: a world with the four components registered, and `extend`.
//! - specs: `World::new()`, `register` ×4, then in one borrow of
//!   `Entities` and the four `WriteStorage`s, `build_entity().with(..)`
//!   in a loop (specs has no batch spawn).
//! - raw: four `Vec`s collected from the same iterator.
//!
//! Under `cfg(test)` only, each run counts the entities of the world it
//! built that have all four components, before dropping it, so the tests
//! can see the work; the benchmarks build without that count.

use crate::components::*;
use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "simple_insert",
    what: "create a world, spawn 10,000 entities with (Transform, Position, Rotation, Velocity), drop the world",
    sizes: &[10_000],
    size_note: "",
    test_size: 100,
    fresh_state: false,
    impls: crate::impls![typed_ecs, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "specs has no batch spawn and spawns in a loop; the others use their batch spawn.",
};

/// The state: how many entities to spawn, and how many the last run made
/// (counted only under `cfg(test)`).
#[derive(Debug)]
pub struct State {
    n: usize,
    last: usize,
}

fn state(n: usize) -> State {
    State { n, last: 0 }
}

/// The check shared by all: the size and the last run's entity count.
fn check(s: &State) -> Check {
    vec![("n", s.n as f64), ("entities", s.last as f64)]
}

macro_rules! instance {
    ($build:expr, $count:expr) => {
        pub struct Run(State);

        pub fn setup(n: usize) -> Run {
            Run(state(n))
        }

        impl Instance for Run {
            fn run(&mut self) {
                #[allow(clippy::redundant_closure_call)]
                let world = ($build)(self.0.n);
                // Keeps the optimiser from eliding the unread world.
                std::hint::black_box(&world);
                if cfg!(test) {
                    #[allow(clippy::redundant_closure_call)]
                    let count = ($count)(&world);
                    self.0.last = count;
                }
            }
            fn check(&self) -> Check {
                check(&self.0)
            }
        }
    };
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    // The world of `simple_iter`, group included: spawning pays for
    // keeping the group packed.
    world! {
        pub struct StdWorld<Transform, Position, Rotation, Velocity>;
        group (Position, Velocity);
    }

    pub fn build(n: usize) -> StdWorld {
        let mut world = StdWorld::new();
        world.extend((0..n).map(|_| std_entity()));
        world
    }

    instance!(build, |w: &StdWorld| w
        .query::<(&Transform, &Position, &Rotation, &Velocity)>()
        .count());
}

pub mod hecs {
    use super::*;

    pub fn build(n: usize) -> ::hecs::World {
        let mut world = ::hecs::World::new();
        world.spawn_batch((0..n).map(|_| std_entity()));
        world
    }

    instance!(build, |w: &::hecs::World| w
        .query::<(&Transform, &Position, &Rotation, &Velocity)>()
        .iter()
        .count());
}

pub mod bevy {
    use super::*;

    pub fn build(n: usize) -> ::bevy_ecs::world::World {
        let mut world = ::bevy_ecs::world::World::new();
        world.spawn_batch((0..n).map(|_| std_entity()));
        world
    }

    instance!(build, |w: &::bevy_ecs::world::World| {
        w.try_query::<(&Transform, &Position, &Rotation, &Velocity)>()
            .map_or(0, |mut q| q.iter(w).count())
    });
}

pub mod shipyard {
    use super::*;

    pub fn build(n: usize) -> ::shipyard::World {
        let mut world = ::shipyard::World::new();
        world.bulk_add_entity((0..n).map(|_| std_entity()));
        world
    }

    instance!(build, |w: &::shipyard::World| {
        use ::shipyard::{IntoIter, View};
        w.run(
            |t: View<Transform>, p: View<Position>, r: View<Rotation>, v: View<Velocity>| {
                (&t, &p, &r, &v).iter().count()
            },
        )
    });
}

pub mod sparsey {
    use super::*;

    pub fn build(n: usize) -> ::sparsey::World {
        let mut world = ::sparsey::World::builder()
            .register::<Transform>()
            .register::<Position>()
            .register::<Rotation>()
            .register::<Velocity>()
            .build();
        world.extend((0..n).map(|_| std_entity()));
        world
    }

    instance!(build, |w: &::sparsey::World| {
        let mut count = 0;
        w.for_each::<(&Transform, &Position, &Rotation, &Velocity)>(|_| count += 1);
        count
    });
}

pub mod specs {
    use super::*;
    use ::specs::{Entities, World, WorldExt, WriteStorage};

    pub fn build(n: usize) -> World {
        let mut world = World::new();
        world.register::<Transform>();
        world.register::<Position>();
        world.register::<Rotation>();
        world.register::<Velocity>();
        {
            let (entities, mut t, mut p, mut r, mut v) = world.system_data::<(
                Entities,
                WriteStorage<Transform>,
                WriteStorage<Position>,
                WriteStorage<Rotation>,
                WriteStorage<Velocity>,
            )>();
            for _ in 0..n {
                let (ct, cp, cr, cv) = std_entity();
                entities
                    .build_entity()
                    .with(ct, &mut t)
                    .with(cp, &mut p)
                    .with(cr, &mut r)
                    .with(cv, &mut v)
                    .build();
            }
        }
        world
    }

    instance!(build, |w: &World| {
        use ::specs::{Join, ReadStorage};
        let (t, p, r, v) = w.system_data::<(
            ReadStorage<Transform>,
            ReadStorage<Position>,
            ReadStorage<Rotation>,
            ReadStorage<Velocity>,
        )>();
        (&t, &p, &r, &v).join().count()
    });
}

pub mod raw {
    use super::*;

    /// Struct-of-arrays: one `Vec` per component.
    pub struct Columns {
        pub transforms: Vec<Transform>,
        pub positions: Vec<Position>,
        pub rotations: Vec<Rotation>,
        pub velocities: Vec<Velocity>,
    }

    pub fn build(n: usize) -> Columns {
        Columns {
            transforms: (0..n).map(|_| std_entity().0).collect(),
            positions: (0..n).map(|_| std_entity().1).collect(),
            rotations: (0..n).map(|_| std_entity().2).collect(),
            velocities: (0..n).map(|_| std_entity().3).collect(),
        }
    }

    instance!(build, |c: &Columns| c
        .velocities
        .len()
        .min(c.positions.len()));
}
