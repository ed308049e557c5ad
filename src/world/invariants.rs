//! The world's invariants (see [`World`], "Invariants"), checked by one
//! function: `assert_invariants` panics with what it finds, and loading a
//! saved world returns it as the error.

use alloc::string::String;

use super::storages::EachStorageRef;
use crate::{Component, EntityAllocator, SparseMap, World};

/// Checks the world's invariants, saying which is broken.
pub(crate) fn check_world<W: World>(world: &W) -> Result<(), String> {
    world
        .allocator()
        .check()
        .map_err(|problem| alloc::format!("the allocator: {problem}"))?;
    struct Storages(Result<(), String>);
    impl<W: World> EachStorageRef<W> for Storages {
        fn visit<C: Component<W>>(&mut self, world: &W) {
            if self.0.is_ok() {
                let name = W::COMPONENT_NAMES[C::INDEX];
                self.0 = check_storage(world.allocator(), name, C::storage(world));
            }
        }
    }
    let mut storages = Storages(Ok(()));
    world.each_ref(&mut storages);
    storages.0?;
    crate::group::check(world)
}

/// Checks one storage of a world: its own invariant, and, if it is in step
/// with `entities`, that every entity it stores or queues is alive.
fn check_storage<T>(
    entities: &EntityAllocator,
    name: &str,
    storage: &SparseMap<T>,
) -> Result<(), String> {
    storage
        .check()
        .map_err(|problem| alloc::format!("the `{name}` storage: {problem}"))?;
    if storage.is_synced(entities.stamp()) {
        if let Some((what, dead)) = storage
            .all_entries()
            .find(|&(_, entity)| !entities.is_alive(entity))
        {
            return Err(alloc::format!(
                "the `{name}` storage {what} entity {dead}, which is not alive"
            ));
        }
    }
    Ok(())
}
