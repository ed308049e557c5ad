//! One module per scenario; in each, one submodule per implementation.

pub mod add_backwards;
pub mod add_remove;
pub mod changed_iter;
pub mod commands_frame;
pub mod deferred_sync;
pub mod despawn_churn;
pub mod events;
pub mod events_apart;
pub mod events_many_types;
pub mod fixed_costs;
pub mod follow_target;
pub mod fragmented_iter;
pub mod game_frame;
pub mod get_mut_tracked;
pub mod heavy_compute;
pub mod hierarchy;
pub mod hooks;
pub mod parallel_stage;
pub mod random_get;
pub mod random_get_many;
pub mod simple_insert;
pub mod simple_iter;
pub mod sparse_spread;
pub mod stage_overhead;

/// Sums `f` over `items` in `f64`.
pub(crate) fn sum<T>(items: impl IntoIterator<Item = T>, f: impl Fn(T) -> f32) -> f64 {
    items.into_iter().map(|item| f64::from(f(item))).sum()
}

/// The number of entities the benchmark spawned in a bevy world and that
/// are still alive: `Entities::len` also counts reserved ones, and a new
/// bevy world already holds entities of its own, which this subtracts.
pub(crate) fn bevy_alive(world: &bevy_ecs::world::World) -> usize {
    let count = |world: &bevy_ecs::world::World| {
        world
            .try_query::<bevy_ecs::entity::Entity>()
            .map_or(0, |mut q| q.iter(world).count())
    };
    count(world) - count(&bevy_ecs::world::World::new())
}
