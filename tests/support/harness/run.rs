//! Runs each operation on the world and on the model, checking what the
//! world says as it goes (the queries run in `queries.rs`).

use typed_ecs::prelude::*;
use typed_ecs::{AddError, AddErrorKind, SpawnError};

use super::model::{reservation_number, Cmd, Row};
use super::ops::{Op, Target, Via};
use super::queries::bump;
#[cfg(feature = "serde")]
use super::world::normalized;
use super::world::{for_comp, with_bundle, Comp, Made, Marker, Sim, Val, A, B, C, K};
use super::{Harness, INDEX_LIMIT};

impl Harness {
    pub(super) fn run(&mut self, op: Op) {
        match op {
            Op::Spawn => self.spawn(false),
            Op::TrySpawn => self.spawn(true),
            Op::SpawnWith {
                set,
                reversed,
                fallible,
                batch: false,
                ..
            } => with_bundle!(self, set, reversed, |b| self.spawn_bundle(b, fallible)),
            Op::SpawnWith {
                set,
                reversed,
                fallible,
                batch: true,
                extend: false,
            } => with_bundle!(pair self, set, reversed, |bundles| {
                self.spawn_batch(bundles, fallible)
            }),
            Op::SpawnWith {
                set,
                reversed,
                fallible,
                batch: true,
                extend: true,
            } => with_bundle!(pair self, set, reversed, |bundles| {
                self.extend(bundles, fallible)
            }),
            Op::Despawn(t, None) => self.despawn(self.target(t)),
            Op::Despawn(t, Some(pick)) => {
                let e = self.target(t);
                let batch = [
                    e,
                    self.target(Target::Live(pick.into())),
                    e,
                    self.target(Target::Issued(u16::from(pick) * 7)),
                ];
                self.despawn_batch(batch);
            }
            Op::Add(t, k) => for_comp!(k, T => self.add::<T>(self.target(t), false)),
            Op::TryAdd(t, k) => for_comp!(k, T => self.add::<T>(self.target(t), true)),
            Op::Insert(t, k) => for_comp!(k, T => self.insert::<T>(self.target(t), false)),
            Op::TryInsert(t, k) => for_comp!(k, T => self.insert::<T>(self.target(t), true)),
            Op::Remove(t, k, storage) => {
                for_comp!(k, T => self.remove::<T>(self.target(t), storage))
            }
            Op::RemoveAll(t) => self.remove_all(self.target(t)),
            Op::Edit(t, k, via) => for_comp!(k, T => self.edit::<T>(self.target(t), via)),
            Op::AddDeferred(t, k) => {
                for_comp!(k, T => self.add_deferred::<T>(self.target(t), false))
            }
            Op::TryAddDeferred(t, k) => {
                for_comp!(k, T => self.add_deferred::<T>(self.target(t), true))
            }
            Op::RemoveDeferred(t, k) => {
                for_comp!(k, T => self.remove_deferred::<T>(self.target(t)))
            }
            Op::DespawnDeferred(t) => self.despawn_deferred(self.target(t)),
            Op::FinalizeUpdates => self.finalize(),
            Op::CmdAdd(t, k) => for_comp!(k, T => self.cmd_add::<T>(self.target(t))),
            Op::CmdRemove(t, k) => for_comp!(k, T => self.cmd_remove::<T>(self.target(t))),
            Op::CmdDespawn(t) => {
                let e = self.target(t);
                self.commands.despawn(e);
                self.model.cmds.push(Cmd::Despawn(e));
            }
            Op::CmdSpawn => {
                let r = self.commands.spawn();
                self.reserved(r);
            }
            Op::CmdSpawnWith { set, reversed } => {
                with_bundle!(self, set, reversed, |b| self.cmd_spawn_bundle(b))
            }
            Op::CmdApply => self.cmd_apply(),
            Op::CmdClear => {
                self.commands.clear();
                let reserved = std::mem::take(&mut self.model.reserved);
                self.model.old_reserved.extend(reserved);
                self.model.cmds.clear();
            }
            Op::Query(shape) => self.query(shape),
            Op::QueryMut(shape) => self.query_mut(shape),
            Op::QueryCommands { for_loop } => self.query_commands(for_loop),
            Op::GetMany(t, shape) => self.get_many(self.target(t), shape),
            Op::Clear => {
                self.world.clear();
                self.model.clear();
            }
            Op::SaveLoad { postcard } => self.save_load(postcard),
        }
    }

    /// Saves the world, drops it, and loads it back. The drop ledger checks
    /// that every value was dropped with the old world and revived once by
    /// the load; the loaded world must save the same as the original (up to
    /// the order of each storage's entries, which a load may change while it
    /// packs the owning group); the model checks the rest after the step,
    /// and the operations after it check that the queues survived.
    #[cfg(feature = "serde")]
    fn save_load(&mut self, postcard: bool) {
        let saved = normalized(serde_json::to_value(&self.world).expect("a world saves"));
        let bytes = if postcard {
            postcard::to_allocvec(&self.world).expect("a world saves")
        } else {
            serde_json::to_vec(&self.world).expect("a world saves")
        };
        drop(std::mem::take(&mut self.world));
        let loaded: Result<Sim, String> = if postcard {
            postcard::from_bytes(&bytes).map_err(|e| e.to_string())
        } else {
            serde_json::from_slice(&bytes).map_err(|e| e.to_string())
        };
        let mut loaded = loaded.unwrap_or_else(|error| {
            panic!("a valid world failed to load ({error}): {}", self.ctx())
        });
        // The index limit is a test hook, not part of a save.
        loaded.set_entity_limit(INDEX_LIMIT as u32);
        let again = normalized(serde_json::to_value(&loaded).expect("a world saves"));
        assert_eq!(again, saved, "the loaded world differs: {}", self.ctx());
        self.world = loaded;
        self.hit(if postcard {
            "save_load:postcard"
        } else {
            "save_load:json"
        });
    }

    /// Without the `serde` feature there is nothing to save with.
    #[cfg(not(feature = "serde"))]
    fn save_load(&mut self, _postcard: bool) {}

    // ----- entities -----

    /// Records a handle the world just issued, after checking it is new.
    fn issued(&mut self, e: Entity, row: Row) {
        self.check_fresh(e);
        self.model.issue(e, row);
        self.hit("spawned");
    }

    fn check_fresh(&self, e: Entity) {
        assert!(
            !e.is_reserved(),
            "spawned a reserved handle {e:?}: {}",
            self.ctx()
        );
        assert!(
            !self.model.numbers.contains_key(&e),
            "{e:?} was handed out twice: {}",
            self.ctx()
        );
        assert!(
            (e.index() as usize) < INDEX_LIMIT,
            "{e:?} is past the index limit: {}",
            self.ctx()
        );
    }

    fn out_of_indices<Bd>(&mut self, error: &SpawnError<Bd>) {
        assert!(
            !self.model.can_spawn(),
            "spawn failed with room left: {}",
            self.ctx()
        );
        assert!(
            error.to_string().contains("out of entity indices"),
            "{error}: {}",
            self.ctx()
        );
        self.hit("err:spawn:OutOfIndices");
    }

    fn spawn(&mut self, fallible: bool) {
        if fallible || !self.model.can_spawn() {
            match self.world.try_spawn() {
                Ok(e) => self.issued(e, Row::default()),
                Err(error) => self.out_of_indices(&error),
            }
        } else {
            let e = self.world.spawn();
            self.issued(e, Row::default());
        }
    }

    fn spawn_bundle<Bd: Bundle<Sim> + Made>(&mut self, bundle: Bd, fallible: bool) {
        let mut made = Vec::new();
        bundle.made(&mut made);
        let row = Row::from_made(&made);
        if fallible || !self.model.can_spawn() {
            match self.world.try_spawn_with(bundle) {
                Ok(e) => self.issued(e, row),
                Err(error) => {
                    self.out_of_indices(&error);
                    let mut back = Vec::new();
                    error.into_inner().made(&mut back);
                    assert_eq!(back, made, "the bundle handed back: {}", self.ctx());
                }
            }
        } else {
            let e = self.world.spawn_with(bundle);
            self.issued(e, row);
        }
    }

    fn spawn_batch<Bd: Bundle<Sim> + Made>(&mut self, bundles: [Bd; 2], fallible: bool) {
        let rows = made_rows(&bundles);
        let room = INDEX_LIMIT - self.model.live.len();
        if fallible || room < bundles.len() {
            match self.world.try_spawn_batch(bundles) {
                Ok(spawned) => {
                    assert_eq!(spawned.len(), 2, "{}", self.ctx());
                    for (e, (_, row)) in spawned.into_iter().zip(rows) {
                        self.issued(e, row);
                    }
                }
                Err(error) => {
                    let text = error.to_string();
                    let (spawned, rest) = error.into_inner();
                    assert_eq!(
                        spawned.len(),
                        room,
                        "spawned before running out: {}",
                        self.ctx()
                    );
                    for (&e, (_, row)) in spawned.iter().zip(&rows) {
                        self.issued(e, *row);
                    }
                    assert!(
                        !self.model.can_spawn(),
                        "a batch stopped with room left: {}",
                        self.ctx()
                    );
                    self.batch_out_of_indices("spawn", &text, rest, &rows[room..]);
                }
            }
        } else {
            let spawned = self.world.spawn_batch(bundles);
            assert_eq!(spawned.len(), 2, "{}", self.ctx());
            for (e, (_, row)) in spawned.into_iter().zip(rows) {
                self.issued(e, row);
            }
        }
    }

    /// A batch (`family`: spawn, extend) ran out of entity indices: the
    /// error says so, and hands back the bundles not spawned (made as
    /// `rows`), in order. Counted as `err:{family}:OutOfIndices`.
    fn batch_out_of_indices<Bd: Made>(
        &mut self,
        family: &str,
        text: &str,
        rest: impl Iterator<Item = Bd>,
        rows: &[(Vec<(K, Val)>, Row)],
    ) {
        assert!(
            text.contains("out of entity indices"),
            "{text}: {}",
            self.ctx()
        );
        let mut handed_back = 0;
        for (bundle, (made, _)) in rest.zip(rows) {
            let mut back = Vec::new();
            bundle.made(&mut back);
            assert_eq!(&back, made, "a bundle handed back: {}", self.ctx());
            handed_back += 1;
        }
        assert_eq!(
            handed_back,
            rows.len(),
            "bundles handed back: {}",
            self.ctx()
        );
        self.hit(&format!("err:{family}:OutOfIndices"));
    }

    /// `extend` (`try_extend`): the world hands no handles back, so the new
    /// ones are the alive entities the model does not know, each matched to
    /// the bundle whose components it holds.
    fn extend<Bd: Bundle<Sim> + Made>(&mut self, bundles: [Bd; 2], fallible: bool) {
        let mut rows = made_rows(&bundles);
        let room = INDEX_LIMIT - self.model.live.len();
        let spawned = if fallible || room < bundles.len() {
            match self.world.try_extend(bundles) {
                Ok(spawned) => spawned,
                Err(error) => {
                    let text = error.to_string();
                    let (spawned, rest) = error.into_inner();
                    self.batch_out_of_indices("extend", &text, rest, &rows[spawned..]);
                    spawned
                }
            }
        } else {
            self.world.extend(bundles);
            2
        };
        assert_eq!(spawned, room.min(2), "extend's count: {}", self.ctx());
        rows.truncate(spawned);
        let new: Vec<Entity> = self
            .world
            .entities()
            .filter(|&e| !self.model.numbers.contains_key(&e))
            .collect();
        assert_eq!(new.len(), spawned, "entities extend made: {}", self.ctx());
        for e in new {
            let row = Row::of(&self.world, e);
            let Some(at) = rows.iter().position(|&(_, r)| r == row) else {
                panic!("{e:?} holds {row:?}, no bundle's: {}", self.ctx());
            };
            rows.swap_remove(at);
            self.issued(e, row);
            self.hit("extend:spawned");
        }
    }

    /// Runs `call`, which says whether `e` was alive, checks that against
    /// the model and counts `{what}:alive` or `{what}:dead`. Returns `e`'s
    /// number if it is alive.
    fn on_entity(
        &mut self,
        what: &str,
        e: Entity,
        call: impl FnOnce(&mut Sim) -> bool,
    ) -> Option<usize> {
        let alive = self.model.alive(e);
        let said = call(&mut self.world);
        assert_eq!(said, alive.is_some(), "{what}({e:?}): {}", self.ctx());
        let outcome = if said { "alive" } else { "dead" };
        self.hit(&format!("{what}:{outcome}"));
        alive
    }

    fn despawn(&mut self, e: Entity) {
        if let Some(no) = self.on_entity("despawn", e, |world| world.despawn(e)) {
            self.model.despawn(no);
        }
    }

    /// `despawn_batch`: the model despawns each handle that is alive at its
    /// turn (so a repeated one once), and the counts must agree.
    fn despawn_batch(&mut self, batch: [Entity; 4]) {
        let despawned = self.world.despawn_batch(batch);
        let mut expected = 0;
        for e in batch {
            match self.model.alive(e) {
                Some(no) => {
                    self.model.despawn(no);
                    expected += 1;
                }
                None => self.hit("despawn_batch:skipped"),
            }
        }
        assert_eq!(despawned, expected, "despawn_batch's count: {}", self.ctx());
        if expected > 0 {
            self.hit("despawn_batch:despawned");
        }
    }

    // ----- components -----

    /// Calls `add` or `add_deferred` (`panicking`), or its fallible twin
    /// when `use_twin`: the harness never calls a method that would panic.
    fn call<T: Comp>(
        &mut self,
        use_twin: bool,
        e: Entity,
        component: T,
        twin: fn(&mut Sim, Entity, T) -> Result<(), AddError<T>>,
        panicking: fn(&mut Sim, Entity, T),
    ) -> Result<(), AddError<T>> {
        if use_twin {
            return twin(&mut self.world, e, component);
        }
        panicking(&mut self.world, e, component);
        Ok(())
    }

    /// Checks the outcome of an add (`family`: add, insert, add_deferred)
    /// against the model's prediction: an error must be the one predicted,
    /// say so, and hand the component back; it is counted as
    /// `err:{family}:{kind}`. Returns whether the add was made.
    fn add_outcome<T: Comp>(
        &mut self,
        family: &str,
        (e, val): (Entity, Val),
        expected: Result<(), AddErrorKind>,
        outcome: Result<(), AddError<T>>,
    ) -> bool {
        let error = match outcome {
            Ok(()) => {
                assert_eq!(expected, Ok(()), "{family} to {e:?}: {}", self.ctx());
                return true;
            }
            Err(error) => error,
        };
        let kind = error.kind();
        assert_eq!(Err(kind), expected, "{family} to {e:?}: {}", self.ctx());
        assert_eq!(error.entity(), e, "{}", self.ctx());
        let text = error.to_string();
        let says = match kind {
            AddErrorKind::DeadEntity => "not alive",
            AddErrorKind::AlreadyPresent => "already has one",
            _ => "already queued",
        };
        assert!(text.contains(says), "{text}: {}", self.ctx());
        assert_eq!(error.into_component().val(), val, "{}", self.ctx());
        self.hit(&format!("err:{family}:{kind:?}"));
        false
    }

    fn add<T: Comp>(&mut self, e: Entity, fallible: bool) {
        let component = T::make(self.fresh());
        let val = component.val();
        let expected = match self.model.row(e) {
            None => Err(AddErrorKind::DeadEntity),
            Some(row) if row.get(T::K).is_some() => Err(AddErrorKind::AlreadyPresent),
            Some(_) => Ok(()),
        };
        let use_twin = fallible || expected.is_err();
        let result = self.call(use_twin, e, component, Sim::try_add::<T>, Sim::add::<T>);
        if self.add_outcome("add", (e, val), expected, result) {
            let no = self.model.alive(e).expect("alive");
            *self.model.row_mut(no).slot(T::K) = Some(val);
            self.hit("add:ok");
        }
    }

    fn insert<T: Comp>(&mut self, e: Entity, fallible: bool) {
        let component = T::make(self.fresh());
        let val = component.val();
        let Some(no) = self.model.alive(e) else {
            let outcome = self.world.try_insert(e, component).map(|_| ());
            self.add_outcome("insert", (e, val), Err(AddErrorKind::DeadEntity), outcome);
            return;
        };
        let old = if fallible {
            match self.world.try_insert(e, component) {
                Ok(old) => old,
                Err(error) => panic!("{error}: {}", self.ctx()),
            }
        } else {
            self.world.insert(e, component)
        };
        let row = self.model.row_mut(no);
        let expected = row.slot(T::K).replace(val);
        assert_eq!(
            old.as_ref().map(Comp::val),
            expected,
            "insert into {e:?}: {}",
            self.ctx()
        );
        self.hit(if old.is_some() {
            "insert:replaced"
        } else {
            "insert:new"
        });
    }

    fn remove<T: Comp>(&mut self, e: Entity, through_storage: bool) {
        let removed = if through_storage {
            self.world.storage_mut::<T>().remove(e)
        } else {
            self.world.remove::<T>(e)
        };
        let expected = self.model.row(e).and_then(|row| row.get(T::K));
        assert_eq!(
            removed.as_ref().map(Comp::val),
            expected,
            "remove from {e:?}: {}",
            self.ctx()
        );
        if let Some(no) = self.model.alive(e) {
            *self.model.row_mut(no).slot(T::K) = None;
        }
        self.hit(if expected.is_some() {
            "remove:some"
        } else {
            "remove:none"
        });
    }

    fn remove_all(&mut self, e: Entity) {
        if let Some(no) = self.on_entity("remove_all", e, |world| world.remove_all(e)) {
            *self.model.row_mut(no) = Row::default();
        }
    }

    fn edit<T: Comp>(&mut self, e: Entity, via: Via) {
        let input = self.fresh();
        let world = &mut self.world;
        let component: Option<&mut T> = match via {
            Via::Get => world.get_mut::<T>(e),
            Via::Storage => world.storage_mut::<T>().get_mut(e),
            Via::ValueAt => match world.storage::<T>().index_of(e) {
                Some(i) => Some(world.value_at_mut::<T>(i)),
                None => None,
            },
            Via::Values => {
                let storage = world.storage_mut::<T>();
                match storage.index_of(e) {
                    Some(i) => storage.values_mut().get_mut(i),
                    None => None,
                }
            }
            Via::View => world.storage_mut::<T>().view_mut().into_mut(e),
        };
        let before = component.map(|c| {
            let before = c.val();
            bump(c, input, 0);
            before
        });
        let expected = self.model.row(e).and_then(|row| row.get(T::K));
        assert_eq!(before, expected, "edit of {e:?}: {}", self.ctx());
        match (self.model.alive(e), expected) {
            (Some(no), Some(val)) => {
                *self.model.row_mut(no).slot(T::K) = Some(val.bumped(input, 0));
                self.hit("edit:hit");
            }
            _ => self.hit("edit:miss"),
        }
    }

    // ----- deferred changes -----

    fn add_deferred<T: Comp>(&mut self, e: Entity, fallible: bool) {
        let component = T::make(self.fresh());
        let val = component.val();
        let alive = self.model.alive(e);
        let expected = match alive {
            None => Err(AddErrorKind::DeadEntity),
            Some(no) if self.model.pending_adds.contains_key(&(no, T::K)) => {
                Err(AddErrorKind::AlreadyQueued)
            }
            Some(no)
                if self.model.has(no, T::K)
                    && !self.model.pending_removes.contains(&(no, T::K)) =>
            {
                Err(AddErrorKind::AlreadyPresent)
            }
            Some(_) => Ok(()),
        };
        let use_twin = fallible || expected.is_err();
        let result = self.call(
            use_twin,
            e,
            component,
            Sim::try_add_deferred::<T>,
            Sim::add_deferred::<T>,
        );
        if self.add_outcome("add_deferred", (e, val), expected, result) {
            let no = alive.expect("alive");
            self.model.pending_adds.insert((no, T::K), val);
            self.hit(if self.model.has(no, T::K) {
                "add_deferred:replacing"
            } else {
                "add_deferred:ok"
            });
        }
    }

    fn remove_deferred<T: Comp>(&mut self, e: Entity) {
        let queue = |world: &mut Sim| world.remove_deferred::<T>(e);
        if let Some(no) = self.on_entity("remove_deferred", e, queue) {
            self.model.pending_removes.insert((no, T::K));
        }
    }

    fn despawn_deferred(&mut self, e: Entity) {
        let queue = |world: &mut Sim| world.despawn_deferred(e);
        if let Some(no) = self.on_entity("despawn_deferred", e, queue) {
            self.model.pending_despawns.push(no);
        }
    }

    fn finalize(&mut self) {
        self.world.finalize_updates();
        for _ in 0..self.model.finalize() {
            self.hit("finalize:replaced");
        }
    }

    // ----- the command buffer -----

    /// Records a reserved handle the buffer just handed out.
    pub(super) fn reserved(&mut self, r: Entity) {
        let ordinal = self.model.reserved.len();
        assert!(r.is_reserved(), "{r:?} is not reserved: {}", self.ctx());
        // Numbers only grow, and run on within a block of 256.
        let number = reservation_number(r);
        let previous = self.model.reserved.last();
        if let Some(&previous) = previous.or(self.model.old_reserved.last()) {
            assert!(
                number > reservation_number(previous),
                "{r:?} after {previous:?}: {}",
                self.ctx()
            );
        }
        if let (Some(&previous), true) = (previous, ordinal % 256 != 0) {
            assert_eq!(
                number,
                reservation_number(previous) + 1,
                "{r:?} should follow {previous:?}: {}",
                self.ctx()
            );
        }
        assert!(
            self.model.all_reserved.insert(r),
            "{r:?} was reserved twice: {}",
            self.ctx()
        );
        assert!(!self.world.is_alive(r), "{}", self.ctx());
        self.model.reserved.push(r);
    }

    fn cmd_add<T: Comp>(&mut self, e: Entity) {
        let component = T::make(self.fresh());
        self.model.cmds.push(Cmd::Add(e, T::K, component.val()));
        self.commands.add(e, component);
    }

    fn cmd_remove<T: Comp>(&mut self, e: Entity) {
        self.commands.remove::<T>(e);
        self.model.cmds.push(Cmd::Remove(e, T::K));
    }

    fn cmd_spawn_bundle<Bd: Bundle<Sim> + Made>(&mut self, bundle: Bd) {
        let mut made = Vec::new();
        bundle.made(&mut made);
        let r = self.commands.spawn_with(bundle);
        self.reserved(r);
        for (k, val) in made {
            self.model.cmds.push(Cmd::Add(r, k, val));
        }
    }

    fn cmd_apply(&mut self) {
        let report = self.world.apply(&mut self.commands);
        assert!(self.commands.is_empty(), "{}", self.ctx());
        let spawned = report.spawned().to_vec();
        let room = INDEX_LIMIT - self.model.live.len();
        assert_eq!(
            spawned.len(),
            self.model.reserved.len().min(room),
            "spawned: {}",
            self.ctx()
        );
        for &e in &spawned {
            self.check_fresh(e);
        }
        for (ordinal, &r) in self.model.reserved.iter().enumerate() {
            assert_eq!(
                report.entity(r),
                spawned.get(ordinal).copied(),
                "report.entity({r:?}): {}",
                self.ctx()
            );
        }
        if let Some(&old) = self.model.old_reserved.last() {
            assert_eq!(report.entity(old), None, "{}", self.ctx());
        }
        let expected = self.model.apply(&spawned);
        assert_eq!(report.rejected(), expected, "the report: {}", self.ctx());
        assert_eq!(report.is_clean(), expected.is_empty(), "{}", self.ctx());
        for rejected in &expected {
            let text = rejected.to_string();
            assert!(text.contains(" rejected: "), "{text}: {}", self.ctx());
            self.hit(&format!(
                "reject:{:?}:{:?}",
                rejected.command, rejected.reason
            ));
        }
        if !spawned.is_empty() {
            self.hit("apply:spawned");
        }
    }
}

/// Each bundle's components, and the row they make in the model.
fn made_rows<Bd: Made>(bundles: &[Bd]) -> Vec<(Vec<(K, Val)>, Row)> {
    bundles
        .iter()
        .map(|bundle| {
            let mut made = Vec::new();
            bundle.made(&mut made);
            let row = Row::from_made(&made);
            (made, row)
        })
        .collect()
}
