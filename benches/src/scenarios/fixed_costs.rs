//! `empty_system`, `empty_seen` and `empty_sync`: what a schedule costs
//! when its systems have nothing to do (issue 30, target 4: each at most
//! bevy's). Each run is one run of a schedule of one system; the system
//! and the schedule are what differ between the three.
//!
//! - `empty_system`: the system is `fn empty() {}`. typed_ecs: a
//!   `Schedule` with `add_system(empty)`; bevy: a `Schedule` with
//!   `add_systems(empty)` on its `SingleThreadedExecutor`; raw: a call of
//!   the function through a `black_box`ed function pointer (the floor:
//!   a call the compiler cannot remove).
//! - `empty_seen`: `n` entities (100, then 10,000) have a tracked
//!   position, written once at setup and never again; the system looks at
//!   the positions that changed since its last run (none after its first
//!   run, which setup does), counts them and sums their x into a resource,
//!   and counts its runs there. typed_ecs: a world with `tracked
//!   (Position);`, the system taking `&SparseMap<Position, Tracked>`,
//!   `&mut Seen<Position>` and `&mut Watch`, iterating
//!   `join(seen.changed(pos))`; bevy: `Query<&Position,
//!   Changed<Position>>` and `ResMut<Watch>` (bevy checks each row's
//!   change tick, so its look grows with `n`); raw: an empty dirty list of
//!   indices into a `Vec` of positions, walked.
//! - `empty_sync`: the system takes a command buffer and queues nothing;
//!   a sync point follows it. typed_ecs: `add_system(idle)` with `idle`
//!   taking `&mut Commands<W>`, then `add_sync_point()`; bevy: `(idle,
//!   ApplyDeferred).chain()` with `idle` taking `Commands`, the automatic
//!   sync points off (bevy's schedule would otherwise add its own); raw: a
//!   `Vec` of an op enum, left empty by the system, then drained.
//!
//! hecs, shipyard, sparsey and specs have no schedule of systems (specs'
//! `Dispatcher` is one, but not in the target; hecs's systems are
//! plain functions, which raw stands for). The count of runs is each
//! instance's (a field next to the world), so that the system can be
//! empty.

use crate::components::Position;
use crate::{Check, Scenario};

/// What the instances count: their runs, and for `empty_seen` what the
/// looks visited.
fn check(runs: u64, visited: u64, sum: f64) -> Check {
    vec![
        ("runs", runs as f64),
        ("visited", visited as f64),
        ("sum of x", sum),
    ]
}

/// The `i`th position.
fn position(i: usize) -> Position {
    Position([i as f32 * 0.5, (i % 7) as f32, 1.0])
}

/// typed_ecs's side of `empty_system` and `empty_sync`: a world, a schedule
/// over it, and the runs made.
pub struct TypedSchedule<W: ::typed_ecs::World + 'static> {
    world: W,
    schedule: ::typed_ecs::Schedule<W>,
    runs: u64,
}

impl<W: ::typed_ecs::World + 'static> crate::Instance for TypedSchedule<W> {
    fn run(&mut self) {
        self.schedule.run(&mut self.world);
        self.runs += 1;
    }
    fn check(&self) -> Check {
        check(self.runs, 0, 0.0)
    }
}

/// bevy's side of each scenario: a world and a schedule of `systems` on
/// the single-threaded executor, built before the first run, and the
/// runs made.
pub struct BevySchedule {
    world: ::bevy_ecs::prelude::World,
    schedule: ::bevy_ecs::schedule::Schedule,
    runs: u64,
}

impl BevySchedule {
    /// `world` with a schedule of `systems` (the automatic sync points
    /// off: where one is wanted, the systems say so with `ApplyDeferred`).
    fn new<M>(
        mut world: ::bevy_ecs::prelude::World,
        systems: impl ::bevy_ecs::schedule::IntoScheduleConfigs<::bevy_ecs::system::ScheduleSystem, M>,
    ) -> Self {
        use ::bevy_ecs::schedule::{Schedule, ScheduleBuildSettings, SingleThreadedExecutor};
        let mut schedule = Schedule::default();
        schedule.set_build_settings(ScheduleBuildSettings {
            auto_insert_apply_deferred: false,
            ..ScheduleBuildSettings::default()
        });
        schedule.add_systems(systems);
        schedule.set_executor(SingleThreadedExecutor::new());
        schedule
            .initialize(&mut world)
            .expect("the schedule builds");
        BevySchedule {
            world,
            schedule,
            runs: 0,
        }
    }

    /// One run of the schedule.
    fn run(&mut self) {
        self.schedule.run(&mut self.world);
        self.runs += 1;
    }
}

/// An empty system.
pub mod system {
    use super::*;
    use crate::Instance;

    /// The scenario.
    pub const SCENARIO: Scenario = Scenario {
        name: "empty_system",
        what: "one run of a schedule of one empty system (`fn empty() {}`)",
        sizes: &[1],
        size_note: " system",
        test_size: 1,
        fresh_state: false,
        impls: crate::impls![in system: typed_ecs, bevy, raw],
        notes:
            "typed_ecs runs its `Schedule`, bevy its `Schedule` on the `SingleThreadedExecutor`; \
                raw calls the function through a `black_box`ed pointer. hecs, shipyard, sparsey \
                and specs have no schedule the issue's target names (hecs's systems are plain \
                functions: raw's call).",
    };

    fn empty() {}

    pub mod typed_ecs {
        use super::*;
        use ::typed_ecs::prelude::*;

        world! { pub struct EmptyWorld<Position>; }

        pub fn setup(_: usize) -> TypedSchedule<EmptyWorld> {
            let mut schedule = Schedule::new();
            schedule.add_system(empty);
            TypedSchedule {
                world: EmptyWorld::new(),
                schedule,
                runs: 0,
            }
        }
    }

    pub mod bevy {
        use super::*;
        use ::bevy_ecs::prelude::World;

        pub struct State(BevySchedule);

        pub fn setup(_: usize) -> State {
            State(BevySchedule::new(World::new(), empty))
        }

        impl Instance for State {
            fn run(&mut self) {
                self.0.run();
            }
            fn check(&self) -> Check {
                check(self.0.runs, 0, 0.0)
            }
        }
    }

    pub mod raw {
        use super::*;

        pub struct State {
            system: fn(),
            runs: u64,
        }

        pub fn setup(_: usize) -> State {
            State {
                system: empty,
                runs: 0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                std::hint::black_box(self.system)();
                self.runs += 1;
            }
            fn check(&self) -> Check {
                check(self.runs, 0, 0.0)
            }
        }
    }
}

/// An empty look at what changed.
pub mod seen {
    use super::*;
    use crate::Instance;

    /// The scenario.
    pub const SCENARIO: Scenario = Scenario {
        name: "empty_seen",
        what: "one run of a schedule of one system that looks at the tracked positions changed \
               since its last run (none) and counts its runs",
        sizes: &[100, 10_000],
        size_note: " tracked positions",
        test_size: 100,
        fresh_state: false,
        impls: crate::impls![in seen: typed_ecs, bevy, raw],
        notes: "typed_ecs: `join(seen.changed(pos))` with `&mut Seen<Position>` (it walks the \
                change log's entries since its last look: none); bevy: `Query<&Position, \
                Changed<Position>>` (it checks the change tick of every row); raw: an empty \
                dirty list, walked. The system's first run, in setup, sees every position.",
    };

    /// What the look saw, over all runs: a resource.
    #[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::resource::Resource)]
    pub struct Watch {
        runs: u64,
        visited: u64,
        sum: f64,
    }

    impl Watch {
        fn visit(&mut self, p: &Position) {
            self.visited += 1;
            self.sum += f64::from(p.0[0]);
        }
    }

    pub mod typed_ecs {
        use super::*;
        use ::typed_ecs::prelude::*;
        use ::typed_ecs::{Seen, Tracked};

        world! {
            pub struct SeenWorld<Position>;
            tracked (Position);
            resources { watch: Watch }
        }

        fn look(pos: &SparseMap<Position, Tracked>, seen: &mut Seen<Position>, watch: &mut Watch) {
            watch.runs += 1;
            join(seen.changed(pos)).for_each(|_, p| watch.visit(p));
        }

        pub struct State {
            world: SeenWorld,
            schedule: Schedule<SeenWorld>,
        }

        pub fn setup(n: usize) -> State {
            let mut world = SeenWorld::new();
            for i in 0..n {
                world.spawn_with((position(i),));
            }
            let mut schedule = Schedule::new();
            schedule.add_system(look);
            // The first look sees every position.
            schedule.run(&mut world);
            State { world, schedule }
        }

        impl Instance for State {
            fn run(&mut self) {
                self.schedule.run(&mut self.world);
            }
            fn check(&self) -> Check {
                let w = self.world.watch;
                check(w.runs, w.visited, w.sum)
            }
        }
    }

    pub mod bevy {
        use super::*;
        use ::bevy_ecs::prelude::{Changed, Query, ResMut, World};

        fn look(changed: Query<&Position, Changed<Position>>, mut watch: ResMut<Watch>) {
            watch.runs += 1;
            for p in &changed {
                watch.visit(p);
            }
        }

        pub struct State(BevySchedule);

        pub fn setup(n: usize) -> State {
            let mut world = World::new();
            world.insert_resource(Watch::default());
            world.spawn_batch((0..n).map(|i| (position(i),)));
            let mut state = BevySchedule::new(world, look);
            // The first look sees every position.
            state.run();
            State(state)
        }

        impl Instance for State {
            fn run(&mut self) {
                self.0.run();
            }
            fn check(&self) -> Check {
                let w = self.0.world.resource::<Watch>();
                check(w.runs, w.visited, w.sum)
            }
        }
    }

    pub mod raw {
        use super::*;

        pub struct State {
            positions: Vec<Position>,
            /// Indices of the positions written since the last look.
            dirty: Vec<usize>,
            watch: Watch,
        }

        pub fn setup(n: usize) -> State {
            let mut state = State {
                positions: (0..n).map(position).collect(),
                dirty: (0..n).collect(),
                watch: Watch::default(),
            };
            // The first look sees every position.
            state.look();
            state
        }

        impl State {
            fn look(&mut self) {
                self.watch.runs += 1;
                for i in self.dirty.drain(..) {
                    self.watch.visit(&self.positions[i]);
                }
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                self.look();
            }
            fn check(&self) -> Check {
                let w = self.watch;
                check(w.runs, w.visited, w.sum)
            }
        }
    }
}

/// An empty sync point.
pub mod sync {
    use super::*;
    use crate::Instance;

    /// The scenario.
    pub const SCENARIO: Scenario = Scenario {
        name: "empty_sync",
        what: "one run of a schedule of one system with a command buffer it leaves empty, then \
               a sync point",
        sizes: &[1],
        size_note: " system",
        test_size: 1,
        fresh_state: false,
        impls: crate::impls![in sync: typed_ecs, bevy, raw],
        notes: "typed_ecs: `&mut Commands<W>` and `add_sync_point()`; bevy: `Commands` and an \
                explicit `ApplyDeferred` after it (automatic sync points off); raw: an empty \
                `Vec` of ops, drained. The system and the schedule's run are in the time: \
                `empty_system` is the same without the buffer and the sync point.",
    };

    pub mod typed_ecs {
        use super::*;
        use ::typed_ecs::prelude::*;

        world! { pub struct SyncWorld<Position>; }

        fn idle(_commands: &mut Commands<SyncWorld>) {}

        pub fn setup(_: usize) -> TypedSchedule<SyncWorld> {
            let mut schedule = Schedule::new();
            schedule.add_system(idle).add_sync_point();
            TypedSchedule {
                world: SyncWorld::new(),
                schedule,
                runs: 0,
            }
        }
    }

    pub mod bevy {
        use super::*;
        use ::bevy_ecs::prelude::{ApplyDeferred, Commands, IntoScheduleConfigs, World};

        fn idle(_commands: Commands) {}

        pub struct State(BevySchedule);

        pub fn setup(_: usize) -> State {
            // The sync point where typed_ecs has its own, and nowhere else.
            State(BevySchedule::new(
                World::new(),
                (idle, ApplyDeferred).chain(),
            ))
        }

        impl Instance for State {
            fn run(&mut self) {
                self.0.run();
            }
            fn check(&self) -> Check {
                check(self.0.runs, 0, 0.0)
            }
        }
    }

    pub mod raw {
        use super::*;

        /// A queued change (none is ever queued).
        pub enum Op {
            Despawn(usize),
        }

        pub struct State {
            ops: Vec<Op>,
            alive: Vec<bool>,
            runs: u64,
        }

        pub fn setup(_: usize) -> State {
            State {
                ops: Vec::new(),
                alive: Vec::new(),
                runs: 0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                std::hint::black_box(&mut self.ops);
                for op in self.ops.drain(..) {
                    match op {
                        Op::Despawn(e) => self.alive[e] = false,
                    }
                }
                self.runs += 1;
            }
            fn check(&self) -> Check {
                check(self.runs, 0, 0.0)
            }
        }
    }
}
