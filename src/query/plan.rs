//! Which walk a query takes: decided once, from plain facts about each of
//! its columns, before anything is visited.
//!
//! Every walker (`Join::for_each`, the `for` loops of [`QueryIter`], and
//! `par_for_each`) asks a [`Plan`] and follows it:
//!
//! * **packed**: the required columns are exactly one owning group's
//!   storages, trusted and in step, or one storage alone: walk their first
//!   `len` slots side by side, no lookups;
//! * **driven**: walk the entities of one column (the *driver*) and look each
//!   up in the others. `walk` lets the shortest required column drive (of
//!   two as short, a written one), whatever the order of the terms;
//!   `writer_walk` makes the written column drive, which is what safe code
//!   needs to split a walk across threads;
//! * **empty**: no column is required, so nothing can match.
//!
//! [`QueryIter`]: super::QueryIter

use crate::group::GroupMark;
use crate::sparse_map::line_up::LineUp;
use crate::sparse_map::mark::Mark;
use crate::Entity;

/// What a query knows of one of its columns.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Column<'w> {
    /// The storage's entities, in dense order.
    pub(crate) entities: &'w [Entity],
    /// The storage's mark (its place in an owning group, if any).
    pub(crate) mark: Mark,
    /// Every result has this component (`&C`, `&mut C`, `With<C>`).
    pub(crate) required: bool,
    /// The query writes this storage (`&mut C`, `Option<&mut C>`).
    pub(crate) written: bool,
    /// The storage's proofs of lining up, if `entities` are a whole
    /// storage's (not a window of it, not candidates).
    pub(crate) line_up: Option<&'w LineUp>,
    /// `entities` are candidates, not a storage's entities: the entities a
    /// change filter (`Changed`, `Added`) may pass, each checked when
    /// visited. Such a column may drive, but is never walked packed, and
    /// if written it cannot drive an iterator (its candidates are not in
    /// the order of its values).
    pub(crate) candidates: bool,
}

/// A walk: which entities a query visits, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Walk<'w> {
    /// The first `entities.len()` slots of every column, side by side; the
    /// entities are the first column's (every column holds the same there).
    Packed(&'w [Entity]),
    /// These entities, looked up in every column.
    Driven(&'w [Entity]),
    /// Nothing matches.
    Empty,
}

/// Where the written column stands, folding columns in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Writer<'w> {
    /// No column is written.
    None,
    /// One required column is written: its entities.
    One(&'w [Entity]),
    /// Two columns are written, or an optional one: no column can drive so
    /// that every `&mut` is handed out in order.
    Blocked,
}

/// A plan in the making: each column of a query is folded in with
/// [`column`](Planner::column), in order, then [`finish`](Planner::finish).
#[derive(Clone, Copy, Debug)]
pub struct Planner<'w> {
    /// A storage of the query is not in step with its world (from
    /// `in_step`): the walk checks each entity, and is never packed.
    out_of_step: bool,
    columns: u32,
    required: u32,
    /// The shortest required column.
    shortest: Option<&'w [Entity]>,
    /// Its number, counting columns from 0 in the order they are folded in.
    shortest_column: usize,
    /// Its storage's proofs of lining up.
    shortest_line_up: Option<&'w LineUp>,
    /// It is written.
    shortest_written: bool,
    /// The first column (packed walks take their entities from it).
    first: Option<&'w [Entity]>,
    writer: Writer<'w>,
    /// Columns folded in now are optional (inside a `Maybe`).
    optional: bool,
    /// The group every column seen so far belongs to, if one: its mark,
    /// and which of its members were seen (one bit each).
    group: Option<(GroupMark, u32)>,
    /// Still possible: every column seen is a required member of one group.
    grouped: bool,
    /// A column lists candidates, or hands its values out in runs it must
    /// end: no packed walk.
    candidates: bool,
}

impl<'w> Planner<'w> {
    /// A plan for a query over storages a caller borrowed (`join`,
    /// `query_mut`, which brought them in step first).
    #[inline]
    pub(crate) fn new() -> Self {
        Planner {
            out_of_step: false,
            columns: 0,
            required: 0,
            shortest: None,
            shortest_column: 0,
            shortest_line_up: None,
            shortest_written: false,
            first: None,
            writer: Writer::None,
            optional: false,
            group: None,
            grouped: true,
            candidates: false,
        }
    }

    /// Folds in the columns `plan` folds in as optional ones: an optional
    /// column never drives and never makes a walk packed.
    #[inline]
    pub(crate) fn optional(&mut self, plan: impl FnOnce(&mut Self)) {
        let was = core::mem::replace(&mut self.optional, true);
        plan(self);
        self.optional = was;
    }

    /// A plan for a world's read-only query over storages not all in step
    /// with the world (`in_step` said so): the walk skips dead entities.
    #[inline]
    pub(crate) fn out_of_step() -> Self {
        Planner {
            out_of_step: true,
            ..Self::new()
        }
    }

    /// The last column folded in hands its values out in runs it must end
    /// (a [`Lazy`](crate::Lazy) column): no packed walk.
    #[inline]
    pub(crate) fn never_packed(&mut self) {
        self.candidates = true;
    }

    /// Folds in the next column.
    #[inline]
    pub(crate) fn column(&mut self, mut column: Column<'w>) {
        column.required &= !self.optional;
        self.columns += 1;
        self.first.get_or_insert(column.entities);
        if column.required {
            self.required += 1;
            // The shortest drives; of two as short, a written one (an
            // iterator then hands out its values in order, with no table),
            // else the first.
            let len = column.entities.len();
            match self.shortest {
                Some(shortest)
                    if shortest.len() < len
                        || (shortest.len() == len
                            && (self.shortest_written || !column.written)) => {}
                _ => {
                    self.shortest = Some(column.entities);
                    self.shortest_column = self.columns as usize - 1;
                    self.shortest_line_up = column.line_up;
                    self.shortest_written = column.written;
                }
            }
        }
        self.candidates |= column.candidates;
        self.writer = match (self.writer, column.written, column.required) {
            (writer, false, _) => writer,
            (_, true, _) if column.candidates => Writer::Blocked,
            (Writer::None, true, true) => Writer::One(column.entities),
            _ => Writer::Blocked,
        };
        self.fold_group(column);
    }

    /// Folds a column into "every column is a member of one trusted group".
    #[inline]
    fn fold_group(&mut self, column: Column<'w>) {
        let mark = GroupMark::of(column.mark);
        if !column.required || mark.stamp == 0 {
            self.grouped = false;
            return;
        }
        match &mut self.group {
            None => self.group = Some((mark, 1 << mark.member)),
            Some((group, members)) if mark.agrees_with(*group) => *members |= 1 << mark.member,
            Some(_) => self.grouped = false,
        }
    }

    /// The leading slots a packed walk covers: the group's length if the
    /// columns are exactly one trusted group's storages (each at least
    /// once, nothing else), or the whole storage if there is one required
    /// column and nothing else. Every column holds at least that many.
    #[inline]
    fn packed_len(&self) -> Option<usize> {
        if self.candidates {
            return None;
        }
        let shortest = self.shortest?.len();
        if self.columns == 1 && self.required == 1 {
            return Some(shortest);
        }
        let (group, members) = self.group?;
        let every_member = (1u32 << group.size) - 1;
        let len = group.len as usize;
        (self.grouped && members == every_member && len <= shortest).then_some(len)
    }

    /// The plan.
    #[inline]
    pub(crate) fn finish(self) -> Plan<'w> {
        let packed = match (self.out_of_step, self.packed_len(), self.first) {
            (false, Some(len), Some(first)) => first.get(..len).map(Walk::Packed),
            _ => None,
        };
        let driven = self.shortest.map_or(Walk::Empty, Walk::Driven);
        let walk = packed.unwrap_or(driven);
        let writer_walk = match (packed, self.writer) {
            (Some(packed), _) => Some(packed),
            (None, Writer::None) => Some(driven),
            (None, Writer::One(entities)) => Some(Walk::Driven(entities)),
            (None, Writer::Blocked) => None,
        };
        Plan {
            walk,
            driver: self.shortest_column,
            driver_line_up: self.shortest_line_up,
            columns: self.columns as usize,
            writer_walk,
            out_of_step: self.out_of_step,
        }
    }
}

/// How a query is walked. See the module docs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan<'w> {
    /// For a walk any column may drive (`for_each`, a `for` loop): packed,
    /// or driven by the shortest required column.
    pub(crate) walk: Walk<'w>,
    /// When `walk` is driven, the number of the column that drives it,
    /// counting columns from 0 in the order the fetch tells them (see
    /// [`Access::find_driven`](super::fetch::Access::find_driven)).
    pub(crate) driver: usize,
    /// The driver's storage's proofs of lining up (see
    /// [`LineUp`]), for the other columns to look theirs up by its order.
    pub(crate) driver_line_up: Option<&'w LineUp>,
    /// The number of columns folded in.
    pub(crate) columns: usize,
    /// For a walk the written column must drive (a parallel split): packed, or driven by the one written column (by the shortest
    /// required one if none is written); `None` if two columns are written
    /// outside one packed group, or an optional one is.
    pub(crate) writer_walk: Option<Walk<'w>>,
    /// A column is not in step with the world (a world's read-only query
    /// then skips dead entities, and never walks packed). Read by the
    /// tests: the walk itself is made so (`Walk`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) out_of_step: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// A column description for the tables: `(storage, required, written,
    /// group mark)`, with storages numbered into `ENTITIES`.
    type Case = (usize, bool, bool, Option<(u64, u32, u8, u8)>);

    fn entities() -> Vec<Vec<Entity>> {
        let e = |i: u64| Entity::from_bits(i | (1 << 32)).unwrap();
        // 0: 10 entities, 1: 4, 2: 4 (other ones), 3: 2
        alloc::vec![
            (0..10).map(e).collect(),
            (0..4).map(e).collect(),
            (20..24).map(e).collect(),
            (30..32).map(e).collect(),
        ]
    }

    fn plan<'w>(storages: &'w [Vec<Entity>], cases: &[Case], out_of_step: bool) -> Plan<'w> {
        let mut planner = if out_of_step {
            Planner::out_of_step()
        } else {
            Planner::new()
        };
        for &(storage, required, written, group) in cases {
            let mark = group.map_or(Mark::NONE, |(stamp, len, size, member)| {
                GroupMark {
                    stamp,
                    len,
                    size,
                    member,
                }
                .to_mark()
            });
            planner.column(Column {
                entities: &storages[storage],
                mark,
                required,
                written,
                candidates: false,
                line_up: None,
            });
        }
        planner.finish()
    }

    /// One row of the table: what it shows, the columns, the walk and the
    /// writer walk, as [`shape`]s.
    type Row<'a> = (&'a str, &'a [Case], Shape, Option<Shape>);

    /// A walk, as `(kind, entities length, first entity index)`.
    type Shape = (&'static str, usize, u32);

    /// Which walk, as a [`Shape`].
    fn shape(walk: Walk<'_>) -> Shape {
        let first = |e: &[Entity]| e.first().map_or(0, |e| e.index());
        match walk {
            Walk::Packed(e) => ("packed", e.len(), first(e)),
            Walk::Driven(e) => ("driven", e.len(), first(e)),
            Walk::Empty => ("empty", 0, 0),
        }
    }

    #[test]
    fn walks_are_decided_from_column_facts() {
        let storages = entities();
        let g = |member| Some((7, 3, 2, member)); // group 7: 2 storages, 3 packed
        #[rustfmt::skip]
        let table: &[Row<'_>] = &[
            ("one storage walks packed",
             &[(0, true, false, None)], ("packed", 10, 0), Some(("packed", 10, 0))),
            ("one written storage too",
             &[(1, true, true, None)], ("packed", 4, 0), Some(("packed", 4, 0))),
            ("the shortest required column drives",
             &[(0, true, false, None), (3, true, false, None)], ("driven", 2, 30), Some(("driven", 2, 30))),
            ("whatever the order of the terms",
             &[(3, true, false, None), (0, true, false, None)], ("driven", 2, 30), Some(("driven", 2, 30))),
            ("a tie goes to the first",
             &[(1, true, false, None), (2, true, false, None)], ("driven", 4, 0), Some(("driven", 4, 0))),
            ("or to a written column, wherever it is",
             &[(1, true, false, None), (2, true, true, None)], ("driven", 4, 20), Some(("driven", 4, 20))),
            ("the shortest drives a for_each or a loop, the written column a parallel split",
             &[(0, true, true, None), (3, true, false, None)], ("driven", 2, 30), Some(("driven", 10, 0))),
            ("in any position",
             &[(3, true, false, None), (0, true, true, None)], ("driven", 2, 30), Some(("driven", 10, 0))),
            ("an optional column never drives",
             &[(0, true, false, None), (3, false, false, None)], ("driven", 10, 0), Some(("driven", 10, 0))),
            ("nor does a filter out",
             &[(0, true, false, None), (3, false, false, None), (1, false, false, None)], ("driven", 10, 0), Some(("driven", 10, 0))),
            ("two written columns: no parallel split",
             &[(0, true, true, None), (1, true, true, None)], ("driven", 4, 0), None),
            ("an optional written column: no parallel split",
             &[(0, true, false, None), (1, false, true, None)], ("driven", 10, 0), None),
            ("exactly a trusted group walks packed",
             &[(0, true, true, g(0)), (1, true, true, g(1))], ("packed", 3, 0), Some(("packed", 3, 0))),
            ("in any order",
             &[(1, true, false, g(1)), (0, true, true, g(0))], ("packed", 3, 0), Some(("packed", 3, 0))),
            ("part of a group is not the group",
             &[(0, true, false, g(0)), (3, true, false, None)], ("driven", 2, 30), Some(("driven", 2, 30))),
            ("a group plus an optional column is not packed",
             &[(0, true, true, g(0)), (1, true, false, g(1)), (2, false, false, None)], ("driven", 4, 0), Some(("driven", 10, 0))),
            ("one member twice is not the group",
             &[(0, true, false, g(0)), (0, true, false, g(0))], ("driven", 10, 0), Some(("driven", 10, 0))),
            ("members of different packings do not agree",
             &[(0, true, false, g(0)), (1, true, false, Some((8, 3, 2, 1)))], ("driven", 4, 0), Some(("driven", 4, 0))),
            ("a group longer than a storage is not trusted",
             &[(3, true, false, Some((9, 5, 2, 0))), (1, true, false, Some((9, 5, 2, 1)))], ("driven", 2, 30), Some(("driven", 2, 30))),
            ("nothing required: nothing matches",
             &[(0, false, false, None)], ("empty", 0, 0), Some(("empty", 0, 0))),
            ("no column at all",
             &[], ("empty", 0, 0), Some(("empty", 0, 0))),
        ];
        for (what, cases, walk, writer_walk) in table {
            let plan = plan(&storages, cases, false);
            assert_eq!(shape(plan.walk), *walk, "{what}: walk");
            assert_eq!(
                plan.writer_walk.map(shape),
                *writer_walk,
                "{what}: writer walk"
            );
            assert!(!plan.out_of_step, "{what}");
        }
    }

    #[test]
    fn the_driver_is_numbered_in_column_order() {
        let storages = entities();
        let req = |storage| (storage, true, false, None);
        let opt = |storage| (storage, false, false, None);
        #[rustfmt::skip]
        let table: &[(&str, &[Case], usize)] = &[
            ("the shortest second", &[req(0), req(3)], 1),
            ("the shortest first", &[req(3), req(0)], 0),
            ("a tie goes to the first", &[req(1), req(2)], 0),
            ("optional columns count, never drive", &[opt(3), req(0), opt(3), req(1)], 3),
        ];
        for (what, cases, driver) in table {
            let plan = plan(&storages, cases, false);
            assert!(matches!(plan.walk, Walk::Driven(_)), "{what}");
            assert_eq!(plan.driver, *driver, "{what}");
            assert_eq!(plan.columns, cases.len(), "{what}");
        }
    }

    #[test]
    fn a_column_out_of_step_is_never_walked_packed() {
        let storages = entities();
        let one = [(0, true, false, None)];
        assert_eq!(shape(plan(&storages, &one, false).walk), ("packed", 10, 0));
        let stale = plan(&storages, &one, true);
        assert!(stale.out_of_step);
        assert_eq!(shape(stale.walk), ("driven", 10, 0));
    }
}
