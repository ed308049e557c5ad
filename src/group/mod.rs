//! Owning groups (the user guide is the doc of [`Group`]; this is the
//! contributors' map).
//!
//! # Layout
//!
//! This module holds the [`Group`] trait, the reading of a storage's mark as
//! a group mark, and the entry points the rest of the crate calls (`entered`,
//! `leaving`, `leaving_all`, `refresh`, `check`: each a visitor over the
//! world's groups). `upkeep.rs` packs and unpacks one group.

use crate::indices::{covers, overlaps};
use crate::plumbing::BundleParts;
#[cfg(any(feature = "testing", feature = "serde"))]
use crate::plumbing::EachGroupRef;
use crate::plumbing::{EachGroup, Packing, Storages};
use crate::seal::TOKEN;
use crate::sparse_map::mark::Mark;
use crate::Entity;

pub(crate) mod upkeep;

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
    pub(crate) fn agrees_with(self, other: GroupMark) -> bool {
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
    pub(crate) fn to_mark(self) -> Mark {
        Mark {
            tag: self.stamp,
            prefix: self.len,
            info: u16::from(self.size) << 8 | u16::from(self.member),
        }
    }
}

/// An owning group of the world `W`: a tuple of 2 to 8 of its components
/// whose storages keep the entities they share packed at the front, in the
/// same order, so that a query over exactly those components walks slices
/// side by side instead of looking entities up.
///
/// Declare a group in [`world!`](macro@crate::world), after the struct, by listing
/// its components (2 to 8 of them; each component in at most one group):
///
/// ```
/// use typed_ecs::prelude::*;
///
/// #[derive(Debug, PartialEq)]
/// struct Position(f32);
/// struct Velocity(f32);
/// struct Name(&'static str);
///
/// world! {
///     struct Game<Position, Velocity, Name>;
///     group (Position, Velocity);
/// }
///
/// let mut world = Game::new();
/// world.spawn_with((Position(0.0), Name("a rock")));
/// let ball = world.spawn_with((Name("a ball"), Position(0.0), Velocity(2.0)));
///
/// // The group's entities come first in both storages, in the same order…
/// assert_eq!(world.group_len::<(Position, Velocity)>(), Some(1));
/// assert_eq!(world.position.entities()[0], ball);
/// assert_eq!(world.velocity.entities()[0], ball);
///
/// // …so this query zips the two storages' first slots: no lookups.
/// world
///     .query_mut::<(&mut Position, &Velocity)>()
///     .for_each(|_, (pos, vel)| pos.0 += vel.0);
/// assert_eq!(world.get::<Position>(ball), Some(&Position(2.0)));
/// ```
///
/// # How it works
///
/// A group of storages `(A, B)` keeps a length `n`: the first `n` dense slots
/// of `A` and of `B` hold exactly the entities that have both, in the same
/// order (EnTT calls this an *owning group*). Every change made through the
/// world keeps it so: when an entity gains the last group component it
/// lacked, it is swapped into slot `n` of every group storage and `n` grows;
/// before it loses one, it is swapped to slot `n - 1` and `n` shrinks. Both
/// are O(group size) swaps.
///
/// A query whose required components are exactly a group's (`(&mut A, &B)`,
/// `(&A, &B)`, `(&mut A, &mut B)`, `(&A, With<B>)`, …) then visits slots
/// `0..n` of each storage side by side: [`Join::for_each`](crate::Join::for_each),
/// a `for` loop over [`World::query`](crate::World::query) or
/// [`World::query_mut`](crate::World::query_mut), and `par_for_each` (feature
/// `rayon`, which can then split *every* `&mut` storage). Other queries work
/// as before; a group only changes the order of its storages, which is never
/// promised anyway.
///
/// # When a group is rebuilt
///
/// The world only trusts a group whose storages are all in step with its
/// allocator (see [`SparseMap`](crate::SparseMap), "Storages moved between
/// worlds") and agree on a *stamp*, unique to one packing of one group in
/// the program. Things done behind the world's back break one or the
/// other, and the group is then not used (queries look entities up instead)
/// until the world's next change to a grouped component, or `query_mut`,
/// which rebuilds it in one O(n) pass after bringing its storages in step:
///
/// * removing a grouped entity straight from a storage
///   ([`SparseMap::remove`](crate::SparseMap::remove) on the public field);
/// * cloning a world or a storage (a clone is not trusted until it is
///   rebuilt), or loading one with the `serde` feature (rebuilt on load);
/// * putting another storage in a field (`std::mem::swap`, assignment,
///   `std::mem::take`), even a storage of another world whose group had
///   the same length.
///
/// None of these can make a query return wrong results: they only cost the
/// rebuild.
///
/// # Naming a group
///
/// The only thing to do with the trait is to name a group, in
/// [`World::group_len`](crate::World::group_len):
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
pub trait Group<W: Storages>: Packing<W> {}

impl<W: Storages, G: Packing<W>> Group<W> for G {}

// ----- what the rest of the crate calls -----

/// After `entities` gained the components of the bundle `B`: each group
/// holding one of them takes in those that now have them all.
#[inline]
pub(crate) fn entered<W, B, E>(world: &mut W, entities: E)
where
    W: Storages,
    B: BundleParts<W>,
    E: ExactSizeIterator<Item = Entity> + Clone,
{
    struct Entered<E, B> {
        entities: E,
        bundle: core::marker::PhantomData<fn(B)>,
    }
    impl<W, B, E> EachGroup<W> for Entered<E, B>
    where
        W: Storages,
        B: BundleParts<W>,
        E: ExactSizeIterator<Item = Entity> + Clone,
    {
        #[inline]
        fn visit<G: Packing<W>>(&mut self, world: &mut W) {
            if const { overlaps(G::INDICES, B::INDICES) } {
                // A batch that gave every group component to entities
                // appended after a fully grouped storage extends the group.
                let count = self.entities.len();
                let appended = count > 1
                    && const { covers(B::INDICES, G::INDICES) }
                    && G::append(world, count, TOKEN);
                if !appended {
                    for entity in self.entities.clone() {
                        G::enter(world, entity, TOKEN);
                    }
                }
            }
        }
    }
    world.each_group(
        &mut Entered::<E, B> {
            entities,
            bundle: core::marker::PhantomData,
        },
        TOKEN,
    );
}

/// Before `entity` loses the components of the bundle `B`: each group
/// holding one of them lets it out.
#[inline]
pub(crate) fn leaving<W: Storages, B: BundleParts<W>>(world: &mut W, entity: Entity) {
    struct Leaving<B> {
        entity: Entity,
        bundle: core::marker::PhantomData<fn(B)>,
    }
    impl<W: Storages, B: BundleParts<W>> EachGroup<W> for Leaving<B> {
        #[inline]
        fn visit<G: Packing<W>>(&mut self, world: &mut W) {
            if const { overlaps(G::INDICES, B::INDICES) } {
                G::leave(world, self.entity, TOKEN);
            }
        }
    }
    world.each_group(
        &mut Leaving::<B> {
            entity,
            bundle: core::marker::PhantomData,
        },
        TOKEN,
    );
}

/// Before `entity` loses every component: every group lets it out.
#[inline]
pub(crate) fn leaving_all<W: Storages>(world: &mut W, entity: Entity) {
    struct LeavingAll(Entity);
    impl<W: Storages> EachGroup<W> for LeavingAll {
        #[inline]
        fn visit<G: Packing<W>>(&mut self, world: &mut W) {
            G::leave(world, self.0, TOKEN);
        }
    }
    world.each_group(&mut LeavingAll(entity), TOKEN);
}

/// Rebuilds every group that is not trusted (see [`Group`], "When a group
/// is rebuilt").
#[inline]
pub(crate) fn refresh<W: Storages>(world: &mut W) {
    struct Refresh;
    impl<W: Storages> EachGroup<W> for Refresh {
        #[inline]
        fn visit<G: Packing<W>>(&mut self, world: &mut W) {
            if G::len(world).is_none() {
                G::rebuild(world, TOKEN);
            }
        }
    }
    world.each_group(&mut Refresh, TOKEN);
}

/// Checks the invariant of every trusted group (see the `World` docs,
/// "Invariants").
#[cfg(any(feature = "testing", feature = "serde"))]
pub(crate) fn check<W: Storages>(world: &W) -> Result<(), alloc::string::String> {
    struct Check(Result<(), alloc::string::String>);
    impl<W: Storages> EachGroupRef<W> for Check {
        fn visit<G: Packing<W>>(&mut self, world: &W) {
            if self.0.is_ok() {
                self.0 = G::check(world);
            }
        }
    }
    let mut check = Check(Ok(()));
    world.each_group_ref(&mut check, TOKEN);
    check.0
}

/// The number of entities in the group `G` of `world`, if it is trusted.
#[inline]
pub(crate) fn len<W: Storages, G: Group<W>>(world: &W) -> Option<usize> {
    G::len(world)
}
