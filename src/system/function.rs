//! Functions as systems: a function's parameter list, the call, the name.
//!
//! A system is taken in three steps, each a separate bound, so that each
//! compile error points at the right thing:
//!
//! 1. [`SystemShape`] reads the function's parameter list, `fn(P1, P2, …)`,
//!    whatever the parameters are;
//! 2. [`SystemParams`] checks that list: every `Pi` is a [`SystemParam`] (a
//!    wrong one gets that trait's message, or the component's "is not a
//!    component" one), and evaluates the access check (`access.rs`);
//! 3. [`SystemFn`] calls the function with the fetched parameters.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::any::type_name;
use core::marker::PhantomData;

use super::access::{check_system, is_exclusive, Access, Names};
use super::param::{Source, SystemParam};
use crate::plumbing::Storages;
use crate::seal::Sealed;
use crate::ApplyReport;

/// The parameter list of a function: `F: SystemShape<fn(P1, P2)>` for every
/// `F: FnMut(P1, P2)`, up to 12 parameters (the
/// largest tuple with a `Default`, which holds their state). Says nothing about the
/// parameters yet: [`SystemParams`] checks them.
///
/// Generic code that adds systems names the three bounds
/// [`AddSystems::add_system`](crate::AddSystems::add_system) has:
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{SystemFn, SystemParams, SystemShape};
///
/// struct Pos(f32);
/// world! { struct Game<Pos>; }
///
/// /// Adds `system` twice, in any world.
/// fn twice<W: World, M, S>(schedule: &mut Schedule<W>, system: S)
/// where
///     M: SystemParams<W>,
///     S: SystemShape<M> + SystemFn<W, M> + Clone,
/// {
///     schedule.add_system(system.clone()).add_system(system);
/// }
///
/// fn fall(pos: &mut SparseMap<Pos>) {
///     pos.values_mut().iter_mut().for_each(|p| p.0 -= 1.0);
/// }
///
/// let mut schedule = Schedule::new();
/// twice(&mut schedule, fall);
/// let mut world = Game::new();
/// world.spawn_with((Pos(0.0),));
/// schedule.run(&mut world);
/// assert_eq!(world.pos.values()[0].0, -2.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system: a system is a function or closure of at most 12 parameters",
    label = "not a function or closure of 0 to 12 parameters",
    note = "a system takes at most 12 parameters; split a larger one in two systems (in one stage if they do not conflict), or keep what it reads together in a resource",
    note = "a closure names its parameters' types: `|pos: &mut SparseMap<Pos>| …`"
)]
pub trait SystemShape<M> {}

/// A system's parameter list, checked: each is a [`SystemParam`] of `W`.
/// Implemented for `fn(P1, …, Pn)`, n from 0 to 12, by this crate only.
///
/// Generic code that adds systems names the three bounds
/// [`AddSystems::add_system`](crate::AddSystems::add_system) has:
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{SystemFn, SystemParams, SystemShape};
///
/// struct Pos(f32);
/// world! { struct Game<Pos>; }
///
/// /// Adds `system` twice, in any world.
/// fn twice<W: World, M, S>(schedule: &mut Schedule<W>, system: S)
/// where
///     M: SystemParams<W>,
///     S: SystemShape<M> + SystemFn<W, M> + Clone,
/// {
///     schedule.add_system(system.clone()).add_system(system);
/// }
///
/// fn fall(pos: &mut SparseMap<Pos>) {
///     pos.values_mut().iter_mut().for_each(|p| p.0 -= 1.0);
/// }
///
/// let mut schedule = Schedule::new();
/// twice(&mut schedule, fall);
/// let mut world = Game::new();
/// world.spawn_with((Pos(0.0),));
/// schedule.run(&mut world);
/// assert_eq!(world.pos.values()[0].0, -2.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the parameter list of a system of `{W}`",
    note = "a system takes up to 12 parameters, each `&SparseMap<C>`, `&mut SparseMap<C>`, `&R`, `&mut R`, `&EntityAllocator`, `&mut Commands<{W}>`, `&mut Local<T>`, `&Events<E>`, `&mut Writer<E>` or `&mut Reader<E>`, or a single `&mut {W}`"
)]
pub trait SystemParams<W: Storages + 'static>: Sealed + 'static {
    /// The parameters as the function receives them.
    type Items<'a>;

    /// What the system keeps between runs: its command buffers.
    type State: Default + 'static;

    /// What each parameter borrows, in order.
    const ACCESS: &'static [Option<Access>];

    /// What each parameter borrows, as a tuple of types, for the checks
    /// `cargo check` sees.
    type Claims;

    /// `true` if a parameter is `&mut W`.
    const EXCLUSIVE: bool;

    /// `true` if [`apply`](SystemParams::apply) does anything.
    const APPLIES: bool;

    /// `true` if [`register`](SystemParams::register) does anything.
    const REGISTERS: bool;

    /// At the start of each run of the schedule: every parameter that
    /// reads events registers (see [`WriteParam::register`](super::WriteParam::register)).
    fn register(state: &mut Self::State, world: &mut W);

    /// The events the parameters read or write (see
    /// [`WriteParam::event`](super::WriteParam::event)), pushed to `out`.
    fn events(out: &mut Vec<(&'static str, bool)>);

    /// What each reader of events missed (see
    /// [`WriteParam::missed`](super::WriteParam::missed)), pushed to `out`.
    fn missed(state: &Self::State, out: &mut Vec<(&'static str, u64)>);

    /// The compile-time check of [`ACCESS`](SystemParams::ACCESS): a
    /// `&mut` borrow is the only borrow of its target, and `&mut W` comes
    /// alone. Evaluated where a system is added, so the error names the
    /// caller's line.
    const CHECK: () = {
        let message = check_system(names::<W>(), <Self as SystemParams<W>>::ACCESS);
        if !message.is_empty() {
            panic!("{}", message.as_str());
        }
    };

    /// Readies every parameter with the whole world before the system runs
    /// (see [`WriteParam::prepare`](super::WriteParam::prepare)).
    fn prepare(state: &mut Self::State, world: &mut W);

    /// Takes every parameter out of `source` (or `state`).
    fn fetch<'a>(state: &'a mut Self::State, source: &mut Source<'a, W>) -> Self::Items<'a>;

    /// At a sync point: applies each command buffer, in parameter order.
    fn apply(state: &mut Self::State, world: &mut W, reports: &mut Vec<ApplyReport>);

    /// After a hook ran: each parameter hands on what it queued (see
    /// [`WriteParam::hand_over`](super::WriteParam::hand_over)).
    fn hand_over(state: &mut Self::State, world: &mut W, later: &mut Vec<crate::Commands<W>>);
}

/// The names a compile-time message uses, for the world `W`.
pub(crate) const fn names<W: Storages>() -> Names {
    Names {
        world: W::WORLD,
        components: W::COMPONENTS,
        resources: W::RESOURCES,
    }
}

/// A function that can be called with the parameters `M` lists: every
/// `FnMut` whose parameters are system parameters, and [`Named`] systems.
///
/// Generic code that adds systems names the three bounds
/// [`AddSystems::add_system`](crate::AddSystems::add_system) has:
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{SystemFn, SystemParams, SystemShape};
///
/// struct Pos(f32);
/// world! { struct Game<Pos>; }
///
/// /// Adds `system` twice, in any world.
/// fn twice<W: World, M, S>(schedule: &mut Schedule<W>, system: S)
/// where
///     M: SystemParams<W>,
///     S: SystemShape<M> + SystemFn<W, M> + Clone,
/// {
///     schedule.add_system(system.clone()).add_system(system);
/// }
///
/// fn fall(pos: &mut SparseMap<Pos>) {
///     pos.values_mut().iter_mut().for_each(|p| p.0 -= 1.0);
/// }
///
/// let mut schedule = Schedule::new();
/// twice(&mut schedule, fall);
/// let mut world = Game::new();
/// world.spawn_with((Pos(0.0),));
/// schedule.run(&mut world);
/// assert_eq!(world.pos.values()[0].0, -2.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system of `{W}`",
    note = "a system is a function or closure (`'static`) of at most 12 parameters, which are `&SparseMap<C>`, `&mut SparseMap<C>`, `&R`, `&mut R`, `&EntityAllocator`, `&mut Commands<{W}>`, `&mut Local<T>`, `&Events<E>`, `&mut Writer<E>` or `&mut Reader<E>`, or a single `&mut {W}`; closures name their parameters' types"
)]
pub trait SystemFn<W: Storages + 'static, M: SystemParams<W>>: 'static {
    /// Calls the system.
    fn call(&mut self, items: M::Items<'_>);

    /// The system's name: a function's name (`integrate`, its module path
    /// left out), a closure's as the function it is written in
    /// (`main::{{closure}}`), or the name given to [`named`]. A schedule
    /// tells apart systems of the same name by appending `#2`, `#3`, ….
    fn name(&self) -> Cow<'static, str> {
        Cow::Owned(short_name(type_name::<Self>()))
    }
}

/// `type_name` without module paths: `my_game::physics::integrate` is
/// `integrate`, `my_game::main::{{closure}}` is `main::{{closure}}`, and
/// the paths inside generic arguments are shortened the same way
/// (`spawn<my_game::Game>` is `spawn<Game>`).
pub(crate) fn short_name(full: &str) -> String {
    fn last_segments(path: &str, out: &mut String) {
        let segments: Vec<&str> = path.split("::").collect();
        let keep = match segments.as_slice() {
            [.., parent, last] if last.starts_with("{{") => {
                2 + usize::from(parent.starts_with("{{"))
            }
            _ => 1,
        };
        let from = segments.len().saturating_sub(keep);
        out.push_str(&segments[from..].join("::"));
    }
    let mut out = String::with_capacity(full.len());
    let mut path = String::new();
    for c in full.chars() {
        if matches!(
            c,
            '<' | '>' | ',' | ' ' | '(' | ')' | '[' | ']' | '&' | ';' | '*'
        ) {
            last_segments(&path, &mut out);
            path.clear();
            out.push(c);
        } else {
            path.push(c);
        }
    }
    last_segments(&path, &mut out);
    out
}

macro_rules! impl_system_fn {
    ($($p:ident $item:ident),*) => {
        impl<F: FnMut($($p),*), $($p),*> SystemShape<fn($($p),*)> for F {}

        impl<$($p),*> Sealed for fn($($p),*) {}

        impl<W: Storages + 'static, $($p: SystemParam<W> + 'static),*> SystemParams<W> for fn($($p),*) {
            type Items<'a> = ($($p::Item<'a>,)*);
            type State = ($($p::State,)*);
            const ACCESS: &'static [Option<Access>] = &[$($p::ACCESS),*];
            type Claims = ($($p::Claim,)*);
            const EXCLUSIVE: bool = is_exclusive(<Self as SystemParams<W>>::ACCESS);
            const APPLIES: bool = false $(|| $p::APPLIES)*;
            const REGISTERS: bool = false $(|| $p::REGISTERS)*;

            #[allow(unused_variables)]
            fn events(out: &mut Vec<(&'static str, bool)>) {
                $(out.extend($p::event());)*
            }

            #[allow(unused_variables)]
            fn missed(state: &Self::State, out: &mut Vec<(&'static str, u64)>) {
                let ($($item,)*) = state;
                $(out.extend($p::missed($item));)*
            }

            #[allow(unused_variables)]
            fn register(state: &mut Self::State, world: &mut W) {
                let ($($item,)*) = state;
                $(if $p::REGISTERS {
                    $p::register($item, world);
                })*
            }

            #[inline(always)]
            #[allow(unused_variables)]
            fn prepare(state: &mut Self::State, world: &mut W) {
                let ($($item,)*) = state;
                $($p::prepare($item, world);)*
            }

            #[inline]
            #[allow(unused_variables, clippy::unused_unit)]
            fn fetch<'a>(state: &'a mut Self::State, source: &mut Source<'a, W>) -> Self::Items<'a> {
                let ($($item,)*) = state;
                ($($p::fetch($item, source),)*)
            }

            #[allow(unused_variables)]
            fn apply(state: &mut Self::State, world: &mut W, reports: &mut Vec<ApplyReport>) {
                let ($($item,)*) = state;
                $($p::apply($item, world, reports);)*
            }

            #[inline]
            #[allow(unused_variables)]
            fn hand_over(state: &mut Self::State, world: &mut W, later: &mut Vec<crate::Commands<W>>) {
                let ($($item,)*) = state;
                $($p::hand_over($item, world, later);)*
            }
        }

        impl<W: Storages + 'static, F, $($p: SystemParam<W> + 'static),*> SystemFn<W, fn($($p),*)> for F
        where
            F: for<'a> FnMut($($p::Item<'a>),*) + 'static,
        {
            #[inline]
            #[allow(unused_variables)]
            fn call(&mut self, items: <fn($($p),*) as SystemParams<W>>::Items<'_>) {
                let ($($item,)*) = items;
                self($($item),*)
            }
        }
    };
}

impl_system_fn!();
impl_system_fn!(P1 p1);
impl_system_fn!(P1 p1, P2 p2);
impl_system_fn!(P1 p1, P2 p2, P3 p3);
impl_system_fn!(P1 p1, P2 p2, P3 p3, P4 p4);
impl_system_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5);
impl_system_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6);
impl_system_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7);
impl_system_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8);
impl_system_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8, P9 p9);
impl_system_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8, P9 p9, P10 p10);
impl_system_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8, P9 p9, P10 p10, P11 p11);
impl_system_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8, P9 p9, P10 p10, P11 p11, P12 p12);

/// A system with the name it shows in [`Schedule::names`](crate::Schedule::names)
/// and in timings; made by [`named`].
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::named;
///
/// struct Pos(f32);
/// world! { struct Game<Pos>; }
///
/// fn fall(pos: &mut SparseMap<Pos>) {
///     pos.values_mut().iter_mut().for_each(|p| p.0 -= 1.0);
/// }
///
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add_systems((named("fall", fall),));
/// assert_eq!(schedule.names().collect::<Vec<_>>(), ["fall"]);
/// ```
#[derive(Clone, Debug)]
pub struct Named<S> {
    name: Cow<'static, str>,
    system: S,
}

/// Gives `system` a name, for [`Schedule::names`](crate::Schedule::names)
/// and the timings of `run_timed`; works inside
/// [`add_systems`](crate::Schedule::add_systems) stages too.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::named;
///
/// struct Pos(f32);
/// struct Vel(f32);
/// world! { struct Game<Pos, Vel>; }
///
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add_systems((
///     named("drift", |pos: &mut SparseMap<Pos>| pos.values_mut().iter_mut().for_each(|p| p.0 += 1.0)),
///     named("drag", |vel: &mut SparseMap<Vel>| vel.values_mut().iter_mut().for_each(|v| v.0 *= 0.9)),
/// ));
/// assert_eq!(schedule.names().collect::<Vec<_>>(), ["drift", "drag"]);
/// ```
pub fn named<S>(name: impl Into<Cow<'static, str>>, system: S) -> Named<S> {
    Named {
        name: name.into(),
        system,
    }
}

impl<M, S: SystemShape<M>> SystemShape<M> for Named<S> {}

impl<W: Storages + 'static, M: SystemParams<W>, S: SystemFn<W, M>> SystemFn<W, M> for Named<S> {
    #[inline]
    fn call(&mut self, items: M::Items<'_>) {
        self.system.call(items);
    }

    fn name(&self) -> Cow<'static, str> {
        self.name.clone()
    }
}

/// A system ready to run: its function, its parameters' state, its name.
pub(crate) struct FunctionSystem<W, M: SystemParams<W>, S>
where
    W: Storages + 'static,
{
    pub(crate) system: S,
    pub(crate) state: M::State,
    pub(crate) name: Cow<'static, str>,
    marker: PhantomData<fn() -> (W, M)>,
}

impl<W: Storages + 'static, M: SystemParams<W>, S: SystemFn<W, M>> FunctionSystem<W, M, S> {
    pub(crate) fn new(system: S) -> Self {
        FunctionSystem {
            name: system.name(),
            system,
            state: M::State::default(),
            marker: PhantomData,
        }
    }

    /// Runs the system alone, on the whole world.
    #[inline]
    pub(crate) fn run(&mut self, world: &mut W) {
        M::prepare(&mut self.state, world);
        let mut source = Source::new(world, M::EXCLUSIVE);
        let items = M::fetch(&mut self.state, &mut source);
        self.system.call(items);
    }
}

/// What the schedule asks of one system, whatever its parameters.
pub trait Member<W> {
    /// The system's name.
    fn name(&self) -> &str;

    /// Renames the system (the schedule tells apart two of one name).
    fn rename(&mut self, name: String);

    /// `true` if the system has command buffers to apply.
    fn applies(&self) -> bool;

    /// Applies the system's command buffers, pushing their reports.
    fn apply(&mut self, world: &mut W, reports: &mut Vec<ApplyReport>);

    /// `true` if the system reads events (see [`register`](Member::register)).
    fn registers(&self) -> bool;

    /// Registers the system's readers of events with the world.
    fn register(&mut self, world: &mut W);

    /// The events the system reads (`false`) or writes (`true`), by type
    /// name, pushed to `out`.
    fn events(&self, out: &mut Vec<(&'static str, bool)>);

    /// What the system's readers of events missed: the event type's name
    /// and the count, pushed to `out`.
    fn missed(&self, out: &mut Vec<(&'static str, u64)>);
}

impl<W: Storages + 'static, M: SystemParams<W>, S: SystemFn<W, M>> Member<W>
    for FunctionSystem<W, M, S>
{
    fn name(&self) -> &str {
        &self.name
    }

    fn rename(&mut self, name: String) {
        self.name = Cow::Owned(name);
    }

    fn applies(&self) -> bool {
        M::APPLIES
    }

    fn apply(&mut self, world: &mut W, reports: &mut Vec<ApplyReport>) {
        M::apply(&mut self.state, world, reports);
    }

    fn registers(&self) -> bool {
        M::REGISTERS
    }

    fn register(&mut self, world: &mut W) {
        M::register(&mut self.state, world);
    }

    fn events(&self, out: &mut Vec<(&'static str, bool)>) {
        M::events(out);
    }

    fn missed(&self, out: &mut Vec<(&'static str, u64)>) {
        M::missed(&self.state, out);
    }
}

#[cfg(test)]
mod tests {
    use super::short_name;

    #[test]
    fn short_names_drop_module_paths_and_keep_a_closure_s_function() {
        assert_eq!(short_name("my_game::physics::integrate"), "integrate");
        assert_eq!(short_name("integrate"), "integrate");
        assert_eq!(
            short_name("my_game::main::{{closure}}"),
            "main::{{closure}}"
        );
        assert_eq!(
            short_name("my_game::main::{{closure}}::{{closure}}"),
            "main::{{closure}}::{{closure}}"
        );
        assert_eq!(
            short_name("my_game::spawn<my_game::Game, alloc::vec::Vec<u8>>"),
            "spawn<Game, Vec<u8>>"
        );
        assert_eq!(short_name("typed_ecs::Named<my::f>"), "Named<f>");
    }
}
