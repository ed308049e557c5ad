//! Two games built on the `physics` crate's plugins, each beside its own
//! components and systems:
//!
//! * `Arcade` lists its components by type, tracks the plugin's `Pos`
//!   (its own system scores each body that lands, from the changes), and
//!   includes both plugins;
//! * `Sandbox` names its fields, keeps `Pos` and `Vel` in an owning group,
//!   includes `Physics` only, and reads its event `Landed`.
//!
//! `cargo run -p plugin_games` runs both; `cargo test -p plugin_games`
//! checks them.

#![forbid(unsafe_code)]

use physics::{Expiry, Landed, Physics, Pos, Ttl, Vel};
use typed_ecs::prelude::*;

/// A label for the sandbox's entities.
#[derive(Debug, Clone, PartialEq)]
pub struct Label(pub &'static str);

/// Points, one per body that lands.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Score(pub u32);

world! {
    /// The arcade: both plugins, `Pos` tracked.
    pub struct Arcade<Label>;
    resources { score: Score }
    tracked (physics::Pos);
    plugins (physics::Physics, physics::Expiry);
}

world! {
    /// The sandbox: `Physics` only, `Pos` and `Vel` grouped.
    pub struct Sandbox { label: Label }
    plugins (physics::Physics);
    group (physics::Pos, physics::Vel);
}

/// The arcade's own system: a point for each body that landed since its
/// last run (its `Pos` changed, and is now 0), which then leaves the
/// physics (its `Vel` goes, so nothing moves or marks it again).
fn score_landings(
    pos: &SparseMap<Pos, Tracked>,
    seen: &mut Seen<Pos>,
    score: &mut Score,
    commands: &mut Commands<Arcade>,
) {
    join(seen.changed(pos)).for_each(|body, p| {
        if p.0 == 0.0 {
            score.0 += 1;
            commands.remove::<Vel>(body);
        }
    });
}

/// The sandbox's own system: a body the plugin says landed (its event
/// `Landed`) is relabelled.
fn relabel(label: &mut SparseMap<Label>, landed: &Events<Landed>, inbox: &mut Reader<Landed>) {
    for &Landed(body) in inbox.read(landed) {
        if let Some(l) = label.get_mut(body) {
            *l = Label("landed");
        }
    }
}

/// Drops `bodies` from heights 1, 2, … in any world with the physics
/// plugin: generic code, bounded by the plugin's trait.
fn drop_bodies<W: Physics>(world: &mut W, bodies: u32) -> Vec<Entity> {
    (1..=bodies)
        .map(|h| world.spawn_with((Pos(h as f32), Vel(0.0))))
        .collect()
}

/// The arcade after `ticks` ticks: its plugins' systems, then its own.
fn arcade(ticks: u32) -> Arcade {
    let mut world = Arcade::new();
    let bodies = drop_bodies(&mut world, 4);
    world.add(bodies[0], Ttl(2));
    world.add(bodies[0], Label("short-lived"));
    let mut schedule = Schedule::new();
    Physics::add_systems(&mut schedule);
    Expiry::add_systems(&mut schedule);
    schedule.add_system(score_landings);
    for _ in 0..ticks {
        schedule.run(&mut world);
    }
    world
}

/// The sandbox's schedule: the plugin's systems, then its own.
fn schedule_of_sandbox() -> Schedule<Sandbox> {
    let mut schedule = Schedule::new();
    Physics::add_systems(&mut schedule);
    schedule.add_system(relabel);
    schedule
}

/// The sandbox after `ticks` ticks.
fn sandbox(ticks: u32) -> Sandbox {
    let mut world = Sandbox::new();
    let bodies = drop_bodies(&mut world, 3);
    for &body in &bodies {
        world.add(body, Label("falling"));
    }
    world.gravity_mut().0 = 0.5;
    let mut schedule = schedule_of_sandbox();
    for _ in 0..ticks {
        schedule.run(&mut world);
    }
    world
}

fn main() {
    let arcade = arcade(10);
    println!(
        "arcade: {} bodies left, {} expired, {} points",
        arcade.entity_count(),
        arcade.expired().0,
        arcade.score.0
    );
    let sandbox = sandbox(10);
    let landed = sandbox
        .label
        .values()
        .iter()
        .filter(|l| l.0 == "landed")
        .count();
    println!(
        "sandbox: {landed} of {} bodies landed",
        sandbox.entity_count()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arcade_runs_both_plugins_beside_its_own_system() {
        let world = arcade(10);
        // Every body landed once (the one dropped from 1 m at the first
        // tick, the others by the fourth) and scored once; the first body
        // then expired, three ticks after it was given a `Ttl` of 2.
        assert_eq!(world.score.0, 4);
        assert_eq!(world.expired().0, 1);
        assert_eq!(world.entity_count(), 3);
        assert!(world.pos.values().iter().all(|p| p.0 == 0.0));
        assert!(world.vel.is_empty(), "landed bodies leave the physics");
        assert!(world.label.is_empty(), "the labelled body expired");
    }

    #[test]
    fn the_sandbox_runs_the_plugin_over_its_group() {
        let world = sandbox(10);
        assert_eq!(world.entity_count(), 3);
        assert!(world.label.values().iter().all(|l| l.0 == "landed"));
        assert_eq!(world.gravity().0, 0.5);
        assert!(schedule_of_sandbox().lagging_readers().is_empty());
        // The group holds every body, its two columns in step.
        assert_eq!(world.pos.len(), 3);
        assert_eq!(world.vel.len(), 3);
    }

    #[test]
    fn one_generic_function_serves_both_worlds() {
        fn heights<W: Physics>(world: &W) -> Vec<f32> {
            let mut out: Vec<f32> = world.query::<&Pos>().map(|(_, p)| p.0).collect();
            out.sort_by(f32::total_cmp);
            out
        }
        let mut a = Arcade::new();
        let mut s = Sandbox::new();
        drop_bodies(&mut a, 2);
        drop_bodies(&mut s, 2);
        assert_eq!(heights(&a), heights(&s));
        assert_eq!(heights(&a), [1.0, 2.0]);
    }
}
