//! Events: typed messages between systems, declared in `world!`
//! (`events { damage: Damage }`), kept in the world's field
//! `damage: Events<Damage>` until every reader has passed them.
//!
//! An [`Events`] is a [`Log`] of messages under sequence numbers (the
//! key), with its next number. Readers are cursors of that log: a system's
//! [`Reader`] (its own, like its `Seen`), or one taken by hand with
//! [`Events::cursor`]. A reader registers its position with the log (in
//! its system's `prepare`, which has the world mutably, or when taken by
//! hand), and the log keeps every message from the smallest registered
//! position on: nothing a registered reader has not passed is dropped,
//! whatever the other readers did. A log with no reader keeps everything.
//!
//! A system's [`Writer`] is its own buffer, appended to the world's events
//! at the next sync point in system order, so writers of one event never
//! conflict and the merged order is the same whatever the threads did.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use crate::log::{Cursor, Log, Numbered};
use crate::plumbing::Storages;
use crate::system::claims::Free;
use crate::system::param::{Source, WriteParam};
use crate::ApplyReport;

/// The messages of one event type `E` that some reader has not passed yet:
/// the world's field for an event declared in `world!`'s `events { … }`.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(f32);
/// #[derive(Debug, PartialEq)]
/// struct Damage(u32);
/// world! {
///     struct Game<Pos>;
///     events { damage: Damage }
/// }
///
/// let mut world = Game::new();
/// let mut inbox = world.damage.cursor(); // a reader taken by hand
/// world.send(Damage(3));
/// world.damage.send(Damage(4));
/// let read: Vec<&Damage> = inbox.read(&world.damage).collect();
/// assert_eq!(read, [&Damage(3), &Damage(4)]);
/// assert_eq!(inbox.read(&world.damage).count(), 0, "each message once");
/// ```
pub struct Events<E> {
    /// The messages, under consecutive sequence numbers.
    log: Log<E, Numbered>,
    /// What the sequence numbers count in: given at the first send, kept
    /// by a save and load, new for a clone; 0 before the first send. A
    /// cursor's position means something only in its own lineage. Not 0
    /// only if the log has its identity.
    lineage: u64,
}

impl<E> Events<E> {
    /// No message.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let events: Events<u32> = Events::new();
    /// assert!(events.is_empty());
    /// ```
    pub const fn new() -> Self {
        Events {
            log: Log::NEW,
            lineage: 0,
        }
    }

    /// Sends `event`: every reader will read it once, after the messages
    /// sent before it.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// let mut reader = events.cursor();
    /// events.send("hello");
    /// assert_eq!(reader.read(&events).collect::<Vec<_>>(), [&"hello"]);
    /// ```
    #[inline]
    pub fn send(&mut self, event: E) {
        if self.lineage == 0 {
            self.begin();
        }
        self.log.push_next(event);
    }

    /// The first send: the numbering gets its lineage and the log its
    /// identity (out of line: once per queue).
    #[cold]
    #[inline(never)]
    fn begin(&mut self) {
        self.lineage = crate::unique::lasting();
        self.log.identify();
    }

    /// Sends every event of `events`, in order.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// events.send_batch([1, 2, 3]);
    /// assert_eq!(events.len(), 3);
    /// ```
    pub fn send_batch(&mut self, events: impl IntoIterator<Item = E>) {
        for event in events {
            self.send(event);
        }
    }

    /// The number of messages kept (some reader has not passed them, or
    /// no reader is registered yet).
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// events.send(1);
    /// assert_eq!(events.len(), 1);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.log.len()
    }

    /// `true` if no message is kept.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// assert!(Events::<u8>::new().is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every message kept, oldest first.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// events.send_batch(["a", "b"]);
    /// assert_eq!(events.iter().collect::<Vec<_>>(), [&"a", &"b"]);
    /// ```
    pub fn iter(&self) -> core::slice::Iter<'_, E> {
        self.log.between(0, u64::MAX).iter()
    }

    /// The number the next message will be sent under: how many were
    /// ever sent here.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// events.send_batch([1, 2]);
    /// assert_eq!(events.sent(), 2);
    /// ```
    #[inline]
    pub fn sent(&self) -> u64 {
        self.oldest() + self.log.len() as u64
    }

    /// A reader taken by hand, for code outside a schedule: it reads every
    /// message kept now and every one sent later, each once, in order.
    /// While it is alive, the messages it has not passed are kept (it
    /// tells the log where it stands each time it reads through
    /// [`read_mut`](EventCursor::read_mut), or when
    /// [`update`](EventCursor::update)d); dropping it lets them go.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// events.send(1);
    /// let mut cursor = events.cursor();
    /// events.send(2);
    /// assert_eq!(cursor.read(&events).copied().collect::<Vec<_>>(), [1, 2]);
    /// ```
    pub fn cursor(&mut self) -> EventCursor<E> {
        let mut cursor = EventCursor::new();
        cursor.update(self);
        cursor
    }

    /// The oldest sequence number kept (the next one if none is).
    #[inline]
    fn oldest(&self) -> u64 {
        self.log.key_layout().first()
    }

    /// The messages from sequence number `from` on.
    #[inline]
    fn from(&self, from: u64) -> &[E] {
        self.log.since(from)
    }

    /// The lineage, given now if there was none.
    fn lineage(&mut self) -> u64 {
        if self.lineage == 0 {
            self.begin();
        }
        self.lineage
    }

    /// Keeps at most `bound` messages: the oldest beyond it are dropped
    /// (the readers that had not read them count them, see
    /// [`EventCursor::dropped`]). What `world!`'s `[bound N]` applies
    /// where messages arrive and readers look.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// let mut slow = events.cursor();
    /// events.send_batch([1, 2, 3, 4]);
    /// events.keep_at_most(2);
    /// assert_eq!(slow.read(&events).copied().collect::<Vec<_>>(), [3, 4]);
    /// assert_eq!(slow.dropped(), 2);
    /// ```
    #[inline]
    pub fn keep_at_most(&mut self, bound: usize) {
        let len = self.log.len();
        if len > bound {
            self.log.drop_oldest(len - bound);
        }
    }

    /// Registers a reader's position and drops what every registered
    /// reader has passed. A reader new to the log drops nothing: the
    /// readers of a loaded (or replaced) world register anew one by one,
    /// and the first must not drop what the others have not read.
    #[inline]
    fn register(&mut self, cursor: &mut Option<Cursor>, position: u64) {
        if !self.log.register(cursor, position) {
            self.log.trim(u64::MAX);
        }
    }
}

impl<E> Default for Events<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Clone> Clone for Events<E> {
    /// The same messages, in a new lineage: no reader of the original has
    /// read the copy.
    fn clone(&self) -> Self {
        Events {
            log: self.log.clone(),
            lineage: if self.lineage == 0 {
                0
            } else {
                crate::unique::lasting()
            },
        }
    }
}

impl<E: fmt::Debug> fmt::Debug for Events<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Events")
            .field("pending", &self.from(0))
            .field("sent", &self.sent())
            .finish()
    }
}

/// Where one reader of an [`Events`] stands: the messages it has not read
/// yet are kept while it lives. Taken by hand with [`Events::cursor`]; a
/// system's [`Reader`] holds one.
pub struct EventCursor<E> {
    /// The first sequence number not read yet.
    position: u64,
    /// Messages dropped (by a bound) before this cursor read them.
    dropped: u64,
    /// The lineage `position` counts in (see [`Events`]; 0: none yet).
    lineage: u64,
    registration: Option<Cursor>,
    marker: PhantomData<fn() -> E>,
}

impl<E> EventCursor<E> {
    const fn new() -> Self {
        EventCursor {
            position: 0,
            dropped: 0,
            lineage: 0,
            registration: None,
            marker: PhantomData,
        }
    }

    /// `true` if the cursor's position counts in `events`' numbering: the
    /// same lineage (not another `Events`, nor a clone), and not past its
    /// last message (a world loaded from a save older than the cursor).
    #[inline]
    fn counts_in(&self, events: &Events<E>) -> bool {
        self.lineage == events.lineage && self.position <= events.sent()
    }

    /// The messages of `events` this cursor has not read, oldest first;
    /// reading them moves the cursor past them. Each message is read once.
    /// A cursor of another `Events` (or of a clone, or of a world loaded
    /// from a save older than the cursor) starts over: it reads every
    /// message kept. A cursor of a world that was saved and loaded reads
    /// on where it stood.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// let mut cursor = events.cursor();
    /// events.send_batch([1, 2]);
    /// assert_eq!(cursor.read(&events).sum::<i32>(), 3);
    /// events.send(3);
    /// assert_eq!(cursor.read(&events).sum::<i32>(), 3);
    /// ```
    pub fn read<'a>(&mut self, events: &'a Events<E>) -> core::slice::Iter<'a, E> {
        let from = if self.counts_in(events) {
            // Below the oldest kept only when a bound dropped messages.
            self.dropped += events.oldest().saturating_sub(self.position);
            self.position
        } else {
            self.lineage = events.lineage;
            0
        };
        self.position = events.sent();
        events.from(from).iter()
    }

    /// Passes every message of `events` this cursor has not read, without
    /// reading them; returns how many it passed (bevy's reader `clear`).
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// let mut cursor = events.cursor();
    /// events.send_batch([1, 2]);
    /// assert_eq!(cursor.skip(&events), 2);
    /// assert_eq!(cursor.read(&events).count(), 0);
    /// ```
    #[inline]
    pub fn skip(&mut self, events: &Events<E>) -> usize {
        self.read(events).len()
    }

    /// [`read`](EventCursor::read), telling the log where the cursor
    /// stands first, so that messages it has passed can go.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// let mut cursor = events.cursor();
    /// events.send(1);
    /// assert_eq!(cursor.read_mut(&mut events).count(), 1);
    /// cursor.update(&mut events);
    /// assert!(events.is_empty(), "its only reader passed it");
    /// ```
    pub fn read_mut<'a>(&mut self, events: &'a mut Events<E>) -> core::slice::Iter<'a, E> {
        self.update(events);
        self.read(events)
    }

    /// Tells `events` where this cursor stands: the messages it has passed
    /// may go (once every other reader has passed them too).
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// let mut cursor = events.cursor();
    /// events.send(1);
    /// cursor.update(&mut events);
    /// assert_eq!(events.len(), 1, "not read yet: kept");
    /// ```
    pub fn update(&mut self, events: &mut Events<E>) {
        let lineage = events.lineage();
        if !self.counts_in(events) {
            // A new numbering to this cursor: it will read every message
            // kept.
            self.lineage = lineage;
            self.position = events.oldest();
        }
        events.register(&mut self.registration, self.position);
    }

    /// How many messages a bound dropped before this cursor read them
    /// (counted when it reads next).
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// let mut cursor = events.cursor();
    /// events.send_batch([1, 2, 3]);
    /// events.keep_at_most(1);
    /// assert_eq!(cursor.read(&events).count(), 1);
    /// assert_eq!(cursor.dropped(), 2);
    /// ```
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The number of messages of `events` this cursor has not read.
    ///
    /// ```
    /// # use typed_ecs::Events;
    /// let mut events = Events::new();
    /// let cursor = events.cursor();
    /// events.send_batch([1, 2]);
    /// assert_eq!(cursor.unread(&events), 2);
    /// ```
    pub fn unread(&self, events: &Events<E>) -> usize {
        if self.counts_in(events) {
            events.from(self.position).len()
        } else {
            events.len()
        }
    }
}

impl<E> Default for EventCursor<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> fmt::Debug for EventCursor<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventCursor")
            .field("position", &self.position)
            .finish()
    }
}

/// A world that declares the event `E` in `world!`'s `events { … }`: its
/// field of that type. Implemented by `world!` only.
#[diagnostic::on_unimplemented(
    message = "`{E}` is not an event of `{Self}`",
    label = "`{Self}` declares no `Events<{E}>`",
    note = "add it to the `world!` declaration of `{Self}`: `events {{ name: {E} }}` after the struct line"
)]
pub trait EventsOf<E>: Storages {
    /// The most messages kept (`[bound N]` in `events { … }`; no bound
    /// by default): beyond it the oldest are dropped, and counted by the
    /// readers that missed them.
    const BOUND: usize = usize::MAX;

    /// The world's events of type `E`.
    fn events(&self) -> &Events<E>;

    /// The world's events of type `E`, mutably.
    fn events_mut(&mut self) -> &mut Events<E>;
}

/// `Self` is an event `W` declares: what `world.send(event)` asks of the
/// event's type (a bound on the event rather than on the world, so that a
/// failure names it). Implemented by `world!` only. Not public API.
#[doc(hidden)] // Reached through the world's `send` only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an event of `{W}`",
    label = "`{W}` declares no `Events<{Self}>`",
    note = "add it to the `world!` declaration of `{W}`: `events {{ name: {Self} }}` after the struct line"
)]
pub trait EventIn<W>: Sized {
    /// Sends `self` to `world`'s events of its type.
    fn send_to(self, world: &mut W);
}

/// A system's own reader of the event `E`: a `&mut Reader<E>` parameter,
/// read with the world's `&Events<E>`. It borrows nothing of the world, so
/// readers share stages with each other and with writers. Each message is
/// read once per reader, in the order sent; the messages a reader has not
/// passed are kept for it (see [`Events`]).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Hp(i32);
/// struct Damage(i32);
/// world! {
///     struct Game<Hp>;
///     events { damage: Damage }
/// }
///
/// fn apply(hp: &mut SparseMap<Hp>, damage: &Events<Damage>, inbox: &mut Reader<Damage>) {
///     for d in inbox.read(damage) {
///         hp.values_mut().iter_mut().for_each(|h| h.0 -= d.0);
///     }
/// }
///
/// let mut world = Game::new();
/// world.spawn_with((Hp(10),));
/// let mut schedule = Schedule::new();
/// schedule.add_system(apply);
/// world.send(Damage(3));
/// schedule.run(&mut world);
/// schedule.run(&mut world); // nothing new: nothing read twice
/// assert_eq!(world.hp.values()[0].0, 7);
/// ```
pub struct Reader<E> {
    cursor: EventCursor<E>,
}

impl<E> Reader<E> {
    /// The messages of `events` this reader has not read, oldest first,
    /// each once.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Damage(i32);
    /// fn total(damage: &Events<Damage>, inbox: &mut Reader<Damage>) -> i32 {
    ///     inbox.read(damage).map(|d| d.0).sum()
    /// }
    /// ```
    #[inline]
    pub fn read<'a>(&mut self, events: &'a Events<E>) -> core::slice::Iter<'a, E> {
        self.cursor.read(events)
    }

    /// Passes every message of `events` this reader has not read, without
    /// reading them; returns how many it passed.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Damage(i32);
    /// fn ignore_backlog(damage: &Events<Damage>, inbox: &mut Reader<Damage>) {
    ///     inbox.skip(damage);
    ///     assert_eq!(inbox.unread(damage), 0);
    /// }
    /// ```
    #[inline]
    pub fn skip(&mut self, events: &Events<E>) -> usize {
        self.cursor.skip(events)
    }

    /// The number of messages of `events` this reader has not read.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Damage(i32);
    /// fn pending(damage: &Events<Damage>, inbox: &mut Reader<Damage>) -> usize {
    ///     inbox.unread(damage)
    /// }
    /// ```
    pub fn unread(&self, events: &Events<E>) -> usize {
        self.cursor.unread(events)
    }

    /// How many messages this reader missed because the event's bound
    /// (`[bound N]` in `world!`) dropped them first.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Damage(i32);
    /// fn lagging(inbox: &mut Reader<Damage>) -> bool {
    ///     inbox.dropped() > 0
    /// }
    /// ```
    pub fn dropped(&self) -> u64 {
        self.cursor.dropped()
    }
}

impl<E> Default for Reader<E> {
    fn default() -> Self {
        Reader {
            cursor: EventCursor::new(),
        }
    }
}

impl<E> fmt::Debug for Reader<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader")
            .field("cursor", &self.cursor)
            .finish()
    }
}

/// The system's own cursor: nothing shared, so no conflict. At the start
/// of each run of its schedule it tells the log where it stands (so that
/// what it passed may go, and what it has not is kept).
impl<W: EventsOf<E>, E: 'static> WriteParam<W> for Reader<E> {
    const TARGET: Option<crate::system::access::Target> = None;
    type Claim = crate::system::claims::Kept;
    type State = Reader<E>;

    #[inline]
    fn write<'a>(state: &'a mut Reader<E>, _: &mut Source<'a, W>) -> &'a mut Reader<E> {
        state
    }

    const REGISTERS: bool = true;

    fn event() -> Option<(&'static str, bool)> {
        Some((core::any::type_name::<E>(), false))
    }

    fn missed(state: &Reader<E>) -> Option<(&'static str, u64)> {
        Some((core::any::type_name::<E>(), state.dropped()))
    }

    /// Tells the log where the reader stands at the start of every run,
    /// whether or not it runs: a new reader (or one on a new world) keeps
    /// every message from the oldest kept, and what it passed may go. The
    /// bound is applied here, where readers look (nothing else registers
    /// the reader: its position moves only when its system reads, after
    /// this, so the next run's registration is the first that can tell).
    fn register(state: &mut Reader<E>, world: &mut W) {
        let events = world.events_mut();
        events.keep_at_most(W::BOUND);
        state.cursor.update(events);
    }
}

/// A system's own buffer of the event `E`: a `&mut Writer<E>` parameter.
/// What it sends is appended to the world's `Events<E>` at the next sync
/// point (or the end of the schedule's run), system after system in the
/// order they ran: writers of one event never conflict, and the merged
/// order is the same whatever the threads did.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Hp(i32);
/// #[derive(Debug, PartialEq)]
/// struct Died(u32);
/// world! {
///     struct Game<Hp>;
///     events { died: Died }
/// }
///
/// fn reaper(hp: &SparseMap<Hp>, out: &mut Writer<Died>) {
///     for (e, h) in hp.iter() {
///         if h.0 <= 0 {
///             out.send(Died(e.index()));
///         }
///     }
/// }
///
/// let mut world = Game::new();
/// world.spawn_with((Hp(0),));
/// let mut schedule = Schedule::new();
/// schedule.add_system(reaper).add_sync_point();
/// schedule.run(&mut world);
/// assert_eq!(world.died.iter().collect::<Vec<_>>(), [&Died(0)]);
/// ```
pub struct Writer<E> {
    buffer: Vec<E>,
}

impl<E> Writer<E> {
    /// Sends `event` (applied at the next sync point).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Ping;
    /// fn ping(out: &mut Writer<Ping>) {
    ///     out.send(Ping);
    /// }
    /// ```
    #[inline]
    pub fn send(&mut self, event: E) {
        self.buffer.push(event);
    }

    /// The number of messages waiting for the next sync point.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Ping;
    /// fn ping_twice(out: &mut Writer<Ping>) {
    ///     out.send(Ping);
    ///     out.send(Ping);
    ///     assert_eq!(out.len(), 2);
    /// }
    /// ```
    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    /// `true` if nothing waits for the next sync point.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Ping;
    /// fn quiet(out: &mut Writer<Ping>) {
    ///     assert!(out.is_empty());
    /// }
    /// ```
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }
}

impl<E> Default for Writer<E> {
    fn default() -> Self {
        Writer { buffer: Vec::new() }
    }
}

impl<E> fmt::Debug for Writer<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Writer")
            .field("waiting", &self.buffer.len())
            .finish()
    }
}

/// The system's own buffer: nothing shared, so no conflict; applied at
/// sync points.
impl<W: EventsOf<E>, E: Send + 'static> WriteParam<W> for Writer<E> {
    const TARGET: Option<crate::system::access::Target> = None;
    type Claim = Free;
    type State = Writer<E>;

    #[inline]
    fn write<'a>(state: &'a mut Writer<E>, _: &mut Source<'a, W>) -> &'a mut Writer<E> {
        state
    }

    const APPLIES: bool = true;

    fn event() -> Option<(&'static str, bool)> {
        Some((core::any::type_name::<E>(), true))
    }

    fn apply(state: &mut Writer<E>, world: &mut W, _: &mut Vec<ApplyReport>) {
        if !state.buffer.is_empty() {
            let events = world.events_mut();
            events.send_batch(state.buffer.drain(..));
            events.keep_at_most(W::BOUND);
        }
    }
}

// Saved as the lineage, the first pending message's sequence number and
// the pending messages, oldest first: the numbers of a log's messages
// follow on from each other (every send takes the next, and only the
// oldest are dropped), so these say everything. A loaded `Events` keeps
// the lineage: a reader of the saved one (a schedule's `Reader`, an
// `EventCursor` saved in the world) reads on where it stood.
#[cfg(feature = "serde")]
impl<E: serde::Serialize> serde::Serialize for Events<E> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&(self.lineage, self.oldest(), self.from(0)), serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, E: serde::Deserialize<'de>> serde::Deserialize<'de> for Events<E> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (lineage, first, pending): (u64, u64, Vec<E>) =
            serde::Deserialize::deserialize(deserializer)?;
        // Sequence numbers count sends: 2^63 of them is beyond any game,
        // and keeps the numbers of later sends far from overflowing.
        if first
            .checked_add(pending.len() as u64)
            .map_or(true, |next| next >= 1 << 63)
        {
            return Err(serde::de::Error::custom(
                "the saved events' sequence numbers are beyond 2^63: not a saved world's",
            ));
        }
        let mut events = Events {
            log: Log::numbered_from(first),
            lineage,
        };
        if lineage == 0 && (first > 0 || !pending.is_empty()) {
            // Sent to, so numbered: a lineage of its own.
            events.lineage = crate::unique::lasting();
        }
        if events.lineage != 0 {
            // A numbered queue's log has its identity (see `push_next`).
            events.log.identify();
        }
        for event in pending {
            events.send(event);
        }
        Ok(events)
    }
}

// Saved as its lineage, position and count of dropped messages; the
// registration is not: a loaded cursor holds messages back from its first
// `update` (or `read_mut`) on.
#[cfg(feature = "serde")]
impl<E> serde::Serialize for EventCursor<E> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&(self.lineage, self.position, self.dropped), serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, E> serde::Deserialize<'de> for EventCursor<E> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (lineage, position, dropped) = serde::Deserialize::deserialize(deserializer)?;
        Ok(EventCursor {
            position,
            dropped,
            lineage,
            ..EventCursor::new()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn read_all(cursor: &mut EventCursor<u32>, events: &Events<u32>) -> Vec<u32> {
        cursor.read(events).copied().collect()
    }

    #[test]
    fn each_cursor_reads_each_message_once_in_order() {
        let mut events = Events::new();
        let mut a = events.cursor();
        events.send_batch([1, 2]);
        let mut b = events.cursor();
        events.send(3);
        assert_eq!(read_all(&mut a, &events), [1, 2, 3]);
        assert_eq!(
            read_all(&mut b, &events),
            [1, 2, 3],
            "b was taken with 1, 2 kept"
        );
        events.send(4);
        assert_eq!(read_all(&mut a, &events), [4]);
        assert_eq!(read_all(&mut a, &events), [] as [u32; 0]);
        assert_eq!(read_all(&mut b, &events), [4]);
    }

    #[test]
    fn messages_are_kept_until_every_registered_reader_passed_them() {
        let mut events = Events::new();
        let mut fast = events.cursor();
        let mut slow = events.cursor();
        events.send_batch([1, 2, 3]);
        assert_eq!(fast.read_mut(&mut events).count(), 3);
        fast.update(&mut events);
        assert_eq!(events.len(), 3, "slow has read none");
        assert_eq!(slow.read_mut(&mut events).count(), 3);
        slow.update(&mut events);
        assert!(events.is_empty());
        events.send(4);
        drop(slow);
        fast.update(&mut events);
        assert_eq!(events.len(), 1, "fast has not read 4");
        assert_eq!(read_all(&mut fast, &events), [4]);
    }

    #[test]
    fn no_reader_keeps_everything() {
        let mut events = Events::new();
        events.send_batch([1, 2, 3]);
        let cursor = events.cursor();
        drop(cursor);
        let mut late = events.cursor();
        assert_eq!(read_all(&mut late, &events), [1, 2, 3]);
    }

    #[test]
    fn a_cursor_of_a_clone_starts_over() {
        let mut events = Events::new();
        let mut cursor = events.cursor();
        events.send_batch([1, 2]);
        assert_eq!(read_all(&mut cursor, &events), [1, 2]);
        let copy = events.clone();
        assert_eq!(read_all(&mut cursor, &copy), [1, 2]);
        let _ = vec![0];
    }
}
