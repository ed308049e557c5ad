//! Saving and loading (feature `serde`).
//!
//! [`Entity`], [`EntityAllocator`] and [`SparseMap<T>`] implement `Serialize`
//! and `Deserialize`, and a `world!` struct whose attributes include
//! `#[derive(Serialize, Deserialize)]` gets impls that save the allocator
//! and every storage, the world's queued changes included: each storage's
//! entry holds its values and the world's queued adds and removals of its
//! component (`pending_adds`, `pending_removes`), and the allocator's entry
//! the queued despawns (`pending_despawns`). An allocator or a storage
//! saved on its own has none (those lists are empty) and loads only so.
//!
//! A world is loaded only if it keeps the world's invariants (see
//! [`World`], "Invariants"), checked by the same code as
//! `assert_invariants`: exactly the states a world can reach load, and
//! malformed or hostile data is a deserialization error, never a world that
//! misbehaves later. For example:
//!
//! * an entity with generation 0, or an index reserved for command buffers;
//! * an allocator whose free list names a missing, alive or repeated slot,
//!   whose dead indices are neither free nor retired (generation `u32::MAX`),
//!   or that has a despawn queued for a handle it never handed out;
//! * a storage holding one entity twice, or two generations of one index;
//! * (whole worlds) a storage or queue holding an entity that is not alive.
//!
//! A storage that is not in step with its world (see
//! [`SparseMap`], "Storages moved between worlds") is saved as the world
//! sees it: without the entries it would drop.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::num::NonZeroU32;

use serde::de::{self, DeserializeOwned, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeStruct, SerializeTuple};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::change::Track;
use crate::entity::{Alive, Slot};
use crate::in_step;
use crate::plumbing::{Column, ColumnAccess, Storages};
use crate::queue::Queue;
use crate::seal::TOKEN;
use crate::{Entity, EntityAllocator, SparseMap};

// ----- Entity: a pair (index, generation) -----

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Entity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut pair = serializer.serialize_tuple(2)?;
        pair.serialize_element(&self.index())?;
        pair.serialize_element(&self.generation())?;
        pair.end()
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for Entity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (index, generation) = <(u32, u32)>::deserialize(deserializer)?;
        let generation = NonZeroU32::new(generation).ok_or_else(|| {
            de::Error::custom(format_args!("entity {index}v0: a generation is never 0"))
        })?;
        Ok(Entity::new(index, generation))
    }
}

// ----- Structs of named fields, written once -----

/// Writes `Deserialize` for a plain struct of named fields (accepting a map
/// or a sequence), so the owned "raw" forms below need no derive macro.
macro_rules! raw_struct {
    ($name:ident $(<$t:ident>)? { $($field:ident: $ty:ty),+ $(,)? }) => {
        struct $name $(<$t>)? { $($field: $ty),+ }

        impl<'de $(, $t: Deserialize<'de>)?> Deserialize<'de> for $name $(<$t>)? {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                const FIELDS: &[&str] = &[$(stringify!($field)),+];

                struct RawVisitor $(<$t>)? (PhantomData<($($t,)?)>);

                impl<'de $(, $t: Deserialize<'de>)?> Visitor<'de> for RawVisitor $(<$t>)? {
                    type Value = $name $(<$t>)?;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "a {} with fields {:?}", stringify!($name), FIELDS)
                    }

                    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                        let mut position = 0;
                        $(
                            let $field: $ty = seq
                                .next_element()?
                                .ok_or_else(|| de::Error::invalid_length(position, &self))?;
                            position += 1;
                        )+
                        let _ = position;
                        Ok($name { $($field),+ })
                    }

                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                        $(let mut $field: Option<$ty> = None;)+
                        while let Some(key) = map.next_key::<String>()? {
                            match key.as_str() {
                                $(stringify!($field) => {
                                    if $field.is_some() {
                                        return Err(de::Error::duplicate_field(stringify!($field)));
                                    }
                                    $field = Some(map.next_value()?);
                                })+
                                other => return Err(de::Error::unknown_field(other, FIELDS)),
                            }
                        }
                        $(let $field = $field.ok_or_else(|| de::Error::missing_field(stringify!($field)))?;)+
                        Ok($name { $($field),+ })
                    }
                }

                deserializer.deserialize_struct(stringify!($name), FIELDS, RawVisitor(PhantomData))
            }
        }
    };
}

// ----- EntityAllocator -----

raw_struct!(RawAllocator {
    slots: Vec<(u32, bool)>,
    free: Vec<u32>,
    pending_despawns: Vec<Entity>,
    limit: u32,
});

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for EntityAllocator {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_allocator(self, &[], serializer)
    }
}

/// Saves `allocator` with `despawns` as its queued despawns.
fn serialize_allocator<S: Serializer>(
    allocator: &EntityAllocator,
    despawns: &[Entity],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    struct Slots<'a>(&'a [Slot]);
    impl Serialize for Slots<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(
                self.0
                    .iter()
                    .map(|slot| (slot.generation.get(), slot.alive)),
            )
        }
    }
    let (slots, free) = allocator.parts();
    let mut state = serializer.serialize_struct("EntityAllocator", 4)?;
    state.serialize_field("slots", &Slots(slots))?;
    state.serialize_field("free", free)?;
    state.serialize_field("pending_despawns", despawns)?;
    state.serialize_field("limit", &allocator.limit())?;
    state.end()
}

/// An allocator as saved, and the despawns queued with it.
fn loaded_allocator(raw: RawAllocator) -> Result<(EntityAllocator, Vec<Entity>), String> {
    let mut slots = Vec::with_capacity(raw.slots.len());
    for (index, (generation, alive)) in raw.slots.into_iter().enumerate() {
        let generation = NonZeroU32::new(generation)
            .ok_or_else(|| alloc::format!("slot {index} has generation 0"))?;
        slots.push(Slot { generation, alive });
    }
    let allocator = EntityAllocator::from_parts(slots, raw.free, raw.limit)?;
    Ok((allocator, raw.pending_despawns))
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for EntityAllocator {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (allocator, despawns) = loaded_allocator(RawAllocator::deserialize(deserializer)?)
            .map_err(de::Error::custom)?;
        if !despawns.is_empty() {
            return Err(de::Error::custom(ALONE_QUEUED));
        }
        Ok(allocator)
    }
}

/// Why an allocator or a storage loaded on its own refuses queued changes.
const ALONE_QUEUED: &str = "queued changes belong to a world: an allocator or a storage saved \
    on its own has none (load the whole world)";

/// A world's allocator and its queued despawns, ready to be saved.
#[derive(Debug)]
pub struct SavedEntities<'a, W: Storages>(&'a W);

/// The allocator of `world`, with its queued despawns, ready to be saved.
pub fn saved_entities<W: Storages>(world: &W) -> SavedEntities<'_, W> {
    SavedEntities(world)
}

impl<W: Storages> Serialize for SavedEntities<'_, W> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let alive = in_step::queued_alive(self.0);
        // Not in step, the despawns are saved as the world would keep them.
        let despawns: Vec<Entity> = W::despawns_ref(&self.0.queued_ref(TOKEN).queues, TOKEN)
            .entities()
            .filter(|&entity| alive.counts(entity))
            .collect();
        serialize_allocator(self.0.allocator(TOKEN), &despawns, serializer)
    }
}

/// A world's allocator as loaded, and its queued despawns.
#[derive(Debug)]
pub struct LoadedEntities {
    allocator: EntityAllocator,
    despawns: Vec<Entity>,
}

impl<'de> Deserialize<'de> for LoadedEntities {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (allocator, despawns) = loaded_allocator(RawAllocator::deserialize(deserializer)?)
            .map_err(de::Error::custom)?;
        Ok(LoadedEntities {
            allocator,
            despawns,
        })
    }
}

impl LoadedEntities {
    /// The allocator, and the despawns to queue once the world is built.
    pub fn into_parts(self) -> (EntityAllocator, Vec<Entity>) {
        (self.allocator, self.despawns)
    }
}

// ----- SparseMap -----

raw_struct!(RawSparseMap<T> {
    values: Vec<(Entity, T)>,
    pending_adds: Vec<(Entity, T)>,
    pending_removes: Vec<Entity>,
});

/// The `(entity, value)` pairs whose entity the filter keeps, serialized
/// without copying.
struct Pairs<'a, T, K>(&'a [Entity], &'a [T], K);

impl<T: Serialize, K: Fn(Entity) -> bool> Serialize for Pairs<'_, T, K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kept = self.0.iter().zip(self.1).filter(|(&e, _)| (self.2)(e));
        serialize_counted(kept, serializer)
    }
}

/// Saves the items of `items` as a sequence of known length (which formats
/// such as postcard need), counting them first.
fn serialize_counted<I, S>(items: I, serializer: S) -> Result<S::Ok, S::Error>
where
    I: Iterator + Clone,
    I::Item: Serialize,
    S: Serializer,
{
    use serde::ser::SerializeSeq;
    let mut seq = serializer.serialize_seq(Some(items.clone().count()))?;
    for item in items {
        seq.serialize_element(&item)?;
    }
    seq.end()
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<T: Serialize, K: Track> Serialize for SparseMap<T, K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_storage(self, |_| true, None, serializer)
    }
}

/// A world's storage of `C`, saved as the world sees it (if it is not in
/// step with the world's allocator, without the values of entities that
/// are not alive), with the world's queued changes of `C`.
pub struct LiveStorage<'a, W: Storages, C> {
    world: &'a W,
    component: PhantomData<fn(C)>,
}

impl<W: Storages, C> fmt::Debug for LiveStorage<'_, W, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LiveStorage")
    }
}

/// `world`'s storage of `C` and its queued changes, ready to be saved.
pub fn live_storage<W: ColumnAccess<C>, C>(world: &W) -> LiveStorage<'_, W, C> {
    LiveStorage {
        world,
        component: PhantomData,
    }
}

impl<W: ColumnAccess<C>, C: Serialize> Serialize for LiveStorage<'_, W, C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let entities = self.world.allocator(TOKEN);
        let storage = self.world.sparse_map();
        let queued = self.world.queued_ref(TOKEN);
        let queue = <W as ColumnAccess<C>>::queue_ref(&queued.queues);
        // What is not in step is saved as the world would keep it.
        let alive = |e| entities.is_alive(e);
        let everything = |_| true;
        let keep_queued: &dyn Fn(Entity) -> bool = match in_step::queued_alive(self.world) {
            Alive::All => &everything,
            Alive::Check(_) => &alive,
        };
        match in_step::alive_in(storage, entities) {
            Alive::All => {
                serialize_storage(storage, everything, Some((queue, keep_queued)), serializer)
            }
            Alive::Check(_) => {
                serialize_storage(storage, alive, Some((queue, keep_queued)), serializer)
            }
        }
    }
}

/// A queue to save, with which of its entities to keep.
type KeptQueue<'a, T> = (&'a Queue<T>, &'a dyn Fn(Entity) -> bool);

/// Saves the values of `storage` whose entity `keep` accepts, and the
/// queued changes of `queue` its filter accepts (none: empty lists).
fn serialize_storage<T: Serialize, K: Track, S: Serializer>(
    storage: &SparseMap<T, K>,
    keep: impl Fn(Entity) -> bool + Copy,
    queue: Option<KeptQueue<'_, T>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    /// The queued adds, in order.
    struct Adds<'a, T>(Option<KeptQueue<'a, T>>);
    impl<T: Serialize> Serialize for Adds<'_, T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            match self.0 {
                Some((queue, keep)) => serialize_counted(
                    queue.entries().0.filter(|&(entity, _)| keep(entity)),
                    serializer,
                ),
                None => serialize_counted(core::iter::empty::<(Entity, &T)>(), serializer),
            }
        }
    }
    let (entities, values) = storage.pairs();
    let removes: Vec<Entity> = queue
        .map(|(queue, keep)| queue.entries().1.filter(|&entity| keep(entity)).collect())
        .unwrap_or_default();
    let mut state = serializer.serialize_struct("SparseMap", 3)?;
    state.serialize_field("values", &Pairs(entities, values, keep))?;
    state.serialize_field("pending_adds", &Adds(queue))?;
    state.serialize_field("pending_removes", &removes)?;
    state.end()
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, T: Deserialize<'de>, K: Track> Deserialize<'de> for SparseMap<T, K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawSparseMap::<T>::deserialize(deserializer)?;
        if !raw.pending_adds.is_empty() || !raw.pending_removes.is_empty() {
            return Err(de::Error::custom(ALONE_QUEUED));
        }
        SparseMap::from_parts(raw.values).map_err(de::Error::custom)
    }
}

/// A world's storage of `C` as loaded, and the world's queued changes of
/// `C` saved with it.
pub struct LoadedColumn<W: Storages, C: Column<W>> {
    storage: Option<SparseMap<C, C::Track>>,
    adds: Vec<(Entity, C)>,
    removes: Vec<Entity>,
}

impl<W: Storages, C: Column<W>> fmt::Debug for LoadedColumn<W, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LoadedColumn")
    }
}

impl<'de, W: Storages, C: Column<W> + Deserialize<'de>> Deserialize<'de> for LoadedColumn<W, C> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawSparseMap::<C>::deserialize(deserializer)?;
        let storage = SparseMap::from_parts(raw.values).map_err(de::Error::custom)?;
        Ok(LoadedColumn {
            storage: Some(storage),
            adds: raw.pending_adds,
            removes: raw.pending_removes,
        })
    }
}

impl<W: Storages, C: Column<W>> LoadedColumn<W, C> {
    /// The storage, for the world being built (its queued changes stay,
    /// for [`load_queued`]).
    pub fn take_storage(&mut self) -> SparseMap<C, C::Track> {
        self.storage.take().unwrap_or_default()
    }
}

/// Queues the changes saved with `column` in `world`'s own queue: its
/// removals, then its adds, each in order. No list may name one entity
/// twice, or two generations of one index.
pub fn load_queued<W: ColumnAccess<C>, C: Column<W>>(
    world: &mut W,
    column: LoadedColumn<W, C>,
) -> Result<(), String> {
    let name = W::COMPONENTS[C::FIELD];
    let queue = <W as ColumnAccess<C>>::queue(&mut world.queued(TOKEN).queues);
    for entity in column.removes {
        queue
            .load_remove(entity)
            .map_err(|problem| alloc::format!("the queued removals of `{name}` {problem}"))?;
    }
    for (entity, value) in column.adds {
        queue
            .load_add(entity, value)
            .map_err(|problem| alloc::format!("the queued adds of `{name}` {problem}"))?;
    }
    Ok(())
}

/// Queues the despawns saved with `world`'s allocator, in order.
pub fn load_despawns<W: Storages>(world: &mut W, despawns: Vec<Entity>) {
    let queue = W::despawns(&mut world.queued(TOKEN).queues, TOKEN);
    for entity in despawns {
        queue.push(entity);
    }
}

// ----- Whole worlds -----

/// What a `world!` with `#[derive(Serialize, Deserialize)]` implements so
/// that [`deserialize_world`] can fill it. Generated; not public API.
pub trait WorldFields: Storages {
    /// `"entities"`, then every storage's field name, in order.
    const SAVED_FIELDS: &'static [&'static str];
    /// One `Option` per field.
    type Partial: Default;
    /// Reads the value of the field named `key` from `map` into `partial`.
    fn read_field<'de, A: MapAccess<'de>>(
        partial: &mut Self::Partial,
        key: &str,
        map: &mut A,
    ) -> Result<(), A::Error>;
    /// Reads every field, in order, from `seq`.
    fn read_fields<'de, A: SeqAccess<'de>>(seq: &mut A) -> Result<Self::Partial, A::Error>;
    /// Checks that every field was read, and that the storages agree with
    /// the allocator; builds the world.
    fn finish(partial: Self::Partial) -> Result<Self, String>;
}

/// Deserializes a world through its [`WorldFields`] impl.
pub fn deserialize_world<'de, D: Deserializer<'de>, W: WorldFields>(
    deserializer: D,
) -> Result<W, D::Error> {
    struct WorldVisitor<W>(PhantomData<W>);

    impl<'de, W: WorldFields> Visitor<'de> for WorldVisitor<W> {
        type Value = W;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(
                f,
                "a `{}` world with fields {:?}",
                W::WORLD,
                W::SAVED_FIELDS
            )
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<W, A::Error> {
            W::finish(W::read_fields(&mut seq)?).map_err(de::Error::custom)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<W, A::Error> {
            let mut partial = W::Partial::default();
            while let Some(key) = map.next_key::<String>()? {
                W::read_field(&mut partial, &key, &mut map)?;
            }
            W::finish(partial).map_err(de::Error::custom)
        }
    }

    deserializer.deserialize_struct(W::WORLD, W::SAVED_FIELDS, WorldVisitor(PhantomData))
}

/// Stores the next map value in `slot`, refusing a field given twice.
pub fn read_once<'de, A: MapAccess<'de>, T: DeserializeOwned>(
    slot: &mut Option<T>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Reads the next sequence element, which must be there.
pub fn read_next<'de, A: SeqAccess<'de>, T: DeserializeOwned>(
    seq: &mut A,
    position: usize,
    world: &'static str,
) -> Result<Option<T>, A::Error> {
    match seq.next_element()? {
        Some(value) => Ok(Some(value)),
        None => Err(de::Error::custom(format_args!(
            "`{world}` data ends after {position} fields"
        ))),
    }
}

/// Takes a field that must have been read.
pub fn required<T>(slot: Option<T>, name: &str, world: &str) -> Result<T, String> {
    slot.ok_or_else(|| alloc::format!("`{world}` data has no `{name}` field"))
}

/// A loaded storage of the world whose allocator is `entities`: stamped as
/// in step with it, so that [`finish_world`]'s check holds it to the rules
/// of a storage in step (every entity it stores or queues is alive).
pub fn loaded_storage<T, K: Track>(
    entities: &EntityAllocator,
    mut storage: SparseMap<T, K>,
) -> SparseMap<T, K> {
    in_step::stamp(&mut storage, entities);
    storage
}

/// Checks a loaded world against the world's invariants (see [`World`](crate::World),
/// "Invariants") and packs its owning groups.
pub fn finish_world<W: Storages>(mut world: W) -> Result<W, String> {
    crate::invariants::check_world(&world)?;
    if W::RELATED {
        crate::structural::related::loaded(&mut world)?;
    }
    crate::structural::loaded(&mut world);
    Ok(world)
}
