//! `Commands`: a typed buffer of spawns, adds, removes and despawns, filled
//! while the world is borrowed by a query and applied with `world.apply`, in
//! the order spawns, removals, additions, despawns. Every rejected command is
//! reported, and every component the buffer holds is dropped exactly once.

use std::any::type_name;
use std::cell::RefCell;
use std::rc::Rc;

use typed_ecs::commands::{CommandKind, RejectReason, Rejected};
use typed_ecs::prelude::*;
use typed_ecs::ApplyReport;

#[derive(Debug, Clone, Copy, PartialEq)]
struct A(u32);

#[derive(Debug, Clone, Copy, PartialEq)]
struct B(u32);

/// A component that logs its id when dropped.
#[derive(Debug)]
struct T {
    id: u32,
    log: Rc<RefCell<Vec<u32>>>,
}

impl Drop for T {
    fn drop(&mut self) {
        self.log.borrow_mut().push(self.id);
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
        }
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
    assert!(format!("{plain:?}").starts_with("reserved#0@"));
    assert!(format!("{bundled:?}").starts_with("reserved#1@"));
    assert!(format!("{empty}").starts_with("reserved#2@"));
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
        format!("{again:?}").starts_with("reserved#0@"),
        "ordinals restart"
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
        texts[1].contains("remove first"),
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
    assert!(report.rejected()[0].to_string().contains("reserved#0"));

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
    // Ordinals restart after clear.
    assert!(format!("{:?}", commands.spawn()).starts_with("reserved#0@"));
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

/// A reserved handle carries the id of the buffer (and apply round) that
/// made it: in another buffer, or in the same buffer after an apply, it
/// names nothing and its commands are rejected.
#[test]
fn reserved_handle_from_another_buffer_is_not_alive() {
    let mut world = Cw::new();
    let mut first = Commands::<Cw>::new();
    let foreign = first.spawn(); // reserved#0 of `first`, never applied

    let mut second = Commands::new();
    let own = second.spawn(); // reserved#0 of `second`
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
    world.entities.limit_indices(3); // room for two more
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
    assert!(report.rejected()[0].to_string().contains("reserved#2"));
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
