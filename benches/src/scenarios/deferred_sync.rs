//! `deferred_sync`: `n` entities (10,000) with `A`; timed: queue `n`
//! deferred changes, one per entity (a third add `B`, a third remove `A`,
//! a third despawn), then apply them at a sync point. Setup (a fresh world
//! and an empty queue) is not timed; every run needs a fresh one.
//!
//! - typed_ecs: `add_deferred`, `remove_deferred::<A>` and
//!   `despawn_deferred` on the world, then `finalize_updates()`.
//! - hecs: a `CommandBuffer`: `insert_one`, `remove_one::<A>`, `despawn`,
//!   then `run_on(&mut world)`.
//! - bevy: `Commands` over a `CommandQueue`: `entity(e).insert(B)`,
//!   `.remove::<A>()`, `.despawn()`, then `queue.apply(&mut world)`.
//! - specs: the `LazyUpdate` resource (`insert`, `remove::<A>`) and
//!   `Entities::delete` (deferred until `maintain`), then
//!   `world.maintain()`.
//! - shipyard and sparsey: no deferred-change facility (n/a).
//! - raw: a `Vec` of an op enum, applied in a loop to `Vec<Option<_>>`
//!   columns and an alive flag.

use crate::components::*;
use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "deferred_sync",
    what: "queue 10,000 deferred changes (⅓ add B, ⅓ remove A, ⅓ despawn) on 10,000 entities with A, then apply them",
    sizes: &[10_000],
    size_note: "",
    test_size: 300,
    fresh_state: true,
    impls: crate::impls![typed_ecs, hecs, bevy, specs, raw],
    notes: "shipyard and sparsey have no deferred add/remove/despawn: n/a.",
};

/// What happens to the `i`-th entity.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Change {
    AddB,
    RemoveA,
    Despawn,
}

fn change(i: usize) -> Change {
    match i % 3 {
        0 => Change::AddB,
        1 => Change::RemoveA,
        _ => Change::Despawn,
    }
}

fn a(i: usize) -> A {
    A((i % 8) as f32)
}

fn b(i: usize) -> B {
    B((i % 16) as f32)
}

fn check<'a>(
    alive: usize,
    a: impl IntoIterator<Item = &'a A>,
    b: impl IntoIterator<Item = &'a B>,
) -> Check {
    let a: Vec<f32> = a.into_iter().map(|a| a.0).collect();
    let b: Vec<f32> = b.into_iter().map(|b| b.0).collect();
    vec![
        ("alive", alive as f64),
        ("with A", a.len() as f64),
        ("with B", b.len() as f64),
        ("sum of A", a.iter().map(|&x| f64::from(x)).sum()),
        ("sum of B", b.iter().map(|&x| f64::from(x)).sum()),
    ]
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! { pub struct AbWorld<A, B>; }

    pub struct State {
        world: AbWorld,
        entities: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = AbWorld::new();
        let entities = (0..n).map(|i| world.spawn_with((a(i),))).collect();
        State { world, entities }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate() {
                match change(i) {
                    Change::AddB => self.world.add_deferred(e, b(i)),
                    Change::RemoveA => {
                        self.world.remove_deferred::<A>(e);
                    }
                    Change::Despawn => {
                        self.world.despawn_deferred(e);
                    }
                }
            }
            self.world.finalize_updates();
        }
        fn check(&self) -> Check {
            check(
                self.world.entity_count(),
                self.world.a.values(),
                self.world.b.values(),
            )
        }
    }
}

pub mod hecs {
    use super::*;
    use ::hecs::{CommandBuffer, Entity, World};

    pub struct State {
        world: World,
        entities: Vec<Entity>,
        commands: CommandBuffer,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let entities = world.spawn_batch((0..n).map(|i| (a(i),))).collect();
        State {
            world,
            entities,
            commands: CommandBuffer::new(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate() {
                match change(i) {
                    Change::AddB => self.commands.insert_one(e, b(i)),
                    Change::RemoveA => self.commands.remove_one::<A>(e),
                    Change::Despawn => self.commands.despawn(e),
                }
            }
            self.commands.run_on(&mut self.world);
        }
        fn check(&self) -> Check {
            let mut qa = self.world.query::<&A>();
            let mut qb = self.world.query::<&B>();
            check(self.world.len() as usize, qa.iter(), qb.iter())
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{entity::Entity, system::Commands, world::CommandQueue, world::World};

    pub struct State {
        world: World,
        entities: Vec<Entity>,
        queue: CommandQueue,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let entities = world.spawn_batch((0..n).map(|i| (a(i),))).collect();
        State {
            world,
            entities,
            queue: CommandQueue::default(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut commands = Commands::new(&mut self.queue, &self.world);
            for (i, &e) in self.entities.iter().enumerate() {
                match change(i) {
                    Change::AddB => {
                        commands.entity(e).insert(b(i));
                    }
                    Change::RemoveA => {
                        commands.entity(e).remove::<A>();
                    }
                    Change::Despawn => commands.entity(e).despawn(),
                }
            }
            self.queue.apply(&mut self.world);
        }
        fn check(&self) -> Check {
            let mut qa = self.world.try_query::<&A>().unwrap();
            let mut qb = self.world.try_query::<&B>();
            let b: Vec<&B> = qb
                .as_mut()
                .map_or(Vec::new(), |q| q.iter(&self.world).collect());
            check(
                super::super::bevy_alive(&self.world),
                qa.iter(&self.world),
                b,
            )
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Entity, Join, LazyUpdate, World, WorldExt};

    pub struct State {
        world: World,
        entities: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<A>();
        world.register::<B>();
        let entities = (0..n)
            .map(|i| world.create_entity().with(a(i)).build())
            .collect();
        State { world, entities }
    }

    impl Instance for State {
        fn run(&mut self) {
            {
                let lazy = self.world.read_resource::<LazyUpdate>();
                let entities = self.world.entities();
                for (i, &e) in self.entities.iter().enumerate() {
                    match change(i) {
                        Change::AddB => lazy.insert(e, b(i)),
                        Change::RemoveA => lazy.remove::<A>(e),
                        Change::Despawn => entities.delete(e).unwrap(),
                    }
                }
            }
            self.world.maintain();
        }
        fn check(&self) -> Check {
            let (sa, sb) = (
                self.world.read_storage::<A>(),
                self.world.read_storage::<B>(),
            );
            check(
                self.world.entities().join().count(),
                (&sa).join(),
                (&sb).join(),
            )
        }
    }
}

pub mod raw {
    use super::*;

    /// One queued change.
    enum Op {
        AddB(usize, B),
        RemoveA(usize),
        Despawn(usize),
    }

    pub struct State {
        alive: Vec<bool>,
        a: Vec<Option<A>>,
        b: Vec<Option<B>>,
        /// The handles: indices into the columns.
        entities: Vec<usize>,
        ops: Vec<Op>,
    }

    pub fn setup(n: usize) -> State {
        State {
            alive: vec![true; n],
            a: (0..n).map(|i| Some(a(i))).collect(),
            b: vec![None; n],
            entities: (0..n).collect(),
            ops: Vec::new(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate() {
                self.ops.push(match change(i) {
                    Change::AddB => Op::AddB(e, b(i)),
                    Change::RemoveA => Op::RemoveA(e),
                    Change::Despawn => Op::Despawn(e),
                });
            }
            for op in self.ops.drain(..) {
                match op {
                    Op::AddB(e, value) => {
                        if self.alive[e] && self.b[e].is_none() {
                            self.b[e] = Some(value);
                        }
                    }
                    Op::RemoveA(e) => self.a[e] = None,
                    Op::Despawn(e) => {
                        self.alive[e] = false;
                        self.a[e] = None;
                        self.b[e] = None;
                    }
                }
            }
        }
        fn check(&self) -> Check {
            check(
                self.alive.iter().filter(|&&alive| alive).count(),
                self.a.iter().flatten(),
                self.b.iter().flatten(),
            )
        }
    }
}
