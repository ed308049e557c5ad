//! [`Schedule`]: the systems of a frame, run in order, with sync points.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;

use crate::World;

/// One step of a schedule.
enum Step<W> {
    System {
        name: Cow<'static, str>,
        run: Box<dyn FnMut(&mut W)>,
    },
    SyncPoint,
}

impl<W> Step<W> {
    fn name(&self) -> &str {
        match self {
            Step::System { name, .. } => name,
            Step::SyncPoint => "sync point",
        }
    }
}

/// An ordered list of systems (plain functions or closures over the world)
/// and sync points, run once per [`run`](Schedule::run).
///
/// Systems run in the order they were added. A sync point calls
/// [`World::finalize_updates`], so the changes systems queued before it are
/// visible to the systems after it.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Age(u32);
/// struct Old;
/// world! { struct Game<Age, Old>; }
///
/// fn grow_older(world: &mut Game) {
///     for age in world.age.values_mut() {
///         age.0 += 1;
///     }
/// }
///
/// fn mark_old(world: &mut Game) {
///     for i in 0..world.size::<Age>() {
///         let e = world.entity_at::<Age>(i);
///         if world.value_at::<Age>(i).0 >= 3 && !world.has::<Old>(e) {
///             world.add_deferred(e, Old);
///         }
///     }
/// }
///
/// let mut world = Game::new();
/// world.spawn_with((Age(1),));
/// let mut schedule = Schedule::new();
/// schedule.add_system(grow_older).add_system(mark_old).add_sync_point();
///
/// schedule.run(&mut world);
/// assert_eq!(world.size::<Old>(), 0);
/// schedule.run(&mut world);
/// assert_eq!(world.size::<Old>(), 1);
/// ```
pub struct Schedule<W> {
    steps: Vec<Step<W>>,
}

impl<W> Default for Schedule<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W> Schedule<W> {
    /// An empty schedule.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let schedule = Schedule::<Game>::new();
    /// assert!(schedule.is_empty());
    /// ```
    pub const fn new() -> Self {
        Schedule { steps: Vec::new() }
    }

    /// Appends a system: any `FnMut(&mut W)`, such as `fn physics(world: &mut MyWorld)`
    /// or a closure that keeps state between frames.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut frames = 0;
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add_system(move |_world| {
    ///     frames += 1;
    ///     println!("frame {frames}");
    /// });
    /// schedule.run(&mut Game::new());
    /// ```
    ///
    /// The system is named after its type: a function's path, such as
    /// `my_game::physics`. Use [`add_system_named`](Schedule::add_system_named)
    /// to choose the name shown in timings.
    pub fn add_system<F: FnMut(&mut W) + 'static>(&mut self, system: F) -> &mut Self {
        self.add_system_named(core::any::type_name::<F>(), system)
    }

    /// Appends a system with a name, shown by [`names`](Schedule::names) and
    /// in the timings of `run_timed`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// fn physics(_world: &mut Game) {}
    ///
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add_system_named("physics", physics).add_system(physics).add_sync_point();
    /// let names: Vec<&str> = schedule.names().collect();
    /// assert_eq!(names[0], "physics");
    /// assert!(names[1].ends_with("physics"));
    /// assert_eq!(names[2], "sync point");
    /// ```
    pub fn add_system_named(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        system: impl FnMut(&mut W) + 'static,
    ) -> &mut Self {
        self.steps.push(Step::System {
            name: name.into(),
            run: Box::new(system),
        });
        self
    }

    /// The name of each step, in order; sync points are named `"sync point"`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add_system_named("ai", |_| {});
    /// assert_eq!(schedule.names().collect::<Vec<_>>(), ["ai"]);
    /// ```
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.steps.iter().map(Step::name)
    }

    /// Appends a sync point: [`World::finalize_updates`] runs here.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut schedule = Schedule::new();
    /// schedule
    ///     .add_system(|world: &mut Game| {
    ///         let e = world.spawn();
    ///         world.add_deferred(e, Pos(1));
    ///     })
    ///     .add_sync_point()
    ///     .add_system(|world: &mut Game| assert_eq!(world.size::<Pos>(), 1));
    /// schedule.run(&mut Game::new());
    /// ```
    pub fn add_sync_point(&mut self) -> &mut Self {
        self.steps.push(Step::SyncPoint);
        self
    }

    /// Number of steps (systems and sync points).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add_system(|_| {}).add_sync_point();
    /// assert_eq!(schedule.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// `true` when the schedule has no steps.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// assert!(Schedule::<Game>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

impl<W: World> Schedule<W> {
    /// Runs every step once, in order.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut world = Game::new();
    /// let mut schedule = Schedule::new();
    /// schedule.add_system(|world: &mut Game| {
    ///     world.spawn_with((Pos(0),));
    /// });
    /// schedule.run(&mut world);
    /// schedule.run(&mut world);
    /// assert_eq!(world.entity_count(), 2);
    /// ```
    pub fn run(&mut self, world: &mut W) {
        for step in &mut self.steps {
            Self::run_step(step, world);
        }
    }

    #[inline]
    fn run_step(step: &mut Step<W>, world: &mut W) {
        match step {
            Step::System { run, .. } => run(world),
            Step::SyncPoint => world.finalize_updates(),
        }
    }

    /// Runs every step once, in order, timing each, and records the timings
    /// in `stats` (see [`ScheduleStats`]): what a game shows as its frame
    /// breakdown. Needs the `std` feature (on by default) for the clock.
    ///
    /// A frame cut short by a panicking system records nothing.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    /// use typed_ecs::schedule::ScheduleStats;
    ///
    /// struct Pos(f32);
    /// world! { struct Game<Pos>; }
    ///
    /// let mut world = Game::new();
    /// let mut schedule = Schedule::new();
    /// schedule.add_system_named("spawn", |world: &mut Game| {
    ///     world.spawn_with((Pos(0.0),));
    /// });
    /// let mut stats = ScheduleStats::new();
    /// for _ in 0..10 {
    ///     schedule.run_timed(&mut world, &mut stats);
    /// }
    /// assert_eq!(stats.frames(), 10);
    /// let spawn = &stats.summary()[0];
    /// assert_eq!((spawn.name.as_str(), spawn.samples), ("spawn", 10));
    /// assert!(spawn.min <= spawn.median && spawn.median <= spawn.max);
    /// println!("{stats}");
    /// ```
    #[cfg(feature = "std")]
    pub fn run_timed(&mut self, world: &mut W, stats: &mut ScheduleStats) {
        use std::time::Instant;
        stats.begin_frame(self.names());
        let frame = Instant::now();
        for (position, step) in self.steps.iter_mut().enumerate() {
            let start = Instant::now();
            Self::run_step(step, world);
            stats.record(position, start.elapsed());
        }
        stats.end_frame(frame.elapsed());
    }
}

#[cfg(feature = "std")]
pub use self::stats::{ScheduleStats, StepSummary};

#[cfg(feature = "std")]
mod stats {
    use alloc::collections::VecDeque;
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;
    use core::fmt;
    use core::time::Duration;

    /// Timings of one step (a system, a sync point, or the whole frame)
    /// over the frames a [`ScheduleStats`] keeps.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    /// use typed_ecs::schedule::{ScheduleStats, StepSummary};
    ///
    /// struct Pos(f32);
    /// world! { struct Game<Pos>; }
    ///
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add_system_named("idle", |_| {});
    /// let mut stats = ScheduleStats::new();
    /// schedule.run_timed(&mut Game::new(), &mut stats);
    /// let summary: Vec<StepSummary> = stats.summary();
    /// let names: Vec<&str> = summary.iter().map(|s| s.name.as_str()).collect();
    /// assert_eq!(names, ["idle", "frame"]);
    /// ```
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct StepSummary {
        /// The step's name (`"frame"` for the whole frame).
        pub name: String,
        /// Number of frames summarised.
        pub samples: usize,
        /// Shortest time.
        pub min: Duration,
        /// Median time.
        pub median: Duration,
        /// Longest time.
        pub max: Duration,
        /// Time in the latest frame.
        pub last: Duration,
    }

    #[derive(Clone, Debug)]
    struct Samples {
        name: String,
        times: VecDeque<Duration>,
    }

    impl Samples {
        fn new(name: &str) -> Self {
            Samples {
                name: name.to_string(),
                times: VecDeque::new(),
            }
        }

        fn push(&mut self, window: usize, time: Duration) {
            if self.times.len() == window {
                self.times.pop_front();
            }
            self.times.push_back(time);
        }

        fn summary(&self) -> StepSummary {
            let mut sorted: Vec<Duration> = self.times.iter().copied().collect();
            sorted.sort_unstable();
            StepSummary {
                name: self.name.clone(),
                samples: sorted.len(),
                min: sorted.first().copied().unwrap_or_default(),
                median: sorted.get(sorted.len() / 2).copied().unwrap_or_default(),
                max: sorted.last().copied().unwrap_or_default(),
                last: self.times.back().copied().unwrap_or_default(),
            }
        }
    }

    /// Per-step timings over the last frames (1024 by default), filled by
    /// [`Schedule::run_timed`](super::Schedule::run_timed). `Display` prints a
    /// table of min / median / max per step and for the whole frame.
    ///
    /// ```
    /// use typed_ecs::schedule::ScheduleStats;
    ///
    /// let stats = ScheduleStats::with_window(60); // the last second at 60 fps
    /// assert_eq!(stats.frames(), 0);
    /// assert!(stats.summary().is_empty());
    /// ```
    #[derive(Clone, Debug)]
    pub struct ScheduleStats {
        window: usize,
        frames: u64,
        steps: Vec<Samples>,
        frame: Samples,
        /// The current frame's step times, kept only once the frame ends (a
        /// frame cut short by a panicking system records nothing).
        current: Vec<core::time::Duration>,
    }

    impl Default for ScheduleStats {
        fn default() -> Self {
            Self::new()
        }
    }

    impl ScheduleStats {
        /// Keeps the last 1024 frames.
        ///
        /// ```
        /// # use typed_ecs::schedule::ScheduleStats;
        /// assert_eq!(ScheduleStats::new().frames(), 0);
        /// ```
        pub fn new() -> Self {
            Self::with_window(1024)
        }

        /// Keeps the last `window` frames (at least 1).
        ///
        /// ```
        /// # use typed_ecs::schedule::ScheduleStats;
        /// assert_eq!(ScheduleStats::with_window(10).frames(), 0);
        /// ```
        pub fn with_window(window: usize) -> Self {
            ScheduleStats {
                window: window.max(1),
                frames: 0,
                steps: Vec::new(),
                frame: Samples::new("frame"),
                current: Vec::new(),
            }
        }

        /// Number of frames recorded in all (not only those kept).
        ///
        /// ```
        /// # use typed_ecs::schedule::ScheduleStats;
        /// assert_eq!(ScheduleStats::new().frames(), 0);
        /// ```
        pub fn frames(&self) -> u64 {
            self.frames
        }

        /// One summary per step, in schedule order, then one for the whole
        /// frame (named `"frame"`). Empty before the first frame.
        ///
        /// ```
        /// # use typed_ecs::schedule::ScheduleStats;
        /// assert!(ScheduleStats::new().summary().is_empty());
        /// ```
        pub fn summary(&self) -> Vec<StepSummary> {
            if self.frames == 0 {
                return Vec::new();
            }
            self.steps
                .iter()
                .chain([&self.frame])
                .map(Samples::summary)
                .collect()
        }

        /// Matches the steps to the schedule's, starting afresh for any step
        /// whose name changed.
        pub(super) fn begin_frame<'a>(&mut self, names: impl Iterator<Item = &'a str>) {
            let mut count = 0;
            for (position, name) in names.enumerate() {
                count += 1;
                match self.steps.get_mut(position) {
                    Some(samples) if samples.name == name => {}
                    Some(samples) => *samples = Samples::new(name),
                    None => self.steps.push(Samples::new(name)),
                }
            }
            self.steps.truncate(count);
            self.current.clear();
        }

        pub(super) fn record(&mut self, position: usize, time: Duration) {
            debug_assert_eq!(position, self.current.len());
            self.current.push(time);
        }

        pub(super) fn end_frame(&mut self, time: Duration) {
            for (samples, &step) in self.steps.iter_mut().zip(&self.current) {
                samples.push(self.window, step);
            }
            self.frame.push(self.window, time);
            self.frames += 1;
        }
    }

    impl fmt::Display for ScheduleStats {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let summary = self.summary();
            let width = summary
                .iter()
                .map(|s| s.name.len())
                .max()
                .unwrap_or(4)
                .max(4);
            writeln!(
                f,
                "{:<width$}  {:>12}  {:>12}  {:>12}",
                "step", "min", "median", "max"
            )?;
            for step in &summary {
                writeln!(
                    f,
                    "{:<width$}  {:>12?}  {:>12?}  {:>12?}",
                    step.name, step.min, step.median, step.max
                )?;
            }
            Ok(())
        }
    }
}

impl<W> fmt::Debug for Schedule<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for step in &self.steps {
            list.entry(&step.name());
        }
        list.finish()
    }
}
