//! The access rules of systems and stages as trait bounds, so that
//! `cargo check` and rust-analyzer report a conflict at the caller's
//! `add_system`/`add_systems`, naming the systems, rather than the build
//! (`access.rs`, whose `const` checks stay for code generic over the world,
//! where no index is known).
//!
//! Every parameter has a *claim*, a type: [`Free`] (its own state:
//! `Commands`, `Local`, `Seen`), [`Reads`] or [`Writes`] of a target (the
//! storage or resource, and its index as a type: an [`Id`] for a component,
//! [`Res`] of one for a resource, [`Ents`] for the allocator) or [`Whole`]
//! (`&mut W`). A system's claims are the tuple of its parameters' claims;
//! the rules compare them pair by pair, and a pair of one target is a
//! failed bound whose message names the systems (their types show the
//! function names) and the target:
//!
//! - in one system, [`OwnPair`]: a `&mut` borrow is the only borrow of its
//!   target, and `&mut W` comes alone ([`TakesWorldAlone`]);
//! - in one stage, [`StagePair`] for each two members: none writes what the
//!   other reads or writes, and a member with `&mut W` is alone
//!   ([`NotExclusive`]); `stage.rs` applies them to a stage's members
//!   (`StageRules`).

use core::marker::PhantomData;

use crate::indices::{impl_ids_apart, Id};

/// The claim of a parameter that borrows nothing shared: a command
/// buffer, a `Local`, a `Seen`.
#[derive(Debug)]
pub struct Free;

/// The claim of a parameter that borrows nothing shared but keeps state
/// between runs: a `Local`, a `Seen`, a `Reader`. As [`Free`] for systems
/// and stages; a hook may not take one.
#[derive(Debug)]
pub struct Kept;

/// The claim of `&mut W`: the whole world.
#[derive(Debug)]
pub struct Whole;

/// The claim of a shared borrow of `T` (a storage, a resource, the
/// allocator), whose index as a type is `I`.
#[derive(Debug)]
pub struct Reads<T: ?Sized, I>(PhantomData<fn() -> (*const T, I)>);

/// The claim of a mutable borrow of `T`, whose index as a type is `I`.
#[derive(Debug)]
pub struct Writes<T: ?Sized, I>(PhantomData<fn() -> (*const T, I)>);

/// A resource's index as a type: apart from every component's [`Id`].
#[derive(Debug)]
pub struct Res<I>(PhantomData<I>);

/// The allocator's index as a type: apart from every other target (and
/// no parameter writes it).
#[derive(Debug)]
pub struct Ents;

// ----- targets: each trait holds for `Self` (the target the message names)
// when the two indices `A` and `B` differ -----

/// Two members of a stage: `S1` writes `Self`, which `S2` reads.
#[diagnostic::on_unimplemented(
    message = "two systems of one stage conflict: `{S1}` writes `{Self}`, which `{S2}` reads",
    label = "systems of one stage may run at the same time",
    note = "none of a stage's systems may write what another reads or writes: put these two in separate stages (`add_systems` twice, or `add_system` for each)"
)]
pub trait WriteRead<W, S1, S2, A, B> {}

/// Two members of a stage: both write `Self`.
#[diagnostic::on_unimplemented(
    message = "two systems of one stage conflict: `{S1}` and `{S2}` both write `{Self}`",
    label = "systems of one stage may run at the same time",
    note = "none of a stage's systems may write what another reads or writes: put these two in separate stages (`add_systems` twice, or `add_system` for each)"
)]
pub trait WriteWrite<W, S1, S2, A, B> {}

/// One system takes `Self` twice, once at least as `&mut`.
#[diagnostic::on_unimplemented(
    message = "the system `{S}` takes `{Self}` twice, at least once as `&mut`",
    label = "a system may borrow something mutably only if it takes it once",
    note = "take it once, as `&mut {Self}`, which reads as well as writes"
)]
pub trait TakenOnce<W, S, A, B> {}

/// Implements one of the traits above for every kind of target:
/// component against component compares [`Id`]s, resource against
/// resource compares theirs, and targets of different kinds never meet.
macro_rules! impl_kinds_apart {
    ($tr:ident<$($cx:ident),*>) => {
        impl_ids_apart!($tr<$($cx),*>);
        impl<T, $($cx,)* A, B> $tr<$($cx,)* Res<A>, Res<B>> for T where T: $tr<$($cx,)* A, B> {}
        impl<T, $($cx,)* A> $tr<$($cx,)* Res<A>, Ents> for T {}
        impl<T, $($cx,)* A> $tr<$($cx,)* Ents, Res<A>> for T {}
        impl_kinds_apart!(@ids $tr<$($cx),*>; X0 X1 X2 X3 X4 X5 X6 X7 X8 X9 X10 X11);
    };
    (@ids $tr:ident<$($cx:ident),*>; $($x:ident)+) => {
        impl<T, $($cx,)* A, $(const $x: u8),+> $tr<$($cx,)* Res<A>, Id<$($x),+>> for T {}
        impl<T, $($cx,)* A, $(const $x: u8),+> $tr<$($cx,)* Id<$($x),+>, Res<A>> for T {}
        impl<T, $($cx,)* $(const $x: u8),+> $tr<$($cx,)* Ents, Id<$($x),+>> for T {}
        impl<T, $($cx,)* $(const $x: u8),+> $tr<$($cx,)* Id<$($x),+>, Ents> for T {}
    };
}

pub(crate) use impl_kinds_apart;

impl_kinds_apart!(WriteRead<W, S1, S2>);
impl_kinds_apart!(WriteWrite<W, S1, S2>);
impl_kinds_apart!(TakenOnce<W, S>);

// ----- the rules, pair by pair -----

/// `&mut W` beside other borrows in one system.
#[diagnostic::on_unimplemented(
    message = "the system `{Self}` takes `&mut {W}`, the whole world, and other parameters",
    label = "an exclusive system takes `&mut {W}` alone",
    note = "take `&mut {W}` alone (and `&mut Commands` or `&mut Local` if you like), and reach the storages and resources as the world's fields"
)]
pub trait TakesWorldAlone<W> {}

/// A member of a stage of several takes `&mut W`.
#[diagnostic::on_unimplemented(
    message = "the system `{S}` takes `&mut {W}`, the whole world, so it cannot share a stage with other systems",
    label = "a stage of several systems",
    note = "add it alone, with `add_system`"
)]
pub trait NotExclusive<W, S> {}

impl<W, S> NotExclusive<W, S> for Free {}
impl<W, S> NotExclusive<W, S> for Kept {}
impl<W, S, T: ?Sized, I> NotExclusive<W, S> for Reads<T, I> {}
impl<W, S, T: ?Sized, I> NotExclusive<W, S> for Writes<T, I> {}

/// Two claims `(A, B)` of one system `S`, that may stand together.
pub trait OwnPair<W, S> {}

impl<W, S, B> OwnPair<W, S> for (Free, B) {}
impl<W, S, T: ?Sized, I> OwnPair<W, S> for (Reads<T, I>, Free) {}
impl<W, S, T: ?Sized, I> OwnPair<W, S> for (Writes<T, I>, Free) {}
impl<W, S> OwnPair<W, S> for (Whole, Free) {}
impl<W, S, B> OwnPair<W, S> for (Kept, B) {}
impl<W, S, T: ?Sized, I> OwnPair<W, S> for (Reads<T, I>, Kept) {}
impl<W, S, T: ?Sized, I> OwnPair<W, S> for (Writes<T, I>, Kept) {}
impl<W, S> OwnPair<W, S> for (Whole, Kept) {}
impl<W, S: TakesWorldAlone<W>> OwnPair<W, S> for (Whole, Whole) {}
impl<W, S: TakesWorldAlone<W>, T: ?Sized, I> OwnPair<W, S> for (Whole, Reads<T, I>) {}
impl<W, S: TakesWorldAlone<W>, T: ?Sized, I> OwnPair<W, S> for (Whole, Writes<T, I>) {}
impl<W, S: TakesWorldAlone<W>, T: ?Sized, I> OwnPair<W, S> for (Reads<T, I>, Whole) {}
impl<W, S: TakesWorldAlone<W>, T: ?Sized, I> OwnPair<W, S> for (Writes<T, I>, Whole) {}
impl<W, S, T: ?Sized, I, U: ?Sized, J> OwnPair<W, S> for (Reads<T, I>, Reads<U, J>) {}
impl<W, S, T: ?Sized, I, U: ?Sized, J> OwnPair<W, S> for (Writes<T, I>, Reads<U, J>) where
    T: TakenOnce<W, S, I, J>
{
}
impl<W, S, T: ?Sized, I, U: ?Sized, J> OwnPair<W, S> for (Reads<T, I>, Writes<U, J>) where
    U: TakenOnce<W, S, J, I>
{
}
impl<W, S, T: ?Sized, I, U: ?Sized, J> OwnPair<W, S> for (Writes<T, I>, Writes<U, J>) where
    T: TakenOnce<W, S, I, J>
{
}

/// Two claims `(A, B)`, of the members `S1` and `S2` of one stage, that may
/// run at the same time. `&mut W` meets nothing here: a member that takes
/// it is alone ([`NotExclusive`]).
pub trait StagePair<W, S1, S2> {}

impl<W, S1, S2, B> StagePair<W, S1, S2> for (Free, B) {}
impl<W, S1, S2, B> StagePair<W, S1, S2> for (Kept, B) {}
impl<W, S1, S2, T: ?Sized, I> StagePair<W, S1, S2> for (Reads<T, I>, Kept) {}
impl<W, S1, S2, T: ?Sized, I> StagePair<W, S1, S2> for (Writes<T, I>, Kept) {}
impl<W, S1, S2, B> StagePair<W, S1, S2> for (Whole, B) {}
impl<W, S1, S2, T: ?Sized, I> StagePair<W, S1, S2> for (Reads<T, I>, Free) {}
impl<W, S1, S2, T: ?Sized, I> StagePair<W, S1, S2> for (Writes<T, I>, Free) {}
impl<W, S1, S2, T: ?Sized, I> StagePair<W, S1, S2> for (Reads<T, I>, Whole) {}
impl<W, S1, S2, T: ?Sized, I> StagePair<W, S1, S2> for (Writes<T, I>, Whole) {}
impl<W, S1, S2, T: ?Sized, I, U: ?Sized, J> StagePair<W, S1, S2> for (Reads<T, I>, Reads<U, J>) {}
impl<W, S1, S2, T: ?Sized, I, U: ?Sized, J> StagePair<W, S1, S2> for (Writes<T, I>, Reads<U, J>) where
    T: WriteRead<W, S1, S2, I, J>
{
}
impl<W, S1, S2, T: ?Sized, I, U: ?Sized, J> StagePair<W, S1, S2> for (Reads<T, I>, Writes<U, J>) where
    U: WriteRead<W, S2, S1, J, I>
{
}
impl<W, S1, S2, T: ?Sized, I, U: ?Sized, J> StagePair<W, S1, S2> for (Writes<T, I>, Writes<U, J>) where
    T: WriteWrite<W, S1, S2, I, J>
{
}

// ----- the rules over tuples of claims -----

/// A system's claims (`Self`, a tuple), pairwise [`OwnPair`]s: the
/// system `S` follows its own rules.
pub trait OwnRules<W, S> {}

/// A system's claims (`Self`, a tuple), none [`Whole`]: `S` may share a
/// stage.
pub trait Shareable<W, S> {}

/// One claim (`Self`) of the stage member `S1` against each claim of the
/// member `S2` (`Bs`, a tuple).
pub trait AgainstEach<W, S1, S2, Bs> {}

/// The claims of the stage member `S1` (`Self`, a tuple) against those of
/// `S2` (`Bs`): every pair a [`StagePair`].
pub trait MembersApart<W, S1, S2, Bs> {}

/// `OwnRules` for a tuple: one bound per pair of its elements.
macro_rules! impl_own_rules {
    ($($a:ident),*) => {
        impl_own_rules!(@pairs [$($a),*] [] $($a),*);
    };
    (@pairs [$($all:ident),*] [$($bounds:tt)*]) => {
        impl<W, S, $($all),*> OwnRules<W, S> for ($($all,)*) where $($bounds)* {}
    };
    (@pairs [$($all:ident),*] [$($bounds:tt)*] $head:ident $(, $tail:ident)*) => {
        impl_own_rules!(@pairs [$($all),*] [$($bounds)* $(($head, $tail): OwnPair<W, S>,)*] $($tail),*);
    };
}

/// `Shareable`, `AgainstEach` and `MembersApart` for tuples of one arity.
macro_rules! impl_claim_tuples {
    ($($a:ident),*) => {
        impl_own_rules!($($a),*);
        impl<W, S, $($a: NotExclusive<W, S>),*> Shareable<W, S> for ($($a,)*) {}
        impl<W, S1, S2, A, $($a),*> AgainstEach<W, S1, S2, ($($a,)*)> for A
        where
            $((A, $a): StagePair<W, S1, S2>,)*
        {
        }
        impl<W, S1, S2, Bs, $($a: AgainstEach<W, S1, S2, Bs>),*> MembersApart<W, S1, S2, Bs> for ($($a,)*) {}
    };
}

impl_claim_tuples!();
impl_claim_tuples!(A1);
impl_claim_tuples!(A1, A2);
impl_claim_tuples!(A1, A2, A3);
impl_claim_tuples!(A1, A2, A3, A4);
impl_claim_tuples!(A1, A2, A3, A4, A5);
impl_claim_tuples!(A1, A2, A3, A4, A5, A6);
impl_claim_tuples!(A1, A2, A3, A4, A5, A6, A7);
impl_claim_tuples!(A1, A2, A3, A4, A5, A6, A7, A8);
impl_claim_tuples!(A1, A2, A3, A4, A5, A6, A7, A8, A9);
impl_claim_tuples!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10);
impl_claim_tuples!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11);
impl_claim_tuples!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12);
