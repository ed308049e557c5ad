//! `parallel_stage`: the proof that a stage runs its systems in parallel.
//! `n` entities (1,000), each with four components of different types,
//! [`HeavyA`] to [`HeavyD`], each a position and a matrix. Timed: four
//! systems, one per component type, each running `heavy_compute`'s kernel
//! ([`heavy`]: invert the matrix 100 times, then move the position by it)
//! on every value of its own component. The systems touch disjoint data, so
//! they may all run at once.
//!
//! - `typed_ecs stage`: one stage, `add_systems((a, b, c, d))`, each system
//!   taking `&mut SparseMap<HeavyX>` (rayon's pool, feature `rayon`).
//! - `typed_ecs sequential`: the same four systems as four `add_system`s.
//! - `bevy multi-threaded`: a bevy `Schedule` of the same four systems
//!   (`Query<&mut HeavyX>`, no ordering) on bevy's `MultiThreadedExecutor`
//!   and its `ComputeTaskPool`. Only with the `bevy_multi_threaded` feature
//!   of this crate, which turns on bevy_ecs's `multi_threaded`: without it
//!   bevy's task pool runs everything on the calling thread.
//! - `bevy single-threaded`: the same schedule on `SingleThreadedExecutor`.
//! - `raw rayon::join`: four `Vec`s, one loop each, as two nested pairs of
//!   `rayon::join`.
//! - `raw sequential`: the four loops one after the other.
//!
//! The ratio that matters is `typed_ecs stage / typed_ecs sequential`
//! (the target: at most 0.6 on two cores).

use super::sum;
use crate::components::*;
use crate::{Check, Impl, Instance, Scenario};

/// Declares the four component types: a position and a matrix each.
macro_rules! heavy_types {
    ($($name:ident),*) => {
        $(
            #[doc = concat!("One of `parallel_stage`'s four component types: a position and a matrix (`", stringify!($name), "`).")]
            #[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
            pub struct $name {
                /// Moved by the matrix.
                pub position: Position,
                /// Inverted 100 times per run.
                pub transform: Transform,
            }

            impl $name {
                /// The value every entity starts with: `heavy_entity`'s
                /// position and matrix.
                pub fn new() -> Self {
                    let (transform, position, _, _) = heavy_entity();
                    $name { position, transform }
                }

                /// `heavy_compute`'s kernel on this value.
                #[inline]
                pub fn run(&mut self) {
                    heavy(&mut self.position, &mut self.transform);
                }
            }

            impl Default for $name {
                fn default() -> Self {
                    Self::new()
                }
            }
        )*
    };
}
heavy_types!(HeavyA, HeavyB, HeavyC, HeavyD);

/// The typed_ecs stage.
pub const TYPED_ECS_STAGE: &str = "typed_ecs stage";
/// The typed_ecs schedule of four `add_system`s.
pub const TYPED_ECS_SEQUENTIAL: &str = "typed_ecs sequential";
/// bevy's `MultiThreadedExecutor`.
pub const BEVY_MULTI: &str = "bevy multi-threaded";
/// bevy's `SingleThreadedExecutor`.
pub const BEVY_SINGLE: &str = "bevy single-threaded";
/// Plain `Vec`s under `rayon::join`.
pub const RAW_JOIN: &str = "raw rayon::join";
/// Plain `Vec`s, one loop after the other.
pub const RAW_SEQUENTIAL: &str = "raw sequential";

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "parallel_stage",
    what: "4 systems, each running heavy_compute's kernel (invert a 4×4 matrix 100 times, then move the position) on its own component type",
    sizes: &[1_000],
    size_note: " × 4 components",
    test_size: 20,
    fresh_state: false,
    impls: IMPLS,
    notes: "Each system works through 1,000 values of its own component type, far more than \
            `Schedule::parallel_work` (40 µs), so the typed_ecs stage goes to rayon's pool. \
            bevy's schedule has the same four systems and no ordering between them.",
};

const IMPLS: &[Impl] = &[
    Impl {
        name: TYPED_ECS_STAGE,
        setup: |n| Box::new(typed_ecs::setup(n, true)),
    },
    Impl {
        name: TYPED_ECS_SEQUENTIAL,
        setup: |n| Box::new(typed_ecs::setup(n, false)),
    },
    // bevy's multi-threaded executor needs the feature (see Cargo.toml).
    #[cfg(feature = "bevy_multi_threaded")]
    Impl {
        name: BEVY_MULTI,
        setup: |n| Box::new(bevy::setup(n, true)),
    },
    Impl {
        name: BEVY_SINGLE,
        setup: |n| Box::new(bevy::setup(n, false)),
    },
    Impl {
        name: RAW_JOIN,
        setup: |n| Box::new(raw::setup(n, true)),
    },
    Impl {
        name: RAW_SEQUENTIAL,
        setup: |n| Box::new(raw::setup(n, false)),
    },
];

/// Per component type, the sums of the positions and of the matrices.
fn check(a: &[HeavyA], b: &[HeavyB], c: &[HeavyC], d: &[HeavyD]) -> Check {
    fn sums<'a>(
        check: &mut Check,
        label: [&'static str; 2],
        items: impl Iterator<Item = (&'a Position, &'a Transform)> + Clone,
    ) {
        check.push((label[0], sum(items.clone(), |(p, _)| p.0.iter().sum())));
        check.push((label[1], sum(items, |(_, t)| t.0.iter().flatten().sum())));
    }
    let mut out = vec![("entities", a.len() as f64)];
    sums(
        &mut out,
        ["A positions", "A matrices"],
        a.iter().map(|h| (&h.position, &h.transform)),
    );
    sums(
        &mut out,
        ["B positions", "B matrices"],
        b.iter().map(|h| (&h.position, &h.transform)),
    );
    sums(
        &mut out,
        ["C positions", "C matrices"],
        c.iter().map(|h| (&h.position, &h.transform)),
    );
    sums(
        &mut out,
        ["D positions", "D matrices"],
        d.iter().map(|h| (&h.position, &h.transform)),
    );
    out
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! {
        pub struct StageWorld<HeavyA, HeavyB, HeavyC, HeavyD>;
    }

    fn heavy_a(a: &mut SparseMap<HeavyA>) {
        a.values_mut().iter_mut().for_each(HeavyA::run);
    }
    fn heavy_b(b: &mut SparseMap<HeavyB>) {
        b.values_mut().iter_mut().for_each(HeavyB::run);
    }
    fn heavy_c(c: &mut SparseMap<HeavyC>) {
        c.values_mut().iter_mut().for_each(HeavyC::run);
    }
    fn heavy_d(d: &mut SparseMap<HeavyD>) {
        d.values_mut().iter_mut().for_each(HeavyD::run);
    }

    pub struct State {
        pub(crate) world: StageWorld,
        pub(crate) schedule: Schedule<StageWorld>,
    }

    /// `n` entities with all four components; the four systems as one
    /// stage (`stage`) or as four single systems.
    pub fn setup(n: usize, stage: bool) -> State {
        let mut world = StageWorld::new();
        for _ in 0..n {
            world.spawn_with((HeavyA::new(), HeavyB::new(), HeavyC::new(), HeavyD::new()));
        }
        let mut schedule = Schedule::new();
        if stage {
            schedule.add_systems((heavy_a, heavy_b, heavy_c, heavy_d));
        } else {
            schedule
                .add_system(heavy_a)
                .add_system(heavy_b)
                .add_system(heavy_c)
                .add_system(heavy_d);
        }
        State { world, schedule }
    }

    impl Instance for State {
        fn run(&mut self) {
            self.schedule.run(&mut self.world);
        }
        fn check(&self) -> Check {
            let w = &self.world;
            check(
                w.storage::<HeavyA>().values(),
                w.storage::<HeavyB>().values(),
                w.storage::<HeavyC>().values(),
                w.storage::<HeavyD>().values(),
            )
        }
    }
}

/// The threads of bevy's task pool, once the multi-threaded executor has
/// set it up (`None` before, or without the `bevy_multi_threaded`
/// feature).
pub fn bevy_threads() -> Option<usize> {
    #[cfg(feature = "bevy_multi_threaded")]
    return bevy_tasks::ComputeTaskPool::try_get().map(|pool| pool.thread_num());
    #[cfg(not(feature = "bevy_multi_threaded"))]
    None
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::prelude::{Query, World};
    use ::bevy_ecs::schedule::{Schedule, SingleThreadedExecutor};

    fn heavy_a(mut q: Query<&mut HeavyA>) {
        q.iter_mut().for_each(|mut h| h.run());
    }
    fn heavy_b(mut q: Query<&mut HeavyB>) {
        q.iter_mut().for_each(|mut h| h.run());
    }
    fn heavy_c(mut q: Query<&mut HeavyC>) {
        q.iter_mut().for_each(|mut h| h.run());
    }
    fn heavy_d(mut q: Query<&mut HeavyD>) {
        q.iter_mut().for_each(|mut h| h.run());
    }

    pub struct State {
        pub(crate) world: World,
        pub(crate) schedule: Schedule,
    }

    /// `n` entities with all four components; the four systems, unordered,
    /// on bevy's multi-threaded executor (`multi`) or its single-threaded
    /// one. The schedule is built here; the executor starts on the first
    /// run (the harness's untimed warm-up).
    pub fn setup(n: usize, multi: bool) -> State {
        let mut world = World::new();
        world.spawn_batch(
            (0..n).map(|_| (HeavyA::new(), HeavyB::new(), HeavyC::new(), HeavyD::new())),
        );
        let mut schedule = Schedule::default();
        schedule.add_systems((heavy_a, heavy_b, heavy_c, heavy_d));
        set_executor(&mut schedule, multi);
        schedule
            .initialize(&mut world)
            .expect("the schedule builds");
        State { world, schedule }
    }

    /// bevy's multi-threaded executor (with the feature) or its
    /// single-threaded one.
    pub(crate) fn set_executor(schedule: &mut Schedule, multi: bool) {
        #[cfg(feature = "bevy_multi_threaded")]
        if multi {
            // What the executor would make on its first run: a thread per
            // core (bevy's `TaskPool::default`).
            bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
            schedule.set_executor(::bevy_ecs::schedule::MultiThreadedExecutor::new());
            return;
        }
        assert!(
            !multi,
            "bevy multi-threaded needs the `bevy_multi_threaded` feature"
        );
        schedule.set_executor(SingleThreadedExecutor::new());
    }

    impl Instance for State {
        fn run(&mut self) {
            self.schedule.run(&mut self.world);
        }
        fn check(&self) -> Check {
            fn values<T: ::bevy_ecs::component::Component + Copy>(world: &World) -> Vec<T> {
                let mut query = world.try_query::<&T>().expect("registered");
                query.iter(world).copied().collect()
            }
            let w = &self.world;
            check(
                &values::<HeavyA>(w),
                &values::<HeavyB>(w),
                &values::<HeavyC>(w),
                &values::<HeavyD>(w),
            )
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        pub(crate) a: Vec<HeavyA>,
        pub(crate) b: Vec<HeavyB>,
        pub(crate) c: Vec<HeavyC>,
        pub(crate) d: Vec<HeavyD>,
        pub(crate) join: bool,
    }

    /// Four `Vec`s of `n` values; `join`: the four loops under
    /// `rayon::join((a, b), (c, d))`.
    pub fn setup(n: usize, join: bool) -> State {
        State {
            a: vec![HeavyA::new(); n],
            b: vec![HeavyB::new(); n],
            c: vec![HeavyC::new(); n],
            d: vec![HeavyD::new(); n],
            join,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let State { a, b, c, d, join } = self;
            let mut a = || a.iter_mut().for_each(HeavyA::run);
            let mut b = || b.iter_mut().for_each(HeavyB::run);
            let mut c = || c.iter_mut().for_each(HeavyC::run);
            let mut d = || d.iter_mut().for_each(HeavyD::run);
            if *join {
                rayon::join(|| rayon::join(a, b), || rayon::join(c, d));
            } else {
                a();
                b();
                c();
                d();
            }
        }
        fn check(&self) -> Check {
            check(&self.a, &self.b, &self.c, &self.d)
        }
    }
}
