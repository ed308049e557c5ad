//! The comparison under criterion: one benchmark group per scenario, every
//! implementation side by side, running exactly the code the report binary
//! times (`typed_ecs_benches::scenarios`).
//!
//! ```text
//! cargo bench -p typed_ecs_benches --bench compare                  # everything
//! cargo bench -p typed_ecs_benches --bench compare -- simple_iter   # one group
//! cargo bench -p typed_ecs_benches --bench compare -- 'changed_|simple_iter_tracked'
//! cargo bench -p typed_ecs_benches --bench compare -- game_frame
//! cargo bench -p typed_ecs_benches --features bevy_multi_threaded --bench compare -- stage
//! ```
//!
//! The third runs the change-detection groups (`changed_iter`,
//! `changed_frame`, `simple_iter_tracked`, `get_mut_tracked`); the fourth
//! the whole game frame (`game_frame`: one run is one frame of a state that persists, so
//! criterion's samples are later and later frames of one game, whose
//! populations stay level; the `game_frame` binary times each system too). The last runs the stage groups
//! (`parallel_stage`, `stage_overhead`) with bevy's multi-threaded executor
//! among them; without the feature they run without it. Don't run the other
//! groups with the feature: bevy's `par_iter_mut` in `heavy_compute_par`
//! would need a task pool it does not set up.
//!
//! HTML reports land in `target/criterion/` (or under `$CARGO_TARGET_DIR`).

#![forbid(unsafe_code)]

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use std::time::{Duration, Instant};
use typed_ecs_benches::scenarios::{
    add_backwards, add_remove, changed_iter, deferred_sync, despawn_churn, events,
    events_many_types, follow_target, fragmented_iter, game_frame, get_mut_tracked, heavy_compute,
    hooks, parallel_stage, random_get, random_get_many, simple_insert, simple_iter, sparse_spread,
    stage_overhead,
};
use typed_ecs_benches::{short_size, Scenario};

/// One group: every implementation of `scenario` at each of its sizes.
/// Setup is never timed: states that survive their run are set up once;
/// states a run consumes are set up per run with `iter_batched_ref`. An
/// instance's untimed `prepare` before each run stays off the clock too
/// (`iter_custom`, timing each run on its own).
fn group(c: &mut Criterion, scenario: &Scenario) {
    let mut group = c.benchmark_group(scenario.name);
    for &size in scenario.sizes {
        for imp in scenario.impls {
            let id = if scenario.sizes.len() > 1 {
                BenchmarkId::new(imp.name, short_size(size))
            } else {
                BenchmarkId::from_parameter(imp.name)
            };
            if scenario.fresh_state {
                group.bench_function(id, |b| {
                    b.iter_batched_ref(
                        || {
                            let mut instance = (imp.setup)(size);
                            instance.prepare();
                            instance
                        },
                        |instance| instance.run(),
                        BatchSize::LargeInput,
                    )
                });
            } else {
                let mut instance = (imp.setup)(size);
                if instance.prepares() {
                    group.bench_function(id, |b| {
                        b.iter_custom(|iters| {
                            let mut elapsed = Duration::ZERO;
                            for _ in 0..iters {
                                instance.prepare();
                                let start = Instant::now();
                                instance.run();
                                elapsed += start.elapsed();
                            }
                            elapsed
                        })
                    });
                } else {
                    group.bench_function(id, |b| b.iter(|| instance.run()));
                }
            }
        }
    }
    group.finish();
}

fn bench_simple_insert(c: &mut Criterion) {
    group(c, &simple_insert::SCENARIO);
}

fn bench_simple_iter(c: &mut Criterion) {
    group(c, &simple_iter::SCENARIO);
}

fn bench_fragmented_iter(c: &mut Criterion) {
    group(c, &fragmented_iter::SCENARIO);
}

fn bench_heavy_compute(c: &mut Criterion) {
    group(c, &heavy_compute::SCENARIO);
}

fn bench_heavy_compute_par(c: &mut Criterion) {
    group(c, &heavy_compute::SCENARIO_PAR);
}

fn bench_add_remove(c: &mut Criterion) {
    group(c, &add_remove::SCENARIO);
}

fn bench_add_backwards(c: &mut Criterion) {
    group(c, &add_backwards::SCENARIO);
}

fn bench_random_get(c: &mut Criterion) {
    group(c, &random_get::SCENARIO);
}

fn bench_random_get_many(c: &mut Criterion) {
    group(c, &random_get_many::SCENARIO);
}

fn bench_follow_target(c: &mut Criterion) {
    group(c, &follow_target::SCENARIO);
}

fn bench_despawn_churn(c: &mut Criterion) {
    group(c, &despawn_churn::SCENARIO);
}

fn bench_despawn_churn_batch(c: &mut Criterion) {
    group(c, &despawn_churn::SCENARIO_BATCH);
}

fn bench_deferred_sync(c: &mut Criterion) {
    group(c, &deferred_sync::SCENARIO);
}

fn bench_hooks(c: &mut Criterion) {
    group(c, &hooks::SCENARIO);
    group(c, &hooks::SCENARIO_BATCH);
}

fn bench_events(c: &mut Criterion) {
    group(c, &events::SCENARIO);
    group(c, &events_many_types::SCENARIO);
}

fn bench_sparse_spread(c: &mut Criterion) {
    group(c, &sparse_spread::SCENARIO);
}

fn bench_scaling(c: &mut Criterion) {
    group(c, &simple_iter::SCENARIO_SCALING);
}

fn bench_changed_iter(c: &mut Criterion) {
    group(c, &changed_iter::SCENARIO);
}

fn bench_changed_frame(c: &mut Criterion) {
    group(c, &changed_iter::SCENARIO_FRAME);
}

fn bench_simple_iter_tracked(c: &mut Criterion) {
    group(c, &changed_iter::SCENARIO_TRACKED);
}

fn bench_get_mut_tracked(c: &mut Criterion) {
    group(c, &get_mut_tracked::SCENARIO);
}

fn bench_parallel_stage(c: &mut Criterion) {
    group(c, &parallel_stage::SCENARIO);
}

fn bench_stage_overhead(c: &mut Criterion) {
    group(c, &stage_overhead::SCENARIO);
}

fn bench_game_frame(c: &mut Criterion) {
    group(c, &game_frame::SCENARIO);
}

criterion_group!(
    benches,
    bench_simple_insert,
    bench_simple_iter,
    bench_fragmented_iter,
    bench_heavy_compute,
    bench_heavy_compute_par,
    bench_add_remove,
    bench_add_backwards,
    bench_random_get,
    bench_random_get_many,
    bench_follow_target,
    bench_despawn_churn,
    bench_despawn_churn_batch,
    bench_deferred_sync,
    bench_hooks,
    bench_events,
    bench_sparse_spread,
    bench_scaling,
    bench_changed_iter,
    bench_changed_frame,
    bench_simple_iter_tracked,
    bench_get_mut_tracked,
    bench_parallel_stage,
    bench_stage_overhead,
    bench_game_frame,
);
criterion_main!(benches);
