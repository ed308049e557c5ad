//! `stage_overhead`: what running systems as a stage costs when they have
//! nothing to do. Eight trivial systems, each adding 1 to a resource of its
//! own ([`Tick0`] to [`Tick7`]); timed: one frame, the eight systems once.
//! The size is the number of systems (8).
//!
//! - `typed_ecs stage`: one stage, `add_systems((tick::<Tick0>, …))`, each
//!   system taking `&mut TickK`, as a game would write it. A stage whose members
//!   worked less than `Schedule::parallel_work` (40 µs) in all at its last
//!   run stays on the calling thread, so this one never reaches rayon's
//!   pool.
//! - `typed_ecs stage on the pool`: the same stage with
//!   `set_parallel_work(Duration::ZERO)`, which hands every run to rayon's
//!   pool: what a stage of light systems would cost without that rule.
//! - `typed_ecs sequential`: the same systems as eight `add_system`s.
//! - `bevy multi-threaded` / `bevy single-threaded`: a bevy `Schedule` of
//!   the same eight systems (`ResMut<TickK>`, no ordering) on each executor
//!   (multi-threaded only with this crate's `bevy_multi_threaded` feature).
//! - `raw rayon::scope`: eight counters, one `scope.spawn` each inside one
//!   `rayon::scope`, called from the benchmark's thread (not one of rayon's):
//!   handing work to the pool with no ECS around it.
//! - `raw rayon::join`: the eight increments as a tree of `rayon::join`.
//! - `raw sequential`: the eight increments.
//!
//! The figure that matters is the overhead: `typed_ecs stage` minus
//! `typed_ecs sequential`, per frame (the target: at most 2 µs).

use crate::{Check, Impl, Instance, Scenario};

/// A counter a system adds 1 to: each of the eight resources.
pub trait Tick {
    /// Adds 1.
    fn tick(&mut self);
}

/// Declares the eight resources.
macro_rules! ticks {
    ($($name:ident),*) => {
        $(
            #[doc = concat!("One of `stage_overhead`'s eight counters (`", stringify!($name), "`), each a resource of its own.")]
            #[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::resource::Resource)]
            pub struct $name(pub u64);

            impl Tick for $name {
                fn tick(&mut self) {
                    self.0 += 1;
                }
            }
        )*
    };
}
ticks!(Tick0, Tick1, Tick2, Tick3, Tick4, Tick5, Tick6, Tick7);

/// A component for the typed_ecs world, which needs one (no entity has it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unused;

/// The typed_ecs stage.
pub const TYPED_ECS_STAGE: &str = "typed_ecs stage";
/// The typed_ecs stage with `parallel_work` zero: always on the pool.
pub const TYPED_ECS_POOL: &str = "typed_ecs stage on the pool";
/// The typed_ecs schedule of eight `add_system`s.
pub const TYPED_ECS_SEQUENTIAL: &str = "typed_ecs sequential";
/// bevy's `MultiThreadedExecutor`.
pub const BEVY_MULTI: &str = "bevy multi-threaded";
/// bevy's `SingleThreadedExecutor`.
pub const BEVY_SINGLE: &str = "bevy single-threaded";
/// Eight spawns in one `rayon::scope`.
pub const RAW_SCOPE: &str = "raw rayon::scope";
/// A tree of `rayon::join`.
pub const RAW_JOIN: &str = "raw rayon::join";
/// Eight increments.
pub const RAW_SEQUENTIAL: &str = "raw sequential";

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "stage_overhead",
    what: "8 trivial systems (each adds 1 to a resource of its own), one frame",
    sizes: &[8],
    size_note: " systems",
    test_size: 8,
    fresh_state: false,
    impls: IMPLS,
    notes: "The typed_ecs stage's members worked less than `Schedule::parallel_work` (40 µs by \
            default) at its last run, so it runs them on the calling thread; `typed_ecs stage on \
            the pool` sets that to zero. The raw rayon rows hand the eight increments to rayon's \
            pool from the benchmark's thread, with no ECS: the floor for a stage that goes there.",
};

const IMPLS: &[Impl] = &[
    Impl {
        name: TYPED_ECS_STAGE,
        setup: |_| Box::new(typed_ecs::setup(typed_ecs::How::Stage)),
    },
    Impl {
        name: TYPED_ECS_SEQUENTIAL,
        setup: |_| Box::new(typed_ecs::setup(typed_ecs::How::Sequential)),
    },
    Impl {
        name: TYPED_ECS_POOL,
        setup: |_| Box::new(typed_ecs::setup(typed_ecs::How::Pool)),
    },
    // bevy's multi-threaded executor needs the feature (see Cargo.toml).
    #[cfg(feature = "bevy_multi_threaded")]
    Impl {
        name: BEVY_MULTI,
        setup: |_| Box::new(bevy::setup(true)),
    },
    Impl {
        name: BEVY_SINGLE,
        setup: |_| Box::new(bevy::setup(false)),
    },
    Impl {
        name: RAW_SCOPE,
        setup: |_| Box::new(raw::setup(raw::How::Scope)),
    },
    Impl {
        name: RAW_JOIN,
        setup: |_| Box::new(raw::setup(raw::How::Join)),
    },
    Impl {
        name: RAW_SEQUENTIAL,
        setup: |_| Box::new(raw::setup(raw::How::Sequential)),
    },
];

/// The eight counters.
fn check(ticks: [u64; 8]) -> Check {
    const LABELS: [&str; 8] = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"];
    LABELS
        .into_iter()
        .zip(ticks)
        .map(|(label, t)| (label, t as f64))
        .collect()
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! {
        pub struct TickWorld<Unused>;
        resources {
            t0: Tick0, t1: Tick1, t2: Tick2, t3: Tick3,
            t4: Tick4, t5: Tick5, t6: Tick6, t7: Tick7,
        }
    }

    /// One system: adds 1 to its own counter.
    fn tick<T: Tick>(t: &mut T) {
        t.tick();
    }

    pub struct State {
        pub(crate) world: TickWorld,
        pub(crate) schedule: Schedule<TickWorld>,
    }

    /// How the eight systems are scheduled.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum How {
        /// One stage.
        Stage,
        /// One stage, handed to rayon's pool whatever its members cost.
        Pool,
        /// Eight single systems.
        Sequential,
    }

    pub fn setup(how: How) -> State {
        let mut schedule = Schedule::new();
        if how == How::Pool {
            schedule.set_parallel_work(std::time::Duration::ZERO);
        }
        if how != How::Sequential {
            schedule.add_systems((
                tick::<Tick0>,
                tick::<Tick1>,
                tick::<Tick2>,
                tick::<Tick3>,
                tick::<Tick4>,
                tick::<Tick5>,
                tick::<Tick6>,
                tick::<Tick7>,
            ));
        } else {
            schedule
                .add_system(tick::<Tick0>)
                .add_system(tick::<Tick1>)
                .add_system(tick::<Tick2>)
                .add_system(tick::<Tick3>)
                .add_system(tick::<Tick4>)
                .add_system(tick::<Tick5>)
                .add_system(tick::<Tick6>)
                .add_system(tick::<Tick7>);
        }
        State {
            world: TickWorld::new(),
            schedule,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.schedule.run(&mut self.world);
        }
        fn check(&self) -> Check {
            let w = &self.world;
            check([
                w.t0.0, w.t1.0, w.t2.0, w.t3.0, w.t4.0, w.t5.0, w.t6.0, w.t7.0,
            ])
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::prelude::{ResMut, World};
    use ::bevy_ecs::schedule::Schedule;

    /// One system: adds 1 to its own counter.
    fn tick<T>(mut t: ResMut<T>)
    where
        T: Tick + ::bevy_ecs::resource::Resource<Mutability = ::bevy_ecs::component::Mutable>,
    {
        t.tick();
    }

    pub struct State {
        pub(crate) world: World,
        pub(crate) schedule: Schedule,
    }

    /// The eight systems, unordered, on bevy's multi-threaded executor
    /// (`multi`) or its single-threaded one.
    pub fn setup(multi: bool) -> State {
        let mut world = World::new();
        world.insert_resource(Tick0::default());
        world.insert_resource(Tick1::default());
        world.insert_resource(Tick2::default());
        world.insert_resource(Tick3::default());
        world.insert_resource(Tick4::default());
        world.insert_resource(Tick5::default());
        world.insert_resource(Tick6::default());
        world.insert_resource(Tick7::default());
        let mut schedule = Schedule::default();
        schedule.add_systems((
            tick::<Tick0>,
            tick::<Tick1>,
            tick::<Tick2>,
            tick::<Tick3>,
            tick::<Tick4>,
            tick::<Tick5>,
            tick::<Tick6>,
            tick::<Tick7>,
        ));
        crate::scenarios::parallel_stage::bevy::set_executor(&mut schedule, multi);
        schedule
            .initialize(&mut world)
            .expect("the schedule builds");
        State { world, schedule }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.schedule.run(&mut self.world);
        }
        fn check(&self) -> Check {
            let w = &self.world;
            check([
                w.resource::<Tick0>().0,
                w.resource::<Tick1>().0,
                w.resource::<Tick2>().0,
                w.resource::<Tick3>().0,
                w.resource::<Tick4>().0,
                w.resource::<Tick5>().0,
                w.resource::<Tick6>().0,
                w.resource::<Tick7>().0,
            ])
        }
    }
}

pub mod raw {
    use super::*;

    /// How the eight increments run.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum How {
        /// One `scope.spawn` each in a `rayon::scope`.
        Scope,
        /// A tree of `rayon::join`.
        Join,
        /// One after the other.
        Sequential,
    }

    pub struct State {
        pub(crate) ticks: [u64; 8],
        pub(crate) how: How,
    }

    pub fn setup(how: How) -> State {
        State { ticks: [0; 8], how }
    }

    impl Instance for State {
        fn run(&mut self) {
            let [t0, t1, t2, t3, t4, t5, t6, t7] = &mut self.ticks;
            match self.how {
                How::Scope => rayon::scope(|s| {
                    for t in [t0, t1, t2, t3, t4, t5, t6, t7] {
                        s.spawn(move |_| *t += 1);
                    }
                }),
                How::Join => {
                    let pair = |a: &mut u64, b: &mut u64| {
                        rayon::join(|| *a += 1, || *b += 1);
                    };
                    rayon::join(
                        || rayon::join(|| pair(t0, t1), || pair(t2, t3)),
                        || rayon::join(|| pair(t4, t5), || pair(t6, t7)),
                    );
                }
                How::Sequential => {
                    for t in [t0, t1, t2, t3, t4, t5, t6, t7] {
                        *std::hint::black_box(t) += 1;
                    }
                }
            }
        }
        fn check(&self) -> Check {
            check(self.ticks)
        }
    }
}
