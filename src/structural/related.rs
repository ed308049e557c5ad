//! Relations' part of a despawn (see [`relation`](crate::relation)): the
//! entities it takes with it (the sources of `despawn` relations, and
//! theirs: a worklist, not recursion), the `deny` check over that whole
//! set before anything changes, and each entity's links undone before it
//! goes. A world without relations never comes here.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use crate::plumbing::Storages;
use crate::relation::{Denied, EachRelation, Policy, Relates};
use crate::seal::TOKEN;
use crate::Entity;

/// Below this many entities, the set is searched in its list.
const SMALL: usize = 32;

/// The entities a despawn takes: in the order found, and as a set.
struct Taken {
    order: Vec<Entity>,
    big: Option<BTreeSet<Entity>>,
}

impl Taken {
    fn contains(&self, entity: Entity) -> bool {
        match &self.big {
            Some(set) => set.contains(&entity),
            None => self.order.contains(&entity),
        }
    }

    fn insert(&mut self, entity: Entity) {
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
}

/// The entities a despawn of `entity` takes, the last found first (so a
/// source goes before its target), or why it is refused.
pub(crate) fn cascade<W: Storages>(world: &mut W, entity: Entity) -> Result<Vec<Entity>, Denied> {
    let mut taken = Taken {
        order: Vec::from([entity]),
        big: None,
    };
    let mut at = 0;
    while at < taken.order.len() {
        let target = taken.order[at];
        at += 1;
        world.each_relation(
            &mut Collect {
                target,
                taken: &mut taken,
            },
            TOKEN,
        );
    }
    let mut check = DenyCheck {
        taken: &taken,
        denied: None,
    };
    world.each_relation(&mut check, TOKEN);
    if let Some(denied) = check.denied {
        return Err(denied);
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
    world.each_relation(&mut Unlink(entity), TOKEN);
}

struct Unlink(Entity);

impl<W> EachRelation<W> for Unlink {
    fn visit<R>(&mut self, world: &mut W)
    where
        W: Relates<R>,
    {
        let mut sides = world.sides();
        sides.in_step();
        drop(sides.unlink(self.0));
        while let Some(&source) = sides.sources_of(self.0).last() {
            drop(sides.unlink(source));
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
    world.each_relation(&mut Clear, TOKEN);
}
