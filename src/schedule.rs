//! [`Schedule`]: the systems of a frame, in order, with stages that may run
//! in parallel and sync points that apply what the systems queued.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::time::Duration;

use crate::plumbing::Declared;
use crate::seal::TOKEN;
use crate::system::claims::OwnRules;
use crate::system::stage::StageRules;
use crate::system::stage::{single, Step};
use crate::system::{
    IntoStage, Named, StageParams, StageShape, SystemFn, SystemParams, SystemShape,
};
use crate::{ApplyReport, World};

/// One step of a schedule: systems (one, or a stage) or a sync point.
enum Entry<W> {
    /// A system or a stage, and the condition it runs under, if any.
    Systems(Box<dyn Step<W>>, Option<Condition<W>>),
    SyncPoint,
}

/// A reader that sees a writer's messages a frame late (see
/// [`Schedule::lagging_readers`]).
///
/// ```
/// # use typed_ecs::LaggingReader;
/// let lag = LaggingReader { reader: "hear".into(), writer: "send".into(), event: "Ping".into() };
/// assert_eq!(lag.to_string(), "`hear` reads `Ping` before the messages of `send` are applied: it sees them a frame late (move it after a sync point that follows `send`)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaggingReader {
    /// The reader's system.
    pub reader: String,
    /// The writer's system.
    pub writer: String,
    /// The event's type, without its module path.
    pub event: String,
}

impl fmt::Display for LaggingReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` reads `{}` before the messages of `{}` are applied: it sees them a frame late \
             (move it after a sync point that follows `{}`)",
            self.reader, self.event, self.writer, self.writer
        )
    }
}

/// A reader that missed messages: its event's bound dropped them before it
/// read them (see [`Schedule::missed_messages`]).
///
/// ```
/// # use typed_ecs::MissedMessages;
/// let missed = MissedMessages { reader: "hear".into(), event: "Ping".into(), dropped: 3 };
/// assert_eq!(missed.to_string(), "`hear` missed 3 `Ping` messages: the bound dropped them before it read them (read more often, or raise the bound)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissedMessages {
    /// The reader's system.
    pub reader: String,
    /// The event's type, without its module path.
    pub event: String,
    /// How many messages it missed, since it was added.
    pub dropped: u64,
}

impl fmt::Display for MissedMessages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` missed {} `{}` messages: the bound dropped them before it read them \
             (read more often, or raise the bound)",
            self.reader, self.dropped, self.event
        )
    }
}

/// When a step runs (see [`Schedule::add_system_if`]): asked once per run,
/// with the world as it is when the step's turn comes.
type Condition<W> = Box<dyn FnMut(&W) -> bool>;

/// The systems of a frame, run once per [`run`](Schedule::run): single
/// systems, stages of systems that may run at the same time, and sync
/// points.
///
/// A system is a function or closure whose parameters say what it touches
/// (see [`SystemParam`](crate::SystemParam)): `&SparseMap<C>`, `&mut SparseMap<C>`,
/// `&R` / `&mut R` for a resource, `&EntityAllocator`, its own
/// `&mut Commands<W>`, or `&mut W` alone. Steps run in the order they were
/// added. A sync point applies the command buffers of the systems that ran
/// since the last one, in the order they ran, then calls
/// [`World::finalize_updates`], so the changes systems queued before it
/// are visible to the systems after it. The end of a run applies the
/// buffers still pending, so no command waits for the next frame.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Age(u32);
/// struct Old;
/// world! { struct Game<Age, Old>; }
///
/// fn grow_older(ages: &mut SparseMap<Age>) {
///     for age in ages.values_mut() {
///         age.0 += 1;
///     }
/// }
///
/// fn mark_old(ages: &SparseMap<Age>, old: &SparseMap<Old>, commands: &mut Commands<Game>) {
///     for (entity, age) in ages.iter() {
///         if age.0 >= 3 && !old.contains(entity) {
///             commands.add(entity, Old);
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
    entries: Vec<Entry<W>>,
    /// The systems whose command buffers wait for the next sync point, in
    /// the order they ran: (entry, member).
    pending: VecDeque<(usize, usize)>,
    /// What the sync points of the last run applied: (entry, member, report).
    reports: Vec<(usize, usize, ApplyReport)>,
    /// See [`set_parallel_work`](Schedule::set_parallel_work).
    parallel_work: Duration,
    /// Whether stages may go to the pool at all, tried both ways while
    /// `parallel_work` is left at its default (see
    /// [`set_parallel_work`](Schedule::set_parallel_work)); `None` once it
    /// is set.
    #[cfg(feature = "rayon")]
    trial: Option<trial::PoolTrial>,
    /// `true` if a member reads events: each run starts by registering
    /// the readers (see `WriteParam::register`).
    registers: bool,
}

/// The default of [`Schedule::set_parallel_work`].
const PARALLEL_WORK: Duration = Duration::from_micros(40);

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
        Schedule {
            entries: Vec::new(),
            pending: VecDeque::new(),
            reports: Vec::new(),
            parallel_work: PARALLEL_WORK,
            #[cfg(feature = "rayon")]
            trial: Some(trial::PoolTrial::new()),
            registers: false,
        }
    }

    /// The name of each system, in order (each member of a stage on its
    /// own), and `"sync point"` for each sync point.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add_system_named("ai", |_: &mut Game| {}).add_sync_point();
    /// assert_eq!(schedule.names().collect::<Vec<_>>(), ["ai", "sync point"]);
    /// ```
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().flat_map(|entry| {
            let (step, len): (Option<&dyn Step<W>>, usize) = match entry {
                Entry::Systems(step, _) => (Some(&**step), step.len()),
                Entry::SyncPoint => (None, 1),
            };
            (0..len).map(move |member| match step {
                Some(step) => step.member_ref(member).name(),
                None => "sync point",
            })
        })
    }

    /// Appends a step of systems (one, or a stage) and the condition it
    /// runs under, giving each of its systems a name no earlier system has:
    /// the second `integrate` is `integrate#2`, and so on (a closure's
    /// default name is its function's, so two closures would otherwise
    /// share one in the timings).
    fn push_step(
        &mut self,
        mut step: Box<dyn Step<W>>,
        condition: Option<Condition<W>>,
    ) -> &mut Self {
        // Every name `names` lists, sync points' included.
        let mut taken: Vec<String> = self.names().map(String::from).collect();
        for member in 0..step.len() {
            let name = String::from(step.member_ref(member).name());
            if taken.contains(&name) {
                let free = (2..)
                    .map(|k| alloc::format!("{name}#{k}"))
                    .find(|candidate| !taken.contains(candidate))
                    .expect("a free number");
                step.member(member).rename(free.clone());
                taken.push(free);
            } else {
                taken.push(name);
            }
        }
        self.registers |= (0..step.len()).any(|member| step.member_ref(member).registers());
        self.entries.push(Entry::Systems(step, condition));
        self
    }

    /// Appends a sync point: the command buffers of the systems that ran
    /// since the last sync point are applied here, system after system in
    /// the order they ran, then [`World::finalize_updates`] runs.
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
        self.entries.push(Entry::SyncPoint);
        self
    }

    /// Number of systems (each member of a stage counts) and sync points:
    /// the length of [`names`](Schedule::names).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add_system(|_: &mut Game| {}).add_sync_point();
    /// assert_eq!(schedule.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.entries
            .iter()
            .map(|entry| match entry {
                Entry::Systems(step, _) => step.len(),
                Entry::SyncPoint => 1,
            })
            .sum()
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
        self.entries.is_empty()
    }

    /// How much work a stage's members must have done in all, at the
    /// stage's last run, for the next run to hand them to rayon's pool
    /// (feature `rayon`; 40 µs unless set). Below it they run on the
    /// calling thread, one after the other: waking the pool's threads and
    /// waiting for them costs about 15 µs on a small machine, more than a
    /// light stage gains. The members of a stage never conflict, so the
    /// results are the same either way; only the time differs. A stage's
    /// first run is on the calling thread, and measures it.
    ///
    /// Left at its default, the schedule also checks that the pool pays for
    /// the whole run, not only for the stage: handing a stage to other
    /// threads can slow the steps after it, which then read what those
    /// threads wrote from another core's cache. After its first 64 runs it
    /// times 8 runs allowed to use the pool and 8 with every stage on the
    /// calling thread, in turn, keeps the way whose median run was faster
    /// for the next 512 runs, then tries again. Setting the threshold (even
    /// to its default) turns this off.
    /// Set `Duration::ZERO` to run every stage of two or more systems on the
    /// pool. A game whose frame loop runs inside rayon's pool
    /// (`ThreadPool::install`) pays about 0.3 µs to hand a stage over
    /// instead of about 10 µs, and may lower the threshold accordingly.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// use std::time::Duration;
    ///
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.set_parallel_work(Duration::ZERO);
    /// assert_eq!(schedule.parallel_work(), Duration::ZERO);
    /// ```
    pub fn set_parallel_work(&mut self, work: Duration) -> &mut Self {
        self.parallel_work = work;
        #[cfg(feature = "rayon")]
        {
            self.trial = None;
        }
        self
    }

    /// See [`set_parallel_work`](Schedule::set_parallel_work).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// use std::time::Duration;
    ///
    /// assert_eq!(Schedule::<Game>::new().parallel_work(), Duration::from_micros(40));
    /// ```
    pub fn parallel_work(&self) -> Duration {
        self.parallel_work
    }

    /// Every reader of an event that runs before the messages of one of
    /// its writers are applied: a `Reader<E>` in a step before a
    /// `Writer<E>`'s next sync point (or, with no sync point after the
    /// writer, anywhere in the run). Such a reader sees that writer's
    /// messages a frame late. Empty when the schedule has none; check it
    /// once the schedule is built (a test can assert it is empty).
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Pos(f32);
    /// struct Ping(u32);
    /// world! {
    ///     struct Game<Pos>;
    ///     events { ping: Ping }
    /// }
    ///
    /// fn send(out: &mut Writer<Ping>) {
    ///     out.send(Ping(1));
    /// }
    /// fn hear(pings: &Events<Ping>, inbox: &mut Reader<Ping>) {
    ///     let _ = inbox.read(pings).count();
    /// }
    ///
    /// let mut late = Schedule::<Game>::new();
    /// late.add_system(hear).add_system(send);
    /// let lag = late.lagging_readers();
    /// assert_eq!(
    ///     (lag[0].reader.as_str(), lag[0].event.as_str(), lag[0].writer.as_str()),
    ///     ("hear", "Ping", "send")
    /// );
    ///
    /// let mut on_time = Schedule::<Game>::new();
    /// on_time.add_system(send).add_sync_point().add_system(hear);
    /// assert!(on_time.lagging_readers().is_empty());
    /// ```
    pub fn lagging_readers(&self) -> Vec<LaggingReader> {
        // (entry, name, event, writes) for every reader and writer; and
        // where each entry's messages are applied: its next sync point.
        let mut uses = Vec::new();
        let mut events = Vec::new();
        for (index, entry) in self.entries.iter().enumerate() {
            if let Entry::Systems(step, _) = entry {
                for member in 0..step.len() {
                    let member = step.member_ref(member);
                    events.clear();
                    member.events(&mut events);
                    for &(event, writes) in &events {
                        uses.push((index, String::from(member.name()), event, writes));
                    }
                }
            }
        }
        let applied_at = |index: usize| {
            (index..self.entries.len())
                .find(|&i| matches!(self.entries[i], Entry::SyncPoint))
                .unwrap_or(self.entries.len())
        };
        let mut lagging = Vec::new();
        for (writer_at, writer, event, writes) in &uses {
            if !writes {
                continue;
            }
            let applied = applied_at(*writer_at);
            for (reader_at, reader, read_event, reads) in &uses {
                if !reads && read_event == event && *reader_at < applied {
                    lagging.push(LaggingReader {
                        reader: reader.clone(),
                        writer: writer.clone(),
                        event: crate::system::short_name(event),
                    });
                }
            }
        }
        lagging
    }

    /// Every reader of the schedule that missed messages: its event's
    /// bound (`[bound N]` in `world!`) dropped them before it read them.
    /// The counts run from when the system was added; empty when no bound
    /// ever dropped a message a reader of this schedule had not read.
    /// Beside [`last_reports`](Schedule::last_reports), what a game checks
    /// (or logs) after a run.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Pos(f32);
    /// struct Ping(u32);
    /// world! {
    ///     struct Game<Pos>;
    ///     events { ping: Ping [bound 2] }
    /// }
    ///
    /// fn hear(pings: &Events<Ping>, inbox: &mut Reader<Ping>) {
    ///     let _ = inbox.read(pings).count();
    /// }
    ///
    /// let mut world = Game::new();
    /// let mut schedule = Schedule::new();
    /// schedule.add_system(hear);
    /// schedule.run(&mut world);
    /// assert!(schedule.missed_messages().is_empty());
    /// world.ping.send_batch([Ping(1), Ping(2), Ping(3), Ping(4), Ping(5)]);
    /// schedule.run(&mut world); // 5 sent, 2 kept: `hear` reads 4 and 5
    /// let missed = schedule.missed_messages();
    /// assert_eq!((missed[0].reader.as_str(), missed[0].dropped), ("hear", 3));
    /// ```
    pub fn missed_messages(&self) -> Vec<MissedMessages> {
        let mut missed = Vec::new();
        let mut counts = Vec::new();
        for entry in &self.entries {
            if let Entry::Systems(step, _) = entry {
                for member in 0..step.len() {
                    let member = step.member_ref(member);
                    counts.clear();
                    member.missed(&mut counts);
                    for &(event, dropped) in &counts {
                        if dropped > 0 {
                            missed.push(MissedMessages {
                                reader: String::from(member.name()),
                                event: crate::system::short_name(event),
                                dropped,
                            });
                        }
                    }
                }
            }
        }
        missed
    }

    /// What the sync points of the last [`run`](Schedule::run) applied: one
    /// report per command buffer that held commands, with the name of the
    /// system it belongs to, in the order applied.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Hp(i32);
    /// world! { struct Game<Hp>; }
    ///
    /// fn reaper(hp: &SparseMap<Hp>, commands: &mut Commands<Game>) {
    ///     for (entity, hp) in hp.iter() {
    ///         if hp.0 <= 0 {
    ///             commands.despawn(entity);
    ///             commands.remove::<Hp>(entity); // rejected: despawns come last
    ///         }
    ///     }
    /// }
    ///
    /// let mut world = Game::new();
    /// world.spawn_with((Hp(0),));
    /// let mut schedule = Schedule::new();
    /// schedule.add_system(reaper).add_sync_point();
    /// schedule.run(&mut world);
    /// let (name, report) = schedule.last_reports().next().unwrap();
    /// assert!(name.ends_with("reaper"));
    /// assert!(report.is_clean());
    /// assert_eq!(world.entity_count(), 0);
    /// ```
    pub fn last_reports(&self) -> impl Iterator<Item = (&str, &ApplyReport)> + '_ {
        self.reports.iter().map(|(entry, member, report)| {
            let name = match &self.entries[*entry] {
                Entry::Systems(step, _) => step.member_ref(*member).name(),
                Entry::SyncPoint => "sync point",
            };
            (name, report)
        })
    }
}

/// The ways to add systems, for a world declared by `world!` (a concrete
/// type, [`Declared`](crate::__private::Declared)): the rules of systems
/// and stages are trait bounds here, so that `cargo check` and the editor
/// report a conflict at the call, naming the systems. Code generic over the
/// world reaches the same methods through [`AddSystems`], which checks the
/// same rules when the program is built.
impl<W: World + Declared + 'static> Schedule<W> {
    /// Appends a system: a function or closure whose parameters say what it
    /// touches (see [`SystemParam`](crate::SystemParam)), such as
    /// `fn physics(pos: &mut SparseMap<Pos>, vel: &SparseMap<Vel>)`, or one
    /// that takes the whole world, `fn hud(world: &mut MyWorld)`. A closure
    /// names its parameters' types and may keep state between frames.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # world! { struct Game<Pos>; }
    /// # struct Pos(i32);
    /// fn drift(pos: &mut SparseMap<Pos>) {
    ///     pos.values_mut().iter_mut().for_each(|p| p.0 += 1);
    /// }
    ///
    /// let mut frames = 0;
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add_system(drift).add_system(move |_: &mut Game| {
    ///     frames += 1;
    ///     println!("frame {frames}");
    /// });
    /// schedule.run(&mut Game::new());
    /// ```
    ///
    /// The system is named after its function, without the module path
    /// (`physics`; a closure's is `main::{{closure}}`, the function it is
    /// written in), and a second system of one name is `physics#2`. Use [`add_system_named`](Schedule::add_system_named)
    /// or [`named`](crate::system::named) to choose the name shown in
    /// timings.
    ///
    /// # Compile errors
    ///
    /// A parameter that is not a system parameter; a component or resource
    /// the world does not declare; the same component or resource twice
    /// with one `&mut`; `&mut W` beside other parameters.
    #[track_caller]
    pub fn add_system<M, S>(&mut self, system: S) -> &mut Self
    where
        M: SystemParams<W>,
        S: SystemShape<M> + SystemFn<W, M>,
        M::Claims: OwnRules<W, S>,
    {
        AddSystems::add_system(self, system)
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
    /// // The default name of the second is `physics` too: it is told apart.
    /// assert_eq!(schedule.names().collect::<Vec<_>>(), ["physics", "physics#2", "sync point"]);
    /// ```
    #[track_caller]
    pub fn add_system_named<M, S>(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        system: S,
    ) -> &mut Self
    where
        M: SystemParams<W>,
        S: SystemShape<M> + SystemFn<W, M>,
        M::Claims: OwnRules<W, Named<S>>,
    {
        AddSystems::add_system_named(self, name, system)
    }

    /// Appends a stage: 1 to 8 systems that may run at the same time (on
    /// rayon's pool with the `rayon` feature; one after the other without,
    /// with the same results). Two members that conflict, one writing what
    /// the other reads or writes, or one taking `&mut W`, are a compile
    /// error that names them and the component or resource: put them in
    /// separate stages.
    ///
    /// Members must be `Send`, and so must what they borrow (components and
    /// resources they write, and `Sync` for those they read). Their command
    /// buffers are applied at the next sync point in member order.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Pos(f32);
    /// struct Vel(f32);
    /// struct Hp(i32);
    /// #[derive(Default)]
    /// struct Frame(u64);
    /// world! {
    ///     struct Game<Pos, Vel, Hp>;
    ///     resources { frame: Frame }
    /// }
    ///
    /// fn movement(pos: &mut SparseMap<Pos>, vel: &SparseMap<Vel>) {
    ///     join((pos, vel)).for_each(|_, (p, v)| p.0 += v.0);
    /// }
    /// fn regen(hp: &mut SparseMap<Hp>, frame: &Frame) {
    ///     if frame.0 % 2 == 0 {
    ///         hp.values_mut().iter_mut().for_each(|h| h.0 += 1);
    ///     }
    /// }
    /// fn count(frame: &mut Frame) {
    ///     frame.0 += 1;
    /// }
    ///
    /// let mut world = Game::new();
    /// world.spawn_with((Pos(0.0), Vel(1.0), Hp(1)));
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems((movement, regen)).add_system(count);
    /// schedule.run(&mut world);
    /// schedule.run(&mut world);
    /// assert_eq!(world.pos.values()[0].0, 2.0);
    /// assert_eq!((world.hp.values()[0].0, world.frame.0), (2, 2));
    /// ```
    ///
    /// A conflict does not compile:
    ///
    /// ```compile_fail
    /// # use typed_ecs::prelude::*;
    /// # struct Hp(i32);
    /// # #[derive(Default)] struct Frame(u64);
    /// # world! { struct Game<Hp>; resources { frame: Frame } }
    /// fn regen(hp: &mut SparseMap<Hp>, frame: &Frame) {}
    /// fn count(frame: &mut Frame) {}
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add_systems((regen, count)); // `count` writes `Frame`, which `regen` reads
    /// ```
    #[track_caller]
    pub fn add_systems<Ms, T>(&mut self, systems: T) -> &mut Self
    where
        Ms: StageParams<W>,
        T: StageShape<Ms> + IntoStage<W, Ms> + StageRules<W, Ms>,
    {
        AddSystems::add_systems(self, systems)
    }

    /// Appends a system that runs only when `condition` says so: bevy's
    /// `.run_if(…)`. The condition is asked once per [`run`](Schedule::run),
    /// when the system's turn comes, with the world as the steps before left
    /// it; when it says no, the system does not run (and queues nothing).
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Pos(f32);
    /// #[derive(Default)]
    /// struct Paused(bool);
    /// world! {
    ///     struct Game<Pos>;
    ///     resources { paused: Paused }
    /// }
    ///
    /// fn drift(pos: &mut SparseMap<Pos>) {
    ///     pos.values_mut().iter_mut().for_each(|p| p.0 += 1.0);
    /// }
    ///
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(0.0),));
    /// let mut schedule = Schedule::new();
    /// schedule.add_system_if(drift, |world: &Game| !world.paused.0);
    /// schedule.run(&mut world);
    /// world.paused.0 = true;
    /// schedule.run(&mut world);
    /// assert_eq!(world.get::<Pos>(e).unwrap().0, 1.0);
    /// ```
    ///
    /// A fixed time step is a condition over a clock resource: add the
    /// frame's time to an accumulator, and let each step through while a
    /// whole step is left (see the guide, "Systems and stages").
    #[track_caller]
    pub fn add_system_if<M, S>(
        &mut self,
        system: S,
        condition: impl FnMut(&W) -> bool + 'static,
    ) -> &mut Self
    where
        M: SystemParams<W>,
        S: SystemShape<M> + SystemFn<W, M>,
        M::Claims: OwnRules<W, S>,
    {
        AddSystems::add_system_if(self, system, condition)
    }

    /// Appends a stage (see [`add_systems`](Schedule::add_systems)) that runs
    /// only when `condition` says so (see
    /// [`add_system_if`](Schedule::add_system_if)): all its members, or none.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Pos(i32);
    /// struct Hp(i32);
    /// #[derive(Default)]
    /// struct Frame(u64);
    /// world! {
    ///     struct Game<Pos, Hp>;
    ///     resources { frame: Frame }
    /// }
    ///
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(0), Hp(0)));
    /// let mut schedule = Schedule::new();
    /// schedule
    ///     .add_system(|frame: &mut Frame| frame.0 += 1)
    ///     .add_systems_if(
    ///         (|pos: &mut SparseMap<Pos>| pos.values_mut()[0].0 += 1,
    ///          |hp: &mut SparseMap<Hp>| hp.values_mut()[0].0 += 1),
    ///         |world: &Game| world.frame.0 % 2 == 0, // every other frame
    ///     );
    /// for _ in 0..4 {
    ///     schedule.run(&mut world);
    /// }
    /// assert_eq!((world.get::<Pos>(e).unwrap().0, world.get::<Hp>(e).unwrap().0), (2, 2));
    /// ```
    #[track_caller]
    pub fn add_systems_if<Ms, T>(
        &mut self,
        systems: T,
        condition: impl FnMut(&W) -> bool + 'static,
    ) -> &mut Self
    where
        Ms: StageParams<W>,
        T: StageShape<Ms> + IntoStage<W, Ms> + StageRules<W, Ms>,
    {
        AddSystems::add_systems_if(self, systems, condition)
    }
}

/// The ways to add systems to a schedule, for code generic over the world
/// (a plugin's, or a helper's): the methods of the same names on
/// [`Schedule`], whose rules (see [`SystemParam`](crate::SystemParam)) are
/// checked when the program is built rather than by `cargo check`, because
/// no component's index is known where the world is a type parameter. A
/// declared world's own calls go to `Schedule`'s methods, which check them
/// as trait bounds; this trait is in the prelude.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32);
/// struct Vel(f32);
///
/// fn integrate<W: Contains<Pos> + Contains<Vel>>(pos: &mut StorageOf<W, Pos>, vel: &StorageOf<W, Vel>) {
///     join((pos, vel)).for_each(|_, (p, v)| p.0 += v.0);
/// }
/// fn damp<W: Contains<Vel>>(vel: &mut StorageOf<W, Vel>) {
///     vel.values_mut().iter_mut().for_each(|v| v.0 *= 0.5);
/// }
///
/// /// A plugin's systems, for any world that has `Pos` and `Vel`.
/// fn physics<W: World + Contains<Pos> + Contains<Vel>>(schedule: &mut Schedule<W>) {
///     schedule.add_system(integrate::<W>).add_system(damp::<W>);
/// }
///
/// world! { struct Game<Pos, Vel>; }
/// let mut world = Game::new();
/// world.spawn_with((Pos(0.0), Vel(2.0)));
/// let mut schedule = Schedule::new();
/// physics(&mut schedule);
/// schedule.run(&mut world);
/// assert_eq!((world.pos.values()[0].0, world.vel.values()[0].0), (2.0, 1.0));
/// ```
pub trait AddSystems<W: World + 'static> {
    /// See [`Schedule::add_system`].
    fn add_system<M, S>(&mut self, system: S) -> &mut Self
    where
        M: SystemParams<W>,
        S: SystemShape<M> + SystemFn<W, M>;

    /// See [`Schedule::add_system_named`].
    fn add_system_named<M, S>(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        system: S,
    ) -> &mut Self
    where
        M: SystemParams<W>,
        S: SystemShape<M> + SystemFn<W, M>;

    /// See [`Schedule::add_systems`].
    fn add_systems<Ms, T>(&mut self, systems: T) -> &mut Self
    where
        Ms: StageParams<W>,
        T: StageShape<Ms> + IntoStage<W, Ms>;

    /// See [`Schedule::add_system_if`].
    fn add_system_if<M, S>(
        &mut self,
        system: S,
        condition: impl FnMut(&W) -> bool + 'static,
    ) -> &mut Self
    where
        M: SystemParams<W>,
        S: SystemShape<M> + SystemFn<W, M>;

    /// See [`Schedule::add_systems_if`].
    fn add_systems_if<Ms, T>(
        &mut self,
        systems: T,
        condition: impl FnMut(&W) -> bool + 'static,
    ) -> &mut Self
    where
        Ms: StageParams<W>,
        T: StageShape<Ms> + IntoStage<W, Ms>;
}

impl<W: World + 'static> AddSystems<W> for Schedule<W> {
    #[track_caller]
    fn add_system<M, S>(&mut self, system: S) -> &mut Self
    where
        M: SystemParams<W>,
        S: SystemShape<M> + SystemFn<W, M>,
    {
        let () = <M as SystemParams<W>>::CHECK;
        self.push_step(single(system), None)
    }

    #[track_caller]
    fn add_system_named<M, S>(&mut self, name: impl Into<Cow<'static, str>>, system: S) -> &mut Self
    where
        M: SystemParams<W>,
        S: SystemShape<M> + SystemFn<W, M>,
    {
        AddSystems::add_system(self, crate::system::named(name, system))
    }

    #[track_caller]
    fn add_systems<Ms, T>(&mut self, systems: T) -> &mut Self
    where
        Ms: StageParams<W>,
        T: StageShape<Ms> + IntoStage<W, Ms>,
    {
        let () = <Ms as StageParams<W>>::CHECK;
        self.push_step(systems.into_step(TOKEN), None)
    }

    #[track_caller]
    fn add_system_if<M, S>(
        &mut self,
        system: S,
        condition: impl FnMut(&W) -> bool + 'static,
    ) -> &mut Self
    where
        M: SystemParams<W>,
        S: SystemShape<M> + SystemFn<W, M>,
    {
        let () = <M as SystemParams<W>>::CHECK;
        self.push_step(single(system), Some(Box::new(condition)))
    }

    #[track_caller]
    fn add_systems_if<Ms, T>(
        &mut self,
        systems: T,
        condition: impl FnMut(&W) -> bool + 'static,
    ) -> &mut Self
    where
        Ms: StageParams<W>,
        T: StageShape<Ms> + IntoStage<W, Ms>,
    {
        let () = <Ms as StageParams<W>>::CHECK;
        self.push_step(systems.into_step(TOKEN), Some(Box::new(condition)))
    }
}

impl<W: World + 'static> Schedule<W> {
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
    ///
    /// The end of a run applies the command buffers still pending (of the
    /// systems after the last sync point), as a sync point does, but does
    /// not call `finalize_updates`: nothing queued waits for the next frame.
    ///
    /// If a system panics, the steps after it do not run; the world is left
    /// consistent (whatever the system changed through its parameters
    /// stays), command buffers keep what they hold for the next sync point,
    /// and the schedule can run again.
    pub fn run(&mut self, world: &mut W) {
        #[cfg(feature = "rayon")]
        // The clock is read only in a trial's runs: between trials a run
        // costs what it did without one.
        let start = self
            .trial
            .as_ref()
            .filter(|trial| trial.timing())
            .map(|_| std::time::Instant::now());
        self.reports.clear();
        crate::change::world::run_started(world);
        self.register(world);
        let parallel_work = self.parallel_work_now();
        for index in 0..self.entries.len() {
            self.run_entry(index, world, false, parallel_work);
        }
        self.apply_pending(world);
        #[cfg(feature = "rayon")]
        if let Some(trial) = &mut self.trial {
            trial.ran(start.map(|start| start.elapsed()));
        }
    }

    /// The threshold a stage's work must reach to go to the pool in this
    /// run: `parallel_work`, or never while the trial holds the pool back.
    #[inline]
    fn parallel_work_now(&self) -> Duration {
        #[cfg(feature = "rayon")]
        if self.trial.as_ref().is_some_and(|trial| !trial.pool()) {
            return Duration::MAX;
        }
        self.parallel_work
    }

    /// Registers every reader of events the schedule holds with the world,
    /// before any system runs: a reader keeps its messages from its first
    /// run on, whether or not its turn has come (or its condition said
    /// yes).
    fn register(&mut self, world: &mut W) {
        if !self.registers {
            return;
        }
        for entry in &mut self.entries {
            if let Entry::Systems(step, _) = entry {
                for member in 0..step.len() {
                    let member = step.member(member);
                    if member.registers() {
                        member.register(world);
                    }
                }
            }
        }
    }

    /// Runs the entry at `index`; with `timed`, its systems time themselves;
    /// a stage whose members worked `parallel_work` goes to the pool (see
    /// [`parallel_work_now`](Self::parallel_work_now), asked once a run).
    /// `false` if it is a step whose condition said not to run this time.
    fn run_entry(
        &mut self,
        index: usize,
        world: &mut W,
        timed: bool,
        parallel_work: Duration,
    ) -> bool {
        match &mut self.entries[index] {
            Entry::Systems(step, condition) => {
                if let Some(condition) = condition {
                    if !condition(world) {
                        return false;
                    }
                }
                // What this step changes is told apart from what it sees.
                crate::change::world::tick(world);
                step.run(world, timed, parallel_work);
                for member in 0..step.len() {
                    if step.member_ref(member).applies() && !self.pending.contains(&(index, member))
                    {
                        self.pending.push_back((index, member));
                    }
                }
            }
            Entry::SyncPoint => {
                self.sync(world);
            }
        }
        true
    }

    /// A sync point: applies every pending command buffer in the order the
    /// systems ran, then finalizes.
    fn sync(&mut self, world: &mut W) {
        self.apply_pending(world);
        world.finalize_updates();
    }

    /// Applies every pending command buffer, in the order the systems ran.
    fn apply_pending(&mut self, world: &mut W) {
        if self.pending.is_empty() {
            return;
        }
        let mut reports = Vec::new();
        // Each is taken off the list before it is applied: if a component's
        // `Drop` panics, the buffer keeps what is left and is pending again
        // when its system next runs.
        while let Some((entry, member)) = self.pending.pop_front() {
            if let Entry::Systems(step, _) = &mut self.entries[entry] {
                step.member(member).apply(world, &mut reports);
                // An empty buffer reports nothing (the usual case).
                if !reports.is_empty() {
                    self.reports
                        .extend(reports.drain(..).map(|report| (entry, member, report)));
                }
            }
        }
    }

    /// Runs every step once, in order, timing each system and sync point,
    /// and records the timings in `stats` (see [`ScheduleStats`]): what a
    /// game shows as its frame breakdown. A stage's members are timed each
    /// on its own, on the thread that ran it. Needs the `std` feature (on
    /// by default) for the clock.
    ///
    /// A frame cut short by a panicking system records nothing.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    /// use typed_ecs::ScheduleStats;
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
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    #[cfg(feature = "std")]
    pub fn run_timed(&mut self, world: &mut W, stats: &mut ScheduleStats) {
        use std::time::Instant;
        stats.begin_frame(self.names());
        self.reports.clear();
        crate::change::world::run_started(world);
        self.register(world);
        let frame = Instant::now();
        let parallel_work = self.parallel_work_now();
        let mut position = 0;
        for index in 0..self.entries.len() {
            let start = Instant::now();
            let ran = self.run_entry(index, world, true, parallel_work);
            match &self.entries[index] {
                // A step its condition skipped records no sample.
                Entry::Systems(step, _) if !ran => {
                    for _ in 0..step.len() {
                        stats.skip(position);
                        position += 1;
                    }
                }
                Entry::Systems(step, _) => {
                    for member in 0..step.len() {
                        stats.record(position, step.time(member));
                        position += 1;
                    }
                }
                Entry::SyncPoint => {
                    stats.record(position, start.elapsed());
                    position += 1;
                }
            }
        }
        self.apply_pending(world);
        let elapsed = frame.elapsed();
        #[cfg(feature = "rayon")]
        if let Some(trial) = &mut self.trial {
            trial.ran(Some(elapsed));
        }
        stats.end_frame(elapsed);
    }
}

/// Whether a schedule's stages may go to rayon's pool, decided by timing
/// runs both ways (see [`Schedule::set_parallel_work`]).
#[cfg(feature = "rayon")]
mod trial {
    use core::time::Duration;

    /// Runs timed each way in a trial.
    const RUNS: usize = 8;
    /// Runs the faster way is kept for before the next trial.
    const KEPT: u32 = 512;
    /// Runs before the first trial, allowed to use the pool: a game's first
    /// frames grow their buffers and warm the caches, and would say little
    /// about the frames after them.
    const SETTLE: u32 = 64;

    /// A trial of the pool: of its `2 * RUNS` runs, every other one may use
    /// it (the first included), so that both ways see the same stretch of
    /// the game; the way whose median run was faster is kept for [`KEPT`]
    /// runs, then the trial starts again; the first waits [`SETTLE`] runs.
    /// A trial costs `RUNS` runs the slower way in every `2 * RUNS + KEPT`.
    #[derive(Clone, Debug)]
    pub(super) struct PoolTrial {
        pooled: [Duration; RUNS],
        held: [Duration; RUNS],
        /// Runs of the trial so far (`0..2 * RUNS`), while `left` is 0:
        /// the even ones may use the pool.
        step: usize,
        /// The way kept, and for how many more runs.
        pool: bool,
        left: u32,
    }

    impl PoolTrial {
        pub(super) const fn new() -> Self {
            PoolTrial {
                pooled: [Duration::ZERO; RUNS],
                held: [Duration::ZERO; RUNS],
                step: 0,
                pool: true,
                left: SETTLE,
            }
        }

        /// Whether this run may hand stages to the pool.
        #[inline]
        pub(super) fn pool(&self) -> bool {
            if self.left > 0 {
                self.pool
            } else {
                self.step % 2 == 0
            }
        }

        /// Whether this run is one of a trial's, to be timed.
        #[inline]
        pub(super) fn timing(&self) -> bool {
            self.left == 0
        }

        /// The run [`pool`](Self::pool) was asked for is over; it took
        /// `time` if it was [`timing`](Self::timing) (`None` only when it
        /// was not).
        #[inline]
        pub(super) fn ran(&mut self, time: Option<Duration>) {
            if self.left > 0 {
                self.left -= 1;
            } else {
                self.record(time);
            }
        }

        /// A trial's run took `time`.
        #[cold]
        fn record(&mut self, time: Option<Duration>) {
            let Some(time) = time else {
                debug_assert!(false, "a trial's run was not timed");
                return;
            };
            let half = if self.step % 2 == 0 {
                &mut self.pooled
            } else {
                &mut self.held
            };
            half[self.step / 2] = time;
            self.step += 1;
            if self.step == 2 * RUNS {
                self.pool = median(&mut self.pooled) < median(&mut self.held);
                self.left = KEPT;
                self.step = 0;
            }
        }
    }

    fn median(times: &mut [Duration; RUNS]) -> Duration {
        times.sort_unstable();
        times[RUNS / 2]
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Runs `trial` for `runs` runs, each taking `pooled` or `held` as
        /// it is asked to; returns how many used the pool.
        fn drive(trial: &mut PoolTrial, runs: u32, pooled: u64, held: u64) -> u32 {
            let mut used = 0;
            for _ in 0..runs {
                let pool = trial.pool();
                used += u32::from(pool);
                let time = trial
                    .timing()
                    .then(|| Duration::from_micros(if pool { pooled } else { held }));
                trial.ran(time);
            }
            used
        }

        #[test]
        fn the_faster_way_is_kept_then_tried_again() {
            let mut trial = PoolTrial::new();
            // The first runs settle, with the pool.
            assert_eq!(drive(&mut trial, 64, 300, 200), 64);
            // The trial: 8 runs pooled, 8 held, in turn.
            assert_eq!(drive(&mut trial, 16, 300, 200), 8);
            // Held was faster: kept for 512 runs.
            assert_eq!(drive(&mut trial, 512, 300, 200), 0);
            // Tried again; the pool is faster now, and kept.
            assert_eq!(drive(&mut trial, 16, 100, 200), 8);
            assert_eq!(drive(&mut trial, 512, 100, 200), 512);
        }

        #[test]
        fn a_tie_holds_the_pool_back() {
            let mut trial = PoolTrial::new();
            drive(&mut trial, 64 + 16, 200, 200);
            assert!(!trial.pool());
        }
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
    /// use typed_ecs::{ScheduleStats, StepSummary};
    ///
    /// struct Pos(f32);
    /// world! { struct Game<Pos>; }
    ///
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add_system_named("idle", |_: &mut Game| {});
    /// let mut stats = ScheduleStats::new();
    /// schedule.run_timed(&mut Game::new(), &mut stats);
    /// let summary: Vec<StepSummary> = stats.summary();
    /// let names: Vec<&str> = summary.iter().map(|s| s.name.as_str()).collect();
    /// assert_eq!(names, ["idle", "frame"]);
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
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
    /// use typed_ecs::ScheduleStats;
    ///
    /// let stats = ScheduleStats::with_window(60); // the last second at 60 fps
    /// assert_eq!(stats.frames(), 0);
    /// assert!(stats.summary().is_empty());
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    #[derive(Clone, Debug)]
    pub struct ScheduleStats {
        window: usize,
        frames: u64,
        steps: Vec<Samples>,
        frame: Samples,
        /// The current frame's step times, kept only once the frame ends (a
        /// frame cut short by a panicking system records nothing).
        /// `None` for a step its condition skipped: no sample.
        current: Vec<Option<core::time::Duration>>,
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
        /// # use typed_ecs::ScheduleStats;
        /// assert_eq!(ScheduleStats::new().frames(), 0);
        /// ```
        pub fn new() -> Self {
            Self::with_window(1024)
        }

        /// Keeps the last `window` frames (at least 1).
        ///
        /// ```
        /// # use typed_ecs::ScheduleStats;
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
        /// # use typed_ecs::ScheduleStats;
        /// assert_eq!(ScheduleStats::new().frames(), 0);
        /// ```
        pub fn frames(&self) -> u64 {
            self.frames
        }

        /// One summary per step, in schedule order, then one for the whole
        /// frame (named `"frame"`). Empty before the first frame.
        ///
        /// ```
        /// # use typed_ecs::ScheduleStats;
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
            self.current.push(Some(time));
        }

        /// The step at `position` did not run this frame (its condition
        /// said no): it records no sample.
        pub(super) fn skip(&mut self, position: usize) {
            debug_assert_eq!(position, self.current.len());
            self.current.push(None);
        }

        pub(super) fn end_frame(&mut self, time: Duration) {
            for (samples, step) in self.steps.iter_mut().zip(&self.current) {
                if let Some(step) = *step {
                    samples.push(self.window, step);
                }
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
        f.debug_list().entries(self.names()).finish()
    }
}
