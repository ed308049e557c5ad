//! Lifecycle hooks, declared in `world!` (`hooks { on_add(Health) =>
//! attach_bar; … }`): typed systems whose first parameter is the batch of
//! entities they react to.
//!
//! # How they run
//!
//! The one structural path (`structural/react.rs`) lists what a hook must
//! see as it changes the world: the entities that gained a hooked
//! component, and the values taken out of a storage whose component has
//! `on_remove` hooks. At the end of each change it calls [`settle`], which
//! runs the hook lines in declared order over what is pending, then
//! applies the commands the hooks queued, one level at a time
//! (breadth-first), up to the world's depth. A caller that makes many
//! changes at once (a sync point, a command buffer, a batch spawn or
//! despawn) holds the hooks back and settles once at the end, so each hook
//! sees one batch. `remove`, which hands the value back to its caller, runs
//! the component's `on_remove` hooks over that one value right away.
//! `on_change` hooks run at sync points (`finalize_updates`, a schedule's
//! sync points) over what was written since the last one.
//!
//! # Why hooks cannot corrupt what they react to
//!
//! A hook's parameters are system parameters, whose access is a type (its
//! claims, `system/claims.rs`): a hook that takes `&mut W` or the storage
//! of the component it reacts to mutably, or a parameter that keeps state
//! between runs, fails a trait bound that names the hook ([`HookClaim`]).
//! So a hook can change the world's structure only through `Commands`, and
//! those are applied after it returns, with the world consistent.
//!
//! # Panics
//!
//! A hook runs after its change was applied, so a panic loses nothing
//! applied. The panic goes on out of the call that ran the hook. The batch
//! the panicking hook was given is dropped (each removed value once); the
//! hooks after it in its line do not see that batch, and are listed in the
//! world's [`HookReport`] as [`Skipped`]. Every other pending batch, and
//! every command queued by hooks and not yet applied, stays pending, and
//! runs at the world's next change or sync point.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Deref;

use crate::change::Tracked;
use crate::commands::{ApplyReport, Commands};
use crate::indices::same_tokens;
use crate::indices::{impl_ids_apart, Id};
use crate::plumbing::{ColumnAccess, Storages, TrackedColumn};
use crate::seal::TOKEN;
use crate::structural::Held;
use crate::system::claims::impl_kinds_apart;
use crate::system::claims::{Ents, Free, Kept, Reads, Res, Whole, Writes};
use crate::system::param::{Source, SystemParam};
use crate::system::{Seen, SystemParams};
use crate::{Entity, SparseMap};

// ----- the batches -----

/// The first parameter of an `on_add` hook of `C`: the entities that
/// gained a `C`, in the order they gained it. Derefs to `&[Entity]`.
///
/// The world is consistent when the hook runs, and is as the whole change
/// left it: an entity that gained `C` and lost it again, or was despawned,
/// in the same sync point or command buffer is listed here and in the
/// `on_remove` batch.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::OnAdd;
///
/// struct Health(u32);
/// #[derive(Default)]
/// struct Spawned(Vec<Entity>);
/// world! {
///     struct Game<Health>;
///     resources { spawned: Spawned }
///     hooks { on_add(Health) => log_spawn; }
/// }
///
/// fn log_spawn(added: OnAdd<Health>, log: &mut Spawned) {
///     log.0.extend_from_slice(&added);
/// }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((Health(10),));
/// assert_eq!(world.spawned.0, [e]);
/// ```
pub struct OnAdd<'a, C> {
    entities: &'a [Entity],
    component: PhantomData<fn() -> C>,
}

/// The first parameter of an `on_change` hook of the tracked component
/// `C`: the entities whose `C` changed (was written through `&mut`, or
/// added) since the hook's previous run, and still have one. Derefs to
/// `&[Entity]`. `on_change` hooks run at sync points
/// ([`finalize_updates`](crate::World::finalize_updates), and a
/// schedule's), each change seen once.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::OnChange;
///
/// struct Pos(i32);
/// #[derive(Default)]
/// struct Moved(Vec<Entity>);
/// world! {
///     struct Game<Pos>;
///     resources { moved: Moved }
///     tracked (Pos);
///     hooks { on_change(Pos) => reindex; }
/// }
///
/// fn reindex(changed: OnChange<Pos>, moved: &mut Moved) {
///     moved.0.extend_from_slice(&changed);
/// }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((Pos(0),));
/// world.finalize_updates(); // the add counts as a change
/// assert_eq!(world.moved.0, [e]);
/// world.pos.get_mut(e).unwrap().0 = 3;
/// world.finalize_updates();
/// assert_eq!(world.moved.0, [e, e]);
/// ```
pub struct OnChange<'a, C> {
    entities: &'a [Entity],
    component: PhantomData<fn() -> C>,
}

/// The first parameter of an `on_remove` hook of `C`: each entity that
/// lost its `C`, with the value it lost, in the order they were removed.
/// Derefs to `&[(Entity, C)]`; iterating it gives `(Entity, &C)`.
///
/// The values are out of their storage and the world is consistent when
/// the hook runs. Every hook of the line sees every value; after the last
/// one, a value goes where it would without hooks: back to the caller of
/// [`remove`](crate::World::remove), or dropped (a despawn, `remove_all`,
/// `clear`, a queued removal).
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::OnRemove;
///
/// struct Body(u32);
/// #[derive(Default)]
/// struct Physics { freed: Vec<u32> }
/// world! {
///     struct Game<Body>;
///     resources { physics: Physics }
///     hooks { on_remove(Body) => free_body; }
/// }
///
/// fn free_body(removed: OnRemove<Body>, physics: &mut Physics) {
///     for (_, body) in removed {
///         physics.freed.push(body.0);
///     }
/// }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((Body(7),));
/// world.despawn(e);
/// assert_eq!(world.physics.freed, [7]);
/// ```
pub struct OnRemove<'a, C> {
    removed: &'a [(Entity, C)],
}

impl<C> Deref for OnRemove<'_, C> {
    type Target = [(Entity, C)];

    #[inline]
    fn deref(&self) -> &[(Entity, C)] {
        self.removed
    }
}

/// The iterator of an [`OnRemove`] batch: `(Entity, &C)`.
pub type RemovedIter<'a, C> =
    core::iter::Map<core::slice::Iter<'a, (Entity, C)>, fn(&'a (Entity, C)) -> (Entity, &'a C)>;

impl<'a, C> IntoIterator for OnRemove<'a, C> {
    type Item = (Entity, &'a C);
    type IntoIter = RemovedIter<'a, C>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.removed.iter().map(|(entity, value)| (*entity, value))
    }
}

impl<C> Clone for OnRemove<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for OnRemove<'_, C> {}

impl<C> fmt::Debug for OnRemove<'_, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entities: Vec<Entity> = self.removed.iter().map(|(entity, _)| *entity).collect();
        f.debug_tuple("OnRemove").field(&entities).finish()
    }
}

/// What a hook reacts to: its kind, and (in [`Skipped`]) the kind of the
/// hooks that missed a batch.
///
/// ```
/// use typed_ecs::HookKind;
/// assert_ne!(HookKind::Add, HookKind::Remove);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookKind {
    /// `on_add`: entities gained the component.
    Add,
    /// `on_remove`: entities lost the component.
    Remove,
    /// `on_change`: the component's values changed.
    Change,
}

impl HookKind {
    /// The kind's number in a world's list of hook lines.
    const fn code(self) -> u8 {
        match self {
            HookKind::Add => 0,
            HookKind::Remove => 1,
            HookKind::Change => 2,
        }
    }
}

/// One kind of batch: what it is made from. Implemented for `OnAdd`,
/// `OnRemove` and `OnChange` (with the lifetime `'static`, as a hook's
/// signature names them). Not public API.
#[doc(hidden)]
pub trait Batch: 'static {
    /// The component the batch is about.
    type Component: 'static;
    /// What the batch is made from.
    type Data: ?Sized + 'static;
    /// The batch, over data borrowed for `'a`.
    type Of<'a>;
    /// Which hooks take it.
    const KIND: HookKind;
    /// The batch over `data`.
    fn of(data: &Self::Data) -> Self::Of<'_>;
}

/// What `OnAdd` and `OnChange`, two batches of entities, both are: a
/// slice of entities, iterated by value, and a [`Batch`] of their kind.
macro_rules! entity_batch {
    ($batch:ident, $kind:expr) => {
        impl<C> Deref for $batch<'_, C> {
            type Target = [Entity];

            #[inline]
            fn deref(&self) -> &[Entity] {
                self.entities
            }
        }

        impl<'a, C> IntoIterator for $batch<'a, C> {
            type Item = Entity;
            type IntoIter = core::iter::Copied<core::slice::Iter<'a, Entity>>;

            #[inline]
            fn into_iter(self) -> Self::IntoIter {
                self.entities.iter().copied()
            }
        }

        // A batch is a borrowed slice: copied freely (and taken by value
        // in a hook's signature without a lint's complaint).
        impl<C> Clone for $batch<'_, C> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<C> Copy for $batch<'_, C> {}

        impl<C> fmt::Debug for $batch<'_, C> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($batch))
                    .field(&self.entities)
                    .finish()
            }
        }

        impl<C: 'static> Batch for $batch<'static, C> {
            type Component = C;
            type Data = [Entity];
            type Of<'a> = $batch<'a, C>;
            const KIND: HookKind = $kind;

            #[inline]
            fn of(entities: &[Entity]) -> $batch<'_, C> {
                $batch {
                    entities,
                    component: PhantomData,
                }
            }
        }
    };
}

entity_batch!(OnAdd, HookKind::Add);
entity_batch!(OnChange, HookKind::Change);

impl<C: 'static> Batch for OnRemove<'static, C> {
    type Component = C;
    type Data = [(Entity, C)];
    type Of<'a> = OnRemove<'a, C>;
    const KIND: HookKind = HookKind::Remove;

    #[inline]
    fn of(removed: &[(Entity, C)]) -> OnRemove<'_, C> {
        OnRemove { removed }
    }
}

// ----- hooks as functions -----

/// The signature of a hook: `F: HookShape<fn(B, P1, …)>` for every
/// `F: FnMut(B, P1, …)`. Says nothing about the parameters yet. Not
/// public API.
#[doc(hidden)]
pub trait HookShape<M> {}

/// A hook of the world `W` whose signature is `M`: its batch, its system
/// parameters, and the call. Not public API.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hook of `{W}`",
    note = "a hook is a function whose first parameter is its batch (`OnAdd<C>`, `OnRemove<C>` or `OnChange<C>`), followed by at most 11 system parameters of `{W}`"
)]
pub trait HookFn<W: Storages, M>: 'static {
    /// The batch it takes.
    type Batch: Batch;
    /// Its system parameters.
    type Params: SystemParams<W>;
    /// Calls the hook.
    fn call<'a>(
        &mut self,
        batch: <Self::Batch as Batch>::Of<'a>,
        items: <Self::Params as SystemParams<W>>::Items<'a>,
    );
}

macro_rules! impl_hook_fn {
    ($($p:ident $item:ident),*) => {
        impl<F: FnMut(B, $($p),*), B, $($p),*> HookShape<fn(B, $($p),*)> for F {}

        impl<W, F, B, $($p),*> HookFn<W, fn(B, $($p),*)> for F
        where
            W: Storages + 'static,
            B: Batch,
            $($p: SystemParam<W> + 'static,)*
            F: for<'a> FnMut(B::Of<'a>, $($p::Item<'a>),*) + 'static,
        {
            type Batch = B;
            type Params = fn($($p),*);

            #[inline]
            #[allow(unused_variables)]
            fn call<'a>(&mut self, batch: B::Of<'a>, items: <fn($($p),*) as SystemParams<W>>::Items<'a>) {
                let ($($item,)*) = items;
                self(batch, $($item),*)
            }
        }
    };
}

impl_hook_fn!();
impl_hook_fn!(P1 p1);
impl_hook_fn!(P1 p1, P2 p2);
impl_hook_fn!(P1 p1, P2 p2, P3 p3);
impl_hook_fn!(P1 p1, P2 p2, P3 p3, P4 p4);
impl_hook_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5);
impl_hook_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6);
impl_hook_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7);
impl_hook_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8);
impl_hook_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8, P9 p9);
impl_hook_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8, P9 p9, P10 p10);
impl_hook_fn!(P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8, P9 p9, P10 p10, P11 p11);

// ----- the rules, as trait bounds -----

/// A hook `S` takes `&mut Self`, the storage of the component it reacts to.
#[diagnostic::on_unimplemented(
    message = "the hook `{S}` takes `&mut {Self}`, the storage of the component it reacts to",
    label = "a hook may read the storage it reacts to, not write it",
    note = "take `&{Self}` to read the values, and queue changes to them with `&mut Commands<{W}>`, applied after the hook returns"
)]
pub trait NotTheReacted<W, S, A, B> {}

impl_kinds_apart!(NotTheReacted<W, S>);

/// A hook `S` takes `&mut W`.
#[diagnostic::on_unimplemented(
    message = "the hook `{Self}` takes `&mut {W}`, the whole world",
    label = "a hook runs in the middle of a change to the world",
    note = "take the storages and resources it needs, and queue structural changes with `&mut Commands<{W}>`, applied after the hook returns"
)]
pub trait HookTakesNoWorld<W> {}

/// A hook `S` takes a parameter that keeps state between runs.
#[diagnostic::on_unimplemented(
    message = "the hook `{Self}` takes a `Local`, a `Seen` or a `Reader`, which keep state between runs",
    label = "a hook keeps nothing between its batches",
    note = "keep the state in a resource of `{W}` and take it as `&mut R`"
)]
pub trait HookKeepsNothing<W> {}

/// One claim (`Self`) of the hook `S` of a component whose index as a
/// type is `I`: it may stand in a hook. Not public API.
#[doc(hidden)]
pub trait HookClaim<W, S, I> {}

impl<W, S, I> HookClaim<W, S, I> for Free {}
impl<W, S, I, T: ?Sized, J> HookClaim<W, S, I> for Reads<T, J> {}
impl<W, S, I, T: ?Sized, J> HookClaim<W, S, I> for Writes<T, J> where T: NotTheReacted<W, S, J, I> {}
impl<W, S: HookTakesNoWorld<W>, I> HookClaim<W, S, I> for Whole {}
impl<W, S: HookKeepsNothing<W>, I> HookClaim<W, S, I> for Kept {}

/// A hook's claims (`Self`, a tuple), each a [`HookClaim`]. Not public
/// API.
#[doc(hidden)]
pub trait HookRules<W, S, I> {}

macro_rules! impl_hook_rules {
    ($($a:ident),*) => {
        impl<W, S, I, $($a: HookClaim<W, S, I>),*> HookRules<W, S, I> for ($($a,)*) {}
    };
}

impl_hook_rules!();
impl_hook_rules!(A1);
impl_hook_rules!(A1, A2);
impl_hook_rules!(A1, A2, A3);
impl_hook_rules!(A1, A2, A3, A4);
impl_hook_rules!(A1, A2, A3, A4, A5);
impl_hook_rules!(A1, A2, A3, A4, A5, A6);
impl_hook_rules!(A1, A2, A3, A4, A5, A6, A7);
impl_hook_rules!(A1, A2, A3, A4, A5, A6, A7, A8);
impl_hook_rules!(A1, A2, A3, A4, A5, A6, A7, A8, A9);
impl_hook_rules!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10);
impl_hook_rules!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11);

// ----- the world's side -----

/// What a world keeps for its hooks (a hidden field of the world): the
/// commands they queued, the line running, and the report. Not public
/// API.
#[doc(hidden)]
pub struct HookState<W: Storages> {
    /// Queued by hooks of the level running: the next level.
    later: Vec<Commands<W>>,
    /// The level being applied, in order.
    now: VecDeque<Commands<W>>,
    /// The line running: still set after a panic in one of its hooks.
    running: Option<Running>,
    /// What the user is told.
    report: HookReport,
}

/// The hook line running, and how far it got.
#[derive(Clone, Copy)]
struct Running {
    component: &'static str,
    kind: HookKind,
    hooks: &'static [&'static str],
    /// The hooks before this one have been called.
    next: usize,
    batch: usize,
}

impl<W: Storages> Default for HookState<W> {
    fn default() -> Self {
        HookState {
            later: Vec::new(),
            now: VecDeque::new(),
            running: None,
            report: HookReport::default(),
        }
    }
}

impl<W: Storages> Clone for HookState<W> {
    /// A clone of a world runs no hooks for what waited in the original,
    /// and starts with an empty report.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl<W: Storages> fmt::Debug for HookState<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookState")
            .field("commands_waiting", &(self.later.len() + self.now.len()))
            .field("report", &self.report)
            .finish()
    }
}

/// What a world keeps for the hooks of one component (a hidden field of
/// the world): the removed values waiting for its `on_remove` hooks, and
/// where its `on_change` hooks stand in its change log. Not public API.
#[doc(hidden)]
pub struct Reactions<C> {
    removed: Vec<(Entity, C)>,
    seen: Seen<C>,
}

impl<C> Reactions<C> {
    /// The removed values waiting for the `on_remove` hooks.
    #[inline]
    pub fn removed(&mut self) -> &mut Vec<(Entity, C)> {
        &mut self.removed
    }
}

impl<C> Default for Reactions<C> {
    fn default() -> Self {
        Reactions {
            removed: Vec::new(),
            seen: Seen::default(),
        }
    }
}

impl<C> Clone for Reactions<C> {
    /// See [`HookState`]'s `clone`: nothing waiting is cloned.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl<C> fmt::Debug for Reactions<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reactions")
            .field("removed_waiting", &self.removed.len())
            .finish()
    }
}

/// What a world keeps for its hooks: a hidden field of every world. Not
/// public API.
#[doc(hidden)]
pub struct Hooks<W: HookHome> {
    state: HookState<W>,
    /// One [`Reactions`] per component.
    reactions: W::Reactions,
}

impl<W: HookHome> Hooks<W> {
    /// The [`Reactions`] of every component (a struct `world!` generates).
    #[inline]
    pub fn reactions(&mut self) -> &mut W::Reactions {
        &mut self.reactions
    }
}

impl<W: HookHome> Default for Hooks<W> {
    fn default() -> Self {
        Hooks {
            state: HookState::default(),
            reactions: W::Reactions::default(),
        }
    }
}

impl<W: HookHome> Clone for Hooks<W> {
    /// A clone of a world runs no hooks for what waited in the original,
    /// and starts with an empty report.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl<W: HookHome> fmt::Debug for Hooks<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.state.fmt(f)
    }
}

/// Where a world keeps its hooks' state: implemented by `world!` for
/// every world. Not public API.
#[doc(hidden)]
pub trait HookHome: Storages {
    /// One [`Reactions`] per component.
    type Reactions: Default;

    /// The world's hooks' state.
    fn hooks_mut(&mut self) -> &mut Hooks<Self>;

    /// The world's hook state.
    #[inline]
    fn hook_state(&mut self) -> &mut HookState<Self> {
        &mut self.hooks_mut().state
    }
}

/// What `world!` implements for each world: its hook lines. Not public
/// API.
#[doc(hidden)]
pub trait HookLines: HookHome {
    /// Each line, in declared order: its kind's code and its component,
    /// as written.
    const LINES: &'static [(u8, &'static str)];

    /// How many levels of commands queued by hooks one change applies.
    const DEPTH: usize;

    /// Runs every line over what is pending, in declared order (the
    /// `on_change` lines only if `sync`).
    fn run_lines(&mut self, sync: bool);
}

/// Where a component's [`Reactions`] are. Implemented by `world!`. Not
/// public API.
#[doc(hidden)]
pub trait ReactionsIn<W>: Sized {
    /// `world`'s reactions of this component.
    fn reactions(world: &mut W) -> &mut Reactions<Self>;
}

// ----- what the lines of `world!` call -----

/// The code of `kind` (for the macro's list of lines).
#[doc(hidden)]
pub const fn kind_code(kind: HookKind) -> u8 {
    kind.code()
}

/// How many lines of `kind` `lines` has.
#[doc(hidden)]
pub const fn count_lines(lines: &[(u8, &str)], kind: HookKind) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < lines.len() {
        if lines[i].0 == kind.code() {
            count += 1;
        }
        i += 1;
    }
    count
}

/// The storage index of the component of each line of `kind`, in order:
/// `components` are the world's, as written. Fails the build, with a
/// message, if a line's component is not one of them, or if two lines of
/// one kind name one component.
#[doc(hidden)]
pub const fn line_fields<const N: usize>(
    lines: &[(u8, &str)],
    kind: HookKind,
    components: &[&str],
) -> [usize; N] {
    let mut out = [0; N];
    let mut n = 0;
    let mut i = 0;
    while i < lines.len() {
        if lines[i].0 == kind.code() {
            let mut field = 0;
            while field < components.len() && !same_tokens(components[field], lines[i].1) {
                field += 1;
            }
            if field == components.len() {
                panic!("a component in `hooks {{ … }}` is not one of the world's components, as written there: name each hooked component exactly as in the component list");
            }
            let mut j = 0;
            while j < n {
                if out[j] == field {
                    panic!("a component has two hook lines of one kind in `hooks {{ … }}`: list all its hooks of that kind in one line (`on_add(C) => first, second;`), in the order they run");
                }
                j += 1;
            }
            out[n] = field;
            n += 1;
        }
        i += 1;
    }
    out
}

/// The position of the line of `kind` for `component` among `lines`, or
/// `usize::MAX` if there is none.
#[doc(hidden)]
pub const fn line_of(lines: &[(u8, &str)], kind: HookKind, component: &str) -> usize {
    let mut i = 0;
    while i < lines.len() {
        if lines[i].0 == kind.code() && same_tokens(lines[i].1, component) {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

/// The entities waiting for `C`'s `on_add` hooks, taken (empty if none).
#[doc(hidden)]
#[inline]
pub fn take_added<W: ColumnAccess<C>, C>(world: &mut W) -> Vec<Entity> {
    let added = &mut world.queued(TOKEN).pending.added;
    added
        .get_mut(<W as ColumnAccess<C>>::INDEX)
        .map(core::mem::take)
        .unwrap_or_default()
}

/// Gives back the list [`take_added`] took, emptied, to keep its memory
/// for the next batch.
#[doc(hidden)]
#[inline]
pub fn give_back_added<W: ColumnAccess<C>, C>(world: &mut W, mut batch: Vec<Entity>) {
    batch.clear();
    let added = &mut world.queued(TOKEN).pending.added;
    if let Some(slot) = added.get_mut(<W as ColumnAccess<C>>::INDEX) {
        if slot.is_empty() {
            *slot = batch;
        }
    }
}

/// The removed values waiting for `C`'s `on_remove` hooks, taken.
#[doc(hidden)]
#[inline]
pub fn take_removed<W: ColumnAccess<C>, C>(world: &mut W) -> Vec<(Entity, C)> {
    core::mem::take(world.pending_removed())
}

/// The entities whose `C` changed since the `on_change` hooks last looked,
/// and still have one: from the world's own [`Seen`] of `C`.
#[doc(hidden)]
pub fn take_changed<W, C>(world: &mut W) -> Vec<Entity>
where
    W: Storages,
    C: TrackedColumn<W> + ReactionsIn<W> + 'static,
{
    let mut seen = core::mem::take(&mut C::reactions(world).seen);
    let map: &mut SparseMap<C, Tracked> = C::field_mut(world, TOKEN);
    // Changes only: the log's removals are not held for this look.
    seen.next_look(map.log_mut());
    // What was written until now is this look's.
    map.log_mut().tick();
    let mut changed = Vec::new();
    crate::query::join(seen.changed(map)).for_each(|entity, _| changed.push(entity));
    // The changes from the next look's start on are kept for it.
    map.log_mut().keep_for_hooks(seen.next_position());
    C::reactions(world).seen = seen;
    changed
}

/// Runs `C`'s `on_remove` hooks over `removed`, now.
#[doc(hidden)]
#[inline]
pub fn run_removed<W: ColumnAccess<C>, C>(world: &mut W, removed: &[(Entity, C)]) {
    world.run_remove_hooks(removed);
}

/// A line starts over a batch of `batch` entries.
#[doc(hidden)]
#[inline]
pub fn line_start<W: HookHome>(
    world: &mut W,
    kind: HookKind,
    component: &'static str,
    hooks: &'static [&'static str],
    batch: usize,
) {
    // A line a panic stopped before (`remove` runs its line outside a
    // settle) is reported first.
    interrupted(world.hook_state());
    world.hook_state().running = Some(Running {
        component,
        kind,
        hooks,
        next: 0,
        batch,
    });
}

/// The line's next hook is called.
#[doc(hidden)]
#[inline]
pub fn line_next<W: HookHome>(world: &mut W) {
    if let Some(running) = &mut world.hook_state().running {
        running.next += 1;
    }
}

/// The line's hooks all returned.
#[doc(hidden)]
#[inline]
pub fn line_done<W: HookHome>(world: &mut W) {
    world.hook_state().running = None;
}

/// Runs one hook over `data`: its parameters are fetched from `world` as
/// a system's, fresh (a hook keeps nothing between runs); what it queued
/// in `Commands` waits for the next level, and what it sent as events is
/// sent. The bounds are the hook rules: each failure names the hook.
#[doc(hidden)]
#[inline]
pub fn run_hook<W, B, M, F>(world: &mut W, data: &B::Data, mut hook: F)
where
    W: HookLines,
    B: Batch,
    B::Component: crate::plumbing::Column<W>,
    F: HookShape<M> + HookFn<W, M, Batch = B>,
    <F::Params as SystemParams<W>>::Claims: HookRules<W, F, <B::Component as crate::plumbing::Column<W>>::Id>
        + crate::system::claims::OwnRules<W, F>,
{
    let mut state = <<F::Params as SystemParams<W>>::State as Default>::default();
    <F::Params as SystemParams<W>>::prepare(&mut state, world);
    {
        let exclusive = <F::Params as SystemParams<W>>::EXCLUSIVE;
        let mut source = Source::new(world, exclusive);
        let items = <F::Params as SystemParams<W>>::fetch(&mut state, &mut source);
        hook.call(B::of(data), items);
    }
    if <F::Params as SystemParams<W>>::APPLIES {
        let mut queued = Vec::new();
        <F::Params as SystemParams<W>>::hand_over(&mut state, world, &mut queued);
        if !queued.is_empty() {
            world.queued(TOKEN).pending.dirty = true;
            world.hook_state().later.append(&mut queued);
        }
    }
}

/// The world's hooks run over what is pending (what `Storages::settle`
/// does for a world with hooks): the lines, in declared order; then the
/// commands they queued, a level at a time, each level's buffers in the
/// order queued, up to the world's depth. Commands left past the depth
/// wait for the next change or sync point, and are counted in the report.
#[doc(hidden)]
pub fn settle<W: HookLines>(world: &mut W, sync: bool) {
    let held = Held::new(world);
    let world = &mut *held.world;
    interrupted(world.hook_state());
    let mut depth = 0;
    let mut sync_lines = sync;
    loop {
        world.run_lines(sync_lines);
        sync_lines = false;
        // Commands a panic or the depth left first, then the new ones.
        let level = take_waiting(world.hook_state());
        if level.is_empty() {
            break;
        }
        if depth == W::DEPTH {
            let state = world.hook_state();
            state.report.beyond_depth += level.len();
            state.later = level;
            break;
        }
        depth += 1;
        apply_level(world, level);
    }
    // Everything ran (a panic leaves the flag set: what it left waits).
    world.queued(TOKEN).pending.dirty = !world.hook_state().later.is_empty();
}

/// A line that a panic stopped is reported: the hooks after the one that
/// panicked did not see its batch.
fn interrupted<W: Storages>(state: &mut HookState<W>) {
    if let Some(running) = state.running.take() {
        for &hook in &running.hooks[running.next.min(running.hooks.len())..] {
            state.report.skipped.push(Skipped {
                component: running.component,
                kind: running.kind,
                hook,
                batch: running.batch,
            });
        }
    }
}

/// The buffers waiting: the rest of a level a panic stopped, then what its
/// hooks queued.
#[inline]
fn take_waiting<W: Storages>(state: &mut HookState<W>) -> Vec<Commands<W>> {
    if state.now.is_empty() {
        // The usual case: nothing a panic left.
        return core::mem::take(&mut state.later);
    }
    let mut waiting: Vec<Commands<W>> = state.now.drain(..).collect();
    waiting.append(&mut state.later);
    waiting
}

/// Applies one level of buffers, in order, each through the world's one
/// apply loop; the reports with something in them go in the world's
/// report. A buffer is taken off the level as it is applied, and put back
/// with what it has left if a `Drop` or a hook panics.
fn apply_level<W: HookLines>(world: &mut W, level: Vec<Commands<W>>) {
    world.hook_state().now.extend(level);
    while let Some(buffer) = world.hook_state().now.pop_front() {
        let mut applying = Applying { world, buffer };
        let report = crate::commands::apply(applying.world, &mut applying.buffer);
        if !report.is_clean() {
            applying.world.hook_state().report.push(report);
        }
    }
}

/// A buffer being applied: what it has left goes back to the front of the
/// level if a panic stops it.
struct Applying<'a, W: HookLines> {
    world: &'a mut W,
    buffer: Commands<W>,
}

impl<W: HookLines> Drop for Applying<'_, W> {
    fn drop(&mut self) {
        if !self.buffer.is_empty() {
            let buffer = core::mem::take(&mut self.buffer);
            self.world.hook_state().now.push_front(buffer);
        }
    }
}

/// Takes the world's [`HookReport`] (what `take_hook_report` does).
#[doc(hidden)]
pub fn take_report<W: HookHome>(world: &mut W) -> HookReport {
    let state = world.hook_state();
    interrupted(state);
    core::mem::take(&mut state.report)
}

// ----- the report -----

/// How many reports of hooks' command buffers a [`HookReport`] keeps;
/// past it, they are only counted.
const KEPT_REPORTS: usize = 64;

/// What went wrong with a world's hooks since the report was last taken
/// (`world.take_hook_report()`): the commands hooks queued that could not
/// be applied, the hooks that missed a batch because a hook before them
/// panicked, and the command buffers left for later because a cascade of
/// hooks reached the world's depth.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::OnAdd;
///
/// struct Health(u32);
/// world! {
///     struct Game<Health>;
///     hooks { on_add(Health) => heal; }
/// }
///
/// /// Queues a second `Health` for each: rejected, as the entity has one.
/// fn heal(added: OnAdd<Health>, commands: &mut Commands<Game>) {
///     for e in added {
///         commands.add(e, Health(100));
///     }
/// }
///
/// let mut world = Game::new();
/// world.spawn_with((Health(10),));
/// let report = world.take_hook_report();
/// assert!(!report.is_clean());
/// assert_eq!(report.commands()[0].rejected().len(), 1);
/// assert!(world.take_hook_report().is_clean()); // taken
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookReport {
    commands: Vec<ApplyReport>,
    reports_not_kept: usize,
    skipped: Vec<Skipped>,
    beyond_depth: usize,
}

impl HookReport {
    fn push(&mut self, report: ApplyReport) {
        if self.commands.len() < KEPT_REPORTS {
            self.commands.push(report);
        } else {
            self.reports_not_kept += 1;
        }
    }

    /// `true` if nothing went wrong.
    ///
    /// ```
    /// assert!(typed_ecs::HookReport::default().is_clean());
    /// ```
    pub fn is_clean(&self) -> bool {
        self.commands.is_empty()
            && self.reports_not_kept == 0
            && self.skipped.is_empty()
            && self.beyond_depth == 0
    }

    /// The reports of the hooks' command buffers that rejected something,
    /// in the order applied (the first 64; see
    /// [`reports_not_kept`](Self::reports_not_kept)).
    ///
    /// ```
    /// assert!(typed_ecs::HookReport::default().commands().is_empty());
    /// ```
    pub fn commands(&self) -> &[ApplyReport] {
        &self.commands
    }

    /// How many more reports than [`commands`](Self::commands) holds there
    /// were.
    ///
    /// ```
    /// assert_eq!(typed_ecs::HookReport::default().reports_not_kept(), 0);
    /// ```
    pub fn reports_not_kept(&self) -> usize {
        self.reports_not_kept
    }

    /// The hooks that did not see a batch, because a hook before them in
    /// their line panicked over it.
    ///
    /// ```
    /// assert!(typed_ecs::HookReport::default().skipped().is_empty());
    /// ```
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// How many command buffers queued by hooks were left for the next
    /// change or sync point, because the cascade reached the world's depth
    /// (`hooks (depth N) { … }`, 8 if not declared).
    ///
    /// ```
    /// assert_eq!(typed_ecs::HookReport::default().beyond_depth(), 0);
    /// ```
    pub fn beyond_depth(&self) -> usize {
        self.beyond_depth
    }
}

/// A hook that did not see a batch: a hook before it in its line panicked
/// over that batch (see [`HookReport::skipped`]).
///
/// ```
/// use typed_ecs::{HookKind, Skipped};
/// let skipped = Skipped { component: "Health", kind: HookKind::Add, hook: "attach_bar", batch: 3 };
/// assert_eq!(skipped.batch, 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The component of the line, as written in `world!`.
    pub component: &'static str,
    /// The kind of the line.
    pub kind: HookKind,
    /// The hook, as written in `world!`.
    pub hook: &'static str,
    /// How many entities the batch had.
    pub batch: usize,
}
