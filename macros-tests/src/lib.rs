//! Compile tests of `world!`, used the way a game crate uses `typed_ecs`.
//!
//! The cases live in `tests/compile-fail` (each with a `.stderr` snapshot of
//! the error a user would see) and `tests/compile-pass`, run by
//! `tests/trybuild.rs`. This file is a smoke case of its own: CI runs clippy
//! on it, so a `world!` must expand cleanly under `clippy::pedantic`.

#![deny(clippy::pedantic, missing_docs, rust_2018_idioms)]
#![forbid(unsafe_code)]

use typed_ecs::prelude::*;

/// A position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position(pub f32, pub f32);

/// A velocity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Velocity(pub f32, pub f32);

world! {
    /// A world declared in a crate that denies `clippy::pedantic`.
    #[derive(Debug, Clone)]
    pub struct PedanticWorld<Position, Velocity>;
}

world! {
    /// The explicit-field form, under the same lints.
    #[derive(Debug)]
    pub struct PedanticFields {
        /// Where things are.
        pos: Position,
        /// How they move.
        vel: Velocity,
    }
}

/// How many velocities were added and removed, kept by hooks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Moves(pub usize, pub usize);

world! {
    /// A world with hooks, under the same lints.
    #[derive(Debug)]
    pub struct PedanticHooked<Position, Velocity>;
    resources {
        /// The hooks' count.
        moves: Moves
    }
    tracked (Position);
    hooks (depth 2) {
        on_add(Velocity) => started;
        on_remove(Velocity) => stopped;
        on_change(Position) => moved;
    }
}

/// Counts the velocities added.
pub fn started(added: OnAdd<'_, Velocity>, moves: &mut Moves) {
    moves.0 += added.len();
}

/// Counts the velocities removed.
pub fn stopped(removed: OnRemove<'_, Velocity>, moves: &mut Moves) {
    moves.1 += removed.len();
}

/// Looks at the positions that changed.
pub fn moved(changed: OnChange<'_, Position>, positions: &SparseMap<Position, Tracked>) {
    for entity in changed {
        let _ = positions.get(entity);
    }
}

/// Moves every entity that has a velocity.
pub fn step(world: &mut PedanticWorld) {
    let moves: Vec<(Entity, Velocity)> = world
        .query::<(&Position, &Velocity)>()
        .map(|(entity, (_, velocity))| (entity, *velocity))
        .collect();
    for (entity, velocity) in moves {
        if let Some(position) = world.get_mut::<Position>(entity) {
            position.0 += velocity.0;
            position.1 += velocity.1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_moves_entities_with_velocity() {
        let mut world = PedanticWorld::new();
        let moving = world.spawn_with((Position(0.0, 0.0), Velocity(1.0, 2.0)));
        let still = world.spawn_with((Position(5.0, 5.0),));
        step(&mut world);
        assert_eq!(world.position.get(moving), Some(&Position(1.0, 2.0)));
        assert_eq!(world.position.get(still), Some(&Position(5.0, 5.0)));
        let fields = PedanticFields::default();
        assert!(fields.pos.is_empty() && fields.vel.is_empty());
    }
}
