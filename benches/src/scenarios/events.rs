//! `events`: bevy's own event benchmark shape (issue 27): per run, `n`
//! messages (10,000) of one event type are sent, then read by 3 readers,
//! each summing a field, and the queue is told the readers have passed
//! them (so it stays bounded run after run).
//!
//! - typed_ecs: a world declaring `events { hits: Hit }`; `world.send(..)`
//!   per message, then three `EventCursor`s each `read_mut` (which tells
//!   the log where the cursor stands, so what all three passed goes).
//! - bevy: a `Messages<Hit>` resource, `world.write_message(..)` per
//!   message, three `MessageCursor`s each `read`, then `update()` once (its
//!   double buffer keeps a message for two updates).
//! - raw: a `Vec::push` per message, three walks of the slice, `clear()`:
//!   the floor (a queue with no reader bookkeeping at all).

use std::hint::black_box;

use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "events",
    what: "10,000 messages of one event type sent, then read by 3 readers (bevy's event \
           benchmark shape)",
    sizes: &[10_000],
    size_note: " messages",
    test_size: 100,
    fresh_state: false,
    impls: crate::impls![typed_ecs, bevy, raw],
    notes: "typed_ecs sends through `world.send` and reads with three hand-taken `EventCursor`s; \
            bevy writes through `World::write_message` into `Messages` and reads with three \
            `MessageCursor`s, then `update`s; raw pushes to a `Vec`, walks it three times and \
            clears it. hecs, shipyard, sparsey and specs have no events of their own (specs' \
            `shrev` is a separate crate).",
};

/// One message: a target and an amount.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    pub(crate) target: u32,
    pub(crate) amount: f32,
}

/// The `i`th message of a run.
pub(crate) fn hit(i: usize) -> Hit {
    Hit {
        target: i as u32,
        amount: (i % 7) as f32,
    }
}

/// What the readers summed over all runs, for the check.
fn check(total: f64, runs: u64) -> Check {
    vec![("read sum", total), ("runs", runs as f64)]
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;
    use ::typed_ecs::EventCursor;

    pub struct Pos;

    world! {
        pub struct EventWorld<Pos>;
        events { hits: Hit }
    }

    pub struct State {
        world: EventWorld,
        readers: [EventCursor<Hit>; 3],
        n: usize,
        total: f64,
        runs: u64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = EventWorld::new();
        let readers = [
            world.hits.cursor(),
            world.hits.cursor(),
            world.hits.cursor(),
        ];
        State {
            world,
            readers,
            n,
            total: 0.0,
            runs: 0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for i in 0..self.n {
                self.world.send(hit(i));
            }
            for reader in &mut self.readers {
                let sum: f32 = reader
                    .read_mut(&mut self.world.hits)
                    .map(|h| h.amount + h.target as f32 * 0.0)
                    .sum();
                self.total += f64::from(black_box(sum));
            }
            self.runs += 1;
        }
        fn check(&self) -> Check {
            check(self.total, self.runs)
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::message::{Message, MessageCursor, Messages};
    use ::bevy_ecs::world::World;

    #[derive(Clone, Copy)]
    pub struct BevyHit(pub(crate) Hit);

    impl Message for BevyHit {}

    pub struct State {
        world: World,
        readers: [MessageCursor<BevyHit>; 3],
        n: usize,
        total: f64,
        runs: u64,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.init_resource::<Messages<BevyHit>>();
        let messages = world.resource::<Messages<BevyHit>>();
        let readers = [
            messages.get_cursor(),
            messages.get_cursor(),
            messages.get_cursor(),
        ];
        State {
            world,
            readers,
            n,
            total: 0.0,
            runs: 0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for i in 0..self.n {
                self.world.write_message(BevyHit(hit(i)));
            }
            let messages = self.world.resource::<Messages<BevyHit>>();
            for reader in &mut self.readers {
                let sum: f32 = reader
                    .read(messages)
                    .map(|h| h.0.amount + h.0.target as f32 * 0.0)
                    .sum();
                self.total += f64::from(black_box(sum));
            }
            self.world.resource_mut::<Messages<BevyHit>>().update();
            self.runs += 1;
        }
        fn check(&self) -> Check {
            check(self.total, self.runs)
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        queue: Vec<Hit>,
        n: usize,
        total: f64,
        runs: u64,
    }

    pub fn setup(n: usize) -> State {
        State {
            queue: Vec::new(),
            n,
            total: 0.0,
            runs: 0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for i in 0..self.n {
                self.queue.push(hit(i));
            }
            for _ in 0..3 {
                let sum: f32 = self
                    .queue
                    .iter()
                    .map(|h| h.amount + h.target as f32 * 0.0)
                    .sum();
                self.total += f64::from(black_box(sum));
            }
            self.queue.clear();
            self.runs += 1;
        }
        fn check(&self) -> Check {
            check(self.total, self.runs)
        }
    }
}
