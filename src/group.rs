//! Owning groups: storages that keep the entities they share packed at the
//! front, in the same order, so that a query over exactly those components
//! walks slices side by side instead of looking entities up.
//!
//! Declare a group in [`world!`](crate::world), after the struct, by listing
//! its components (2 to 8 of them; each component in at most one group):
//!
//! ```
//! use typed_ecs::prelude::*;
//!
//! #[derive(Debug, PartialEq)]
//! struct Position(f32);
//! struct Velocity(f32);
//! struct Name(&'static str);
//!
//! world! {
//!     struct Game<Position, Velocity, Name>;
//!     group (Position, Velocity);
//! }
//!
//! let mut world = Game::new();
//! world.spawn_with((Position(0.0), Name("a rock")));
//! let ball = world.spawn_with((Name("a ball"), Position(0.0), Velocity(2.0)));
//!
//! // The group's entities come first in both storages, in the same order…
//! assert_eq!(world.group_len::<(Position, Velocity)>(), Some(1));
//! assert_eq!(world.position.entities()[0], ball);
//! assert_eq!(world.velocity.entities()[0], ball);
//!
//! // …so this query zips the two storages' first slots: no lookups.
//! world
//!     .query_mut::<(&mut Position, &Velocity)>()
//!     .for_each(|_, (pos, vel)| pos.0 += vel.0);
//! assert_eq!(world.get::<Position>(ball), Some(&Position(2.0)));
//! ```
//!
//! # How it works
//!
//! A group of storages `(A, B)` keeps a length `n`: the first `n` dense slots
//! of `A` and of `B` hold exactly the entities that have both, in the same
//! order (EnTT calls this an *owning group*). Every change made through the
//! world keeps it so: when an entity gains the last group component it
//! lacked, it is swapped into slot `n` of every group storage and `n` grows;
//! before it loses one, it is swapped to slot `n - 1` and `n` shrinks. Both
//! are O(group size) swaps.
//!
//! A query whose required components are exactly a group's (`(&mut A, &B)`,
//! `(&A, &B)`, `(&mut A, &mut B)`, `(&A, With<B>)`, …) then visits slots
//! `0..n` of each storage side by side: [`Join::for_each`](crate::Join::for_each),
//! a `for` loop over [`World::query`] or
//! [`World::query_mut`], and `par_for_each` (feature
//! `rayon`, which can then split *every* `&mut` storage). Other queries work
//! as before; a group only changes the order of its storages, which is never
//! promised anyway.
//!
//! # When a group is rebuilt
//!
//! The world only trusts a group whose storages are all in step with its
//! allocator (see [`SparseMap`](crate::SparseMap), "Storages moved between
//! worlds") and agree on a *stamp*, unique to one packing of one group in
//! the program. Things done behind the world's back break one or the
//! other, and the group is then not used (queries look entities up instead)
//! until the world's next change to a grouped component, or `query_mut`,
//! which rebuilds it in one O(n) pass after bringing its storages in step:
//!
//! * removing a grouped entity straight from a storage
//!   ([`SparseMap::remove`](crate::SparseMap::remove) on the public field);
//! * cloning a world or a storage (a clone is not trusted until it is
//!   rebuilt), or loading one with the `serde` feature (rebuilt on load);
//! * putting another storage in a field (`std::mem::swap`, assignment,
//!   `std::mem::take`), even a storage of another world whose group had
//!   the same length.
//!
//! None of these can make a query return wrong results: they only cost the
//! rebuild.

use crate::sparse_map::mark::Mark;
use crate::world::{Bundle, Contains};
use crate::{Entity, World};

/// A storage's place in an owning group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct GroupMark {
    /// The packing this storage belongs to: the group's storages are trusted
    /// to agree only while they all carry the same stamp. 0: none.
    pub(crate) stamp: u64,
    /// The number of grouped entities at the front of the storage.
    pub(crate) len: u32,
    /// The number of storages in the group.
    pub(crate) size: u8,
    /// This storage's position in the group, `0..size`.
    pub(crate) member: u8,
}

impl GroupMark {
    /// `true` if `self` and `other` are marks of one packing.
    #[inline]
    fn agrees_with(self, other: GroupMark) -> bool {
        self.stamp == other.stamp && self.len == other.len && self.size == other.size
    }

    /// A storage's [`Mark`], read as a group mark.
    #[inline]
    pub(crate) fn of(mark: Mark) -> GroupMark {
        GroupMark {
            stamp: mark.tag,
            len: mark.prefix,
            size: (mark.info >> 8) as u8,
            member: mark.info as u8,
        }
    }

    /// The [`Mark`] a storage keeps for this group mark.
    #[inline]
    fn to_mark(self) -> Mark {
        Mark {
            tag: self.stamp,
            prefix: self.len,
            info: u16::from(self.size) << 8 | u16::from(self.member),
        }
    }
}

/// What a query learns about owning groups from the storages it requires:
/// whether they are exactly the storages of one trusted group, and how many
/// entities that group holds. Not public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct GroupProbe {
    stamp: u64,
    len: u32,
    /// The shortest storage seen: the group's length must not exceed it.
    shortest: usize,
    size: u8,
    /// The group positions seen so far, one bit each.
    members: u32,
    /// Still possible: every element seen is a member of one group.
    dense: bool,
    /// The number of required storages seen, and of other elements.
    required: u32,
    others: u32,
}

impl Default for GroupProbe {
    fn default() -> Self {
        GroupProbe {
            stamp: 0,
            len: 0,
            shortest: usize::MAX,
            size: 0,
            members: 0,
            dense: true,
            required: 0,
            others: 0,
        }
    }
}

impl GroupProbe {
    /// A required storage of `storage_len` values, with its group mark.
    #[inline]
    pub(crate) fn required(&mut self, mark: GroupMark, storage_len: usize) {
        self.required += 1;
        self.shortest = self.shortest.min(storage_len);
        if mark.stamp == 0 {
            self.dense = false;
        } else if self.stamp == 0 {
            self.stamp = mark.stamp;
            self.len = mark.len;
            self.size = mark.size;
            self.members = 1 << mark.member;
        } else if mark.agrees_with(GroupMark {
            stamp: self.stamp,
            len: self.len,
            size: self.size,
            member: 0,
        }) {
            self.members |= 1 << mark.member;
        } else {
            self.dense = false;
        }
    }

    /// An element that is not a required storage (`Option`, `Without`).
    #[inline]
    pub(crate) fn other(&mut self) {
        self.others += 1;
        self.dense = false;
    }

    /// How many leading slots a dense walk covers: the group's length if
    /// the elements seen are exactly the storages of one trusted group
    /// (each at least once, nothing else), or the whole storage if they are
    /// one required storage alone (a group of one, in effect). Every
    /// storage seen holds at least that many values.
    #[inline]
    pub(crate) fn cover(&self) -> Option<usize> {
        if self.required == 1 && self.others == 0 {
            return Some(self.shortest);
        }
        let all = (1u32 << self.size) - 1;
        let len = self.len as usize;
        (self.dense && self.stamp != 0 && self.members == all && len <= self.shortest)
            .then_some(len)
    }
}

/// An owning group of the world `W`: a tuple of 2 to 8 of its components,
/// as declared with `group (A, B, …);` in [`world!`](crate::world). See the
/// [module docs](self).
///
/// The only thing to do with it is to name it, in
/// [`World::group_len`]:
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32);
/// struct Vel(f32);
/// world! {
///     struct Game<Pos, Vel>;
///     group (Pos, Vel);
/// }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(0.0), Vel(1.0)));
/// world.spawn_with((Pos(0.0),));
/// assert_eq!(world.group_len::<(Pos, Vel)>(), Some(1));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a group of components of `{W}`",
    label = "not a group of `{W}`",
    note = "a group lists 2 to 8 distinct components of `{W}`, as in `group (Position, Velocity);`"
)]
pub trait Group<W: World> {
    /// The storage index of each component, in the group's order.
    #[doc(hidden)]
    const __INDICES: &'static [usize];

    /// The number of grouped entities, if the group's storages agree.
    #[doc(hidden)]
    fn __len(world: &W) -> Option<usize>;

    /// Packs the group from scratch under a fresh stamp; returns its length.
    #[doc(hidden)]
    fn __rebuild(world: &mut W) -> usize;

    /// After `entity` gained a group component: if it now has them all,
    /// moves it into the group.
    #[doc(hidden)]
    fn __enter(world: &mut W, entity: Entity);

    /// Before `entity` loses a group component: moves it out of the group.
    #[doc(hidden)]
    fn __leave(world: &mut W, entity: Entity);

    /// After `count` entities with every group component were appended to
    /// each group storage: if the group held every entity of its storages
    /// before, it now holds the appended ones too. Returns `false`, changing
    /// nothing, otherwise.
    #[doc(hidden)]
    fn __append(world: &mut W, count: usize) -> bool;

    /// Writes the group's length into each of its storages' marks.
    #[doc(hidden)]
    fn __set_len(world: &mut W, len: usize);

    /// Checks the group's invariant, if its storages are trusted.
    #[doc(hidden)]
    fn __check(world: &W) -> Result<(), alloc::string::String>;
}

/// `true` if every element of `b` is in `a`. Evaluated at compile time.
pub(crate) const fn covers(a: &[usize], b: &[usize]) -> bool {
    let mut i = 0;
    while i < b.len() {
        if !crate::world::contains_index(a, b[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// `true` if `a` and `b` share an element. Evaluated at compile time.
pub(crate) const fn overlaps(a: &[usize], b: &[usize]) -> bool {
    let mut i = 0;
    while i < a.len() {
        if crate::world::contains_index(b, a[i]) {
            return true;
        }
        i += 1;
    }
    false
}

macro_rules! impl_group {
    ($size:literal; $first:ident $(, $rest:ident = $member:literal)+) => {
        #[allow(non_snake_case)]
        impl<W, $first, $($rest),+> Group<W> for ($first, $($rest,)+)
        where
            W: World + Contains<$first> $(+ Contains<$rest>)+,
        {
            const __INDICES: &'static [usize] =
                &[<W as Contains<$first>>::INDEX $(, <W as Contains<$rest>>::INDEX)+];

            #[inline]
            fn __len(world: &W) -> Option<usize> {
                // Trusted: every storage is in step with the world and
                // carries a mark of one packing.
                let synced = world.__entities().stamp();
                let first = <W as Contains<$first>>::sparse_map(world);
                let mark = GroupMark::of(first.mark());
                let agree = mark.stamp != 0
                    && mark.size == $size
                    && mark.member == 0
                    && first.is_synced(synced)
                    $(&& {
                        let other = <W as Contains<$rest>>::sparse_map(world);
                        let other_mark = GroupMark::of(other.mark());
                        other_mark.agrees_with(mark) && other_mark.member == $member && other.is_synced(synced)
                    })+;
                agree.then_some(mark.len as usize)
            }

            fn __rebuild(world: &mut W) -> usize {
                crate::world::sync::<W, $first>(world);
                $(crate::world::sync::<W, $rest>(world);)+
                let stamp = crate::unique::next();
                let mut len = 0;
                let count = <W as Contains<$first>>::sparse_map(world).len();
                for slot in 0..count {
                    let entity = <W as Contains<$first>>::sparse_map(world).entities()[slot];
                    $(
                        let Some($rest) = <W as Contains<$rest>>::sparse_map(world).index_of(entity) else {
                            continue;
                        };
                    )+
                    <W as Contains<$first>>::sparse_map_mut(world).swap_slots(slot, len);
                    $(<W as Contains<$rest>>::sparse_map_mut(world).swap_slots($rest, len);)+
                    len += 1;
                }
                let mark = |member| GroupMark {
                    stamp,
                    len: len as u32,
                    size: $size,
                    member,
                };
                <W as Contains<$first>>::sparse_map_mut(world).set_mark(mark(0).to_mark());
                $(<W as Contains<$rest>>::sparse_map_mut(world).set_mark(mark($member).to_mark());)+
                len
            }

            #[inline]
            fn __enter(world: &mut W, entity: Entity) {
                let Some(len) = Self::__len(world) else {
                    // The rebuild places `entity` if it has every component.
                    Self::__rebuild(world);
                    return;
                };
                // Usually the entity was just pushed right after the group
                // in every storage: then the group only grows.
                let at_end = <W as Contains<$first>>::sparse_map(world).entities().get(len) == Some(&entity)
                    $(&& <W as Contains<$rest>>::sparse_map(world).entities().get(len) == Some(&entity))+;
                if at_end {
                    Self::__set_len(world, len + 1);
                    return;
                }
                let Some($first) = <W as Contains<$first>>::sparse_map(world).index_of(entity) else {
                    return;
                };
                if $first < len {
                    return; // already grouped
                }
                $(
                    let Some($rest) = <W as Contains<$rest>>::sparse_map(world).index_of(entity) else {
                        return;
                    };
                )+
                <W as Contains<$first>>::sparse_map_mut(world).swap_slots($first, len);
                $(<W as Contains<$rest>>::sparse_map_mut(world).swap_slots($rest, len);)+
                Self::__set_len(world, len + 1);
            }

            #[inline]
            fn __leave(world: &mut W, entity: Entity) {
                let len = match Self::__len(world) {
                    Some(len) => len,
                    None => Self::__rebuild(world),
                };
                let Some(slot) = <W as Contains<$first>>::sparse_map(world).index_of(entity) else {
                    return;
                };
                if slot >= len {
                    return; // not grouped
                }
                // A grouped entity sits at the same slot in every storage.
                let last = len - 1;
                <W as Contains<$first>>::sparse_map_mut(world).swap_slots(slot, last);
                $(
                    debug_assert_eq!(<W as Contains<$rest>>::sparse_map(world).entities()[slot], entity);
                    <W as Contains<$rest>>::sparse_map_mut(world).swap_slots(slot, last);
                )+
                Self::__set_len(world, last);
            }

            #[inline]
            fn __append(world: &mut W, count: usize) -> bool {
                let Some(len) = Self::__len(world) else {
                    return false;
                };
                let after = len + count;
                let whole = <W as Contains<$first>>::sparse_map(world).len() == after
                    $(&& <W as Contains<$rest>>::sparse_map(world).len() == after)+;
                if whole {
                    Self::__set_len(world, after);
                }
                whole
            }

            #[inline]
            fn __set_len(world: &mut W, len: usize) {
                <W as Contains<$first>>::sparse_map_mut(world).set_mark_prefix(len);
                $(<W as Contains<$rest>>::sparse_map_mut(world).set_mark_prefix(len);)+
            }

            fn __check(world: &W) -> Result<(), alloc::string::String> {
                let Some(len) = Self::__len(world) else {
                    return Ok(());
                };
                let first = <W as Contains<$first>>::sparse_map(world).entities();
                if len > first.len() {
                    return Err("a group is longer than its first storage".into());
                }
                $(
                    let $rest = <W as Contains<$rest>>::sparse_map(world).entities();
                    if len > $rest.len() {
                        return Err("a group is longer than one of its storages".into());
                    }
                    if first[..len] != $rest[..len] {
                        return Err("a group's storages disagree on the grouped entities".into());
                    }
                )+
                for &entity in &first[len..] {
                    let complete = true $(&& <W as Contains<$rest>>::sparse_map(world).contains(entity))+;
                    if complete {
                        return Err(alloc::format!(
                            "{entity:?} has every component of a group but is not grouped"
                        ));
                    }
                }
                Ok(())
            }
        }
    };
}

impl_group!(2; A, B = 1);
impl_group!(3; A, B = 1, C = 2);
impl_group!(4; A, B = 1, C = 2, D = 3);
impl_group!(5; A, B = 1, C = 2, D = 3, E = 4);
impl_group!(6; A, B = 1, C = 2, D = 3, E = 4, F = 5);
impl_group!(7; A, B = 1, C = 2, D = 3, E = 4, F = 5, G = 6);
impl_group!(8; A, B = 1, C = 2, D = 3, E = 4, F = 5, G = 6, H = 7);

// ----- what the world's hooks call (through `__private`) -----

/// What a world's hook asks of one group. (One entry point per group keeps
/// a mistake in a `group (…);` line to one compiler error.)
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hook {
    /// The entities gained the components of the bundle: take in those
    /// that now have every group component (only if the group holds one of
    /// the bundle's components).
    Entered,
    /// The entities are about to lose the components of the bundle: let
    /// them out (only if the group holds one of them).
    Leaving,
    /// The entities are about to lose every component: let them out.
    LeavingAll,
    /// Rebuild the group if its storages no longer agree.
    Refresh,
}

/// Runs `hook` for the group `G` of `world`; `B` is the bundle of
/// components that changed (for `Entered` and `Leaving`, decided at
/// compile time).
#[inline]
pub fn hook<W: World, G: Group<W>, B: Bundle<W>>(world: &mut W, hook: Hook, entities: &[Entity]) {
    match hook {
        Hook::Entered => {
            if const { overlaps(G::__INDICES, B::__INDICES) } {
                // A batch that gave every group component to entities
                // appended after a fully grouped storage extends the group.
                let appended = entities.len() > 1
                    && const { covers(B::__INDICES, G::__INDICES) }
                    && G::__append(world, entities.len());
                if !appended {
                    for &entity in entities {
                        G::__enter(world, entity);
                    }
                }
            }
        }
        Hook::Leaving => {
            if const { overlaps(G::__INDICES, B::__INDICES) } {
                for &entity in entities {
                    G::__leave(world, entity);
                }
            }
        }
        Hook::LeavingAll => {
            for &entity in entities {
                G::__leave(world, entity);
            }
        }
        Hook::Refresh => {
            if G::__len(world).is_none() {
                G::__rebuild(world);
            }
        }
    }
}
