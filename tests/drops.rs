//! Every component value is dropped exactly once: never twice, never leaked,
//! whichever path removes it. Each value carries an id and records it in a
//! shared log when dropped.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

use typed_ecs::prelude::*;
use typed_ecs::AddErrorKind;

/// Hands out tracked values and checks the drop log.
#[derive(Clone, Default)]
struct Tracker {
    dropped: Rc<RefCell<Vec<u32>>>,
    created: Rc<Cell<u32>>,
}

/// A value that records its id when dropped.
#[derive(Debug)]
struct Tracked {
    id: u32,
    dropped: Rc<RefCell<Vec<u32>>>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.dropped.borrow_mut().push(self.id);
    }
}

impl Tracker {
    fn make(&self) -> Tracked {
        let id = self.created.get();
        self.created.set(id + 1);
        Tracked {
            id,
            dropped: Rc::clone(&self.dropped),
        }
    }

    fn a(&self) -> A {
        A(self.make())
    }

    fn b(&self) -> B {
        B(self.make())
    }

    /// The ids dropped so far, sorted.
    fn dropped(&self) -> Vec<u32> {
        let mut ids = self.dropped.borrow().clone();
        ids.sort_unstable();
        ids
    }

    /// Asserts exactly `ids` have been dropped, each once.
    #[track_caller]
    fn assert_dropped(&self, ids: &[u32]) {
        let mut expected = ids.to_vec();
        expected.sort_unstable();
        assert_eq!(self.dropped(), expected);
    }

    /// Asserts every value made has been dropped exactly once.
    #[track_caller]
    fn assert_all_dropped_once(&self) {
        let all: Vec<u32> = (0..self.created.get()).collect();
        assert_eq!(self.dropped(), all);
    }
}

#[derive(Debug)]
struct A(Tracked);

#[derive(Debug)]
struct B(Tracked);

world! {
    struct Game<A, B>;
}

fn id_a(world: &Game, e: Entity) -> Option<u32> {
    world.get::<A>(e).map(|a| a.0.id)
}

#[test]
fn insert_replace_hands_the_old_value_to_the_caller() {
    let t = Tracker::default();
    let mut world = Game::new();
    let e = world.spawn();
    assert!(world.insert(e, t.a()).is_none()); // id 0
    let old = world.insert(e, t.a()).expect("replaced"); // id 1
    assert_eq!(old.0.id, 0);
    t.assert_dropped(&[]);
    drop(old);
    t.assert_dropped(&[0]);
    assert_eq!(id_a(&world, e), Some(1));
    drop(world);
    t.assert_all_dropped_once();
}

#[test]
fn remove_hands_the_value_to_the_caller() {
    let t = Tracker::default();
    let mut world = Game::new();
    let e = world.spawn_with((t.a(), t.b())); // 0, 1
    let a = world.remove::<A>(e).unwrap();
    t.assert_dropped(&[]);
    assert_eq!(a.0.id, 0);
    drop(a);
    t.assert_dropped(&[0]);
    assert!(world.remove::<A>(e).is_none());
    let b = world.b.remove(e).unwrap();
    drop(b);
    t.assert_dropped(&[0, 1]);
    drop(world);
    t.assert_all_dropped_once();
}

#[test]
fn remove_all_drops_every_component_of_the_entity() {
    let t = Tracker::default();
    let mut world = Game::new();
    let e = world.spawn_with((t.a(), t.b())); // 0, 1
    let keep = world.spawn_with((t.a(), t.b())); // 2, 3
    world.remove_deferred::<A>(e);
    world.add_deferred(e, t.a()); // 4, stays queued through remove_all
    assert!(world.remove_all(e));
    t.assert_dropped(&[0, 1]);
    assert!(world.remove_all(e));
    t.assert_dropped(&[0, 1]);
    world.finalize_updates();
    t.assert_dropped(&[0, 1]);
    assert_eq!(id_a(&world, e), Some(4));
    assert_eq!(id_a(&world, keep), Some(2));
    drop(world);
    t.assert_all_dropped_once();
}

#[test]
fn despawn_drops_components_and_queued_adds() {
    let t = Tracker::default();
    let mut world = Game::new();
    let e = world.spawn_with((t.a(),)); // 0
    world.add_deferred(e, t.b()); // 1
    world.remove_deferred::<A>(e);
    let keep = world.spawn_with((t.a(), t.b())); // 2, 3
    assert!(world.despawn(e));
    t.assert_dropped(&[0, 1]);
    assert!(!world.despawn(e));
    // The reused slot does not inherit the queued add; finalize drops nothing.
    let reused = world.spawn();
    assert_eq!(reused.index(), e.index());
    world.finalize_updates();
    t.assert_dropped(&[0, 1]);
    assert!(!world.has::<B>(reused));
    assert_eq!(id_a(&world, keep), Some(2));
    drop(world);
    t.assert_all_dropped_once();
}

#[test]
fn clear_drops_everything_stored_and_queued() {
    let t = Tracker::default();
    let mut world = Game::new();
    for _ in 0..10 {
        world.spawn_with((t.a(), t.b()));
    }
    let e = world.spawn();
    world.add_deferred(e, t.a());
    world.add_deferred(e, t.b());
    world.remove_deferred::<A>(world.entity_at::<A>(0));
    world.despawn_deferred(world.entity_at::<B>(3));
    world.clear();
    t.assert_all_dropped_once();
    world.finalize_updates();
    world.spawn_with((t.a(),));
    world.clear();
    t.assert_all_dropped_once();
    drop(world);
    t.assert_all_dropped_once();
}

#[test]
fn finalize_drops_removed_replaced_and_despawned_values() {
    let t = Tracker::default();
    let mut world = Game::new();
    let removed = world.spawn_with((t.a(),)); // 0
    let replaced = world.spawn_with((t.a(),)); // 1
    let despawned = world.spawn_with((t.a(),)); // 2
    world.add_deferred(despawned, t.b()); // 3
    let keep = world.spawn_with((t.b(),)); // 4

    world.remove_deferred::<A>(removed);
    world.remove_deferred::<A>(replaced);
    world.add_deferred(replaced, t.a()); // 5
    world.despawn_deferred(despawned);
    t.assert_dropped(&[]);

    world.finalize_updates();
    t.assert_dropped(&[0, 1, 2, 3]);
    assert_eq!(id_a(&world, replaced), Some(5));
    assert!(world.is_alive(removed) && !world.has::<A>(removed));
    assert!(!world.is_alive(despawned));
    assert_eq!(world.get::<B>(keep).map(|b| b.0.id), Some(4));
    world.finalize_updates();
    t.assert_dropped(&[0, 1, 2, 3]);
    drop(world);
    t.assert_all_dropped_once();
}

#[test]
fn queued_add_and_queued_despawn_drop_the_queued_value_at_finalize() {
    let t = Tracker::default();
    let mut world = Game::new();
    let e = world.spawn();
    world.add_deferred(e, t.a()); // 0
    world.despawn_deferred(e);
    t.assert_dropped(&[]);
    world.finalize_updates();
    t.assert_dropped(&[0]);
    assert_eq!(world.size::<A>(), 0);
    drop(world);
    t.assert_all_dropped_once();
}

#[test]
fn queued_add_replacing_an_immediate_add_drops_the_immediate_value() {
    let t = Tracker::default();
    let mut world = Game::new();
    let e = world.spawn();
    world.add_deferred(e, t.a()); // 0
    world.add(e, t.a()); // 1
    world.finalize_updates();
    t.assert_dropped(&[1]);
    assert_eq!(id_a(&world, e), Some(0));
    drop(world);
    t.assert_all_dropped_once();
}

#[test]
fn failed_adds_hand_the_value_back_undropped() {
    let t = Tracker::default();
    let mut world = Game::new();
    let e = world.spawn_with((t.a(),)); // 0
    let dead = world.spawn();
    world.despawn(dead);

    let present = world.try_add(e, t.a()).unwrap_err(); // 1
    assert_eq!(present.kind(), AddErrorKind::AlreadyPresent);
    let dead_add = world.try_add(dead, t.a()).unwrap_err(); // 2
    let dead_insert = world.try_insert(dead, t.b()).unwrap_err(); // 3
    world.remove_deferred::<A>(e);
    world.add_deferred(e, t.a()); // 4
    let queued = world.try_add_deferred(e, t.a()).unwrap_err(); // 5
    assert_eq!(queued.kind(), AddErrorKind::AlreadyQueued);
    let dead_queued = world.try_add_deferred(dead, t.b()).unwrap_err(); // 6
    t.assert_dropped(&[]);

    let back = present.into_component();
    assert_eq!(back.0.id, 1);
    drop(back);
    t.assert_dropped(&[1]);
    assert_eq!(dead_add.component().0.id, 2);
    drop((dead_add, dead_insert, queued, dead_queued));
    t.assert_dropped(&[1, 2, 3, 5, 6]);

    world.finalize_updates();
    t.assert_dropped(&[0, 1, 2, 3, 5, 6]);
    drop(world);
    t.assert_all_dropped_once();
}

#[test]
fn dropping_the_world_drops_everything_once() {
    let t = Tracker::default();
    let mut world = Game::with_capacity(8);
    let mut handles = Vec::new();
    for i in 0..40 {
        let e = if i % 2 == 0 {
            world.spawn_with((t.a(), t.b()))
        } else {
            world.spawn_with((t.b(),))
        };
        handles.push(e);
    }
    for &e in handles.iter().step_by(5) {
        world.despawn(e);
    }
    for &e in handles.iter().skip(1).step_by(4) {
        if world.is_alive(e) && !world.has::<A>(e) {
            world.add_deferred(e, t.a());
        }
        world.remove_deferred::<B>(e);
    }
    let dropped_before = t.dropped().len();
    assert!(dropped_before > 0);
    drop(world);
    t.assert_all_dropped_once();
}

#[test]
fn a_mixed_run_drops_every_value_exactly_once() {
    let t = Tracker::default();
    let mut world = Game::new();
    let mut live: Vec<Entity> = Vec::new();
    let mut kept_outside: Vec<A> = Vec::new();
    // A small deterministic mix of every path.
    for step in 0u32..600 {
        let pick = |live: &Vec<Entity>| live[(step as usize * 7) % live.len()];
        match step % 12 {
            0 | 1 => live.push(world.spawn_with((t.a(),))),
            2 => live.push(world.spawn_with((t.a(), t.b()))),
            3 if !live.is_empty() => drop(world.insert(pick(&live), t.b())),
            4 if !live.is_empty() => {
                if let Some(a) = world.remove::<A>(pick(&live)) {
                    if step % 24 == 4 {
                        kept_outside.push(a);
                    }
                }
            }
            5 if !live.is_empty() => {
                let e = live.swap_remove((step as usize) % live.len());
                assert!(world.despawn(e));
            }
            6 if !live.is_empty() => {
                let e = pick(&live);
                if let Err(error) = world.try_add_deferred(e, t.a()) {
                    drop(error.into_component());
                }
            }
            7 if !live.is_empty() => {
                world.remove_deferred::<A>(pick(&live));
            }
            8 if !live.is_empty() => {
                let e = live.swap_remove((step as usize) % live.len());
                assert!(world.despawn_deferred(e));
            }
            9 => world.finalize_updates(),
            10 if !live.is_empty() => {
                world.remove_all(pick(&live));
            }
            11 if !live.is_empty() => {
                if let Err(error) = world.try_add(pick(&live), t.a()) {
                    drop(error);
                }
            }
            _ => {}
        }
        if step == 300 {
            world.clear();
            live.clear();
        }
    }
    world.assert_invariants();
    let in_world = world.size::<A>() + world.size::<B>();
    assert!(in_world > 0);
    assert_eq!(
        t.dropped().len() + in_world + kept_outside.len(),
        t.created.get() as usize - pending_adds(&world),
    );
    drop(world);
    assert_eq!(
        t.dropped().len() + kept_outside.len(),
        t.created.get() as usize
    );
    drop(kept_outside);
    t.assert_all_dropped_once();
}

/// Number of queued adds, read from the storages' `Debug` output.
fn pending_adds(world: &Game) -> usize {
    let text = format!("{:?} {:?}", world.a, world.b);
    text.match_indices("(queued: ")
        .map(|(at, _)| {
            let rest = &text[at + "(queued: ".len()..];
            rest[..rest.find(' ').unwrap()].parse::<usize>().unwrap()
        })
        .sum()
}

// ----- a panicking Drop leaves the world consistent -----

/// A component whose drop panics once when armed.
struct Bomb {
    armed: bool,
    dropped: Rc<Cell<u32>>,
}

impl Drop for Bomb {
    fn drop(&mut self) {
        self.dropped.set(self.dropped.get() + 1);
        if self.armed {
            panic!("boom");
        }
    }
}

world! {
    struct Risky<Bomb, A>;
}

fn bomb(dropped: &Rc<Cell<u32>>) -> Bomb {
    Bomb {
        armed: true,
        dropped: Rc::clone(dropped),
    }
}

#[test]
fn panicking_drop_during_despawn_remove_all_clear_and_finalize() {
    type Action = fn(&mut Risky, Entity);
    let actions: [(&str, Action); 6] = [
        ("despawn", |w, e| {
            w.despawn(e);
        }),
        ("despawn_batch", |w, e| {
            w.despawn_batch([e, e]);
        }),
        ("remove_all", |w, e| {
            w.remove_all(e);
        }),
        ("clear", |w, _| w.clear()),
        ("finalize remove", |w, e| {
            w.remove_deferred::<Bomb>(e);
            w.finalize_updates();
        }),
        ("finalize despawn", |w, e| {
            w.despawn_deferred(e);
            w.finalize_updates();
        }),
    ];
    for (label, action) in actions {
        let t = Tracker::default();
        let bombs = Rc::new(Cell::new(0));
        let mut world = Risky::new();
        let e = world.spawn_with((bomb(&bombs), t.a()));
        let other = world.spawn_with((t.a(),));
        let result = panic::catch_unwind(AssertUnwindSafe(|| action(&mut world, e)));
        assert!(result.is_err(), "{label}: the bomb went off");
        assert_eq!(bombs.get(), 1, "{label}: bomb dropped once");
        world.assert_invariants();
        assert!(!world.has::<Bomb>(e), "{label}");
        if label != "clear" && label != "finalize remove" {
            t.assert_dropped(&[0]);
            assert!(!world.has::<A>(e), "{label}");
        }
        if label != "clear" {
            assert!(world.has::<A>(other), "{label}");
        }
        drop(world);
        t.assert_all_dropped_once();
    }
}

/// `spawn_batch` drops nothing it stores, and a panicking iterator loses
/// nothing: the values of the bundles made before the panic are stored, and
/// dropped once with the world.
#[test]
fn spawn_batch_drops_every_value_once() {
    let t = Tracker::default();
    let mut world = Game::new();
    let spawned = world.spawn_batch((0..20).map(|_| (t.a(), t.b())));
    assert_eq!(spawned.len(), 20);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        world.spawn_batch((0..10).map(|i| {
            assert!(i < 4, "the iterator gives up");
            (t.b(),)
        }));
    }));
    assert!(result.is_err());
    assert_eq!(world.entity_count(), 24);
    world.assert_invariants();
    t.assert_dropped(&[]);
    drop(world);
    t.assert_all_dropped_once();
}
