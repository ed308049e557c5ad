//! `Join::par_for_each` (feature `rayon`): a query walked on rayon's thread
//! pool, by splitting dense ranges in two until the pieces are small.
//!
//! Two ways to split, in safe code:
//!
//! * a query that is exactly an owning group splits the slices of *every*
//!   storage at the same slot (each piece owns its part of each `&mut`
//!   slice), so any shape runs in parallel, two `&mut` included;
//! * otherwise the query is driven by the one storage it writes (or, if it
//!   writes none, by its smallest required storage), whose dense range is
//!   split; the others are only read, and shared. The slots from the first
//!   where every column holds the driver's entities are split as rows, as
//!   a group's; the rest look each entity up.
//!
//! A query that writes two storages that are not one group, or writes an
//! optional one, cannot be split by slots without two threads reaching one
//! value: it runs on the calling thread, as [`Join::for_each`] would.

use super::fetch::{lined_from_start, Marks, Packed};
use super::plan::{Planner, Walk};
use super::rows::{SplitRows, WalkRows};
use super::Join;
use crate::Entity;

/// A piece is split further while it holds more than this many entities
/// per thread-and-a-bit: small enough to balance uneven work, large enough
/// that splitting costs nothing next to the loop.
fn piece_len(total: usize) -> usize {
    (total / (rayon::current_num_threads() * 8)).max(64)
}

#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
impl<'w, F: Packed<'w> + Send> Join<'w, F> {
    /// Runs `f(entity, items)` for every matching entity on rayon's thread
    /// pool (feature `rayon`).
    ///
    /// Every shape runs in parallel when the query is exactly an owning
    /// group (see [`Group`](crate::Group)); otherwise when it writes at most
    /// one storage, which then drives the walk: the slots from its first
    /// where every storage holds the driver's entities (storages filled by
    /// the same spawns) are split as a group's are, the rest looked up
    /// entity by entity. A query writing two ungrouped storages, or an
    /// optional one, runs on the calling thread. The order of calls is
    /// unspecified.
    ///
    /// ```
    /// use typed_ecs::prelude::*;
    ///
    /// struct Pos(f32);
    /// struct Vel(f32);
    /// struct Spin(f32);
    /// world! {
    ///     struct Game<Pos, Vel, Spin>;
    ///     group (Pos, Spin);
    /// }
    ///
    /// let mut world = Game::new();
    /// for i in 0..1000 {
    ///     world.spawn_with((Pos(0.0), Vel(i as f32), Spin(0.0)));
    /// }
    /// // One storage written, the others read: split by `Pos`.
    /// world.query_mut::<(&mut Pos, &Vel)>().par_for_each(|_, (pos, vel)| pos.0 += vel.0);
    /// // Two written, but they are a group: split by slots of both.
    /// world.query_mut::<(&mut Pos, &mut Spin)>().par_for_each(|_, (pos, spin)| {
    ///     spin.0 = pos.0 / 2.0;
    /// });
    /// assert_eq!(world.pos.values().iter().map(|p| p.0).sum::<f32>(), 499_500.0);
    /// assert_eq!(world.spin.values().iter().map(|s| s.0).sum::<f32>(), 249_750.0);
    /// ```
    pub fn par_for_each(self, f: impl Fn(Entity, F::Item<'_>) + Sync + Send)
    where
        F::Rows: Send,
    {
        let mut planner = Planner::new();
        self.fetch_ref().plan(&mut planner);
        let plan = planner.finish();
        match plan.writer_walk {
            Some(Walk::Packed(entities)) => {
                let len = entities.len();
                let rows = self.into_fetch().into_rows(len);
                par_rows(entities, rows, piece_len(len), &f);
            }
            Some(Walk::Driven(driver)) => {
                // The driver is the written column: its pieces cannot share
                // its change log, so each piece says which of its slots it
                // did not hand out, and those handed out are marked here.
                let mut fetch = self.into_fetch();
                // Where every column lines up with the driver from its
                // first slot (storages filled by the same spawns), those
                // slots are split as rows, as a group's are; the rest by
                // the driver's slots, each entity looked up.
                let run = lined_from_start(&fetch, &plan, driver);
                let mut marks = Unhanded {
                    marks: fetch.take_marks(),
                    len: driver.len(),
                    rejected: None,
                };
                let (head, tail) = fetch.split_at(run);
                let (lined, rest) = driver.split_at(run);
                // Every row lined up matches: none is rejected.
                let rows = head.into_rows(run);
                let pieces = piece_len(driver.len());
                let ((), rejected) = rayon::join(
                    || par_rows(lined, rows, pieces, &f),
                    || par_driven(tail, rest, run, pieces, &f),
                );
                marks.rejected = Some(rejected);
            }
            Some(Walk::Empty) => {}
            // Two ungrouped storages written, or an optional one: no split
            // keeps every `&mut` on one thread.
            None => self.for_each(f),
        }
    }
}

/// Walks `rows` (an owning group's slices) beside `entities`, in parallel.
fn par_rows<D, G>(entities: &[Entity], rows: D, piece: usize, f: &G)
where
    D: WalkRows + SplitRows + Send,
    G: Fn(Entity, D::Item) + Sync,
{
    if entities.len() <= piece {
        // As in `Join::for_each`: one zip of the entities and the columns.
        rows.walk(entities, &mut |entity, items| f(entity, items));
        return;
    }
    let mid = entities.len() / 2;
    let (left, right) = entities.split_at(mid);
    let (left_rows, right_rows) = rows.split_at(mid);
    rayon::join(
        || par_rows(left, left_rows, piece, f),
        || par_rows(right, right_rows, piece, f),
    );
}

/// Walks the entities of `driver` (whose first is the driver's slot
/// `first`), in parallel, splitting `fetch`'s written storage (the driver's
/// own) along with it. Returns the driver's slots whose entity did not
/// match, in order, if the fetch has marks to make (else nothing).
fn par_driven<'w, F, G>(
    fetch: F,
    driver: &'w [Entity],
    first: usize,
    piece: usize,
    f: &G,
) -> alloc::vec::Vec<usize>
where
    F: Packed<'w> + Send,
    G: Fn(Entity, F::Item<'_>) + Sync,
{
    if driver.len() <= piece {
        let mut fetch = fetch;
        let mut rejected = alloc::vec::Vec::new();
        for (slot, &entity) in driver.iter().enumerate() {
            match fetch.get(entity, slot) {
                Some(items) => f(entity, items),
                None if F::Marks::ANY => rejected.push(first + slot),
                None => {}
            }
        }
        return rejected;
    }
    let mid = driver.len() / 2;
    let (left, right) = driver.split_at(mid);
    let (left_fetch, right_fetch) = fetch.split_at(mid);
    let (mut rejected, right_rejected) = rayon::join(
        || par_driven(left_fetch, left, first, piece, f),
        || par_driven(right_fetch, right, first + mid, piece, f),
    );
    rejected.extend(right_rejected);
    rejected
}

/// The marks of a parallel driven walk: once it is over, marks every slot
/// of the driver but those whose entity did not match (`rejected`). If a
/// panic cut the walk short (`rejected` unknown), every slot is marked: a
/// mark too many, never one missing.
struct Unhanded<M: Marks> {
    marks: M,
    len: usize,
    rejected: Option<alloc::vec::Vec<usize>>,
}

impl<M: Marks> Drop for Unhanded<M> {
    fn drop(&mut self) {
        if !M::ANY {
            return;
        }
        let mut start = 0;
        for &slot in self.rejected.iter().flatten() {
            if start < slot {
                self.marks.mark(start..slot);
            }
            start = slot + 1;
        }
        if start < self.len {
            self.marks.mark(start..self.len);
        }
    }
}
