//! The queries: as data for the model ([`Term`] shapes), as code for the
//! world, and the harness operations that run them on both.

use typed_ecs::prelude::*;
use typed_ecs::{join, Maybe};

use super::coverage::{DENSE_MUT_SHAPES, DENSE_READ_SHAPES};
use super::model::{Cmd, Row};
use super::world::{fresh_value, mix, Comp, Marker, Sim, Val, A, B, C, K};
use super::Harness;

/// One element of a query, for the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    Ref(K),
    Mut(K),
    Opt(K),
    OptMut(K),
    With(K),
    Without(K),
}

use Term::{Mut, Opt, OptMut, Ref};

/// What a query yields for one entity: per element, `Some(value)` for a
/// component reference, the `Option` for an optional one, `None` for a filter.
type Items = Vec<Option<Val>>;
pub(super) type Seen = (Entity, Items);

/// The queries of [`Op::Query`](super::Op::Query), each written out in
/// [`read_query`].
pub const READ_SHAPES: [&[Term]; 13] = [
    &[Ref(K::A)],
    &[Ref(K::A), Ref(K::B)],
    &[Ref(K::B), Opt(K::C), Term::Without(K::Marker)],
    &[Term::With(K::Marker), Ref(K::C)],
    &[Ref(K::A), Ref(K::B), Ref(K::C), Opt(K::Marker)],
    &[Term::Without(K::A), Ref(K::B)],
    &[Term::With(K::A), Term::With(K::B), Opt(K::C)],
    &[Ref(K::Marker)],
    &[Ref(K::C), Opt(K::A), Term::Without(K::B)],
    &[Ref(K::A), Opt(K::B)],
    &[Ref(K::C), Term::With(K::A)],
    // Exactly the group (A, B): a dense walk when the group is trusted.
    &[Ref(K::B), Term::With(K::A)],
    &[Ref(K::A), Ref(K::B), Ref(K::A)],
];

/// The writing queries of [`Op::QueryMut`](super::Op::QueryMut), each
/// written out in [`mut_query`]. Each mutable element is rewritten with
/// [`mix`] of the sum of the read elements' values (1 for an absent optional
/// one), salted with its position. The last one only counts.
pub const MUT_SHAPES: [&[Term]; 15] = [
    &[Mut(K::A), Ref(K::B), Term::Without(K::C)],
    &[Mut(K::B), Opt(K::C), Term::With(K::A)],
    &[OptMut(K::A), Mut(K::C)],
    &[Mut(K::C), Opt(K::A), Term::Without(K::B)],
    &[Mut(K::A)],
    &[Mut(K::C)],
    &[Mut(K::B), Term::With(K::Marker), OptMut(K::C), Ref(K::A)],
    &[Mut(K::A), Ref(K::B), Opt(K::Marker)],
    &[Mut(K::B)],
    &[Mut(K::Marker), Ref(K::C)],
    // Exactly the group (A, B): dense walks (`for` loop, for_each, join).
    &[Mut(K::A), Ref(K::B)],
    &[Mut(K::B), Mut(K::A)],
    &[Term::With(K::B), Mut(K::A)],
    &[Mut(K::C)],
    &[Mut(K::A), Term::Without(K::B)],
];

/// The one-entity queries of [`Op::GetMany`](super::Op::GetMany), written
/// out in [`get_many`].
pub const GET_SHAPES: [&[Term]; 6] = [
    &[Mut(K::A), Ref(K::B)],
    &[OptMut(K::C), Mut(K::B), Term::Without(K::Marker)],
    &[Mut(K::C)],
    &[Term::With(K::Marker), Ref(K::A)],
    &[Mut(K::B), Opt(K::A)],
    &[Mut(K::A), Mut(K::C)],
];

/// The queries that [`Op::QueryCommands`](super::Op::QueryCommands) runs
/// (`for_each`, `for` loop).
const COMMAND_SHAPES: [&[Term]; 2] = [
    &[Mut(K::A), Opt(K::B)],
    &[Mut(K::A), Opt(K::B), Term::Without(K::C)],
];

fn v<T: Comp>(c: &T) -> Option<Val> {
    Some(c.val())
}

fn o<T: Comp>(c: Option<&T>) -> Option<Val> {
    c.map(T::val)
}

fn rd<T: Comp>(c: &T) -> u64 {
    c.val().value
}

fn opt<T: Comp>(c: Option<&T>) -> u64 {
    c.map_or(1, rd)
}

pub(super) fn bump<T: Comp>(c: &mut T, input: u64, salt: usize) {
    if let Some(value) = c.value_mut() {
        *value = mix(*value, input, salt);
    }
}

/// The items of `row` for `terms`, or `None` if it does not match.
pub(super) fn items(row: &Row, terms: &[Term]) -> Option<Items> {
    terms
        .iter()
        .map(|&term| match term {
            Ref(k) | Mut(k) => row.get(k).map(Some),
            Opt(k) | OptMut(k) => Some(row.get(k)),
            Term::With(k) => row.get(k).map(|_| None),
            Term::Without(k) => row.get(k).is_none().then_some(None),
        })
        .collect()
}

/// The model of a query's writes on one matching row.
pub(super) fn edit(row: &mut Row, terms: &[Term]) {
    let input = terms.iter().fold(0u64, |sum, &term| {
        sum.wrapping_add(match term {
            Ref(k) => row.get(k).map_or(0, |val| val.value),
            Opt(k) => row.get(k).map_or(1, |val| val.value),
            _ => 0,
        })
    });
    for (salt, &term) in terms.iter().enumerate() {
        if let Mut(k) | OptMut(k) = term {
            if let Some(val) = row.slot(k) {
                *val = val.bumped(input, salt);
            }
        }
    }
}

/// Runs read-only query `shape` of [`READ_SHAPES`].
fn read_query(world: &mut Sim, shape: usize) -> Vec<Seen> {
    match shape {
        0 => world.query::<&A>().map(|(e, a)| (e, vec![v(a)])).collect(),
        1 => world
            .query::<(&A, &B)>()
            .map(|(e, (a, b))| (e, vec![v(a), v(b)]))
            .collect(),
        2 => world
            .query::<(&B, Option<&C>, Without<Marker>)>()
            .map(|(e, (b, c, ()))| (e, vec![v(b), o(c), None]))
            .collect(),
        3 => world
            .query::<(With<Marker>, &C)>()
            .map(|(e, ((), c))| (e, vec![None, v(c)]))
            .collect(),
        4 => world
            .query::<(&A, &B, &C, Option<&Marker>)>()
            .map(|(e, (a, b, c, m))| (e, vec![v(a), v(b), v(c), o(m)]))
            .collect(),
        5 => world
            .query::<(Without<A>, &B)>()
            .map(|(e, ((), b))| (e, vec![None, v(b)]))
            .collect(),
        6 => world
            .query::<(With<A>, With<B>, Option<&C>)>()
            .map(|(e, ((), (), c))| (e, vec![None, None, o(c)]))
            .collect(),
        7 => world
            .query::<&Marker>()
            .map(|(e, m)| (e, vec![v(m)]))
            .collect(),
        8 => world
            .query::<(&C, (Option<&A>, Without<B>))>()
            .map(|(e, (c, (a, ())))| (e, vec![v(c), o(a), None]))
            .collect(),
        // A read-only join iterates like a query.
        11 => join((&world.b, With(&world.a)))
            .into_iter()
            .map(|(e, (b, ()))| (e, vec![v(b), None]))
            .collect(),
        12 => world
            .query::<(&A, &B, &A)>()
            .map(|(e, (a, b, a2))| (e, vec![v(a), v(b), v(a2)]))
            .collect(),
        9 => world
            .query_mut::<(&A, Option<&B>)>()
            .into_iter()
            .map(|(e, (a, b))| (e, vec![v(a), o(b)]))
            .collect(),
        _ => join((&world.c, With(&world.a)))
            .into_iter()
            .map(|(e, (c, ()))| (e, vec![v(c), None]))
            .collect(),
    }
}

/// Runs writing query `shape` of [`MUT_SHAPES`] (but the last), recording
/// what each visited entity had before the write.
fn mut_query(world: &mut Sim, shape: usize, seen: &mut Vec<Seen>) {
    match shape {
        0 => world
            .query_mut::<(&mut A, &B, Without<C>)>()
            .for_each(|e, (a, b, ())| {
                seen.push((e, vec![v(a), v(b), None]));
                bump(a, rd(b), 0);
            }),
        1 => {
            for (e, (b, c, ())) in world.query_mut::<(&mut B, Option<&C>, With<A>)>() {
                seen.push((e, vec![v(b), o(c), None]));
                bump(b, opt(c), 0);
            }
        }
        2 => world
            .query_mut::<(Option<&mut A>, &mut C)>()
            .for_each(|e, (a, c)| {
                seen.push((e, vec![o(a.as_deref()), v(c)]));
                if let Some(a) = a {
                    bump(a, 0, 0);
                }
                bump(c, 0, 1);
            }),
        3 => join((&mut world.c, Maybe(&world.a), Without(&world.b))).for_each(|e, (c, a, ())| {
            seen.push((e, vec![v(c), o(a), None]));
            bump(c, opt(a), 0);
        }),
        4 => {
            for (e, a) in world.query_mut::<&mut A>() {
                seen.push((e, vec![v(a)]));
                bump(a, 0, 0);
            }
        }
        5 => {
            for (e, (c,)) in world.query_mut::<(&mut C,)>() {
                seen.push((e, vec![v(c)]));
                bump(c, 0, 0);
            }
        }
        6 => world
            .query_mut::<(&mut B, With<Marker>, Option<&mut C>, &A)>()
            .for_each(|e, (b, (), c, a)| {
                seen.push((e, vec![v(b), None, o(c.as_deref()), v(a)]));
                bump(b, rd(a), 0);
                if let Some(c) = c {
                    bump(c, rd(a), 2);
                }
            }),
        7 => {
            for (e, (a, b, m)) in join((&mut world.a, &world.b, Maybe(&world.marker))) {
                seen.push((e, vec![v(a), v(b), o(m)]));
                bump(a, rd(b).wrapping_add(opt(m)), 0);
            }
        }
        8 => {
            for (e, b) in join(&mut world.b) {
                seen.push((e, vec![v(b)]));
                bump(b, 0, 0);
            }
        }
        9 => world
            .query_mut::<(&mut Marker, &C)>()
            .for_each(|e, (m, c)| {
                seen.push((e, vec![v(m), v(c)]));
                bump(m, rd(c), 0);
            }),
        10 => {
            for (e, (a, b)) in world.query_mut::<(&mut A, &B)>() {
                seen.push((e, vec![v(a), v(b)]));
                bump(a, rd(b), 0);
            }
        }
        11 => world.query_mut::<(&mut B, &mut A)>().for_each(|e, (b, a)| {
            seen.push((e, vec![v(b), v(a)]));
            bump(b, 0, 0);
            bump(a, 0, 1);
        }),
        12 => join((With(&world.b), &mut world.a)).for_each(|e, ((), a)| {
            seen.push((e, vec![None, v(a)]));
            bump(a, 0, 1);
        }),
        // The storage's own iterator.
        _ => {
            for (e, c) in world.storage_mut::<C>().iter_mut() {
                seen.push((e, vec![v(c)]));
                bump(c, 0, 0);
            }
        }
    }
}

/// Runs one-entity query `shape` of [`GET_SHAPES`] on `e`; returns the items
/// before the write.
fn get_many(world: &mut Sim, shape: usize, e: Entity) -> Option<Items> {
    match shape {
        0 => world.get_many::<(&mut A, &B)>(e).map(|(a, b)| {
            let before = vec![v(a), v(b)];
            bump(a, rd(b), 0);
            before
        }),
        1 => world
            .get_many::<(Option<&mut C>, &mut B, Without<Marker>)>(e)
            .map(|(c, b, ())| {
                let before = vec![o(c.as_deref()), v(b), None];
                if let Some(c) = c {
                    bump(c, 0, 0);
                }
                bump(b, 0, 1);
                before
            }),
        2 => world.get_many::<&mut C>(e).map(|c| {
            let before = vec![v(c)];
            bump(c, 0, 0);
            before
        }),
        3 => world
            .get_many::<(With<Marker>, &A)>(e)
            .map(|((), a)| vec![None, v(a)]),
        4 => {
            let mut query = world.query_mut::<(&mut B, Option<&A>)>();
            query.get(e).map(|(b, a)| {
                let before = vec![v(b), o(a)];
                bump(b, opt(a), 0);
                before
            })
        }
        _ => {
            let mut both = join((&mut world.a, &mut world.c));
            both.get(e).map(|(a, c)| {
                let before = vec![v(a), v(c)];
                bump(a, 0, 0);
                bump(c, 0, 1);
                before
            })
        }
    }
}

/// Checks a query visited each entity once and saw what the model expects.
fn same_results(mut seen: Vec<Seen>, expected: &[Seen]) -> Result<(), String> {
    seen.sort();
    if let Some(twice) = seen.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!("visited {:?} twice", twice[0].0));
    }
    if seen != expected {
        return Err(format!("saw {seen:?}, the model expects {expected:?}"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The query operations, on world and model
// ---------------------------------------------------------------------------

/// A command recorded by the query of
/// [`Op::QueryCommands`](super::Op::QueryCommands), in order.
enum Queued {
    Spawn(Entity),
    Cmd(Cmd),
}

impl Harness {
    pub(super) fn query(&mut self, shape: u8) {
        let shape = usize::from(shape) % READ_SHAPES.len();
        let terms = READ_SHAPES[shape];
        let dense =
            DENSE_READ_SHAPES.contains(&shape) && self.world.group_len::<(A, B)>().is_some();
        let seen = read_query(&mut self.world, shape);
        let expected = self.model.matches(terms);
        if let Err(why) = same_results(seen, &expected) {
            panic!("query {terms:?}: {why}: {}", self.ctx());
        }
        if !expected.is_empty() {
            self.hit("query:matched");
            if dense {
                self.hit("query:dense");
            }
        }
    }

    pub(super) fn query_mut(&mut self, shape: u8) {
        let shape = usize::from(shape) % MUT_SHAPES.len();
        let terms = MUT_SHAPES[shape];
        let expected = self.model.matches(terms);
        if shape == MUT_SHAPES.len() - 1 {
            let count = self.world.query_mut::<(&mut A, Without<B>)>().count();
            assert_eq!(count, expected.len(), "count of {terms:?}: {}", self.ctx());
        } else {
            let mut seen = Vec::new();
            mut_query(&mut self.world, shape, &mut seen);
            if let Err(why) = same_results(seen, &expected) {
                panic!("query_mut {terms:?}: {why}: {}", self.ctx());
            }
            self.model.edit_all(terms);
        }
        if !expected.is_empty() {
            self.hit("query_mut:matched");
            if DENSE_MUT_SHAPES.contains(&shape) {
                self.hit("query_mut:dense");
            }
        }
    }

    pub(super) fn get_many(&mut self, e: Entity, shape: u8) {
        let shape = usize::from(shape) % GET_SHAPES.len();
        let terms = GET_SHAPES[shape];
        let got = get_many(&mut self.world, shape, e);
        let no = self.model.alive(e);
        let expected = no.and_then(|no| items(self.model.rows[no].as_ref()?, terms));
        assert_eq!(got, expected, "get_many {terms:?} of {e:?}: {}", self.ctx());
        match (no, expected) {
            (Some(no), Some(_)) => {
                edit(self.model.row_mut(no), terms);
                self.hit("get_many:some");
            }
            _ => self.hit("get_many:none"),
        }
    }

    /// A system: a mutable query that writes `A` and, depending on the value
    /// it wrote, queues commands for the entity it visits.
    pub(super) fn query_commands(&mut self, for_loop: bool) {
        let terms = COMMAND_SHAPES[usize::from(for_loop)];
        let expected = self.model.matches(terms);
        let (op, made) = (self.op, &mut self.made);
        let Harness {
            world, commands, ..
        } = self;
        let mut seen = Vec::new();
        let mut wrote = Vec::new();
        let mut queued = Vec::new();
        let mut visit = |e: Entity, a: &mut A, b: Option<&B>| {
            let mut before = vec![v(a), o(b)];
            if for_loop {
                before.push(None);
            }
            seen.push((e, before));
            bump(a, opt(b), 0);
            wrote.push((e, a.0.value));
            *made += 1;
            let value = fresh_value(op, *made);
            match a.0.value % 8 {
                0 => {
                    commands.add(e, Marker);
                    queued.push(Queued::Cmd(Cmd::Add(e, K::Marker, Val::MARKER)));
                }
                1 => {
                    commands.remove::<B>(e);
                    queued.push(Queued::Cmd(Cmd::Remove(e, K::B)));
                }
                2 => {
                    commands.despawn(e);
                    queued.push(Queued::Cmd(Cmd::Despawn(e)));
                }
                3 => {
                    let c = C::make(value);
                    queued.push(Queued::Cmd(Cmd::Add(e, K::C, c.val())));
                    commands.add(e, c);
                }
                4 => {
                    let b = B::make(value);
                    let val = b.val();
                    let r = commands.spawn_with((b, Marker));
                    queued.push(Queued::Spawn(r));
                    queued.push(Queued::Cmd(Cmd::Add(r, K::B, val)));
                    queued.push(Queued::Cmd(Cmd::Add(r, K::Marker, Val::MARKER)));
                }
                5 => {
                    // Replace: a remove and an add in one buffer.
                    let a = A::make(value);
                    queued.push(Queued::Cmd(Cmd::Remove(e, K::A)));
                    queued.push(Queued::Cmd(Cmd::Add(e, K::A, a.val())));
                    commands.remove::<A>(e);
                    commands.add(e, a);
                }
                _ => {}
            }
        };
        if for_loop {
            for (e, (a, b, ())) in world.query_mut::<(&mut A, Option<&B>, Without<C>)>() {
                visit(e, a, b);
            }
        } else {
            world
                .query_mut::<(&mut A, Option<&B>)>()
                .for_each(|e, (a, b)| visit(e, a, b));
        }
        if let Err(why) = same_results(seen, &expected) {
            panic!("query_commands {terms:?}: {why}: {}", self.ctx());
        }
        self.model.edit_all(terms);
        for (e, value) in wrote {
            let modelled = self.model.row(e).and_then(|row| row.get(K::A));
            assert_eq!(
                modelled.map(|val| val.value),
                Some(value),
                "A of {e:?} after the query: {}",
                self.ctx()
            );
        }
        if !queued.is_empty() {
            self.hit("query_commands:queued");
        }
        for q in queued {
            match q {
                Queued::Spawn(r) => self.reserved(r),
                Queued::Cmd(cmd) => self.model.cmds.push(cmd),
            }
        }
    }
}
