//! Misuse and faults: panics in user code mid-operation, the edges of the
//! entity id space, unusual component types, and handles from another world.
//! After each fault the world must pass `assert_invariants` and every
//! component must be accounted for: none duplicated, none leaked beyond the
//! one whose code panicked.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

use static_assertions::{assert_impl_all, assert_not_impl_any};
use typed_ecs::prelude::*;
use typed_ecs::{CommandKind, RejectReason};

/// Counts live values: +1 on creation and clone, -1 on drop. Panics in
/// `clone` when `clone_fuse` reaches 1, and in `drop` when `explode` is set.
struct Counted {
    live: Rc<Cell<i64>>,
    clone_fuse: Rc<Cell<u32>>,
    explode: bool,
    value: u32,
}

impl Counted {
    fn new(live: &Rc<Cell<i64>>, fuse: &Rc<Cell<u32>>, value: u32) -> Self {
        live.set(live.get() + 1);
        Counted {
            live: live.clone(),
            clone_fuse: fuse.clone(),
            explode: false,
            value,
        }
    }
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        let fuse = self.clone_fuse.get();
        if fuse == 1 {
            self.clone_fuse.set(0);
            panic!("clone fuse blew");
        }
        self.clone_fuse.set(fuse.saturating_sub(1));
        Counted::new(&self.live, &self.clone_fuse, self.value)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.live.set(self.live.get() - 1);
        if self.explode && !std::thread::panicking() {
            panic!("drop bomb for value {}", self.value);
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Marker;

#[derive(Clone)]
struct Big([u8; 4096]);

world! {
    #[derive(Clone)]
    struct Game {
        counted: Counted,
        marker: Marker,
        big: Big,
        level: u32,
    }
}

struct Fixture {
    live: Rc<Cell<i64>>,
    fuse: Rc<Cell<u32>>,
}

impl Fixture {
    fn new() -> Self {
        Fixture {
            live: Rc::new(Cell::new(0)),
            fuse: Rc::new(Cell::new(0)),
        }
    }

    fn counted(&self, value: u32) -> Counted {
        Counted::new(&self.live, &self.fuse, value)
    }

    fn bomb(&self, value: u32) -> Counted {
        let mut counted = self.counted(value);
        counted.explode = true;
        counted
    }
}

fn quietly<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(hook);
    result
}

#[test]
fn a_system_that_panics_mid_schedule_leaves_a_consistent_world() {
    let fixture = Fixture::new();
    let mut world = Game::new();
    for value in 0..10 {
        world.spawn_with((fixture.counted(value), value));
    }
    let mut schedule = Schedule::new();
    schedule
        .add_system_named("queue", |world: &mut Game| {
            let entities: Vec<Entity> = world.entities().collect();
            for e in entities {
                world.remove_deferred::<u32>(e);
                world.add_deferred(e, Marker);
            }
        })
        .add_system_named("explode", |world: &mut Game| {
            let first = world.entities().next().unwrap();
            world.despawn(first);
            panic!("a system failed");
        })
        .add_sync_point();

    assert!(quietly(|| schedule.run(&mut world)).is_err());
    world.assert_invariants();
    // The first system ran, the despawn happened, the sync point did not.
    assert_eq!(world.entity_count(), 9);
    assert_eq!(fixture.live.get(), 9);
    assert_eq!(world.size::<Marker>(), 0);
    world.finalize_updates();
    world.assert_invariants();
    assert_eq!((world.size::<Marker>(), world.size::<u32>()), (9, 0));
    drop(world);
    assert_eq!(fixture.live.get(), 0);
}

#[test]
fn a_clone_that_panics_while_cloning_a_world_leaks_nothing() {
    let fixture = Fixture::new();
    let mut world = Game::new();
    let handles: Vec<Entity> = (0..20)
        .map(|value| world.spawn_with((fixture.counted(value), Marker)))
        .collect();
    world.despawn(handles[3]);
    assert_eq!(fixture.live.get(), 19);

    fixture.fuse.set(12); // the 12th clone panics
    assert!(quietly(|| world.clone()).is_err());
    // The half-built clone was dropped: only the original's values live.
    assert_eq!(fixture.live.get(), 19);
    world.assert_invariants();
    assert!(!world.is_alive(handles[3]));
    for (value, &e) in handles.iter().enumerate() {
        if value != 3 {
            assert_eq!(world.get::<Counted>(e).map(|c| c.value), Some(value as u32));
        }
    }

    let copy = world.clone();
    copy.assert_invariants();
    assert_eq!(fixture.live.get(), 38);
    drop(copy);
    drop(world);
    assert_eq!(fixture.live.get(), 0);
}

#[test]
fn a_drop_that_panics_while_the_world_drops_still_drops_the_rest() {
    let fixture = Fixture::new();
    let mut world = Game::new();
    for value in 0..10 {
        world.spawn_with((fixture.counted(value),));
    }
    world.spawn_with((fixture.bomb(99),));
    for value in 10..20 {
        world.spawn_with((fixture.counted(value),));
    }
    assert_eq!(fixture.live.get(), 21);
    assert!(quietly(move || drop(world)).is_err());
    assert_eq!(fixture.live.get(), 0);
}

#[test]
fn a_drop_that_panics_while_commands_apply_leaves_a_consistent_world() {
    let fixture = Fixture::new();
    let mut world = Game::new();
    let bomb = world.spawn_with((fixture.bomb(1),));
    let plain = world.spawn_with((fixture.counted(2),));
    let mut commands = Commands::new();
    commands.remove::<Counted>(bomb);
    commands.remove::<Counted>(plain);
    commands.add(plain, Marker);
    assert!(quietly(|| {
        let _ = world.apply(&mut commands);
    })
    .is_err());
    world.assert_invariants();
    assert!(!world.has::<Counted>(bomb));
    assert_eq!(fixture.live.get(), 1, "only the remaining value lives");
    drop(commands);
    drop(world);
    assert_eq!(fixture.live.get(), 0);
}

#[test]
fn a_slot_whose_generation_would_wrap_is_retired_for_good() {
    let mut world = Game::new();
    let first = world.spawn_with((7u32,));
    assert!(world.despawn(first));
    world.entities.fast_forward_free_generations(u32::MAX - 1);

    let second_to_last = world.spawn_with((8u32,));
    assert_eq!(second_to_last.index(), first.index());
    assert_eq!(second_to_last.generation(), u32::MAX - 1);
    assert!(world.despawn(second_to_last));
    let last = world.spawn();
    assert_eq!((last.index(), last.generation()), (first.index(), u32::MAX));
    assert!(world.despawn(last));
    world.assert_invariants();

    // The slot is retired: new entities get fresh indices from now on.
    let fresh: Vec<Entity> = (0..5).map(|_| world.spawn()).collect();
    assert!(fresh.iter().all(|e| e.index() != first.index()));
    for stale in [first, second_to_last, last] {
        assert!(!world.is_alive(stale));
        assert_eq!(world.get::<u32>(stale), None);
    }
    world.assert_invariants();
}

#[test]
fn fast_forwarding_generations_never_revives_a_handle() {
    let mut world = Game::new();
    let handles: Vec<Entity> = (0..8).map(|_| world.spawn()).collect();
    for &e in &handles[..4] {
        world.despawn(e);
    }
    // Moving backwards is ignored: generations only grow.
    world.entities.fast_forward_free_generations(1);
    let reused: Vec<Entity> = (0..4).map(|_| world.spawn()).collect();
    for e in &reused {
        assert!(!handles.contains(e));
    }
    assert!(handles[4..].iter().all(|&e| world.is_alive(e)));
}

#[test]
fn running_out_of_indices_is_an_error_or_a_clear_panic() {
    let fixture = Fixture::new();
    let mut world = Game::new();
    world.set_entity_limit(3);
    let spawned: Vec<Entity> = (0..3).map(|_| world.spawn()).collect();

    let error = world.try_spawn().unwrap_err();
    assert!(
        error.to_string().contains("out of entity indices"),
        "{error}"
    );
    let error = world
        .try_spawn_with((fixture.counted(5), Marker))
        .unwrap_err();
    let (counted, Marker) = error.into_inner();
    assert_eq!(counted.value, 5, "the bundle comes back");
    drop(counted);

    let panic = quietly(|| world.spawn()).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("Game") && message.contains("out of entity indices"),
        "{message}"
    );

    // Commands: the spawn and the commands on its reserved handle are reported.
    let mut commands = Commands::new();
    let reserved = commands.spawn_with((Marker,));
    commands.add(reserved, 1u32);
    let report = world.apply(&mut commands);
    let kinds: Vec<(CommandKind, RejectReason)> = report
        .rejected()
        .iter()
        .map(|r| (r.command, r.reason))
        .collect();
    assert_eq!(
        kinds,
        [
            (CommandKind::Spawn, RejectReason::OutOfIndices),
            (CommandKind::Add, RejectReason::DeadEntity),
            (CommandKind::Add, RejectReason::DeadEntity),
        ]
    );
    assert!(report.spawned().is_empty());

    // Freeing an index makes room again.
    world.despawn(spawned[1]);
    assert!(world.try_spawn().is_ok());
    world.assert_invariants();
    assert_eq!(fixture.live.get(), 0);
}

#[test]
fn zero_sized_and_very_large_components_work() {
    assert_eq!(std::mem::size_of::<Marker>(), 0);
    let mut world = Game::new();
    let handles: Vec<Entity> = (0..50u8)
        .map(|i| {
            let mut bytes = [0u8; 4096];
            bytes
                .iter_mut()
                .enumerate()
                .for_each(|(j, b)| *b = i.wrapping_add(j as u8));
            world.spawn_with((Marker, Big(bytes)))
        })
        .collect();
    for &e in handles.iter().step_by(3) {
        world.remove::<Big>(e);
        world.remove::<Marker>(e);
    }
    for (i, &e) in handles.iter().enumerate() {
        let kept = i % 3 != 0;
        assert_eq!(world.has::<Marker>(e), kept);
        match world.get::<Big>(e) {
            Some(big) => {
                assert!(kept);
                assert!(big
                    .0
                    .iter()
                    .enumerate()
                    .all(|(j, &b)| b == (i as u8).wrapping_add(j as u8)));
            }
            None => assert!(!kept),
        }
    }
    let with_both = world.query::<(&Marker, &Big)>().count();
    assert_eq!(with_both, handles.len() - handles.len().div_ceil(3));
    world.assert_invariants();
}

world! { struct Shared<u32, Marker>; }

world! {
    /// A world of non-`Send` components is not `Send` either.
    struct Local { counter: Rc<Cell<u32>> }
}

assert_impl_all!(Shared: Send, Sync);
assert_not_impl_any!(Local: Send, Sync);
assert_impl_all!(Commands<Shared>: Send, Sync);
assert_not_impl_any!(Commands<Local>: Send);

#[test]
fn non_send_components_work_on_their_thread() {
    let mut world = Local::new();
    let shared = Rc::new(Cell::new(0));
    let e = world.spawn_with((shared.clone(),));
    world.get::<Rc<Cell<u32>>>(e).unwrap().set(5);
    assert_eq!(shared.get(), 5);
    world.despawn(e);
    assert_eq!(Rc::strong_count(&shared), 1);
}

/// A handle carries no world identity: in another world it names whatever
/// that world has at the same index and generation, or nothing. This is
/// documented on `Entity`; a check would need room the 8-byte handle lacks.
#[test]
fn a_handle_from_another_world_is_only_an_index_and_generation() {
    let mut first = Shared::new();
    let mut second = Shared::new();
    let a = first.spawn_with((1u32,));
    let far = {
        for _ in 0..10 {
            first.spawn();
        }
        first.spawn()
    };
    // Nothing at that index in `second`: it finds nothing.
    assert!(!second.is_alive(far));
    assert_eq!(second.get::<u32>(far), None);
    // Same index and generation in `second`: it names `second`'s entity.
    let b = second.spawn_with((2u32,));
    assert_eq!(a, b);
    assert_eq!(second.get::<u32>(a), Some(&2));
}

// ----- a panicking Drop in `finalize_updates` keeps the rest queued -----

/// A value with an id that logs its drop in a shared ledger. An armed one
/// panics in `drop` (after logging), unless a panic is already unwinding.
struct Loud {
    id: u32,
    ledger: Rc<RefCell<Vec<u32>>>,
    armed: bool,
}

impl std::fmt::Debug for Loud {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Loud({})", self.id)
    }
}

impl Drop for Loud {
    fn drop(&mut self) {
        self.ledger.borrow_mut().push(self.id);
        if self.armed && !std::thread::panicking() {
            panic!("Loud({}) panics in drop", self.id);
        }
    }
}

/// Makes `Loud` values with fresh ids and checks that each was dropped
/// exactly once.
#[derive(Default)]
struct Ledger {
    log: Rc<RefCell<Vec<u32>>>,
    made: Cell<u32>,
}

impl Ledger {
    fn make(&self) -> Loud {
        self.made.set(self.made.get() + 1);
        Loud {
            id: self.made.get(),
            ledger: Rc::clone(&self.log),
            armed: false,
        }
    }

    fn bomb(&self) -> Loud {
        let mut bomb = self.make();
        bomb.armed = true;
        bomb
    }

    /// The ids dropped so far, sorted.
    fn dropped(&self) -> Vec<u32> {
        let mut ids = self.log.borrow().clone();
        ids.sort_unstable();
        ids
    }

    #[track_caller]
    fn assert_all_dropped_once(&self) {
        assert_eq!(self.dropped(), (1..=self.made.get()).collect::<Vec<_>>());
    }
}

world! {
    #[derive(Debug)]
    struct Deferred<Loud, Marker, u32>;
}

world! {
    #[derive(Debug)]
    struct GroupedDeferred<Loud, Marker, u32>;
    group (Loud, u32);
}

/// Everything a world queues, as its `Debug` shows it: the counts of queued
/// adds and removes of each component that has any, and the queued
/// despawns.
fn queued<W: std::fmt::Debug>(world: &W) -> String {
    let text = format!("{world:?}");
    let mut parts: Vec<&str> = text
        .match_indices("(queued: ")
        .map(|(at, _)| {
            let rest = &text[at..];
            &rest[..=rest.find(')').unwrap()]
        })
        .filter(|&counts| counts != "(queued: 0 adds, 0 removes)")
        .collect();
    let at = text.find("__despawns: ").unwrap();
    let rest = &text[at..];
    parts.push(&rest[..=rest.find(']').unwrap()]);
    parts.join(" ")
}

/// Runs `finalize_updates`, which must panic.
#[track_caller]
fn finalize_panics<W: World>(world: &mut W) {
    assert!(
        quietly(|| world.finalize_updates()).is_err(),
        "the bomb went off"
    );
    world.assert_invariants();
}

fn removal_panics<W>()
where
    W: World + Default + std::fmt::Debug + Contains<Loud> + Contains<Marker> + Contains<u32>,
{
    let ledger = Ledger::default();
    let mut world = W::default();
    let bombed = world.spawn_with((ledger.bomb(), 0u32)); // 1
    let others: Vec<Entity> = (1..=5u32)
        .map(|i| world.spawn_with((ledger.make(), i))) // 2..=6
        .collect();
    world.remove_deferred::<Loud>(bombed);
    world.remove_deferred::<Loud>(others[0]);
    world.remove_deferred::<Loud>(others[1]);
    world.remove_deferred::<u32>(others[1]);
    world.add_deferred(others[2], Marker);
    world.remove_deferred::<Loud>(others[2]);
    world.add_deferred(others[2], ledger.make()); // 7 replaces 4
    world.despawn_deferred(others[3]);
    world.despawn_deferred(others[4]);

    finalize_panics(&mut world);
    // The first removal happened and its value was dropped (the panic);
    // nothing else was applied, and everything else is still queued.
    assert_eq!(ledger.dropped(), [1]);
    assert!(!world.has::<Loud>(bombed));
    assert!(others
        .iter()
        .all(|&e| world.is_alive(e) && world.has::<Loud>(e)));
    assert_eq!(world.size::<Marker>(), 0);

    world.finalize_updates();
    world.assert_invariants();
    assert_eq!(queued(&world), "__despawns: []");
    assert_eq!(ledger.dropped(), [1, 2, 3, 4, 5, 6]);
    assert!(!world.has::<Loud>(others[0]) && !world.has::<Loud>(others[1]));
    assert!(!world.has::<u32>(others[1]) && world.has::<u32>(others[0]));
    assert!(world.has::<Marker>(others[2]));
    assert_eq!(world.get::<Loud>(others[2]).map(|l| l.id), Some(7));
    assert!(!world.is_alive(others[3]) && !world.is_alive(others[4]));
    assert_eq!(world.entity_count(), 4);
    drop(world);
    ledger.assert_all_dropped_once();
}

fn replaced_addition_panics<W>()
where
    W: World + Default + std::fmt::Debug + Contains<Loud> + Contains<Marker> + Contains<u32>,
{
    let ledger = Ledger::default();
    let mut world = W::default();
    let first = world.spawn_with((0u32,));
    let others: Vec<Entity> = (1..=4u32).map(|i| world.spawn_with((i,))).collect();
    world.add_deferred(first, ledger.make()); // 1: replaces the bomb below
    for &e in &others[..2] {
        world.add_deferred(e, ledger.make()); // 2, 3
    }
    world.add(first, ledger.bomb()); // 4: added now, replaced at the sync point
    world.add_deferred(others[2], Marker);
    world.remove_deferred::<u32>(others[2]);
    world.add_deferred(others[2], 20u32);
    world.despawn_deferred(others[3]);
    world.despawn_deferred(others[1]);

    finalize_panics(&mut world);
    // The first queued add replaced the bomb, whose drop panicked.
    assert_eq!(ledger.dropped(), [4]);
    assert_eq!(world.get::<Loud>(first).map(|l| l.id), Some(1));
    assert!(!world.has::<Loud>(others[0]) && !world.has::<Marker>(others[2]));
    assert!(others.iter().all(|&e| world.is_alive(e)));

    world.finalize_updates();
    world.assert_invariants();
    assert_eq!(queued(&world), "__despawns: []");
    assert_eq!(world.get::<Loud>(others[0]).map(|l| l.id), Some(2));
    assert!(world.has::<Marker>(others[2]));
    assert_eq!(world.get::<u32>(others[2]), Some(&20));
    assert!(!world.is_alive(others[1]) && !world.is_alive(others[3]));
    assert_eq!(ledger.dropped(), [3, 4], "the despawned entity's add");
    drop(world);
    ledger.assert_all_dropped_once();
}

fn despawn_panics<W>()
where
    W: World + Default + std::fmt::Debug + Contains<Loud> + Contains<Marker> + Contains<u32>,
{
    let ledger = Ledger::default();
    let mut world = W::default();
    let bombed = world.spawn_with((ledger.bomb(), 0u32)); // 1
    let others: Vec<Entity> = (1..=3u32)
        .map(|i| world.spawn_with((ledger.make(), i))) // 2, 3, 4
        .collect();
    world.despawn_deferred(bombed);
    world.despawn_deferred(others[0]);
    world.despawn_deferred(others[1]);

    finalize_panics(&mut world);
    assert!(!world.is_alive(bombed));
    assert_eq!(ledger.dropped(), [1]);
    assert!(
        world.is_alive(others[0]) && world.is_alive(others[1]),
        "the later despawns are still queued"
    );
    assert_eq!(
        queued(&world),
        format!("__despawns: [{:?}, {:?}]", others[0], others[1])
    );
    // Changes queued after the panic join the rest.
    world.add_deferred(others[2], Marker);
    world.despawn_deferred(others[2]);

    world.finalize_updates();
    world.assert_invariants();
    assert_eq!(queued(&world), "__despawns: []");
    assert_eq!(world.entity_count(), 0);
    assert_eq!(ledger.dropped(), [1, 2, 3, 4]);
    drop(world);
    ledger.assert_all_dropped_once();
}

#[test]
fn a_drop_that_panics_in_finalize_removals_keeps_the_rest_queued() {
    removal_panics::<Deferred>();
    removal_panics::<GroupedDeferred>();
}

#[test]
fn a_drop_that_panics_in_finalize_additions_keeps_the_rest_queued() {
    replaced_addition_panics::<Deferred>();
    replaced_addition_panics::<GroupedDeferred>();
}

#[test]
fn a_drop_that_panics_in_finalize_despawns_keeps_the_rest_queued() {
    despawn_panics::<Deferred>();
    despawn_panics::<GroupedDeferred>();
}
