//! Every reader of a tracked component sees exactly what happened since
//! its own previous look, against a model: random operations on a world
//! (every way to add, change and remove a `Pos`, precise and bulk writes,
//! deferred changes and `Commands`, a whole new world, a clone, a load, a
//! storage replaced in its field) interleaved with runs of three schedules,
//! each with its own `Seen<Pos>` reader, at random rates; one schedule has
//! a member that panics at random, cutting its run short before its reader
//! looks. The world's own view (`clear_changes`, `Changed`, `removed`) is a
//! fourth reader.
//!
//! The model numbers every event. A reader that looked at event `n` must
//! next report the entities changed, added and removed after `n`, each
//! once; a reader whose storage was replaced since (a new, cloned or
//! loaded world, or a new storage in the field) must report every stored
//! entity as added and changed, and only removals that happened to the new
//! storage. Every value is dropped exactly once.
//!
//! `SEEN_SEQUENCES` sets the number of sequences (default 200; CI runs
//! 10,000 in release).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use typed_ecs::prelude::*;
use typed_ecs::Seen;
use typed_ecs::Tracked;
use typed_ecs::{join, Added, Changed};

#[path = "support/observed.rs"]
mod observed;
#[path = "support/rng.rs"]
mod rng;

use observed::{as_set, sorted, Look};

use rng::Rng;

thread_local! {
    static LIVE: RefCell<i64> = const { RefCell::new(0) };
    /// How often each kind of case came up, over all sequences.
    static SEEN: RefCell<BTreeMap<&'static str, u64>> = const { RefCell::new(BTreeMap::new()) };
}

fn count(what: &'static str) {
    SEEN.with(|seen| *seen.borrow_mut().entry(what).or_default() += 1);
}

/// A value that counts itself: made +1, dropped -1 (a load makes values
/// through `From<u64>`).
#[derive(Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(from = "u64", into = "u64")
)]
struct Pos(u64);

impl Pos {
    fn new(v: u64) -> Pos {
        LIVE.with(|l| *l.borrow_mut() += 1);
        Pos(v)
    }
}

impl From<u64> for Pos {
    fn from(v: u64) -> Pos {
        Pos::new(v)
    }
}

impl From<Pos> for u64 {
    fn from(p: Pos) -> u64 {
        p.0
    }
}

impl Clone for Pos {
    fn clone(&self) -> Pos {
        Pos::new(self.0)
    }
}

impl Drop for Pos {
    fn drop(&mut self) {
        LIVE.with(|l| *l.borrow_mut() -= 1);
    }
}

#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Tag;

#[cfg(feature = "serde")]
world! {
    #[derive(Clone, serde::Serialize, serde::Deserialize)]
    struct Game<Pos, Tag>;
    tracked (Pos);
}

#[cfg(not(feature = "serde"))]
world! {
    #[derive(Clone)]
    struct Game<Pos, Tag>;
    tracked (Pos);
}

/// A reader, as the model sees it: the event of its last look, or, if its
/// storage was replaced since, the event of the replacement.
#[derive(Clone, Copy, Debug, Default)]
struct Reader {
    since: u64,
    /// The storage was replaced at event `since`: the next look sees it
    /// whole.
    whole: bool,
}

/// What the model keeps: for each entity with `Pos`, the events of its add
/// and latest change; every removal, with its event.
#[derive(Default)]
struct Model {
    event: u64,
    pos: BTreeMap<Entity, (u64, u64)>,
    tag: BTreeSet<Entity>,
    removals: Vec<(u64, Entity)>,
    alive: Vec<Entity>,
    dead: Vec<Entity>,
    readers: Vec<Reader>,
    world: Reader,
}

impl Model {
    fn tick(&mut self) -> u64 {
        self.event += 1;
        self.event
    }
    fn added(&mut self, e: Entity) {
        let t = self.tick();
        self.pos.insert(e, (t, t));
    }
    fn changed(&mut self, e: Entity) {
        let t = self.tick();
        if std::env::var("SEEN_TRACE").is_ok() {
            eprintln!("  changed {e:?} at event {t}");
        }
        self.pos.get_mut(&e).expect("the model has it").1 = t;
    }
    fn removed(&mut self, e: Entity) {
        if self.pos.remove(&e).is_some() {
            let t = self.tick();
            if std::env::var("SEEN_TRACE").is_ok() {
                eprintln!("  removed {e:?} at event {t}");
            }
            self.removals.push((t, e));
        }
    }
    /// The storage was replaced: every reader (the world's too, if `world`)
    /// sees the new one whole at its next look.
    fn replaced(&mut self, world: bool) {
        let t = self.tick();
        let whole = Reader {
            since: t,
            whole: true,
        };
        for reader in &mut self.readers {
            *reader = whole;
        }
        if world {
            self.world = whole;
        }
    }
    /// What `reader` must see now, and its next start.
    fn expect(&self, reader: Reader) -> Expected {
        let since = reader.since;
        let pick = |f: &dyn Fn(&(u64, u64)) -> bool| -> BTreeSet<Entity> {
            self.pos
                .iter()
                .filter(|(_, ev)| reader.whole || f(ev))
                .map(|(&e, _)| e)
                .collect()
        };
        let removed: Vec<Entity> = self
            .removals
            .iter()
            .filter(|&&(t, _)| t > since)
            .map(|&(_, e)| e)
            .collect();
        Expected {
            changed: pick(&|&(_, c)| c > since),
            added: pick(&|&(a, _)| a > since),
            removed: sorted(&removed),
            whole: reader.whole,
        }
    }
}

struct Expected {
    changed: BTreeSet<Entity>,
    added: BTreeSet<Entity>,
    removed: Vec<Entity>,
    /// Removals may be fewer (those of the new storage a reader that sees
    /// it whole never saw added): each reported one must be expected.
    whole: bool,
}

/// `sub` is a sub-multiset of `of` (both sorted).
fn is_sub_multiset(sub: &[Entity], of: &[Entity]) -> bool {
    let mut of = of.iter().peekable();
    sub.iter().all(|e| {
        while of.peek().is_some_and(|&o| o < e) {
            of.next();
        }
        of.next() == Some(e)
    })
}

fn check(look: &Look, expected: &Expected, who: &str, seed: u64, step: usize) {
    count(if expected.whole {
        "looks at a storage seen whole"
    } else {
        "looks checked exactly"
    });
    if !look.removed.is_empty() {
        count("looks that reported removals");
    }
    let context = format!("seed {seed}, step {step}: {who}");
    assert_eq!(
        as_set(&look.changed, "changed", seed),
        expected.changed,
        "{context}: changed"
    );
    assert_eq!(
        as_set(&look.added, "added", seed),
        expected.added,
        "{context}: added"
    );
    let removed = sorted(&look.removed);
    if expected.whole {
        assert!(
            is_sub_multiset(&removed, &expected.removed),
            "{context}: removed {removed:?}, not among {:?}",
            expected.removed
        );
    } else {
        assert_eq!(removed, expected.removed, "{context}: removed");
    }
}

/// What the driver tells a schedule's systems for one run.
#[derive(Default)]
struct Orders {
    /// The entity the writer stage changes (if it has a `Pos`).
    write_before: Option<Entity>,
    /// The member after the writer panics.
    panic: bool,
    /// The entity the reader changes after its look.
    write_after: Option<Entity>,
    /// What the reader saw.
    look: Option<Look>,
    /// Whether each write happened.
    wrote_before: bool,
    wrote_after: bool,
}

fn schedule(orders: Arc<Mutex<Orders>>) -> Schedule<Game> {
    let mut schedule = Schedule::new();
    let before = Arc::clone(&orders);
    let panicker = Arc::clone(&orders);
    let reader = orders;
    schedule
        .add_system(move |pos: &mut SparseMap<Pos, Tracked>| {
            let mut orders = before.lock().unwrap();
            if let Some(e) = orders.write_before {
                if let Some(p) = pos.get_mut(e) {
                    p.0 += 1;
                    orders.wrote_before = true;
                }
            }
        })
        .add_system(move |_: &SparseMap<Tag>| {
            let panic = panicker.lock().unwrap().panic;
            if panic {
                panic!("a member of the stage panics");
            }
        })
        .add_system(
            move |pos: &mut SparseMap<Pos, Tracked>, seen: &mut Seen<Pos>| {
                let mut look = Look::default();
                join(seen.changed(pos)).for_each(|e, _| look.changed.push(e));
                join(seen.added(pos)).for_each(|e, _| look.added.push(e));
                look.removed = seen.removed(pos).to_vec();
                // Looking twice in one run gives the same answer.
                assert_eq!(join(seen.changed(pos)).count(), look.changed.len());
                let mut orders = reader.lock().unwrap();
                orders.look = Some(look);
                if let Some(e) = orders.write_after {
                    if let Some(p) = pos.get_mut(e) {
                        p.0 += 1;
                        orders.wrote_after = true;
                    }
                }
            },
        );
    schedule
}

fn world_look(world: &mut Game) -> Look {
    let mut look = Look {
        changed: world.query::<Changed<&Pos>>().map(|(e, _)| e).collect(),
        ..Look::default()
    };
    world
        .query_mut::<Added<&Pos>>()
        .for_each(|e, _| look.added.push(e));
    look.removed = world.removed::<Pos>().to_vec();
    look
}

fn pick(rng: &mut Rng, list: &[Entity]) -> Option<Entity> {
    (!list.is_empty()).then(|| list[rng.index(list.len())])
}

fn run(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut world = Game::new();
    let mut model = Model::default();
    let orders: Vec<Arc<Mutex<Orders>>> = (0..3).map(|_| Arc::default()).collect();
    let mut schedules: Vec<Schedule<Game>> = orders.iter().cloned().map(schedule).collect();
    // A reader that never looked sees everything stored whole, and the
    // removals kept since it first ran.
    let never = Reader {
        since: 0,
        whole: true,
    };
    model.readers = vec![never; schedules.len()];
    let steps = 20 + rng.below(200) as usize;
    let trace = std::env::var("SEEN_TRACE").is_ok();
    for step in 0..steps {
        let op = rng.below(26);
        if trace {
            eprintln!("step {step}: op {op}, event {}", model.event);
        }
        match op {
            0..=2 => {
                let e = if rng.chance(50) {
                    world.spawn_with((Pos::new(1), Tag))
                } else {
                    world.spawn_with((Pos::new(1),))
                };
                model.alive.push(e);
                model.added(e);
                if world.has::<Tag>(e) {
                    model.tag.insert(e);
                }
            }
            3 => {
                let e = world.spawn();
                model.alive.push(e);
            }
            4 => {
                if let Some(e) = pick(&mut rng, &model.alive) {
                    if world.try_add(e, Pos::new(2)).is_ok() {
                        model.added(e);
                    }
                }
            }
            5 => {
                if let Some(e) = pick(&mut rng, &model.alive) {
                    let had = world.remove::<Pos>(e).is_some();
                    assert_eq!(had, model.pos.contains_key(&e), "seed {seed}");
                    model.removed(e);
                }
            }
            6 if !model.alive.is_empty() => {
                let e = model.alive.swap_remove(rng.index(model.alive.len()));
                assert!(world.despawn(e));
                model.removed(e);
                model.tag.remove(&e);
                model.dead.push(e);
            }
            7 => {
                if let Some(e) = pick(&mut rng, &model.alive) {
                    if let Some(p) = world.get_mut::<Pos>(e) {
                        p.0 += 1;
                        model.changed(e);
                    }
                }
            }
            8 => {
                if let Some(e) = pick(&mut rng, &model.alive) {
                    if world.insert(e, Pos::new(3)).is_some() {
                        model.changed(e);
                    } else {
                        model.added(e);
                    }
                }
            }
            9 => {
                for p in world.pos.values_mut() {
                    p.0 += 1;
                }
                for e in model.pos.keys().copied().collect::<Vec<_>>() {
                    model.changed(e);
                }
            }
            10 => {
                // A written term that another term rejects is not a change.
                let mut handed = Vec::new();
                world
                    .query_mut::<(&mut Pos, With<Tag>)>()
                    .for_each(|e, (p, ())| {
                        p.0 += 1;
                        handed.push(e);
                    });
                for e in handed {
                    model.changed(e);
                }
            }
            11 => {
                // A `for` loop left early marks what it yielded.
                let stop = rng.below(4) as usize;
                let mut handed = Vec::new();
                for (e, (p, ())) in world.query_mut::<(&mut Pos, Without<Tag>)>() {
                    // Yielded: handed to this code, whatever it does next.
                    handed.push(e);
                    if handed.len() > stop {
                        break;
                    }
                    p.0 += 1;
                }
                for e in handed {
                    model.changed(e);
                }
            }
            12 => {
                let stop = rng.below(4) as usize;
                let mut handed = Vec::new();
                for (e, p) in world.query_mut::<&mut Pos>() {
                    handed.push(e);
                    if handed.len() > stop {
                        break;
                    }
                    p.0 += 1;
                }
                for e in handed {
                    model.changed(e);
                }
            }
            13 => {
                // A lookup that finds nothing marks nothing.
                if let Some(e) = pick(&mut rng, &model.alive) {
                    let found = world.get_many::<(&mut Pos, With<Tag>)>(e).is_some();
                    assert_eq!(
                        found,
                        model.pos.contains_key(&e) && model.tag.contains(&e),
                        "seed {seed}"
                    );
                    if found {
                        model.changed(e);
                    }
                    let mut join = world.query_mut::<(&mut Pos, Without<Tag>)>();
                    if join.get(e).is_some() {
                        model.changed(e);
                    }
                }
            }
            14 => {
                // Written through a `Mut` only when it differs.
                let mut written = Vec::new();
                world.pos.for_each_mut(|e, mut p| {
                    let next = Pos::new(p.0 - p.0 % 2);
                    if p.set_if_neq(next) {
                        written.push(e);
                    }
                });
                for e in written {
                    model.changed(e);
                }
            }
            15 => {
                if let Some(e) = pick(&mut rng, &model.alive) {
                    if !model.pos.contains_key(&e) && world.try_add_deferred(e, Pos::new(4)).is_ok()
                    {
                        world.finalize_updates();
                        model.added(e);
                    }
                }
            }
            16 => {
                if let Some(e) = pick(&mut rng, &model.alive) {
                    let mut commands = Commands::<Game>::new();
                    if rng.chance(50) {
                        commands.remove::<Pos>(e);
                        let _ = world.apply(&mut commands);
                        model.removed(e);
                    } else {
                        commands.despawn(e);
                        let _ = world.apply(&mut commands);
                        model.alive.retain(|&a| a != e);
                        model.removed(e);
                        model.tag.remove(&e);
                        model.dead.push(e);
                    }
                }
            }
            17 => {
                if let Some(e) = pick(&mut rng, &model.alive) {
                    assert!(world.remove_all(e));
                    model.removed(e);
                    model.tag.remove(&e);
                }
            }
            18 if rng.chance(20) => {
                world.clear();
                for e in model.pos.keys().copied().collect::<Vec<_>>() {
                    model.removed(e);
                }
                model.dead.append(&mut model.alive);
                model.tag.clear();
            }
            19 => {
                world.clear_changes();
                model.world = Reader {
                    since: model.tick(),
                    whole: false,
                };
            }
            20 => {
                let look = world_look(&mut world);
                let expected = model.expect(model.world);
                check(&look, &expected, "the world's view", seed, step);
            }
            21..=23 => {
                // A run of one schedule.
                let which = rng.index(schedules.len());
                let panics = which == 0 && rng.chance(30);
                {
                    let mut o = orders[which].lock().unwrap();
                    *o = Orders {
                        write_before: pick(&mut rng, &model.alive),
                        panic: panics,
                        write_after: pick(&mut rng, &model.alive),
                        ..Orders::default()
                    };
                }
                // The run starts: the world's view starts afresh.
                let start = model.tick();
                let result = catch_unwind(AssertUnwindSafe(|| schedules[which].run(&mut world)));
                assert_eq!(result.is_err(), panics, "seed {seed}");
                count(if panics {
                    "runs cut short by a panic"
                } else {
                    "runs"
                });
                model.world = Reader {
                    since: start,
                    whole: false,
                };
                let mut o = orders[which].lock().unwrap();
                if trace {
                    eprintln!(
                        "  schedule {which} ran (panics {panics}), looked {:?}, reader {:?}",
                        o.look, model.readers[which]
                    );
                }
                if o.wrote_before {
                    model.changed(o.write_before.unwrap());
                }
                if let Some(look) = o.look.take() {
                    let expected = model.expect(model.readers[which]);
                    check(&look, &expected, &format!("schedule {which}"), seed, step);
                    model.readers[which] = Reader {
                        since: model.tick(),
                        whole: false,
                    };
                }
                if o.wrote_after {
                    model.changed(o.write_after.unwrap());
                }
            }
            24 if rng.chance(30) => {
                // A storage put in the field: the old one's values go.
                if rng.chance(50) {
                    world.pos = SparseMap::default();
                    model.pos.clear();
                    model.replaced(true);
                    count("storages replaced");
                } else {
                    // One from a clone of the world, changed there: it
                    // carries the clone's history, the world's own view of
                    // it included.
                    let mut copy = world.clone();
                    if let Some(e) = pick(&mut rng, &model.alive) {
                        if copy.insert(e, Pos::new(9)).is_some() {
                            model.changed(e);
                        } else {
                            model.added(e);
                        }
                    }
                    world.pos = std::mem::take(&mut copy.pos);
                    model.replaced(false);
                    count("storages replaced");
                }
            }
            25 if rng.chance(20) => match rng.below(3) {
                0 => {
                    // A new level.
                    world = Game::new();
                    model.pos.clear();
                    model.tag.clear();
                    model.alive.clear();
                    model.dead.clear();
                    model.replaced(true);
                    count("new worlds");
                }
                1 => {
                    // Carry on in a clone: the world's own view goes on.
                    world = world.clone();
                    model.replaced(false);
                    count("clones");
                }
                _ => {
                    #[cfg(feature = "serde")]
                    {
                        let save = serde_json::to_string(&world).unwrap();
                        world = serde_json::from_str(&save).unwrap();
                        // A load starts the world's view clean.
                        model.replaced(false);
                        count("loads");
                        model.world = Reader {
                            since: model.tick(),
                            whole: false,
                        };
                    }
                }
            },
            _ => {}
        }
        world.assert_invariants();
    }
    drop(world);
    drop(schedules);
    assert_eq!(
        LIVE.with(|l| *l.borrow()),
        0,
        "seed {seed}: a value leaked or dropped twice"
    );
}

#[test]
fn every_reader_sees_what_happened_since_its_own_last_look() {
    let sequences: u64 = std::env::var("SEEN_SEQUENCES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    // A panicking member prints its message: keep the output readable.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        if !message.contains("a member of the stage panics") {
            eprintln!("{message}");
        }
    }));
    let result = catch_unwind(|| {
        for seed in 0..sequences {
            run(seed);
        }
    });
    std::panic::set_hook(hook);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
    println!("{sequences} sequences, 0 divergences:");
    SEEN.with(|seen| {
        for (what, n) in seen.borrow().iter() {
            println!("  {what}: {n}");
        }
    });
}
