//! `Commands`: a typed buffer of spawns, adds, removes and despawns, filled
//! while the world is borrowed by a query and applied with `world.apply`, in
//! the order spawns, removals, additions, despawns. Every rejected command is
//! reported, and every component the buffer holds is dropped exactly once.

use std::any::type_name;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

use typed_ecs::prelude::*;
use typed_ecs::ApplyReport;
use typed_ecs::{advance_reservations_for_tests, CommandKind, RejectReason, Rejected};

#[derive(Debug, Clone, Copy, PartialEq)]
struct A(u32);

#[derive(Debug, Clone, Copy, PartialEq)]
struct B(u32);

/// A component that logs its id when dropped. An armed one then panics,
/// unless a panic is already unwinding.
#[derive(Debug)]
struct T {
    id: u32,
    log: Rc<RefCell<Vec<u32>>>,
    armed: bool,
}

impl Drop for T {
    fn drop(&mut self) {
        self.log.borrow_mut().push(self.id);
        if self.armed && !std::thread::panicking() {
            panic!("T({}) panics in drop", self.id);
        }
    }
}

world! {
    struct Cw<A, B, T>;
}

/// Hands out `T`s with fresh ids and checks the drop log.
#[derive(Default)]
struct Tracker {
    log: Rc<RefCell<Vec<u32>>>,
    next: u32,
}

impl Tracker {
    fn make(&mut self) -> T {
        self.next += 1;
        T {
            id: self.next,
            log: Rc::clone(&self.log),
            armed: false,
        }
    }

    /// A `T` whose drop panics.
    fn bomb(&mut self) -> T {
        let mut bomb = self.make();
        bomb.armed = true;
        bomb
    }

    /// The ids dropped so far, sorted.
    fn dropped_sorted(&self) -> Vec<u32> {
        let mut ids = self.dropped();
        ids.sort_unstable();
        ids
    }

    /// The ids dropped so far, in order.
    fn dropped(&self) -> Vec<u32> {
        self.log.borrow().clone()
    }

    /// Every id made so far was dropped exactly once.
    #[track_caller]
    fn assert_all_dropped_once(&self) {
        let mut ids = self.dropped();
        ids.sort_unstable();
        assert_eq!(ids, (1..=self.next).collect::<Vec<_>>());
    }
}

fn rejected(
    entity: Entity,
    command: CommandKind,
    component: Option<&'static str>,
    reason: RejectReason,
) -> Rejected {
    Rejected {
        entity,
        command,
        component,
        reason,
    }
}

fn clean(report: &ApplyReport) -> bool {
    report.is_clean() && report.rejected().is_empty()
}

/// The reservation number a reserved handle shows in `Debug`.
fn reservation_number(reserved: Entity) -> u64 {
    format!("{reserved:?}")
        .strip_prefix("reserved#")
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("{reserved:?} is not a reserved handle"))
}

/// Runs `f`, which must panic, without printing the panic.
#[track_caller]
fn panics(f: impl FnOnce()) {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(hook);
    assert!(result.is_err(), "expected a panic");
}

/// The entities alive in `world` that are not in `before`, in index order.
fn new_entities(world: &Cw, before: &[Entity]) -> Vec<Entity> {
    world.entities().filter(|e| !before.contains(e)).collect()
}

// ---------------------------------------------------------------------------
// Basics
// ---------------------------------------------------------------------------

#[test]
fn new_infers_the_world_from_apply() {
    let mut world = Cw::new();
    let e = world.spawn();
    let mut commands = Commands::new(); // no turbofish: `apply` says `Cw`
    assert!(commands.is_empty());
    assert_eq!(commands.len(), 0);
    commands.add(e, A(1));
    commands.add(e, B(2));
    assert_eq!(commands.len(), 2);
    assert!(!commands.is_empty());
    let report = world.apply(&mut commands);
    assert!(clean(&report));
    assert!(report.spawned().is_empty());
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    assert_eq!(world.get::<B>(e), Some(&B(2)));

    // Default works too, and Debug names the world.
    let mut commands: Commands<Cw> = Commands::default();
    commands.remove::<A>(e);
    let debug = format!("{commands:?}");
    assert!(debug.contains("Cw") && debug.contains("len: 1"), "{debug}");
    let _ = world.apply(&mut commands);
    assert!(!world.has::<A>(e));
}

#[test]
fn add_remove_despawn_spawn_spawn_with() {
    let mut world = Cw::new();
    let a = world.spawn_with((A(1), B(1)));
    let b = world.spawn_with((A(2),));
    let c = world.spawn();

    let mut commands = Commands::new();
    commands.remove::<A>(a);
    commands.add(b, B(20));
    commands.despawn(c);
    let plain = commands.spawn();
    let bundled = commands.spawn_with((A(7), B(8)));
    let empty = commands.spawn_with(());
    // remove: 1, add: 1, despawn: 1, spawn: 1, spawn_with: 1 + 2, spawn_with(()): 1
    assert_eq!(commands.len(), 8);
    assert!(plain.is_reserved() && bundled.is_reserved() && empty.is_reserved());
    // Debug and Display show the reservation number: consecutive here.
    let first = reservation_number(plain);
    assert_eq!(format!("{plain:?}"), format!("reserved#{first}"));
    assert_eq!(reservation_number(bundled), first + 1);
    assert_eq!(format!("{empty}"), format!("reserved#{}", first + 2));
    assert!(!a.is_reserved());
    // Before apply the world treats reserved handles as not alive.
    assert!(!world.is_alive(plain));
    assert!(!world.has::<A>(bundled));
    assert!(world.get::<A>(bundled).is_none());
    assert_eq!(world.entity_count(), 3);

    let report = world.apply(&mut commands);
    assert!(clean(&report), "{report:?}");
    assert_eq!(report.spawned().len(), 3);
    let [p, q, r] = [
        report.spawned()[0],
        report.spawned()[1],
        report.spawned()[2],
    ];
    assert_eq!(report.entity(plain), Some(p));
    assert_eq!(report.entity(bundled), Some(q));
    assert_eq!(report.entity(empty), Some(r));
    assert_eq!(report.entity(a), Some(a), "a real handle maps to itself");
    for e in [p, q, r] {
        assert!(world.is_alive(e) && !e.is_reserved());
    }
    assert_eq!(world.entity_count(), 5);
    assert!(!world.is_alive(c));
    assert_eq!(world.get::<A>(a), None);
    assert_eq!(world.get::<B>(a), Some(&B(1)));
    assert_eq!(world.get::<B>(b), Some(&B(20)));
    assert_eq!(
        (world.get::<A>(q), world.get::<B>(q)),
        (Some(&A(7)), Some(&B(8)))
    );
    assert!(!world.has::<A>(p) && !world.has::<B>(p) && !world.has::<A>(r));
    // After apply: empty and reusable.
    assert!(commands.is_empty());
    assert_eq!(commands.len(), 0);
    let again = commands.spawn();
    assert!(
        reservation_number(again) > first + 2,
        "a fresh number: {again:?}"
    );
    commands.add(again, A(9));
    let report = world.apply(&mut commands);
    assert!(clean(&report));
    assert_eq!(world.get::<A>(report.spawned()[0]), Some(&A(9)));
    assert_eq!(world.entity_count(), 6);
    world.assert_invariants();
}

#[test]
fn spawn_then_add_remove_despawn_through_the_reserved_handle() {
    let mut tracker = Tracker::default();
    let mut world = Cw::new();
    let mut commands = Commands::new();
    let r = commands.spawn();
    commands.add(r, A(1));
    commands.add(r, tracker.make()); // id 1
    let gone = commands.spawn_with((B(2), tracker.make())); // id 2
    commands.remove::<B>(gone);
    commands.despawn(gone);

    let report = world.apply(&mut commands);
    assert!(clean(&report));
    let real = report.entity(r).unwrap();
    let real_gone = report.entity(gone).unwrap();
    assert_eq!(report.spawned(), [real, real_gone]);
    assert_eq!(world.get::<A>(real), Some(&A(1)));
    assert_eq!(world.get::<T>(real).map(|t| t.id), Some(1));
    assert!(!world.is_alive(real_gone));
    assert_eq!(world.entity_count(), 1);
    assert_eq!(tracker.dropped(), [2]);
    drop(world);
    tracker.assert_all_dropped_once();
}

// ---------------------------------------------------------------------------
// Filling during queries
// ---------------------------------------------------------------------------

#[test]
fn fill_inside_query_mut_for_each() {
    let mut world = Cw::new();
    let es: Vec<Entity> = (0..10)
        .map(|i| {
            if i % 3 == 0 {
                world.spawn_with((A(i), B(i)))
            } else {
                world.spawn_with((A(i),))
            }
        })
        .collect();

    let mut commands = Commands::new();
    let mut children = Vec::new();
    world
        .query_mut::<(&mut A, Option<&B>)>()
        .for_each(|e, (a, b)| {
            a.0 += 100;
            match b {
                // Replace B: remove and add in one buffer.
                Some(b) => {
                    commands.remove::<B>(e);
                    commands.add(e, B(b.0 + 1000));
                }
                None if a.0 % 2 == 0 => commands.despawn(e),
                None => {
                    let child = commands.spawn_with((B(a.0),));
                    commands.add(child, A(e.index()));
                    children.push((e, child));
                }
            }
        });
    let pending = commands.len();
    assert!(pending > 10);
    let report = world.apply(&mut commands);
    assert!(clean(&report), "{report:?}");
    assert!(commands.is_empty());

    for (i, &e) in es.iter().enumerate() {
        let i = i as u32;
        if i % 3 == 0 {
            assert_eq!(world.get::<A>(e), Some(&A(i + 100)));
            assert_eq!(world.get::<B>(e), Some(&B(i + 1000)));
        } else if (i + 100) % 2 == 0 {
            assert!(!world.is_alive(e), "{i}");
        } else {
            assert_eq!(world.get::<A>(e), Some(&A(i + 100)));
        }
    }
    assert_eq!(report.spawned().len(), children.len());
    for (parent, child) in children {
        let real = report.entity(child).unwrap();
        assert_eq!(world.get::<A>(real), Some(&A(parent.index())));
        assert_eq!(
            world.get::<B>(real),
            world.get::<A>(parent).map(|a| B(a.0)).as_ref()
        );
    }
    // 0,3,6,9 replaced; 2,4,8 despawned (i + 100 even, no B); 1,5,7 spawn.
    assert_eq!(world.entity_count(), 10 - 3 + 3);
    world.assert_invariants();
}

#[test]
fn fill_inside_a_for_loop_over_a_query() {
    let mut world = Cw::new();
    for i in 0..8 {
        world.spawn_with((A(i), B(i * 10)));
    }
    let mut commands = Commands::new();
    // `for` over a query_mut whose first element is `&mut`.
    for (e, (a, b)) in world.query_mut::<(&mut A, &B)>() {
        a.0 += b.0;
        if a.0 % 2 == 1 {
            commands.remove::<B>(e);
        }
    }
    // And over a read-only query.
    for (e, a) in world.query::<&A>() {
        if a.0 > 50 {
            commands.despawn(e);
        }
    }
    let report = world.apply(&mut commands);
    assert!(clean(&report));
    // a = 11 * i: odd for odd i; despawned when 11 * i > 50, i.e. i >= 5.
    let mut rows: Vec<(u32, bool)> = world
        .query::<&A>()
        .map(|(e, a)| (a.0, world.has::<B>(e)))
        .collect();
    rows.sort();
    assert_eq!(
        rows,
        [(0, true), (11, false), (22, true), (33, false), (44, true)]
    );
}

// ---------------------------------------------------------------------------
// Apply order
// ---------------------------------------------------------------------------

#[test]
fn remove_and_add_in_one_buffer_replace_whichever_came_first() {
    let mut tracker = Tracker::default();
    let mut world = Cw::new();
    let e = world.spawn_with((A(1), tracker.make())); // id 1
    let f = world.spawn_with((A(2), tracker.make())); // id 2

    let mut commands = Commands::new();
    commands.add(e, A(10));
    commands.remove::<A>(e); // queued after the add, applied before it
    commands.remove::<T>(f);
    commands.add(f, tracker.make()); // id 3
    commands.add(e, tracker.make()); // id 4: e still has id 1, no remove queued
    let report = world.apply(&mut commands);

    assert_eq!(world.get::<A>(e), Some(&A(10)));
    assert_eq!(world.get::<T>(f).map(|t| t.id), Some(3));
    assert_eq!(world.get::<T>(e).map(|t| t.id), Some(1));
    assert_eq!(
        report.rejected(),
        [rejected(
            e,
            CommandKind::Add,
            Some(type_name::<T>()),
            RejectReason::AlreadyPresent
        )]
    );
    let mut dropped = tracker.dropped();
    dropped.sort_unstable();
    assert_eq!(dropped, [2, 4]);
    drop(world);
    tracker.assert_all_dropped_once();
}

#[test]
fn add_then_despawn_ends_despawned_and_drops_once() {
    let mut tracker = Tracker::default();
    let mut world = Cw::new();
    let e = world.spawn_with((A(1),));
    let f = world.spawn();

    let mut commands = Commands::new();
    commands.add(e, tracker.make()); // id 1
    commands.despawn(e);
    commands.despawn(f);
    commands.add(f, tracker.make()); // id 2: queued after the despawn, applied before it
    commands.add(f, B(3));
    let report = world.apply(&mut commands);
    assert!(clean(&report), "{report:?}");
    assert!(!world.is_alive(e) && !world.is_alive(f));
    assert_eq!(world.entity_count(), 0);
    assert_eq!(world.size::<T>(), 0);
    assert_eq!(world.size::<B>(), 0);
    let mut dropped = tracker.dropped();
    dropped.sort_unstable();
    assert_eq!(dropped, [1, 2]);
    drop(world);
    tracker.assert_all_dropped_once();
    world_invariants_after_reuse();
}

/// After despawns through commands, the freed indices are reused cleanly.
fn world_invariants_after_reuse() {
    let mut world = Cw::new();
    let e = world.spawn_with((A(1),));
    let mut commands = Commands::new();
    commands.despawn(e);
    let _ = world.apply(&mut commands);
    let f = world.spawn();
    assert_eq!(f.index(), e.index());
    assert!(!world.has::<A>(f));
    world.assert_invariants();
}

#[test]
fn phases_run_spawns_removals_additions_despawns() {
    let mut world = Cw::new();
    let e = world.spawn_with((A(1), B(1)));
    let mut commands = Commands::new();
    // Queued in reverse of the apply order.
    commands.despawn(e);
    commands.add(e, B(2)); // fails unless the removal below ran first
    commands.remove::<B>(e);
    let r = commands.spawn(); // the spawn runs first, so these work
    commands.add(r, A(5));
    commands.remove::<A>(r); // removal runs before the add: no-op
    let report = world.apply(&mut commands);
    assert!(clean(&report), "{report:?}");
    assert!(!world.is_alive(e));
    let real = report.entity(r).unwrap();
    assert_eq!(world.get::<A>(real), Some(&A(5)));
    assert_eq!(world.entity_count(), 1);
}

// ---------------------------------------------------------------------------
// Rejections
// ---------------------------------------------------------------------------

#[test]
fn rejections_are_reported_with_kind_reason_component_and_entity() {
    let mut world = Cw::new();
    let dead = world.spawn_with((A(0),));
    assert!(world.despawn(dead));
    let reused = world.spawn_with((A(1), B(1))); // dead's index, new generation
    assert_eq!(reused.index(), dead.index());
    let live = world.spawn_with((A(2),));

    let mut commands = Commands::new();
    commands.despawn(dead); // despawn of a dead entity
    commands.add(dead, B(9)); // add to a dead entity
    commands.remove::<A>(dead); // remove from a dead entity
    commands.add(live, A(3)); // duplicate add
    commands.add(live, B(4)); // fine
    commands.add(live, B(5)); // duplicate within the buffer
    commands.despawn(live);
    commands.despawn(live); // double despawn
    commands.remove::<B>(reused); // fine
    let report = world.apply(&mut commands);

    let a = Some(type_name::<A>());
    let b = Some(type_name::<B>());
    assert_eq!(
        report.rejected(),
        [
            // removals first, then additions (each storage in declaration
            // order, each in queue order), then despawns.
            rejected(dead, CommandKind::Remove, a, RejectReason::DeadEntity),
            rejected(live, CommandKind::Add, a, RejectReason::AlreadyPresent),
            rejected(dead, CommandKind::Add, b, RejectReason::DeadEntity),
            rejected(live, CommandKind::Add, b, RejectReason::AlreadyPresent),
            rejected(dead, CommandKind::Despawn, None, RejectReason::DeadEntity),
            rejected(live, CommandKind::Despawn, None, RejectReason::DeadEntity),
        ]
    );
    assert!(!report.is_clean());
    assert!(report.spawned().is_empty());
    // The stale handle did not touch the entity now in its slot.
    assert_eq!(world.get::<A>(reused), Some(&A(1)));
    assert!(!world.has::<B>(reused));
    assert!(world.is_alive(reused));
    assert!(!world.is_alive(live));
    assert_eq!(world.entity_count(), 1);

    // Display: says what, on which entity, of which component, and why.
    let texts: Vec<String> = report.rejected().iter().map(|r| r.to_string()).collect();
    let dead_name = format!("{dead:?}");
    let live_name = format!("{live:?}");
    assert!(texts[0].contains("remove") && texts[0].contains(type_name::<A>()));
    assert!(texts[0].contains(&dead_name) && texts[0].contains("not alive"));
    assert!(texts[1].contains("add") && texts[1].contains(type_name::<A>()));
    assert!(texts[1].contains(&live_name) && texts[1].contains("already has one"));
    assert!(
        texts[1].contains("Commands::insert"),
        "hints at the fix: {}",
        texts[1]
    );
    assert!(texts[2].contains("add") && texts[2].contains(type_name::<B>()));
    assert!(texts[2].contains(&dead_name) && texts[2].contains("not alive"));
    assert!(texts[4].contains("despawn") && texts[4].contains(&dead_name));
    assert!(texts[4].contains("not alive"));
    assert!(texts[5].contains("despawn") && texts[5].contains(&live_name));
    assert_eq!(
        texts[0],
        format!(
            "remove of `{}` from entity {dead_name} rejected: the entity is not alive",
            type_name::<A>()
        )
    );
    // The components of rejected adds are gone, as the report says.
    assert!(commands.is_empty());
}

#[test]
fn rejected_reserved_handle_is_reported_as_written() {
    let mut world = Cw::new();
    let mut commands = Commands::new();
    let r = commands.spawn();
    commands.despawn(r);
    commands.despawn(r);
    let report = world.apply(&mut commands);
    let real = report.entity(r).unwrap();
    assert!(!world.is_alive(real));
    assert_eq!(
        report.rejected(),
        [rejected(
            r,
            CommandKind::Despawn,
            None,
            RejectReason::DeadEntity
        )]
    );
    assert!(report.rejected()[0].to_string().contains(&format!("{r:?}")));

    // A reserved handle of another buffer, in a buffer with no spawns of its
    // own, resolves to nothing: rejected as dead.
    let mut other = Commands::<Cw>::new();
    let foreign = other.spawn();
    let mut commands = Commands::new();
    commands.add(foreign, A(1));
    commands.remove::<B>(foreign);
    let report = world.apply(&mut commands);
    assert_eq!(
        report.rejected(),
        [
            rejected(
                foreign,
                CommandKind::Remove,
                Some(type_name::<B>()),
                RejectReason::DeadEntity
            ),
            rejected(
                foreign,
                CommandKind::Add,
                Some(type_name::<A>()),
                RejectReason::DeadEntity
            ),
        ]
    );
    assert_eq!(report.entity(foreign), None);
    assert_eq!(world.entity_count(), 0);

    // A reserved handle used in the world directly is simply not alive.
    let mut commands = Commands::<Cw>::new();
    let r = commands.spawn();
    assert!(!world.despawn(r));
    let error = world.try_add(r, A(1)).unwrap_err();
    assert_eq!(error.into_component(), A(1));
    assert_eq!(world.remove::<A>(r), None);
    assert!(!world.remove_all(r));
}

#[test]
fn removing_a_missing_component_from_a_live_entity_is_not_an_error() {
    let mut world = Cw::new();
    let e = world.spawn_with((B(1),));
    let mut commands = Commands::new();
    commands.remove::<A>(e);
    commands.remove::<A>(e);
    let report = world.apply(&mut commands);
    assert!(clean(&report));
    assert_eq!(world.get::<B>(e), Some(&B(1)));
}

// ---------------------------------------------------------------------------
// Reuse, clear, drops
// ---------------------------------------------------------------------------

#[test]
fn buffer_is_empty_and_reusable_after_apply_and_clear() {
    let mut world = Cw::new();
    let e = world.spawn();
    let mut commands = Commands::new();
    for round in 0..5u32 {
        assert!(commands.is_empty());
        commands.add(e, A(round));
        let s = commands.spawn_with((A(round), B(round)));
        // Removals run before additions: this one finds no B yet.
        commands.remove::<B>(s);
        assert_eq!(commands.len(), 5);
        let report = world.apply(&mut commands);
        assert!(clean(&report), "round {round}: {report:?}");
        assert_eq!(commands.len(), 0);
        let spawned = report.spawned()[0];
        assert_eq!(world.get::<A>(spawned), Some(&A(round)));
        assert_eq!(world.get::<B>(spawned), Some(&B(round)));
        assert_eq!(world.remove::<A>(e), Some(A(round)));
    }
    assert_eq!(world.entity_count(), 6);

    // clear drops everything queued, including spawns: nothing happens.
    commands.add(e, A(1));
    commands.despawn(e);
    let r = commands.spawn_with((B(1),));
    assert_eq!(commands.len(), 4);
    commands.clear();
    assert!(commands.is_empty());
    assert_eq!(commands.len(), 0);
    let report = world.apply(&mut commands);
    assert!(clean(&report) && report.spawned().is_empty());
    assert!(world.is_alive(e) && !world.has::<A>(e));
    assert_eq!(world.entity_count(), 6);
    assert_eq!(report.entity(r), None, "the cleared spawn never happened");
    // A cleared buffer reserves fresh numbers.
    assert!(reservation_number(commands.spawn()) > reservation_number(r));
}

#[test]
fn every_component_in_a_buffer_is_dropped_exactly_once() {
    let mut tracker = Tracker::default();
    let mut world = Cw::new();
    let live = world.spawn_with((tracker.make(),)); // 1
    let dead = world.spawn();
    world.despawn(dead);

    // Applied, rejected, and removed-by-command.
    let mut commands = Commands::new();
    let other = world.spawn();
    commands.add(other, tracker.make()); // 2: applied
    commands.add(dead, tracker.make()); // 3: rejected, dead
    commands.add(live, tracker.make()); // 4: rejected, already present
    commands.add(other, tracker.make()); // 5: rejected, duplicate in buffer
    let r = commands.spawn_with((tracker.make(),)); // 6: applied to a spawn
    commands.despawn(r); // ... then despawned: dropped at apply
    assert!(tracker.dropped().is_empty());
    let report = world.apply(&mut commands);
    assert_eq!(report.rejected().len(), 3);
    let mut dropped = tracker.dropped();
    dropped.sort_unstable();
    assert_eq!(dropped, [3, 4, 5, 6]);

    commands.remove::<T>(live);
    let _ = world.apply(&mut commands);
    let mut dropped = tracker.dropped();
    dropped.sort_unstable();
    assert_eq!(dropped, [1, 3, 4, 5, 6]);

    // Cleared.
    commands.add(live, tracker.make()); // 7
    commands.spawn_with((tracker.make(), A(1))); // 8
    commands.clear();
    let mut dropped = tracker.dropped();
    dropped.sort_unstable();
    assert_eq!(dropped, [1, 3, 4, 5, 6, 7, 8]);
    assert!(world.apply(&mut commands).is_clean());
    assert!(world.has::<T>(other) && !world.has::<T>(live));

    // Dropped without being applied.
    let mut unapplied = Commands::<Cw>::new();
    unapplied.add(live, tracker.make()); // 9
    unapplied.spawn_with((tracker.make(),)); // 10
    unapplied.despawn(other);
    drop(unapplied);
    let mut dropped = tracker.dropped();
    dropped.sort_unstable();
    assert_eq!(dropped, [1, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert!(world.is_alive(other));

    // An applied buffer holds nothing any more: dropping it drops nothing.
    commands.add(live, tracker.make()); // 11
    let _ = world.apply(&mut commands);
    let before = tracker.dropped().len();
    drop(commands);
    assert_eq!(tracker.dropped().len(), before);

    // The world drops the rest: 2 and 11.
    drop(world);
    tracker.assert_all_dropped_once();
    assert_eq!(tracker.next, 11);
}

/// A reserved handle carries a number no other reservation gets: in another
/// buffer, or in the same buffer after an apply, it names nothing and its
/// commands are rejected.
#[test]
fn reserved_handle_from_another_buffer_is_not_alive() {
    let mut world = Cw::new();
    let mut first = Commands::<Cw>::new();
    let foreign = first.spawn(); // reserved by `first`, never applied

    let mut second = Commands::new();
    let own = second.spawn(); // reserved by `second`
    second.add(foreign, A(1)); // should be rejected: not this buffer's handle
    let report = world.apply(&mut second);
    let real = report.entity(own).unwrap();
    assert_eq!(
        report.rejected(),
        [rejected(
            foreign,
            CommandKind::Add,
            Some(type_name::<A>()),
            RejectReason::DeadEntity
        )]
    );
    assert!(
        !world.has::<A>(real),
        "the foreign handle's add landed on {real:?}"
    );
    assert_eq!(report.entity(foreign), None);

    // A handle kept from an earlier apply of the same buffer is foreign too.
    let mut reused = Commands::<Cw>::new();
    let earlier = reused.spawn();
    let earlier_real = world.apply(&mut reused).entity(earlier).unwrap();
    let later = reused.spawn();
    assert_ne!(earlier, later);
    reused.add(earlier, A(2));
    let report = world.apply(&mut reused);
    assert_eq!(report.rejected().len(), 1);
    assert_eq!(report.rejected()[0].reason, RejectReason::DeadEntity);
    assert!(!world.has::<A>(report.entity(later).unwrap()));
    assert!(!world.has::<A>(earlier_real));
}

#[test]
fn spawns_that_cannot_happen_are_rejected_and_their_commands_too() {
    let mut tracker = Tracker::default();
    let mut world = Cw::new();
    let first = world.spawn();
    world.set_entity_limit(3); // room for two more
    let mut commands = Commands::new();
    let r0 = commands.spawn_with((A(0),));
    let r1 = commands.spawn();
    let r2 = commands.spawn_with((A(2), tracker.make())); // id 1
    let r3 = commands.spawn();
    commands.remove::<B>(r3);
    commands.despawn(r3);
    commands.add(first, B(1));
    let report = world.apply(&mut commands);

    let a = Some(type_name::<A>());
    let b = Some(type_name::<B>());
    let t = Some(type_name::<T>());
    assert_eq!(report.spawned().len(), 2);
    assert_eq!(report.entity(r0), Some(report.spawned()[0]));
    assert_eq!(report.entity(r1), Some(report.spawned()[1]));
    assert_eq!(report.entity(r2), None);
    assert_eq!(report.entity(r3), None);
    assert_eq!(
        report.rejected(),
        [
            rejected(r2, CommandKind::Spawn, None, RejectReason::OutOfIndices),
            rejected(r3, CommandKind::Spawn, None, RejectReason::OutOfIndices),
            rejected(r3, CommandKind::Remove, b, RejectReason::DeadEntity),
            rejected(r2, CommandKind::Add, a, RejectReason::DeadEntity),
            rejected(r2, CommandKind::Add, t, RejectReason::DeadEntity),
            rejected(r3, CommandKind::Despawn, None, RejectReason::DeadEntity),
        ]
    );
    assert!(report.rejected()[0]
        .to_string()
        .contains(&format!("spawn of {r2:?}")));
    assert!(report.rejected()[0]
        .to_string()
        .contains("out of entity indices"));
    assert_eq!(world.get::<A>(report.spawned()[0]), Some(&A(0)));
    assert_eq!(world.get::<B>(first), Some(&B(1)));
    assert_eq!(world.entity_count(), 3);
    assert_eq!(world.size::<A>(), 1);
    assert_eq!(tracker.dropped(), [1]);
    world.assert_invariants();
}

// ---------------------------------------------------------------------------
// A panicking Drop during apply: the rest stays queued for the next apply
// ---------------------------------------------------------------------------

#[test]
fn a_drop_that_panics_in_a_removal_leaves_the_rest_for_the_next_apply() {
    let mut tracker = Tracker::default();
    let mut world = Cw::new();
    let bombed = world.spawn_with((tracker.bomb(),)); // 1
    let plain = world.spawn_with((tracker.make(), A(0))); // 2
    let doomed = world.spawn();
    let dead = world.spawn();
    world.despawn(dead);

    let mut commands = Commands::new();
    let r = commands.spawn_with((A(1),));
    let gone = commands.spawn();
    commands.remove::<A>(dead); // rejected before the panic
    commands.remove::<T>(bombed); // panics
    commands.remove::<T>(plain);
    commands.add(r, tracker.make()); // 3
    commands.add(gone, B(2));
    commands.despawn(doomed);
    commands.despawn(gone);
    assert_eq!(commands.len(), 10);

    let before: Vec<Entity> = world.entities().collect();
    panics(|| {
        let _ = world.apply(&mut commands);
    });
    world.assert_invariants();
    // Applied: both spawns, the rejected removal and the bombed one.
    assert_eq!(commands.len(), 6);
    assert!(!commands.is_empty());
    assert_eq!(tracker.dropped(), [1]);
    assert!(!world.has::<T>(bombed));
    assert!(world.has::<T>(plain) && world.is_alive(doomed));
    let made = new_entities(&world, &before);
    assert_eq!(made.len(), 2, "the spawns happened");
    assert!(made.iter().all(|&e| !world.has::<A>(e)));

    let report = world.apply(&mut commands);
    world.assert_invariants();
    assert!(commands.is_empty());
    assert_eq!(commands.len(), 0);
    // The report covers both applies: the spawns and the rejection of the
    // interrupted one, and the reserved handles resolve to what it made.
    assert_eq!(report.spawned(), made);
    assert_eq!(report.entity(r), Some(made[0]));
    assert_eq!(report.entity(gone), Some(made[1]));
    assert_eq!(
        report.rejected(),
        [rejected(
            dead,
            CommandKind::Remove,
            Some(type_name::<A>()),
            RejectReason::DeadEntity
        )]
    );
    assert_eq!(world.get::<A>(made[0]), Some(&A(1)));
    assert_eq!(world.get::<T>(made[0]).map(|t| t.id), Some(3));
    assert!(!world.is_alive(made[1]) && !world.is_alive(doomed));
    assert!(!world.has::<T>(plain));
    assert_eq!(world.entity_count(), 3);
    assert_eq!(tracker.dropped_sorted(), [1, 2]);
    drop(world);
    tracker.assert_all_dropped_once();
}

#[test]
fn a_drop_that_panics_in_a_rejected_add_leaves_the_rest_for_the_next_apply() {
    let mut tracker = Tracker::default();
    let mut world = Cw::new();
    let has_t = world.spawn_with((tracker.make(),)); // 1
    let other = world.spawn();
    let spare = world.spawn();
    world.set_entity_limit(4); // room for one more entity

    let mut commands = Commands::new();
    let r = commands.spawn_with((B(1),));
    let no_room = commands.spawn(); // rejected: out of indices
    commands.add(has_t, tracker.bomb()); // 2: rejected, panics when dropped
    commands.add(other, tracker.make()); // 3
    commands.add(r, tracker.make()); // 4
    commands.despawn(spare);
    assert_eq!(commands.len(), 7);

    let before: Vec<Entity> = world.entities().collect();
    panics(|| {
        let _ = world.apply(&mut commands);
    });
    world.assert_invariants();
    // Applied: the spawns (one made, one rejected), the B add, the bomb.
    assert_eq!(commands.len(), 3);
    assert_eq!(tracker.dropped(), [2]);
    let made = new_entities(&world, &before);
    assert_eq!(made.len(), 1);
    assert_eq!(world.get::<B>(made[0]), Some(&B(1)));
    assert!(!world.has::<T>(other) && world.is_alive(spare));

    // Room for one more, taken by a spawn queued after the panic; the
    // rejected spawn is not tried again.
    world.despawn(other);
    let later = commands.spawn();
    commands.add(later, A(7));
    let report = world.apply(&mut commands);
    world.assert_invariants();
    assert!(commands.is_empty());
    let t = Some(type_name::<T>());
    assert_eq!(
        report.rejected(),
        [
            rejected(
                no_room,
                CommandKind::Spawn,
                None,
                RejectReason::OutOfIndices
            ),
            rejected(has_t, CommandKind::Add, t, RejectReason::AlreadyPresent),
            rejected(other, CommandKind::Add, t, RejectReason::DeadEntity),
        ]
    );
    assert_eq!(report.spawned().len(), 2);
    assert_eq!(report.spawned()[0], made[0]);
    assert_eq!(report.entity(r), Some(made[0]));
    assert_eq!(report.entity(no_room), None);
    let later_real = report.entity(later).unwrap();
    assert_eq!(report.spawned()[1], later_real);
    assert_eq!(world.get::<A>(later_real), Some(&A(7)));
    assert_eq!(world.get::<T>(made[0]).map(|t| t.id), Some(4));
    assert!(!world.is_alive(spare));
    assert_eq!(tracker.dropped_sorted(), [2, 3]);
    drop(world);
    tracker.assert_all_dropped_once();
}

#[test]
fn a_drop_that_panics_in_a_despawn_leaves_the_rest_for_the_next_apply() {
    let mut tracker = Tracker::default();
    let mut world = Cw::new();
    let bombed = world.spawn_with((tracker.bomb(), A(0))); // 1
    let later: Vec<Entity> = (0..2)
        .map(|_| world.spawn_with((tracker.make(),)))
        .collect(); // 2, 3

    let mut commands = Commands::new();
    let r = commands.spawn_with((tracker.make(),)); // 4
    commands.despawn(bombed);
    commands.despawn(later[0]);
    commands.despawn(r);
    commands.despawn(later[1]);
    commands.despawn(later[1]); // rejected in the second apply
    let before: Vec<Entity> = world.entities().collect();
    panics(|| {
        let _ = world.apply(&mut commands);
    });
    world.assert_invariants();
    assert_eq!(commands.len(), 4, "four despawns left");
    assert!(!world.is_alive(bombed));
    assert_eq!(tracker.dropped(), [1]);
    let made = new_entities(&world, &before);
    assert_eq!(made.len(), 1);
    assert_eq!(world.get::<T>(made[0]).map(|t| t.id), Some(4));
    assert!(later.iter().all(|&e| world.is_alive(e)));

    let report = world.apply(&mut commands);
    world.assert_invariants();
    assert_eq!(report.spawned(), made);
    assert_eq!(report.entity(r), Some(made[0]));
    assert_eq!(
        report.rejected(),
        [rejected(
            later[1],
            CommandKind::Despawn,
            None,
            RejectReason::DeadEntity
        )]
    );
    assert_eq!(world.entity_count(), 0);
    tracker.assert_all_dropped_once();
}

#[test]
fn a_buffer_cleared_or_dropped_after_a_panic_drops_the_rest_once() {
    for clear in [true, false] {
        let mut tracker = Tracker::default();
        let mut world = Cw::new();
        let bombed = world.spawn_with((tracker.bomb(),)); // 1
        let mut commands = Commands::new();
        commands.remove::<T>(bombed);
        let r = commands.spawn();
        commands.add(r, tracker.make()); // 2
        commands.add(bombed, tracker.make()); // 3
        panics(|| {
            let _ = world.apply(&mut commands);
        });
        assert_eq!(commands.len(), 2);
        assert_eq!(tracker.dropped(), [1]);
        if clear {
            commands.clear();
            assert!(commands.is_empty());
            assert_eq!(tracker.dropped_sorted(), [1, 2, 3]);
            // A cleared buffer starts afresh: its old handles are stale.
            commands.add(r, A(1));
            let report = world.apply(&mut commands);
            assert_eq!(report.rejected().len(), 1);
            assert!(report.spawned().is_empty());
        } else {
            drop(commands);
            assert_eq!(tracker.dropped_sorted(), [1, 2, 3]);
        }
        world.assert_invariants();
        drop(world);
        tracker.assert_all_dropped_once();
    }
}

// ---------------------------------------------------------------------------
// Reservation numbers: a reserved handle never names another buffer's spawn
// ---------------------------------------------------------------------------

/// Reserved handles used to carry a 31-bit buffer id that wrapped, so a
/// handle kept across 2^31 `Commands::new()` calls named the spawn of a new
/// buffer. Their numbers are now unique in the program: jumping the counter
/// by 2^31 or 2^32 (which puts the new buffer's first handle on the kept
/// handle's index bits, unless another test reserves in between) changes
/// nothing.
#[test]
fn a_reserved_handle_kept_across_a_counter_jump_never_resolves_in_a_new_buffer() {
    let mut world = Cw::new();
    for jump in [1u64 << 31, (1 << 31) + 300, 1 << 32, (1 << 32) + 300] {
        let mut applied = Commands::<Cw>::new();
        let kept = applied.spawn();
        let kept_real = world.apply(&mut applied).entity(kept).unwrap();
        let mut unapplied = Commands::<Cw>::new();
        let foreign = unapplied.spawn();
        advance_reservations_for_tests(jump - 2 * 256);

        let mut fresh = Commands::new();
        let handles: Vec<Entity> = (0..300).map(|_| fresh.spawn()).collect();
        assert!(!handles.contains(&kept) && !handles.contains(&foreign));
        assert!(reservation_number(handles[0]) >= reservation_number(kept) + jump);
        fresh.add(kept, A(1));
        fresh.add(foreign, A(2));
        let report = world.apply(&mut fresh);
        let a = Some(type_name::<A>());
        assert_eq!(
            report.rejected(),
            [
                rejected(kept, CommandKind::Add, a, RejectReason::DeadEntity),
                rejected(foreign, CommandKind::Add, a, RejectReason::DeadEntity),
            ]
        );
        assert_eq!(report.entity(kept), None);
        assert_eq!(report.entity(foreign), None);
        for (ordinal, &handle) in handles.iter().enumerate() {
            assert_eq!(report.entity(handle), Some(report.spawned()[ordinal]));
        }
        assert_eq!(world.size::<A>(), 0);
        assert!(world.is_alive(kept_real));

        // The buffers that made them do not take them back either.
        applied.add(kept, B(1));
        assert_eq!(world.apply(&mut applied).rejected().len(), 1);
        assert_eq!(world.size::<B>(), 0);
        drop(unapplied);
    }
    world.assert_invariants();
}

/// Two buffers reserving in turn take interleaved blocks of numbers: each
/// resolves its own handles, across its blocks, and none of the other's.
#[test]
fn reserved_handles_of_interleaved_buffers_resolve_only_in_their_own() {
    let mut world = Cw::new();
    let (mut first, mut second) = (Commands::<Cw>::new(), Commands::<Cw>::new());
    let mut mine = Vec::new();
    let mut theirs = Vec::new();
    for round in 0..600 {
        mine.push(first.spawn());
        theirs.push(second.spawn());
        if round == 400 {
            advance_reservations_for_tests(1 << 32);
        }
    }
    for &handle in theirs.iter().step_by(50) {
        first.add(handle, A(0));
    }
    let report = world.apply(&mut first);
    assert_eq!(report.rejected().len(), 12);
    assert!(report
        .rejected()
        .iter()
        .all(|r| r.reason == RejectReason::DeadEntity));
    assert_eq!(report.spawned().len(), 600);
    for (ordinal, &handle) in mine.iter().enumerate() {
        assert_eq!(report.entity(handle), Some(report.spawned()[ordinal]));
    }
    assert!(theirs.iter().all(|&handle| report.entity(handle).is_none()));
    assert_eq!(world.size::<A>(), 0);

    let other_report = world.apply(&mut second);
    assert!(clean(&other_report));
    assert!(mine
        .iter()
        .all(|&handle| other_report.entity(handle).is_none()));
    for (ordinal, &handle) in theirs.iter().enumerate() {
        assert_eq!(
            other_report.entity(handle),
            Some(other_report.spawned()[ordinal])
        );
    }
    assert_eq!(world.entity_count(), 1200);
}

// ---------------------------------------------------------------------------
// insert: add or replace

#[test]
fn insert_adds_or_replaces_and_drops_each_value_once() {
    let mut tracker = Tracker::default();
    let mut world = Cw::new();
    let has = world.spawn_with((tracker.make(),)); // 1
    let lacks = world.spawn();
    let dead = world.spawn();
    assert!(world.despawn(dead));
    let mut commands = Commands::new();
    commands.insert(has, tracker.make()); // 2 replaces 1
    commands.insert(lacks, tracker.make()); // 3 is added
    commands.insert(dead, tracker.make()); // 4 is rejected
    let reserved = commands.spawn();
    commands.insert(reserved, tracker.make()); // 5 on a spawned entity
    commands.insert(reserved, tracker.make()); // 6 replaces 5
    let report = world.apply(&mut commands);
    assert_eq!(report.rejected().len(), 1);
    assert_eq!(report.rejected()[0].reason, RejectReason::DeadEntity);
    assert_eq!(report.rejected()[0].command, CommandKind::Insert);
    assert!(report.rejected()[0].to_string().starts_with("insert of `"));
    assert_eq!(tracker.dropped_sorted(), [1, 4, 5]);
    assert_eq!(world.get::<T>(has).map(|t| t.id), Some(2));
    assert_eq!(world.get::<T>(lacks).map(|t| t.id), Some(3));
    let real = report.entity(reserved).unwrap();
    assert_eq!(world.get::<T>(real).map(|t| t.id), Some(6));
    world.assert_invariants();
    drop(world);
    assert_eq!(tracker.dropped_sorted(), [1, 2, 3, 4, 5, 6]);
}

#[test]
fn an_add_after_an_insert_is_rejected_but_an_insert_after_an_add_replaces() {
    let mut world = Cw::new();
    let e = world.spawn();
    let mut commands = Commands::new();
    commands.insert(e, A(1));
    commands.add(e, A(2));
    commands.add(e, B(1));
    commands.insert(e, B(2));
    let report = world.apply(&mut commands);
    assert_eq!(report.rejected().len(), 1);
    assert_eq!(report.rejected()[0].reason, RejectReason::AlreadyPresent);
    assert_eq!(
        (world.get::<A>(e), world.get::<B>(e)),
        (Some(&A(1)), Some(&B(2)))
    );
}
