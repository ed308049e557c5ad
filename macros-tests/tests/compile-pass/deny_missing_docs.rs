//! A documented crate with a public world.
#![deny(missing_docs)]

use typed_ecs::prelude::*;

/// A position.
pub struct Position(pub f32);

world! {
    /// The game world.
    pub struct Game<Position>;
}

world! {
    /// The other form.
    pub struct Game2 {
        /// Positions, documented by the user.
        pos: Position,
    }
}

fn main() {
    let _ = (Game::new(), Game2::new());
}
