//! Relations' part of a despawn (see [`relation`](crate::relation)): the
//! entities it takes with it (the sources of `despawn` relations, and
//! theirs: a worklist, not recursion), the `deny` check over that whole
//! set before anything changes, and each entity's links undone before it
//! goes. A world without relations never comes here.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use crate::plumbing::Storages;
use crate::relation::{Denied, EachRelation, Policy, Relates};
use crate::Entity;

/// Below this many entities, the set is searched in its list.
const SMALL: usize = 32;

/// The entities a despawn takes: in the order found, and as a set when
/// one entity could be found twice.
struct Taken {
    order: Vec<Entity>,
    /// `false` when no entity can be found twice (one `despawn` relation,
    /// a `tree`: each source has one target, so it is in one list, and
    /// there is no cycle to come back by): the list is the set.
    dedup: bool,
    big: Option<BTreeSet<Entity>>,
}

impl Taken {
    fn contains(&self, entity: Entity) -> bool {
        match &self.big {
            Some(set) => set.contains(&entity),
            None => self.order.contains(&entity),
        }
    }

    #[inline]
    fn insert(&mut self, entity: Entity) {
        if !self.dedup {
            self.order.push(entity);
            return;
        }
        if self.contains(entity) {
            return;
        }
        self.order.push(entity);
        match &mut self.big {
            Some(set) => {
                set.insert(entity);
            }
            None if self.order.len() > SMALL => {
                self.big = Some(self.order.iter().copied().collect());
            }
            None => {}
        }
    }

    /// The set, for lookups (made from the list if it was not kept).
    fn index(&mut self) {
        if self.big.is_none() && self.order.len() > SMALL {
            self.big = Some(self.order.iter().copied().collect());
        }
    }
}

/// The kinds of the world's relations: how many take their sources with
/// them, whether each of those is a tree, whether any refuses.
#[derive(Default)]
struct Kinds {
    cascading: usize,
    all_trees: bool,
    denying: bool,
}

impl<W> EachRelation<W> for Kinds {
    fn visit<R>(&mut self, _: &mut W)
    where
        W: Relates<R>,
    {
        match W::POLICY {
            Policy::Despawn => {
                self.cascading += 1;
                self.all_trees &= W::TREE;
            }
            Policy::Deny => self.denying = true,
            Policy::Remove => {}
        }
    }
}

/// The entities a despawn of `entity` takes, the last found first (so a
/// source goes before its target), or why it is refused.
pub(crate) fn cascade<W: Storages>(world: &mut W, entity: Entity) -> Result<Vec<Entity>, Denied> {
    let mut kinds = Kinds {
        all_trees: true,
        ..Kinds::default()
    };
    world.each_relation(&mut kinds);
    let mut taken = Taken {
        order: Vec::from([entity]),
        dedup: kinds.cascading > 1 || !kinds.all_trees,
        big: None,
    };
    if kinds.cascading > 0 {
        let mut at = 0;
        while at < taken.order.len() {
            let target = taken.order[at];
            at += 1;
            world.each_relation(&mut Collect {
                target,
                taken: &mut taken,
            });
        }
    }
    if kinds.denying {
        taken.index();
        let mut check = DenyCheck {
            taken: &taken,
            denied: None,
        };
        world.each_relation(&mut check);
        if let Some(denied) = check.denied {
            return Err(denied);
        }
    }
    let mut order = taken.order;
    order.reverse();
    Ok(order)
}

/// Adds the sources of `target` in every `despawn` relation.
struct Collect<'a> {
    target: Entity,
    taken: &'a mut Taken,
}

impl<W> EachRelation<W> for Collect<'_> {
    fn visit<R>(&mut self, world: &mut W)
    where
        W: Relates<R>,
    {
        if W::POLICY == Policy::Despawn {
            let mut sides = world.sides();
            sides.in_step();
            for &source in sides.sources_of(self.target) {
                self.taken.insert(source);
            }
        }
    }
}

/// Finds a source, outside the set, of an entity of the set in a `deny`
/// relation.
struct DenyCheck<'a> {
    taken: &'a Taken,
    denied: Option<Denied>,
}

impl<W> EachRelation<W> for DenyCheck<'_> {
    fn visit<R>(&mut self, world: &mut W)
    where
        W: Relates<R>,
    {
        if W::POLICY != Policy::Deny || self.denied.is_some() {
            return;
        }
        let mut sides = world.sides();
        sides.in_step();
        for &entity in &self.taken.order {
            if let Some(&source) = sides
                .sources_of(entity)
                .iter()
                .find(|&&source| !self.taken.contains(source))
            {
                self.denied = Some(Denied {
                    entity,
                    source,
                    relation: W::NAME,
                });
                return;
            }
        }
    }
}

/// Undoes every link of `entity`, which is about to be despawned: its own
/// (as a source), and its sources' (as a target).
pub(crate) fn unlink_all<W: Storages>(world: &mut W, entity: Entity) {
    world.each_relation(&mut Unlink(entity));
}

struct Unlink(Entity);

impl<W> EachRelation<W> for Unlink {
    fn visit<R>(&mut self, world: &mut W)
    where
        W: Relates<R>,
    {
        let mut sides = world.sides();
        sides.in_step();
        sides.unlink_source(self.0);
        while let Some(&source) = sides.sources_of(self.0).last() {
            drop(sides.unlink(source, self.0));
        }
    }
}

/// Every link of every relation goes (the world was emptied).
pub(crate) fn clear<W: Storages>(world: &mut W) {
    struct Clear;
    impl<W> EachRelation<W> for Clear {
        fn visit<R>(&mut self, world: &mut W)
        where
            W: Relates<R>,
        {
            world.sides().clear();
        }
    }
    world.each_relation(&mut Clear);
}

/// A loaded world's relations: each checked (see `Sides::loaded`), and
/// its reverse index built. `Err` names the relation and the link.
#[cfg(feature = "serde")]
pub(crate) fn loaded<W: Storages>(world: &mut W) -> Result<(), alloc::string::String> {
    struct Loaded(Result<(), alloc::string::String>);
    impl<W> EachRelation<W> for Loaded {
        fn visit<R>(&mut self, world: &mut W)
        where
            W: Relates<R>,
        {
            if self.0.is_ok() {
                self.0 = world.sides().loaded(W::NAME, W::TREE);
            }
        }
    }
    let mut loaded = Loaded(Ok(()));
    world.each_relation(&mut loaded);
    loaded.0
}
