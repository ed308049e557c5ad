//! What reacts to a structural change, called by the rest of
//! [`structural`](super) at fixed points and by nothing else: after
//! values were added, before values are removed, after a load. Today the
//! owning groups react (see [`group`](crate::group)); a new reaction (a
//! hook, a relation's cleanup) is one more line in each function here.

use crate::plumbing::BundleParts;
use crate::plumbing::Storages;
use crate::Entity;

/// After `entities` gained the components of the bundle `B` (each value is
/// in its storage).
#[inline]
pub(crate) fn added<W, B, E>(world: &mut W, entities: E)
where
    W: Storages,
    B: BundleParts<W>,
    E: ExactSizeIterator<Item = Entity> + Clone,
{
    crate::group::entered::<W, B, E>(world, entities);
}

/// Before `entity` loses the components of the bundle `B` (each value is
/// still in its storage).
#[inline]
pub(crate) fn leaving<W: Storages, B: BundleParts<W>>(world: &mut W, entity: Entity) {
    crate::group::leaving::<W, B>(world, entity);
}

/// Before `entity` loses every component (a despawn, `remove_all`).
#[inline]
pub(crate) fn leaving_all<W: Storages>(world: &mut W, entity: Entity) {
    crate::group::leaving_all(world, entity);
}

/// After a world was loaded: its storages were made from saved parts.
#[cfg(feature = "serde")]
pub(crate) fn loaded<W: Storages>(world: &mut W) {
    // Loaded storages carry no group marks: pack the groups now.
    crate::group::refresh(world);
}
