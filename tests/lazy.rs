//! `Lazy` in a join: a tracked value handed out as a `Mut` is marked changed
//! exactly when written through, on every walk of `for_each` (lined-up
//! runs, lookups, a panic mid-walk), against a model of what was written;
//! a `for` loop and `par_for_each` mark what they hand out; `count` marks
//! nothing.

#[path = "support/rng.rs"]
mod rng;

use std::collections::BTreeSet;

use rng::Rng;
use typed_ecs::prelude::*;
use typed_ecs::{join, Changed, Lazy, Maybe};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Energy(i64);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Id(u64);
pub struct Marker;

world! {
    pub struct Game<Energy, Id, Marker>;
    tracked (Energy);
}

/// The entities whose energy changed since the last `clear_changes`.
fn changed(world: &Game) -> BTreeSet<Entity> {
    world.query::<Changed<&Energy>>().map(|(e, _)| e).collect()
}

/// A world whose `Energy` and `Id` line up in runs, broken here and there
/// (an `Id` removed and added again moves to the end of its storage).
fn world(rng: &mut Rng) -> Game {
    let mut world = Game::new();
    let handles: Vec<Entity> = (0..300)
        .map(|i| world.spawn_with((Energy(100), Id(i))))
        .collect();
    for &e in &handles {
        match rng.below(20) {
            0 => {
                world.despawn(e);
            }
            1 => {
                let id = world.remove::<Id>(e).unwrap();
                world.add(e, id);
            }
            2 => {
                world.remove::<Id>(e);
            }
            3 => {
                world.add(e, Marker);
            }
            _ => {}
        }
    }
    world.clear_changes();
    world
}

/// Whether the model writes the energy of the animal with `id`, by a seed.
fn writes(id: u64, seed: u64) -> bool {
    (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed) % 5 == 0
}

#[test]
fn for_each_marks_exactly_what_was_written_through() {
    for seed in 0..30 {
        let mut rng = Rng::new(seed);
        let mut world = world(&mut rng);
        let mut model = BTreeSet::new();
        join((Lazy(&mut world.energy), &world.id)).for_each(|e, (mut energy, id)| {
            assert!(energy.0 >= 100, "read through `Deref`");
            if writes(id.0, seed) {
                energy.0 -= 1;
                model.insert(e);
            }
        });
        assert_eq!(changed(&world), model, "seed {seed}");
        let written = world.energy.iter().filter(|(_, e)| e.0 == 99).count();
        assert_eq!(written, model.len(), "seed {seed}");
    }
}

#[test]
fn set_if_neq_and_bypass_mark_as_a_mut_does() {
    let mut rng = Rng::new(7);
    let mut world = world(&mut rng);
    let mut model = BTreeSet::new();
    join((Lazy(&mut world.energy), &world.id, Maybe(&world.marker))).for_each(
        |e, (mut energy, id, marker)| {
            if marker.is_some() {
                energy.bypass_change_detection().0 += 5; // not marked
            } else if energy.set_if_neq(Energy(100 + (id.0 % 2) as i64)) {
                model.insert(e); // odd ids changed
            }
        },
    );
    assert!(!model.is_empty());
    assert_eq!(changed(&world), model);
}

#[test]
fn a_panic_mid_walk_loses_no_mark_of_what_was_written() {
    for stop in [0u64, 1, 17, 150] {
        let mut rng = Rng::new(stop);
        let mut world = world(&mut rng);
        let mut model = BTreeSet::new();
        let walked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            join((Lazy(&mut world.energy), &world.id)).for_each(|e, (mut energy, id)| {
                energy.0 += 1;
                model.insert(e);
                if id.0 >= stop {
                    panic!("stop at {stop}");
                }
            });
        }));
        assert!(walked.is_err());
        assert_eq!(changed(&world), model, "stop {stop}");
    }
}

#[test]
fn a_lookup_and_get_mark_only_on_write() {
    let mut rng = Rng::new(3);
    let mut world = world(&mut rng);
    let some = world.id.entities()[10];
    let other = world.id.entities()[11];
    {
        let mut join = join((Lazy(&mut world.energy), &world.id));
        let (energy, _) = join.get(some).unwrap();
        assert_eq!(energy.0, 100);
        let (mut energy, _) = join.get(other).unwrap();
        energy.0 = 5;
    }
    assert_eq!(changed(&world), BTreeSet::from([other]));
}

#[test]
fn a_for_loop_and_count_mark_what_they_hand_out() {
    let mut rng = Rng::new(5);
    let mut world = world(&mut rng);
    let both = with_both(&world);
    assert_eq!(join((Lazy(&mut world.energy), &world.id)).count(), both);
    assert!(changed(&world).is_empty(), "count hands nothing out");
    let mut handed = BTreeSet::new();
    for (e, (energy, _)) in join((Lazy(&mut world.energy), &world.id)) {
        let _ = energy.0;
        handed.insert(e);
    }
    assert_eq!(
        changed(&world),
        handed,
        "a loop's items may outlive the walk"
    );
}

/// How many entities have both an energy and an id.
fn with_both(world: &Game) -> usize {
    world
        .energy
        .entities()
        .iter()
        .filter(|&&e| world.id.contains(e))
        .count()
}

#[test]
fn on_an_untracked_storage_it_is_a_plain_write() {
    let mut rng = Rng::new(9);
    let mut world = world(&mut rng);
    join((Lazy(&mut world.id), &world.energy)).for_each(|_, (mut id, _)| id.0 += 1000);
    assert!(world.id.values().iter().all(|id| id.0 >= 1000));
    assert!(changed(&world).is_empty());
}

#[test]
fn the_query_term_lazy_marks_what_was_written_through() {
    for seed in 40..50 {
        let mut rng = Rng::new(seed);
        let mut world = world(&mut rng);
        let mut model = BTreeSet::new();
        world
            .query_mut::<(Lazy<Energy>, &Id, Has<Marker>)>()
            .for_each(|e, (mut energy, id, _)| {
                if writes(id.0, seed) {
                    energy.0 += 3;
                    model.insert(e);
                }
            });
        assert_eq!(changed(&world), model, "seed {seed}");
        let some = *model.iter().next().unwrap();
        world.clear_changes();
        let (energy, _) = world.get_many::<(Lazy<Energy>, &Id)>(some).unwrap();
        assert_eq!(energy.0, 103, "read: not marked");
        assert!(changed(&world).is_empty());
    }
}

#[test]
fn an_optional_lazy_column_marks_what_was_written_through() {
    let mut rng = Rng::new(13);
    let mut world = world(&mut rng);
    let mut model = BTreeSet::new();
    // `Id` drives; the optional column lines up with it in runs and is
    // looked up elsewhere.
    join((&world.id, Maybe(Lazy(&mut world.energy)))).for_each(|e, (id, energy)| {
        if let Some(mut energy) = energy {
            if writes(id.0, 13) {
                energy.0 = -1;
                model.insert(e);
            }
        }
    });
    assert!(!model.is_empty());
    assert_eq!(changed(&world), model);
}

#[cfg(feature = "rayon")]
#[test]
fn par_for_each_marks_what_it_hands_out() {
    let mut rng = Rng::new(11);
    let mut world = world(&mut rng);
    let expected: BTreeSet<Entity> = world
        .energy
        .entities()
        .iter()
        .copied()
        .filter(|&e| world.id.contains(e))
        .collect();
    join((Lazy(&mut world.energy), &world.id)).par_for_each(|_, (mut energy, _)| energy.0 += 1);
    assert_eq!(changed(&world), expected);
}
