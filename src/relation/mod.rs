//! Relations between entities, declared in `world!` (`relations { child_of:
//! ChildOf -> children [despawn, tree]; }`): a forward side, [`Links`]
//! (each source's target and the link's payload; [`ManyLinks`], each
//! source's targets, for a `many` relation), and a reverse index,
//! [`Sources`] (each target's sources), two fields of the world that only
//! the world changes.
//!
//! # Layout
//!
//! Both sides are indexed by entity index, each entry keeping the handle it
//! belongs to (a stale handle finds nothing). A link knows its place in its
//! target's list, so linking is a push and unlinking a `swap_remove` that
//! tells the moved sibling its new place: O(1) both (a `many` source also
//! searches its own few targets). Sibling order is therefore not kept.
//!
//! Everything that changes the two sides is [`Sides`], generic over the
//! forward side's [`Forward`] trait, so both kinds share the checks, the
//! in-step guard, the despawn policies (`structural/related.rs`) and the
//! command buffers' relation phase (`deferred`).
//!
//! # Both sides in step
//!
//! The two fields are public to read, and nothing outside this crate can
//! change either. They share a *pair* number (given at the first link) and
//! a count of changes; every change made through the world moves both. A
//! field swapped, taken or cloned from elsewhere no longer matches its
//! other side: the world's next relation operation (or despawn) sees it and
//! rebuilds the reverse index from the forward side, dropping the links
//! whose source or target is not alive in this world.

use alloc::vec::Vec;
use core::fmt;

use crate::{Entity, EntityAllocator};

mod many;
mod pairing;

pub use many::ManyLinks;
use pairing::Pairing;

/// What happens to an entity's sources when it is despawned (the `[…]` of
/// a relation's line in `world!`). Not public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// `remove` (the default): the links go, the sources stay.
    Remove,
    /// `despawn`: the sources are despawned too, and theirs, and so on.
    Despawn,
    /// `deny`: the despawn is refused while the entity has sources.
    Deny,
}

/// One link: its target, its place in the target's list, its payload.
#[derive(Clone)]
struct Link<R> {
    source: Entity,
    target: Entity,
    slot: u32,
    payload: R,
}

/// The forward side of a relation `R`: each source's target, and the
/// link's payload (the value of `R` given to `relate`). A field of the
/// world, read here, changed only by the world (`relate`, `unrelate`,
/// despawn).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// #[derive(Debug, PartialEq)]
/// struct ChildOf;
/// struct Name(&'static str);
/// world! {
///     struct Scene<Name>;
///     relations { child_of: ChildOf -> children [despawn, tree]; }
/// }
///
/// let mut scene = Scene::new();
/// let ship = scene.spawn_with((Name("ship"),));
/// let gun = scene.spawn_with((Name("gun"),));
/// scene.relate(gun, ChildOf, ship).unwrap();
/// assert_eq!(scene.child_of.target(gun), Some(ship));
/// assert_eq!(scene.children.of(ship), [gun]);
/// scene.despawn(ship); // `despawn`: the gun goes too
/// assert!(!scene.is_alive(gun));
/// ```
pub struct Links<R> {
    /// By source index.
    links: Vec<Option<Link<R>>>,
    len: usize,
    pairing: Pairing,
}

/// The reverse side of a relation `R`: each target's sources. A field of
/// the world, read here, changed only by the world.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Likes(u8);
/// struct Tag;
/// world! {
///     struct Town<Tag>;
///     relations { likes: Likes -> liked_by; }
/// }
///
/// let mut town = Town::new();
/// let (a, b, c) = (town.spawn(), town.spawn(), town.spawn());
/// town.relate(a, Likes(3), c).unwrap();
/// town.relate(b, Likes(9), c).unwrap();
/// let mut fans = town.liked_by.of(c).to_vec();
/// fans.sort();
/// assert_eq!(fans, [a, b]);
/// assert_eq!(town.likes.get(b).map(|l| l.0), Some(9));
/// ```
pub struct Sources<R> {
    /// By target index: the place of its list in `lists` (`NO_LIST`: none),
    /// 4 bytes an index, so the entities that are no target cost little.
    places: Vec<u32>,
    /// Each target's handle and its sources, packed.
    lists: Vec<(Entity, Vec<Entity>)>,
    pairing: Pairing,
    relation: core::marker::PhantomData<fn() -> R>,
}

impl<R> Default for Links<R> {
    fn default() -> Self {
        Links {
            links: Vec::new(),
            len: 0,
            pairing: Pairing::default(),
        }
    }
}

impl<R> Default for Sources<R> {
    fn default() -> Self {
        Sources {
            places: Vec::new(),
            lists: Vec::new(),
            pairing: Pairing::default(),
            relation: core::marker::PhantomData,
        }
    }
}

impl<R: Clone> Clone for Links<R> {
    /// A copy of the links, as another world's (a new pair): the world it
    /// is put in rebuilds its reverse index from it.
    fn clone(&self) -> Self {
        Links {
            links: self.links.clone(),
            len: self.len,
            pairing: self.pairing.unpaired(),
        }
    }
}

impl<R> Clone for Sources<R> {
    /// An empty index (the world rebuilds it from its links).
    fn clone(&self) -> Self {
        Sources::default()
    }
}

impl<R> fmt::Debug for Links<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(s, t, _)| (s, t)))
            .finish()
    }
}

impl<R> fmt::Debug for Sources<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.lists.iter().map(|(t, list)| (t, list)))
            .finish()
    }
}

impl<R> Links<R> {
    /// The link of `source`, if any.
    #[inline]
    fn link(&self, source: Entity) -> Option<&Link<R>> {
        self.links
            .get(source.index() as usize)?
            .as_ref()
            .filter(|link| link.source == source)
    }

    /// `source`'s target, if it is related.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct ChildOf;
    /// # struct Tag;
    /// # world! { struct Scene<Tag>; relations { child_of: ChildOf -> children; } }
    /// let mut scene = Scene::new();
    /// let (ship, gun) = (scene.spawn(), scene.spawn());
    /// scene.relate(gun, ChildOf, ship).unwrap();
    /// assert_eq!(scene.child_of.target(gun), Some(ship));
    /// assert_eq!(scene.child_of.target(ship), None);
    /// ```
    #[inline]
    pub fn target(&self, source: Entity) -> Option<Entity> {
        self.link(source).map(|link| link.target)
    }

    /// The payload of `source`'s link, if it is related.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Likes(u8);
    /// # struct Tag;
    /// # world! { struct Town<Tag>; relations { likes: Likes -> liked_by; } }
    /// let mut town = Town::new();
    /// let (a, b) = (town.spawn(), town.spawn());
    /// town.relate(a, Likes(7), b).unwrap();
    /// assert_eq!(town.likes.get(a).map(|l| l.0), Some(7));
    /// ```
    #[inline]
    pub fn get(&self, source: Entity) -> Option<&R> {
        self.link(source).map(|link| &link.payload)
    }

    /// `true` if `source` is related.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct ChildOf;
    /// # struct Tag;
    /// # world! { struct Scene<Tag>; relations { child_of: ChildOf -> children; } }
    /// let mut scene = Scene::new();
    /// let (ship, gun) = (scene.spawn(), scene.spawn());
    /// scene.relate(gun, ChildOf, ship).unwrap();
    /// assert!(scene.child_of.contains(gun));
    /// ```
    #[inline]
    pub fn contains(&self, source: Entity) -> bool {
        self.link(source).is_some()
    }

    /// How many sources are related.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct ChildOf;
    /// # struct Tag;
    /// # world! { struct Scene<Tag>; relations { child_of: ChildOf -> children; } }
    /// let scene = Scene::new();
    /// assert_eq!(scene.child_of.len(), 0);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` if nothing is related.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct ChildOf;
    /// # struct Tag;
    /// # world! { struct Scene<Tag>; relations { child_of: ChildOf -> children; } }
    /// assert!(Scene::new().child_of.is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every link: `(source, target, payload)`, in source index order.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct ChildOf;
    /// # struct Tag;
    /// # world! { struct Scene<Tag>; relations { child_of: ChildOf -> children; } }
    /// let mut scene = Scene::new();
    /// let (ship, gun) = (scene.spawn(), scene.spawn());
    /// scene.relate(gun, ChildOf, ship).unwrap();
    /// let links: Vec<(Entity, Entity)> = scene.child_of.iter().map(|(s, t, _)| (s, t)).collect();
    /// assert_eq!(links, [(gun, ship)]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (Entity, Entity, &R)> + '_ {
        self.links
            .iter()
            .flatten()
            .map(|link| (link.source, link.target, &link.payload))
    }
}

impl<R> Sources<R> {
    /// `target`'s sources, in no particular order (an unlink moves the last
    /// source into the place it frees).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct ChildOf;
    /// # struct Tag;
    /// # world! { struct Scene<Tag>; relations { child_of: ChildOf -> children; } }
    /// let mut scene = Scene::new();
    /// let (ship, gun) = (scene.spawn(), scene.spawn());
    /// scene.relate(gun, ChildOf, ship).unwrap();
    /// assert_eq!(scene.children.of(ship), [gun]);
    /// assert!(scene.children.of(gun).is_empty());
    /// ```
    #[inline]
    pub fn of(&self, target: Entity) -> &[Entity] {
        match self.place(target) {
            Some(place) => &self.lists[place].1,
            None => &[],
        }
    }

    /// Where `target`'s list is, if it has one.
    #[inline]
    fn place(&self, target: Entity) -> Option<usize> {
        let place = *self.places.get(target.index() as usize)? as usize;
        self.lists
            .get(place)
            .filter(|(owner, _)| *owner == target)
            .map(|_| place)
    }

    /// The list of `target`, made if needed.
    fn list_mut(&mut self, target: Entity) -> &mut Vec<Entity> {
        let place = match self.place(target) {
            Some(place) => place,
            None => {
                let index = target.index() as usize;
                if self.places.len() <= index {
                    self.places.resize(index + 1, NO_LIST);
                }
                self.places[index] = self.lists.len() as u32;
                self.lists.push((target, Vec::new()));
                self.lists.len() - 1
            }
        };
        &mut self.lists[place].1
    }

    /// `target`'s list goes (it is empty): the last list takes its place.
    fn drop_list(&mut self, target: Entity) {
        if let Some(place) = self.place(target) {
            self.lists.swap_remove(place);
            self.places[target.index() as usize] = NO_LIST;
            if let Some((moved, _)) = self.lists.get(place) {
                self.places[moved.index() as usize] = place as u32;
            }
        }
    }
}

/// `true` if the two sides are each other's and in step (see
/// [`Sides::in_step`]): what a read-only query over a relation checks.
#[inline]
pub(crate) fn in_step<R, F: Forward<R>>(links: &F, sources: &Sources<R>) -> bool {
    links.pairing() == sources.pairing
}

impl<R> Sources<R> {
    /// `true` if `target` has sources.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct ChildOf;
    /// # struct Tag;
    /// # world! { struct Scene<Tag>; relations { child_of: ChildOf -> children; } }
    /// let mut scene = Scene::new();
    /// let (ship, gun) = (scene.spawn(), scene.spawn());
    /// scene.relate(gun, ChildOf, ship).unwrap();
    /// assert!(scene.children.contains(ship) && !scene.children.contains(gun));
    /// ```
    #[inline]
    pub fn contains(&self, target: Entity) -> bool {
        self.place(target).is_some()
    }
}

/// A target index with no list.
const NO_LIST: u32 = u32::MAX;

/// The two sides of one relation, borrowed together from a world (what
/// `world!` implements [`Relates`] with). Not public API.
#[doc(hidden)]
#[allow(missing_debug_implementations)]
pub struct Sides<'a, R, F = Links<R>> {
    /// Which entities are alive.
    pub entities: &'a EntityAllocator,
    /// The forward side.
    pub links: &'a mut F,
    /// The reverse side.
    pub sources: &'a mut Sources<R>,
}

/// Whether a forward side holds a link from an entity: what the `Linked`
/// and `Unlinked` query filters ask. Sealed: [`Links`] and [`ManyLinks`].
pub trait HasLinks: crate::seal::Sealed {
    /// `true` if `source` has a link.
    #[doc(hidden)]
    fn has_link(&self, source: Entity) -> bool;
}

impl<R> crate::seal::Sealed for Links<R> {}

impl<R> HasLinks for Links<R> {
    #[inline]
    fn has_link(&self, source: Entity) -> bool {
        self.contains(source)
    }
}

/// A relation's forward side, as the world changes it: [`Links`] (one
/// target a source) or [`ManyLinks`] (`many`). Each link knows its place
/// in its target's list of sources. Not public API.
#[doc(hidden)]
pub trait Forward<R>: Default + HasLinks {
    /// `true` for `many` (several targets a source).
    const MANY: bool;

    /// What `unrelate` hands back: the payload (one target), or every link
    /// taken, `(target, payload)` (`many`).
    type Taken;

    /// The pair number and count of changes (see the module docs).
    fn pairing(&self) -> Pairing;

    /// Them, to set.
    fn pairing_mut(&mut self) -> &mut Pairing;

    /// How many links.
    fn count(&self) -> usize;

    /// Links `source` to `target` (whose list has `source` pushed at
    /// `slot`). Only called when `source` has no link to `target`, and, for
    /// one target a source, no link at all.
    fn insert(&mut self, source: Entity, target: Entity, slot: u32, payload: R);

    /// The payload of the link from `source` to `target`, mutably.
    fn payload_mut(&mut self, source: Entity, target: Entity) -> Option<&mut R>;

    /// Takes the link from `source` to `target` out: its place in the
    /// target's list, and its payload.
    fn take(&mut self, source: Entity, target: Entity) -> Option<(u32, R)>;

    /// Takes one link of `source` out (its only one, or, for `many`, its
    /// last): its target, its place in the target's list, its payload.
    fn take_any(&mut self, source: Entity) -> Option<(Entity, u32, R)>;

    /// `source`'s target (one target a source; `None` for `many`, which
    /// has no `tree`): what the cycle check follows.
    fn up(&self, source: Entity) -> Option<Entity>;

    /// The link from `source` to `target` is now at `slot` in the target's
    /// list.
    fn set_slot(&mut self, source: Entity, target: Entity, slot: u32);

    /// Drops the links for which `keep(source, target)` is `false`.
    fn retain(&mut self, keep: impl FnMut(Entity, Entity) -> bool);

    /// Calls `f(source, target, slot)` for every link, in source order;
    /// `f` returns the link's new slot.
    fn each_mut(&mut self, f: impl FnMut(Entity, Entity) -> u32);

    /// Calls `f(source, target)` for every link, in source order.
    fn each(&self, f: impl FnMut(Entity, Entity));

    /// Every link goes.
    fn clear(&mut self);

    /// Takes every link of `source` out through `unlink`, for `unrelate`.
    fn take_all(sides: &mut Sides<'_, R, Self>, source: Entity) -> Self::Taken;
}

impl<R> Forward<R> for Links<R> {
    const MANY: bool = false;
    type Taken = Option<R>;

    #[inline]
    fn pairing(&self) -> Pairing {
        self.pairing
    }

    #[inline]
    fn pairing_mut(&mut self) -> &mut Pairing {
        &mut self.pairing
    }

    #[inline]
    fn count(&self) -> usize {
        self.len
    }

    #[inline]
    fn insert(&mut self, source: Entity, target: Entity, slot: u32, payload: R) {
        let index = source.index() as usize;
        if self.links.len() <= index {
            self.links.resize_with(index + 1, || None);
        }
        self.links[index] = Some(Link {
            source,
            target,
            slot,
            payload,
        });
        self.len += 1;
    }

    #[inline]
    fn payload_mut(&mut self, source: Entity, target: Entity) -> Option<&mut R> {
        self.links
            .get_mut(source.index() as usize)?
            .as_mut()
            .filter(|link| link.source == source && link.target == target)
            .map(|link| &mut link.payload)
    }

    #[inline]
    fn take(&mut self, source: Entity, target: Entity) -> Option<(u32, R)> {
        let slot = self.links.get_mut(source.index() as usize)?;
        if !slot
            .as_ref()
            .is_some_and(|link| link.source == source && link.target == target)
        {
            return None;
        }
        let link = slot.take()?;
        self.len -= 1;
        Some((link.slot, link.payload))
    }

    #[inline]
    fn take_any(&mut self, source: Entity) -> Option<(Entity, u32, R)> {
        let slot = self.links.get_mut(source.index() as usize)?;
        if !slot.as_ref().is_some_and(|link| link.source == source) {
            return None;
        }
        let link = slot.take()?;
        self.len -= 1;
        Some((link.target, link.slot, link.payload))
    }

    #[inline]
    fn up(&self, source: Entity) -> Option<Entity> {
        self.target(source)
    }

    #[inline]
    fn set_slot(&mut self, source: Entity, _: Entity, slot: u32) {
        if let Some(Some(link)) = self.links.get_mut(source.index() as usize) {
            link.slot = slot;
        }
    }

    fn retain(&mut self, mut keep: impl FnMut(Entity, Entity) -> bool) {
        for slot in &mut self.links {
            if slot.as_ref().is_some_and(|l| !keep(l.source, l.target)) {
                *slot = None;
            }
        }
        self.len = self.links.iter().flatten().count();
    }

    fn each_mut(&mut self, mut f: impl FnMut(Entity, Entity) -> u32) {
        for link in self.links.iter_mut().flatten() {
            link.slot = f(link.source, link.target);
        }
    }

    fn each(&self, mut f: impl FnMut(Entity, Entity)) {
        for link in self.links.iter().flatten() {
            f(link.source, link.target);
        }
    }

    fn clear(&mut self) {
        self.links.clear();
        self.len = 0;
    }

    fn take_all(sides: &mut Sides<'_, R, Self>, source: Entity) -> Option<R> {
        sides.unlink_any(source).map(|(_, payload)| payload)
    }
}

// The forward side of a `many` relation (see `many.rs`).
impl<R> crate::seal::Sealed for ManyLinks<R> {}

impl<R> HasLinks for ManyLinks<R> {
    #[inline]
    fn has_link(&self, source: Entity) -> bool {
        self.contains(source)
    }
}

impl<R> Forward<R> for ManyLinks<R> {
    const MANY: bool = true;
    type Taken = Vec<(Entity, R)>;

    #[inline]
    fn pairing(&self) -> Pairing {
        self.pairing
    }

    #[inline]
    fn pairing_mut(&mut self) -> &mut Pairing {
        &mut self.pairing
    }

    #[inline]
    fn count(&self) -> usize {
        self.len
    }

    #[inline]
    fn insert(&mut self, source: Entity, target: Entity, slot: u32, payload: R) {
        self.push(source, target, slot, payload);
    }

    #[inline]
    fn payload_mut(&mut self, source: Entity, target: Entity) -> Option<&mut R> {
        self.links_mut(source)?
            .iter_mut()
            .find(|link| link.target == target)
            .map(|link| &mut link.payload)
    }

    fn take(&mut self, source: Entity, target: Entity) -> Option<(u32, R)> {
        let links = self.links_mut(source)?;
        let at = links.iter().position(|link| link.target == target)?;
        let link = links.swap_remove(at);
        if links.is_empty() {
            self.out[source.index() as usize] = None;
        }
        self.len -= 1;
        Some((link.slot, link.payload))
    }

    fn take_any(&mut self, source: Entity) -> Option<(Entity, u32, R)> {
        let links = self.links_mut(source)?;
        let link = links.pop()?;
        if links.is_empty() {
            self.out[source.index() as usize] = None;
        }
        self.len -= 1;
        Some((link.target, link.slot, link.payload))
    }

    #[inline]
    fn up(&self, _: Entity) -> Option<Entity> {
        None
    }

    fn set_slot(&mut self, source: Entity, target: Entity, slot: u32) {
        if let Some(link) = self
            .links_mut(source)
            .and_then(|links| links.iter_mut().find(|link| link.target == target))
        {
            link.slot = slot;
        }
    }

    fn retain(&mut self, mut keep: impl FnMut(Entity, Entity) -> bool) {
        for entry in &mut self.out {
            if let Some((source, links)) = entry {
                let source = *source;
                links.retain(|link| keep(source, link.target));
                if links.is_empty() {
                    *entry = None;
                }
            }
        }
        self.len = self.out.iter().flatten().map(|(_, l)| l.len()).sum();
    }

    fn each_mut(&mut self, mut f: impl FnMut(Entity, Entity) -> u32) {
        for (source, links) in self.out.iter_mut().flatten() {
            for link in links {
                link.slot = f(*source, link.target);
            }
        }
    }

    fn each(&self, mut f: impl FnMut(Entity, Entity)) {
        for (source, target, _) in self.iter() {
            f(source, target);
        }
    }

    fn clear(&mut self) {
        self.out.clear();
        self.len = 0;
    }

    fn take_all(sides: &mut Sides<'_, R, Self>, source: Entity) -> Vec<(Entity, R)> {
        let mut taken = Vec::new();
        while let Some(link) = sides.unlink_any(source) {
            taken.push(link);
        }
        taken.reverse();
        taken
    }
}

impl<R, F: Forward<R>> Sides<'_, R, F> {
    /// Brings the two sides in step, if they are not (a field swapped,
    /// taken or cloned): the reverse index is rebuilt from the links, and
    /// the links of entities not alive here dropped.
    #[inline]
    pub(crate) fn in_step(&mut self) {
        if !in_step(self.links, self.sources) {
            self.rebuild();
        }
    }

    #[cold]
    #[inline(never)]
    fn rebuild(&mut self) {
        let entities = self.entities;
        self.links.retain(|source, target| {
            entities.is_alive(source) && entities.is_alive(target) && source != target
        });
        let pairing = self.links.pairing().rebuilt(self.sources.pairing);
        let mut sources = Sources::default();
        self.links.each_mut(|source, target| {
            let list = sources.list_mut(target);
            list.push(source);
            (list.len() - 1) as u32
        });
        *self.links.pairing_mut() = pairing;
        sources.pairing = pairing;
        *self.sources = sources;
    }

    /// Both sides changed: their counts move together.
    #[inline]
    fn changed(&mut self) {
        let pairing = self.links.pairing_mut();
        pairing.changed();
        self.sources.pairing = *pairing;
    }

    /// Relates `source` to `target` with `payload`, if both are alive and
    /// distinct and, in a `tree` relation, the link closes no cycle: what
    /// `World::relate` and an applied `Commands::relate` both do. The
    /// link it replaces, if any, goes (its payload returned): the previous
    /// link of `source` (one target a source), or the link from `source`
    /// to `target` (`many`).
    pub(crate) fn relate(
        &mut self,
        source: Entity,
        payload: R,
        target: Entity,
        tree: bool,
    ) -> Result<Option<R>, RelateError<R>> {
        let error = if !self.entities.is_alive(source) {
            Some(RelateErrorKind::DeadSource)
        } else if !self.entities.is_alive(target) {
            Some(RelateErrorKind::DeadTarget)
        } else if source == target {
            Some(RelateErrorKind::SelfRelation)
        } else {
            None
        };
        if let Some(kind) = error {
            return Err(RelateError::new(kind, payload));
        }
        self.in_step();
        if tree && self.would_cycle(source, target) {
            return Err(RelateError::new(RelateErrorKind::Cycle, payload));
        }
        Ok(self.link(source, payload, target))
    }

    /// Links `source` to `target` with `payload`. The caller checked both
    /// alive, distinct, and the tree rule.
    fn link(&mut self, source: Entity, payload: R, target: Entity) -> Option<R> {
        if let Some(old) = self.links.payload_mut(source, target) {
            // The same link again: only its payload changes.
            return Some(core::mem::replace(old, payload));
        }
        // One target a source: its link to another goes first.
        let old = if F::MANY {
            None
        } else {
            self.unlink_any(source).map(|(_, payload)| payload)
        };
        let list = self.sources.list_mut(target);
        let slot = list.len() as u32;
        list.push(source);
        self.links.insert(source, target, slot, payload);
        self.changed();
        old
    }

    /// Undoes `source`'s links, with both sides in step first: what
    /// `World::unrelate` and an applied `Commands::unrelate` do.
    pub(crate) fn unrelate(&mut self, source: Entity) -> F::Taken {
        self.in_step();
        F::take_all(self, source)
    }

    /// Undoes the link from `source` to `target`, if any, with both sides
    /// in step first: what `World::unrelate_from` does.
    pub(crate) fn unrelate_from(&mut self, source: Entity, target: Entity) -> Option<R> {
        self.in_step();
        self.unlink(source, target)
    }

    /// Unlinks one link of `source` (its only one, or, for `many`, its
    /// last): O(1). Its target and payload, if it had one.
    pub(crate) fn unlink_any(&mut self, source: Entity) -> Option<(Entity, R)> {
        let (target, slot, payload) = self.links.take_any(source)?;
        self.unlisted(target, slot);
        Some((target, payload))
    }

    /// Unlinks every link of `source` (about to be despawned), each
    /// payload dropped once its link is gone.
    pub(crate) fn unlink_source(&mut self, source: Entity) {
        if F::MANY {
            while let Some(link) = self.unlink_any(source) {
                drop(link);
            }
        } else {
            drop(self.unlink_any(source));
        }
    }

    /// Unlinks `source` from `target`: O(1) in the target's list (the last
    /// source takes the place freed). Its payload, if there was a link.
    pub(crate) fn unlink(&mut self, source: Entity, target: Entity) -> Option<R> {
        let (slot, payload) = self.links.take(source, target)?;
        self.unlisted(target, slot);
        Some(payload)
    }

    /// A link to `target`, at `slot` in its list, was taken out of the
    /// forward side: its place in the list goes (the last source moves
    /// into it), and both sides count the change.
    fn unlisted(&mut self, target: Entity, slot: u32) {
        let list = self.sources.list_mut(target);
        let slot = slot as usize;
        list.swap_remove(slot);
        if let Some(&moved) = list.get(slot) {
            self.links.set_slot(moved, target, slot as u32);
        }
        if list.is_empty() {
            self.sources.drop_list(target);
        }
        self.changed();
    }

    /// `true` if linking `source` to `target` closes a cycle: `source` is
    /// `target` or one of its targets, up the chain. O(depth).
    pub(crate) fn would_cycle(&self, source: Entity, target: Entity) -> bool {
        let mut at = Some(target);
        let mut steps = 0usize;
        while let Some(entity) = at {
            if entity == source {
                return true;
            }
            steps += 1;
            if steps > self.links.count() + 1 {
                // A cycle already there (the links of a tree have none).
                return true;
            }
            at = self.links.up(entity);
        }
        false
    }

    /// The sources of `target`.
    #[inline]
    pub(crate) fn sources_of(&self, target: Entity) -> &[Entity] {
        self.sources.of(target)
    }

    /// Every link goes (the world was emptied).
    pub(crate) fn clear(&mut self) {
        self.links.clear();
        self.sources.places.clear();
        self.sources.lists.clear();
        self.changed();
    }
}

/// What `world!` implements for a world and each relation `R` it declares:
/// where the two sides are, and the relation's policy.
#[diagnostic::on_unimplemented(
    message = "`{R}` is not a relation of `{Self}`",
    label = "`{Self}` declares no relation `{R}`",
    note = "declare it in the `world!` of `{Self}`: `relations {{ name: {R} -> reverse_name; }}` (policies in brackets: `[despawn]`, `[deny]`, `[tree]`, `[many]`)"
)]
pub trait Relates<R>: Related {
    /// What happens to a target's sources when it is despawned.
    #[doc(hidden)]
    const POLICY: Policy;
    /// `true` if the relation may form no cycle (`tree`).
    #[doc(hidden)]
    const TREE: bool;
    /// The relation's name, as declared.
    #[doc(hidden)]
    const NAME: &'static str;
    /// The forward side's type: [`Links<R>`], or [`ManyLinks<R>`] for a
    /// `many` relation.
    type Forward: Forward<R>;

    /// The two sides, and the allocator.
    #[doc(hidden)]
    fn sides(&mut self) -> Sides<'_, R, Self::Forward>;

    /// The forward side, to read.
    #[doc(hidden)]
    fn links(&self) -> &Self::Forward;

    /// The reverse side, to read.
    #[doc(hidden)]
    fn sources(&self) -> &Sources<R>;

    /// The queue of `R`'s commands in a command buffer's relation queues.
    #[doc(hidden)]
    fn queue(queued: &mut Self::Queued) -> &mut RelationQueue<R>;
}

/// Why `relate` refused; the payload is handed back.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::RelateErrorKind;
///
/// #[derive(Debug)]
/// struct ChildOf;
/// struct Tag;
/// world! { struct Scene<Tag>; relations { child_of: ChildOf -> children [tree]; } }
///
/// let mut scene = Scene::new();
/// let (a, b) = (scene.spawn(), scene.spawn());
/// scene.relate(b, ChildOf, a).unwrap();
/// let error = scene.relate(a, ChildOf, b).unwrap_err();
/// assert_eq!(error.kind(), RelateErrorKind::Cycle);
/// let _payload: ChildOf = error.into_payload();
/// ```
pub struct RelateError<R> {
    kind: RelateErrorKind,
    payload: R,
}

/// What went wrong in a `relate` (see [`RelateError`]).
///
/// ```
/// use typed_ecs::RelateErrorKind;
/// assert_ne!(RelateErrorKind::Cycle, RelateErrorKind::SelfRelation);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RelateErrorKind {
    /// The source is not alive.
    DeadSource,
    /// The target is not alive.
    DeadTarget,
    /// The source and the target are one entity.
    SelfRelation,
    /// A `tree` relation would close a cycle: the source is the target or
    /// one of its targets, up the chain.
    Cycle,
}

impl<R> RelateError<R> {
    pub(crate) fn new(kind: RelateErrorKind, payload: R) -> Self {
        RelateError { kind, payload }
    }

    /// What went wrong.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # use typed_ecs::RelateErrorKind;
    /// # #[derive(Debug)]
    /// # struct ChildOf;
    /// # struct Tag;
    /// # world! { struct Scene<Tag>; relations { child_of: ChildOf -> children; } }
    /// let mut scene = Scene::new();
    /// let a = scene.spawn();
    /// assert_eq!(scene.relate(a, ChildOf, a).unwrap_err().kind(), RelateErrorKind::SelfRelation);
    /// ```
    pub fn kind(&self) -> RelateErrorKind {
        self.kind
    }

    /// The payload the refused `relate` was given.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # #[derive(Debug, PartialEq)] struct Likes(u8);
    /// # struct Tag;
    /// # world! { struct Town<Tag>; relations { likes: Likes -> liked_by; } }
    /// let mut town = Town::new();
    /// let a = town.spawn();
    /// assert_eq!(town.relate(a, Likes(4), a).unwrap_err().into_payload(), Likes(4));
    /// ```
    pub fn into_payload(self) -> R {
        self.payload
    }
}

impl<R> fmt::Debug for RelateError<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelateError")
            .field("kind", &self.kind)
            .finish()
    }
}

impl<R> fmt::Display for RelateError<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.kind {
            RelateErrorKind::DeadSource => "the source is not alive",
            RelateErrorKind::DeadTarget => "the target is not alive",
            RelateErrorKind::SelfRelation => "an entity cannot be related to itself",
            RelateErrorKind::Cycle => {
                "the link would close a cycle in a `tree` relation (the source is the target or above it)"
            }
        })
    }
}

impl<R> core::error::Error for RelateError<R> {}

/// One relation's queued commands in a [`Commands`](crate::Commands)
/// buffer, in the order queued: a relate (`source`, payload, `target`) or
/// an unrelate (`Some`/`None` payload). Not public API.
#[doc(hidden)]
pub struct RelationQueue<R> {
    ops: alloc::collections::VecDeque<RelationOp<R>>,
}

/// A queued relation command.
pub(crate) enum RelationOp<R> {
    /// `Commands::relate(source, payload, target)`.
    Relate(Entity, R, Entity),
    /// `Commands::unrelate::<R>(source)` (`None`: every link of the
    /// source) and `Commands::unrelate_from::<R>(source, target)`.
    Unrelate(Entity, Option<Entity>),
}

impl<R> Default for RelationQueue<R> {
    fn default() -> Self {
        RelationQueue {
            ops: alloc::collections::VecDeque::new(),
        }
    }
}

impl<R> fmt::Debug for RelationQueue<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelationQueue")
            .field("len", &self.ops.len())
            .finish()
    }
}

impl<R> RelationQueue<R> {
    /// Queues `op` last.
    #[inline]
    pub(crate) fn push(&mut self, op: RelationOp<R>) {
        self.ops.push_back(op);
    }

    /// Takes the first command queued.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<RelationOp<R>> {
        self.ops.pop_front()
    }
}

/// A visitor of every relation of a world (see `Storages::each_relation`).
/// Not public API.
#[doc(hidden)]
pub trait EachRelation<W> {
    /// Visits the relation `R`.
    fn visit<R>(&mut self, world: &mut W)
    where
        W: Relates<R>;
}

/// What `world!` implements for every world: its relations (none for most).
/// Not public API.
#[doc(hidden)]
pub trait Related: Sized {
    /// `true` if the world declares relations.
    const RELATED: bool;
    /// One [`RelationQueue`] per relation: a command buffer's queued
    /// relates and unrelates.
    type Queued: Default;
    /// Calls `visitor.visit::<R>(self)` for each relation `R`, in
    /// declaration order.
    fn each_relation<V: EachRelation<Self>>(&mut self, visitor: &mut V);
}

/// Why a despawn was refused: `entity` is the target of a `deny` relation
/// (`relation`, as declared), and `source` is one of its sources that the
/// despawn would not take with it.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Owns;
/// struct Tag;
/// world! { struct Game<Tag>; relations { owns: Owns -> owned_by [deny]; } }
///
/// let mut game = Game::new();
/// let (player, sword) = (game.spawn(), game.spawn());
/// game.relate(player, Owns, sword).unwrap();
/// let denied = game.try_despawn(sword).unwrap_err();
/// assert_eq!((denied.entity, denied.source, denied.relation), (sword, player, "owns"));
/// assert!(game.is_alive(sword));
/// game.unrelate::<Owns>(player);
/// assert_eq!(game.try_despawn(sword), Ok(true));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Denied {
    /// The entity whose despawn is refused (the one asked, or one the
    /// despawn would have taken with it).
    pub entity: Entity,
    /// A source of `entity` in the `deny` relation.
    pub source: Entity,
    /// The relation, as declared in `world!`.
    pub relation: &'static str,
}

impl fmt::Display for Denied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is the target of `{}` (declared `[deny]`) from {:?}: unrelate its sources first, or despawn them with it",
            self.entity, self.relation, self.source
        )
    }
}

impl core::error::Error for Denied {}

// Saved as the forward side only, `(source, target, payload)` for each
// link in source order; the reverse index is rebuilt (and every link
// checked) when the world that holds it is loaded (see
// `structural::related::loaded`). A loaded side belongs to no pair yet, so
// its world rebuilds the other from it.
#[cfg(feature = "serde")]
impl<R: serde::Serialize> serde::Serialize for Links<R> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(feature = "serde")]
impl<'de, R: serde::Deserialize<'de>> serde::Deserialize<'de> for Links<R> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved: Vec<(Entity, Entity, R)> = serde::Deserialize::deserialize(deserializer)?;
        let mut links = Links::default();
        for (source, target, payload) in saved {
            let index = source.index() as usize;
            if links.links.len() <= index {
                links.links.resize_with(index + 1, || None);
            }
            if links.links[index].is_some() {
                return Err(serde::de::Error::custom(
                    "a relation's saved links name one source index twice",
                ));
            }
            links.links[index] = Some(Link {
                source,
                target,
                slot: 0,
                payload,
            });
            links.len += 1;
        }
        links.pairing = links.pairing.unpaired();
        Ok(links)
    }
}

#[cfg(feature = "serde")]
impl<R> serde::Serialize for Sources<R> {
    /// Nothing: the reverse index is rebuilt from the links on load.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

#[cfg(feature = "serde")]
impl<'de, R> serde::Deserialize<'de> for Sources<R> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <() as serde::Deserialize>::deserialize(deserializer)?;
        Ok(Sources::default())
    }
}

impl<R, F: Forward<R>> Sides<'_, R, F> {
    /// A loaded relation's links checked (each source and target alive and
    /// distinct; no cycle in a `tree`), then the reverse index built:
    /// `Err` says which link is wrong.
    #[cfg(feature = "serde")]
    pub(crate) fn loaded(&mut self, name: &str, tree: bool) -> Result<(), alloc::string::String> {
        use alloc::format;
        let mut error = None;
        let entities = self.entities;
        self.links.each(|source, target| {
            if error.is_some() {
                return;
            }
            if !entities.is_alive(source) || !entities.is_alive(target) {
                error = Some(format!(
                    "relation `{name}`: the link {source:?} -> {target:?} names an entity that is not alive"
                ));
            } else if source == target {
                error = Some(format!("relation `{name}`: {source:?} is related to itself"));
            }
        });
        if tree && error.is_none() {
            self.links.each(|source, target| {
                if error.is_none() && self.would_cycle(source, target) {
                    error = Some(format!(
                        "relation `{name}` is declared `tree`, and its links from {source:?} come back to it"
                    ));
                }
            });
        }
        if let Some(error) = error {
            return Err(error);
        }
        let pairing = self.links.pairing_mut();
        *pairing = pairing.unpaired();
        self.in_step();
        Ok(())
    }
}
