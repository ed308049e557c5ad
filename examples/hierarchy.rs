//! A scene graph with a relation: ships carry turrets, turrets carry guns,
//! guns carry muzzles, several levels deep. Each frame the ships turn and
//! the turrets track, and every entity's global transform is computed in
//! one safe pass, parents first (a worklist over `children.of(parent)`),
//! then checked against a recursive computation. Despawning a ship takes
//! everything it carries (the relation's `despawn` policy).
//!
//! Run it with `cargo run --release --example hierarchy`.

use std::process::ExitCode;

use typed_ecs::prelude::*;

/// A 2D transform: a rotation (radians), then a translation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub angle: f32,
    pub x: f32,
    pub y: f32,
}

impl Transform {
    const IDENTITY: Transform = Transform {
        angle: 0.0,
        x: 0.0,
        y: 0.0,
    };

    /// `self` (a parent's global transform) then `local`: the child's
    /// global transform.
    fn then(self, local: Transform) -> Transform {
        let (sin, cos) = self.angle.sin_cos();
        Transform {
            angle: self.angle + local.angle,
            x: self.x + cos * local.x - sin * local.y,
            y: self.y + sin * local.x + cos * local.y,
        }
    }
}

/// Where an entity is relative to its parent (or the world, for a root).
#[derive(Debug, Clone, Copy)]
pub struct Local(pub Transform);

/// Where it is in the world: computed each frame.
#[derive(Debug, Clone, Copy)]
pub struct Global(pub Transform);

/// How fast it turns, in radians a frame.
#[derive(Debug, Clone, Copy)]
pub struct Spin(pub f32);

/// The relation: a part's link to the part that carries it.
pub struct ChildOf;

world! {
    /// A fleet: every part a child of the part that carries it.
    pub struct Scene<Local, Global, Spin>;
    relations { child_of: ChildOf -> children [despawn, tree]; }
}

/// Spawns a part carried by `parent` (a root if `None`).
fn part(scene: &mut Scene, parent: Option<Entity>, local: Transform, spin: f32) -> Entity {
    let entity = scene.spawn_with((Local(local), Global(Transform::IDENTITY), Spin(spin)));
    if let Some(parent) = parent {
        scene
            .relate(entity, ChildOf, parent)
            .expect("a new part under a live one");
    }
    entity
}

/// `ships` ships, each with 3 turrets, each with 2 guns, each with a muzzle:
/// four levels, 1 + 3 + 6 + 6 = 16 parts a ship.
fn fleet(scene: &mut Scene, ships: usize) -> Vec<Entity> {
    (0..ships)
        .map(|s| {
            let at = Transform {
                angle: 0.0,
                x: s as f32 * 50.0,
                y: 0.0,
            };
            let ship = part(scene, None, at, 0.01);
            for t in 0..3 {
                let mount = Transform {
                    angle: t as f32,
                    x: 4.0,
                    y: t as f32 - 1.0,
                };
                let turret = part(scene, Some(ship), mount, 0.05);
                for g in 0..2 {
                    let barrel = Transform {
                        angle: 0.0,
                        x: 1.5,
                        y: g as f32 * 0.5 - 0.25,
                    };
                    let gun = part(scene, Some(turret), barrel, 0.0);
                    let tip = Transform {
                        angle: 0.0,
                        x: 2.0,
                        y: 0.0,
                    };
                    part(scene, Some(gun), tip, 0.0);
                }
            }
            ship
        })
        .collect()
}

/// Every part turns by its spin.
fn turn(local: &mut SparseMap<Local>, spin: &SparseMap<Spin>) {
    join((local, spin)).for_each(|_, (local, spin)| local.0.angle += spin.0);
}

/// The global transforms, in one pass, parents first: each root's is its
/// local one, and each child's is its parent's then its own. A worklist
/// over the relation's reverse index, with no recursion.
fn propagate(
    local: &SparseMap<Local>,
    global: &mut SparseMap<Global>,
    links: &Links<ChildOf>,
    children: &Sources<ChildOf>,
) {
    let mut todo: Vec<(Entity, Transform)> = Vec::new();
    for (root, own) in local.iter() {
        if !links.contains(root) {
            todo.push((root, Transform::IDENTITY.then(own.0)));
        }
    }
    while let Some((entity, at)) = todo.pop() {
        if let Some(g) = global.get_mut(entity) {
            g.0 = at;
        }
        for &child in children.of(entity) {
            if let Some(own) = local.get(child) {
                todo.push((child, at.then(own.0)));
            }
        }
    }
}

/// The same, recursively from the parent links: what the pass must match.
fn recursive_global(scene: &Scene, entity: Entity) -> Transform {
    let own = scene.local.get(entity).expect("a part").0;
    match scene.child_of.target(entity) {
        Some(parent) => recursive_global(scene, parent).then(own),
        None => Transform::IDENTITY.then(own),
    }
}

/// Every part's global transform against the recursive computation.
fn check(scene: &Scene) -> Result<usize, String> {
    for (entity, global) in scene.global.iter() {
        let expected = recursive_global(scene, entity);
        if global.0 != expected {
            return Err(format!(
                "{entity:?}: the pass says {:?}, the recursion {expected:?}",
                global.0
            ));
        }
    }
    Ok(scene.global.len())
}

fn main() -> ExitCode {
    let mut scene = Scene::new();
    let ships = fleet(&mut scene, 100);
    let mut schedule = Schedule::new();
    schedule.add_system(turn).add_system(propagate);
    for frame in 1..=120 {
        schedule.run(&mut scene);
        if frame % 40 == 0 {
            match check(&scene) {
                Ok(parts) => {
                    println!("frame {frame}: {parts} global transforms match the recursion")
                }
                Err(message) => {
                    eprintln!("frame {frame}: {message}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    // A ship despawned takes its 15 parts with it.
    let before = scene.entity_count();
    scene.despawn(ships[0]);
    println!(
        "despawned a ship: {} entities gone, {} left, {} links left",
        before - scene.entity_count(),
        scene.entity_count(),
        scene.child_of.len()
    );
    if before - scene.entity_count() != 16 {
        eprintln!("a ship should take its 15 parts with it");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pass_matches_the_recursion_every_frame() {
        let mut scene = Scene::new();
        fleet(&mut scene, 5);
        let mut schedule = Schedule::new();
        schedule.add_system(turn).add_system(propagate);
        for _ in 0..10 {
            schedule.run(&mut scene);
            assert_eq!(check(&scene), Ok(80));
        }
    }
}
