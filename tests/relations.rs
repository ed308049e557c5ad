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
use typed_ecs::{Links, RejectReason, RelateErrorKind, Sources};

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

macro_rules! scene {
    ($($attribute:tt)*) => {
        world! {
            $($attribute)*
            pub struct Scene<Node>;
            relations {
                child_of: ChildOf -> children [despawn, tree];
                targets: Targets -> targeted_by;
                owns: Owns -> owned_by [deny];
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
            for s in Self::sources(&self.child_of, x) {
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

fn run(seed: u64, steps: usize) -> [usize; 4] {
    let mut rng = Rng::new(seed);
    let mut world = Scene::new();
    let mut model = Model::default();
    // What happened, to check the runs exercised every path.
    let (mut cascades, mut denied, mut cycles, mut misuse) = (0, 0, 0, 0);
    for step in 0..steps {
        let alive: Vec<Entity> = model.alive.iter().copied().collect();
        let pick = |rng: &mut Rng| -> Option<Entity> {
            (!alive.is_empty()).then(|| alive[rng.index(alive.len())])
        };
        match rng.below(14) {
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
            12 => {
                // Misuse of the public fields: taken, cloned, swapped.
                misuse += 1;
                match rng.below(4) {
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
    [cascades, denied, cycles, misuse]
}

#[test]
fn both_sides_agree_with_the_model_through_every_path() {
    let mut seen = [0; 4];
    for seed in 0..30 {
        let counts = run(seed, 600);
        for (total, count) in seen.iter_mut().zip(counts) {
            *total += count;
        }
    }
    // Cascades, refusals, cycles and misuse all happened.
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

    world.despawn(a);
    let dead = serde_json::to_string(&world)
        .unwrap()
        .replace("\"child_of\":[]", &format!("\"child_of\":[{saved_link}]"));
    assert!(
        serde_json::from_str::<Scene>(&dead).is_err(),
        "a dead source does not load"
    );
}
