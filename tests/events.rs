//! Events: each message delivered once per reader, in the order the model
//! says, whatever the readers' rates, the stages' threads and the sync
//! points; writers in a parallel stage merge in system order; what a
//! reader has not passed is kept, what every reader passed goes; pending
//! messages are saved and loaded, and a schedule reads on where it stood;
//! a panicking writer loses nothing; a bound drops the oldest, counted.

#[path = "support/rng.rs"]
mod rng;

use rng::Rng;
use std::time::Duration;
use typed_ecs::prelude::*;

/// A message: who sent it and its number among that sender's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Msg {
    from: u32,
    n: u32,
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Pos(pub f32);

/// How many messages each writer sends this frame, chosen by the test.
#[derive(Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Plan {
    per_writer: [u32; 3],
    /// Which readers run this frame.
    readers: [bool; 3],
    /// The writer that panics after sending this frame, if any.
    panics: Option<usize>,
}

/// What each reader has read, in order, and how many a bound dropped
/// before it read them.
#[derive(Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Inboxes([Vec<Msg>; 3], [u64; 3]);

/// The most messages `Game` keeps (its `[bound 40]`): a slow reader falls
/// behind it now and then (the model counts on it).
const BOUND: usize = 40;

/// `Game`, with the attributes given (`world!` reads its derives as
/// written, so the saving one is chosen here rather than by `cfg_attr`).
macro_rules! game {
    ($($attribute:tt)*) => {
        world! {
            $($attribute)*
            pub struct Game<Pos>;
            resources { plan: Plan, inboxes: Inboxes }
            events { msgs: Msg [bound 40] }
        }
    };
}

#[cfg(feature = "serde")]
game!(#[derive(serde::Serialize, serde::Deserialize)]);
#[cfg(not(feature = "serde"))]
game!();

/// Writer `K` sends its planned number of messages, then panics if the
/// plan says so (what it sent is in its buffer, applied at a later sync
/// point).
fn writer<const K: usize>(plan: &Plan, out: &mut Writer<Msg>, sent: &mut Local<u32>) {
    for _ in 0..plan.per_writer[K] {
        out.send(Msg {
            from: K as u32,
            n: **sent,
        });
        **sent += 1;
    }
    if plan.panics == Some(K) {
        panic!("writer {K} fails after sending");
    }
}

/// Reader `K` records what it reads.
fn reader<const K: usize>(msgs: &Events<Msg>, inbox: &mut Reader<Msg>, inboxes: &mut Inboxes) {
    inboxes.0[K].extend(inbox.read(msgs).copied());
    inboxes.1[K] = inbox.dropped();
}

/// The schedule: the three writers in one stage (in parallel when `par`),
/// a sync point, then the readers, each under its condition.
fn schedule(par: bool) -> Schedule<Game> {
    let mut schedule = Schedule::new();
    schedule
        .add_systems((writer::<0>, writer::<1>, writer::<2>))
        .add_sync_point()
        .add_system_if(reader::<0>, |w: &Game| w.plan.readers[0])
        .add_system_if(reader::<1>, |w: &Game| w.plan.readers[1])
        .add_system_if(reader::<2>, |w: &Game| w.plan.readers[2]);
    // Sequential means sequential: left to its rule (members' last work
    // above 40 µs), a stage of a slow, loaded machine goes to the pool,
    // where a panicking writer no longer stops the writers after it (the
    // model of the panics mix counts on it).
    schedule.set_parallel_work(if par { Duration::ZERO } else { Duration::MAX });
    schedule
}

/// The world saved and loaded again (JSON), when the `serde` feature is
/// on; the world itself otherwise.
fn reloaded(world: Game) -> Game {
    #[cfg(feature = "serde")]
    {
        let json = serde_json::to_string(&world).unwrap();
        drop(world);
        serde_json::from_str(&json).unwrap()
    }
    #[cfg(not(feature = "serde"))]
    world
}

/// What the model test mixes in beside the sends, the readers' random
/// rates and the sync points.
#[derive(Clone, Copy)]
struct Mix {
    /// The writers' stage runs on the pool (when `rayon` is on).
    par: bool,
    /// Writers panic now and then (one stage member at a time, on the
    /// calling thread: which of the others ran is the stage's order).
    panics: bool,
    /// The world is saved and loaded between frames now and then.
    reloads: bool,
}

/// Runs `frames` random frames (sends between frames too) against the
/// model: every message applied, in the order the model applies them, and
/// each reader reads exactly that sequence, once, but for what the bound
/// dropped before it looked, which it counts.
/// Returns what happened: messages dropped before some reader read them,
/// panics, reloads.
fn run_model(seed: u64, frames: usize, mix: Mix) -> [u64; 3] {
    let mut happened = [0; 3];
    let mut rng = Rng::new(seed);
    let mut world = Game::new();
    let mut schedule = schedule(mix.par);
    let mut model: Vec<Msg> = Vec::new();
    // What each writer sent that no sync point applied yet (its buffer).
    let mut buffers: [Vec<Msg>; 3] = Default::default();
    let mut sent = [0u32; 3];
    let mut direct = 0;
    // For each reader, the messages applied since it last read, and the
    // most there ever were: a bound can drop what a reader has not read
    // only if this went past it.
    let mut backlog = [0usize; 3];
    let mut most = [0usize; 3];
    let mut applied = |count: usize, backlog: &mut [usize; 3]| {
        for (k, behind) in backlog.iter_mut().enumerate() {
            *behind += count;
            most[k] = most[k].max(*behind);
        }
    };
    for frame in 0..frames {
        // Messages sent outside the schedule, between frames.
        for _ in 0..rng.below(3) {
            let msg = Msg { from: 9, n: direct };
            direct += 1;
            world.send(msg);
            model.push(msg);
            applied(1, &mut backlog);
        }
        if mix.reloads && rng.chance(15) {
            world = reloaded(world);
            happened[2] += u64::from(cfg!(feature = "serde"));
        }
        let last = frame + 1 == frames;
        world.plan.per_writer = [
            rng.below(4) as u32,
            rng.below(4) as u32,
            rng.below(4) as u32,
        ];
        world.plan.readers = [
            last || rng.chance(90),
            last || rng.chance(40),
            last || rng.chance(10),
        ];
        world.plan.panics = (mix.panics && !last && rng.chance(10)).then(|| rng.below(3) as usize);
        // The model: the writers that ran filled their buffers; unless one
        // panicked, the sync point appended the buffers in system order.
        for (k, &count) in world.plan.per_writer.iter().enumerate() {
            for _ in 0..count {
                buffers[k].push(Msg {
                    from: k as u32,
                    n: sent[k],
                });
                sent[k] += 1;
            }
            if world.plan.panics == Some(k) {
                break;
            }
        }
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            schedule.run(&mut world);
        }));
        assert_eq!(ran.is_err(), world.plan.panics.is_some(), "seed {seed}");
        happened[1] += u64::from(ran.is_err());
        assert!(world.msgs.len() <= BOUND, "seed {seed}: the bound holds");
        if ran.is_ok() {
            for buffer in &mut buffers {
                applied(buffer.len(), &mut backlog);
                model.append(buffer);
            }
            for (k, behind) in backlog.iter_mut().enumerate() {
                if world.plan.readers[k] {
                    *behind = 0;
                }
            }
        }
    }
    for (k, inbox) in world.inboxes.0.iter().enumerate() {
        let dropped = world.inboxes.1[k];
        happened[0] += dropped;
        // What it read is the model's sequence with `dropped` messages
        // left out (the bound's, oldest first at each look), in order.
        let mut rest = model.iter();
        let in_order = inbox.iter().all(|msg| rest.any(|m| m == msg));
        assert!(
            in_order && inbox.len() as u64 + dropped == model.len() as u64,
            "seed {seed}: reader {k} read {} and missed {dropped} of {} messages, \
             or out of order",
            inbox.len(),
            model.len()
        );
        if most[k] <= BOUND {
            assert_eq!(
                (inbox, dropped),
                (&model, 0),
                "seed {seed}: reader {k} never fell {BOUND} behind"
            );
        }
    }
    // Every reader has passed every message: the next registration lets
    // them all go.
    world.plan = Plan::default();
    schedule.run(&mut world);
    assert!(
        world.msgs.is_empty(),
        "seed {seed}: {} kept",
        world.msgs.len()
    );
    assert_eq!(world.msgs.sent(), model.len() as u64);
    happened
}

/// Runs the model over `seeds`, and checks that each of what `mix` asks
/// for happened at least once (a bound dropping messages always can).
fn run_models(seeds: core::ops::Range<u64>, frames: usize, mix: Mix) {
    let mut happened = [0; 3];
    for seed in seeds {
        let this = run_model(seed, frames, mix);
        for (total, count) in happened.iter_mut().zip(this) {
            *total += count;
        }
    }
    assert!(happened[0] > 0, "the bound never dropped a message");
    assert_eq!(happened[1] > 0, mix.panics, "panics: {}", happened[1]);
    assert_eq!(
        happened[2] > 0,
        mix.reloads && cfg!(feature = "serde"),
        "reloads: {}",
        happened[2]
    );
}

#[test]
fn each_reader_reads_each_message_once_in_order_whatever_its_rate() {
    let mix = Mix {
        par: false,
        panics: false,
        reloads: false,
    };
    run_models(0..40, 60, mix);
}

#[test]
fn writers_of_a_parallel_stage_merge_in_system_order() {
    // With `rayon` on (as `--all-features` builds), `parallel_work` at zero
    // sends the stage to the pool; the merged order is the model's.
    let mix = Mix {
        par: true,
        panics: false,
        reloads: false,
    };
    run_models(100..140, 40, mix);
}

#[test]
fn panics_saves_loads_and_the_bound_together_lose_nothing_uncounted() {
    let mix = Mix {
        par: false,
        panics: true,
        reloads: true,
    };
    run_models(200..280, 80, mix);
}

#[test]
fn a_parallel_stage_reloaded_between_frames_merges_in_system_order() {
    let mix = Mix {
        par: true,
        panics: false,
        reloads: true,
    };
    run_models(300..330, 40, mix);
}

#[test]
fn a_reader_that_has_not_run_yet_keeps_its_messages() {
    let mut world = Game::new();
    let mut schedule = schedule(false);
    // Only reader 0 runs, for many frames; reader 2 has never run, but it
    // registered when the schedule first ran, so nothing it has not read
    // goes.
    world.plan.readers = [true, false, false];
    for _ in 0..10 {
        world.plan.per_writer = [1, 0, 0];
        schedule.run(&mut world);
    }
    assert_eq!(world.msgs.len(), 10);
    world.plan.readers = [false, false, true];
    world.plan.per_writer = [0, 0, 0];
    schedule.run(&mut world);
    assert_eq!(world.inboxes.0[2].len(), 10);
    assert_eq!(world.inboxes.0[0].len(), 10);
}

#[test]
fn a_dropped_schedule_stops_holding_messages_back() {
    let mut world = Game::new();
    let mut first = schedule(false);
    world.plan.per_writer = [2, 0, 0];
    world.plan.readers = [false; 3];
    first.run(&mut world);
    assert_eq!(world.msgs.len(), 2, "its readers have not read them");
    drop(first);
    // A cursor by hand, the only reader left, reads and passes them.
    let mut cursor = world.msgs.cursor();
    assert_eq!(cursor.read_mut(&mut world.msgs).count(), 2);
    cursor.update(&mut world.msgs);
    assert!(world.msgs.is_empty());
}

#[test]
fn a_panicking_writer_loses_nothing_sent_before_the_panic() {
    let mut world = Game::new();
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add_system(|out: &mut Writer<Msg>, plan: &Plan| {
            out.send(Msg { from: 0, n: 0 });
            if plan.readers[0] {
                panic!("the writer fails after sending");
            }
        })
        .add_sync_point();
    world.plan.readers[0] = true;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        schedule.run(&mut world);
    }));
    assert!(result.is_err());
    assert!(
        world.msgs.is_empty(),
        "not applied: the sync point never came"
    );
    world.plan.readers[0] = false;
    schedule.run(&mut world);
    // The message sent before the panic, then this run's.
    assert_eq!(world.msgs.len(), 2);
}

#[cfg(feature = "serde")]
mod saved {
    use super::*;
    use typed_ecs::EventCursor;

    #[derive(serde::Serialize, serde::Deserialize)]
    pub struct Hp(pub i32);

    world! {
        #[derive(serde::Serialize, serde::Deserialize)]
        pub struct Saved<Hp>;
        events { msgs: Msg }
    }

    #[test]
    fn pending_messages_are_saved_and_loaded() {
        let mut world = Saved::new();
        let mut cursor = world.msgs.cursor();
        for n in 0..5 {
            world.send(Msg { from: 1, n });
        }
        // Read, but the cursor has not told the log since: all kept.
        assert_eq!(cursor.read_mut(&mut world.msgs).count(), 5);
        let json = serde_json::to_string(&world).unwrap();
        let mut loaded: Saved = serde_json::from_str(&json).unwrap();
        assert_eq!(loaded.msgs.sent(), 5);
        let mut fresh = loaded.msgs.cursor();
        let pending: Vec<u32> = fresh.read(&loaded.msgs).map(|m| m.n).collect();
        assert_eq!(
            pending,
            [0, 1, 2, 3, 4],
            "nothing was passed by every reader yet"
        );
        loaded.send(Msg { from: 1, n: 5 });
        assert_eq!(
            fresh.read(&loaded.msgs).map(|m| m.n).collect::<Vec<_>>(),
            [5]
        );
        assert_eq!(loaded.msgs.sent(), 6);
        // The saved world's own cursor reads on where it stood: the same
        // numbering (a save and load keeps it), not a new log.
        assert_eq!(
            cursor.read(&loaded.msgs).map(|m| m.n).collect::<Vec<_>>(),
            [5]
        );
    }

    /// A cursor kept in the world (here a resource) is saved with it.
    #[derive(Default, serde::Serialize, serde::Deserialize)]
    pub struct Inbox(EventCursor<Msg>, Vec<u32>);

    world! {
        #[derive(serde::Serialize, serde::Deserialize)]
        pub struct Keeper<Hp>;
        resources { inbox: Inbox }
        events { msgs: Msg }
    }

    fn read_into_inbox(world: &mut Keeper) {
        let Keeper { msgs, inbox, .. } = world;
        let read: Vec<u32> = inbox.0.read_mut(msgs).map(|m| m.n).collect();
        inbox.1.extend(read);
    }

    #[test]
    fn a_cursor_saved_in_the_world_reads_on_after_a_load() {
        let mut world = Keeper::new();
        world.inbox.0 = world.msgs.cursor();
        world.msgs.send_batch((0..3).map(|n| Msg { from: 0, n }));
        read_into_inbox(&mut world);
        world.msgs.send_batch((3..5).map(|n| Msg { from: 0, n }));
        let json = serde_json::to_string(&world).unwrap();
        let mut loaded: Keeper = serde_json::from_str(&json).unwrap();
        read_into_inbox(&mut loaded);
        read_into_inbox(&mut world);
        assert_eq!(
            loaded.inbox.1,
            [0, 1, 2, 3, 4],
            "each once, as in the saved world"
        );
        assert_eq!(world.inbox.1, loaded.inbox.1);
    }

    #[test]
    fn a_schedule_reads_on_after_a_load_and_starts_over_on_an_older_save() {
        fn record(msgs: &Events<Msg>, inbox: &mut Reader<Msg>, keep: &mut Inbox) {
            keep.1.extend(inbox.read(msgs).map(|m| m.n));
        }
        let mut world = Keeper::new();
        let mut schedule = Schedule::new();
        schedule.add_system(record);
        world.msgs.send_batch((0..3).map(|n| Msg { from: 0, n }));
        let old = serde_json::to_string(&world).unwrap();
        schedule.run(&mut world);
        world.msgs.send_batch((3..5).map(|n| Msg { from: 0, n }));
        let json = serde_json::to_string(&world).unwrap();
        // Loaded from the save just made: the reader reads on (3, 4), not
        // everything kept again.
        world = serde_json::from_str(&json).unwrap();
        schedule.run(&mut world);
        assert_eq!(world.inbox.1, [0, 1, 2, 3, 4]);
        // Loaded from a save older than the reader's position: a numbering
        // it has passed the end of, so it starts over on what is kept.
        world = serde_json::from_str(&old).unwrap();
        schedule.run(&mut world);
        assert_eq!(world.inbox.1, [0, 1, 2]);
    }

    #[test]
    fn a_hostile_save_of_events_is_refused() {
        let beyond = format!(r#"[7, {}, [{{"from": 0, "n": 0}}]]"#, u64::MAX);
        assert!(serde_json::from_str::<Events<Msg>>(&beyond).is_err());
        let near = format!(r#"[7, {}, []]"#, 1u64 << 63);
        assert!(serde_json::from_str::<Events<Msg>>(&near).is_err());
        // No lineage saved but messages: numbered in one of its own.
        let mut events: Events<Msg> =
            serde_json::from_str(r#"[0, 4, [{"from": 0, "n": 0}]]"#).unwrap();
        let mut cursor = EventCursor::default();
        assert_eq!(cursor.read(&events).count(), 1);
        assert_eq!(cursor.read(&events).count(), 0, "read once");
        events.send(Msg { from: 0, n: 1 });
        assert_eq!((events.sent(), cursor.read(&events).count()), (6, 1));
    }
}

mod bounded {
    use super::*;

    pub struct Pos(pub f32);

    /// What the reader has read, and the frame counter.
    #[derive(Default)]
    pub struct Seen(Vec<u32>, u32, u64);

    world! {
        pub struct Chatty<Pos>;
        resources { seen: Seen }
        events { chat: Msg [bound 8] }
    }

    fn talk(out: &mut Writer<Msg>, sent: &mut Local<u32>) {
        for _ in 0..5 {
            out.send(Msg { from: 0, n: **sent });
            **sent += 1;
        }
    }

    fn listen(chat: &Events<Msg>, inbox: &mut Reader<Msg>, seen: &mut Seen) {
        seen.0.extend(inbox.read(chat).map(|m| m.n));
        seen.2 = inbox.dropped();
    }

    #[test]
    fn a_bound_drops_the_oldest_and_each_reader_counts_what_it_missed() {
        let mut world = Chatty::new();
        let mut schedule = Schedule::new();
        schedule
            .add_system(talk)
            .add_sync_point()
            .add_system(|seen: &mut Seen| seen.1 += 1)
            .add_system_if(listen, |w: &Chatty| w.seen.1 % 4 == 0);
        let mut fast = world.chat.cursor();
        let mut fast_read = 0;
        for _ in 0..40 {
            schedule.run(&mut world);
            assert!(
                world.chat.len() <= 8,
                "the bound holds: {}",
                world.chat.len()
            );
            fast_read += fast.read_mut(&mut world.chat).count() as u64;
        }
        let sent = world.chat.sent();
        assert_eq!(sent, 200);
        // The hand cursor reads every frame (5 a frame): it misses nothing.
        assert_eq!((fast_read, fast.dropped()), (200, 0));
        // The slow reader ran every 4th frame: 20 sent between its looks,
        // 8 kept; what it read is in order, without repeats, and what it
        // read and missed add up to what was sent up to its last look.
        let read = &world.seen.0;
        assert!(read.windows(2).all(|w| w[0] < w[1]), "{read:?}");
        assert_eq!(*read.last().unwrap(), 199);
        assert_eq!(read.len(), 10 * 8, "8 a look, 10 looks");
        assert_eq!(
            world.seen.2,
            200 - 80,
            "the reader counted every message it missed"
        );
        // The schedule reports it, beside its commands' reports.
        let missed = schedule.missed_messages();
        assert_eq!(missed.len(), 1, "{missed:?}");
        assert!(missed[0].reader.ends_with("listen"));
        assert_eq!((missed[0].event.as_str(), missed[0].dropped), ("Msg", 120));
    }
}

#[test]
fn a_schedule_names_each_reader_that_runs_before_a_writer_s_messages_arrive() {
    assert!(schedule(false).lagging_readers().is_empty());
    let mut late = Schedule::<Game>::new();
    late.add_systems((writer::<0>, reader::<0>))
        .add_sync_point()
        .add_system(reader::<1>)
        .add_system(writer::<1>);
    let lag: Vec<(String, String)> = late
        .lagging_readers()
        .into_iter()
        .map(|l| (l.reader, l.writer))
        .collect();
    // reader 0 shares a stage with writer 0; reader 1 (after the sync
    // point) runs before writer 1, whose messages come at the end of the
    // run; reader 0 runs before writer 1 too.
    assert_eq!(
        lag,
        [
            ("reader<0>".to_string(), "writer<0>".to_string()),
            ("reader<0>".to_string(), "writer<1>".to_string()),
            ("reader<1>".to_string(), "writer<1>".to_string()),
        ]
    );
}
