//! The world's invariants (see [`World`](crate::World), "Invariants"), checked by one
//! function: `assert_invariants` panics with what it finds, and loading a
//! saved world returns it as the error.

use alloc::string::String;

use crate::entity::Alive;
use crate::in_step;
use crate::plumbing::{Column, EachStorageRef, Storages};
use crate::queue::Queue;
use crate::seal::TOKEN;
use crate::{EntityAllocator, SparseMap};

/// Checks the world's invariants, saying which is broken.
pub(crate) fn check_world<W: Storages>(world: &W) -> Result<(), String> {
    world
        .allocator(TOKEN)
        .check()
        .map_err(|problem| alloc::format!("the allocator: {problem}"))?;
    struct EachChecked(Result<(), String>);
    impl<W: Storages> EachStorageRef<W> for EachChecked {
        fn visit<C: Column<W>>(&mut self, world: &W) {
            if self.0.is_ok() {
                let name = W::COMPONENTS[C::FIELD];
                let entities = world.allocator(TOKEN);
                let queued = world.queued_ref(TOKEN);
                let in_step = matches!(in_step::queued_alive(world), Alive::All);
                self.0 = check_storage(entities, name, C::field(world, TOKEN)).and_then(|()| {
                    check_queue(entities, in_step, name, C::queue_ref(&queued.queues, TOKEN))
                });
            }
        }
    }
    let mut storages = EachChecked(Ok(()));
    world.each_ref(&mut storages, TOKEN);
    storages.0?;
    let (entities, queued) = (world.allocator(TOKEN), world.queued_ref(TOKEN));
    let despawns = W::despawns_ref(&queued.queues, TOKEN);
    if matches!(in_step::queued_alive(world), Alive::All) {
        if let Some(never) = despawns.entities().find(|&e| !entities.issued(e)) {
            return Err(alloc::format!(
                "a despawn is queued for entity {never}, which the allocator never handed out"
            ));
        }
    }
    crate::group::check(world)
}

/// Checks the world's queue of one component: its own invariant (one add
/// and one removal at most per entity, indexed), and, if the queue is in
/// step with `entities` (`in_step`), that every entity it names is alive (a
/// despawn cancels the entity's queued changes).
fn check_queue<T>(
    entities: &EntityAllocator,
    in_step: bool,
    name: &str,
    queue: &Queue<T>,
) -> Result<(), String> {
    queue
        .check(name, true)
        .map_err(|problem| alloc::format!("the queued changes of `{name}`: {problem}"))?;
    if !in_step {
        return Ok(());
    }
    let (adds, removes) = queue.entries();
    let dead_add = adds
        .map(|(entity, _)| entity)
        .find(|&e| !entities.is_alive(e));
    if let Some(dead) = dead_add {
        return Err(alloc::format!(
            "the queued changes of `{name}` have a queued add for entity {dead}, which is not alive"
        ));
    }
    if let Some(dead) = removes.into_iter().find(|&e| !entities.is_alive(e)) {
        return Err(alloc::format!(
            "the queued changes of `{name}` have a queued removal for entity {dead}, which is not alive"
        ));
    }
    Ok(())
}

/// Checks one storage of a world: its own invariant, and, if it is in step
/// with `entities`, that every entity it stores is alive.
fn check_storage<T, K: crate::change::Track>(
    entities: &EntityAllocator,
    name: &str,
    storage: &SparseMap<T, K>,
) -> Result<(), String> {
    storage
        .check()
        .map_err(|problem| alloc::format!("the `{name}` storage: {problem}"))?;
    if matches!(in_step::alive_in(storage, entities), Alive::All) {
        if let Some(&dead) = storage
            .entities()
            .iter()
            .find(|&&entity| !entities.is_alive(entity))
        {
            return Err(alloc::format!(
                "the `{name}` storage holds entity {dead}, which is not alive"
            ));
        }
    }
    Ok(())
}
