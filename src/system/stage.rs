//! Stages: systems that may run at the same time, proven not to conflict
//! at compile time.
//!
//! A stage is a tuple of systems. Its parameter lists are checked together
//! ([`StageParams::CHECK`]); the world is then split once per run, every
//! member takes its parameters from the one split, and the members run on
//! rayon's pool (feature `rayon`) or one after the other, with the same
//! result: none writes what another reads or writes.

use alloc::boxed::Box;
use core::time::Duration;

use super::access::{check_stage, Access};
use super::claims::{MembersApart, OwnRules, Shareable};
use super::function::{names, FunctionSystem, Member, SystemFn, SystemParams, SystemShape};
use super::param::Source;
use crate::plumbing::Storages;
use crate::seal::Sealed;

/// One step of a schedule that runs systems: a single system, or a stage.
pub trait Step<W> {
    /// The number of systems.
    fn len(&self) -> usize;

    /// The system at `member`.
    fn member(&mut self, member: usize) -> &mut dyn Member<W>;

    /// The system at `member`, reading.
    fn member_ref(&self, member: usize) -> &dyn Member<W>;

    /// Runs every system once; with `timed`, each records its own time. A
    /// stage whose members worked at least `parallel_work` in all at their
    /// last run runs them on rayon's pool (feature `rayon`).
    fn run(&mut self, world: &mut W, timed: bool, parallel_work: Duration);

    /// How long `member` took in the last timed run.
    fn time(&self, member: usize) -> Duration;
}

/// Runs `f`, and records how long it took if `timed` (with the `std`
/// feature; without a clock it records nothing).
#[inline]
fn timed(time: &mut Duration, timed: bool, f: impl FnOnce()) {
    #[cfg(feature = "std")]
    if timed {
        let start = std::time::Instant::now();
        f();
        *time = start.elapsed();
        return;
    }
    let _ = (time, timed);
    f();
}

/// One system on its own: no stage, no `Send` needed.
pub(crate) struct Single<W: Storages + 'static, M: SystemParams<W>, S> {
    system: FunctionSystem<W, M, S>,
    time: Duration,
}

impl<W: Storages + 'static, M: SystemParams<W>, S: SystemFn<W, M>> Single<W, M, S> {
    pub(crate) fn new(system: S) -> Self {
        Single {
            system: FunctionSystem::new(system),
            time: Duration::ZERO,
        }
    }
}

impl<W: Storages + 'static, M: SystemParams<W>, S: SystemFn<W, M>> Step<W> for Single<W, M, S> {
    fn len(&self) -> usize {
        1
    }

    fn member(&mut self, _: usize) -> &mut dyn Member<W> {
        &mut self.system
    }

    fn member_ref(&self, _: usize) -> &dyn Member<W> {
        &self.system
    }

    #[inline]
    fn run(&mut self, world: &mut W, on: bool, _: Duration) {
        let system = &mut self.system;
        timed(&mut self.time, on, || system.run(world));
    }

    fn time(&self, _: usize) -> Duration {
        self.time
    }
}

/// The parameter lists of a stage's systems: `(S1, S2, …):
/// StageShape<(M1, M2, …)>` when each `Si: SystemShape<Mi>`.
///
/// Generic code that adds stages names the bounds
/// [`AddSystems::add_systems`](crate::AddSystems::add_systems) has:
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{IntoStage, StageParams, StageShape};
///
/// struct Pos(f32);
/// struct Vel(f32);
/// world! { struct Game<Pos, Vel>; }
///
/// /// Adds `stage`, then a sync point, in any world.
/// fn stage_then_sync<W: World, Ms, T>(schedule: &mut Schedule<W>, stage: T)
/// where
///     Ms: StageParams<W>,
///     T: StageShape<Ms> + IntoStage<W, Ms>,
/// {
///     schedule.add_systems(stage).add_sync_point();
/// }
///
/// fn fall(pos: &mut SparseMap<Pos>) {}
/// fn drag(vel: &mut SparseMap<Vel>) {}
///
/// let mut schedule = Schedule::<Game>::new();
/// stage_then_sync(&mut schedule, (fall, drag));
/// assert_eq!(schedule.len(), 3);
/// ```
pub trait StageShape<Ms> {}

/// The parameter lists of a stage, checked together. Implemented for
/// tuples of 1 to 8 [`SystemParams`], by this crate only.
///
/// Generic code that adds stages names the bounds
/// [`AddSystems::add_systems`](crate::AddSystems::add_systems) has:
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{IntoStage, StageParams, StageShape};
///
/// struct Pos(f32);
/// struct Vel(f32);
/// world! { struct Game<Pos, Vel>; }
///
/// /// Adds `stage`, then a sync point, in any world.
/// fn stage_then_sync<W: World, Ms, T>(schedule: &mut Schedule<W>, stage: T)
/// where
///     Ms: StageParams<W>,
///     T: StageShape<Ms> + IntoStage<W, Ms>,
/// {
///     schedule.add_systems(stage).add_sync_point();
/// }
///
/// fn fall(pos: &mut SparseMap<Pos>) {}
/// fn drag(vel: &mut SparseMap<Vel>) {}
///
/// let mut schedule = Schedule::<Game>::new();
/// stage_then_sync(&mut schedule, (fall, drag));
/// assert_eq!(schedule.len(), 3);
/// ```
pub trait StageParams<W: Storages + 'static>: Sealed {
    /// The compile-time check: each system's own rules, then no system
    /// writes what another reads or writes, and an exclusive system is
    /// alone. Evaluated in [`add_systems`](crate::Schedule::add_systems).
    const CHECK: ();
}

/// A tuple of systems that can run as one stage: every member is a
/// [`SystemFn`], `Send`, with parameters that can be sent to another thread
/// (components and resources that are `Send`, and `Sync` where shared).
///
/// Generic code that adds stages names the bounds
/// [`AddSystems::add_systems`](crate::AddSystems::add_systems) has:
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{IntoStage, StageParams, StageShape};
///
/// struct Pos(f32);
/// struct Vel(f32);
/// world! { struct Game<Pos, Vel>; }
///
/// /// Adds `stage`, then a sync point, in any world.
/// fn stage_then_sync<W: World, Ms, T>(schedule: &mut Schedule<W>, stage: T)
/// where
///     Ms: StageParams<W>,
///     T: StageShape<Ms> + IntoStage<W, Ms>,
/// {
///     schedule.add_systems(stage).add_sync_point();
/// }
///
/// fn fall(pos: &mut SparseMap<Pos>) {}
/// fn drag(vel: &mut SparseMap<Vel>) {}
///
/// let mut schedule = Schedule::<Game>::new();
/// stage_then_sync(&mut schedule, (fall, drag));
/// assert_eq!(schedule.len(), 3);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a stage of systems of `{W}`",
    note = "a stage is a tuple of 1 to 8 systems (functions or closures over `&SparseMap<C>`, `&mut R`, `&mut Commands<{W}>`, …) that may run on several threads: each must be `Send`, and so must what it borrows"
)]
pub trait IntoStage<W: Storages + 'static, Ms: StageParams<W>> {
    /// The stage, as a step of a schedule.
    #[doc(hidden)] // The schedule's, not the user's: only this crate has a `Token`.
    fn into_step(self, token: crate::seal::Token) -> Box<dyn Step<W>>;
}

/// Runs closures as a chain of `rayon::join`s: the calling thread runs the
/// first and offers the rest to the pool, where an idle thread takes them;
/// when none does, the caller runs them itself, at almost the cost of a
/// plain call.
#[cfg(feature = "rayon")]
macro_rules! join_all {
    ($last:expr) => {
        ($last)()
    };
    ($first:expr, $($rest:expr),+) => {{
        let rest = move || join_all!($($rest),+);
        let ((), ()) = rayon::join($first, rest);
    }};
}

/// Splits the world once and hands every member its parameters; then runs
/// the members, in parallel with `rayon`.
macro_rules! impl_stage {
    ($n:literal; $($m:ident $s:ident $sys:ident $items:ident $time:ident $i:tt),+) => {
        impl<$($s: SystemShape<$m>, $m),+> StageShape<($($m,)+)> for ($($s,)+) {}

        impl<$($m),+> Sealed for ($($m,)+) {}

        impl<W: Storages + 'static, $($m: SystemParams<W>),+> StageParams<W> for ($($m,)+) {
            const CHECK: () = {
                let systems: [&[Option<Access>]; $n] = [$($m::ACCESS),+];
                let message = check_stage(names::<W>(), &systems);
                if !message.is_empty() {
                    panic!("{}", message.as_str());
                }
            };
        }

        impl<W, $($m, $s),+> IntoStage<W, ($($m,)+)> for ($($s,)+)
        where
            W: Storages + 'static,
            $($m: SystemParams<W>, $s: SystemFn<W, $m> + Send,)+
            $(for<'a> $m::Items<'a>: Send,)+
        {
            fn into_step(self, _: crate::seal::Token) -> Box<dyn Step<W>> {
                Box::new(Stage {
                    systems: ($(FunctionSystem::<W, $m, $s>::new(self.$i),)+),
                    times: [Duration::ZERO; $n],
                })
            }
        }

        impl<W, $($m, $s),+> Step<W> for Stage<($(FunctionSystem<W, $m, $s>,)+), $n>
        where
            W: Storages + 'static,
            $($m: SystemParams<W>, $s: SystemFn<W, $m> + Send,)+
            $(for<'a> $m::Items<'a>: Send,)+
        {
            fn len(&self) -> usize {
                $n
            }

            fn member(&mut self, member: usize) -> &mut dyn Member<W> {
                match member {
                    $($i => &mut self.systems.$i,)+
                    _ => panic!("typed_ecs: a stage of {} systems has no system #{}", $n, member + 1),
                }
            }

            fn member_ref(&self, member: usize) -> &dyn Member<W> {
                match member {
                    $($i => &self.systems.$i,)+
                    _ => panic!("typed_ecs: a stage of {} systems has no system #{}", $n, member + 1),
                }
            }

            fn run(&mut self, world: &mut W, on: bool, parallel_work: Duration) {
                #[cfg(feature = "rayon")]
                let parallel = $n > 1 && self.times.iter().sum::<Duration>() >= parallel_work;
                #[cfg(not(feature = "rayon"))]
                let _ = parallel_work;
                let ($($sys,)+) = &mut self.systems;
                let [$($time,)+] = &mut self.times;
                $($m::prepare(&mut $sys.state, world);)+
                // An exclusive member is alone in its stage (checked at
                // compile time) and takes the whole world.
                let mut source = Source::new(world, false $(|| $m::EXCLUSIVE)+);
                $(let $items = $m::fetch(&mut $sys.state, &mut source);)+
                #[cfg(feature = "rayon")]
                if parallel {
                    // Every member times itself: what the stage costs
                    // decides how the next run goes. One closure per
                    // member, holding only its function and its parameters.
                    $(let $sys = {
                        let system = &mut $sys.system;
                        move || timed($time, true, move || system.call($items))
                    };)+
                    join_all!($($sys),+);
                    return;
                }
                if on || !cfg!(feature = "rayon") {
                    $(timed($time, on, || $sys.system.call($items));)+
                } else {
                    // On the calling thread and not under `run_timed`: the
                    // stage's total is all the next run needs, so the clock
                    // is read twice, not twice per member.
                    let mut total = Duration::ZERO;
                    timed(&mut total, true, || {
                        $($sys.system.call($items);)+
                    });
                    let mut times = [$($time),+];
                    for time in &mut times {
                        **time = Duration::ZERO;
                    }
                    *times[0] = total;
                }
            }

            fn time(&self, member: usize) -> Duration {
                self.times.get(member).copied().unwrap_or_default()
            }
        }
    };
}

/// A stage's systems and their last timings.
pub(crate) struct Stage<T, const N: usize> {
    systems: T,
    times: [Duration; N],
}

impl_stage!(1; M1 S1 s1 i1 t1 0);
impl_stage!(2; M1 S1 s1 i1 t1 0, M2 S2 s2 i2 t2 1);
impl_stage!(3; M1 S1 s1 i1 t1 0, M2 S2 s2 i2 t2 1, M3 S3 s3 i3 t3 2);
impl_stage!(4; M1 S1 s1 i1 t1 0, M2 S2 s2 i2 t2 1, M3 S3 s3 i3 t3 2, M4 S4 s4 i4 t4 3);
impl_stage!(5; M1 S1 s1 i1 t1 0, M2 S2 s2 i2 t2 1, M3 S3 s3 i3 t3 2, M4 S4 s4 i4 t4 3,
    M5 S5 s5 i5 t5 4);
impl_stage!(6; M1 S1 s1 i1 t1 0, M2 S2 s2 i2 t2 1, M3 S3 s3 i3 t3 2, M4 S4 s4 i4 t4 3,
    M5 S5 s5 i5 t5 4, M6 S6 s6 i6 t6 5);
impl_stage!(7; M1 S1 s1 i1 t1 0, M2 S2 s2 i2 t2 1, M3 S3 s3 i3 t3 2, M4 S4 s4 i4 t4 3,
    M5 S5 s5 i5 t5 4, M6 S6 s6 i6 t6 5, M7 S7 s7 i7 t7 6);
impl_stage!(8; M1 S1 s1 i1 t1 0, M2 S2 s2 i2 t2 1, M3 S3 s3 i3 t3 2, M4 S4 s4 i4 t4 3,
    M5 S5 s5 i5 t5 4, M6 S6 s6 i6 t6 5, M7 S7 s7 i7 t7 6, M8 S8 s8 i8 t8 7);

/// Boxes one system as a step.
pub(crate) fn single<W, M, S>(system: S) -> Box<dyn Step<W>>
where
    W: Storages + 'static,
    M: SystemParams<W>,
    S: SystemFn<W, M>,
{
    Box::new(Single::new(system))
}

/// A stage's members (`Self`, a tuple of systems) and their parameter
/// lists (`Ms`) meet the rules: each its own, none exclusive unless alone,
/// and no two conflicting. The bound [`Schedule::add_systems`] has for a
/// world declared by `world!`.
///
/// [`Schedule::add_systems`]: crate::Schedule::add_systems
pub trait StageRules<W, Ms> {}

/// `StageRules` for stages of one size: `[Shareable]` when it has several
/// members (`[OwnRules]`, said twice, when it has one).
macro_rules! impl_stage_rules {
    ([$shared:ident] $($s:ident $m:ident),+) => {
        impl_stage_rules!(@pairs [$shared] [$($s $m),+] [] $($s $m),+);
    };
    (@pairs [$shared:ident] [$($s:ident $m:ident),+] [$($bounds:tt)*]) => {
        impl<W: Storages + 'static, $($s, $m: SystemParams<W>),+> StageRules<W, ($($m,)+)> for ($($s,)+)
        where
            $(<$m as SystemParams<W>>::Claims: OwnRules<W, $s>,)+
            $(<$m as SystemParams<W>>::Claims: $shared<W, $s>,)+
            $($bounds)*
        {
        }
    };
    (@pairs [$shared:ident] [$($all:tt)+] [$($bounds:tt)*] $hs:ident $hm:ident $(, $ts:ident $tm:ident)*) => {
        impl_stage_rules!(@pairs [$shared] [$($all)+] [
            $($bounds)*
            $(<$hm as SystemParams<W>>::Claims: MembersApart<W, $hs, $ts, <$tm as SystemParams<W>>::Claims>,)*
        ] $($ts $tm),*);
    };
}

impl_stage_rules!([OwnRules] S1 M1);
impl_stage_rules!([Shareable] S1 M1, S2 M2);
impl_stage_rules!([Shareable] S1 M1, S2 M2, S3 M3);
impl_stage_rules!([Shareable] S1 M1, S2 M2, S3 M3, S4 M4);
impl_stage_rules!([Shareable] S1 M1, S2 M2, S3 M3, S4 M4, S5 M5);
impl_stage_rules!([Shareable] S1 M1, S2 M2, S3 M3, S4 M4, S5 M5, S6 M6);
impl_stage_rules!([Shareable] S1 M1, S2 M2, S3 M3, S4 M4, S5 M5, S6 M6, S7 M7);
impl_stage_rules!([Shareable] S1 M1, S2 M2, S3 M3, S4 M4, S5 M5, S6 M6, S7 M7, S8 M8);
