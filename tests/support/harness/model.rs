//! The model: what the world and the command buffer must hold, kept in
//! plain collections.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use typed_ecs::prelude::*;
use typed_ecs::{CommandKind, RejectReason, Rejected};

use super::queries::{edit, items, Seen, Term};
use super::world::{Comp, Marker, Sim, Val, A, B, C, K};
use super::INDEX_LIMIT;

/// One entity's components in the model, indexed by [`K`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Row(pub [Option<Val>; 4]);

impl Row {
    pub(super) fn get(&self, k: K) -> Option<Val> {
        self.0[k as usize]
    }

    pub(super) fn slot(&mut self, k: K) -> &mut Option<Val> {
        &mut self.0[k as usize]
    }

    pub(super) fn from_made(made: &[(K, Val)]) -> Row {
        let mut row = Row::default();
        for &(k, val) in made {
            *row.slot(k) = Some(val);
        }
        row
    }

    /// What `world` holds for `e`.
    pub(super) fn of(world: &Sim, e: Entity) -> Row {
        Row([
            world.get::<A>(e).map(Comp::val),
            world.get::<B>(e).map(Comp::val),
            world.get::<C>(e).map(Comp::val),
            world.get::<Marker>(e).map(Comp::val),
        ])
    }
}

/// A command in the buffer, as the model records it (in queue order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cmd {
    Add(Entity, K, Val),
    Remove(Entity, K),
    Despawn(Entity),
}

/// What the world should hold: entities are numbered in the order their
/// handles were issued.
#[derive(Default)]
pub(super) struct Model {
    /// Every handle ever issued, by number.
    pub(super) issued: Vec<Entity>,
    pub(super) numbers: HashMap<Entity, usize>,
    /// By number: the components while alive, `None` once despawned.
    pub(super) rows: Vec<Option<Row>>,
    /// Numbers of the alive entities.
    pub(super) live: Vec<usize>,
    /// The world's own queues (`add_deferred`, `remove_deferred`,
    /// `despawn_deferred`).
    pub(super) pending_adds: BTreeMap<(usize, K), Val>,
    pub(super) pending_removes: BTreeSet<(usize, K)>,
    pub(super) pending_despawns: Vec<usize>,
    /// The command buffer: its commands and its reserved handles, by ordinal.
    pub(super) cmds: Vec<Cmd>,
    pub(super) reserved: Vec<Entity>,
    /// Handles reserved by the buffer before its last apply or clear.
    pub(super) old_reserved: Vec<Entity>,
    pub(super) all_reserved: HashSet<Entity>,
}

/// The reservation number a reserved handle shows in `Debug`
/// (`reserved#{number}`).
pub(super) fn reservation_number(reserved: Entity) -> u64 {
    format!("{reserved:?}")
        .strip_prefix("reserved#")
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("{reserved:?} is not a reserved handle"))
}

fn rejection(
    entity: Entity,
    command: CommandKind,
    component: Option<K>,
    reason: RejectReason,
) -> Rejected {
    Rejected {
        entity,
        command,
        component: component.map(K::type_name),
        reason,
    }
}

impl Model {
    /// The number of `e` if it is alive.
    pub(super) fn alive(&self, e: Entity) -> Option<usize> {
        self.numbers
            .get(&e)
            .copied()
            .filter(|&no| self.rows[no].is_some())
    }

    pub(super) fn row(&self, e: Entity) -> Option<Row> {
        self.alive(e).and_then(|no| self.rows[no])
    }

    pub(super) fn has(&self, no: usize, k: K) -> bool {
        self.rows[no].is_some_and(|row| row.get(k).is_some())
    }

    pub(super) fn row_mut(&mut self, no: usize) -> &mut Row {
        self.rows[no].as_mut().expect("alive in the model")
    }

    pub(super) fn can_spawn(&self) -> bool {
        self.live.len() < INDEX_LIMIT
    }

    pub(super) fn issue(&mut self, e: Entity, row: Row) {
        let no = self.issued.len();
        self.numbers.insert(e, no);
        self.issued.push(e);
        self.rows.push(Some(row));
        self.live.push(no);
    }

    /// Immediate despawn: the row and the world's queued adds and removes
    /// for it go (a queued despawn stays, and does nothing).
    pub(super) fn despawn(&mut self, no: usize) -> bool {
        if self.rows[no].take().is_none() {
            return false;
        }
        let at = self.live.iter().position(|&x| x == no).expect("listed");
        self.live.swap_remove(at);
        self.pending_adds.retain(|&(x, _), _| x != no);
        self.pending_removes.retain(|&(x, _)| x != no);
        true
    }

    /// The sync point: removals, then additions (replacing what an
    /// immediate add put there since), then despawns. Returns the number of
    /// values replaced.
    pub(super) fn finalize(&mut self) -> usize {
        for (no, k) in std::mem::take(&mut self.pending_removes) {
            *self.row_mut(no).slot(k) = None;
        }
        let mut replaced = 0;
        for ((no, k), val) in std::mem::take(&mut self.pending_adds) {
            if self.row_mut(no).slot(k).replace(val).is_some() {
                replaced += 1;
            }
        }
        for no in std::mem::take(&mut self.pending_despawns) {
            self.despawn(no);
        }
        replaced
    }

    pub(super) fn clear(&mut self) {
        for no in std::mem::take(&mut self.live) {
            self.rows[no] = None;
        }
        self.pending_adds.clear();
        self.pending_removes.clear();
        self.pending_despawns.clear();
    }

    /// Applies the buffer, given the entities the world spawned for its
    /// reserved handles: removals, additions (each storage in declaration
    /// order, each in queue order), then despawns. Returns the rejections the
    /// report must list, in order.
    pub(super) fn apply(&mut self, spawned: &[Entity]) -> Vec<Rejected> {
        for &e in spawned {
            self.issue(e, Row::default());
        }
        let reserved = std::mem::take(&mut self.reserved);
        let cmds = std::mem::take(&mut self.cmds);
        let mut rejected: Vec<Rejected> = reserved[spawned.len()..]
            .iter()
            .map(|&r| rejection(r, CommandKind::Spawn, None, RejectReason::OutOfIndices))
            .collect();
        let resolve = |e: Entity| -> Option<Entity> {
            if e.is_reserved() {
                let ordinal = reserved.iter().position(|&r| r == e)?;
                spawned.get(ordinal).copied()
            } else {
                Some(e)
            }
        };
        for k in K::ALL {
            for &cmd in &cmds {
                if let Cmd::Remove(e, of) = cmd {
                    if of != k {
                        continue;
                    }
                    match resolve(e).and_then(|real| self.alive(real)) {
                        Some(no) => *self.row_mut(no).slot(k) = None,
                        None => rejected.push(rejection(
                            e,
                            CommandKind::Remove,
                            Some(k),
                            RejectReason::DeadEntity,
                        )),
                    }
                }
            }
        }
        for k in K::ALL {
            for &cmd in &cmds {
                if let Cmd::Add(e, of, val) = cmd {
                    if of != k {
                        continue;
                    }
                    let reason = match resolve(e).and_then(|real| self.alive(real)) {
                        Some(no) if self.has(no, k) => RejectReason::AlreadyPresent,
                        Some(no) => {
                            *self.row_mut(no).slot(k) = Some(val);
                            continue;
                        }
                        None => RejectReason::DeadEntity,
                    };
                    rejected.push(rejection(e, CommandKind::Add, Some(k), reason));
                }
            }
        }
        for &cmd in &cmds {
            if let Cmd::Despawn(e) = cmd {
                let alive = resolve(e).and_then(|real| self.alive(real));
                if !alive.is_some_and(|no| self.despawn(no)) {
                    rejected.push(rejection(
                        e,
                        CommandKind::Despawn,
                        None,
                        RejectReason::DeadEntity,
                    ));
                }
            }
        }
        self.old_reserved.extend(reserved);
        rejected
    }

    /// What a query over `terms` yields, sorted by entity.
    pub(super) fn matches(&self, terms: &[Term]) -> Vec<Seen> {
        let mut seen: Vec<Seen> = self
            .live
            .iter()
            .filter_map(|&no| {
                let row = self.rows[no].as_ref()?;
                Some((self.issued[no], items(row, terms)?))
            })
            .collect();
        seen.sort();
        seen
    }

    /// Applies a query's writes to every row it matches.
    pub(super) fn edit_all(&mut self, terms: &[Term]) {
        for &no in &self.live {
            let row = self.rows[no].as_mut().expect("alive");
            if items(row, terms).is_some() {
                edit(row, terms);
            }
        }
    }

    /// The ledger ids of the values in the command buffer.
    pub(super) fn buffered_ids(&self) -> Vec<u64> {
        self.cmds
            .iter()
            .filter_map(|cmd| match *cmd {
                Cmd::Add(_, _, val) if val.id != 0 => Some(val.id),
                _ => None,
            })
            .collect()
    }

    /// The ledger ids of every value the world or the buffer holds.
    pub(super) fn ids(&self) -> Vec<u64> {
        let mut ids = self.buffered_ids();
        for &no in &self.live {
            let row = self.rows[no].expect("alive");
            ids.extend(row.0.iter().flatten().map(|val| val.id));
        }
        ids.extend(self.pending_adds.values().map(|val| val.id));
        ids.retain(|&id| id != 0);
        ids
    }
}
