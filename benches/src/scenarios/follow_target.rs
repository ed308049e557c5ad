//! `follow_target`: `n` entities (10,000) with `(Position, Velocity,
//! Target)`, each `Target` holding the handle of another entity (a
//! fixed-seed shuffle taken as one cycle: every entity follows the next in
//! it, so each follows another and is followed by one); timed: a
//! target-following system, a join that looks up a random entity per
//! item: for each follower, read its target's `Position` and set its own
//! `Velocity` towards it ([`follow`]: an eighth of the gap). Positions do
//! not move, so every run does the same work.
//!
//! - typed_ecs: the guide's pattern for reading other entities in a loop
//!   ("Queries", pattern 1): `let positions = &world.position;` then
//!   `join((&mut world.velocity, &world.position, &world.target))
//!   .for_each(..)` with `positions.get(target)`.
//! - hecs: `world.view::<&Position>()` for the targets, and
//!   `world.query::<(&mut Velocity, &Position, &Target)>()` in a `for`
//!   loop (both borrow the world shared; hecs checks the column borrows
//!   at run time).
//! - bevy: a `SystemState<(Query<(&mut Velocity, &Position, &Target)>,
//!   Query<&Position>)>` made in setup (what a system with those two
//!   parameters keeps), `iter_mut().for_each(..)` with `positions.get(..)`.
//! - shipyard: `world.run` with `ViewMut<Velocity>`, `View<Position>` and
//!   `View<Target>`, `(&mut v, &p, &t).iter().for_each(..)` with
//!   `(&p).get(..)`.
//! - sparsey: `world.borrow::<Position>()` for the targets, and
//!   `world.for_each::<(&mut Velocity, &Position, &Target)>(..)`.
//! - specs: `(&mut WriteStorage<Velocity>, &ReadStorage<Position>,
//!   &ReadStorage<Target>).join()` with `positions.get(..)`.
//! - raw: three `Vec`s, the targets as indices (no generation check).
//!
//! Every crate spawns `(Position, Velocity)` first and adds the `Target`s
//! after (a handle exists only once its entity does), in spawn order.

use super::sum;
use crate::components::*;
use crate::rng::shuffled;
use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "follow_target",
    what: "velocity = (target's position − position) / 8 for 10,000 entities with (Position, \
           Velocity, Target), each target another entity in random order",
    sizes: &[10_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: crate::impls![typed_ecs, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "Nobody declares a group: typed_ecs's join and sparsey's `for_each` are driven by one \
            storage and find each follower in the other two (at the driver's slot: the storages \
            list the entities in the same order); hecs and bevy keep the three components in one \
            archetype or table. Each target's position is one lookup by handle, in random order.",
};

/// Each entity's target, by spawn index: the entity after it in a
/// fixed-seed shuffle, the last one's the first.
fn target_indices(n: usize) -> Vec<usize> {
    let order = shuffled(n);
    let mut targets = vec![0; n];
    for (k, &i) in order.iter().enumerate() {
        targets[i] = order[(k + 1) % n];
    }
    targets
}

/// `(follower, target)` for every handle of `all`, in spawn order.
fn pairs<H: Copy>(all: &[H]) -> Vec<(H, H)> {
    target_indices(all.len())
        .into_iter()
        .zip(all)
        .map(|(t, &e)| (e, all[t]))
        .collect()
}

/// Number of velocities, their sum and the sum of their absolute values
/// (the targets are a permutation, so the plain sum is about zero).
fn check<'a>(velocities: impl IntoIterator<Item = &'a Velocity>) -> Check {
    let velocities: Vec<&Velocity> = velocities.into_iter().collect();
    vec![
        ("velocities", velocities.len() as f64),
        ("velocity sum", sum(&velocities, |v| v.0.iter().sum())),
        (
            "velocity absolute sum",
            sum(&velocities, |v| v.0.iter().map(|c| c.abs()).sum()),
        ),
    ]
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::join;
    use ::typed_ecs::prelude::*;

    world! {
        pub struct FollowWorld {
            position: Position,
            velocity: Velocity,
            target: Target<Entity>,
        }
    }

    pub struct State(FollowWorld);

    pub fn setup(n: usize) -> State {
        let mut world = FollowWorld::new();
        let all: Vec<Entity> = (0..n).map(|i| world.spawn_with(moving_entity(i))).collect();
        for (e, t) in pairs(&all) {
            world.add(e, Target(t));
        }
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            let world = &mut self.0;
            let positions = &world.position;
            join((&mut world.velocity, &world.position, &world.target))
                .for_each(|_, (v, p, t)| follow(v, p, positions.get(t.0).unwrap()));
        }
        fn check(&self) -> Check {
            check(self.0.velocity.values())
        }
    }
}

pub mod hecs {
    use super::*;
    use ::hecs::{Entity, World};

    pub struct State(World);

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<Entity> = world.spawn_batch((0..n).map(moving_entity)).collect();
        for (e, t) in pairs(&all) {
            world.insert_one(e, Target(t)).unwrap();
        }
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            let positions = self.0.view::<&Position>();
            for (v, p, t) in self
                .0
                .query::<(&mut Velocity, &Position, &Target<Entity>)>()
                .iter()
            {
                follow(v, p, positions.get(t.0).unwrap());
            }
        }
        fn check(&self) -> Check {
            check(self.0.query::<&Velocity>().iter())
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{
        entity::Entity,
        system::{Query, SystemState},
        world::World,
    };

    type Follower = (
        &'static mut Velocity,
        &'static Position,
        &'static Target<Entity>,
    );
    type Params = (
        Query<'static, 'static, Follower>,
        Query<'static, 'static, &'static Position>,
    );

    pub struct State {
        world: World,
        system: SystemState<Params>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<Entity> = world.spawn_batch((0..n).map(moving_entity)).collect();
        for (e, t) in pairs(&all) {
            world.entity_mut(e).insert(Target(t));
        }
        let system = SystemState::new(&mut world);
        State { world, system }
    }

    impl Instance for State {
        fn run(&mut self) {
            let (mut followers, positions) = self.system.get_mut(&mut self.world).unwrap();
            followers
                .iter_mut()
                .for_each(|(mut v, p, t)| follow(&mut v, p, positions.get(t.0).unwrap()));
        }
        fn check(&self) -> Check {
            let mut query = self.world.try_query::<&Velocity>().unwrap();
            check(query.iter(&self.world))
        }
    }
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{EntityId, Get, IntoIter, View, ViewMut, World};

    pub struct State(World);

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<EntityId> = world.bulk_add_entity((0..n).map(moving_entity)).collect();
        for (e, t) in pairs(&all) {
            world.add_component(e, Target(t));
        }
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.0.run(
                |mut v: ViewMut<Velocity>, p: View<Position>, t: View<Target<EntityId>>| {
                    (&mut v, &p, &t)
                        .iter()
                        .for_each(|(v, here, t)| follow(v, here, (&p).get(t.0).unwrap()));
                },
            );
        }
        fn check(&self) -> Check {
            self.0.run(|v: View<Velocity>| check(v.iter()))
        }
    }
}

pub mod sparsey {
    use super::*;
    use ::sparsey::{Entity, World};

    pub struct State(World);

    pub fn setup(n: usize) -> State {
        let mut world = World::builder()
            .register::<Position>()
            .register::<Velocity>()
            .register::<Target<Entity>>()
            .build();
        let all = world.extend((0..n).map(moving_entity)).to_vec();
        for (e, t) in pairs(&all) {
            world.insert(e, (Target(t),));
        }
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            let positions = self.0.borrow::<Position>();
            self.0
                .for_each::<(&mut Velocity, &Position, &Target<Entity>)>(|(v, p, t)| {
                    follow(v, p, positions.get(t.0).unwrap());
                });
        }
        fn check(&self) -> Check {
            let mut velocities = Vec::new();
            self.0.for_each::<&Velocity>(|v| velocities.push(*v));
            check(&velocities)
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Entity, Join, ReadStorage, World, WorldExt, WriteStorage};

    pub struct State(World);

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<Position>();
        world.register::<Velocity>();
        world.register::<Target<Entity>>();
        let all: Vec<Entity> = (0..n)
            .map(|i| {
                let (p, v) = moving_entity(i);
                world.create_entity().with(p).with(v).build()
            })
            .collect();
        {
            let mut targets = world.write_storage::<Target<Entity>>();
            for (e, t) in pairs(&all) {
                targets.insert(e, Target(t)).unwrap();
            }
        }
        State(world)
    }

    impl Instance for State {
        fn run(&mut self) {
            let (mut v, p, t) = self.0.system_data::<(
                WriteStorage<Velocity>,
                ReadStorage<Position>,
                ReadStorage<Target<Entity>>,
            )>();
            (&mut v, &p, &t)
                .join()
                .for_each(|(v, here, t)| follow(v, here, p.get(t.0).unwrap()));
        }
        fn check(&self) -> Check {
            let v = self.0.read_storage::<Velocity>();
            check((&v).join())
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        positions: Vec<Position>,
        velocities: Vec<Velocity>,
        targets: Vec<usize>,
    }

    pub fn setup(n: usize) -> State {
        State {
            positions: (0..n).map(|i| moving_entity(i).0).collect(),
            velocities: (0..n).map(|i| moving_entity(i).1).collect(),
            targets: target_indices(n),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let positions = &self.positions;
            for ((v, p), &t) in self.velocities.iter_mut().zip(positions).zip(&self.targets) {
                follow(v, p, &positions[t]);
            }
        }
        fn check(&self) -> Check {
            check(&self.velocities)
        }
    }
}
