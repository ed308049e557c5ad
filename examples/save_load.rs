//! Saving a world to a file and loading it back.
//!
//! A world whose declaration derives `Serialize` and `Deserialize` can be
//! saved with any serde format. Loading checks the data (generations, the
//! free list, that every stored entity is alive), so a corrupt or hostile
//! save file is an error rather than a broken world.
//!
//! ```text
//! cargo run --example save_load --features serde
//! ```

use serde::{Deserialize, Serialize};
use typed_ecs::prelude::*;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Position {
    pub x: f32,
    pub y: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Name(pub String);

/// A reference to another entity: handles survive a save and load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Follows(pub Entity);

world! {
    /// A saved game.
    #[derive(Debug, Clone, Serialize, Deserialize)]
    pub struct Game<Position, Name, Follows>;
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = Game::new();
    let leader = world.spawn_with((Name("Leader".into()), Position { x: 0.0, y: 0.0 }));
    let mut followers = Vec::new();
    for i in 0..5 {
        let follower = world.spawn_with((
            Name(format!("Follower {i}")),
            Position {
                x: i as f32,
                y: 1.0,
            },
            Follows(leader),
        ));
        followers.push(follower);
    }
    world.despawn(followers[2]); // a free slot and a bumped generation
    world.remove_deferred::<Position>(followers[0]); // a queued replacement:
    world.add_deferred(followers[0], Position { x: 9.0, y: 9.0 }); // saved too

    let path = std::env::temp_dir().join("typed_ecs_save_load.json");
    std::fs::write(&path, serde_json::to_string_pretty(&world)?)?;
    println!(
        "saved {} entities to {}",
        world.entity_count(),
        path.display()
    );

    let mut loaded: Game = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    println!("loaded {} entities", loaded.entity_count());

    let describe = |world: &Game| -> Vec<String> {
        world
            .query::<(&Name, Option<&Position>, Option<&Follows>)>()
            .map(|(e, (name, pos, follows))| {
                format!("{e:?} {} at {pos:?} following {follows:?}", name.0)
            })
            .collect()
    };
    assert_eq!(
        describe(&world),
        describe(&loaded),
        "the loaded world matches"
    );
    assert!(!loaded.is_alive(followers[2]), "a stale handle stays stale");

    // Both worlds continue the same way: the queued change and the free list came along.
    world.finalize_updates();
    loaded.finalize_updates();
    assert_eq!(describe(&world), describe(&loaded));
    assert_eq!(
        world.spawn(),
        loaded.spawn(),
        "new spawns reuse the same free slot"
    );
    for line in describe(&loaded) {
        println!("  {line}");
    }

    // A hand-edited save that names an entity the world never had is refused.
    let mut hostile: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    hostile["position"]["values"][0][0] = serde_json::json!([4000, 1]);
    let error =
        serde_json::from_value::<Game>(hostile).expect_err("a corrupt save must be refused");
    println!("a corrupt save is refused: {error}");
    std::fs::remove_file(&path)?;
    println!("the loaded world matches the saved one");
    Ok(())
}
