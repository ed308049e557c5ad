//! Packing one owning group: taking an entity in, letting it out, and
//! rebuilding the packing from scratch (see the doc of [`Group`](crate::Group)).

use super::GroupMark;
use crate::in_step;
use crate::plumbing::ColumnAccess;
use crate::plumbing::{Packing, Storages};
use crate::seal::{Token, TOKEN};
use crate::Entity;

macro_rules! impl_group {
    ($size:literal; $first:ident $(, $rest:ident = $member:literal)+) => {
        #[allow(non_snake_case)]
        impl<W, $first, $($rest),+> Packing<W> for ($first, $($rest,)+)
        where
            W: Storages + ColumnAccess<$first> $(+ ColumnAccess<$rest>)+,
        {
            const INDICES: &'static [usize] =
                &[<W as ColumnAccess<$first>>::INDEX $(, <W as ColumnAccess<$rest>>::INDEX)+];

            #[inline]
            fn len(world: &W) -> Option<usize> {
                // Trusted: every storage is in step with the world and
                // carries a mark of one packing.
                let first = <W as ColumnAccess<$first>>::sparse_map(world);
                let mark = GroupMark::of(first.mark());
                let agree = mark.stamp != 0
                    && mark.size == $size
                    && mark.member == 0
                    && in_step::is_in_step::<W, $first>(world)
                    $(&& {
                        let other = <W as ColumnAccess<$rest>>::sparse_map(world);
                        let other_mark = GroupMark::of(other.mark());
                        other_mark.agrees_with(mark)
                            && other_mark.member == $member
                            && in_step::is_in_step::<W, $rest>(world)
                    })+;
                agree.then_some(mark.len as usize)
            }

            fn rebuild(world: &mut W, _: Token) -> usize {
                in_step::sync::<W, $first>(world);
                $(in_step::sync::<W, $rest>(world);)+
                let stamp = crate::unique::next();
                let mut len = 0;
                let count = <W as ColumnAccess<$first>>::sparse_map(world).len();
                for slot in 0..count {
                    let entity = <W as ColumnAccess<$first>>::sparse_map(world).entities()[slot];
                    $(
                        let Some($rest) = <W as ColumnAccess<$rest>>::sparse_map(world).index_of(entity) else {
                            continue;
                        };
                    )+
                    <W as ColumnAccess<$first>>::sparse_map_mut(world).swap_slots(slot, len);
                    $(<W as ColumnAccess<$rest>>::sparse_map_mut(world).swap_slots($rest, len);)+
                    len += 1;
                }
                let mark = |member| GroupMark {
                    stamp,
                    len: len as u32,
                    size: $size,
                    member,
                };
                <W as ColumnAccess<$first>>::sparse_map_mut(world).set_mark(mark(0).to_mark());
                $(<W as ColumnAccess<$rest>>::sparse_map_mut(world).set_mark(mark($member).to_mark());)+
                len
            }

            #[inline]
            fn enter(world: &mut W, entity: Entity, _: Token) {
                let Some(len) = Self::len(world) else {
                    // The rebuild places `entity` if it has every component.
                    Self::rebuild(world, TOKEN);
                    return;
                };
                // Usually the entity was just pushed right after the group
                // in every storage: then the group only grows.
                let at_end = <W as ColumnAccess<$first>>::sparse_map(world).entities().get(len) == Some(&entity)
                    $(&& <W as ColumnAccess<$rest>>::sparse_map(world).entities().get(len) == Some(&entity))+;
                if at_end {
                    Self::set_len(world, len + 1, TOKEN);
                    return;
                }
                let Some($first) = <W as ColumnAccess<$first>>::sparse_map(world).index_of(entity) else {
                    return;
                };
                if $first < len {
                    return; // already grouped
                }
                $(
                    let Some($rest) = <W as ColumnAccess<$rest>>::sparse_map(world).index_of(entity) else {
                        return;
                    };
                )+
                <W as ColumnAccess<$first>>::sparse_map_mut(world).swap_slots($first, len);
                $(<W as ColumnAccess<$rest>>::sparse_map_mut(world).swap_slots($rest, len);)+
                Self::set_len(world, len + 1, TOKEN);
            }

            #[inline]
            fn leave(world: &mut W, entity: Entity, _: Token) {
                let len = match Self::len(world) {
                    Some(len) => len,
                    None => Self::rebuild(world, TOKEN),
                };
                let Some(slot) = <W as ColumnAccess<$first>>::sparse_map(world).index_of(entity) else {
                    return;
                };
                if slot >= len {
                    return; // not grouped
                }
                // A grouped entity sits at the same slot in every storage.
                let last = len - 1;
                <W as ColumnAccess<$first>>::sparse_map_mut(world).swap_slots(slot, last);
                $(
                    debug_assert_eq!(<W as ColumnAccess<$rest>>::sparse_map(world).entities()[slot], entity);
                    <W as ColumnAccess<$rest>>::sparse_map_mut(world).swap_slots(slot, last);
                )+
                Self::set_len(world, last, TOKEN);
            }

            #[inline]
            fn append(world: &mut W, count: usize, _: Token) -> bool {
                let Some(len) = Self::len(world) else {
                    return false;
                };
                let after = len + count;
                let whole = <W as ColumnAccess<$first>>::sparse_map(world).len() == after
                    $(&& <W as ColumnAccess<$rest>>::sparse_map(world).len() == after)+;
                if whole {
                    Self::set_len(world, after, TOKEN);
                }
                whole
            }

            #[inline]
            fn set_len(world: &mut W, len: usize, _: Token) {
                <W as ColumnAccess<$first>>::sparse_map_mut(world).set_mark_prefix(len);
                $(<W as ColumnAccess<$rest>>::sparse_map_mut(world).set_mark_prefix(len);)+
            }

            #[cfg(any(feature = "testing", feature = "serde"))]
            fn check(world: &W) -> Result<(), alloc::string::String> {
                let Some(len) = Self::len(world) else {
                    return Ok(());
                };
                let first = <W as ColumnAccess<$first>>::sparse_map(world).entities();
                if len > first.len() {
                    return Err("a group is longer than its first storage".into());
                }
                $(
                    let $rest = <W as ColumnAccess<$rest>>::sparse_map(world).entities();
                    if len > $rest.len() {
                        return Err("a group is longer than one of its storages".into());
                    }
                    if first[..len] != $rest[..len] {
                        return Err("a group's storages disagree on the grouped entities".into());
                    }
                )+
                for &entity in &first[len..] {
                    let complete = true $(&& <W as ColumnAccess<$rest>>::sparse_map(world).contains(entity))+;
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

/// Packs a new world's groups (they start empty and trusted): for the
/// macro's `W::with_capacity`.
#[inline]
pub fn refresh_groups<W: Storages>(world: &mut W) {
    super::refresh(world);
}
