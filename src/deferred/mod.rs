//! Changes that happen later: one queue type (`queue.rs`), one apply loop
//! ([`apply`]) and one rule table ([`rule`]), for the world's own queue (a
//! field `world!` generates) and every [`Commands`](crate::Commands) buffer
//! (the same queues, plus reserved handles and a report). Every change,
//! when applied, goes through the one structural path
//! ([`structural`](crate::structural)), as an immediate one does.
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
//! its spawns first, so its reserved handles are real by then, and applies
//! its relates and unrelates between its additions and its despawns (by
//! the rules of `World::relate` and `World::unrelate`, which
//! `relation::Sides` holds, each refusal reported). The rules:
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
//!
//! In code, the table is [`rule`]: what a change does by how its entity
//! stands when it is applied. The world's queue checks its adds when they
//! are queued and marks them [`OnPresent::Replace`], which is row three's
//! difference; its refusals are not reported, which is row one's.

use core::any::type_name;

use crate::error::AddErrorKind;
use crate::plumbing::{Column, ColumnAccess, EachStorage, EachStorageRef, Storages};
use crate::queue::{OnPresent, QueueRefusal};
use crate::relation::{EachRelation, RelateError, RelateErrorKind, Related, Relates, RelationOp};
use crate::seal::TOKEN;
use crate::Entity;

pub use self::report::{CommandKind, RejectReason};

mod report;

// ----- the rule table -----

/// A queued change, as the rule table sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// An add, and what it does to a value the entity has.
    Add(OnPresent),
    /// A removal of one component.
    Remove,
    /// A despawn.
    Despawn,
}

/// How the entity of a change stands when the change is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Standing {
    /// It is not alive.
    Dead,
    /// It is alive and has the component.
    Has,
    /// It is alive and lacks the component (every alive entity, for a
    /// despawn).
    Lacks,
}

/// What applying a change does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// It is done (an add adds or replaces, a removal or a despawn takes).
    Done,
    /// There is nothing to do (a removal of a component the entity lacks).
    Nothing,
    /// It is refused, for this reason (reported by a buffer; a world's own
    /// queue drops it quietly).
    Refused(RejectReason),
}

/// The rule table of the [module docs](self), in code: what `change` does
/// when its entity stands as `standing`.
pub(crate) const fn rule(change: Change, standing: Standing) -> Outcome {
    match (change, standing) {
        (_, Standing::Dead) => Outcome::Refused(RejectReason::DeadEntity),
        (Change::Add(OnPresent::Reject), Standing::Has) => {
            Outcome::Refused(RejectReason::AlreadyPresent)
        }
        (Change::Add(_), _) | (Change::Remove, Standing::Has) | (Change::Despawn, _) => {
            Outcome::Done
        }
        (Change::Remove, Standing::Lacks) => Outcome::Nothing,
    }
}

// ----- the one apply loop -----

/// Who applies a set of queues: how it names entities, and what it does
/// with a refusal.
pub(crate) trait Applier {
    /// The alive entity `entity` names now, if any: itself, or, for a
    /// buffer's reserved handle, the entity made for it.
    fn resolve(&self, entity: Entity) -> Option<Entity>;

    /// One change was taken off the queues (a buffer counts what it holds).
    #[inline(always)]
    fn took(&mut self) {}

    /// A change was refused.
    fn refused(
        &mut self,
        entity: Entity,
        change: CommandKind,
        component: Option<&'static str>,
        reason: RejectReason,
    );
}

/// The world's own queue: entities are themselves, refusals go unreported.
pub(crate) struct OwnQueue;

impl Applier for OwnQueue {
    #[inline(always)]
    fn resolve(&self, entity: Entity) -> Option<Entity> {
        Some(entity)
    }

    #[inline(always)]
    fn refused(&mut self, _: Entity, _: CommandKind, _: Option<&'static str>, _: RejectReason) {}
}

/// Applies `queues` to `world`: every storage's removals (storages in
/// declaration order, each queue in the order queued), then every
/// storage's additions, then the despawns, each by [`rule`] and through
/// the structural path. Each change leaves its queue before it is acted
/// on, and its value is dropped only once the world is consistent: if a
/// `Drop` panics, everything not taken yet stays queued, in order.
///
/// A command buffer's relates and unrelates (`relations`) go between the
/// additions and the despawns: relations in declaration order, each queue
/// in the order queued.
pub(crate) fn apply<W: Storages, A: Applier>(
    world: &mut W,
    queues: &mut W::Queues,
    relations: Option<&mut <W as Related>::Queued>,
    how: &mut A,
) {
    // The hooks run once, for everything applied.
    crate::structural::batched(world, |world| apply_held(world, queues, relations, how));
}

/// [`apply`], the hooks held back.
fn apply_held<W: Storages, A: Applier>(
    world: &mut W,
    queues: &mut W::Queues,
    relations: Option<&mut <W as Related>::Queued>,
    how: &mut A,
) {
    world.each(
        &mut Phase {
            queues: &mut *queues,
            how: &mut *how,
            additions: false,
        },
        TOKEN,
    );
    world.each(
        &mut Phase {
            queues: &mut *queues,
            how: &mut *how,
            additions: true,
        },
        TOKEN,
    );
    if let Some(queued) = relations {
        if W::RELATED {
            world.each_relation(&mut Relating { queued, how });
        }
    }
    let despawns = W::despawns(queues, TOKEN);
    while let Some(entity) = despawns.pop() {
        how.took();
        let alive = how
            .resolve(entity)
            .filter(|&real| world.allocator(TOKEN).is_alive(real));
        let standing = if alive.is_some() {
            Standing::Lacks
        } else {
            Standing::Dead
        };
        match (rule(Change::Despawn, standing), alive) {
            (Outcome::Done, Some(real)) => {
                let refused = crate::structural::despawn::despawn(world, real).is_err();
                // A `deny` relation refused it: the entity stays.
                if refused {
                    how.refused(entity, CommandKind::Despawn, None, RejectReason::Denied);
                }
            }
            (Outcome::Refused(reason), _) => {
                how.refused(entity, CommandKind::Despawn, None, reason)
            }
            _ => {}
        }
    }
}

/// One phase of [`apply`] over every storage: removals or additions.
struct Phase<'a, W: Storages, A> {
    queues: &'a mut W::Queues,
    how: &'a mut A,
    additions: bool,
}

impl<W: Storages, A: Applier> EachStorage<W> for Phase<'_, W, A> {
    type Out<C> = ();

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) {
        if self.additions {
            apply_additions::<W, C, A>(world, self.queues, self.how);
        } else {
            apply_removals::<W, C, A>(world, self.queues, self.how);
        }
    }
}

/// The alive entity `entity` names, as `how` resolves it.
#[inline(always)]
fn alive<W: Storages, A: Applier>(world: &W, how: &A, entity: Entity) -> Option<Entity> {
    how.resolve(entity)
        .filter(|&real| world.allocator(TOKEN).is_alive(real))
}

/// Applies the removals queued for `C`, in order.
fn apply_removals<W: ColumnAccess<C>, C, A: Applier>(
    world: &mut W,
    queues: &mut W::Queues,
    how: &mut A,
) {
    let queue = <W as ColumnAccess<C>>::queue(queues);
    while let Some(entity) = queue.pop_remove() {
        how.took();
        match alive(world, how, entity) {
            // Has or lacks: the structural path tells (`false`: nothing).
            Some(real) => {
                crate::structural::discard::<W, C>(world, real);
            }
            None => {
                if let Outcome::Refused(reason) = rule(Change::Remove, Standing::Dead) {
                    how.refused(entity, CommandKind::Remove, Some(type_name::<C>()), reason);
                }
            }
        }
    }
}

/// Applies the additions queued for `C`, in order.
fn apply_additions<W: ColumnAccess<C>, C, A: Applier>(
    world: &mut W,
    queues: &mut W::Queues,
    how: &mut A,
) {
    let queue = <W as ColumnAccess<C>>::queue(queues);
    // Room for every add at once (some may replace: a guess).
    world.sparse_map_mut().reserve_guess(queue.len_adds());
    while let Some((entity, value, on_present)) = queue.pop_add() {
        how.took();
        let kind = match on_present {
            OnPresent::Reject => CommandKind::Add,
            OnPresent::Replace => CommandKind::Insert,
        };
        let standing = match alive(world, how, entity) {
            Some(real) => match crate::structural::add::<W, C>(world, real, value, on_present) {
                // The world is consistent before a replaced value is dropped.
                Ok(replaced) => {
                    drop(replaced);
                    continue;
                }
                Err(value) => (Standing::Has, value),
            },
            None => (Standing::Dead, value),
        };
        let (standing, value) = standing;
        if let Outcome::Refused(reason) = rule(Change::Add(on_present), standing) {
            how.refused(entity, kind, Some(type_name::<C>()), reason);
        }
        drop(value);
    }
}

/// The relation phase of [`apply`]: each relation's queued relates and
/// unrelates, in order, by the rules of `World::relate` and
/// `World::unrelate`.
struct Relating<'a, W: Related, A> {
    queued: &'a mut W::Queued,
    how: &'a mut A,
}

impl<W: Storages, A: Applier> EachRelation<W> for Relating<'_, W, A> {
    fn visit<R>(&mut self, world: &mut W)
    where
        W: Relates<R>,
    {
        let queue = <W as Relates<R>>::queue(self.queued);
        let relation = Some(type_name::<R>());
        while let Some(op) = queue.pop() {
            self.how.took();
            match op {
                RelationOp::Relate(source, payload, target) => {
                    let outcome = match (self.how.resolve(source), self.how.resolve(target)) {
                        (Some(source), Some(target)) => {
                            let tree = <W as Relates<R>>::TREE;
                            world.sides().relate(source, payload, target, tree)
                        }
                        // A reserved handle with no entity made for it.
                        (None, _) => Err(RelateError::new(RelateErrorKind::DeadSource, payload)),
                        (Some(_), None) => {
                            Err(RelateError::new(RelateErrorKind::DeadTarget, payload))
                        }
                    };
                    match outcome {
                        // The world is consistent before the old payload is dropped.
                        Ok(old) => drop(old),
                        Err(error) => {
                            let reason = match error.kind() {
                                RelateErrorKind::DeadSource => RejectReason::DeadEntity,
                                kind => RejectReason::Relate(kind),
                            };
                            self.how
                                .refused(source, CommandKind::Relate, relation, reason);
                            drop(error);
                        }
                    }
                }
                RelationOp::Unrelate(source, target) => match alive(world, self.how, source) {
                    Some(real) => match target {
                        None => drop(world.sides().unrelate(real)),
                        // A target that is not alive has no link.
                        Some(target) => {
                            if let Some(target) = self.how.resolve(target) {
                                drop(world.sides().unrelate_from(real, target));
                            }
                        }
                    },
                    None => self.how.refused(
                        source,
                        CommandKind::Unrelate,
                        relation,
                        RejectReason::DeadEntity,
                    ),
                },
            }
        }
    }
}

// ----- the world's own queue -----

/// Queues `value` to be added to `entity`, which the caller knows is alive,
/// at the next sync point; or says why not and hands it back.
#[inline]
pub(crate) fn queue_add<W: ColumnAccess<C>, C>(
    world: &mut W,
    entity: Entity,
    value: C,
) -> Result<(), (AddErrorKind, C)> {
    // Whether the entity has a `C` is read from a storage in step, and the
    // queue holds no dead entity's entry that the index could be taken by.
    crate::in_step::sync::<W, C>(world);
    crate::in_step::sync_queued(world);
    let present = world.sparse_map().contains(entity);
    <W as ColumnAccess<C>>::queue(&mut world.queued(TOKEN).queues)
        .queue_add(entity, value, present)
        .map_err(|(refusal, value)| {
            let kind = match refusal {
                QueueRefusal::AlreadyQueued => AddErrorKind::AlreadyQueued,
                QueueRefusal::AlreadyPresent => AddErrorKind::AlreadyPresent,
            };
            (kind, value)
        })
}

/// Queues the removal of `entity`'s `C`, which the caller knows is alive.
#[inline]
pub(crate) fn queue_remove<W: ColumnAccess<C>, C>(world: &mut W, entity: Entity) {
    crate::in_step::sync_queued(world);
    <W as ColumnAccess<C>>::queue(&mut world.queued(TOKEN).queues).queue_remove(entity);
}

/// Queues the despawn of `entity`, which the caller knows is alive.
#[inline]
pub(crate) fn queue_despawn<W: Storages>(world: &mut W, entity: Entity) {
    crate::in_step::sync_queued(world);
    W::despawns(&mut world.queued(TOKEN).queues, TOKEN).push(entity);
}

/// The sync point ([`World::finalize_updates`](crate::World::finalize_updates)):
/// applies the world's own queue. The queues are taken out of the world
/// while they are applied, and whatever a panic leaves in them is put
/// back.
pub(crate) fn finalize<W: Storages>(world: &mut W) {
    crate::in_step::sync_all(world);
    // A sync point with nothing queued (most of them) skips taking the
    // queues out and putting them back: moves of the whole `W::Queues`.
    if !nothing_queued(world) {
        let queues = core::mem::take(&mut world.queued(TOKEN).queues);
        let mut taken = Taken { world, queues };
        let Taken { world, queues } = &mut taken;
        apply(*world, queues, None, &mut OwnQueue);
    }
    // The `on_change` hooks run at sync points.
    crate::structural::sync_point(world);
}

/// `true` when every queue of the world's own is clear (see
/// `Queue::is_clear`) and no despawn is queued: applying them would do
/// nothing.
#[inline]
fn nothing_queued<W: Storages>(world: &W) -> bool {
    struct AnyQueued {
        queued: bool,
    }
    impl<W: Storages> EachStorageRef<W> for AnyQueued {
        #[inline]
        fn visit<C: Column<W>>(&mut self, world: &W) {
            // `|`, not `||`: no branch per storage.
            self.queued |= !C::queue_ref(&world.queued_ref(TOKEN).queues, TOKEN).is_clear();
        }
    }
    let mut any = AnyQueued { queued: false };
    world.each_ref(&mut any, TOKEN);
    !any.queued && W::despawns_ref(&world.queued_ref(TOKEN).queues, TOKEN).is_empty()
}

/// The world's queues, taken out while they are applied: put back when
/// the sync point ends, however it ends.
struct Taken<'a, W: Storages> {
    world: &'a mut W,
    queues: W::Queues,
}

impl<W: Storages> Drop for Taken<'_, W> {
    fn drop(&mut self) {
        // Nothing queues into the world while its queue is applied (no user
        // code runs but `Drop`s, which cannot reach the world).
        self.world.queued(TOKEN).queues = core::mem::take(&mut self.queues);
    }
}
