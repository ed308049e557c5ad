//! The world's invariants (see [`World`](crate::World), "Invariants"), checked by one
//! function: `assert_invariants` panics with what it finds, and loading a
//! saved world returns it as the error.

use alloc::string::String;

use crate::plumbing::{Column, EachStorageRef, Storages};
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
                self.0 = check_storage(world.allocator(TOKEN), name, C::field(world, TOKEN));
            }
        }
    }
    let mut storages = EachChecked(Ok(()));
    world.each_ref(&mut storages, TOKEN);
    storages.0?;
    crate::group::check(world)
}

/// Checks one storage of a world: its own invariant, and, if it is in step
/// with `entities`, that every entity it stores or queues is alive.
fn check_storage<T, K: crate::change::Track>(
    entities: &EntityAllocator,
    name: &str,
    storage: &SparseMap<T, K>,
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
