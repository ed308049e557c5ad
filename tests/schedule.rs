//! `Schedule`: named systems, default names, sync points, `run_timed` and
//! `ScheduleStats`, and systems that use `query_mut` and `Commands`.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use typed_ecs::prelude::*;
use typed_ecs::{ScheduleStats, StepSummary};

#[derive(Debug, Clone, Copy, PartialEq)]
struct Pos(i64);

#[derive(Debug, Clone, Copy, PartialEq)]
struct Vel(i64);

#[derive(Debug, Clone, Copy, PartialEq)]
struct Life(u32);

#[derive(Debug, Clone, Copy, PartialEq)]
struct Marked(u32);

world! {
    struct Game<Pos, Vel, Life, Marked>;
}

fn movement(world: &mut Game) {
    world
        .query_mut::<(&mut Pos, &Vel)>()
        .for_each(|_, (pos, vel)| pos.0 += vel.0);
}

fn idle(_world: &mut Game) {}

fn names(schedule: &Schedule<Game>) -> Vec<String> {
    schedule.names().map(str::to_owned).collect()
}

#[test]
fn names_default_and_chosen() {
    let mut schedule = Schedule::<Game>::new();
    assert!(schedule.is_empty());
    schedule
        .add_system(movement)
        .add_system_named("physics", movement)
        .add_system_named(String::from("owned name"), idle)
        .add_sync_point()
        .add_system(idle)
        .add_system(|_: &mut Game| {});
    assert_eq!(schedule.len(), 6);
    assert!(!schedule.is_empty());
    let names = names(&schedule);
    // A function's name without its module path, a closure's as the
    // function it is written in.
    assert_eq!(names[0], "movement");
    assert_eq!(names[1], "physics");
    assert_eq!(names[2], "owned name");
    assert_eq!(names[3], "sync point");
    assert_eq!(names[4], "idle");
    assert_eq!(names[5], "names_default_and_chosen::{{closure}}");
    // Debug lists the names in order.
    let debug = format!("{schedule:?}");
    assert!(debug.contains("\"physics\"") && debug.contains("\"sync point\""));
    assert!(debug.find("physics").unwrap() < debug.find("owned name").unwrap());
}

/// Checks the shape of one summary.
#[track_caller]
fn check_summary(s: &StepSummary, name: &str, samples: usize) {
    assert_eq!(s.name, name);
    assert_eq!(s.samples, samples, "{name}");
    assert!(s.min <= s.median && s.median <= s.max, "{s:?}");
    assert!(s.min <= s.last && s.last <= s.max, "{s:?}");
}

#[test]
fn default_names_are_short_and_told_apart() {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add_system(movement)
        .add_system(|_: &mut Game| {})
        .add_systems((|_: &SparseMap<Pos>| {}, |_: &SparseMap<Vel>| {}))
        .add_system_if(movement, |_: &Game| true)
        .add_system_named("movement#2", idle)
        .add_system(movement);
    assert_eq!(
        names(&schedule),
        [
            "movement",
            "default_names_are_short_and_told_apart::{{closure}}",
            "default_names_are_short_and_told_apart::{{closure}}#2",
            "default_names_are_short_and_told_apart::{{closure}}#3",
            "movement#2",
            // A name given by hand that is taken is told apart too.
            "movement#2#2",
            "movement#3",
        ]
    );
}

#[test]
fn run_timed_records_every_step_and_the_frame() {
    let mut world = Game::new();
    world.spawn_with((Pos(0), Vel(1)));
    let mut schedule = Schedule::new();
    schedule
        .add_system_named("move", movement)
        .add_system_named("sleep", |_: &mut Game| {
            std::thread::sleep(Duration::from_millis(2))
        })
        .add_sync_point()
        .add_system(idle);

    let mut stats = ScheduleStats::new();
    assert_eq!(stats.frames(), 0);
    assert!(stats.summary().is_empty());
    for _ in 0..5 {
        schedule.run_timed(&mut world, &mut stats);
    }
    assert_eq!(stats.frames(), 5);
    // The systems really ran, once per frame.
    assert_eq!(world.pos.values(), [Pos(5)]);

    let summary = stats.summary();
    assert_eq!(summary.len(), schedule.len() + 1);
    let step_names = names(&schedule);
    for (s, name) in summary.iter().zip(&step_names) {
        check_summary(s, name, 5);
    }
    let frame = summary.last().unwrap();
    check_summary(frame, "frame", 5);
    // The sleeping system takes at least its sleep, every frame.
    assert!(
        summary[1].min >= Duration::from_millis(2),
        "{:?}",
        summary[1]
    );
    // A frame encloses its steps.
    let steps_last: Duration = summary[..summary.len() - 1].iter().map(|s| s.last).sum();
    assert!(frame.last >= steps_last, "{frame:?} vs {steps_last:?}");
    assert!(frame.min >= Duration::from_millis(2));

    // Display: a header and a row per step, and the frame.
    let text = stats.to_string();
    for word in [
        "step",
        "min",
        "median",
        "max",
        "frame",
        "move",
        "sleep",
        "sync point",
    ] {
        assert!(text.contains(word), "{word} missing from\n{text}");
    }
    assert!(text.contains(&step_names[3]), "{text}");
    assert_eq!(text.lines().count(), 1 + summary.len(), "{text}");
}

#[test]
fn window_limits_samples_but_not_frames() {
    let mut world = Game::new();
    let mut schedule = Schedule::new();
    schedule
        .add_system_named("a", idle)
        .add_system_named("b", idle);
    let mut stats = ScheduleStats::with_window(3);
    for frames in 1..=10u64 {
        schedule.run_timed(&mut world, &mut stats);
        assert_eq!(stats.frames(), frames);
        let samples = (frames as usize).min(3);
        let summary = stats.summary();
        check_summary(&summary[0], "a", samples);
        check_summary(&summary[1], "b", samples);
        check_summary(&summary[2], "frame", samples);
    }
    // A window of 0 keeps 1.
    let mut stats = ScheduleStats::with_window(0);
    schedule.run_timed(&mut world, &mut stats);
    schedule.run_timed(&mut world, &mut stats);
    assert_eq!(stats.summary()[0].samples, 1);
    assert_eq!(stats.frames(), 2);
}

#[test]
fn renaming_or_adding_a_step_resets_its_samples() {
    let mut world = Game::new();
    let mut first = Schedule::new();
    first
        .add_system_named("a", idle)
        .add_system_named("b", idle);
    let mut stats = ScheduleStats::new();
    for _ in 0..4 {
        first.run_timed(&mut world, &mut stats);
    }
    let samples = |stats: &ScheduleStats| -> Vec<(String, usize)> {
        stats
            .summary()
            .into_iter()
            .map(|s| (s.name, s.samples))
            .collect()
    };
    let owned = |list: &[(&str, usize)]| -> Vec<(String, usize)> {
        list.iter().map(|&(n, s)| (n.to_owned(), s)).collect()
    };
    assert_eq!(samples(&stats), owned(&[("a", 4), ("b", 4), ("frame", 4)]));

    // Same position, another name: that step starts afresh.
    let mut renamed = Schedule::new();
    renamed
        .add_system_named("a", idle)
        .add_system_named("c", idle);
    renamed.run_timed(&mut world, &mut stats);
    assert_eq!(samples(&stats), owned(&[("a", 5), ("c", 1), ("frame", 5)]));

    // Back to the first schedule, with a step added: b restarts (c was in
    // its place), d is new, a keeps counting.
    first.add_system_named("d", idle);
    first.run_timed(&mut world, &mut stats);
    first.run_timed(&mut world, &mut stats);
    assert_eq!(
        samples(&stats),
        owned(&[("a", 7), ("b", 2), ("d", 2), ("frame", 7)])
    );

    // A shorter schedule drops the steps past its end.
    let mut short = Schedule::new();
    short.add_system_named("a", idle);
    short.run_timed(&mut world, &mut stats);
    assert_eq!(samples(&stats), owned(&[("a", 8), ("frame", 8)]));
    assert_eq!(stats.frames(), 8);
}

/// What the observer system saw each frame: (entities, movers, marked).
type Log = Rc<RefCell<Vec<(usize, usize, usize)>>>;

/// Ten movers; mover `i` has velocity `i` and lives `i` frames. Each frame:
/// move; age, and through a `Commands` buffer despawn the expired and spawn a
/// marker in their place; mark (deferred, applied at the sync point) movers
/// past 20; then, after the sync point, observe.
fn game_schedule(log: &Log) -> Schedule<Game> {
    let mut schedule = Schedule::new();
    let mut commands = Commands::new(); // kept by the system between frames
    let log = Rc::clone(log);
    schedule
        .add_system_named("move", movement)
        .add_system_named("age", move |world: &mut Game| {
            assert!(commands.is_empty());
            for (e, life) in world.query_mut::<&mut Life>() {
                life.0 -= 1;
                if life.0 == 0 {
                    commands.despawn(e);
                    let marker = commands.spawn();
                    commands.add(marker, Marked(e.index()));
                }
            }
            let report = world.apply(&mut commands);
            assert!(report.is_clean(), "{report:?}");
        })
        .add_system_named("mark", |world: &mut Game| {
            let far: Vec<Entity> = world
                .query::<(&Pos, Without<Marked>)>()
                .filter(|(_, (pos, ()))| pos.0 > 20)
                .map(|(e, _)| e)
                .collect();
            for e in far {
                world.add_deferred(e, Marked(0));
            }
            // Not yet: the sync point applies it.
            assert!(world
                .query::<(&Pos, With<Marked>)>()
                .all(|(_, (pos, ()))| pos.0 > 20));
        })
        .add_sync_point()
        .add_system_named("observe", move |world: &mut Game| {
            log.borrow_mut().push((
                world.entity_count(),
                world.size::<Pos>(),
                world.size::<Marked>(),
            ));
        });
    schedule
}

#[test]
fn systems_with_query_mut_commands_and_sync_points() {
    let log = Log::default();
    let mut schedule = game_schedule(&log);
    let mut world = Game::new();
    for i in 1..=10 {
        world.spawn_with((Pos(0), Vel(i), Life(i as u32)));
    }
    let mut stats = ScheduleStats::with_window(4);
    for frame in 0..12 {
        if frame % 2 == 0 {
            schedule.run(&mut world);
        } else {
            schedule.run_timed(&mut world, &mut stats);
        }
        world.assert_invariants();
    }
    assert_eq!(stats.frames(), 6);
    assert_eq!(stats.summary().len(), 6);
    assert_eq!(stats.summary()[3].name, "sync point");

    // The same game by hand.
    let mut expected = Vec::new();
    let mut marked_movers = [false; 11];
    for f in 1..=12i64 {
        let movers: Vec<i64> = (1..=10).filter(|&i| i > f).collect();
        for &i in &movers {
            if i * f > 20 {
                marked_movers[i as usize] = true;
            }
        }
        let dead = 10 - movers.len();
        let marked = dead
            + movers
                .iter()
                .filter(|&&i| marked_movers[i as usize])
                .count();
        expected.push((movers.len() + dead, movers.len(), marked));
    }
    assert_eq!(*log.borrow(), expected);
    assert_eq!(expected[0], (10, 9, 1));
    assert_eq!(expected[2], (10, 7, 3 + 4)); // 7, 8, 9, 10 are past 20 at frame 3
    assert_eq!(world.size::<Pos>(), 0);
    assert_eq!(world.size::<Marked>(), 10);
    // The markers remember whom they replaced: indices 0..10, once each.
    let mut replaced: Vec<u32> = world
        .query::<(&Marked, Without<Pos>)>()
        .map(|(_, (m, ()))| m.0)
        .collect();
    replaced.sort_unstable();
    assert_eq!(replaced, (0..10).collect::<Vec<u32>>());
}

/// `add_system_if` / `add_systems_if`: the condition is asked once per run,
/// at the step's turn (after the steps before it); a skipped step runs
/// nothing, queues nothing, and records no timing sample.
#[test]
fn a_step_runs_only_when_its_condition_says_so() {
    let asked = Rc::new(RefCell::new(Vec::new()));
    let mut world = Game::new();
    let e = world.spawn_with((Pos(0), Vel(1)));
    let mut schedule = Schedule::new();
    let log = Rc::clone(&asked);
    schedule
        .add_system(movement)
        // Sees the position the step before just wrote.
        .add_system_if(
            |pos: &SparseMap<Pos>, commands: &mut Commands<Game>| {
                for (entity, p) in pos.iter() {
                    commands.insert(entity, Marked(p.0 as u32));
                }
            },
            move |world: &Game| {
                let p = world.get::<Pos>(e).unwrap().0;
                log.borrow_mut().push(p);
                p % 2 == 0
            },
        )
        .add_sync_point()
        .add_systems_if(
            (
                |life: &mut SparseMap<Life>| life.values_mut().iter_mut().for_each(|l| l.0 += 1),
                |vel: &mut SparseMap<Vel>| vel.values_mut().iter_mut().for_each(|v| v.0 += 0),
            ),
            move |world: &Game| world.has::<Marked>(e),
        );
    world.add(e, Life(0));
    let mut stats = ScheduleStats::new();
    for _ in 0..4 {
        schedule.run_timed(&mut world, &mut stats);
    }
    // Positions 1, 2, 3, 4: the condition ran each frame, after movement.
    assert_eq!(*asked.borrow(), [1, 2, 3, 4]);
    // Marked at frames 2 and 4 (its command applied at the sync point).
    assert_eq!(world.get::<Marked>(e), Some(&Marked(4)));
    // The stage ran from frame 2 on (Marked since then): frames 2, 3, 4.
    assert_eq!(world.get::<Life>(e), Some(&Life(3)));
    let samples: Vec<(String, usize)> = stats
        .summary()
        .iter()
        .map(|step: &StepSummary| (step.name.clone(), step.samples))
        .collect();
    assert_eq!(samples[0].1, 4, "movement ran every frame: {samples:?}");
    assert_eq!(samples[1].1, 2, "the marker ran twice: {samples:?}");
    assert_eq!(
        (samples[3].1, samples[4].1),
        (3, 3),
        "the stage ran three times: {samples:?}"
    );
}
