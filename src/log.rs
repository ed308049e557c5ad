//! [`Log`]: an append-only log read by cursors, with one retention rule.
//!
//! Whatever must answer "what happened since I last looked" keeps one:
//! the removals of a tracked storage (read by the world's own view and by
//! each system's [`Seen`](crate::system::Seen)), and, built the same way,
//! an event queue. (A tracked storage's changes are kept by the same
//! readers' positions: see [`keep_from`](Log::keep_from).) Each entry is kept under a *key*, a `u64` that never
//! decreases along the log (a stamp, or a sequence number), so the entries
//! of a window of keys are found by binary search.
//!
//! # Retention
//!
//! An entry is dropped only once every reader has passed it. A reader's
//! *position* is the first key it may still need: it has seen every entry
//! under a smaller key. The readers are:
//!
//! * the owner's own (passed to [`trim`](Log::trim) each time);
//! * every [`Cursor`] registered with the log and still alive. A reader
//!   registers (and moves its position on) with [`register`](Log::register),
//!   which needs `&mut` on the log; the position it gives is the start of
//!   the window it will look at next. A cursor that is dropped stops
//!   holding entries back: the log notices at its next `trim`.
//!
//! So nothing a registered reader has not seen is dropped, whichever other
//! readers looked, how often, or in what order; a reader that stops
//! looking keeps the log growing until it is dropped.
//!
//! # Keys
//!
//! How the keys are kept is the log's second parameter, [`Keys`]:
//! [`Stamps`] (the default) keeps one beside each entry, for logs whose
//! entries share keys (a tracked storage's removals, under its stamps);
//! [`Numbered`] keeps only the first, for logs whose keys are consecutive
//! numbers (an event queue's sequence numbers), whose windows are then
//! found by subtraction and whose entries cost one push.
//!
//! # Identity
//!
//! A log has an identity, a program-unique number given the first time it
//! is written to (so `const` constructors allocate nothing and take no
//! number), and a fresh one when it is cloned. Keys mean something only
//! within one log: a reader whose window was taken from another log (its
//! storage was replaced, loaded, or cloned) sees the identity differ, and
//! must treat this log as wholly new.

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::fmt;

/// How a [`Log`] keeps the keys of its entries: it answers where a key
/// falls among them. The log keeps the entries; `len` is their number.
pub(crate) trait Keys: Clone {
    /// No key.
    const NEW: Self;

    /// Takes `key`, under which the log appends its `len + 1`th entry.
    fn push(&mut self, key: u64, len: usize);

    /// The number of entries under keys below `key`: where a window
    /// starting at `key` starts.
    fn below(&self, key: u64, len: usize) -> usize;

    /// Forgets the keys of the `count` oldest entries.
    fn drop_first(&mut self, count: usize);
}

/// Every entry's key, kept beside it: keys may repeat and skip.
#[derive(Clone, Debug)]
pub(crate) struct Stamps(Vec<u64>);

impl Keys for Stamps {
    const NEW: Self = Stamps(Vec::new());

    #[inline]
    fn push(&mut self, key: u64, _: usize) {
        debug_assert!(self.0.last().map_or(true, |&last| last <= key));
        self.0.push(key);
    }

    #[inline]
    fn below(&self, key: u64, _: usize) -> usize {
        self.0.partition_point(|&stamp| stamp < key)
    }

    #[inline]
    fn drop_first(&mut self, count: usize) {
        self.0.drain(..count);
    }
}

/// Consecutive keys: the `i`th entry kept is under `first + i`. Only the
/// first is kept; it is the key the next entry takes while the log is
/// empty.
#[derive(Clone, Debug)]
pub(crate) struct Numbered {
    first: u64,
}

impl Numbered {
    /// The key of the oldest entry, or of the next one if there is none.
    #[inline]
    pub(crate) fn first(&self) -> u64 {
        self.first
    }
}

impl Keys for Numbered {
    const NEW: Self = Numbered { first: 0 };

    #[inline]
    fn push(&mut self, key: u64, len: usize) {
        debug_assert_eq!(key, self.first + len as u64, "keys follow on");
    }

    #[inline]
    fn below(&self, key: u64, len: usize) -> usize {
        // Saturating: a key past every entry's is `len`, one before the
        // first is 0 (and the difference may exceed a `usize` on 32 bits).
        usize::try_from(key.saturating_sub(self.first)).map_or(len, |offset| offset.min(len))
    }

    #[inline]
    fn drop_first(&mut self, count: usize) {
        self.first += count as u64;
    }
}

/// An append-only log of `T`s under nondecreasing keys, read by cursors;
/// see the [module docs](self).
pub(crate) struct Log<T, K: Keys = Stamps> {
    /// The log's identity; 0 until first written to.
    id: u64,
    keys: K,
    items: Vec<T>,
    /// The registered readers.
    readers: Readers,
}

/// The readers registered with a log: whether each is still alive, and its
/// position. Apart from the log's entries, so that the work on them is
/// compiled once, not once per type of entry.
#[derive(Debug)]
struct Readers(Vec<Reader>);

impl Readers {
    /// See [`Log::register`]; `log` is the log's identity.
    #[inline]
    fn register(&mut self, log: u64, cursor: &mut Option<Cursor>, position: u64) -> bool {
        if let Some(cursor) = cursor.as_mut().filter(|cursor| cursor.log == log) {
            // Compared by address: no weak handle made (and dropped) per
            // call. Its slot first; elsewhere only if a reader before it
            // was forgotten since.
            let token = Arc::as_ptr(&cursor.token);
            let is_it = |reader: &Reader| core::ptr::eq(reader.alive.as_ptr(), token);
            let slot = match self.0.get(cursor.slot) {
                Some(reader) if is_it(reader) => Some(cursor.slot),
                _ => self.0.iter().position(is_it),
            };
            if let Some(slot) = slot {
                self.0[slot].position = position;
                cursor.slot = slot;
                return false;
            }
        }
        self.add(log, cursor, position);
        true
    }

    /// Registers a reader new to the log (out of line: the reader of a
    /// loop has registered before).
    #[cold]
    #[inline(never)]
    fn add(&mut self, log: u64, cursor: &mut Option<Cursor>, position: u64) {
        let token = Arc::new(());
        self.0.push(Reader {
            alive: Arc::downgrade(&token),
            position,
        });
        *cursor = Some(Cursor {
            log,
            token,
            slot: self.0.len() - 1,
        });
    }

    /// The smallest of `owner` and the positions of the readers still
    /// alive; forgets the others.
    #[inline]
    fn keep_from(&mut self, owner: u64) -> u64 {
        let mut keep_from = owner;
        let mut dropped = false;
        for reader in &self.0 {
            if reader.alive.strong_count() == 0 {
                dropped = true;
            } else {
                keep_from = keep_from.min(reader.position);
            }
        }
        if dropped {
            self.forget_dropped();
        }
        keep_from
    }

    /// Forgets the readers that were dropped (out of line: rare).
    #[cold]
    #[inline(never)]
    fn forget_dropped(&mut self) {
        self.0.retain(|reader| reader.alive.strong_count() > 0);
    }
}

/// A registered reader, as the log sees it.
#[derive(Debug)]
struct Reader {
    alive: Weak<()>,
    position: u64,
}

/// A reader's registration with one [`Log`]: while it is alive, the log
/// keeps every entry from the reader's last registered position on.
#[derive(Debug, Clone)]
pub(crate) struct Cursor {
    /// The identity of the log it is registered with.
    log: u64,
    token: Arc<()>,
    /// Where the log listed it last: looked at first, so that finding it
    /// costs one comparison unless the log forgot a reader before it.
    slot: usize,
}

impl<T, K: Keys> Log<T, K> {
    /// An empty log, with no identity yet.
    pub(crate) const NEW: Log<T, K> = Log {
        id: 0,
        keys: K::NEW,
        items: Vec::new(),
        readers: Readers(Vec::new()),
    };

    /// The log's identity: 0 if it was never written to.
    #[inline]
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The log's identity, given now if it had none.
    #[inline]
    pub(crate) fn identify(&mut self) -> u64 {
        if self.id == 0 {
            self.id = crate::unique::next();
        }
        self.id
    }

    /// Appends `item` under `key`, which is at least every key before it.
    #[inline]
    pub(crate) fn push(&mut self, key: u64, item: T) {
        self.identify();
        self.keys.push(key, self.items.len());
        self.items.push(item);
    }

    /// The entries under keys `from <= key < until`, oldest first.
    #[inline]
    pub(crate) fn between(&self, from: u64, until: u64) -> &[T] {
        let len = self.items.len();
        let start = self.keys.below(from, len);
        let end = self.keys.below(until, len);
        &self.items[start..end.max(start)]
    }

    /// The entries under keys from `from` on, oldest first.
    #[inline]
    pub(crate) fn since(&self, from: u64) -> &[T] {
        &self.items[self.keys.below(from, self.items.len())..]
    }

    /// How the keys are kept (for a [`Numbered`] log, its first).
    #[inline]
    pub(crate) fn key_layout(&self) -> &K {
        &self.keys
    }

    /// Number of entries kept.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Registers the reader that holds `cursor` with this log at
    /// `position` (the first key it may still need): a cursor registered
    /// with another log, or none, is replaced by one registered here.
    /// Returns `true` if the reader was not registered here before.
    #[inline]
    pub(crate) fn register(&mut self, cursor: &mut Option<Cursor>, position: u64) -> bool {
        let id = self.identify();
        self.readers.register(id, cursor, position)
    }

    /// The first key some reader may still need: the smallest of `owner`
    /// (the owner's own position) and the position of every registered
    /// cursor still alive. Forgets the cursors that were dropped. (A
    /// tracked storage's change log drops its changes by it, as
    /// [`trim`](Self::trim) drops the removals.)
    #[inline]
    pub(crate) fn keep_from(&mut self, owner: u64) -> u64 {
        self.readers.keep_from(owner)
    }

    /// Drops the entries every reader has passed: those under keys below
    /// `owner` (the owner's own position) and below the position of every
    /// registered cursor still alive. Forgets the cursors that were dropped.
    #[inline]
    pub(crate) fn trim(&mut self, owner: u64) {
        let keep_from = self.readers.keep_from(owner);
        self.drop_oldest(self.keys.below(keep_from, self.items.len()));
    }

    /// Drops the `count` oldest entries, whoever has not read them (a
    /// bounded event queue's overflow): a reader finds its position below
    /// the oldest key kept, and counts what it missed.
    #[inline]
    pub(crate) fn drop_oldest(&mut self, count: usize) {
        let len = self.items.len();
        if count >= len {
            // All of them (a reader that keeps up): no tail to move.
            self.keys.drop_first(len);
            self.items.clear();
        } else if count > 0 {
            self.keys.drop_first(count);
            self.items.drain(..count);
        }
    }
}

impl<T> Log<T, Stamps> {
    /// The keys of the entries, oldest first.
    #[cfg(any(test, feature = "testing", feature = "serde"))]
    pub(crate) fn keys(&self) -> &[u64] {
        &self.keys.0
    }
}

impl<T> Log<T, Numbered> {
    /// Appends `item` under the next number. The log has its identity
    /// already (its owner gave it with [`identify`](Log::identify)): one
    /// check fewer per entry than [`push`](Log::push).
    #[inline]
    pub(crate) fn push_next(&mut self, item: T) {
        debug_assert!(self.id != 0, "identified before its first entry");
        self.items.push(item);
    }

    /// A log whose first entry will be under `first`.
    #[cfg(feature = "serde")]
    pub(crate) fn numbered_from(first: u64) -> Self {
        Log {
            keys: Numbered { first },
            ..Self::NEW
        }
    }
}

impl<T: Clone, K: Keys> Clone for Log<T, K> {
    /// The same entries under a new identity (if the log had one), with no
    /// reader registered: a reader of the original has not read the copy.
    fn clone(&self) -> Self {
        Log {
            id: if self.id == 0 {
                0
            } else {
                crate::unique::next()
            },
            keys: self.keys.clone(),
            items: self.items.clone(),
            readers: Readers(Vec::new()),
        }
    }
}

impl<T, K: Keys> Default for Log<T, K> {
    fn default() -> Self {
        Self::NEW
    }
}

impl<T: fmt::Debug, K: Keys> fmt::Debug for Log<T, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Log")
            .field("id", &self.id)
            .field("entries", &self.items.len())
            .field("readers", &self.readers.0.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn log_of(keys: &[u64]) -> Log<u64> {
        let mut log = Log::NEW;
        for &key in keys {
            log.push(key, key * 10);
        }
        log
    }

    #[test]
    fn between_finds_a_window_of_keys() {
        let log = log_of(&[1, 2, 2, 3, 5]);
        assert_eq!(log.between(2, 4), [20, 20, 30]);
        assert_eq!(log.between(0, u64::MAX), [10, 20, 20, 30, 50]);
        assert_eq!(log.between(4, 5), [] as [u64; 0]);
        assert_eq!(log.between(6, 3), [] as [u64; 0]);
    }

    #[test]
    fn the_owner_alone_trims_what_it_passed() {
        let mut log = log_of(&[1, 2, 3, 4]);
        log.trim(3);
        assert_eq!(log.between(0, u64::MAX), [30, 40]);
        log.trim(0);
        assert_eq!(log.len(), 2, "a trim never brings anything back");
    }

    #[test]
    fn a_registered_reader_holds_back_what_it_has_not_passed() {
        let mut log = log_of(&[1, 2, 3, 4]);
        let (mut slow, mut fast) = (None, None);
        log.register(&mut slow, 2);
        log.register(&mut fast, 4);
        log.trim(u64::MAX);
        assert_eq!(log.between(0, u64::MAX), [20, 30, 40]);
        // The slow reader moves on (registering again updates it).
        log.register(&mut slow, 4);
        log.trim(u64::MAX);
        assert_eq!(log.between(0, u64::MAX), [40]);
        assert_eq!(log.readers.0.len(), 2, "re-registering adds no reader");
    }

    #[test]
    fn a_dropped_reader_holds_nothing_back() {
        let mut log = log_of(&[1, 2, 3]);
        let mut reader = None;
        log.register(&mut reader, 1);
        log.trim(u64::MAX);
        assert_eq!(log.len(), 3);
        drop(reader);
        log.trim(u64::MAX);
        assert_eq!(log.len(), 0);
        assert!(log.readers.0.is_empty(), "forgotten");
    }

    #[test]
    fn a_cursor_from_another_log_registers_anew() {
        let mut a = log_of(&[1, 2]);
        let mut b = log_of(&[1, 2]);
        let mut reader = None;
        a.register(&mut reader, 1);
        b.register(&mut reader, 2);
        // `a` still lists the reader's first registration, but the reader
        // holds `b`'s now: `a` lets go at its next trim.
        a.trim(u64::MAX);
        b.trim(u64::MAX);
        assert_eq!((a.len(), b.len()), (0, 1));
    }

    #[test]
    fn identity_is_given_once_and_renewed_by_a_clone() {
        let mut log: Log<u64> = Log::NEW;
        assert_eq!(log.id(), 0);
        let id = log.identify();
        assert!(id != 0 && log.identify() == id);
        let mut reader = None;
        log.register(&mut reader, 0);
        log.push(1, 1);
        let copy = log.clone();
        assert!(copy.id() != id && copy.id() != 0);
        assert_eq!(copy.between(0, 2), [1]);
        assert!(copy.readers.0.is_empty());
        let empty: Log<u64> = Log::NEW;
        assert_eq!(empty.clone().id(), 0);
        let _ = vec![reader];
    }
}
