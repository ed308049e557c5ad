//! What a change observer reported at one look, and how the change models
//! (`change_model.rs`, `seen_model.rs`) compare it with what they expect.

use std::collections::BTreeSet;

use typed_ecs::Entity;

/// The entities an observer reported at one look.
#[derive(Default, Clone, Debug)]
pub struct Look {
    pub changed: Vec<Entity>,
    pub added: Vec<Entity>,
    pub removed: Vec<Entity>,
}

/// `list` sorted: removals are compared as multisets (`clear` removes in
/// storage order).
pub fn sorted(list: &[Entity]) -> Vec<Entity> {
    let mut list = list.to_vec();
    list.sort();
    list
}

/// `list` as a set, asserting it named no entity twice.
pub fn as_set(list: &[Entity], what: &str, seed: u64) -> BTreeSet<Entity> {
    let set: BTreeSet<Entity> = list.iter().copied().collect();
    assert_eq!(
        set.len(),
        list.len(),
        "seed {seed}: {what} reported an entity twice"
    );
    set
}
