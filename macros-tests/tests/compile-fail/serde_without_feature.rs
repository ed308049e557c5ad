// Deriving serde traits on a world needs typed_ecs's `serde` feature, which
// this crate does not enable: the error says how to turn it on.
use serde::{Deserialize, Serialize};
use typed_ecs::prelude::*;

#[derive(Debug, Serialize, Deserialize)]
pub struct Position(f32);

world! {
    #[derive(Debug, Serialize, Deserialize)]
    pub struct Game<Position>;
}

fn main() {}
