//! `changed_iter` and `changed_frame`: `n` entities (100,000) with
//! `(Position, Velocity)`, `Position` tracked. A frame writes 1% of the
//! entities (1,000), position += velocity ([`integrate`]) through a mutable
//! lookup by handle, then visits the positions that changed and sums their
//! `x`, then starts the next frame's view afresh. The writes of each frame
//! are its slice of a fixed shuffle ([`shuffled`]) cut into 100 frames: the
//! entities of one frame are distinct, and every entity is written once
//! every 100 frames.
//!
//! `changed_iter` times the visit alone: finding and reading what changed,
//! and starting afresh. The frame's writes come before each run, off the
//! clock ([`Instance::prepare`]), so the harness times each run on its own.
//! `changed_frame` times the whole frame, the writes too: the same for
//! every implementation but for what tracking adds to each write.
//!
//! - `typed_ecs Changed`: a world declaring `tracked (Position);`. Writes
//!   with `world.position.get_mut(e)`, visits with
//!   `world.query::<Changed<&Position>>().for_each(..)` (O(changed): the
//!   change log drives the walk), then `world.clear_changes()`.
//! - `typed_ecs full scan`: what a game without change detection writes
//!   to find the same entities: it keeps each position as last seen in a
//!   component of its own, `LastSeen`, and every frame compares all
//!   100,000 positions with it (`query_mut::<(&Position, &mut LastSeen)>`),
//!   visiting the ones that differ and updating their copy. Its world does
//!   not track `Position` (a game that scans does not declare it tracked,
//!   so its writes go without the log), and groups `(Position, LastSeen)`
//!   so that the scan is a walk of two packed arrays: the fastest scan it
//!   can write, which makes the ratio against `typed_ecs Changed`
//!   conservative.
//! - `bevy Changed`: writes through a `QueryState<(&mut Position,
//!   &Velocity)>` (`get_mut(e)`), visits with a `QueryState<&Position,
//!   Changed<Position>>` (bevy always tracks: its filter reads the change
//!   tick of every row of the table), then `world.clear_trackers()`.
//!   Both query states are made in setup, as a system keeps them.
//! - `specs Flagged`: what specs' docs show for finding what changed
//!   (`FlaggedStorage`'s example): `Position` in a `FlaggedStorage<_,
//!   VecStorage<_>>` (`VecStorage`, as every other specs implementation
//!   here stores its components; through a newtype, [`FlaggedPosition`],
//!   since the shared `Position` is a `VecStorage` component already),
//!   and a `ReaderId<ComponentEvent>` registered in setup after the spawns
//!   (`storage.register_reader()`: the first frame starts after them).
//!   Writes with `WriteStorage::get_mut(e)`, which puts a `Modified` event
//!   on the storage's channel. The visit clears its `BitSet` (as the docs
//!   do, first), reads the channel from its reader
//!   (`storage.channel().read(&mut reader)`), adds the index of each
//!   `ComponentEvent::Modified` to the `BitSet`, then joins `(&positions,
//!   &modified)`. Reading the channel is specs' "afresh": the reader moves
//!   past what it read. Both borrows go through `system_data`, as a
//!   system's run would.
//! - `raw dirty list`: `Vec`s indexed by the handles (`usize`s), and a
//!   dirty list kept by hand: a write pushes its index to a list unless
//!   a `Vec<bool>` says it is there already; the frame visits the list,
//!   then clears it and the flags it set.
//!
//! Every implementation ends a frame having visited each written entity
//! once; the tests check that they all see the same entities and sums.
//!
//! `simple_iter_tracked`: [`simple_iter`](super::simple_iter)'s work over a
//! world whose written component, `Position`, is tracked, against the same
//! work untracked: what tracking costs a system that writes every value.
//!
//! - `typed_ecs tracked`: `simple_iter`'s world with `tracked (Position);`
//!   and its group `(Position, Velocity)`;
//!   `query_mut::<(&mut Position, &Velocity)>().for_each(..)`, then
//!   `world.clear_changes()` (a game that tracks clears once a frame).
//! - `typed_ecs`: `simple_iter`'s typed_ecs implementation, untracked.
//! - `bevy`: `simple_iter`'s bevy implementation (bevy always tracks: each
//!   `&mut` write sets the row's change tick).
//! - `raw`: `simple_iter`'s two `Vec`s zipped.

use super::sum;
use crate::components::*;
use crate::rng::shuffled;
use crate::{Check, Impl, Instance, Scenario};

/// typed_ecs's `Changed<&Position>` query on a tracked `Position`.
pub const TYPED_ECS_CHANGED: &str = "typed_ecs Changed";
/// typed_ecs without change detection: every position compared with a copy.
pub const TYPED_ECS_FULL_SCAN: &str = "typed_ecs full scan";
/// bevy's `Changed<Position>` filter.
pub const BEVY_CHANGED: &str = "bevy Changed";
/// specs' `FlaggedStorage`, read through a `ReaderId` into a `BitSet`.
pub const SPECS_FLAGGED: &str = "specs Flagged";
/// Plain `Vec`s and a dirty list kept by hand.
pub const RAW_DIRTY_LIST: &str = "raw dirty list";

/// `simple_iter` over a tracked `Position`.
pub const TYPED_ECS_TRACKED: &str = "typed_ecs tracked";
/// `simple_iter`'s own typed_ecs implementation (untracked).
pub const TYPED_ECS_UNTRACKED: &str = "typed_ecs";
/// `simple_iter`'s own bevy implementation.
pub const BEVY: &str = "bevy";
/// `simple_iter`'s own raw implementation.
pub const RAW: &str = "raw";

/// The number of frames the shuffle is cut into: each frame writes
/// `1 / FRAMES` of the entities.
pub const FRAMES: usize = 100;

/// The five implementations of `changed_iter` / `changed_frame`, each
/// wrapped by `$timed` ([`Timed::visit`] or [`Timed::frame`]).
macro_rules! frame_impls {
    ($timed:path) => {
        &[
            Impl {
                name: TYPED_ECS_CHANGED,
                setup: |n| Box::new($timed(typed_ecs::setup(n))),
            },
            Impl {
                name: TYPED_ECS_FULL_SCAN,
                setup: |n| Box::new($timed(typed_ecs_scan::setup(n))),
            },
            Impl {
                name: BEVY_CHANGED,
                setup: |n| Box::new($timed(bevy::setup(n))),
            },
            Impl {
                name: SPECS_FLAGGED,
                setup: |n| Box::new($timed(specs::setup(n))),
            },
            Impl {
                name: RAW_DIRTY_LIST,
                setup: |n| Box::new($timed(raw::setup(n))),
            },
        ]
    };
}

/// The scenario: the visit of what changed, the writes off the clock.
pub const SCENARIO: Scenario = Scenario {
    name: "changed_iter",
    what: "after 1% of 100,000 entities with (Position, Velocity) had position += velocity \
           (a fixed random pick, off the clock), find the positions that changed and sum their x",
    sizes: &[100_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: frame_impls!(Timed::visit),
    notes: "Before each run, off the clock, 1,000 entities (a different 1% every frame) get \
            position += velocity through a mutable lookup by handle; each run is timed on its \
            own. The full scan keeps a copy of each position (a `LastSeen` component grouped \
            with `Position`) and compares all 100,000 with it; its world does not track \
            `Position`. bevy's `Changed<Position>` checks the change tick of every row. specs \
            (`FlaggedStorage` over `VecStorage`) clears a `BitSet`, reads its reader's \
            `Modified` events into it and joins it with the positions.",
};

/// `changed_iter` with the writes timed: one whole frame.
pub const SCENARIO_FRAME: Scenario = Scenario {
    name: "changed_frame",
    what: "one frame of 100,000 entities with (Position, Velocity): position += velocity on 1% \
           of them (a fixed random pick), then find the positions that changed and sum their x",
    sizes: &[100_000],
    size_note: "",
    test_size: 1_000,
    fresh_state: false,
    impls: frame_impls!(Timed::frame),
    notes: "`changed_iter` with the writes on the clock: the 1,000 writes by handle are random \
            accesses among 100,000 entities, the same for every implementation but for what \
            tracking adds to each: bevy sets the row's change tick; specs pushes a `Modified` \
            event onto the storage's channel; raw sets a dirty flag and \
            pushes to its list; the full scan's world adds nothing; typed_ecs reads the slot's \
            record (its live log entry and that entry's stamp), turns the entry into a \
            tombstone and appends a new one: callgrind counts 114 instructions a write against \
            57 for the untracked world's, and two more random accesses.",
};

/// The scenario `simple_iter_tracked`.
pub const SCENARIO_TRACKED: Scenario = Scenario {
    name: "simple_iter_tracked",
    what: "the work of `simple_iter` (position += velocity over every entity of (Transform, \
           Position, Rotation, Velocity)) with Position tracked",
    sizes: &[10_000],
    size_note: "",
    test_size: 100,
    fresh_state: false,
    impls: &[
        Impl {
            name: TYPED_ECS_TRACKED,
            setup: |n| Box::new(tracked::setup(n)),
        },
        Impl {
            name: TYPED_ECS_UNTRACKED,
            setup: |n| Box::new(super::simple_iter::typed_ecs::setup(n)),
        },
        Impl {
            name: BEVY,
            setup: |n| Box::new(super::simple_iter::bevy::setup(n)),
        },
        Impl {
            name: RAW,
            setup: |n| Box::new(super::simple_iter::raw::setup(n)),
        },
    ],
    notes: "Both typed_ecs worlds declare the group (Position, Velocity); the tracked one also \
            `tracked (Position);`, and calls `clear_changes()` after each run, as a game that \
            tracks does once a frame. bevy always tracks. A `&mut` walk over a whole tracked \
            storage stamps every value at once, so callgrind counts the two typed_ecs runs within \
            36 instructions of each other (of 120,000): a gap between their times is the \
            machine's (where the arrays fall in memory, other processes), not tracking's.",
};

/// The entities (spawn indices) each frame writes, in write order: a
/// fixed shuffle of `0..n`, cut into [`FRAMES`] slices.
fn frames(n: usize) -> Vec<Vec<usize>> {
    let order = shuffled(n);
    order
        .chunks(n.div_ceil(FRAMES).max(1))
        .map(<[usize]>::to_vec)
        .collect()
}

/// [`frames`] as handles.
fn frame_handles<H: Copy>(all: &[H]) -> Vec<Vec<H>> {
    frames(all.len())
        .into_iter()
        .map(|frame| frame.into_iter().map(|i| all[i]).collect())
        .collect()
}

/// One implementation's frames, in two parts: the writes, and the visit
/// of what changed.
trait Frame {
    /// Writes the next frame's entities.
    fn write(&mut self);
    /// Visits what changed since the last visit, and starts afresh.
    fn visit(&mut self);
    fn check(&self) -> Check;
}

/// A [`Frame`] as an [`Instance`]: either the visit is timed and the
/// writes are its untimed preparation (`changed_iter`), or the whole frame
/// is timed (`changed_frame`).
struct Timed<F> {
    frames: F,
    writes_timed: bool,
}

impl<F: Frame> Timed<F> {
    fn visit(frames: F) -> Self {
        Timed {
            frames,
            writes_timed: false,
        }
    }

    fn frame(frames: F) -> Self {
        Timed {
            frames,
            writes_timed: true,
        }
    }
}

impl<F: Frame> Instance for Timed<F> {
    fn prepare(&mut self) {
        if !self.writes_timed {
            self.frames.write();
        }
    }
    fn prepares(&self) -> bool {
        !self.writes_timed
    }
    fn run(&mut self) {
        if self.writes_timed {
            self.frames.write();
        }
        self.frames.visit();
    }
    fn check(&self) -> Check {
        self.frames.check()
    }
}

/// What the frames saw, and the state they left.
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    /// Frames visited.
    frames: usize,
    /// Changed positions visited, over all frames.
    visited: usize,
    /// The sum of their `x`, over all frames.
    sum_x: f64,
}

impl Seen {
    /// Ends a frame that visited `visited` positions whose `x` summed to
    /// `sum_x`.
    fn frame(&mut self, visited: usize, sum_x: f64) {
        self.frames += 1;
        self.visited += visited;
        self.sum_x += std::hint::black_box(sum_x);
    }

    /// The frame to write next (its index into `frames` of that many).
    fn next(&self, frames: usize) -> usize {
        self.frames % frames
    }

    fn check<'a>(&self, positions: impl IntoIterator<Item = &'a Position>) -> Check {
        vec![
            ("frames", self.frames as f64),
            ("changed positions visited", self.visited as f64),
            ("sum of their x", self.sum_x),
            ("sum of every x", sum(positions, |p| p.0[0])),
        ]
    }
}

pub mod typed_ecs {
    use super::Seen;
    use super::*;
    use ::typed_ecs::prelude::*;

    world! {
        pub struct TrackedMoveWorld<Position, Velocity>;
        tracked (Position);
    }

    pub struct State {
        world: TrackedMoveWorld,
        frames: Vec<Vec<Entity>>,
        seen: Seen,
    }

    pub fn setup(n: usize) -> State {
        let mut world = TrackedMoveWorld::new();
        let all: Vec<Entity> = (0..n).map(|i| world.spawn_with(moving_entity(i))).collect();
        // The spawns are changes too: the first frame starts after them.
        world.clear_changes();
        State {
            world,
            frames: frame_handles(&all),
            seen: Seen::default(),
        }
    }

    impl Frame for State {
        fn write(&mut self) {
            let world = &mut self.world;
            let (positions, velocities) = (&mut world.position, &world.velocity);
            for &e in &self.frames[self.seen.next(self.frames.len())] {
                integrate(positions.get_mut(e).unwrap(), velocities.get(e).unwrap());
            }
        }
        fn visit(&mut self) {
            let world = &mut self.world;
            let (mut visited, mut sum_x) = (0, 0.0);
            world.query::<Changed<&Position>>().for_each(|(_, p)| {
                visited += 1;
                sum_x += f64::from(p.0[0]);
            });
            world.clear_changes();
            self.seen.frame(visited, sum_x);
        }
        fn check(&self) -> Check {
            self.seen.check(self.world.position.values())
        }
    }
}

pub mod typed_ecs_scan {
    use super::Seen;
    use super::*;
    use ::typed_ecs::prelude::*;

    /// A position as the last frame saw it.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct LastSeen(pub Position);

    world! {
        pub struct ScanWorld<Position, Velocity, LastSeen>;
        group (Position, LastSeen);
    }

    pub struct State {
        world: ScanWorld,
        frames: Vec<Vec<Entity>>,
        seen: Seen,
    }

    pub fn setup(n: usize) -> State {
        let mut world = ScanWorld::new();
        let all: Vec<Entity> = (0..n)
            .map(|i| {
                let (p, v) = moving_entity(i);
                world.spawn_with((p, v, LastSeen(p)))
            })
            .collect();
        State {
            world,
            frames: frame_handles(&all),
            seen: Seen::default(),
        }
    }

    impl Frame for State {
        fn write(&mut self) {
            let world = &mut self.world;
            let (positions, velocities) = (&mut world.position, &world.velocity);
            for &e in &self.frames[self.seen.next(self.frames.len())] {
                integrate(positions.get_mut(e).unwrap(), velocities.get(e).unwrap());
            }
        }
        fn visit(&mut self) {
            let (mut visited, mut sum_x) = (0, 0.0);
            self.world
                .query_mut::<(&Position, &mut LastSeen)>()
                .for_each(|_, (p, last)| {
                    if *p != last.0 {
                        last.0 = *p;
                        visited += 1;
                        sum_x += f64::from(p.0[0]);
                    }
                });
            self.seen.frame(visited, sum_x);
        }
        fn check(&self) -> Check {
            self.seen.check(self.world.position.values())
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{entity::Entity, query::Changed, query::QueryState, world::World};

    pub struct State {
        world: World,
        write: QueryState<(&'static mut Position, &'static Velocity)>,
        changed: QueryState<&'static Position, Changed<Position>>,
        frames: Vec<Vec<Entity>>,
        seen: Seen,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let all: Vec<Entity> = world.spawn_batch((0..n).map(moving_entity)).collect();
        let write = world.query::<(&mut Position, &Velocity)>();
        let changed = world.query_filtered::<&Position, Changed<Position>>();
        // The spawns are changes too: the first frame starts after them.
        world.clear_trackers();
        State {
            world,
            write,
            changed,
            frames: frame_handles(&all),
            seen: Seen::default(),
        }
    }

    impl Frame for State {
        fn write(&mut self) {
            for &e in &self.frames[self.seen.next(self.frames.len())] {
                let (mut p, v) = self.write.get_mut(&mut self.world, e).unwrap();
                integrate(&mut p, v);
            }
        }
        fn visit(&mut self) {
            let (mut visited, mut sum_x) = (0, 0.0);
            self.changed.iter(&self.world).for_each(|p| {
                visited += 1;
                sum_x += f64::from(p.0[0]);
            });
            self.world.clear_trackers();
            self.seen.frame(visited, sum_x);
        }
        fn check(&self) -> Check {
            let mut query = self.world.try_query::<&Position>().unwrap();
            self.seen.check(query.iter(&self.world))
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::storage::ComponentEvent;
    use ::specs::{
        BitSet, Builder, Component, Entity, FlaggedStorage, Join, ReadStorage, ReaderId,
        VecStorage, World, WorldExt, WriteStorage,
    };

    /// `Position`, stored as specs' docs store a component whose changes
    /// are read: in a `FlaggedStorage` over a `VecStorage`.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct FlaggedPosition(pub Position);

    impl Component for FlaggedPosition {
        type Storage = FlaggedStorage<Self, VecStorage<Self>>;
    }

    pub struct State {
        world: World,
        /// Where this reader left off in the storage's event channel.
        reader: ReaderId<ComponentEvent>,
        /// The indices of the positions modified, from the events.
        modified: BitSet,
        frames: Vec<Vec<Entity>>,
        seen: Seen,
    }

    /// A world with an entity of `(FlaggedPosition, Velocity)` for each of
    /// `entities`, their handles, and a reader of the positions' events
    /// registered after the spawns: their `Inserted` events are not its
    /// own.
    pub fn flagged_world(
        entities: impl IntoIterator<Item = (Position, Velocity)>,
    ) -> (World, Vec<Entity>, ReaderId<ComponentEvent>) {
        let mut world = World::new();
        world.register::<FlaggedPosition>();
        world.register::<Velocity>();
        let all: Vec<Entity> = entities
            .into_iter()
            .map(|(p, v)| {
                world
                    .create_entity()
                    .with(FlaggedPosition(p))
                    .with(v)
                    .build()
            })
            .collect();
        let reader = world.write_storage::<FlaggedPosition>().register_reader();
        (world, all, reader)
    }

    pub fn setup(n: usize) -> State {
        // The first frame starts after the spawns.
        let (world, all, reader) = flagged_world((0..n).map(moving_entity));
        State {
            world,
            reader,
            modified: BitSet::new(),
            frames: frame_handles(&all),
            seen: Seen::default(),
        }
    }

    impl Frame for State {
        fn write(&mut self) {
            let (mut positions, velocities) = self
                .world
                .system_data::<(WriteStorage<FlaggedPosition>, ReadStorage<Velocity>)>();
            for &e in &self.frames[self.seen.next(self.frames.len())] {
                integrate(
                    &mut positions.get_mut(e).unwrap().0,
                    velocities.get(e).unwrap(),
                );
            }
        }
        fn visit(&mut self) {
            let positions = self.world.read_storage::<FlaggedPosition>();
            self.modified.clear();
            for event in positions.channel().read(&mut self.reader) {
                if let ComponentEvent::Modified(id) = event {
                    self.modified.add(*id);
                }
            }
            let (mut visited, mut sum_x) = (0, 0.0);
            for (p, _) in (&positions, &self.modified).join() {
                visited += 1;
                sum_x += f64::from(p.0 .0[0]);
            }
            self.seen.frame(visited, sum_x);
        }
        fn check(&self) -> Check {
            let positions = self.world.read_storage::<FlaggedPosition>();
            self.seen.check((&positions).join().map(|p| &p.0))
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        positions: Vec<Position>,
        velocities: Vec<Velocity>,
        /// Whether each index is in `dirty` already.
        is_dirty: Vec<bool>,
        /// The indices written since the last visit.
        dirty: Vec<usize>,
        frames: Vec<Vec<usize>>,
        seen: Seen,
    }

    pub fn setup(n: usize) -> State {
        let all: Vec<usize> = (0..n).collect();
        State {
            positions: (0..n).map(|i| moving_entity(i).0).collect(),
            velocities: (0..n).map(|i| moving_entity(i).1).collect(),
            is_dirty: vec![false; n],
            dirty: Vec::new(),
            frames: frame_handles(&all),
            seen: Seen::default(),
        }
    }

    impl Frame for State {
        fn write(&mut self) {
            for &i in &self.frames[self.seen.next(self.frames.len())] {
                integrate(&mut self.positions[i], &self.velocities[i]);
                if !self.is_dirty[i] {
                    self.is_dirty[i] = true;
                    self.dirty.push(i);
                }
            }
        }
        fn visit(&mut self) {
            let (mut visited, mut sum_x) = (0, 0.0);
            for &i in &self.dirty {
                visited += 1;
                sum_x += f64::from(self.positions[i].0[0]);
                self.is_dirty[i] = false;
            }
            self.dirty.clear();
            self.seen.frame(visited, sum_x);
        }
        fn check(&self) -> Check {
            self.seen.check(&self.positions)
        }
    }
}

pub mod tracked {
    use super::*;
    use crate::scenarios::simple_iter::check;
    use ::typed_ecs::prelude::*;

    world! {
        pub struct TrackedStdWorld<Transform, Position, Rotation, Velocity>;
        tracked (Position);
        group (Position, Velocity);
    }

    crate::scenarios::simple_iter::typed_ecs_state!(TrackedStdWorld, then clear_changes);
}
