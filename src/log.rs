//! [`Log`]: an append-only log read by cursors, with one retention rule.
//!
//! Whatever must answer "what happened since I last looked" keeps one:
//! the removals of a tracked storage (read by the world's own view and by
//! each system's [`Seen`](crate::system::Seen)), and, built the same way,
//! an event queue. Each entry is kept under a *key*, a `u64` that never
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

/// An append-only log of `T`s under nondecreasing keys, read by cursors;
/// see the [module docs](self).
pub(crate) struct Log<T> {
    /// The log's identity; 0 until first written to.
    id: u64,
    keys: Vec<u64>,
    items: Vec<T>,
    /// The registered readers: whether each is still alive, and its
    /// position.
    readers: Vec<Reader>,
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
}

impl<T> Log<T> {
    /// An empty log, with no identity yet.
    pub(crate) const NEW: Log<T> = Log {
        id: 0,
        keys: Vec::new(),
        items: Vec::new(),
        readers: Vec::new(),
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
        debug_assert!(self.keys.last().map_or(true, |&last| last <= key));
        self.identify();
        self.keys.push(key);
        self.items.push(item);
    }

    /// The entries under keys `from <= key < until`, oldest first.
    #[inline]
    pub(crate) fn between(&self, from: u64, until: u64) -> &[T] {
        let start = self.keys.partition_point(|&key| key < from);
        let end = self.keys.partition_point(|&key| key < until);
        &self.items[start..end.max(start)]
    }

    /// Number of entries kept.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Registers the reader that holds `cursor` with this log at
    /// `position` (the first key it may still need): a cursor registered
    /// with another log, or none, is replaced by one registered here.
    pub(crate) fn register(&mut self, cursor: &mut Option<Cursor>, position: u64) {
        let id = self.identify();
        if let Some(cursor) = cursor.as_ref().filter(|cursor| cursor.log == id) {
            // Compared by address: no weak handle made (and dropped) per call.
            let token = Arc::as_ptr(&cursor.token);
            if let Some(reader) = self
                .readers
                .iter_mut()
                .find(|reader| core::ptr::eq(reader.alive.as_ptr(), token))
            {
                reader.position = position;
                return;
            }
        }
        let token = Arc::new(());
        self.readers.push(Reader {
            alive: Arc::downgrade(&token),
            position,
        });
        *cursor = Some(Cursor { log: id, token });
    }

    /// Drops the entries every reader has passed: those under keys below
    /// `owner` (the owner's own position) and below the position of every
    /// registered cursor still alive. Forgets the cursors that were dropped.
    pub(crate) fn trim(&mut self, owner: u64) {
        self.readers
            .retain(|reader| reader.alive.strong_count() > 0);
        let keep_from = self
            .readers
            .iter()
            .map(|reader| reader.position)
            .fold(owner, u64::min);
        let drop = self.keys.partition_point(|&key| key < keep_from);
        if drop > 0 {
            self.keys.drain(..drop);
            self.items.drain(..drop);
        }
    }

    /// Drops the `count` oldest entries, whoever has not read them (a
    /// bounded event queue's overflow): a reader finds its position below
    /// the oldest key kept, and counts what it missed.
    pub(crate) fn drop_oldest(&mut self, count: usize) {
        let count = count.min(self.items.len());
        self.keys.drain(..count);
        self.items.drain(..count);
    }

    /// The keys of the entries, oldest first.
    pub(crate) fn keys(&self) -> &[u64] {
        &self.keys
    }
}

impl<T: Clone> Clone for Log<T> {
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
            readers: Vec::new(),
        }
    }
}

impl<T> Default for Log<T> {
    fn default() -> Self {
        Self::NEW
    }
}

impl<T: fmt::Debug> fmt::Debug for Log<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Log")
            .field("id", &self.id)
            .field("entries", &self.items.len())
            .field("readers", &self.readers.len())
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
        assert_eq!(log.readers.len(), 2, "re-registering adds no reader");
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
        assert!(log.readers.is_empty(), "forgotten");
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
        assert!(copy.readers.is_empty());
        let empty: Log<u64> = Log::NEW;
        assert_eq!(empty.clone().id(), 0);
        let _ = vec![reader];
    }
}
