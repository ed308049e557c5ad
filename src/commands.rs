//! [`Commands`]: deferred changes recorded while the world is borrowed, and
//! applied later with [`World::apply`](crate::World::apply).
//!
//! A buffer is typed by its world and stores one queue per component, in a
//! struct that [`world!`](macro@crate::world) generates: no boxing, no type erasure.

use alloc::vec::Vec;
use core::fmt;

use crate::deferred::{self, Applier};
use crate::entity::RESERVATION_LIMIT;
use crate::in_step;
use crate::plumbing::BundleParts;
use crate::plumbing::{ColumnAccess, Storages};
use crate::queue::OnPresent;
use crate::relation::{Related, Relates, RelationOp};
use crate::seal::TOKEN;
use crate::structural;
use crate::{Contains, Entity};

pub use crate::deferred::{CommandKind, RejectReason};

// Applying takes each command out of its queue, and out of `len`, before
// acting on it, and acts on the world before anything is dropped; a
// rejection is reported before the value it carried is dropped. So if a
// component's `Drop` panics, every command not taken yet is still queued, in
// order, and the buffer's `progress` holds the report so far.

/// Applies a command buffer to a world (what [`World::apply`](crate::World::apply)
/// does): spawns, then the queues (removals, additions, relates and unrelates, despawns) through
/// the one apply loop of the world's deferred changes.
pub(crate) fn apply<W: Storages>(world: &mut W, commands: &mut Commands<W>) -> ApplyReport {
    in_step::sync_all(world);
    commands.spawn_real_entities(world);
    let Commands {
        queues,
        relations,
        progress,
        len,
        ..
    } = commands;
    deferred::apply(
        world,
        queues,
        Some(relations),
        &mut Buffer { progress, len },
    );
    commands.finish_apply()
}

/// A buffer as it is applied: its reserved handles resolve to the entities
/// made for them, and every refusal goes in its report.
struct Buffer<'a> {
    progress: &'a mut ApplyReport,
    len: &'a mut usize,
}

impl Applier for Buffer<'_> {
    #[inline]
    fn resolve(&self, entity: Entity) -> Option<Entity> {
        self.progress.resolve(entity)
    }

    #[inline]
    fn took(&mut self) {
        *self.len -= 1;
    }

    fn refused(
        &mut self,
        entity: Entity,
        change: CommandKind,
        component: Option<&'static str>,
        reason: RejectReason,
    ) {
        self.progress.reject(entity, change, component, reason);
    }
}

// ----- reservation numbers -----
//
// Every reserved handle carries a number that no other reservation in the
// program gets, so a handle kept past its buffer's apply, or taken to another
// buffer, can never name an entity there. Buffers take numbers from one
// program-wide counter in blocks, so that threads filling their own buffers
// touch the shared counter once per `BLOCK` reservations.

/// How many reservation numbers a buffer takes from the counter at a time.
const BLOCK: u64 = 256;

/// The next reservation number to hand out. It only grows; once it is past
/// [`RESERVATION_LIMIT`] every block taken panics (wrapping the `u64` would
/// take 2^55 more blocks).
#[cfg(target_has_atomic = "64")]
static NEXT_RESERVATION: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

/// Takes a block of `BLOCK` fresh reservation numbers; returns the first.
#[cfg(target_has_atomic = "64")]
#[track_caller]
fn take_block() -> u64 {
    use core::sync::atomic::Ordering;
    let start = NEXT_RESERVATION.fetch_add(BLOCK, Ordering::Relaxed);
    if start > RESERVATION_LIMIT - BLOCK {
        out_of_reservations();
    }
    start
}

// Without 64-bit atomics the counter counts blocks in a `u32`, and refuses
// to wrap. That limits a program to 2^32 blocks (2^40 numbers) in its whole
// run: a buffer takes a block for its first reservation after each
// completed apply, and one more per further 256 reservations. A program
// that spawns through `Commands` in 100 buffers, 60 times a second, takes
// 6,000 blocks a second and runs out (a panic in `Commands::spawn`, never a
// reused number) after about eight days.
#[cfg(not(target_has_atomic = "64"))]
static NEXT_BLOCK: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);

#[cfg(not(target_has_atomic = "64"))]
#[track_caller]
fn take_block() -> u64 {
    take_block_from(&NEXT_BLOCK)
}

// Every block a `u32` block counter can hand out fits in a handle.
const _: () = assert!((u32::MAX as u64 + 1) * BLOCK <= RESERVATION_LIMIT);

/// Takes the next block of a `u32` block counter; panics rather than wrap.
#[cfg(any(test, not(target_has_atomic = "64")))]
#[track_caller]
fn take_block_from(counter: &core::sync::atomic::AtomicU32) -> u64 {
    use core::sync::atomic::Ordering;
    match counter.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |block| {
        block.checked_add(1)
    }) {
        Ok(block) => u64::from(block) * BLOCK,
        Err(_) => out_of_reservations(),
    }
}

#[cold]
#[track_caller]
fn out_of_reservations() -> ! {
    panic!(
        "typed_ecs: this program has used up the reservation numbers of `Commands::spawn` \
         (they are never reused, so that a reserved handle never names the wrong entity)"
    )
}

/// Moves the program-wide counter of reservation numbers `n` numbers
/// forward, so tests can reach the edges of the encoding without reserving
/// billions of handles. Safe: numbers only grow, so none is handed out
/// twice. Test support (feature `testing`), not for games.
///
/// ```
/// use typed_ecs::advance_reservations_for_tests;
/// advance_reservations_for_tests(1 << 32);
/// ```
///
/// # Panics
///
/// If the counter would pass the numbers a handle can carry (about 2^63;
/// 2^40 on targets without 64-bit atomics).
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
#[cfg(feature = "testing")]
pub fn advance_reservations_for_tests(n: u64) {
    use core::sync::atomic::Ordering;
    #[cfg(target_has_atomic = "64")]
    let moved = NEXT_RESERVATION.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |next| {
        next.checked_add(n)
            .filter(|&next| next <= RESERVATION_LIMIT)
    });
    #[cfg(not(target_has_atomic = "64"))]
    let moved = NEXT_BLOCK.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |block| {
        u32::try_from(n.div_ceil(BLOCK))
            .ok()
            .and_then(|blocks| block.checked_add(blocks))
    });
    assert!(
        moved.is_ok(),
        "advancing the reservation counter by {n} would pass the numbers a handle can carry"
    );
}

/// A buffer of deferred changes for the world `W`: add, remove, despawn,
/// spawn, relate and unrelate. Fill it while the world is borrowed (inside
/// a query), then apply it with [`World::apply`](crate::World::apply),
/// which applies spawns, then removals, then additions, then relates and
/// unrelates, then despawns, and reports every command it could not apply.
///
/// `Commands::new()` needs no world: `W` is inferred from the `apply` call.
/// A buffer can be kept and reused; `apply` leaves it empty. Dropping a
/// buffer without applying it drops the components it holds.
///
/// If a component's `Drop` panics during `apply`, the buffer keeps every
/// command not applied yet, and the next `apply` goes on from there; see
/// [`World::apply`](crate::World::apply).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32);
/// struct Vel(f32);
/// world! { struct Game<Pos, Vel>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(-3.0), Vel(-1.0)));
/// world.spawn_with((Pos(5.0), Vel(-1.0)));
///
/// let mut commands = Commands::new();
/// world.query_mut::<(&mut Pos, &Vel)>().for_each(|entity, (pos, vel)| {
///     pos.0 += vel.0;
///     if pos.0 < 0.0 {
///         commands.despawn(entity);
///         let child = commands.spawn_with((Pos(10.0),));
///         commands.add(child, Vel(-1.0)); // a reserved handle works at once
///     }
/// });
/// let report = world.apply(&mut commands);
/// assert!(report.is_clean());
/// assert_eq!(report.spawned().len(), 1);
/// assert_eq!(world.entity_count(), 2);
/// ```
pub struct Commands<W: Storages> {
    pub(crate) queues: <W as Storages>::Queues,
    /// One queue per relation: relates and unrelates.
    relations: <W as Related>::Queued,
    /// Reserved handles handed out since the last completed apply, by
    /// ordinal; those from `progress.made.len()` on are spawns still queued.
    reserved: usize,
    /// Since the last completed apply: the blocks of reservation numbers
    /// taken, the entities made for reserved handles, and what an apply that
    /// a panic stopped reported. The next completed apply returns it.
    pub(crate) progress: ApplyReport,
    /// Number of commands queued.
    pub(crate) len: usize,
}

impl<W: Storages> Default for Commands<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: Storages> Commands<W> {
    /// An empty buffer.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let commands = Commands::<Game>::new();
    /// assert!(commands.is_empty());
    /// ```
    pub fn new() -> Self {
        Commands {
            queues: <W as Storages>::Queues::default(),
            relations: Default::default(),
            reserved: 0,
            progress: ApplyReport::new(),
            len: 0,
        }
    }

    /// Number of commands queued (a spawn with a bundle counts once per
    /// component, plus one). Commands leave the count as they are applied,
    /// so after an apply that a panic stopped it counts those left.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut commands = Commands::<Game>::new();
    /// commands.spawn_with((Pos(0.0),));
    /// assert_eq!(commands.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when nothing is queued.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// assert!(Commands::<Game>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Drops everything queued, and starts afresh: handles reserved so far
    /// name nothing in this buffer any more, and what an apply stopped by a
    /// panic had reported is forgotten.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut commands = Commands::<Game>::new();
    /// commands.spawn();
    /// commands.clear();
    /// assert!(commands.is_empty());
    /// ```
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// Queues adding `component` to `entity`. At apply, rejected (and
    /// reported) if `entity` is dead or already has a `C`; queue a
    /// [`remove`](Commands::remove) of `C` in the same buffer to replace it.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// let mut commands = Commands::new();
    /// commands.add(e, Pos(1.0));
    /// assert!(world.apply(&mut commands).is_clean());
    /// assert!(world.has::<Pos>(e));
    /// ```
    pub fn add<C>(&mut self, entity: Entity, component: C)
    where
        W: Contains<C>,
    {
        <W as ColumnAccess<C>>::queue(&mut self.queues).push_add(
            entity,
            component,
            OnPresent::Reject,
        );
        self.len += 1;
    }

    /// Queues inserting `component` on `entity`: at apply it is added, or
    /// replaces (and drops) the `C` the entity has then. Rejected (and
    /// reported) only if `entity` is dead. The `Commands` form of
    /// [`World::insert`](crate::World::insert).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # #[derive(Debug, PartialEq)]
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(1.0),));
    /// let mut commands = Commands::new();
    /// commands.insert(e, Pos(2.0));
    /// assert!(world.apply(&mut commands).is_clean());
    /// assert_eq!(world.get::<Pos>(e), Some(&Pos(2.0)));
    /// ```
    pub fn insert<C>(&mut self, entity: Entity, component: C)
    where
        W: Contains<C>,
    {
        <W as ColumnAccess<C>>::queue(&mut self.queues).push_add(
            entity,
            component,
            OnPresent::Replace,
        );
        self.len += 1;
    }

    /// Queues removing `entity`'s `C` (dropped at apply). Rejected (and
    /// reported) if `entity` is dead at apply; does nothing if it has no `C`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let e = world.spawn_with((Pos(1.0),));
    /// let mut commands = Commands::new();
    /// commands.remove::<Pos>(e);
    /// let _ = world.apply(&mut commands);
    /// assert!(!world.has::<Pos>(e));
    /// ```
    pub fn remove<C>(&mut self, entity: Entity)
    where
        W: Contains<C>,
    {
        <W as ColumnAccess<C>>::queue(&mut self.queues).push_remove(entity);
        self.len += 1;
    }

    /// Queues despawning `entity`, after every removal and addition of the
    /// buffer. Rejected (and reported) if `entity` is dead at apply.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// let mut commands = Commands::new();
    /// commands.despawn(e);
    /// let _ = world.apply(&mut commands);
    /// assert!(!world.is_alive(e));
    /// ```
    pub fn despawn(&mut self, entity: Entity) {
        W::despawns(&mut self.queues, TOKEN).push(entity);
        self.len += 1;
    }

    /// Queues relating `source` to `target` by the relation `R`, with
    /// `payload` on the link, as [`World::relate`](crate::World::relate)
    /// does. Relates and unrelates are applied after the additions and
    /// before the despawns (relations in declaration order, each in the
    /// order queued), so reserved handles work, and a despawn queued in the
    /// same buffer sees the link. Rejected (and reported, the payload
    /// dropped) if, at apply, the source is dead
    /// ([`RejectReason::DeadEntity`]), or the target is dead, it is the
    /// source, or the link would close a cycle in a `tree` relation
    /// ([`RejectReason::Relate`]).
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct ChildOf;
    /// struct Name(&'static str);
    /// world! {
    ///     struct Scene<Name>;
    ///     relations { child_of: ChildOf -> children [despawn, tree]; }
    /// }
    ///
    /// let mut scene = Scene::new();
    /// let ship = scene.spawn_with((Name("ship"),));
    /// let mut commands = Commands::new();
    /// let gun = commands.spawn_with((Name("gun"),));
    /// commands.relate(gun, ChildOf, ship);
    /// let report = scene.apply(&mut commands);
    /// let gun = report.entity(gun).unwrap();
    /// assert_eq!(scene.children.of(ship), [gun]);
    /// ```
    pub fn relate<R>(&mut self, source: Entity, payload: R, target: Entity)
    where
        W: Relates<R>,
    {
        self.queue_relation(RelationOp::Relate(source, payload, target));
    }

    /// Queues undoing `source`'s link in the relation `R` (every link of
    /// it, in a `many` relation), as
    /// [`World::unrelate`](crate::World::unrelate) does (the payloads are
    /// dropped). Applied with the relates, in the order queued. Rejected
    /// (and reported) if `source` is dead at apply; does nothing if it is
    /// not related.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct ChildOf;
    /// # struct Tag;
    /// # world! { struct Scene<Tag>; relations { child_of: ChildOf -> children; } }
    /// let mut scene = Scene::new();
    /// let (ship, gun) = (scene.spawn(), scene.spawn());
    /// scene.relate(gun, ChildOf, ship).unwrap();
    /// let mut commands = Commands::new();
    /// commands.unrelate::<ChildOf>(gun);
    /// assert!(scene.apply(&mut commands).is_clean());
    /// assert!(scene.children.of(ship).is_empty());
    /// ```
    pub fn unrelate<R>(&mut self, source: Entity)
    where
        W: Relates<R>,
    {
        self.queue_relation(RelationOp::Unrelate(source, None));
    }

    /// Queues undoing the link from `source` to `target` in the relation
    /// `R`, as [`World::unrelate_from`](crate::World::unrelate_from) does
    /// (the payload is dropped): one link of a `many` relation. Applied
    /// with the relates, in the order queued; rejected (and reported) if
    /// `source` is dead at apply, and does nothing if there is no such
    /// link.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Likes;
    /// # struct Tag;
    /// # world! { struct Town<Tag>; relations { likes: Likes -> liked_by [many]; } }
    /// let mut town = Town::new();
    /// let (a, b, c) = (town.spawn(), town.spawn(), town.spawn());
    /// town.relate(a, Likes, b).unwrap();
    /// town.relate(a, Likes, c).unwrap();
    /// let mut commands = Commands::new();
    /// commands.unrelate_from::<Likes>(a, b);
    /// assert!(town.apply(&mut commands).is_clean());
    /// assert_eq!(town.likes.targets(a).collect::<Vec<_>>(), [c]);
    /// ```
    pub fn unrelate_from<R>(&mut self, source: Entity, target: Entity)
    where
        W: Relates<R>,
    {
        self.queue_relation(RelationOp::Unrelate(source, Some(target)));
    }

    /// Queues a relation command of `R`.
    fn queue_relation<R>(&mut self, op: RelationOp<R>)
    where
        W: Relates<R>,
    {
        <W as Relates<R>>::queue(&mut self.relations).push(op);
        self.len += 1;
    }

    /// Queues spawning an entity and returns a *reserved* handle for it. The
    /// handle works in later commands of this buffer (add, remove, despawn);
    /// at apply it becomes a real entity, listed in
    /// [`ApplyReport::spawned`] and found with [`ApplyReport::entity`].
    /// Anywhere else the world treats it as not alive: in another buffer, or
    /// in this one after the apply, commands naming it are rejected as
    /// [`RejectReason::DeadEntity`]. Each reserved handle carries a number
    /// that no other reservation in the program gets, so this holds however
    /// long the handle is kept.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let mut commands = Commands::new();
    /// let reserved = commands.spawn();
    /// commands.add(reserved, Pos(2.0));
    /// assert!(reserved.is_reserved() && !world.is_alive(reserved));
    /// let report = world.apply(&mut commands);
    /// let real = report.entity(reserved).unwrap();
    /// assert_eq!(world.get::<Pos>(real).map(|p| p.0), Some(2.0));
    /// ```
    ///
    /// # Panics
    ///
    /// If the program has used up its reservation numbers, which are never
    /// reused. With 64-bit atomics there are about 2^63 of them, more than
    /// any program uses. Without (some 32-bit targets), a program can take
    /// 2^32 blocks of 256 numbers in all, and a buffer takes one block for
    /// its first reservation after each completed apply, plus one per
    /// further 256.
    #[track_caller]
    pub fn spawn(&mut self) -> Entity {
        let entity = self.progress.reserve(self.reserved);
        self.reserved += 1;
        self.len += 1;
        entity
    }

    /// Queues spawning an entity with the components of `bundle`; returns a
    /// reserved handle, as [`spawn`](Commands::spawn) does.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # struct Vel(f32);
    /// # world! { struct Game<Pos, Vel>; }
    /// let mut world = Game::new();
    /// let mut commands = Commands::new();
    /// commands.spawn_with((Pos(0.0), Vel(1.0)));
    /// let report = world.apply(&mut commands);
    /// assert!(world.has::<Vel>(report.spawned()[0]));
    /// ```
    #[track_caller]
    pub fn spawn_with<B: BundleParts<W>>(&mut self, bundle: B) -> Entity {
        let () = B::EACH_COMPONENT_ONCE;
        let entity = self.spawn();
        let before = self.len;
        bundle.queue_into(&mut self.queues, entity, TOKEN);
        self.len = before + B::LEN;
        entity
    }

    /// Makes the real entities for the reserved handles that have none yet,
    /// in order.
    pub(crate) fn spawn_real_entities(&mut self, world: &mut W) {
        let progress = &mut self.progress;
        let missing = self.reserved - progress.made.len();
        progress.made.reserve(missing);
        // At most as many as the world can still make.
        let _ = progress
            .spawned
            .try_reserve(missing.min(world.allocator(TOKEN).spawnable()));
        while progress.made.len() < self.reserved {
            let ordinal = progress.made.len();
            self.len -= 1;
            match structural::spawn(world) {
                Ok(entity) => {
                    progress.spawned.push(entity);
                    progress.made.push(Some(entity));
                }
                Err(_) => {
                    progress.reject(
                        progress.handle(ordinal),
                        CommandKind::Spawn,
                        None,
                        RejectReason::OutOfIndices,
                    );
                    progress.made.push(None);
                }
            }
        }
    }

    /// Ends a completed apply: returns the report of everything applied
    /// since the last one, and gives the buffer a fresh start, so handles it
    /// reserved before never match its later spawns.
    pub(crate) fn finish_apply(&mut self) -> ApplyReport {
        debug_assert_eq!(self.len, 0, "a completed apply leaves nothing queued");
        self.reserved = 0;
        core::mem::replace(&mut self.progress, ApplyReport::new())
    }
}

impl<W: Storages> fmt::Debug for Commands<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Commands")
            .field("world", &W::WORLD)
            .field("len", &self.len)
            .field("spawns", &(self.reserved - self.progress.made.len()))
            .field("despawns", &W::despawns_ref(&self.queues, TOKEN).len())
            .finish_non_exhaustive()
    }
}

/// One command that [`World::apply`](crate::World::apply) could not apply.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{CommandKind, RejectReason};
///
/// struct Pos(f32);
/// world! { struct Game<Pos>; }
///
/// let mut world = Game::new();
/// let e = world.spawn_with((Pos(0.0),));
/// let mut commands = Commands::new();
/// commands.add(e, Pos(1.0));
/// let report = world.apply(&mut commands);
/// let rejected = report.rejected()[0];
/// assert_eq!((rejected.command, rejected.reason), (CommandKind::Add, RejectReason::AlreadyPresent));
/// assert!(rejected.to_string().contains("already has one"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rejected {
    /// The entity as written in the command (a reserved handle for spawns).
    pub entity: Entity,
    /// What the command was.
    pub command: CommandKind,
    /// The component's type name, for adds and removes; the relation's
    /// type name, for relates and unrelates.
    pub component: Option<&'static str>,
    /// Why it was rejected.
    pub reason: RejectReason,
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entity = self.entity;
        let component = self.component.unwrap_or("?");
        match self.command {
            CommandKind::Spawn => write!(f, "spawn of {entity}")?,
            CommandKind::Add => write!(f, "add of `{component}` to entity {entity}")?,
            CommandKind::Insert => write!(f, "insert of `{component}` on entity {entity}")?,
            CommandKind::Remove => write!(f, "remove of `{component}` from entity {entity}")?,
            CommandKind::Despawn => write!(f, "despawn of entity {entity}")?,
            CommandKind::Relate => write!(f, "relate by `{component}` of entity {entity}")?,
            CommandKind::Unrelate => write!(f, "unrelate by `{component}` of entity {entity}")?,
        }
        match self.reason {
            RejectReason::DeadEntity => f.write_str(" rejected: the entity is not alive"),
            RejectReason::AlreadyPresent => f.write_str(
                " rejected: the entity already has one (queue `Commands::insert` to replace it)",
            ),
            RejectReason::OutOfIndices => {
                f.write_str(" rejected: the world is out of entity indices")
            }
            RejectReason::Denied => f.write_str(
                " rejected: the entity is the target of a `deny` relation (unrelate its sources first)",
            ),
            RejectReason::Relate(kind) => write!(
                f,
                " rejected: {}",
                crate::relation::RelateError::new(kind, ())
            ),
        }
    }
}

/// What [`World::apply`](crate::World::apply) did: the entities it spawned
/// and the commands it could not apply. Check it, or log it: a rejected
/// command's component has been dropped. After an apply that a panicking
/// `Drop` stopped, the report of the apply that completes the buffer covers
/// what the stopped one did as well.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32);
/// world! { struct Game<Pos>; }
///
/// let mut world = Game::new();
/// let e = world.spawn();
/// world.despawn(e);
/// let mut commands = Commands::new();
/// commands.add(e, Pos(1.0));
/// let report = world.apply(&mut commands);
/// assert!(!report.is_clean());
/// for rejected in report.rejected() {
///     eprintln!("{rejected}");
/// }
/// ```
#[must_use = "the report lists the commands that could not be applied"]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyReport {
    /// The first number of each block of `BLOCK` reservation numbers the
    /// buffer took, in increasing order (the counter only grows). Ordinal
    /// `k` of the buffer has number `blocks[k / BLOCK] + k % BLOCK`.
    blocks: Vec<u64>,
    /// By ordinal: the entity made for each reserved handle, `None` if its
    /// spawn was rejected. (In a buffer: past the end, not made yet.)
    made: Vec<Option<Entity>>,
    spawned: Vec<Entity>,
    rejected: Vec<Rejected>,
}

impl ApplyReport {
    pub(crate) const fn new() -> Self {
        ApplyReport {
            blocks: Vec::new(),
            made: Vec::new(),
            spawned: Vec::new(),
            rejected: Vec::new(),
        }
    }

    /// The reserved handle of ordinal `ordinal`, taking a block of numbers
    /// first if the ordinal starts a new one.
    #[track_caller]
    fn reserve(&mut self, ordinal: usize) -> Entity {
        if ordinal / BLOCK as usize == self.blocks.len() {
            self.blocks.push(take_block());
        }
        self.handle(ordinal)
    }

    /// The reserved handle of ordinal `ordinal`, already handed out.
    fn handle(&self, ordinal: usize) -> Entity {
        let block = self.blocks[ordinal / BLOCK as usize];
        Entity::reserved(block + (ordinal % BLOCK as usize) as u64)
    }

    /// The ordinal of reservation number `number` in these blocks, if it is
    /// in one of them.
    fn ordinal(&self, number: u64) -> Option<usize> {
        let block = self
            .blocks
            .partition_point(|&start| start <= number)
            .checked_sub(1)?;
        let offset = number - self.blocks[block];
        (offset < BLOCK).then(|| block * BLOCK as usize + offset as usize)
    }

    /// `entity` itself if it is not reserved; for a reserved handle of these
    /// blocks, the entity made for it; otherwise `None`.
    #[inline]
    pub(crate) fn resolve(&self, entity: Entity) -> Option<Entity> {
        match entity.reservation() {
            None => Some(entity),
            Some(number) => self
                .ordinal(number)
                .and_then(|ordinal| self.made.get(ordinal).copied().flatten()),
        }
    }

    pub(crate) fn reject(
        &mut self,
        entity: Entity,
        command: CommandKind,
        component: Option<&'static str>,
        reason: RejectReason,
    ) {
        self.rejected.push(Rejected {
            entity,
            command,
            component,
            reason,
        });
    }

    /// The entities spawned, in the order their spawns were queued.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let mut commands = Commands::new();
    /// commands.spawn();
    /// commands.spawn();
    /// assert_eq!(world.apply(&mut commands).spawned().len(), 2);
    /// ```
    pub fn spawned(&self) -> &[Entity] {
        &self.spawned
    }

    /// The commands that could not be applied.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let e = world.spawn();
    /// let mut commands = Commands::new();
    /// commands.despawn(e);
    /// commands.despawn(e);
    /// assert_eq!(world.apply(&mut commands).rejected().len(), 1);
    /// ```
    pub fn rejected(&self) -> &[Rejected] {
        &self.rejected
    }

    /// `true` when every command was applied.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// assert!(world.apply(&mut Commands::new()).is_clean());
    /// ```
    pub fn is_clean(&self) -> bool {
        self.rejected.is_empty()
    }

    /// The real entity made for a reserved handle of the applied buffer, or
    /// `entity` itself if it is not a reserved handle; `None` for a handle
    /// reserved by another buffer or before another apply, or whose spawn
    /// was rejected.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Pos(f32);
    /// # world! { struct Game<Pos>; }
    /// let mut world = Game::new();
    /// let mut commands = Commands::new();
    /// let reserved = commands.spawn();
    /// let report = world.apply(&mut commands);
    /// assert!(world.is_alive(report.entity(reserved).unwrap()));
    /// ```
    pub fn entity(&self, entity: Entity) -> Option<Entity> {
        self.resolve(entity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::sync::atomic::AtomicU32;
    use std::panic;

    /// A report whose blocks start at `starts`, with an entity made for
    /// each of the first `made` ordinals.
    fn report_with(starts: &[u64], made: usize) -> ApplyReport {
        let mut report = ApplyReport::new();
        report.blocks = starts.to_vec();
        report.made = (0..made as u32)
            .map(|i| Entity::from_bits(u64::from(i) | (1 << 32)))
            .collect();
        report
    }

    #[test]
    fn ordinals_run_through_the_blocks_in_order() {
        let starts = [512, 1 << 31, (1 << 32) + 5];
        let report = report_with(&starts, 3 * BLOCK as usize);
        for ordinal in 0..3 * BLOCK as usize {
            let handle = report.handle(ordinal);
            let number = handle.reservation().unwrap();
            assert_eq!(
                number,
                starts[ordinal / BLOCK as usize] + (ordinal % BLOCK as usize) as u64
            );
            assert_eq!(report.ordinal(number), Some(ordinal));
            assert_eq!(report.resolve(handle), report.made[ordinal]);
        }
        // Numbers outside the blocks, before, between and after them.
        for number in [
            0,
            511,
            512 + BLOCK,
            (1 << 31) - 1,
            (1 << 31) + BLOCK,
            1 << 32,
        ] {
            assert_eq!(report.ordinal(number), None, "{number}");
            assert_eq!(report.resolve(Entity::reserved(number)), None);
        }
        // A real handle is itself.
        let real = Entity::from_bits(7 | (2 << 32)).unwrap();
        assert_eq!(report.resolve(real), Some(real));
    }

    #[test]
    fn a_reservation_not_made_yet_or_rejected_resolves_to_nothing() {
        let mut report = report_with(&[1024], 2);
        report.made[1] = None; // its spawn was rejected
        assert!(report.resolve(report.handle(0)).is_some());
        assert_eq!(report.resolve(report.handle(1)), None);
        assert_eq!(report.resolve(report.handle(2)), None, "not made yet");
    }

    #[test]
    fn a_buffer_takes_a_block_per_256_reservations() {
        let mut report = ApplyReport::new();
        let handles: Vec<Entity> = (0..BLOCK as usize + 1)
            .map(|ordinal| report.reserve(ordinal))
            .collect();
        assert_eq!(report.blocks.len(), 2);
        assert!(report.blocks[0] < report.blocks[1]);
        let numbers: Vec<u64> = handles.iter().map(|h| h.reservation().unwrap()).collect();
        assert!(numbers.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(numbers[BLOCK as usize - 1], numbers[0] + BLOCK - 1);
    }

    /// The counter used without 64-bit atomics hands out increasing blocks
    /// and panics rather than wrap.
    #[test]
    fn the_u32_block_counter_panics_instead_of_wrapping() {
        let counter = AtomicU32::new(0);
        assert_eq!(take_block_from(&counter), 0);
        assert_eq!(take_block_from(&counter), BLOCK);
        counter.store(u32::MAX - 1, core::sync::atomic::Ordering::Relaxed);
        let last = take_block_from(&counter);
        assert_eq!(last, u64::from(u32::MAX - 1) * BLOCK);
        assert!(last + BLOCK <= RESERVATION_LIMIT);
        let hook = panic::take_hook();
        panic::set_hook(std::boxed::Box::new(|_| {}));
        let result = panic::catch_unwind(|| take_block_from(&counter));
        panic::set_hook(hook);
        assert!(result.is_err(), "no wrap to block 0");
        assert_eq!(
            counter.load(core::sync::atomic::Ordering::Relaxed),
            u32::MAX
        );
    }
}
