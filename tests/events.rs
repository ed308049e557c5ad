//! Events: each message delivered once per reader, in the order the model
//! says, whatever the readers' rates, the stages' threads and the sync
//! points; writers in a parallel stage merge in system order; what a
//! reader has not passed is kept, what every reader passed goes; pending
//! messages are saved and loaded.

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

pub struct Pos(pub f32);

/// How many messages each writer sends this frame, chosen by the test.
#[derive(Default)]
pub struct Plan {
    per_writer: [u32; 3],
    /// Which readers run this frame.
    readers: [bool; 3],
}

/// What each reader has read, in order.
#[derive(Default)]
pub struct Inboxes([Vec<Msg>; 3]);

world! {
    pub struct Game<Pos>;
    resources { plan: Plan, inboxes: Inboxes }
    events { msgs: Msg }
}

/// Writer `K` sends its planned number of messages.
fn writer<const K: usize>(plan: &Plan, out: &mut Writer<Msg>, sent: &mut Local<u32>) {
    for _ in 0..plan.per_writer[K] {
        out.send(Msg {
            from: K as u32,
            n: **sent,
        });
        **sent += 1;
    }
}

/// Reader `K` records what it reads.
fn reader<const K: usize>(msgs: &Events<Msg>, inbox: &mut Reader<Msg>, inboxes: &mut Inboxes) {
    inboxes.0[K].extend(inbox.read(msgs).copied());
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
    if par {
        schedule.set_parallel_work(Duration::ZERO);
    }
    schedule
}

/// Runs `frames` random frames (sends between frames too) against the
/// model: every message applied, in the order the model applies them, and
/// each reader reads exactly that sequence, once.
fn run_model(seed: u64, frames: usize, par: bool) {
    let mut rng = Rng::new(seed);
    let mut world = Game::new();
    let mut schedule = schedule(par);
    let mut model: Vec<Msg> = Vec::new();
    let mut sent = [0u32; 3];
    let mut direct = 0;
    for frame in 0..frames {
        // Messages sent outside the schedule, between frames.
        for _ in 0..rng.below(3) {
            let msg = Msg { from: 9, n: direct };
            direct += 1;
            world.send(msg);
            model.push(msg);
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
        // The model: the stage's buffers appended in system order.
        for (k, &count) in world.plan.per_writer.iter().enumerate() {
            for _ in 0..count {
                model.push(Msg {
                    from: k as u32,
                    n: sent[k],
                });
                sent[k] += 1;
            }
        }
        schedule.run(&mut world);
    }
    for (k, inbox) in world.inboxes.0.iter().enumerate() {
        assert_eq!(
            inbox,
            &model,
            "seed {seed}: reader {k} read {} of {} messages, or out of order",
            inbox.len(),
            model.len()
        );
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
}

#[test]
fn each_reader_reads_each_message_once_in_order_whatever_its_rate() {
    for seed in 0..40 {
        run_model(seed, 60, false);
    }
}

#[test]
fn writers_of_a_parallel_stage_merge_in_system_order() {
    // With `rayon` on (as `--all-features` builds), `parallel_work` at zero
    // sends the stage to the pool; the merged order is the model's.
    for seed in 100..140 {
        run_model(seed, 40, true);
    }
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
