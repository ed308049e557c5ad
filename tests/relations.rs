//! Relations: random relates, unrelates, despawns (every policy, every
//! path: direct, `try_despawn`, batch, deferred, `Commands`), `clear` and
//! misuse of the public fields, against a model graph: both sides always
//! agree with the model, cascades despawn exactly the right sets, `deny`
//! refuses and changes nothing, a `tree` refuses cycles.

#[path = "support/rng.rs"]
mod rng;

use std::collections::{BTreeMap, BTreeSet};

use rng::Rng;
use typed_ecs::prelude::*;
use typed_ecs::{CommandKind, Links, RejectReason, RelateErrorKind, Sources};

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Node(pub u64);

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ChildOf;

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Targets(pub u32);

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Owns(pub u32);

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Likes(pub u32);

macro_rules! scene {
    ($($attribute:tt)*) => {
        world! {
            $($attribute)*
            pub struct Scene<Node>;
            relations {
                child_of: ChildOf -> children [despawn, tree];
                targets: Targets -> targeted_by;
                owns: Owns -> owned_by [deny];
                likes: Likes -> liked_by [many, despawn];
            }
        }
    };
}

#[cfg(feature = "serde")]
scene!(#[derive(serde::Serialize, serde::Deserialize)]);
#[cfg(not(feature = "serde"))]
scene!();

/// The world saved and loaded again (JSON), when the `serde` feature is
/// on: only the forward sides are saved, and the reverse ones rebuilt.
fn reloaded(world: Scene) -> Scene {
    #[cfg(feature = "serde")]
    {
        let json = serde_json::to_string(&world).unwrap();
        drop(world);
        serde_json::from_str(&json).unwrap()
    }
    #[cfg(not(feature = "serde"))]
    world
}

/// One relation in the model: source → (target, payload).
type Graph = BTreeMap<Entity, (Entity, u32)>;

#[derive(Default)]
struct Model {
    alive: BTreeSet<Entity>,
    child_of: Graph,
    targets: Graph,
    owns: Graph,
    /// The `many` relation: (source, target) → payload.
    likes: BTreeMap<(Entity, Entity), u32>,
}

impl Model {
    fn sources(graph: &Graph, target: Entity) -> Vec<Entity> {
        graph
            .iter()
            .filter(|(_, (t, _))| *t == target)
            .map(|(s, _)| *s)
            .collect()
    }

    /// What a despawn of `entity` takes, or the entity a `deny` protects.
    fn cascade(&self, entity: Entity) -> Result<BTreeSet<Entity>, Entity> {
        let mut taken = BTreeSet::from([entity]);
        let mut todo = vec![entity];
        while let Some(x) = todo.pop() {
            let likers = self.likes.keys().filter(|(_, t)| *t == x).map(|(s, _)| *s);
            for s in Self::sources(&self.child_of, x).into_iter().chain(likers) {
                if taken.insert(s) {
                    todo.push(s);
                }
            }
        }
        for &x in &taken {
            if Self::sources(&self.owns, x)
                .iter()
                .any(|s| !taken.contains(s))
            {
                return Err(x);
            }
        }
        Ok(taken)
    }

    fn despawned(&mut self, taken: &BTreeSet<Entity>) {
        for graph in [&mut self.child_of, &mut self.targets, &mut self.owns] {
            graph.retain(|s, (t, _)| !taken.contains(s) && !taken.contains(t));
        }
        self.likes
            .retain(|(s, t), _| !taken.contains(s) && !taken.contains(t));
        for e in taken {
            self.alive.remove(e);
        }
    }

    fn would_cycle(&self, source: Entity, target: Entity) -> bool {
        let mut at = Some(target);
        while let Some(e) = at {
            if e == source {
                return true;
            }
            at = self.child_of.get(&e).map(|(t, _)| *t);
        }
        false
    }
}

/// Both sides of one relation against the model.
fn check_relation<R>(
    seed: u64,
    name: &str,
    links: &Links<R>,
    sources: &Sources<R>,
    graph: &Graph,
    payload: impl Fn(&R) -> u32,
    alive: &BTreeSet<Entity>,
) {
    let forward: Graph = links.iter().map(|(s, t, r)| (s, (t, payload(r)))).collect();
    assert_eq!(&forward, graph, "seed {seed}: {name}'s links");
    assert_eq!(links.len(), graph.len(), "seed {seed}: {name}'s count");
    let mut reverse: BTreeMap<Entity, Vec<Entity>> = BTreeMap::new();
    for (&s, &(t, _)) in graph {
        reverse.entry(t).or_default().push(s);
    }
    for &e in alive {
        let mut got = sources.of(e).to_vec();
        got.sort();
        let expected = reverse.remove(&e).unwrap_or_default();
        assert_eq!(got, expected, "seed {seed}: {name}'s sources of {e:?}");
        assert_eq!(links.target(e), graph.get(&e).map(|(t, _)| *t));
    }
    assert!(
        reverse.is_empty(),
        "seed {seed}: {name} links to dead targets"
    );
}

fn check(seed: u64, world: &mut Scene, model: &Model) {
    // A relation operation brings a misused field back in step first.
    let nobody = Entity::from_bits(u64::MAX >> 1).expect("a handle");
    world.unrelate::<ChildOf>(nobody);
    world.unrelate::<Targets>(nobody);
    world.unrelate::<Owns>(nobody);
    assert!(world.unrelate::<Likes>(nobody).is_empty());
    check_queries(seed, world, model);
    check_many(seed, world, model);
    let alive: BTreeSet<Entity> = world.entities.iter().collect();
    assert_eq!(alive, model.alive, "seed {seed}: the entities alive");
    check_relation(
        seed,
        "child_of",
        &world.child_of,
        &world.children,
        &model.child_of,
        |_| 0,
        &alive,
    );
    check_relation(
        seed,
        "targets",
        &world.targets,
        &world.targeted_by,
        &model.targets,
        |t| t.0,
        &alive,
    );
    check_relation(
        seed,
        "owns",
        &world.owns,
        &world.owned_by,
        &model.owns,
        |o| o.0,
        &alive,
    );
}

/// The `many` relation's two sides against the model.
fn check_many(seed: u64, world: &Scene, model: &Model) {
    let links: BTreeMap<(Entity, Entity), u32> =
        world.likes.iter().map(|(s, t, p)| ((s, t), p.0)).collect();
    assert_eq!(links, model.likes, "seed {seed}: likes");
    assert_eq!(
        world.likes.len(),
        model.likes.len(),
        "seed {seed}: likes' count"
    );
    for &e in &model.alive {
        let mut sources = world.liked_by.of(e).to_vec();
        sources.sort();
        let expected: Vec<Entity> = model
            .likes
            .keys()
            .filter(|(_, t)| *t == e)
            .map(|(s, _)| *s)
            .collect();
        let mut expected = expected;
        expected.sort();
        assert_eq!(sources, expected, "seed {seed}: liked_by of {e:?}");
        let mut targets: Vec<Entity> = world.likes.targets(e).collect();
        targets.sort();
        let expected: Vec<Entity> = model
            .likes
            .keys()
            .filter(|(s, _)| *s == e)
            .map(|(_, t)| *t)
            .collect();
        assert_eq!(targets, expected, "seed {seed}: targets of {e:?}");
    }
    let linked: BTreeSet<Entity> = world
        .query::<(&Node, Linked<Likes>)>()
        .map(|(e, _)| e)
        .collect();
    let expected: BTreeSet<Entity> = model.likes.keys().map(|(s, _)| *s).collect();
    assert_eq!(linked, expected, "seed {seed}: Linked<Likes>");
    let targeted: BTreeSet<Entity> = world
        .query::<(&Node, Targeted<Likes>)>()
        .map(|(e, _)| e)
        .collect();
    let expected: BTreeSet<Entity> = model.likes.keys().map(|(_, t)| *t).collect();
    assert_eq!(targeted, expected, "seed {seed}: Targeted<Likes>");
}

/// The relation query terms against the model: `Up` (both forms),
/// `Linked`, `Unlinked`, `Targeted`, through `query`, `query_mut` and
/// `join`.
fn check_queries(seed: u64, world: &mut Scene, model: &Model) {
    let node = |e: &Entity| world.node.get(*e).unwrap().0;
    let up: BTreeMap<Entity, u64> = world
        .query::<(&Node, Up<ChildOf, &Node>)>()
        .map(|(e, (_, parent))| (e, parent.0))
        .collect();
    let expected: BTreeMap<Entity, u64> = model
        .child_of
        .iter()
        .map(|(s, (t, _))| (*s, node(t)))
        .collect();
    assert_eq!(up, expected, "seed {seed}: Up<ChildOf, &Node>");
    let maybe: BTreeMap<Entity, Option<u64>> = world
        .query::<(&Node, Up<Targets, Option<&Node>>)>()
        .map(|(e, (_, target))| (e, target.map(|n| n.0)))
        .collect();
    let expected: BTreeMap<Entity, Option<u64>> = model
        .alive
        .iter()
        .map(|e| (*e, model.targets.get(e).map(|(t, _)| node(t))))
        .collect();
    assert_eq!(maybe, expected, "seed {seed}: Up<Targets, Option<&Node>>");
    let linked: BTreeSet<Entity> = world
        .query::<(&Node, Linked<Owns>)>()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(
        linked,
        model.owns.keys().copied().collect(),
        "seed {seed}: Linked"
    );
    let unlinked: BTreeSet<Entity> = world
        .query_mut::<(&Node, Unlinked<Owns>)>()
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    let expected: BTreeSet<Entity> = model
        .alive
        .iter()
        .filter(|e| !model.owns.contains_key(e))
        .copied()
        .collect();
    assert_eq!(unlinked, expected, "seed {seed}: Unlinked");
    let mut targeted = BTreeSet::new();
    join((&world.node, Targeted(&world.children))).for_each(|e, _| {
        targeted.insert(e);
    });
    let expected: BTreeSet<Entity> = model.child_of.values().map(|(t, _)| *t).collect();
    assert_eq!(targeted, expected, "seed {seed}: Targeted");
}

fn run(seed: u64, steps: usize) -> [usize; 5] {
    let mut rng = Rng::new(seed);
    let mut world = Scene::new();
    let mut model = Model::default();
    // What happened, to check the runs exercised every path.
    let (mut cascades, mut denied, mut cycles, mut misuse) = (0, 0, 0, 0);
    let mut commands_cycles = 0;
    for step in 0..steps {
        let alive: Vec<Entity> = model.alive.iter().copied().collect();
        let pick = |rng: &mut Rng| -> Option<Entity> {
            (!alive.is_empty()).then(|| alive[rng.index(alive.len())])
        };
        match rng.below(17) {
            0..=2 => {
                let e = world.spawn_with((Node(step as u64),));
                model.alive.insert(e);
            }
            3..=6 => {
                let (Some(s), Some(t)) = (pick(&mut rng), pick(&mut rng)) else {
                    continue;
                };
                let payload = rng.below(100) as u32;
                match rng.below(3) {
                    0 => {
                        let result = world.relate(s, ChildOf, t);
                        if s == t {
                            assert_eq!(result.unwrap_err().kind(), RelateErrorKind::SelfRelation);
                        } else if model.would_cycle(s, t) {
                            cycles += 1;
                            assert_eq!(result.unwrap_err().kind(), RelateErrorKind::Cycle);
                        } else {
                            let old = model.child_of.insert(s, (t, 0));
                            assert_eq!(result.unwrap().is_some(), old.is_some());
                        }
                    }
                    1 => {
                        let result = world.relate(s, Targets(payload), t);
                        if s == t {
                            assert_eq!(result.unwrap_err().into_payload(), Targets(payload));
                        } else {
                            let old = model.targets.insert(s, (t, payload));
                            assert_eq!(result.unwrap().map(|p| p.0), old.map(|(_, p)| p));
                        }
                    }
                    _ => {
                        let result = world.relate(s, Owns(payload), t);
                        if s == t {
                            assert!(result.is_err());
                        } else {
                            let old = model.owns.insert(s, (t, payload));
                            assert_eq!(result.unwrap().map(|p| p.0), old.map(|(_, p)| p));
                        }
                    }
                }
            }
            7 => {
                let Some(s) = pick(&mut rng) else { continue };
                match rng.below(3) {
                    0 => assert_eq!(
                        world.unrelate::<ChildOf>(s).is_some(),
                        model.child_of.remove(&s).is_some()
                    ),
                    1 => assert_eq!(
                        world.unrelate::<Targets>(s).map(|p| p.0),
                        model.targets.remove(&s).map(|(_, p)| p)
                    ),
                    _ => assert_eq!(
                        world.unrelate::<Owns>(s).map(|p| p.0),
                        model.owns.remove(&s).map(|(_, p)| p)
                    ),
                }
            }
            8 | 9 => {
                let Some(e) = pick(&mut rng) else { continue };
                match model.cascade(e) {
                    Ok(taken) => {
                        cascades += usize::from(taken.len() > 1);
                        assert_eq!(world.try_despawn(e), Ok(true));
                        model.despawned(&taken);
                    }
                    Err(_) => {
                        denied += 1;
                        let refusal = world.try_despawn(e).unwrap_err();
                        assert_eq!(refusal.relation, "owns");
                        assert_eq!(world.owns.target(refusal.source), Some(refusal.entity));
                        assert!(world.is_alive(e), "a refused despawn changes nothing");
                    }
                }
            }
            10 => {
                // Through a command buffer, or the world's own queue.
                let Some(e) = pick(&mut rng) else { continue };
                let outcome = model.cascade(e);
                if rng.chance(50) {
                    let mut commands = Commands::<Scene>::new();
                    commands.despawn(e);
                    let report = world.apply(&mut commands);
                    match &outcome {
                        Ok(_) => assert!(report.is_clean()),
                        Err(_) => assert_eq!(report.rejected()[0].reason, RejectReason::Denied),
                    }
                } else {
                    world.despawn_deferred(e);
                    world.finalize_updates();
                }
                if let Ok(taken) = outcome {
                    model.despawned(&taken);
                }
            }
            11 => {
                let batch: Vec<Entity> = (0..3).filter_map(|_| pick(&mut rng)).collect();
                for &e in &batch {
                    if !model.alive.contains(&e) {
                        continue;
                    }
                    if let Ok(taken) = model.cascade(e) {
                        model.despawned(&taken);
                    }
                }
                world.despawn_batch(batch);
            }
            15 | 16 => {
                // The `many` relation: relate, unrelate one link or all,
                // directly or through a command buffer.
                let (Some(s), Some(t)) = (pick(&mut rng), pick(&mut rng)) else {
                    continue;
                };
                let payload = rng.below(100) as u32;
                let direct = rng.chance(70);
                match rng.below(4) {
                    0 | 1 if direct => {
                        let result = world.relate(s, Likes(payload), t);
                        if s == t {
                            assert_eq!(result.unwrap_err().kind(), RelateErrorKind::SelfRelation);
                        } else {
                            let old = model.likes.insert((s, t), payload);
                            assert_eq!(result.unwrap().map(|p| p.0), old);
                        }
                    }
                    2 if direct => assert_eq!(
                        world.unrelate_from::<Likes>(s, t).map(|p| p.0),
                        model.likes.remove(&(s, t))
                    ),
                    3 if direct => {
                        let mut taken: Vec<(Entity, u32)> = world
                            .unrelate::<Likes>(s)
                            .into_iter()
                            .map(|(t, p)| (t, p.0))
                            .collect();
                        taken.sort();
                        let expected: Vec<(Entity, u32)> = model
                            .likes
                            .iter()
                            .filter(|((source, _), _)| *source == s)
                            .map(|((_, t), p)| (*t, *p))
                            .collect();
                        model.likes.retain(|(source, _), _| *source != s);
                        assert_eq!(taken, expected, "seed {seed}: unrelate all");
                    }
                    kind => {
                        let mut commands = Commands::<Scene>::new();
                        match kind {
                            0 | 1 => {
                                commands.relate(s, Likes(payload), t);
                                if s != t {
                                    model.likes.insert((s, t), payload);
                                }
                            }
                            2 => {
                                commands.unrelate_from::<Likes>(s, t);
                                model.likes.remove(&(s, t));
                            }
                            _ => {
                                commands.unrelate::<Likes>(s);
                                model.likes.retain(|(source, _), _| *source != s);
                            }
                        }
                        let report = world.apply(&mut commands);
                        assert_eq!(report.is_clean(), s != t || kind > 1, "seed {seed}");
                    }
                }
            }
            14 => {
                // Relates and unrelates through a command buffer, with a
                // spawn (a reserved handle) and perhaps a despawn.
                let mut commands = Commands::<Scene>::new();
                let fresh = commands.spawn_with((Node(step as u64),));
                let mut ops = Vec::new();
                for _ in 0..1 + rng.below(5) {
                    let pick_or_fresh = |rng: &mut Rng| {
                        if rng.chance(25) {
                            Some(fresh)
                        } else {
                            pick(rng)
                        }
                    };
                    let (Some(s), Some(t)) = (pick_or_fresh(&mut rng), pick_or_fresh(&mut rng))
                    else {
                        continue;
                    };
                    let relation = rng.below(3) as usize;
                    let payload = rng.below(100) as u32;
                    let relate = rng.chance(75);
                    match (relation, relate) {
                        (0, true) => commands.relate(s, ChildOf, t),
                        (1, true) => commands.relate(s, Targets(payload), t),
                        (_, true) => commands.relate(s, Owns(payload), t),
                        (0, false) => commands.unrelate::<ChildOf>(s),
                        (1, false) => commands.unrelate::<Targets>(s),
                        (_, false) => commands.unrelate::<Owns>(s),
                    }
                    ops.push((relation, relate, s, t, payload));
                }
                let despawn = pick(&mut rng).filter(|_| rng.chance(30));
                if let Some(e) = despawn {
                    commands.despawn(e);
                }
                let report = world.apply(&mut commands);
                let real = report.entity(fresh).expect("spawned");
                model.alive.insert(real);
                let resolve = |e: Entity| if e == fresh { real } else { e };
                // Relations in declaration order, each in the order queued.
                let mut expected = Vec::new();
                for relation in 0..3 {
                    for &(r, relate, s, t, payload) in &ops {
                        if r != relation {
                            continue;
                        }
                        let (s, t) = (resolve(s), resolve(t));
                        if !relate {
                            match r {
                                0 => model.child_of.remove(&s),
                                1 => model.targets.remove(&s),
                                _ => model.owns.remove(&s),
                            };
                            continue;
                        }
                        if s == t {
                            expected.push(RejectReason::Relate(RelateErrorKind::SelfRelation));
                        } else if r == 0 && model.would_cycle(s, t) {
                            commands_cycles += 1;
                            expected.push(RejectReason::Relate(RelateErrorKind::Cycle));
                        } else {
                            let graph = match r {
                                0 => &mut model.child_of,
                                1 => &mut model.targets,
                                _ => &mut model.owns,
                            };
                            graph.insert(s, (t, if r == 0 { 0 } else { payload }));
                        }
                    }
                }
                if let Some(e) = despawn {
                    match model.cascade(e) {
                        Ok(taken) => model.despawned(&taken),
                        Err(_) => expected.push(RejectReason::Denied),
                    }
                }
                let got: Vec<RejectReason> = report.rejected().iter().map(|r| r.reason).collect();
                assert_eq!(got, expected, "seed {seed}: the report");
            }
            12 => {
                // Misuse of the public fields: taken, cloned, swapped.
                misuse += 1;
                match rng.below(6) {
                    4 => drop(std::mem::take(&mut world.liked_by)),
                    5 => {
                        world.likes = world.likes.clone();
                    }
                    0 => drop(std::mem::take(&mut world.children)),
                    1 => {
                        world.child_of = world.child_of.clone();
                    }
                    2 => {
                        let mut other = Scene::new();
                        std::mem::swap(&mut world.targeted_by, &mut other.targeted_by);
                    }
                    _ => {
                        drop(std::mem::take(&mut world.owns));
                        model.owns.clear();
                    }
                }
            }
            _ => {
                if rng.chance(10) {
                    world.clear();
                    model = Model::default();
                } else if rng.chance(30) {
                    world = reloaded(world);
                }
            }
        }
        check(seed, &mut world, &model);
    }
    [cascades, denied, cycles, misuse, commands_cycles]
}

#[test]
fn both_sides_agree_with_the_model_through_every_path() {
    let mut seen = [0; 5];
    for seed in 0..30 {
        let counts = run(seed, 600);
        for (total, count) in seen.iter_mut().zip(counts) {
            *total += count;
        }
    }
    // Cascades, refusals, cycles (direct and through commands) and misuse
    // all happened.
    assert!(seen.iter().all(|&n| n > 10), "{seen:?}");
}

#[test]
fn a_deep_tree_despawns_with_a_worklist() {
    let mut world = Scene::new();
    // A chain of 100,000 levels, linked leaf first (each target not related
    // yet, so each cycle check is one step): recursion would overflow the
    // stack.
    let nodes: Vec<Entity> = (0..100_000).map(|_| world.spawn()).collect();
    for pair in nodes.windows(2) {
        world.relate(pair[0], ChildOf, pair[1]).unwrap();
    }
    let root = *nodes.last().unwrap();
    assert_eq!(world.children.of(root), [nodes[nodes.len() - 2]]);
    assert!(world.despawn(root));
    assert_eq!(world.entity_count(), 0);
    assert!(world.child_of.is_empty());
}

#[test]
#[should_panic(expected = "cannot despawn")]
fn a_denied_despawn_panics_and_says_why() {
    let mut world = Scene::new();
    let (owner, thing) = (world.spawn(), world.spawn());
    world.relate(owner, Owns(1), thing).unwrap();
    world.despawn(thing);
}

/// A hostile save does not load: a link to an entity that is not alive, a
/// cycle in a `tree` relation, a source named twice.
#[cfg(feature = "serde")]
#[test]
fn a_broken_saved_relation_does_not_load() {
    let mut world = Scene::new();
    let (a, b) = (world.spawn(), world.spawn());
    world.relate(a, ChildOf, b).unwrap();
    let json = serde_json::to_string(&world).unwrap();
    let loaded: Scene = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded.children.of(b), [a], "the reverse index is rebuilt");

    let saved_link = format!(
        "[{},{},null]",
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let cycle = format!(
        "[{},{},null]",
        serde_json::to_string(&b).unwrap(),
        serde_json::to_string(&a).unwrap()
    );
    let cyclic = json.replace(&saved_link, &format!("{saved_link},{cycle}"));
    assert_ne!(cyclic, json, "the test found the saved link");
    let error = serde_json::from_str::<Scene>(&cyclic)
        .err()
        .expect("a cycle does not load");
    assert!(error.to_string().contains("child_of"), "{error}");

    let twice = json.replace(&saved_link, &format!("{saved_link},{saved_link}"));
    assert!(
        serde_json::from_str::<Scene>(&twice).is_err(),
        "a source named twice"
    );

    // A `many` relation: one link named twice does not load either.
    let mut many = Scene::new();
    let (c, d) = (many.spawn(), many.spawn());
    many.relate(c, Likes(1), d).unwrap();
    let json = serde_json::to_string(&many).unwrap();
    let link = format!(
        "[{},{},1]",
        serde_json::to_string(&c).unwrap(),
        serde_json::to_string(&d).unwrap()
    );
    let loaded: Scene = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded.liked_by.of(d), [c], "the reverse index is rebuilt");
    let twice = json.replace(&link, &format!("{link},{link}"));
    assert_ne!(twice, json, "the test found the saved link");
    assert!(
        serde_json::from_str::<Scene>(&twice).is_err(),
        "a link named twice"
    );
    let reversed = format!(
        "[{},{},1]",
        serde_json::to_string(&d).unwrap(),
        serde_json::to_string(&d).unwrap()
    );
    let to_itself = json.replace(&link, &reversed);
    assert!(
        serde_json::from_str::<Scene>(&to_itself).is_err(),
        "a link to itself"
    );

    world.despawn(a);
    let dead = serde_json::to_string(&world)
        .unwrap()
        .replace("\"child_of\":[]", &format!("\"child_of\":[{saved_link}]"));
    assert!(
        serde_json::from_str::<Scene>(&dead).is_err(),
        "a dead source does not load"
    );
}

/// A command buffer's relates: applied after its spawns and additions and
/// before its despawns; each refusal reported with the relation's name,
/// the payload dropped.
#[test]
fn commands_relate_in_order_and_report_refusals() {
    let mut world = Scene::new();
    let (ship, dead) = (world.spawn(), world.spawn());
    world.despawn(dead);
    let mut commands = Commands::<Scene>::new();
    let gun = commands.spawn();
    commands.relate(gun, ChildOf, ship);
    // The despawn is applied last, and takes the gun (`despawn` policy).
    commands.despawn(ship);
    commands.relate(gun, Targets(1), dead);
    commands.relate(dead, Targets(2), ship);
    commands.unrelate::<Owns>(dead);
    commands.relate(ship, Owns(3), ship);
    assert_eq!(commands.len(), 7);
    let report = world.apply(&mut commands);
    let gun = report.entity(gun).unwrap();
    assert!(
        !world.is_alive(gun) && !world.is_alive(ship),
        "the cascade took the gun"
    );
    let rejected: Vec<String> = report.rejected().iter().map(|r| r.to_string()).collect();
    assert_eq!(
        report
            .rejected()
            .iter()
            .map(|r| (r.command, r.reason))
            .collect::<Vec<_>>(),
        [
            (
                CommandKind::Relate,
                RejectReason::Relate(RelateErrorKind::DeadTarget)
            ),
            (CommandKind::Relate, RejectReason::DeadEntity),
            (CommandKind::Unrelate, RejectReason::DeadEntity),
            (
                CommandKind::Relate,
                RejectReason::Relate(RelateErrorKind::SelfRelation)
            ),
        ],
        "{rejected:?}"
    );
    assert!(
        rejected[0].contains("relations::Targets") && rejected[0].contains("target is not alive"),
        "{rejected:?}"
    );
    assert!(commands.is_empty());
}

thread_local! {
    static LIVE: std::cell::Cell<i64> = const { std::cell::Cell::new(0) };
}

/// A payload that counts its live values.
struct Counted;

impl Counted {
    fn new() -> Self {
        LIVE.with(|live| live.set(live.get() + 1));
        Counted
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.with(|live| live.set(live.get() - 1));
    }
}

/// A `many` relation's payload, counted with [`Counted`]'s.
struct Wants(Counted);

world! {
    struct Counting<Node>;
    relations {
        holds: Counted -> held_by [despawn];
        wants: Wants -> wanted_by [many];
    }
}

/// Every payload is dropped exactly once, whichever way its link ends:
/// replaced, unrelated, refused, cascaded, cleared, or with the world.
#[test]
fn every_payload_is_dropped_once() {
    for seed in 0..20 {
        let mut rng = Rng::new(seed);
        let mut world = Counting::new();
        for _ in 0..400 {
            let alive: Vec<Entity> = world.entities.iter().collect();
            let pick = |rng: &mut Rng| alive.get(rng.index(alive.len().max(1))).copied();
            match rng.below(8) {
                0 | 1 => {
                    world.spawn();
                }
                2 | 3 => {
                    if let (Some(s), Some(t)) = (pick(&mut rng), pick(&mut rng)) {
                        if rng.chance(50) {
                            drop(world.relate(s, Counted::new(), t));
                        } else {
                            drop(world.relate(s, Wants(Counted::new()), t));
                        }
                    }
                }
                4 => {
                    let mut commands = Commands::new();
                    for _ in 0..3 {
                        let s = pick(&mut rng).unwrap_or_else(|| commands.spawn());
                        let t = pick(&mut rng).unwrap_or_else(|| commands.spawn());
                        commands.relate(s, Counted::new(), t);
                        commands.relate(t, Wants(Counted::new()), s);
                        if rng.chance(20) {
                            commands.unrelate::<Counted>(t);
                        }
                        if rng.chance(20) {
                            commands.unrelate_from::<Wants>(t, s);
                        }
                    }
                    if rng.chance(10) {
                        drop(commands); // never applied
                    } else {
                        let _ = world.apply(&mut commands);
                    }
                }
                5 => {
                    if let (Some(s), Some(t)) = (pick(&mut rng), pick(&mut rng)) {
                        drop(world.unrelate::<Counted>(s));
                        match rng.below(3) {
                            0 => drop(world.unrelate::<Wants>(s)),
                            1 => drop(world.unrelate_from::<Wants>(s, t)),
                            _ => {
                                let mut commands = Commands::new();
                                commands.unrelate::<Wants>(t);
                                let _ = world.apply(&mut commands);
                            }
                        }
                    }
                }
                6 => {
                    if let Some(e) = pick(&mut rng) {
                        world.despawn(e);
                    }
                }
                _ => {
                    if rng.chance(5) {
                        world.clear();
                    }
                }
            }
            let live = LIVE.with(|live| live.get());
            let links = world.holds.len() + world.wants.len();
            assert_eq!(live, links as i64, "seed {seed}");
        }
        drop(world);
        assert_eq!(LIVE.with(|live| live.get()), 0, "seed {seed}");
    }
}

#[derive(Default)]
struct Counted2(usize);

world! {
    struct Family<Node>;
    resources { counted: Counted2 }
    relations { child_of: ChildOf -> children [despawn, tree]; }
}

/// Systems read a relation through `&Links<R>` and `&Sources<R>`, and relate
/// through their `&mut Commands<W>`, applied at the sync point.
#[test]
fn systems_relate_through_their_commands() {
    fn adopt(nodes: &SparseMap<Node>, links: &Links<ChildOf>, commands: &mut Commands<Family>) {
        let root = nodes.entities()[0];
        for &e in &nodes.entities()[1..] {
            if links.target(e).is_none() {
                commands.relate(e, ChildOf, root);
            }
        }
    }
    fn count(children: &Sources<ChildOf>, nodes: &SparseMap<Node>, counted: &mut Counted2) {
        counted.0 = children.of(nodes.entities()[0]).len();
    }
    let mut world = Family::new();
    for i in 0..5 {
        world.spawn_with((Node(i),));
    }
    let mut schedule = Schedule::new();
    schedule
        .add_system(adopt)
        .add_sync_point()
        .add_system(count);
    schedule.run(&mut world);
    assert_eq!(world.counted.0, 4);
    assert_eq!(world.child_of.len(), 4);
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Local(f32);
#[derive(Debug, Clone, Copy, PartialEq)]
struct Global(f32);

world! {
    struct Tree<Local, Global>;
    relations { child_of: ChildOf -> children [despawn, tree]; }
}

/// A mutable query reads the target's value through `Up` while it writes
/// another component: one level of propagation, parents first.
#[test]
fn query_mut_reads_the_target_through_up() {
    let mut tree = Tree::new();
    let root = tree.spawn_with((Local(1.0), Global(1.0)));
    let arm = tree.spawn_with((Local(2.0), Global(0.0)));
    let hand = tree.spawn_with((Local(3.0), Global(0.0)));
    tree.relate(arm, ChildOf, root).unwrap();
    tree.relate(hand, ChildOf, arm).unwrap();
    // Two passes: each sets a level from the one above it.
    for _ in 0..2 {
        let mut globals: Vec<(Entity, f32)> = Vec::new();
        tree.query::<(&Local, Up<ChildOf, &Global>)>()
            .for_each(|(e, (local, parent))| globals.push((e, local.0 * parent.0)));
        for (e, g) in globals {
            tree.global.get_mut(e).unwrap().0 = g;
        }
    }
    assert_eq!(tree.global.get(hand), Some(&Global(6.0)));
    // Writing `Local` while reading the parent's `Global`.
    tree.query_mut::<(&mut Local, Up<ChildOf, &Global>)>()
        .for_each(|_, (local, parent)| local.0 += parent.0);
    assert_eq!(tree.local.get(hand), Some(&Local(5.0)));
    assert_eq!(
        tree.local.get(root),
        Some(&Local(1.0)),
        "the root has no parent"
    );
    let roots = tree
        .query_mut::<(&mut Local, Unlinked<ChildOf>)>()
        .into_iter()
        .count();
    assert_eq!(roots, 1);
}

/// A forward field put into another world is out of step there: a
/// read-only `Up` hands out no value of a target that is not alive in the
/// world it reads, and a mutable query brings the relation back in step.
#[test]
fn up_over_a_field_out_of_step_checks_targets() {
    let mut first = Tree::new();
    let parent = first.spawn_with((Local(1.0), Global(7.0)));
    let child = first.spawn_with((Local(1.0), Global(0.0)));
    first.relate(child, ChildOf, parent).unwrap();
    let mut second = Tree::new();
    let only = second.spawn_with((Local(1.0), Global(9.0)));
    second.despawn(only); // frees index 0
    let a = second.spawn_with((Local(1.0), Global(9.0)));
    let b = second.spawn_with((Local(1.0), Global(9.0)));
    assert_eq!((a.index(), b.index()), (parent.index(), child.index()));
    assert_ne!(a, parent, "a new generation");
    second.child_of = first.child_of.clone();
    // `child`'s handle is not alive in `second` (another generation).
    assert_eq!(second.query::<(&Local, Up<ChildOf, &Global>)>().count(), 0);
    assert_eq!(
        second
            .query_mut::<(&mut Local, Up<ChildOf, &Global>)>()
            .into_iter()
            .count(),
        0
    );
    assert!(second.child_of.is_empty(), "the rebuild dropped the link");
}
