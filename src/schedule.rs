//! [`Schedule`]: the systems of a frame, run in order, with sync points.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;

use crate::World;

/// One step of a schedule.
enum Step<W> {
    System(Box<dyn FnMut(&mut W)>),
    SyncPoint,
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
    pub fn add_system(&mut self, system: impl FnMut(&mut W) + 'static) -> &mut Self {
        self.steps.push(Step::System(Box::new(system)));
        self
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
            match step {
                Step::System(system) => system(world),
                Step::SyncPoint => world.finalize_updates(),
            }
        }
    }
}

impl<W> fmt::Debug for Schedule<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for step in &self.steps {
            list.entry(&match step {
                Step::System(_) => "system",
                Step::SyncPoint => "sync point",
            });
        }
        list.finish()
    }
}
