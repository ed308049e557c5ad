//! System parameters: what each kind borrows, and how it is taken out of
//! the world's split borrow.
//!
//! A parameter is `&T` or `&mut T`. What `T` may be is said by two sealed
//! traits: [`ReadParam`] (`&T`: a component's storage, a resource, the
//! entity allocator) and [`WriteParam`] (`&mut T`: a storage, a resource, a
//! command buffer, the whole world). The macro implements both for each
//! resource and `WriteParam` for the world; the rest are implemented here.
//!
//! The world is split once per run into [`Slot`]s, one per storage and
//! resource ([`Storages::Borrows`]). A shared parameter turns its slot
//! shared and copies the reference; a `&mut` parameter takes it. The
//! compile-time checks (`access.rs`) prove no slot is asked for twice in a
//! way that cannot be served, so the panics below are unreachable from
//! code that compiles: they are the safe-code form of that proof.

use alloc::vec::Vec;

use super::access::{Access, Target};
use super::claims::{Ents, Free, Reads, Writes};
use crate::change::Track;
use crate::commands::Commands;
use crate::plumbing::{lent_twice, ColumnAccess, ColumnOf, Storages};
use crate::seal::TOKEN;
use crate::{ApplyReport, EntityAllocator, SparseMap};

/// Where a system's parameters come from: the whole world (for an exclusive
/// system) or its split borrow.
pub enum Source<'a, W: Storages> {
    /// The whole world, until an exclusive parameter takes it.
    Whole(Option<&'a mut W>),
    /// The world split into slots.
    Split(W::Borrows<'a>),
}

impl<W: Storages> core::fmt::Debug for Source<'_, W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Source::Whole(_) => "Source::Whole",
            Source::Split(_) => "Source::Split",
        })
    }
}

impl<'a, W: Storages> Source<'a, W> {
    /// The source for a system that takes `&mut W` if `exclusive`, else
    /// typed parameters.
    #[inline]
    pub fn new(world: &'a mut W, exclusive: bool) -> Self {
        if exclusive {
            Source::Whole(Some(world))
        } else {
            Source::Split(world.borrows(TOKEN))
        }
    }

    /// The split borrow (for the macro's resource parameters).
    #[inline]
    pub fn split(&mut self) -> &mut W::Borrows<'a> {
        match self {
            Source::Split(borrows) => borrows,
            Source::Whole(_) => lent_twice(),
        }
    }

    /// The whole world (for the macro's `&mut W` parameter).
    #[inline]
    pub fn whole(&mut self) -> &'a mut W {
        match self {
            Source::Whole(world) => world.take().unwrap_or_else(|| lent_twice()),
            Source::Split(_) => lent_twice(),
        }
    }
}

/// What `&T` can be as a system parameter of `W`: a component's storage
/// (`&SparseMap<C>`), a resource of `W` (`&R`), or `&EntityAllocator`.
/// Implemented by this crate and `world!` only.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::SystemParam;
/// // `&T` is a parameter when `T: ReadParam<Game>`.
///
/// struct Pos(f32);
/// #[derive(Default)]
/// struct Time(f32);
/// world! {
///     struct Game<Pos>;
///     resources { time: Time }
/// }
///
/// fn is_parameter<P: SystemParam<Game>>() {}
/// is_parameter::<&SparseMap<Pos>>();
/// is_parameter::<&Time>();
/// is_parameter::<&EntityAllocator>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`&{Self}` cannot be a parameter of a system of `{W}`",
    label = "not a storage, resource or allocator of `{W}`",
    note = "a system reads `&SparseMap<C>` for a component `C` of `{W}`, `&R` for a resource `R` declared in its `resources {{ … }}`, `&Events<E>` for an event `E` declared in its `events {{ … }}`, or `&EntityAllocator`"
)]
pub trait ReadParam<W: Storages> {
    /// What the parameter reads.
    const TARGET: Target;

    /// What the parameter reads, as a type, for the checks `cargo check`
    /// sees (a `Reads` of the target and its index).
    type Claim;

    /// Takes the shared borrow out of `source`.
    fn read<'a>(source: &mut Source<'a, W>) -> &'a Self;

    /// Readies what the parameter reads, with the whole world, before the
    /// system (or its stage) runs: a storage is brought in step with the
    /// world's entities (see [`SparseMap`], "Storages moved between
    /// worlds"), so a system never sees a dead entity.
    #[inline(always)]
    fn prepare(world: &mut W) {
        let _ = world;
    }
}

/// What `&mut T` can be as a system parameter of `W`: a component's
/// storage (`&mut SparseMap<C>`), a resource of `W` (`&mut R`), the
/// system's own `&mut Commands<W>`, or `&mut W` (an exclusive system).
/// Implemented by this crate and `world!` only.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::SystemParam;
/// // `&mut T` is a parameter when `T: WriteParam<Game>`.
///
/// struct Pos(f32);
/// #[derive(Default)]
/// struct Time(f32);
/// world! {
///     struct Game<Pos>;
///     resources { time: Time }
/// }
///
/// fn is_parameter<P: SystemParam<Game>>() {}
/// is_parameter::<&mut SparseMap<Pos>>();
/// is_parameter::<&mut Time>();
/// is_parameter::<&mut Commands<Game>>();
/// is_parameter::<&mut Game>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`&mut {Self}` cannot be a parameter of a system of `{W}`",
    label = "not a storage, resource or command buffer of `{W}`",
    note = "a system writes `&mut SparseMap<C>` for a component `C` of `{W}`, `&mut R` for a resource `R` declared in its `resources {{ … }}`, queues changes in `&mut Commands<{W}>`, sends and reads events with `&mut Writer<E>` and `&mut Reader<E>`, keeps its own state in `&mut Local<T>`, or takes `&mut {W}` alone; it reads the allocator (`&EntityAllocator`) and spawns through `Commands`"
)]
pub trait WriteParam<W: Storages> {
    /// What the parameter writes; `None` for a command buffer, which is the
    /// system's own.
    const TARGET: Option<Target>;

    /// What the parameter writes, as a type, for the checks `cargo check`
    /// sees: a `Writes` of the target and its index, `Free` for what is
    /// the system's own, `Whole` for the world.
    type Claim;

    /// What the system keeps between runs for this parameter: its command
    /// buffer, or nothing.
    type State: Default + 'static;

    /// Takes the mutable borrow out of `source` (or `state`).
    fn write<'a>(state: &'a mut Self::State, source: &mut Source<'a, W>) -> &'a mut Self;

    /// Readies the parameter, with the whole world, before the system (or
    /// its stage) runs: a storage is brought in step with the world's
    /// entities, and a [`Seen`](super::Seen) starts its run's window and
    /// tells the change log where it stands.
    #[inline(always)]
    fn prepare(state: &mut Self::State, world: &mut W) {
        let _ = (state, world);
    }

    /// `true` if [`apply`](WriteParam::apply) does anything.
    const APPLIES: bool = false;

    /// `true` if [`register`](WriteParam::register) does anything.
    const REGISTERS: bool = false;

    /// The event this parameter reads or writes, if it is a
    /// [`Reader`](crate::Reader) or a [`Writer`](crate::Writer): the event
    /// type's name, and `true` for a writer (for
    /// [`Schedule::lagging_readers`](crate::Schedule::lagging_readers)).
    fn event() -> Option<(&'static str, bool)> {
        None
    }

    /// At the start of each run of the schedule that holds the system,
    /// before any system runs: a reader of events tells the log it exists
    /// (a [`Reader`](crate::Reader) that has not run yet, or whose
    /// run condition said no, is kept for all the same).
    fn register(state: &mut Self::State, world: &mut W) {
        let _ = (state, world);
    }

    /// A [`Reader`](crate::Reader)'s count of the messages a bound dropped
    /// before it read them, with the event type's name (for
    /// [`Schedule::missed_messages`](crate::Schedule::missed_messages)).
    fn missed(state: &Self::State) -> Option<(&'static str, u64)> {
        let _ = state;
        None
    }

    /// At a sync point: applies what the state queued, if anything, and
    /// pushes the report.
    fn apply(state: &mut Self::State, world: &mut W, reports: &mut Vec<ApplyReport>) {
        let _ = (state, world, reports);
    }

    /// After a hook ran: what the state queued is handed on. A command
    /// buffer goes to `later` (applied once the hooks of this level are
    /// done); anything else is applied now (events are sent).
    fn hand_over(state: &mut Self::State, world: &mut W, later: &mut Vec<Commands<W>>) {
        let _ = later;
        if Self::APPLIES {
            Self::apply(state, world, &mut Vec::new());
        }
    }
}

// Over `ColumnAccess`, which `W: Contains<C>` implies, rather than the
// macro's `Column`: a system generic over the world (its storages named
// `StorageOf<W, C>`) can then be added to a schedule in generic code too.
//
// Over any kind `T` of storage, which must be the world's for `C`
// ([`StoredAs`]): a storage of the other kind (`SparseMap<Energy>` for a
// tracked `Energy`) then gets a message that says which to write, where an
// impl for the world's kind alone would give a bare type mismatch.
impl<W: ColumnAccess<C>, C, T: Track + StoredAs<W, C>> ReadParam<W> for SparseMap<C, T> {
    const TARGET: Target = Target::Component(<W as ColumnAccess<C>>::INDEX);
    type Claim = Reads<Self, <W as ColumnOf<C>>::Id>;

    #[inline]
    fn read<'a>(source: &mut Source<'a, W>) -> &'a Self {
        T::shared(<W as ColumnAccess<C>>::slot(source.split()).shared())
    }

    #[inline(always)]
    fn prepare(world: &mut W) {
        crate::in_step::sync::<W, C>(world);
    }
}

impl<W: ColumnAccess<C>, C, T: Track + StoredAs<W, C>> WriteParam<W> for SparseMap<C, T> {
    const TARGET: Option<Target> = Some(Target::Component(<W as ColumnAccess<C>>::INDEX));
    type Claim = Writes<Self, <W as ColumnOf<C>>::Id>;
    type State = ();

    #[inline]
    fn write<'a>(_: &'a mut (), source: &mut Source<'a, W>) -> &'a mut Self {
        T::unique(<W as ColumnAccess<C>>::slot(source.split()).unique())
    }

    #[inline(always)]
    fn prepare(_: &mut (), world: &mut W) {
        crate::in_step::sync::<W, C>(world);
    }
}

/// `Self` is the kind of storage (`Tracked` or `Untracked`) that `W` keeps
/// for `C`: a system names `&mut SparseMap<C, Self>`. Implemented for that
/// kind alone; a failure says which kind to write.
#[diagnostic::on_unimplemented(
    message = "`{C}` is stored as `SparseMap<{C}, {X}>` in `{W}`, not as `SparseMap<{C}, {Self}>`",
    label = "the kind of storage `{W}` keeps for `{C}` is `{X}`",
    note = "write `SparseMap<{C}, {X}>`, or `StorageOf<{W}, {C}>`, which follows `tracked (…)` in the `world!` declaration of `{W}` and needs no edit when tracking is turned on or off"
)]
pub trait StoredAs<W, C, X: Track = <W as ColumnOf<C>>::Track>: Track
where
    W: ColumnOf<C>,
{
    /// The world's storage, as the system names it.
    fn shared(map: &SparseMap<C, X>) -> &SparseMap<C, Self>;

    /// The world's storage, mutably, as the system names it.
    fn unique(map: &mut SparseMap<C, X>) -> &mut SparseMap<C, Self>;
}

impl<W: ColumnOf<C, Track = T>, C, T: Track> StoredAs<W, C, T> for T {
    #[inline(always)]
    fn shared(map: &SparseMap<C, T>) -> &SparseMap<C, T> {
        map
    }

    #[inline(always)]
    fn unique(map: &mut SparseMap<C, T>) -> &mut SparseMap<C, T> {
        map
    }
}

impl<W: Storages> ReadParam<W> for EntityAllocator {
    const TARGET: Target = Target::Entities;
    type Claim = Reads<Self, Ents>;

    #[inline]
    fn read<'a>(source: &mut Source<'a, W>) -> &'a Self {
        W::borrowed_entities(source.split(), TOKEN)
    }
}

impl<W: Storages + 'static> WriteParam<W> for Commands<W> {
    const TARGET: Option<Target> = None;
    type Claim = Free;
    type State = Commands<W>;

    #[inline]
    fn write<'a>(state: &'a mut Commands<W>, _: &mut Source<'a, W>) -> &'a mut Self {
        state
    }

    const APPLIES: bool = true;

    fn apply(state: &mut Commands<W>, world: &mut W, reports: &mut Vec<ApplyReport>) {
        if !state.is_empty() {
            reports.push(crate::commands::apply(world, state));
        }
    }

    fn hand_over(state: &mut Commands<W>, _: &mut W, later: &mut Vec<Commands<W>>) {
        if !state.is_empty() {
            later.push(core::mem::take(state));
        }
    }
}

/// One parameter of a system: `&T` for a [`ReadParam`] `T`, `&mut T` for a
/// [`WriteParam`] `T`. This is also the guide to systems and stages.
///
/// # Systems and stages
///
/// A system is a function or closure. Its parameters are its declaration:
///
/// | parameter | touches |
/// |---|---|
/// | `&SparseMap<C>` | reads the component `C` |
/// | `&mut SparseMap<C>` | writes `C` |
/// | `&R` | reads the resource `R` (declared in `resources { … }`) |
/// | `&mut R` | writes `R` |
/// | `&EntityAllocator` | reads which entities are alive |
/// | `&mut Commands<W>` | the system's own command buffer (nothing shared) |
/// | `&mut Local<T>` | the system's own value, kept between runs, starting at `T::default()` (nothing shared) |
/// | `&mut W` | the whole world: the system is *exclusive*, and takes nothing else |
///
/// Up to 12 parameters. The same component or resource twice, once as
/// `&mut`, is a compile error; so is `&mut W` beside other parameters
/// (a `&mut Commands<W>` or a `&mut Local<T>` may come along).
///
/// [`Schedule::add_systems`](crate::Schedule::add_systems) adds a *stage*:
/// systems that may run at the same time. Two members that conflict (one
/// writes what the other reads or writes, or one is exclusive) are a
/// compile error (in `cargo check` too) that names both and the component or
/// resource. With the
/// `rayon` feature a stage's systems run on rayon's pool; without it, one
/// after the other, with the same results. Either way no borrow flag is
/// checked at run time and no `unsafe` is written: the schedule splits
/// `&mut W` field by field, as [`join`](crate::join) does.
///
/// A system's `Commands` are applied at the next sync point
/// ([`Schedule::add_sync_point`](crate::Schedule::add_sync_point)), system
/// after system in the order they ran, before `finalize_updates`; their
/// reports are in [`Schedule::last_reports`](crate::Schedule::last_reports).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// #[derive(Clone, Copy)]
/// struct Position(f32);
/// struct Velocity(f32);
/// struct Health(i32);
/// #[derive(Default)]
/// struct Time { dt: f32 }
/// #[derive(Default)]
/// struct Score(u32);
///
/// world! {
///     pub struct Game<Position, Velocity, Health>;
///     resources { time: Time, score: Score }
/// }
///
/// fn movement(pos: &mut SparseMap<Position>, vel: &SparseMap<Velocity>, time: &Time) {
///     join((pos, vel)).for_each(|_, (p, v)| p.0 += v.0 * time.dt);
/// }
/// fn poison(health: &mut SparseMap<Health>) {
///     health.values_mut().iter_mut().for_each(|h| h.0 -= 1);
/// }
/// fn reaper(health: &SparseMap<Health>, score: &mut Score, commands: &mut Commands<Game>) {
///     for (entity, h) in health.iter() {
///         if h.0 <= 0 {
///             commands.despawn(entity);
///             score.0 += 1;
///         }
///     }
/// }
///
/// let mut world = Game::new();
/// world.time.dt = 0.5;
/// world.spawn_with((Position(0.0), Velocity(2.0), Health(2)));
///
/// let mut schedule = Schedule::new();
/// schedule
///     .add_systems((movement, poison)) // disjoint: may run in parallel
///     .add_system(reaper)
///     .add_sync_point(); // applies the reaper's commands
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!((world.entity_count(), world.score.0), (0, 1));
/// ```
///
/// The conflicts are compile errors:
///
/// ```compile_fail
/// # use typed_ecs::prelude::*;
/// # struct Position(f32);
/// # world! { pub struct Game<Position>; }
/// fn write(pos: &mut SparseMap<Position>) {}
/// fn read(pos: &SparseMap<Position>) {}
/// let mut schedule = Schedule::<Game>::new();
/// // two systems of one stage conflict: `… {write}` writes `SparseMap<Position>`, which `… {read}` reads
/// schedule.add_systems((write, read));
/// ```
///
/// # Naming a parameter kind
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::SystemParam;
///
/// struct Pos(f32);
/// #[derive(Default)]
/// struct Time(f32);
/// world! {
///     struct Game<Pos>;
///     resources { time: Time }
/// }
///
/// fn is_parameter<P: SystemParam<Game>>() {}
/// is_parameter::<&SparseMap<Pos>>();
/// is_parameter::<&mut SparseMap<Pos>>();
/// is_parameter::<&Time>();
/// is_parameter::<&mut Time>();
/// is_parameter::<&EntityAllocator>();
/// is_parameter::<&mut Commands<Game>>();
/// is_parameter::<&mut Game>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a system of `{W}`",
    label = "not a system parameter",
    note = "a system's parameters are `&SparseMap<C>` / `&mut SparseMap<C>` (C a component of `{W}`), `&R` / `&mut R` (R a resource of `{W}`), `&EntityAllocator`, `&mut Commands<{W}>`, `&mut Local<T>`, `&Events<E>`, `&mut Writer<E>`, `&mut Reader<E>`, or a single `&mut {W}`"
)]
pub trait SystemParam<W: Storages + 'static>: crate::seal::Sealed {
    /// The parameter as the system receives it, borrowed for `'a`.
    type Item<'a>;

    /// What the system keeps for this parameter between runs.
    type State: Default + 'static;

    /// What the parameter borrows; `None` for a command buffer.
    const ACCESS: Option<Access>;

    /// What the parameter borrows, as a type (see [`ReadParam::Claim`]
    /// and [`WriteParam::Claim`]).
    type Claim;

    /// `true` if [`apply`](SystemParam::apply) does anything.
    const APPLIES: bool;

    /// `true` if [`register`](SystemParam::register) does anything.
    const REGISTERS: bool;

    /// See [`WriteParam::event`].
    fn event() -> Option<(&'static str, bool)>;

    /// At the start of each run of the schedule (see
    /// [`WriteParam::register`]).
    fn register(state: &mut Self::State, world: &mut W);

    /// See [`WriteParam::missed`].
    fn missed(state: &Self::State) -> Option<(&'static str, u64)>;

    /// Readies the parameter with the whole world before the system runs
    /// (see [`WriteParam::prepare`]).
    fn prepare(state: &mut Self::State, world: &mut W);

    /// Takes the parameter out of `source` (or `state`).
    fn fetch<'a>(state: &'a mut Self::State, source: &mut Source<'a, W>) -> Self::Item<'a>;

    /// At a sync point: applies what the state queued.
    fn apply(state: &mut Self::State, world: &mut W, reports: &mut Vec<ApplyReport>);

    /// After a hook ran (see [`WriteParam::hand_over`]).
    fn hand_over(state: &mut Self::State, world: &mut W, later: &mut Vec<Commands<W>>);
}

impl<T: ?Sized> crate::seal::Sealed for &T {}
impl<T: ?Sized> crate::seal::Sealed for &mut T {}

impl<W: Storages + 'static, T: ReadParam<W> + 'static> SystemParam<W> for &T {
    type Item<'a> = &'a T;
    type State = ();
    const ACCESS: Option<Access> = Some(Access::read(T::TARGET));
    type Claim = T::Claim;
    const APPLIES: bool = false;
    const REGISTERS: bool = false;

    fn register(_: &mut (), _: &mut W) {}

    fn missed(_: &()) -> Option<(&'static str, u64)> {
        None
    }

    fn event() -> Option<(&'static str, bool)> {
        None
    }

    #[inline(always)]
    fn prepare(_: &mut (), world: &mut W) {
        T::prepare(world);
    }

    #[inline]
    fn fetch<'a>(_: &'a mut (), source: &mut Source<'a, W>) -> &'a T {
        T::read(source)
    }

    fn apply(_: &mut (), _: &mut W, _: &mut Vec<ApplyReport>) {}

    #[inline(always)]
    fn hand_over(_: &mut (), _: &mut W, _: &mut Vec<Commands<W>>) {}
}

impl<W: Storages + 'static, T: WriteParam<W> + 'static> SystemParam<W> for &mut T {
    type Item<'a> = &'a mut T;
    type State = T::State;
    const ACCESS: Option<Access> = match T::TARGET {
        Some(target) => Some(Access::write(target)),
        None => None,
    };
    type Claim = T::Claim;
    const APPLIES: bool = T::APPLIES;
    const REGISTERS: bool = T::REGISTERS;

    fn register(state: &mut T::State, world: &mut W) {
        T::register(state, world);
    }

    fn missed(state: &T::State) -> Option<(&'static str, u64)> {
        T::missed(state)
    }

    fn event() -> Option<(&'static str, bool)> {
        T::event()
    }

    #[inline(always)]
    fn prepare(state: &mut T::State, world: &mut W) {
        T::prepare(state, world);
    }

    #[inline]
    fn fetch<'a>(state: &'a mut T::State, source: &mut Source<'a, W>) -> &'a mut T {
        T::write(state, source)
    }

    fn apply(state: &mut T::State, world: &mut W, reports: &mut Vec<ApplyReport>) {
        T::apply(state, world, reports);
    }

    #[inline(always)]
    fn hand_over(state: &mut T::State, world: &mut W, later: &mut Vec<Commands<W>>) {
        T::hand_over(state, world, later);
    }
}
