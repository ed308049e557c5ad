//! [`Seen`]: what one system has seen of a tracked component's changes.

use core::fmt;
use core::marker::PhantomData;

use super::param::{Source, WriteParam};
use crate::change::{ChangeLog, Tracked, Window};
use crate::log::Cursor;
use crate::plumbing::{Storages, TrackedColumn};
use crate::query::{ChangedMut, ChangedRef};
use crate::seal::TOKEN;
use crate::{Entity, SparseMap};

/// A system parameter, `&mut Seen<C>`: the system's own view of the
/// changes of a tracked component `C`. Each look (`changed`, `added`,
/// `removed`) covers what happened since the system's previous run's
/// look: changes made by the systems before and after it, by itself, at
/// sync points and between runs, each seen exactly once, whatever other
/// schedules ran on the world in between and whether a run was cut short
/// by a panic (its removals are kept for it until it has looked). A
/// system's first run sees every entity that has `C` as added and changed;
/// so does its first run after the storage was replaced (a new world, a
/// loaded one, or a storage put in the field): what it saw before is about
/// another storage.
///
/// A schedule starts a new stamp before each stage, so what a stage
/// changes is seen by its own members at their next run, and by later
/// stages in this run. `Seen` borrows nothing: take the storage as another
/// parameter (`&SparseMap<C, Tracked>` or `&mut SparseMap<C, Tracked>`).
/// Looking twice in one run gives the same answer.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::Seen;
/// use typed_ecs::{join, Tracked};
///
/// #[derive(Default)]
/// struct Outbox(Vec<(Entity, i32)>);
/// struct Pos(i32);
/// world! {
///     struct Game<Pos>;
///     resources { outbox: Outbox }
///     tracked (Pos);
/// }
///
/// /// Sends only the positions that changed since this system last ran.
/// fn send(pos: &SparseMap<Pos, Tracked>, seen: &mut Seen<Pos>, outbox: &mut Outbox) {
///     join(seen.changed(pos)).for_each(|e, p| outbox.0.push((e, p.0)));
/// }
///
/// let mut world = Game::new();
/// let a = world.spawn_with((Pos(1),));
/// let b = world.spawn_with((Pos(2),));
/// let mut schedule = Schedule::new();
/// schedule.add_system(send);
///
/// schedule.run(&mut world); // first run: everything is new
/// assert_eq!(world.outbox.0.len(), 2);
/// world.outbox.0.clear();
///
/// world.pos.get_mut(b).unwrap().0 = 5;
/// schedule.run(&mut world);
/// assert_eq!(world.outbox.0, [(b, 5)]);
/// # let _ = a;
/// ```
pub struct Seen<C> {
    /// The identity of the change log its stamps belong to (0: none yet).
    log: u64,
    /// This run's looks start here.
    since: u64,
    /// Where the next run's looks start: the stamp of this run's look.
    next: u64,
    /// Its registration with the log's removals, which keeps them for it.
    cursor: Option<Cursor>,
    component: PhantomData<fn() -> C>,
}

impl<C> Default for Seen<C> {
    fn default() -> Self {
        Seen {
            log: 0,
            since: 0,
            next: 0,
            cursor: None,
            component: PhantomData,
        }
    }
}

impl<C> fmt::Debug for Seen<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Seen")
            .field("log", &self.log)
            .field("since", &self.since)
            .field("next", &self.next)
            .finish()
    }
}

impl<C: 'static> Seen<C> {
    /// The window of this look: from this run's start to the stamp changes
    /// are recorded under now (excluded: they are the next look's). A log
    /// this view has not seen before (its storage was replaced during the
    /// run) is seen whole.
    #[inline]
    fn look(&mut self, log: &ChangeLog) -> Window {
        if log.id() != self.log {
            self.start_over(log.id());
        }
        self.next = log.now();
        Window {
            since: self.since,
            until: log.now(),
        }
    }

    /// A new look at `log` that reads changes only (a world's `on_change`
    /// hooks): as [`prepare`](WriteParam::prepare), without holding the
    /// log's removals for it. The caller tells the log where its next look
    /// starts once it has looked ([`next_position`](Self::next_position)).
    pub(crate) fn next_look(&mut self, log: &mut ChangeLog) {
        let id = log.identify();
        if id == self.log {
            self.since = self.next;
        } else {
            self.start_over(id);
        }
    }

    /// Where the look after this one starts: the stamp of this one.
    pub(crate) fn next_position(&self) -> u64 {
        self.next
    }

    /// The view of the log `id` starts from nothing seen.
    #[cold]
    fn start_over(&mut self, id: u64) {
        self.log = id;
        self.since = 0;
        self.next = 0;
    }

    /// The entities whose `C` changed, with their values: a column for a
    /// [`join`](crate::query::join). O(entities changed) with `for_each`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::Seen;
    /// # use typed_ecs::{join, Tracked};
    /// # struct Pos(i32);
    /// # struct Vel(i32);
    /// # world! { struct Game<Pos, Vel>; tracked (Pos); }
    /// fn bounce(pos: &SparseMap<Pos, Tracked>, vel: &mut SparseMap<Vel>, seen: &mut Seen<Pos>) {
    ///     join((seen.changed(pos), vel)).for_each(|_, (p, v)| {
    ///         if p.0 > 10 {
    ///             v.0 = -v.0;
    ///         }
    ///     });
    /// }
    /// # let mut schedule = Schedule::<Game>::new();
    /// # schedule.add_system(bounce);
    /// ```
    #[inline]
    pub fn changed<'w>(&mut self, map: &'w SparseMap<C, Tracked>) -> ChangedRef<'w, C> {
        let window = self.look(map.log());
        ChangedRef::new(map, window, false)
    }

    /// Like [`changed`](Self::changed), handing out `&mut C` (which counts
    /// as a new change: this system sees it again at its next run).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::Seen;
    /// # use typed_ecs::{join, Tracked};
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; tracked (Hp); }
    /// fn clamp(hp: &mut SparseMap<Hp, Tracked>, seen: &mut Seen<Hp>) {
    ///     join(seen.changed_mut(hp)).for_each(|_, hp| hp.0 = hp.0.clamp(0, 100));
    /// }
    /// # let mut schedule = Schedule::<Game>::new();
    /// # schedule.add_system(clamp);
    /// ```
    #[inline]
    pub fn changed_mut<'w>(&mut self, map: &'w mut SparseMap<C, Tracked>) -> ChangedMut<'w, C> {
        let window = self.look(map.log());
        ChangedMut::new(map, window, false)
    }

    /// The entities that gained `C`, with their values. O(entities added)
    /// with `for_each`, however many values changed.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::Seen;
    /// # use typed_ecs::{join, Tracked};
    /// # struct Pos(i32);
    /// # world! { struct Game<Pos>; tracked (Pos); }
    /// fn greet(pos: &SparseMap<Pos, Tracked>, seen: &mut Seen<Pos>) {
    ///     join(seen.added(pos)).for_each(|e, _| println!("{e:?} arrived"));
    /// }
    /// # let mut schedule = Schedule::<Game>::new();
    /// # schedule.add_system(greet);
    /// ```
    #[inline]
    pub fn added<'w>(&mut self, map: &'w SparseMap<C, Tracked>) -> ChangedRef<'w, C> {
        let window = self.look(map.log());
        ChangedRef::new(map, window, true)
    }

    /// Like [`added`](Self::added), handing out `&mut C`.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::Seen;
    /// # use typed_ecs::{join, Tracked};
    /// # struct Hp(i32);
    /// # world! { struct Game<Hp>; tracked (Hp); }
    /// fn full_health(hp: &mut SparseMap<Hp, Tracked>, seen: &mut Seen<Hp>) {
    ///     join(seen.added_mut(hp)).for_each(|_, hp| hp.0 = 100);
    /// }
    /// # let mut schedule = Schedule::<Game>::new();
    /// # schedule.add_system(full_health);
    /// ```
    #[inline]
    pub fn added_mut<'w>(&mut self, map: &'w mut SparseMap<C, Tracked>) -> ChangedMut<'w, C> {
        let window = self.look(map.log());
        ChangedMut::new(map, window, true)
    }

    /// The entities that lost `C`, oldest first (an entity that lost it
    /// twice is listed twice). The change log keeps each removal until
    /// every `Seen` of a schedule that ran on the world has looked past
    /// it (and the world's own view, see
    /// [`World::clear_changes`](crate::World::clear_changes)), so each is
    /// seen once, however many runs go by in between.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::Seen;
    /// # use typed_ecs::Tracked;
    /// # struct Pos(i32);
    /// # world! { struct Game<Pos>; tracked (Pos); }
    /// fn forget(pos: &SparseMap<Pos, Tracked>, seen: &mut Seen<Pos>) {
    ///     for e in seen.removed(pos) {
    ///         println!("{e:?} left");
    ///     }
    /// }
    /// # let mut schedule = Schedule::<Game>::new();
    /// # schedule.add_system(forget);
    /// ```
    #[inline]
    pub fn removed<'w>(&mut self, map: &'w SparseMap<C, Tracked>) -> &'w [Entity] {
        let window = self.look(map.log());
        map.log().removed_in(window)
    }
}

impl<W: Storages, C: TrackedColumn<W> + 'static> WriteParam<W> for Seen<C> {
    const TARGET: Option<crate::system::access::Target> = None;
    type Claim = crate::system::claims::Kept;
    type State = Seen<C>;

    #[inline]
    fn write<'a>(state: &'a mut Seen<C>, _: &mut Source<'a, W>) -> &'a mut Seen<C> {
        state
    }

    /// A new run: its looks start where the last run's look ended, and the
    /// log keeps the removals from there on (see `log.rs`). A
    /// log of another identity than the last one looked at (a new world,
    /// a loaded one, a replaced storage) is seen whole.
    fn prepare(state: &mut Seen<C>, world: &mut W) {
        let log = C::field_mut(world, TOKEN).log_mut();
        state.next_look(log);
        log.register(&mut state.cursor, state.since);
    }
}
