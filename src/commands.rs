//! [`Commands`]: deferred changes recorded while the world is borrowed, and
//! applied later with [`World::apply`].
//!
//! A buffer is typed by its world and stores one queue per component, in a
//! struct that [`world!`](crate::world) generates: no boxing, no type erasure.

use alloc::vec::Vec;
use core::any::type_name;
use core::fmt;

use crate::world::{Bundle, Contains};
use crate::{Entity, World};

/// One component's queued adds and removes in a [`Commands`] buffer. Part of
/// the struct `world!` generates; not used directly.
#[doc(hidden)]
pub struct Queue<T> {
    adds: Vec<(Entity, T)>,
    removes: Vec<Entity>,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue {
            adds: Vec::new(),
            removes: Vec::new(),
        }
    }
}

impl<T> fmt::Debug for Queue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Queue")
            .field("adds", &self.adds.len())
            .field("removes", &self.removes.len())
            .finish()
    }
}

impl<T> Queue<T> {
    #[inline]
    pub(crate) fn push_add(&mut self, entity: Entity, value: T) {
        self.adds.push((entity, value));
    }
}

/// Applies the removals queued for `C` in a command buffer's queues.
pub(crate) fn apply_removals<W: Contains<C>, C>(
    world: &mut W,
    queues: &mut W::__Queues,
    resolver: &Resolver<'_>,
    report: &mut ApplyReport,
) {
    let queue = W::__queue(queues);
    for entity in queue.removes.drain(..) {
        match resolver
            .resolve(entity)
            .filter(|&real| world.is_alive(real))
        {
            Some(real) => {
                world.__groups_leaving::<(C,)>(real);
                drop(world.sparse_map_mut().remove(real));
            }
            None => report.reject(
                entity,
                CommandKind::Remove,
                Some(type_name::<C>()),
                RejectReason::DeadEntity,
            ),
        }
    }
}

/// Applies the additions queued for `C` in a command buffer's queues, in
/// the order queued.
pub(crate) fn apply_additions<W: Contains<C>, C>(
    world: &mut W,
    queues: &mut W::__Queues,
    resolver: &Resolver<'_>,
    report: &mut ApplyReport,
) {
    let queue = W::__queue(queues);
    for (entity, value) in queue.adds.drain(..) {
        let component = Some(type_name::<C>());
        match resolver
            .resolve(entity)
            .filter(|&real| world.is_alive(real))
        {
            Some(real) => match world.sparse_map_mut().insert_new(real, value) {
                Ok(()) => world.__groups_entered::<(C,)>(real),
                Err(_already_present) => report.reject(
                    entity,
                    CommandKind::Add,
                    component,
                    RejectReason::AlreadyPresent,
                ),
            },
            None => report.reject(
                entity,
                CommandKind::Add,
                component,
                RejectReason::DeadEntity,
            ),
        }
    }
}

/// Maps the reserved handles of one buffer to the entities made for them.
#[doc(hidden)]
#[derive(Debug)]
pub struct Resolver<'a> {
    buffer: u32,
    spawned: &'a [Option<Entity>],
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(buffer: u32, spawned: &'a [Option<Entity>]) -> Self {
        Resolver { buffer, spawned }
    }

    /// The real entity for `entity`: itself, or the one made for a reserved
    /// handle of this buffer (`None` if that spawn failed, or the handle was
    /// reserved by another buffer or before an earlier apply).
    #[inline]
    pub(crate) fn resolve(&self, entity: Entity) -> Option<Entity> {
        resolve_reserved(self.buffer, entity, |ordinal| {
            self.spawned.get(ordinal as usize).copied().flatten()
        })
    }
}

/// `entity` itself if it is not reserved; for a handle reserved by `buffer`,
/// `lookup(ordinal)`; for one reserved by any other buffer, `None`.
#[inline]
fn resolve_reserved(
    buffer: u32,
    entity: Entity,
    lookup: impl FnOnce(u32) -> Option<Entity>,
) -> Option<Entity> {
    match entity.reserved_parts() {
        None => Some(entity),
        Some((made_by, ordinal)) if made_by == buffer => lookup(ordinal),
        Some(_) => None,
    }
}

/// Hands out buffer ids (31 bits, wrapping), so a reserved handle can be
/// told apart from another buffer's, or from its own buffer's before an
/// earlier apply.
fn next_buffer_id() -> u32 {
    use core::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed) & !(1 << 31)
}

/// A buffer of deferred changes for the world `W`: add, remove, despawn and
/// spawn. Fill it while the world is borrowed (inside a query), then apply it
/// with [`World::apply`], which applies spawns, then
/// removals, then additions, then despawns, and reports every command it
/// could not apply.
///
/// `Commands::new()` needs no world: `W` is inferred from the `apply` call.
/// A buffer can be kept and reused; `apply` leaves it empty. Dropping a
/// buffer without applying it drops the components it holds.
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
pub struct Commands<W: World> {
    pub(crate) queues: W::__Queues,
    /// This buffer's id since its last apply: part of every handle it reserves.
    pub(crate) id: u32,
    pub(crate) despawns: Vec<Entity>,
    /// Number of reserved handles handed out (spawns queued).
    spawns: u32,
    /// Number of commands queued.
    pub(crate) len: usize,
}

impl<W: World> Default for Commands<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: World> Commands<W> {
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
            queues: W::__Queues::default(),
            id: next_buffer_id(),
            despawns: Vec::new(),
            spawns: 0,
            len: 0,
        }
    }

    /// Number of commands queued (a spawn with a bundle counts once per
    /// component, plus one).
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

    /// Drops everything queued.
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
        W::__queue(&mut self.queues).push_add(entity, component);
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
        W::__queue(&mut self.queues).removes.push(entity);
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
        self.despawns.push(entity);
        self.len += 1;
    }

    /// Queues spawning an entity and returns a *reserved* handle for it. The
    /// handle works in later commands of this buffer (add, remove, despawn);
    /// at apply it becomes a real entity, listed in
    /// [`ApplyReport::spawned`] and found with [`ApplyReport::entity`].
    /// Anywhere else the world treats it as not alive: in another buffer, or
    /// in this one after the apply, commands naming it are rejected as
    /// [`RejectReason::DeadEntity`].
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
    /// If one buffer reserves more than `u32::MAX - 1` entities between applies.
    #[track_caller]
    pub fn spawn(&mut self) -> Entity {
        let entity = Entity::reserved(self.id, self.spawns);
        self.spawns += 1;
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
    pub fn spawn_with<B: Bundle<W>>(&mut self, bundle: B) -> Entity {
        let entity = self.spawn();
        let before = self.len;
        bundle.__queue_into(&mut self.queues, entity);
        self.len = before + B::__LEN;
        entity
    }

    /// Makes the real entities for this buffer's reserved handles, in order.
    pub(crate) fn spawn_real_entities(
        &mut self,
        world: &mut W,
        report: &mut ApplyReport,
    ) -> Vec<Option<Entity>> {
        let mut spawned = Vec::with_capacity(self.spawns as usize);
        for ordinal in 0..self.spawns {
            match world.try_spawn() {
                Ok(entity) => {
                    report.spawned.push(entity);
                    spawned.push(Some(entity));
                }
                Err(_) => {
                    report.reject(
                        Entity::reserved(self.id, ordinal),
                        CommandKind::Spawn,
                        None,
                        RejectReason::OutOfIndices,
                    );
                    spawned.push(None);
                }
            }
        }
        spawned
    }

    /// Empties the spawn count and gives the buffer a new id, so handles it
    /// reserved before this apply never match its later spawns.
    pub(crate) fn finish_apply(&mut self) {
        self.spawns = 0;
        self.len = 0;
        self.id = next_buffer_id();
    }
}

impl<W: World> fmt::Debug for Commands<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Commands")
            .field("world", &W::NAME)
            .field("len", &self.len)
            .field("spawns", &self.spawns)
            .field("despawns", &self.despawns.len())
            .finish_non_exhaustive()
    }
}

/// What kind of command was rejected. See [`Rejected`].
///
/// ```
/// use typed_ecs::commands::CommandKind;
/// assert_ne!(CommandKind::Add, CommandKind::Remove);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CommandKind {
    /// `Commands::spawn` / `spawn_with`.
    Spawn,
    /// `Commands::add`.
    Add,
    /// `Commands::remove`.
    Remove,
    /// `Commands::despawn`.
    Despawn,
}

/// Why a command was rejected. See [`Rejected`].
///
/// ```
/// use typed_ecs::commands::RejectReason;
/// assert_ne!(RejectReason::DeadEntity, RejectReason::AlreadyPresent);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RejectReason {
    /// The entity was not alive when the command was applied.
    DeadEntity,
    /// The entity already had the component the command adds.
    AlreadyPresent,
    /// The world ran out of entity indices.
    OutOfIndices,
}

/// One command that [`World::apply`] could not apply.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::commands::{CommandKind, RejectReason};
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
    /// The component's type name, for adds and removes.
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
            CommandKind::Remove => write!(f, "remove of `{component}` from entity {entity}")?,
            CommandKind::Despawn => write!(f, "despawn of entity {entity}")?,
        }
        match self.reason {
            RejectReason::DeadEntity => f.write_str(" rejected: the entity is not alive"),
            RejectReason::AlreadyPresent => f.write_str(
                " rejected: the entity already has one (queue a remove first to replace it)",
            ),
            RejectReason::OutOfIndices => {
                f.write_str(" rejected: the world is out of entity indices")
            }
        }
    }
}

/// What [`World::apply`] did: the entities it spawned
/// and the commands it could not apply. Check it, or log it: a rejected
/// command's component has been dropped.
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
    /// The id the applied buffer had: its reserved handles carry it.
    buffer: u32,
    spawned: Vec<Entity>,
    rejected: Vec<Rejected>,
}

impl ApplyReport {
    pub(crate) fn new(buffer: u32) -> Self {
        ApplyReport {
            buffer,
            spawned: Vec::new(),
            rejected: Vec::new(),
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
    /// reserved by another buffer or another apply.
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
        // Spawns only fail once indices run out, so every failed spawn comes
        // after every successful one and `spawned[ordinal]` lines up.
        resolve_reserved(self.buffer, entity, |ordinal| {
            self.spawned.get(ordinal as usize).copied()
        })
    }
}
