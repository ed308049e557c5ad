//! What a system sees is exact (issue 24), case by case:
//!
//! 1. a query's `&mut C` marks exactly the values it hands to user code,
//!    whatever another term then rejects, on every walk;
//! 2. a system's `Seen<C>` sees every change and every removal since its
//!    own previous look, whatever else ran, panicked or was replaced;
//! 3. a system is never handed a storage that holds dead entities;
//! 4. a batch spawn never reserves more than can be spawned, and never
//!    aborts the process.
//!
//! The random models of the same rules are `change_model.rs` and
//! `seen_model.rs`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use typed_ecs::prelude::*;
use typed_ecs::Mut;
use typed_ecs::Seen;
use typed_ecs::Tracked;
use typed_ecs::{join, Changed, Or};

#[derive(Debug, Clone, PartialEq)]
struct Pos(i64);

#[derive(Debug, Clone, PartialEq)]
struct Vel(i64);

#[derive(Debug, Clone, PartialEq)]
struct Tag;

#[derive(Debug, Clone, PartialEq)]
struct Other;

world! {
    #[derive(Clone)]
    struct Game<Pos, Vel, Tag, Other>;
    tracked (Pos, Vel);
}

/// Ten entities with `Pos`, `Vel` on the even ones, `Tag` on multiples of
/// 3, `Other` on multiples of 5; every change forgotten.
fn ten() -> (Game, Vec<Entity>) {
    let mut w = Game::new();
    let es: Vec<Entity> = (0..10)
        .map(|i| {
            let e = w.spawn_with((Pos(i),));
            if i % 2 == 0 {
                w.add(e, Vel(i));
            }
            if i % 3 == 0 {
                w.add(e, Tag);
            }
            if i % 5 == 0 {
                w.add(e, Other);
            }
            e
        })
        .collect();
    w.clear_changes();
    (w, es)
}

fn changed_pos(w: &Game) -> Vec<Entity> {
    let mut got: Vec<Entity> = w.query::<Changed<&Pos>>().map(|(e, _)| e).collect();
    got.sort();
    got
}

fn changed_vel(w: &Game) -> Vec<Entity> {
    let mut got: Vec<Entity> = w.query::<Changed<&Vel>>().map(|(e, _)| e).collect();
    got.sort();
    got
}

fn pick(es: &[Entity], indices: &[usize]) -> Vec<Entity> {
    indices.iter().map(|&i| es[i]).collect()
}

// ----- 1. a `&mut` never handed out is not a change -----

#[test]
fn a_for_loop_marks_only_what_it_yields() {
    let (mut w, es) = ten();
    for (_, (p, v, ())) in w.query_mut::<(&mut Pos, &mut Vel, With<Tag>)>() {
        p.0 += 1;
        v.0 += 1;
    }
    assert_eq!(changed_pos(&w), pick(&es, &[0, 6]));
    assert_eq!(changed_vel(&w), pick(&es, &[0, 6]));
}

#[test]
fn for_each_with_without_marks_only_what_it_hands_out() {
    let (mut w, es) = ten();
    w.query_mut::<(&mut Pos, Without<Tag>)>()
        .for_each(|_, (p, ())| p.0 += 1);
    assert_eq!(changed_pos(&w), pick(&es, &[1, 2, 4, 5, 7, 8]));
    let (mut w, es) = ten();
    w.query_mut::<(&mut Pos, &Vel, Without<Tag>)>()
        .for_each(|_, (p, _, ())| p.0 += 1);
    assert_eq!(changed_pos(&w), pick(&es, &[2, 4, 8]));
    // The same as a `for` loop.
    let (mut w, es) = ten();
    for (_, (p, _, ())) in w.query_mut::<(&mut Pos, &Vel, Without<Tag>)>() {
        p.0 += 1;
    }
    assert_eq!(changed_pos(&w), pick(&es, &[2, 4, 8]));
}

#[test]
fn an_or_filter_that_rejects_marks_nothing() {
    let (mut w, es) = ten();
    w.query_mut::<(&mut Pos, Or<(With<Tag>, With<Other>)>)>()
        .for_each(|_, (p, ())| p.0 += 1);
    assert_eq!(changed_pos(&w), pick(&es, &[0, 3, 5, 6, 9]));
    let (mut w, es) = ten();
    for (_, (p, ())) in w.query_mut::<(&mut Pos, Or<(With<Tag>, With<Other>)>)>() {
        p.0 += 1;
    }
    assert_eq!(changed_pos(&w), pick(&es, &[0, 3, 5, 6, 9]));
}

#[test]
fn a_written_term_after_the_one_that_rejects_marks_nothing_either() {
    // `&mut Vel` is a later term than `&mut Pos`, and the `With<Tag>` after
    // it rejects 2, 4 and 8: neither is handed out.
    let (mut w, es) = ten();
    w.query_mut::<(&mut Pos, &mut Vel, With<Tag>)>()
        .for_each(|_, (p, v, ())| {
            p.0 += 1;
            v.0 += 1;
        });
    assert_eq!(changed_pos(&w), pick(&es, &[0, 6]));
    assert_eq!(changed_vel(&w), pick(&es, &[0, 6]));
    // An optional written term is handed out (as `Some`) only with the rest.
    let (mut w, es) = ten();
    w.query_mut::<(&mut Pos, Option<&mut Vel>, With<Tag>)>()
        .for_each(|_, (p, v, ())| {
            p.0 += 1;
            if let Some(v) = v {
                v.0 += 1;
            }
        });
    assert_eq!(changed_pos(&w), pick(&es, &[0, 3, 6, 9]));
    assert_eq!(changed_vel(&w), pick(&es, &[0, 6]));
}

#[test]
fn a_lookup_that_finds_nothing_marks_nothing() {
    let (mut w, es) = ten();
    // 3 has a `Pos` but no `Vel`: `None`, and nothing handed out.
    assert!(w.query_mut::<(&mut Pos, &mut Vel)>().get(es[3]).is_none());
    assert!(w.get_many::<(&mut Pos, &Vel)>(es[3]).is_none());
    assert!(w.get_many::<(&mut Pos, With<Tag>)>(es[1]).is_none());
    assert_eq!(changed_pos(&w), []);
    // What is found is marked.
    let (p, v) = w.get_many::<(&mut Pos, &mut Vel)>(es[4]).unwrap();
    p.0 += v.0;
    let mut join = w.query_mut::<(&mut Pos, With<Tag>)>();
    join.get(es[9]).unwrap().0 .0 += 1;
    assert_eq!(changed_pos(&w), pick(&es, &[4, 9]));
    assert_eq!(changed_vel(&w), pick(&es, &[4]));
}

#[test]
fn a_join_of_borrowed_storages_marks_only_what_it_hands_out() {
    let (mut w, es) = ten();
    join((&mut w.pos, &w.vel, With(&w.tag))).for_each(|_, (p, _, ())| p.0 += 1);
    assert_eq!(changed_pos(&w), pick(&es, &[0, 6]));
    let (mut w, es) = ten();
    for (_, (p, ())) in join((&mut w.pos, Without(&w.vel))) {
        p.0 += 1;
    }
    assert_eq!(changed_pos(&w), pick(&es, &[1, 3, 5, 7, 9]));
}

#[test]
fn value_at_mut_marks_the_one_value_it_hands_out() {
    let (mut w, es) = ten();
    let i = w.pos.index_of(es[4]).unwrap();
    w.value_at_mut::<Pos>(i).0 += 1;
    assert_eq!(changed_pos(&w), pick(&es, &[4]));
}

#[test]
fn a_for_loop_left_early_marks_only_what_it_yielded() {
    // One storage: a packed walk.
    let (mut w, _) = ten();
    let mut yielded = Vec::new();
    for (e, p) in w.query_mut::<&mut Pos>() {
        p.0 += 1;
        yielded.push(e);
        if yielded.len() == 3 {
            break;
        }
    }
    yielded.sort();
    assert_eq!(changed_pos(&w), yielded);
}

#[cfg(feature = "rayon")]
#[test]
fn par_for_each_marks_only_what_it_hands_out() {
    let mut w = Game::new();
    let es: Vec<Entity> = (0..4000)
        .map(|i| {
            let e = w.spawn_with((Pos(i),));
            if i % 7 == 0 {
                w.add(e, Tag);
            }
            e
        })
        .collect();
    w.clear_changes();
    w.query_mut::<(&mut Pos, With<Tag>)>()
        .par_for_each(|_, (p, ())| p.0 += 1);
    let expected: Vec<Entity> = es.iter().step_by(7).copied().collect();
    assert_eq!(changed_pos(&w), expected);
    // Nothing rejected: every value handed out is marked.
    w.clear_changes();
    w.query_mut::<&mut Pos>().par_for_each(|_, p| p.0 += 1);
    assert_eq!(changed_pos(&w).len(), 4000);
}

// ----- 1b. looking without marking, writing only when the value differs -----

#[test]
fn for_each_mut_marks_only_the_values_written_through() {
    let (mut w, es) = ten();
    // Clamp: only 7, 8 and 9 are above 6.
    w.pos.for_each_mut(|_, mut p: Mut<'_, Pos>| {
        if p.0 > 6 {
            p.0 = 6;
        }
    });
    assert_eq!(changed_pos(&w), pick(&es, &[7, 8, 9]));
    assert_eq!(w.pos.values().iter().map(|p| p.0).max(), Some(6));
}

#[test]
fn set_if_neq_and_bypass_change_detection() {
    let (mut w, es) = ten();
    w.pos.for_each_mut(|_, mut p| {
        let clamped = Pos(p.0.min(4));
        p.set_if_neq(clamped);
    });
    assert_eq!(changed_pos(&w), pick(&es, &[5, 6, 7, 8, 9]));
    w.clear_changes();
    let mut p = w.pos.get_mut_lazy(es[1]).unwrap();
    assert!(!p.set_if_neq(Pos(1)), "the same value is no change");
    p.bypass_change_detection().0 = 100;
    assert_eq!(changed_pos(&w), []);
    assert_eq!(w.get::<Pos>(es[1]), Some(&Pos(100)));
    w.pos.get_mut_lazy(es[2]).unwrap().0 += 1;
    assert_eq!(changed_pos(&w), pick(&es, &[2]));
    let bare = w.spawn();
    assert!(w.pos.get_mut_lazy(bare).is_none());
}

#[test]
fn for_each_mut_on_an_untracked_storage_is_a_plain_walk() {
    let (mut w, _) = ten();
    let mut visited = 0;
    w.tag.for_each_mut(|_, mut tag| {
        visited += 1;
        *tag = Tag;
    });
    assert_eq!(visited, 4);
}

// ----- 2. every reader sees every change and removal -----

#[derive(Default, Debug, PartialEq, Clone)]
struct Look {
    changed: Vec<Entity>,
    added: Vec<Entity>,
    removed: Vec<Entity>,
}

/// A watcher system that records what its `Seen<Pos>` reports into `out`.
fn watcher(
    out: std::sync::Arc<std::sync::Mutex<Vec<Look>>>,
) -> impl FnMut(&SparseMap<Pos, Tracked>, &mut Seen<Pos>) + Send + 'static {
    move |pos: &SparseMap<Pos, Tracked>, seen: &mut Seen<Pos>| {
        let mut look = Look::default();
        join(seen.changed(pos)).for_each(|e, _| look.changed.push(e));
        join(seen.added(pos)).for_each(|e, _| look.added.push(e));
        look.removed = seen.removed(pos).to_vec();
        look.changed.sort();
        look.added.sort();
        look.removed.sort();
        out.lock().unwrap().push(look);
    }
}

type Looks = std::sync::Arc<std::sync::Mutex<Vec<Look>>>;

fn last(looks: &Looks) -> Look {
    looks.lock().unwrap().last().cloned().unwrap()
}

#[test]
fn two_schedules_do_not_trim_each_others_removals() {
    let (mut w, es) = ten();
    let (a_looks, b_looks) = (Looks::default(), Looks::default());
    let mut a = Schedule::<Game>::new();
    a.add_system(watcher(a_looks.clone()));
    let mut b = Schedule::<Game>::new();
    b.add_system(watcher(b_looks.clone()));
    a.run(&mut w);
    b.run(&mut w);
    w.despawn(es[0]);
    for _ in 0..3 {
        a.run(&mut w);
    }
    b.run(&mut w);
    assert_eq!(last(&b_looks).removed, [es[0]]);
    assert_eq!(a_looks.lock().unwrap()[1].removed, [es[0]]);
    assert_eq!(last(&a_looks).removed, []);
    b.run(&mut w);
    assert_eq!(last(&b_looks).removed, [], "seen once");
}

#[test]
fn a_run_cut_short_by_a_panic_loses_nothing() {
    let (mut w, es) = ten();
    let looks = Looks::default();
    let mut frame = 0;
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add_system(move |_: &SparseMap<Tag>| {
            frame += 1;
            if frame == 2 {
                panic!("frame 2");
            }
        })
        .add_system(watcher(looks.clone()));
    schedule.run(&mut w);
    w.despawn(es[1]);
    w.pos.get_mut(es[2]).unwrap().0 += 1;
    let caught = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut w)));
    assert!(caught.is_err());
    w.pos.get_mut(es[3]).unwrap().0 += 1;
    schedule.run(&mut w);
    let look = last(&looks);
    assert_eq!(look.removed, [es[1]]);
    assert_eq!(look.changed, pick(&es, &[2, 3]));
}

#[test]
fn a_kept_schedule_over_a_new_world_sees_it_as_new() {
    let (mut w, _) = ten();
    let looks = Looks::default();
    let mut schedule = Schedule::<Game>::new();
    schedule.add_system(watcher(looks.clone()));
    for _ in 0..5 {
        schedule.run(&mut w);
    }
    // A new level: a new world, whose stamps start over.
    w = Game::new();
    let first = w.spawn_with((Pos(1),));
    schedule.run(&mut w);
    let look = last(&looks);
    assert_eq!(look.added, [first]);
    assert_eq!(look.changed, [first]);
    schedule.run(&mut w);
    assert_eq!(last(&looks), Look::default(), "seen once");
}

#[test]
fn a_replaced_storage_is_seen_as_wholly_new() {
    let (mut w, es) = ten();
    let looks = Looks::default();
    let mut schedule = Schedule::<Game>::new();
    schedule.add_system(watcher(looks.clone()));
    for _ in 0..5 {
        schedule.run(&mut w);
    }
    w.pos = SparseMap::default();
    w.add(es[4], Pos(4));
    schedule.run(&mut w);
    assert_eq!(last(&looks).added, [es[4]]);
    // A storage cloned from elsewhere is new to the reader too.
    let mut other = w.clone();
    other.add(es[5], Pos(5));
    w.pos = other.pos.clone();
    schedule.run(&mut w);
    assert_eq!(last(&looks).added, pick(&es, &[4, 5]));
    schedule.run(&mut w);
    assert_eq!(last(&looks), Look::default());
}

#[cfg(feature = "serde")]
#[test]
fn a_kept_schedule_over_a_loaded_world_sees_it_as_new() {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Clone, Serialize, Deserialize)]
    struct Hp(i32);
    world! {
        #[derive(Serialize, Deserialize)]
        struct Level<Hp>;
        tracked (Hp);
    }
    let seen_added = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let out = seen_added.clone();
    let mut schedule = Schedule::<Level>::new();
    schedule.add_system(move |hp: &SparseMap<Hp, Tracked>, seen: &mut Seen<Hp>| {
        let mut added = Vec::new();
        join(seen.added(hp)).for_each(|e, _| added.push(e));
        *out.lock().unwrap() = added;
    });
    let mut w = Level::new();
    let saved_one = w.spawn_with((Hp(1),));
    let save = serde_json::to_string(&w).unwrap();
    for _ in 0..10 {
        w.spawn_with((Hp(2),));
        schedule.run(&mut w);
    }
    w = serde_json::from_str(&save).unwrap();
    schedule.run(&mut w);
    assert_eq!(*seen_added.lock().unwrap(), [saved_one]);
}

#[test]
fn a_look_after_writing_the_whole_storage_still_sees_earlier_changes() {
    let (mut w, es) = ten();
    let looks = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Vec<Entity>>::new()));
    let out = looks.clone();
    let mut frame = 0u32;
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add_system(move |pos: &mut SparseMap<Pos, Tracked>| {
            frame += 1;
            if frame == 2 {
                pos.get_mut(es[7]).unwrap().0 += 1;
            }
        })
        .add_system(
            move |pos: &mut SparseMap<Pos, Tracked>, seen: &mut Seen<Pos>| {
                // Clamp everything, then ask what changed.
                for p in pos.values_mut() {
                    p.0 = p.0.min(100);
                }
                let mut changed = Vec::new();
                join(seen.changed(pos)).for_each(|e, _| changed.push(e));
                changed.sort();
                out.lock().unwrap().push(changed);
            },
        );
    schedule.run(&mut w);
    schedule.run(&mut w);
    schedule.run(&mut w);
    let looks = looks.lock().unwrap();
    assert_eq!(looks[0].len(), 10, "the first look sees everything");
    // Frame 2: the earlier system's change, and every value this system
    // wrote at frame 1 (its own writes are seen at its next run).
    assert_eq!(looks[1].len(), 10);
    // Frame 3: the whole-storage write of frame 2.
    assert_eq!(looks[2].len(), 10);
    drop(looks);

    // The same with one earlier change and writes of one value only.
    let (mut w, es) = ten();
    let seen_now = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let out = seen_now.clone();
    let mut schedule = Schedule::<Game>::new();
    let first = es[1];
    let other = es[2];
    schedule
        .add_system(move |pos: &mut SparseMap<Pos, Tracked>| {
            pos.get_mut(first).unwrap().0 += 1;
        })
        .add_system(
            move |pos: &mut SparseMap<Pos, Tracked>, seen: &mut Seen<Pos>| {
                pos.get_mut(first).unwrap().0 += 1;
                pos.get_mut(other).unwrap().0 += 1;
                let mut changed = Vec::new();
                join(seen.changed(pos)).for_each(|e, _| changed.push(e));
                changed.sort();
                out.lock().unwrap().push(changed);
            },
        );
    schedule.run(&mut w); // first run: everything
    schedule.run(&mut w);
    let got = seen_now.lock().unwrap();
    // `first` changed earlier in this run: seen now. `other` was written
    // only by this system itself, at its previous run (its own writes are
    // seen at its next run).
    assert_eq!(got[1], {
        let mut v = vec![first, other];
        v.sort();
        v
    });
}

// ----- 3. a system is never handed a dead entity -----

#[test]
fn a_system_is_handed_storages_in_step_with_the_world() {
    let mut w = Game::new();
    let es: Vec<Entity> = (0..4).map(|i| w.spawn_with((Pos(i), Tag))).collect();
    let t = std::mem::take(&mut w.pos);
    w.despawn(es[0]);
    w.pos = t;
    assert_eq!(w.query::<&Pos>().count(), 3);
    let counts = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let out = counts.clone();
    let mut schedule = Schedule::<Game>::new();
    schedule.add_system(move |pos: &SparseMap<Pos, Tracked>| {
        out.lock().unwrap().push(pos.iter().count());
    });
    schedule.run(&mut w);
    // In a stage, and written.
    let t = std::mem::take(&mut w.tag);
    w.despawn(es[1]);
    w.tag = t;
    let out = counts.clone();
    let out2 = counts.clone();
    schedule.add_systems((
        move |tag: &mut SparseMap<Tag>| out.lock().unwrap().push(tag.len()),
        move |pos: &SparseMap<Pos, Tracked>| out2.lock().unwrap().push(pos.len()),
    ));
    schedule.run(&mut w);
    assert_eq!(*counts.lock().unwrap(), [3, 2, 2, 2]);
    w.assert_invariants();
}

// ----- 4. a batch never aborts the process -----

#[test]
fn a_batch_with_a_huge_size_hint_spawns_what_fits() {
    let mut w = Game::new();
    w.set_entity_limit(8);
    let error = w
        .try_spawn_batch((0..u32::MAX as i64).map(|i| (Pos(i),)))
        .unwrap_err();
    let (spawned, mut rest) = error.into_inner();
    assert_eq!(spawned.len(), 8);
    assert_eq!(rest.next().map(|(p,)| p.0), Some(8));
    assert_eq!(w.entity_count(), 8);

    let mut w = Game::new();
    w.set_entity_limit(8);
    let error = w
        .try_extend((0..u32::MAX as i64).map(|i| (Pos(i), Vel(i))))
        .unwrap_err();
    assert_eq!(error.into_inner().0, 8);
    w.assert_invariants();
}

#[test]
fn a_batch_whose_size_hint_lies_spawns_what_it_yields() {
    /// Claims far more than it yields.
    struct Liar(i64);
    impl Iterator for Liar {
        type Item = (Pos,);
        fn next(&mut self) -> Option<(Pos,)> {
            (self.0 < 5).then(|| {
                self.0 += 1;
                (Pos(self.0),)
            })
        }
        fn size_hint(&self) -> (usize, Option<usize>) {
            (usize::MAX, None)
        }
    }
    let mut w = Game::new();
    assert_eq!(w.spawn_batch(Liar(0)).len(), 5);
    w.extend(Liar(0));
    assert_eq!(w.entity_count(), 10);
    w.assert_invariants();
}

#[test]
fn extend_past_the_limit_panics_with_a_message_not_an_abort() {
    let mut w = Game::new();
    w.set_entity_limit(4);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        w.extend((0..u32::MAX as i64).map(|i| (Pos(i),)));
    }));
    let message = caught.unwrap_err();
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(message.contains("extend"), "{message}");
    assert_eq!(w.entity_count(), 4);
}

#[test]
fn commands_past_the_limit_report_the_rest() {
    let mut w = Game::new();
    w.set_entity_limit(3);
    let mut commands = Commands::<Game>::new();
    for i in 0..10 {
        commands.spawn_with((Pos(i),));
    }
    let report = w.apply(&mut commands);
    assert_eq!(report.spawned().len(), 3);
    assert_eq!(report.rejected().len(), 10 - 3 + 7);
    w.assert_invariants();
}
