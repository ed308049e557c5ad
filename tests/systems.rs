//! Typed systems, resources and stages: each parameter kind, resources
//! through clone, clear and despawn, stages against the same systems one by
//! one, Commands from several systems of a stage, and a panicking member.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use typed_ecs::named;
use typed_ecs::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Pos(i64);
#[derive(Debug, Clone, Copy, PartialEq)]
struct Vel(i64);
#[derive(Debug, Clone, Copy, PartialEq)]
struct Hp(i64);
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tag;

#[derive(Debug, Clone, Default, PartialEq)]
struct Frame(u64);
#[derive(Debug, Clone, Default, PartialEq)]
struct Score(i64);
#[derive(Debug, Clone, Default, PartialEq)]
struct Log(Vec<String>);

world! {
    #[derive(Debug, Clone)]
    struct Game<Pos, Vel, Hp, Tag>;
    resources { frame: Frame, score: Score, log: Log }
    group (Pos, Vel);
}

world! {
    #[derive(Debug)]
    struct Fields {
        pos: Pos,
        hp: Hp,
    }
    resources {
        /// How many frames ran.
        frame: Frame,
    }
}

fn movement(pos: &mut SparseMap<Pos>, vel: &SparseMap<Vel>) {
    join((pos, vel)).for_each(|_, (p, v)| p.0 += v.0);
}

fn poison(hp: &mut SparseMap<Hp>, frame: &Frame) {
    for hp in hp.values_mut() {
        hp.0 -= 1 + (frame.0 % 2) as i64;
    }
}

fn count(frame: &mut Frame) {
    frame.0 += 1;
}

fn reaper(
    hp: &SparseMap<Hp>,
    entities: &EntityAllocator,
    score: &mut Score,
    commands: &mut Commands<Game>,
) {
    for (entity, hp) in hp.iter() {
        if hp.0 <= 0 && entities.is_alive(entity) {
            commands.despawn(entity);
            score.0 += 1;
        }
    }
}

fn spawner(frame: &Frame, commands: &mut Commands<Game>) {
    if frame.0 % 3 == 0 {
        commands.spawn_with((Pos(0), Vel(1), Hp(3)));
    }
}

// Eight parameters, the most a system takes: clippy's limit is seven.
#[allow(clippy::too_many_arguments)]
fn logger(
    log: &mut Log,
    pos: &SparseMap<Pos>,
    hp: &SparseMap<Hp>,
    tag: &SparseMap<Tag>,
    vel: &SparseMap<Vel>,
    frame: &Frame,
    score: &Score,
    entities: &EntityAllocator,
) {
    log.0.push(format!(
        "{} {} {} {} {} {} {}",
        frame.0,
        pos.len(),
        hp.len(),
        tag.len(),
        vel.len(),
        score.0,
        entities.len()
    ));
}

fn populated() -> Game {
    let mut world = Game::new();
    for i in 0..20 {
        world.spawn_with((Pos(i), Vel(i % 3), Hp(i % 7 + 1)));
    }
    world
}

#[test]
fn resources_are_fields_with_defaults_untouched_by_clear_and_despawn() {
    let mut world = Game::new();
    assert_eq!((world.frame.0, world.score.0), (0, 0));
    world.frame.0 = 7;
    world.log.0.push("hello".into());
    let e = world.spawn_with((Pos(1), Hp(1)));
    assert!(world.despawn(e));
    world.spawn_with((Tag,));
    world.clear();
    assert_eq!(world.frame, Frame(7));
    assert_eq!(world.entity_count(), 0);
    let copy = world.clone();
    assert_eq!(copy.log.0, ["hello"]);
    assert!(format!("{copy:?}").contains("Frame(7)"));
    world.assert_invariants();
    assert_eq!(world.entity_count(), 0, "resources are never entities");

    let mut fields = Fields::with_capacity(4);
    fields.frame.0 += 1;
    assert_eq!(fields.frame.0, 1);
}

#[test]
fn every_parameter_kind_reaches_the_right_field() {
    let mut world = populated();
    let mut schedule = Schedule::new();
    schedule
        .add_system(count)
        .add_system(movement)
        .add_system(poison)
        .add_system(reaper)
        .add_system(spawner)
        .add_system(logger)
        .add_sync_point()
        .add_system(|world: &mut Game| world.score.0 *= 10);
    schedule.run(&mut world);
    assert_eq!(world.frame.0, 1);
    // poison took 2 on an odd frame: Hp 1 and 2 died.
    let dead = (0..20).filter(|i| i % 7 < 2).count();
    assert_eq!(world.score.0, dead as i64 * 10);
    assert_eq!(world.entity_count(), 20 - dead);
    assert_eq!(world.log.0, [format!("1 20 20 0 20 {} 20", dead)]);
    world.assert_invariants();
    let reports: Vec<(&str, usize)> = schedule
        .last_reports()
        .map(|(name, report)| (name, report.spawned().len()))
        .collect();
    assert_eq!(reports.len(), 1, "the spawner queued nothing on frame 1");
    assert!(reports[0].0.ends_with("reaper"));
}

#[test]
fn a_stage_gives_the_same_world_as_its_systems_one_by_one() {
    let mut staged = populated();
    let mut sequential = staged.clone();
    let mut a = Schedule::new();
    a.set_parallel_work(Duration::ZERO)
        .add_systems((movement, poison, spawner))
        .add_systems((reaper,))
        .add_sync_point()
        .add_systems((count,))
        .add_systems((named("log", logger),));
    let mut b = Schedule::new();
    b.add_system(movement)
        .add_system(poison)
        .add_system(spawner)
        .add_system(reaper)
        .add_sync_point()
        .add_system(count)
        .add_system(logger);
    for _ in 0..12 {
        a.run(&mut staged);
        b.run(&mut sequential);
        staged.assert_invariants();
    }
    assert_eq!(format!("{staged:?}"), format!("{sequential:?}"));
    assert_eq!(a.names().last(), Some("log"));
    assert_eq!(a.len(), b.len());
}

#[test]
fn commands_of_a_stage_apply_in_member_order_at_the_sync_point() {
    fn first(commands: &mut Commands<Game>, frame: &Frame) {
        let e = commands.spawn_with((Hp(1),));
        commands.add(e, Pos(frame.0 as i64));
    }
    fn second(commands: &mut Commands<Game>, hp: &SparseMap<Hp>) {
        // Adds a Tag to every entity alive now, and one queued spawn.
        for entity in hp.entities() {
            commands.add(*entity, Tag);
        }
        commands.spawn_with((Hp(2),));
    }
    let mut world = Game::new();
    let mut schedule = Schedule::new();
    schedule
        .set_parallel_work(Duration::ZERO)
        .add_systems((first, second))
        .add_sync_point();
    schedule.run(&mut world);
    let spawned: Vec<(&str, Vec<Entity>)> = schedule
        .last_reports()
        .map(|(name, report)| (name, report.spawned().to_vec()))
        .collect();
    assert_eq!(spawned.len(), 2);
    assert!(spawned[0].0.ends_with("first") && spawned[1].0.ends_with("second"));
    // The first system's spawn came first.
    assert_eq!(world.hp.get(spawned[0].1[0]), Some(&Hp(1)));
    assert_eq!(world.hp.get(spawned[1].1[0]), Some(&Hp(2)));
    assert_eq!(world.size::<Tag>(), 0);
    schedule.run(&mut world);
    assert_eq!(
        world.size::<Tag>(),
        2,
        "the second run tags the first run's two"
    );
    world.assert_invariants();
}

#[test]
fn commands_after_the_last_sync_point_are_applied_at_the_end_of_the_run() {
    let mut world = Game::new();
    let mut schedule = Schedule::new();
    schedule
        .add_sync_point()
        .add_system(|commands: &mut Commands<Game>| {
            commands.spawn_with((Tag,));
        })
        .add_system(|world: &mut Game| {
            let e = world.spawn();
            world.add_deferred(e, Tag);
        });
    schedule.run(&mut world);
    assert_eq!(world.entity_count(), 2);
    assert_eq!(
        world.size::<Tag>(),
        1,
        "deferred changes wait for a sync point"
    );
    assert_eq!(schedule.last_reports().count(), 1);
    schedule.run(&mut world);
    assert_eq!(world.size::<Tag>(), 3);
}

#[test]
fn a_panicking_member_leaves_the_world_consistent_and_the_schedule_reusable() {
    fn boom(hp: &mut SparseMap<Hp>, frame: &Frame) {
        if let Some(first) = hp.entities().first().copied() {
            hp.remove(first);
        }
        assert!(frame.0 != 1, "boom on frame 1");
    }
    let mut world = populated();
    let mut schedule = Schedule::new();
    schedule
        .set_parallel_work(Duration::ZERO)
        .add_system(count)
        .add_systems((boom, movement, spawner))
        .add_sync_point();
    let hp_before = world.size::<Hp>();
    let result = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(result.is_err());
    world.assert_invariants();
    assert_eq!(world.size::<Hp>(), hp_before - 1);
    schedule.run(&mut world);
    world.assert_invariants();
    assert_eq!(world.frame.0, 2);
    assert_eq!(world.size::<Hp>(), hp_before - 2);
}

#[test]
fn run_timed_times_each_member_of_a_stage() {
    let mut world = populated();
    let mut schedule = Schedule::new();
    schedule
        .add_systems((named("move", movement), named("poison", poison)))
        .add_sync_point();
    let mut stats = typed_ecs::ScheduleStats::new();
    for _ in 0..3 {
        schedule.run_timed(&mut world, &mut stats);
    }
    let names: Vec<String> = stats.summary().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["move", "poison", "sync point", "frame"]);
    assert!(stats.summary().iter().all(|s| s.samples == 3));
}

#[test]
fn systems_may_keep_state_and_take_nothing() {
    let mut ticks = 0;
    let mut schedule = Schedule::<Game>::new();
    schedule.add_system(move |frame: &mut Frame| {
        ticks += 2;
        frame.0 = ticks;
    });
    schedule.add_system(|| {});
    let mut world = Game::new();
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.frame.0, 4);
}

#[test]
fn a_stage_that_works_long_enough_goes_to_the_pool_and_a_light_one_stays() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    // Which threads ran the members: with `rayon`, a heavy stage's members
    // run inside the pool; a light one's on this (non-pool) thread.
    let me = std::thread::current().id();
    let elsewhere = move || usize::from(std::thread::current().id() != me);
    let pooled = Arc::new(AtomicUsize::new(0));
    let (a, b) = (Arc::clone(&pooled), Arc::clone(&pooled));
    let spin = |d: Duration| {
        let start = std::time::Instant::now();
        while start.elapsed() < d {}
    };
    let mut heavy = Schedule::<Game>::new();
    heavy.add_systems((
        move |_: &mut SparseMap<Pos>| {
            spin(Duration::from_micros(60));
            a.fetch_add(elsewhere(), Ordering::Relaxed);
        },
        move |_: &mut SparseMap<Vel>| {
            spin(Duration::from_micros(60));
            b.fetch_add(elsewhere(), Ordering::Relaxed);
        },
    ));
    let mut world = Game::new();
    heavy.run(&mut world); // measured on this thread
    assert_eq!(pooled.load(Ordering::Relaxed), 0);
    heavy.run(&mut world);
    let expected = if cfg!(feature = "rayon") { 2 } else { 0 };
    assert_eq!(pooled.load(Ordering::Relaxed), expected);

    let light = Arc::new(AtomicUsize::new(0));
    let (c, d) = (Arc::clone(&light), Arc::clone(&light));
    let mut schedule = Schedule::<Game>::new();
    schedule.add_systems((
        move |_: &mut SparseMap<Pos>| {
            c.fetch_add(elsewhere(), Ordering::Relaxed);
        },
        move |_: &mut SparseMap<Vel>| {
            d.fetch_add(elsewhere(), Ordering::Relaxed);
        },
    ));
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    assert_eq!(light.load(Ordering::Relaxed), 0);
}

// ----- Local: a system's own state -----

fn tally(runs: &mut Local<u64>, seen: &mut Local<Vec<u64>>, frame: &Frame) {
    **runs += 1;
    seen.push(frame.0);
}

fn frames_alike(runs: &mut Local<u64>, score: &mut Score) {
    **runs += 10;
    score.0 = **runs as i64;
}

#[test]
fn each_local_belongs_to_one_parameter_of_one_system() {
    let mut world = Game::new();
    let mut schedule = Schedule::new();
    schedule
        .add_system(count)
        // A stage: `Local`s share nothing, so they sit beside any writer.
        .add_systems((tally, frames_alike))
        .add_system(move |runs: &mut Local<u64>, log: &mut Log| {
            **runs += 100;
            log.0.push(format!("{}", **runs));
        })
        // Beside `&mut W`, as a command buffer may be.
        .add_system(|world: &mut Game, last: &mut Local<Option<u64>>| {
            let now = world.frame.0;
            assert_eq!(
                **last,
                now.checked_sub(1).filter(|&f| f > 0),
                "the last run's frame"
            );
            **last = Some(now);
            world.spawn_with((Tag,));
        });
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.score.0, 30, "frames_alike's own counter");
    assert_eq!(
        world.log.0,
        ["100", "200", "300"],
        "the closure's own counter"
    );
    assert_eq!(
        world.size::<Tag>(),
        3,
        "the exclusive system ran each frame"
    );
    // A second schedule's systems start from `Default` again.
    let mut again = Schedule::new();
    again.add_system(frames_alike);
    again.run(&mut world);
    assert_eq!(world.score.0, 10);
}

#[test]
fn a_local_can_be_read_back_through_a_named_system() {
    fn remember(best: &mut Local<i64>, pos: &SparseMap<Pos>, score: &mut Score) {
        for p in pos.values() {
            **best = (**best).max(p.0);
        }
        score.0 = **best;
    }
    let mut world = Game::new();
    let e = world.spawn_with((Pos(4),));
    let mut schedule = Schedule::new();
    schedule.add_system(named("remember", remember));
    schedule.run(&mut world);
    world.pos.get_mut(e).unwrap().0 = 1;
    schedule.run(&mut world);
    assert_eq!(world.score.0, 4, "the best so far, kept between runs");
}
