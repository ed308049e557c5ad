//! `get_mut_tracked`: `n` entities (100,000) with `(Position, Velocity)`;
//! timed: `n / 10` (10,000) writes of `Position` by handle, in a random
//! order (a fixed-seed shuffle made in setup: distinct entities), each
//! adding 1 to `x`: the same small write for all, and what lets the tests
//! see the writes happened.
//!
//! What a write by handle costs with the component tracked (issue 30,
//! target 2: at most [`TRACKED_GET_MUT_AT_MOST`] times the untracked
//! time), as a system that changes a few values a frame does it:
//!
//! - `typed_ecs tracked`: a world with `tracked (Position);`,
//!   `world.get_mut::<Position>(e)` (each hand-out is a change, recorded in
//!   the change log), then `clear_changes()` once a run, as a game that
//!   tracks does once a frame.
//! - `typed_ecs`: the same world without `tracked`.
//! - `bevy`: a `QueryState<&mut Position>` made in setup; in the run,
//!   `state.query_mut(&mut world)` once, then `query.get_mut(e)` (bevy
//!   always tracks: the write sets the value's change tick).
//! - `raw`: a `Vec<Position>` alone, indexed by the handles (`usize`s),
//!   no tracking.
//! - `raw + list`, `raw + tick` and `raw + tick column`: `raw` with the
//!   least record of each write a change detection can keep, to show what
//!   the target leaves for any design. `raw + list` appends each written
//!   handle to a list (cleared once a run, as `clear_changes` is): what a
//!   visit of the changed values in O(changed) needs and no more (no
//!   stamp, a value written twice listed twice). `raw + tick` stores the
//!   run's tick in a `u32` in the value's own struct (its cache line),
//!   which a visit must scan, every value. `raw + tick column` stores it
//!   in a second `Vec` beside the values (bevy's layout, without its
//!   lookup), scanned the same way.
//! - `specs` and `specs Flagged`: a peer whose visit of the changes is
//!   O(changed), as typed_ecs's is, untracked and tracked. `specs`: a
//!   `WriteStorage<Position>` (a `VecStorage`) fetched once a run, then
//!   `get_mut(e)`. `specs Flagged`: the same over a `FlaggedStorage`
//!   (`changed_iter`'s `FlaggedPosition`), whose `get_mut` pushes a
//!   `Modified` event to the storage's channel; once a run its reader,
//!   registered after the spawns, is moved past the run's events (counted,
//!   not examined), as a game that reads its changes does once a frame:
//!   what `clear_changes` is to typed_ecs, and the list's clear to
//!   `raw + list`.

use crate::components::*;
use crate::rng::shuffled;
use crate::scenarios::changed_iter::{
    BEVY, RAW, SPECS_FLAGGED, TYPED_ECS_TRACKED, TYPED_ECS_UNTRACKED,
};
use crate::{Check, Impl, Instance, Scenario};

/// The target: a tracked `get_mut` write takes at most this factor of the
/// untracked one's time.
pub const TRACKED_GET_MUT_AT_MOST: f64 = 1.25;

/// `raw` that appends each written handle to a list.
pub const RAW_LIST: &str = "raw + list";

/// `raw` that stores a change tick in each written value's own struct.
pub const RAW_TICK: &str = "raw + tick";

/// `raw` that stores a change tick for each written value in a second
/// `Vec`.
pub const RAW_TICK_COLUMN: &str = "raw + tick column";

/// specs with `Position` in a plain `VecStorage`.
pub const SPECS: &str = "specs";

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "get_mut_tracked",
    what: "10,000 writes of Position by handle, in random order, among 100,000 entities with \
           (Position, Velocity), with Position tracked and not",
    sizes: &[100_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: &[
        Impl {
            name: TYPED_ECS_TRACKED,
            setup: |n| Box::new(tracked::setup(n)),
        },
        Impl {
            name: TYPED_ECS_UNTRACKED,
            setup: |n| Box::new(untracked::setup(n)),
        },
        Impl {
            name: BEVY,
            setup: |n| Box::new(bevy::setup(n)),
        },
        Impl {
            name: RAW,
            setup: |n| Box::new(raw::setup(n)),
        },
        Impl {
            name: RAW_LIST,
            setup: |n| Box::new(raw_list::setup(n)),
        },
        Impl {
            name: RAW_TICK,
            setup: |n| Box::new(raw_tick::setup(n)),
        },
        Impl {
            name: RAW_TICK_COLUMN,
            setup: |n| Box::new(raw_tick_column::setup(n)),
        },
        Impl {
            name: SPECS,
            setup: |n| Box::new(specs::setup(n)),
        },
        Impl {
            name: SPECS_FLAGGED,
            setup: |n| Box::new(specs_flagged::setup(n)),
        },
    ],
    notes: "Each row divided by the untracked typed_ecs world's time. bevy always tracks. \
            `raw + list`, `raw + tick` and `raw + tick column` are `raw` with the least record \
            of each write: its handle appended to a list, or the run's tick stored in the \
            value's own struct, or in a second `Vec`. `specs` and `specs Flagged`: specs \
            untracked and with a `FlaggedStorage`, whose writes push events that a reader \
            is moved past once a run.",
};

/// The spawn indices to write: the first tenth of a fixed shuffle.
fn picks(n: usize) -> Vec<usize> {
    let mut order = shuffled(n);
    order.truncate(n / 10);
    order
}

/// The `i`-th entity's components.
fn spawned(i: usize) -> (Position, Velocity) {
    (
        Position([i as f32, 0.0, 0.0]),
        Velocity([1.0, (i % 7) as f32, 0.0]),
    )
}

/// The write: one more on `x`.
fn write(p: &mut Position) {
    p.0[0] += 1.0;
}

fn check<'a>(positions: impl Iterator<Item = &'a Position>) -> Check {
    let (count, sum) = positions.fold((0, 0.0), |(n, s), p| (n + 1, s + f64::from(p.0[0])));
    vec![("entities", count as f64), ("sum of x", sum)]
}

/// typed_ecs's implementation over a world that declares `$tracked`
/// (nothing, or `tracked (Position);`): the same code, so the rows differ
/// only by tracking.
macro_rules! typed_ecs_impl {
    ($($tracked:tt)*) => {
        use super::*;
        use ::typed_ecs::prelude::*;

        world! { pub struct MoveWorld<Position, Velocity>; $($tracked)* }

        pub struct State {
            world: MoveWorld,
            handles: Vec<Entity>,
        }

        pub fn setup(n: usize) -> State {
            let mut world = MoveWorld::new();
            let all: Vec<Entity> = (0..n).map(|i| world.spawn_with(spawned(i))).collect();
            State {
                world,
                handles: picks(n).into_iter().map(|i| all[i]).collect(),
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                for &e in &self.handles {
                    write(self.world.get_mut::<Position>(e).unwrap());
                }
                self.world.clear_changes();
            }
            fn check(&self) -> Check {
                check(self.world.position.values().iter())
            }
        }
    };
}

pub mod tracked {
    typed_ecs_impl!(tracked (Position););
}

pub mod untracked {
    typed_ecs_impl!();
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{entity::Entity, query::QueryState, world::World};

    pub struct State {
        world: World,
        query: QueryState<&'static mut Position>,
        handles: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<Entity> = (0..n).map(|i| world.spawn(spawned(i)).id()).collect();
        let query = world.query::<&mut Position>();
        State {
            world,
            query,
            handles: picks(n).into_iter().map(|i| all[i]).collect(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut query = self.query.query_mut(&mut self.world);
            for &e in &self.handles {
                write(&mut query.get_mut(e).unwrap());
            }
            self.world.clear_trackers();
        }
        fn check(&self) -> Check {
            let mut query = self.world.try_query::<&Position>().unwrap();
            check(query.iter(&self.world))
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        pub(super) positions: Vec<Position>,
        /// The handles: indices into `positions`.
        pub(super) handles: Vec<usize>,
    }

    pub fn setup(n: usize) -> State {
        State {
            positions: (0..n).map(|i| spawned(i).0).collect(),
            handles: picks(n),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for &e in &self.handles {
                write(&mut self.positions[e]);
            }
        }
        fn check(&self) -> Check {
            check(self.positions.iter())
        }
    }
}

pub mod raw_list {
    use super::*;

    pub struct State {
        raw: raw::State,
        /// The handles written since the last run ended: what a visit of
        /// the changed values would walk.
        written: Vec<usize>,
    }

    pub fn setup(n: usize) -> State {
        State {
            raw: raw::setup(n),
            written: Vec::new(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let raw = &mut self.raw;
            for &e in &raw.handles {
                write(&mut raw.positions[e]);
                self.written.push(e);
            }
            // The run's changes seen (by nobody here: kept from being
            // optimised away); the list starts again, its room kept.
            std::hint::black_box(&self.written);
            self.written.clear();
        }
        fn check(&self) -> Check {
            self.raw.check()
        }
    }
}

pub mod raw_tick {
    use super::*;

    /// A position and, in the same struct, the tick of the run that last
    /// wrote it.
    struct Ticked {
        position: Position,
        tick: u32,
    }

    pub struct State {
        values: Vec<Ticked>,
        handles: Vec<usize>,
        /// This run's tick.
        tick: u32,
    }

    pub fn setup(n: usize) -> State {
        let raw = raw::setup(n);
        State {
            values: raw
                .positions
                .into_iter()
                .map(|position| Ticked { position, tick: 0 })
                .collect(),
            handles: raw.handles,
            tick: 0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.tick = self.tick.wrapping_add(1);
            for &e in &self.handles {
                let value = &mut self.values[e];
                write(&mut value.position);
                value.tick = self.tick;
            }
        }
        fn check(&self) -> Check {
            check(self.values.iter().map(|value| &value.position))
        }
    }
}

pub mod raw_tick_column {
    use super::*;

    pub struct State {
        raw: raw::State,
        /// Beside each position, in a second `Vec`, the tick of the run
        /// that last wrote it.
        ticks: Vec<u32>,
        /// This run's tick.
        tick: u32,
    }

    pub fn setup(n: usize) -> State {
        State {
            raw: raw::setup(n),
            ticks: vec![0; n],
            tick: 0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.tick = self.tick.wrapping_add(1);
            let raw = &mut self.raw;
            for &e in &raw.handles {
                write(&mut raw.positions[e]);
                self.ticks[e] = self.tick;
            }
        }
        fn check(&self) -> Check {
            self.raw.check()
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Entity, Join, World, WorldExt};

    pub struct State {
        world: World,
        handles: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<Position>();
        world.register::<Velocity>();
        let all: Vec<Entity> = (0..n)
            .map(|i| {
                let (p, v) = spawned(i);
                world.create_entity().with(p).with(v).build()
            })
            .collect();
        State {
            world,
            handles: picks(n).into_iter().map(|i| all[i]).collect(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut positions = self.world.write_storage::<Position>();
            for &e in &self.handles {
                write(positions.get_mut(e).unwrap());
            }
        }
        fn check(&self) -> Check {
            check(self.world.read_storage::<Position>().join())
        }
    }
}

pub mod specs_flagged {
    use super::*;
    use crate::scenarios::changed_iter::specs::{flagged_world, FlaggedPosition};
    use ::specs::storage::ComponentEvent;
    use ::specs::{Entity, Join, ReaderId, World, WorldExt};

    pub struct State {
        world: World,
        /// Where this reader left off in the storage's event channel.
        reader: ReaderId<ComponentEvent>,
        handles: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let (world, all, reader) = flagged_world((0..n).map(spawned));
        State {
            world,
            reader,
            handles: picks(n).into_iter().map(|i| all[i]).collect(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut positions = self.world.write_storage::<FlaggedPosition>();
            for &e in &self.handles {
                write(&mut positions.get_mut(e).unwrap().0);
            }
            // The reader moved past the run's events (what `clear_changes`
            // is to typed_ecs): the channel keeps events until its readers
            // pass them.
            let read = positions.channel().read(&mut self.reader).count();
            std::hint::black_box(read);
        }
        fn check(&self) -> Check {
            check(
                self.world
                    .read_storage::<FlaggedPosition>()
                    .join()
                    .map(|p| &p.0),
            )
        }
    }
}
