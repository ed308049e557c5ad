//! The forward side of a `many` relation: each source's targets, each
//! link with its payload and its place in its target's list of sources.

use alloc::vec::Vec;
use core::fmt;

use super::pairing::Pairing;
use crate::Entity;

/// One link of a source.
#[derive(Clone)]
pub(super) struct ManyLink<R> {
    pub(super) target: Entity,
    /// Its place in the target's list of sources.
    pub(super) slot: u32,
    pub(super) payload: R,
}

/// The forward side of a `many` relation `R` (`relations { likes: Likes ->
/// liked_by [many]; }`): each source's targets, any number, and each
/// link's payload. A field of the world, read here, changed only by the
/// world (`relate`, `unrelate`, `unrelate_from`, despawn); its reverse
/// index is a [`Sources<R>`](super::Sources), as for one target a source.
///
/// Relating a source to a target it already has replaces the payload.
/// Unlinking is O(1) in the target's list, and a search of the source's
/// own targets (a few, in most games).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// #[derive(Debug, PartialEq)]
/// struct Likes(u8);
/// struct Name(&'static str);
/// world! {
///     struct Town<Name>;
///     relations { likes: Likes -> liked_by [many]; }
/// }
///
/// let mut town = Town::new();
/// let ann = town.spawn_with((Name("ann"),));
/// let bob = town.spawn_with((Name("bob"),));
/// let cat = town.spawn_with((Name("cat"),));
/// town.relate(ann, Likes(3), bob).unwrap();
/// town.relate(ann, Likes(5), cat).unwrap();
/// town.relate(bob, Likes(1), cat).unwrap();
/// assert_eq!(town.likes.targets(ann).collect::<Vec<_>>(), [bob, cat]);
/// assert_eq!(town.likes.get(ann, cat), Some(&Likes(5)));
/// assert_eq!(town.liked_by.of(cat).len(), 2);
/// town.despawn(cat);
/// assert_eq!(town.likes.targets(ann).collect::<Vec<_>>(), [bob]);
/// ```
pub struct ManyLinks<R> {
    /// By source index: the source's handle and its links.
    pub(super) out: Vec<Option<(Entity, Vec<ManyLink<R>>)>>,
    pub(super) len: usize,
    pub(super) pairing: Pairing,
}

impl<R> Default for ManyLinks<R> {
    fn default() -> Self {
        ManyLinks {
            out: Vec::new(),
            len: 0,
            pairing: Pairing::default(),
        }
    }
}

impl<R: Clone> Clone for ManyLinks<R> {
    /// A copy of the links, as another world's (a new pair): the world it
    /// is put in rebuilds its reverse index from it.
    fn clone(&self) -> Self {
        ManyLinks {
            out: self.out.clone(),
            len: self.len,
            pairing: self.pairing.unpaired(),
        }
    }
}

impl<R> fmt::Debug for ManyLinks<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|(s, t, _)| (s, t)))
            .finish()
    }
}

impl<R> ManyLinks<R> {
    /// `source`'s links, if it has any.
    #[inline]
    pub(super) fn links(&self, source: Entity) -> &[ManyLink<R>] {
        match self.out.get(source.index() as usize) {
            Some(Some((owner, links))) if *owner == source => links,
            _ => &[],
        }
    }

    /// `source`'s links, mutably, if it has any.
    #[inline]
    pub(super) fn links_mut(&mut self, source: Entity) -> Option<&mut Vec<ManyLink<R>>> {
        match self.out.get_mut(source.index() as usize) {
            Some(Some((owner, links))) if *owner == source => Some(links),
            _ => None,
        }
    }

    /// Adds the link from `source` to `target` (at `slot` in the target's
    /// list); the caller knows there is none.
    pub(super) fn push(&mut self, source: Entity, target: Entity, slot: u32, payload: R) {
        let link = ManyLink {
            target,
            slot,
            payload,
        };
        match self.links_mut(source) {
            Some(links) => links.push(link),
            None => {
                let index = source.index() as usize;
                if self.out.len() <= index {
                    self.out.resize_with(index + 1, || None);
                }
                self.out[index] = Some((source, Vec::from([link])));
            }
        }
        self.len += 1;
    }

    /// `source`'s targets, in the order linked (an unlink moves the last
    /// into the place it frees).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Likes;
    /// # struct Tag;
    /// # world! { struct Town<Tag>; relations { likes: Likes -> liked_by [many]; } }
    /// let mut town = Town::new();
    /// let (a, b, c) = (town.spawn(), town.spawn(), town.spawn());
    /// town.relate(a, Likes, b).unwrap();
    /// town.relate(a, Likes, c).unwrap();
    /// assert_eq!(town.likes.targets(a).count(), 2);
    /// assert_eq!(town.likes.targets(b).count(), 0);
    /// ```
    #[inline]
    pub fn targets(&self, source: Entity) -> impl Iterator<Item = Entity> + '_ {
        self.links(source).iter().map(|link| link.target)
    }

    /// The payload of the link from `source` to `target`, if there is one.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Likes(u8);
    /// # struct Tag;
    /// # world! { struct Town<Tag>; relations { likes: Likes -> liked_by [many]; } }
    /// let mut town = Town::new();
    /// let (a, b) = (town.spawn(), town.spawn());
    /// town.relate(a, Likes(9), b).unwrap();
    /// assert_eq!(town.likes.get(a, b).map(|l| l.0), Some(9));
    /// assert!(town.likes.get(b, a).is_none());
    /// ```
    #[inline]
    pub fn get(&self, source: Entity, target: Entity) -> Option<&R> {
        self.links(source)
            .iter()
            .find(|link| link.target == target)
            .map(|link| &link.payload)
    }

    /// `true` if `source` has at least one link.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Likes;
    /// # struct Tag;
    /// # world! { struct Town<Tag>; relations { likes: Likes -> liked_by [many]; } }
    /// let mut town = Town::new();
    /// let (a, b) = (town.spawn(), town.spawn());
    /// town.relate(a, Likes, b).unwrap();
    /// assert!(town.likes.contains(a) && !town.likes.contains(b));
    /// ```
    #[inline]
    pub fn contains(&self, source: Entity) -> bool {
        !self.links(source).is_empty()
    }

    /// How many links.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Likes;
    /// # struct Tag;
    /// # world! { struct Town<Tag>; relations { likes: Likes -> liked_by [many]; } }
    /// let mut town = Town::new();
    /// let (a, b, c) = (town.spawn(), town.spawn(), town.spawn());
    /// town.relate(a, Likes, b).unwrap();
    /// town.relate(a, Likes, c).unwrap();
    /// assert_eq!(town.likes.len(), 2);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` if there is no link.
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Likes;
    /// # struct Tag;
    /// # world! { struct Town<Tag>; relations { likes: Likes -> liked_by [many]; } }
    /// assert!(Town::new().likes.is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every link: `(source, target, payload)`, in source index order, each
    /// source's in the order of [`targets`](Self::targets).
    ///
    /// ```
    /// # use typed_ecs::prelude::*;
    /// # struct Likes;
    /// # struct Tag;
    /// # world! { struct Town<Tag>; relations { likes: Likes -> liked_by [many]; } }
    /// let mut town = Town::new();
    /// let (a, b, c) = (town.spawn(), town.spawn(), town.spawn());
    /// town.relate(a, Likes, b).unwrap();
    /// town.relate(c, Likes, b).unwrap();
    /// let links: Vec<(Entity, Entity)> = town.likes.iter().map(|(s, t, _)| (s, t)).collect();
    /// assert_eq!(links, [(a, b), (c, b)]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (Entity, Entity, &R)> + '_ {
        self.out.iter().flatten().flat_map(|(source, links)| {
            links
                .iter()
                .map(move |link| (*source, link.target, &link.payload))
        })
    }
}

// Saved as the links, `(source, target, payload)`, in source order; the
// reverse index is rebuilt (and every link checked) on load.
#[cfg(feature = "serde")]
impl<R: serde::Serialize> serde::Serialize for ManyLinks<R> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(feature = "serde")]
impl<'de, R: serde::Deserialize<'de>> serde::Deserialize<'de> for ManyLinks<R> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved: Vec<(Entity, Entity, R)> = serde::Deserialize::deserialize(deserializer)?;
        let mut links = ManyLinks::default();
        for (source, target, payload) in saved {
            let index = source.index() as usize;
            if let Some(Some((owner, _))) = links.out.get(index) {
                if *owner != source {
                    return Err(serde::de::Error::custom(
                        "a relation's saved links name two sources of one index",
                    ));
                }
            }
            if links.get(source, target).is_some() {
                return Err(serde::de::Error::custom(
                    "a relation's saved links name one link twice",
                ));
            }
            links.push(source, target, 0, payload);
        }
        links.pairing = links.pairing.unpaired();
        Ok(links)
    }
}
