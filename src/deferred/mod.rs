//! Changes that happen later. Every change, when applied, goes through the
//! one structural path ([`structural`](crate::structural)), as an
//! immediate one does.
//!
//! Two ways to defer a change exist, because they are made in two
//! situations:
//!
//! * **The world's own queues** (`add_deferred`, `remove_deferred`,
//!   `despawn_deferred`), filled while you hold the world. Each queued
//!   change is checked *when it is queued*, so a mistake comes back at once,
//!   with your value (`try_add_deferred` returns an [`AddError`]).
//! * **A [`Commands`](crate::Commands) buffer**, filled while the world is
//!   borrowed (inside a query) and applied with `world.apply`. Nothing can be
//!   checked when a command is queued, so every command is checked *when it
//!   is applied*, and each one that cannot be is listed in the
//!   [`ApplyReport`](crate::commands::ApplyReport).
//!
//! Both apply removals (every storage, in declaration order, each in the
//! order queued), then additions (likewise), then despawns; a buffer makes
//! its spawns first, so its reserved handles are real by then. The rules:
//!
//! | the entity, when the change is applied | world queue: add | world queue: remove | world queue: despawn | `Commands::add` | `Commands::remove` | `Commands::despawn` |
//! |---|---|---|---|---|---|---|
//! | is dead | dropped with the entity's other components | nothing | nothing | rejected: `DeadEntity` | rejected: `DeadEntity` | rejected: `DeadEntity` |
//! | has the component, its removal queued before | replaced | removed | — | replaced | removed | — |
//! | has the component, no removal queued | replaced (see below) | removed | — | rejected: `AlreadyPresent` | removed | — |
//! | lacks the component | added | nothing | — | added | nothing | — |
//!
//! The one difference in outcome is the third row: a world queue accepted
//! the add only if the entity had no component (or had its removal queued),
//! so the component it has now was added *after* the add was queued, by an
//! immediate `add` or `insert` or by a command; the queued value, checked
//! and accepted, replaces it. A command was never checked, so it is
//! rejected and reported, with nothing lost but the value it carried. Rows
//! one and three also differ in whether you are told: a world queue has no
//! report, and a queued add of an entity that is despawned is dropped with
//! the entity's other components, as documented on `despawn`.

use crate::error::AddErrorKind;
use crate::plumbing::{Column, EachStorage, Storages};
use crate::{Contains, Entity};

// ----- the world's queues -----

/// Queues `value` to be added to `entity`, which the caller knows is alive,
/// at the next sync point; or says why not and hands it back.
pub(crate) fn queue_add<W: Contains<C>, C>(
    world: &mut W,
    entity: Entity,
    value: C,
) -> Result<(), (AddErrorKind, C)> {
    crate::in_step::sync::<W, C>(world);
    world.sparse_map_mut().queue_add(entity, value)
}

/// Queues the removal of `entity`'s `C`, which the caller knows is alive.
pub(crate) fn queue_remove<W: Contains<C>, C>(world: &mut W, entity: Entity) {
    crate::in_step::sync::<W, C>(world);
    world.sparse_map_mut().queue_remove(entity);
}

/// Applies every storage's queued removals, then every storage's queued
/// additions (the first two steps of the sync point).
pub(crate) struct ApplyQueues {
    /// `false`: removals; `true`: additions.
    pub(crate) additions: bool,
}

impl<W: Storages> EachStorage<W> for ApplyQueues {
    type Out<C> = ();

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) {
        if self.additions {
            crate::structural::apply_additions::<W, C>(world);
        } else {
            crate::structural::apply_removals::<W, C>(world);
        }
    }
}
