//! The checker: compares the world with the model after every step (and
//! more deeply every few steps), and the drop ledger with the values the
//! model holds.

use std::collections::BTreeSet;

use typed_ecs::prelude::*;

use super::model::Row;
use super::world::{Comp, Marker, Val, A, B, C, K, LEDGER};
use super::Harness;

/// Says how the ledger differs from `expected`, the ids the model holds.
pub(super) fn ledger_differs(expected: &[u64]) -> Option<String> {
    LEDGER.with(|ledger| {
        let ledger = ledger.borrow();
        if ledger.len() == expected.len() && expected.iter().all(|id| ledger.contains(id)) {
            return None;
        }
        let expected: BTreeSet<u64> = expected.iter().copied().collect();
        let alive: BTreeSet<u64> = ledger.iter().copied().collect();
        let leaked: Vec<_> = alive.difference(&expected).collect();
        let dropped: Vec<_> = expected.difference(&alive).collect();
        Some(format!(
            "values alive but not held by the model (leaked): {leaked:?}; \
             values held by the model but dropped: {dropped:?}"
        ))
    })
}

impl Harness {
    /// After every step: a trusted group `(A, B)` holds exactly the live
    /// entities that have both (its packing is checked by
    /// `assert_invariants`, every few steps).
    pub(super) fn check_group(&mut self) {
        match self.world.group_len::<(A, B)>() {
            Some(len) => {
                let both = self
                    .model
                    .live
                    .iter()
                    .filter(|&&no| {
                        let row = self.model.rows[no].as_ref();
                        row.is_some_and(|row| row.get(K::A).is_some() && row.get(K::B).is_some())
                    })
                    .count();
                assert_eq!(len, both, "group (A, B) length: {}", self.ctx());
            }
            None => self.hit("group:rebuilding"),
        }
    }

    /// After every step: every handle ever issued (alive or not, and every
    /// component), the buffer's reserved handles, the counts, the ledger.
    pub(super) fn check(&self) {
        let (world, model) = (&self.world, &self.model);
        assert_eq!(
            world.entity_count(),
            model.live.len(),
            "entity_count: {}",
            self.ctx()
        );
        for (&e, row) in model.issued.iter().zip(&model.rows) {
            assert_eq!(
                world.is_alive(e),
                row.is_some(),
                "is_alive({e:?}): {}",
                self.ctx()
            );
            assert_eq!(
                Row::of(world, e),
                row.unwrap_or_default(),
                "components of {e:?}: {}",
                self.ctx()
            );
        }
        for &r in &model.reserved {
            assert!(!world.is_alive(r), "{r:?} is alive: {}", self.ctx());
            assert_eq!(Row::of(world, r), Row::default(), "{}", self.ctx());
        }
        let queued = model.cmds.len() + model.reserved.len();
        assert_eq!(
            self.commands.len(),
            queued,
            "commands.len(): {}",
            self.ctx()
        );
        assert_eq!(self.commands.is_empty(), queued == 0, "{}", self.ctx());
        if let Some(diff) = ledger_differs(&model.ids()) {
            panic!("drop ledger: {diff}: {}", self.ctx());
        }
    }

    /// Every few steps: the world's invariants, `entities()`, and each
    /// storage's dense arrays and index access.
    pub(super) fn check_deep(&self) {
        self.world.assert_invariants();
        self.world.entities.assert_invariants();
        let mut live: Vec<Entity> = self
            .model
            .live
            .iter()
            .map(|&no| self.model.issued[no])
            .collect();
        live.sort();
        assert_eq!(self.world.entities().len(), live.len(), "{}", self.ctx());
        let entities: Vec<Entity> = self.world.entities().collect();
        assert_eq!(entities, live, "entities(): {}", self.ctx());
        self.check_storage::<A>();
        self.check_storage::<B>();
        self.check_storage::<C>();
        self.check_storage::<Marker>();
    }

    fn check_storage<T: Comp>(&self) {
        let world = &self.world;
        let storage = world.storage::<T>();
        let len = world.size::<T>();
        assert_eq!(storage.len(), len, "{}", self.ctx());
        assert_eq!(storage.is_empty(), len == 0, "{}", self.ctx());
        assert_eq!(storage.entities().len(), len, "{}", self.ctx());
        assert_eq!(storage.values().len(), len, "{}", self.ctx());
        for (i, (e, value)) in storage.iter().enumerate() {
            assert_eq!(world.entity_at::<T>(i), e, "{}", self.ctx());
            assert_eq!(world.value_at::<T>(i).val(), value.val(), "{}", self.ctx());
            assert_eq!(storage.index_of(e), Some(i), "{}", self.ctx());
            assert!(world.has::<T>(e) && storage.contains(e), "{}", self.ctx());
        }
        let mut got: Vec<(Entity, Val)> = storage.iter().map(|(e, c)| (e, c.val())).collect();
        got.sort();
        let mut expected: Vec<(Entity, Val)> = self
            .model
            .live
            .iter()
            .filter_map(|&no| Some((self.model.issued[no], self.model.rows[no]?.get(T::K)?)))
            .collect();
        expected.sort();
        assert_eq!(got, expected, "storage of {:?}: {}", T::K, self.ctx());
    }
}
