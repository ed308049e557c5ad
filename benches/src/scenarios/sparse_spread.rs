//! `sparse_spread`: `n` entities (1,000,000), every 100th holding `Data`;
//! timed: for each of those `n / 100` (10,000) handles, in a shuffled
//! order fixed in setup, get `Data` mutably and double it ([`double`]).
//! This exercises lookups whose handles spread over a large index range.
//!
//! - typed_ecs: `world.get_mut::<Data>(e)`.
//! - hecs: one `world.view_mut::<&mut Data>()`, then `view.get_mut(e)`.
//! - bevy: a `QueryState<&mut Data>` made in setup; in the run,
//!   `state.query_mut(&mut world)` once, then `query.get_mut(e)`.
//! - shipyard: one `ViewMut<Data>`, then `(&mut view).get(e)`.
//! - sparsey: one `world.borrow_mut::<Data>()`, then `get_mut(e)`.
//! - specs: one `WriteStorage<Data>` (`VecStorage`, like every shared
//!   type: one slot per entity index), then `get_mut(e)`.
//! - raw: the `n / 100` values packed in one `Vec<Data>`, the handles
//!   indices into it: a program without an ECS has nothing at the other
//!   indices, so the spread costs it nothing (a `Vec<Option<Data>>` of `n`
//!   slots would be slower than some ECSs here, and no ceiling).

use crate::components::*;
use crate::rng::shuffled;
use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "sparse_spread",
    what: "double Data through 10,000 handles, in random order, among 1,000,000 entities (every 100th has Data)",
    sizes: &[1_000_000],
    size_note: "",
    test_size: 10_000,
    fresh_state: false,
    impls: crate::impls![typed_ecs, hecs, bevy, shipyard, sparsey, specs, raw],
    notes: "specs uses `VecStorage` for `Data` like for every shared type (a slot per entity \
            index). raw packs the 10,000 values in one `Vec`: no spread at all.",
};

/// The `Data` of the `i`-th entity, if it has one.
fn data(i: usize) -> Option<Data> {
    i.is_multiple_of(100)
        .then_some(Data(((i / 100) % 32) as f32 + 1.0))
}

/// The handles holding `Data`, in a fixed shuffled order.
fn chosen<H: Copy>(with_data: &[H]) -> Vec<H> {
    shuffled(with_data.len())
        .into_iter()
        .map(|i| with_data[i])
        .collect()
}

/// Spawns `n` entities with `spawn`, returning the handles that got `Data`.
fn spawn_all<H>(n: usize, mut spawn: impl FnMut(Option<Data>) -> H) -> Vec<H> {
    (0..n)
        .filter_map(|i| {
            let d = data(i);
            let has = d.is_some();
            let handle = spawn(d);
            has.then_some(handle)
        })
        .collect()
}

fn check<'a>(data: impl IntoIterator<Item = &'a Data>) -> Check {
    let values: Vec<f64> = data.into_iter().map(|d| f64::from(d.0)).collect();
    vec![
        ("with Data", values.len() as f64),
        ("sum of Data", values.iter().sum()),
    ]
}

pub mod typed_ecs {
    use super::*;
    use ::typed_ecs::prelude::*;

    world! { pub struct SparseWorld<Data>; }

    pub struct State {
        world: SparseWorld,
        handles: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = SparseWorld::new();
        let with_data = spawn_all(n, |d| match d {
            Some(d) => world.spawn_with((d,)),
            None => world.spawn(),
        });
        State {
            world,
            handles: chosen(&with_data),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for &e in &self.handles {
                double(self.world.get_mut::<Data>(e).unwrap());
            }
        }
        fn check(&self) -> Check {
            check(self.world.data.values())
        }
    }
}

pub mod hecs {
    use super::*;
    use ::hecs::{Entity, World};

    pub struct State {
        world: World,
        handles: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let with_data = spawn_all(n, |d| match d {
            Some(d) => world.spawn((d,)),
            None => world.spawn(()),
        });
        State {
            world,
            handles: chosen(&with_data),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut view = self.world.view_mut::<&mut Data>();
            for &e in &self.handles {
                double(view.get_mut(e).unwrap());
            }
        }
        fn check(&self) -> Check {
            let mut query = self.world.query::<&Data>();
            check(query.iter())
        }
    }
}

pub mod bevy {
    use super::*;
    use ::bevy_ecs::{entity::Entity, query::QueryState, world::World};

    pub struct State {
        world: World,
        query: QueryState<&'static mut Data>,
        handles: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let with_data = spawn_all(n, |d| match d {
            Some(d) => world.spawn(d).id(),
            None => world.spawn_empty().id(),
        });
        let query = world.query::<&mut Data>();
        State {
            world,
            query,
            handles: chosen(&with_data),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut query = self.query.query_mut(&mut self.world);
            for &e in &self.handles {
                double(&mut query.get_mut(e).unwrap());
            }
        }
        fn check(&self) -> Check {
            let mut query = self.world.try_query::<&Data>().unwrap();
            check(query.iter(&self.world))
        }
    }
}

pub mod shipyard {
    use super::*;
    use ::shipyard::{EntityId, Get, IntoIter, View, ViewMut, World};

    pub struct State {
        world: World,
        handles: Vec<EntityId>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        let with_data = spawn_all(n, |d| match d {
            Some(d) => world.add_entity((d,)),
            None => world.add_entity(()),
        });
        State {
            world,
            handles: chosen(&with_data),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut view = self.world.borrow::<ViewMut<Data>>().unwrap();
            for &e in &self.handles {
                double(&mut (&mut view).get(e).unwrap());
            }
        }
        fn check(&self) -> Check {
            self.world.run(|d: View<Data>| check((&d).iter()))
        }
    }
}

pub mod sparsey {
    use super::*;
    use ::sparsey::{Entity, World};

    pub struct State {
        world: World,
        handles: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::builder().register::<Data>().build();
        let with_data = spawn_all(n, |d| match d {
            Some(d) => world.create((d,)),
            None => world.create(()),
        });
        State {
            world,
            handles: chosen(&with_data),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut view = self.world.borrow_mut::<Data>();
            for &e in &self.handles {
                double(view.get_mut(e).unwrap());
            }
        }
        fn check(&self) -> Check {
            check(self.world.borrow::<Data>().as_slice())
        }
    }
}

pub mod specs {
    use super::*;
    use ::specs::{Builder, Entity, Join, World, WorldExt};

    pub struct State {
        world: World,
        handles: Vec<Entity>,
    }

    pub fn setup(n: usize) -> State {
        let mut world = World::new();
        world.register::<Data>();
        let with_data = spawn_all(n, |d| match d {
            Some(d) => world.create_entity().with(d).build(),
            None => world.create_entity().build(),
        });
        State {
            world,
            handles: chosen(&with_data),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut storage = self.world.write_storage::<Data>();
            for &e in &self.handles {
                double(storage.get_mut(e).unwrap());
            }
        }
        fn check(&self) -> Check {
            check((&self.world.read_storage::<Data>()).join())
        }
    }
}

pub mod raw {
    use super::*;

    pub struct State {
        data: Vec<Data>,
        handles: Vec<usize>,
    }

    pub fn setup(n: usize) -> State {
        // Without an ECS nothing stands at the other 99 indices: the values
        // are packed, and a handle is an index into them.
        let data: Vec<Data> = (0..n).filter_map(data).collect();
        let all: Vec<usize> = (0..data.len()).collect();
        State {
            handles: chosen(&all),
            data,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            for &e in &self.handles {
                double(&mut self.data[e]);
            }
        }
        fn check(&self) -> Check {
            check(&self.data)
        }
    }
}
