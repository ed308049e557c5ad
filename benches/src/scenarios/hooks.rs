//! `hooks` and `hooks_batched`: what a lifecycle hook costs (issue 28).
//! `n` entities (10,000) with `A`; timed: add `Health` to every entity,
//! then remove it from every entity, while an [`Index`] of the entities
//! holding `Health` (a flag by entity index and a count, the same type for
//! every implementation) is kept up to date: by `on_add` and `on_remove`
//! hooks where the crate has them, by the caller right after each change
//! where it does not (the `_by_hand` row: what a typed_ecs user writes
//! without hooks). A check counts the entities whose flag disagrees with
//! the world, and how many adds and removals the index was told of.
//!
//! `hooks` changes one entity at a time, so each change runs its hooks
//! before it returns:
//!
//! - typed_ecs: a world declaring `hooks { on_add(Health) => index_add;
//!   on_remove(Health) => index_remove; }` over the resource `index`;
//!   `world.add(e, Health(..))` per entity, then `world.remove::<Health>(e)`
//!   (which hands the value back after the hook saw it). Each hook is given
//!   a batch of one entity.
//! - typed_ecs_by_hand: the same world without `hooks`;
//!   `world.add(e, ..)` then `world.index.insert(..)`, `world.remove(e)`
//!   then `world.index.remove(..)`.
//! - bevy: `Health` with `#[component(on_add = .., on_remove = ..)]`, the
//!   index a `Resource` the hooks reach through `DeferredWorld::resource_mut`;
//!   `world.entity_mut(e).insert(..)`, then `.take::<Health>()`.
//! - raw: a `Vec<Option<Health>>` indexed by the handles (`usize`s), the
//!   index updated in the same loop.
//!
//! Every implementation sums the removed values (the tests see the removals
//! happened).
//!
//! `hooks_batched` makes the same changes through a sync point, one for
//! the adds and one for the removals, so typed_ecs runs each hook once per
//! sync point over all `n` entities:
//!
//! - typed_ecs: `add_deferred` per entity, `finalize_updates()`, then
//!   `remove_deferred::<Health>` per entity, `finalize_updates()`.
//! - typed_ecs_by_hand: the same without `hooks`, the index updated by a
//!   loop over the handles after each `finalize_updates()`.
//! - bevy: `Commands` over a `CommandQueue`: `entity(e).insert(..)`, then
//!   `queue.apply(&mut world)`; `entity(e).remove::<Health>()`, then
//!   `queue.apply`. Its hooks run once per entity, as they always do.
//! - raw: a `Vec` of the queued adds, then one of the queued removals,
//!   each applied in a loop that updates the index.
//!
//! The removed values are dropped (a queued removal gives nothing back), so
//! `hooks_batched` checks no sum. hecs, shipyard, sparsey and specs have no
//! hooks: n/a (their add and remove are timed in `add_remove`).

use crate::components::A;
use crate::{Check, Scenario};

/// The scenario: hooked changes one at a time.
pub const SCENARIO: Scenario = Scenario {
    name: "hooks",
    what: "add Health to 10,000 entities holding A, then remove it from every one, an index of \
           the holders kept by on_add and on_remove hooks (one change at a time)",
    sizes: &[10_000],
    size_note: "",
    test_size: 100,
    fresh_state: false,
    impls: crate::impls![in each: typed_ecs, typed_ecs_by_hand, bevy, raw],
    notes: "typed_ecs: `world.add` and `world.remove` with `on_add` and `on_remove` hooks \
            declared in `world!`; `typed_ecs_by_hand`: the same world without hooks, the \
            caller updating the index after each change; bevy: `entity_mut(e).insert` and \
            `take` with `#[component(on_add, on_remove)]` hooks reaching the index as a \
            `Resource`; raw: a `Vec<Option<_>>`, the index updated in the same loop. hecs, \
            shipyard, sparsey and specs have no hooks.",
};

/// The scenario: hooked changes applied at a sync point.
pub const SCENARIO_BATCH: Scenario = Scenario {
    name: "hooks_batched",
    what: "the changes of `hooks` (add Health to 10,000 entities holding A, then remove it), \
           queued and applied at a sync point for the adds and one for the removals",
    sizes: &[10_000],
    size_note: "",
    test_size: 100,
    fresh_state: false,
    impls: crate::impls![
        typed_ecs = batched,
        typed_ecs_by_hand = batched_by_hand,
        bevy = bevy_batched,
        raw = raw_batched
    ],
    notes: "typed_ecs: `add_deferred` and `remove_deferred`, each followed by \
            `finalize_updates`, which runs each hook once over the whole batch; \
            `typed_ecs_by_hand`: the same without hooks, the index updated by a loop after \
            each sync point; bevy: `Commands` over a `CommandQueue`, applied after the adds \
            and after the removals (its hooks run once per entity); raw: a `Vec` of queued \
            changes applied in a loop. hecs, shipyard, sparsey and specs have no hooks.",
};

/// The hooked component.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Health(pub f32);

/// The `Health` added to the `i`-th entity.
fn health(i: usize) -> Health {
    Health((i % 16) as f32)
}

/// What the hooks keep up to date: which entities hold `Health`, as a flag
/// by entity index, how many do, and how many adds and removals it was
/// told of. The same type, and the same work a change, for every
/// implementation; bevy's hooks reach it as a `Resource`.
#[derive(Clone, Debug, Default, bevy_ecs::resource::Resource)]
pub struct Index {
    /// `slots[i]`: the entity of index `i` holds `Health`.
    slots: Vec<bool>,
    /// How many flags are set.
    len: usize,
    /// Adds the index was told of.
    added: u64,
    /// Removals the index was told of.
    removed: u64,
}

impl Index {
    /// An empty index with a flag for every entity index below `n`.
    pub fn with_slots(n: usize) -> Self {
        Index {
            slots: vec![false; n],
            ..Index::default()
        }
    }

    /// The entity of index `slot` gained `Health`.
    #[inline]
    pub fn insert(&mut self, slot: u32) {
        let slot = slot as usize;
        if slot >= self.slots.len() {
            self.slots.resize(slot + 1, false);
        }
        let was = std::mem::replace(&mut self.slots[slot], true);
        self.len += usize::from(!was);
        self.added += 1;
    }

    /// The entity of index `slot` lost its `Health`.
    #[inline]
    pub fn remove(&mut self, slot: u32) {
        if let Some(flag) = self.slots.get_mut(slot as usize) {
            let was = std::mem::replace(flag, false);
            self.len -= usize::from(was);
        }
        self.removed += 1;
    }

    /// Whether the entity of index `slot` holds `Health`, as far as the
    /// index knows.
    pub fn contains(&self, slot: u32) -> bool {
        self.slots.get(slot as usize).copied().unwrap_or(false)
    }
}

/// What a run left behind. `disagreeing`: the entities whose flag in the
/// index differs from whether the world gives them a `Health`.
/// `removed_sum`: the sum of the values removals handed back (`None` when
/// they hand nothing back, in `hooks_batched`).
fn check(
    entities: usize,
    with_health: usize,
    index: &Index,
    disagreeing: usize,
    removed_sum: Option<f64>,
) -> Check {
    let mut check = vec![
        ("entities", entities as f64),
        ("with Health", with_health as f64),
        ("indexed", index.len as f64),
        ("adds indexed", index.added as f64),
        ("removals indexed", index.removed as f64),
        ("index disagrees with the world", disagreeing as f64),
    ];
    check.extend(removed_sum.map(|sum| ("sum of removed Health", sum)));
    check
}

/// typed_ecs's hooks, one per hook line of the hooked worlds.
mod typed_ecs_hooks {
    use super::{Health, Index};
    use ::typed_ecs::prelude::*;

    /// `on_add(Health)`: index the entities that gained one.
    pub fn index_add(added: OnAdd<Health>, index: &mut Index) {
        for e in added {
            index.insert(e.index());
        }
    }

    /// `on_remove(Health)`: unindex the entities that lost theirs.
    pub fn index_remove(removed: OnRemove<Health>, index: &mut Index) {
        for (e, _) in removed {
            index.remove(e.index());
        }
    }
}

/// typed_ecs's worlds and their checks, shared by both scenarios.
mod typed_ecs_worlds {
    use super::typed_ecs_hooks::{index_add, index_remove};
    use super::*;
    use ::typed_ecs::prelude::*;

    world! {
        /// The hooked world: the hooks keep `index`.
        pub struct HookedWorld<A, Health>;
        resources { index: Index }
        hooks {
            on_add(Health) => index_add;
            on_remove(Health) => index_remove;
        }
    }

    world! {
        /// The same world without hooks: its caller keeps `index`.
        pub struct PlainWorld<A, Health>;
        resources { index: Index }
    }

    /// A world (hooked or not) with `n` entities holding `A`, its index
    /// with a flag for each, and their handles.
    macro_rules! populated {
        ($world:ident, $n:expr) => {{
            let n = $n;
            let mut world = $world::new();
            world.index = Index::with_slots(n);
            let entities: Vec<Entity> = (0..n).map(|_| world.spawn_with((A(0.0),))).collect();
            (world, entities)
        }};
    }
    pub(super) use populated;

    /// The check of a typed_ecs world (hooked or not).
    macro_rules! checked {
        ($world:expr, $entities:expr, $removed:expr) => {{
            let world = &$world;
            let disagreeing = $entities
                .iter()
                .filter(|&&e| world.index.contains(e.index()) != world.has::<Health>(e))
                .count();
            check(
                world.entity_count(),
                world.size::<Health>(),
                &world.index,
                disagreeing,
                $removed,
            )
        }};
    }
    pub(super) use checked;
}

/// The implementations of `hooks`.
pub mod each {
    use super::*;

    /// typed_ecs with hooks.
    pub mod typed_ecs {
        use super::super::typed_ecs_worlds::{checked, populated, HookedWorld};
        use super::*;
        use crate::Instance;
        use ::typed_ecs::prelude::*;

        /// The hooked world and the handles.
        pub struct State {
            world: HookedWorld,
            entities: Vec<Entity>,
            removed: f64,
        }

        /// `n` entities holding `A`, none `Health`.
        pub fn setup(n: usize) -> State {
            let (world, entities) = populated!(HookedWorld, n);
            State {
                world,
                entities,
                removed: 0.0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                for (i, &e) in self.entities.iter().enumerate() {
                    self.world.add(e, health(i));
                }
                let mut removed = 0.0;
                for &e in &self.entities {
                    removed += self.world.remove::<Health>(e).unwrap().0;
                }
                self.removed += f64::from(removed);
            }
            fn check(&self) -> Check {
                checked!(self.world, self.entities, Some(self.removed))
            }
        }
    }

    /// typed_ecs without hooks, the caller keeping the index.
    pub mod typed_ecs_by_hand {
        use super::super::typed_ecs_worlds::{checked, populated, PlainWorld};
        use super::*;
        use crate::Instance;
        use ::typed_ecs::prelude::*;

        /// The world without hooks and the handles.
        pub struct State {
            world: PlainWorld,
            entities: Vec<Entity>,
            removed: f64,
        }

        /// `n` entities holding `A`, none `Health`.
        pub fn setup(n: usize) -> State {
            let (world, entities) = populated!(PlainWorld, n);
            State {
                world,
                entities,
                removed: 0.0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                for (i, &e) in self.entities.iter().enumerate() {
                    self.world.add(e, health(i));
                    self.world.index.insert(e.index());
                }
                let mut removed = 0.0;
                for &e in &self.entities {
                    removed += self.world.remove::<Health>(e).unwrap().0;
                    self.world.index.remove(e.index());
                }
                self.removed += f64::from(removed);
            }
            fn check(&self) -> Check {
                checked!(self.world, self.entities, Some(self.removed))
            }
        }
    }

    /// bevy with component hooks.
    pub mod bevy {
        use super::super::bevy_hooks::{checked, populated, HookedHealth};
        use super::*;
        use crate::Instance;
        use ::bevy_ecs::{entity::Entity, world::World};

        /// The world (the index a resource in it) and the handles.
        pub struct State {
            world: World,
            entities: Vec<Entity>,
            removed: f64,
        }

        /// `n` entities holding `A`, none `Health`.
        pub fn setup(n: usize) -> State {
            let (world, entities) = populated(n);
            State {
                world,
                entities,
                removed: 0.0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                for (i, &e) in self.entities.iter().enumerate() {
                    self.world.entity_mut(e).insert(HookedHealth(health(i)));
                }
                let mut removed = 0.0;
                for &e in &self.entities {
                    let HookedHealth(Health(hp)) =
                        self.world.entity_mut(e).take::<HookedHealth>().unwrap();
                    removed += hp;
                }
                self.removed += f64::from(removed);
            }
            fn check(&self) -> Check {
                checked(&self.world, &self.entities, Some(self.removed))
            }
        }
    }

    /// Plain `Vec`s.
    pub mod raw {
        use super::super::raw_columns::Columns;
        use super::*;
        use crate::Instance;

        /// The columns and the index.
        pub struct State {
            columns: Columns,
            removed: f64,
        }

        /// `n` entities holding `A`, none `Health`.
        pub fn setup(n: usize) -> State {
            State {
                columns: Columns::new(n),
                removed: 0.0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let Columns {
                    health: column,
                    index,
                    entities,
                    ..
                } = &mut self.columns;
                for (i, &e) in entities.iter().enumerate() {
                    column[e] = Some(health(i));
                    index.insert(e as u32);
                }
                let mut removed = 0.0;
                for &e in entities.iter() {
                    removed += column[e].take().unwrap().0;
                    index.remove(e as u32);
                }
                self.removed += f64::from(removed);
            }
            fn check(&self) -> Check {
                self.columns.check(Some(self.removed))
            }
        }
    }
}

/// bevy's hooked `Health`, its hooks, and its setup and check, shared by
/// both scenarios.
mod bevy_hooks {
    use super::*;
    use ::bevy_ecs::{
        component::Component, entity::Entity, lifecycle::HookContext, world::DeferredWorld,
        world::World,
    };

    /// `Health` with bevy's `on_add` and `on_remove` hooks.
    #[derive(Clone, Copy, Debug, PartialEq, Component)]
    #[component(on_add = index_add, on_remove = index_remove)]
    pub struct HookedHealth(pub Health);

    /// `on_add`: index the entity.
    fn index_add(mut world: DeferredWorld, context: HookContext) {
        world
            .resource_mut::<Index>()
            .insert(context.entity.index_u32());
    }

    /// `on_remove` (before the value leaves the entity): unindex it.
    fn index_remove(mut world: DeferredWorld, context: HookContext) {
        world
            .resource_mut::<Index>()
            .remove(context.entity.index_u32());
    }

    /// A world with `n` entities holding `A` and the index as a resource
    /// (with a flag for each), and their handles.
    pub fn populated(n: usize) -> (World, Vec<Entity>) {
        let mut world = World::new();
        let entities: Vec<Entity> = world.spawn_batch((0..n).map(|_| (A(0.0),))).collect();
        let slots = entities.iter().map(|e| e.index_u32() as usize + 1).max();
        world.insert_resource(Index::with_slots(slots.unwrap_or(0)));
        (world, entities)
    }

    /// The check of a bevy world.
    pub fn checked(world: &World, entities: &[Entity], removed: Option<f64>) -> Check {
        let index = world.resource::<Index>();
        let holds = |e: Entity| world.get::<HookedHealth>(e).is_some();
        let disagreeing = entities
            .iter()
            .filter(|&&e| index.contains(e.index_u32()) != holds(e))
            .count();
        let alive = entities
            .iter()
            .filter(|&&e| world.get_entity(e).is_ok())
            .count();
        let with_health = entities.iter().filter(|&&e| holds(e)).count();
        check(alive, with_health, index, disagreeing, removed)
    }
}

/// raw's columns, shared by both scenarios.
mod raw_columns {
    use super::*;

    /// `A` and `Health` as columns indexed by the handles (`usize`s), and
    /// the index.
    pub struct Columns {
        /// `A` for every entity (never read: it is what the entities hold
        /// in the other implementations).
        pub a: Vec<A>,
        /// Each entity's `Health`, if it holds one.
        pub health: Vec<Option<Health>>,
        /// The index.
        pub index: Index,
        /// The handles.
        pub entities: Vec<usize>,
    }

    impl Columns {
        /// `n` entities holding `A`, none `Health`.
        pub fn new(n: usize) -> Self {
            Columns {
                a: vec![A(0.0); n],
                health: vec![None; n],
                index: Index::with_slots(n),
                entities: (0..n).collect(),
            }
        }

        /// The check.
        pub fn check(&self, removed: Option<f64>) -> Check {
            let disagreeing = self
                .entities
                .iter()
                .filter(|&&e| self.index.contains(e as u32) != self.health[e].is_some())
                .count();
            check(
                self.a.len(),
                self.health.iter().flatten().count(),
                &self.index,
                disagreeing,
                removed,
            )
        }
    }
}

/// typed_ecs with hooks, at sync points.
pub mod batched {
    use super::typed_ecs_worlds::{checked, populated, HookedWorld};
    use super::*;
    use crate::Instance;
    use ::typed_ecs::prelude::*;

    /// The hooked world and the handles.
    pub struct State {
        world: HookedWorld,
        entities: Vec<Entity>,
    }

    /// `n` entities holding `A`, none `Health`.
    pub fn setup(n: usize) -> State {
        let (world, entities) = populated!(HookedWorld, n);
        State { world, entities }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate() {
                self.world.add_deferred(e, health(i));
            }
            self.world.finalize_updates();
            for &e in &self.entities {
                self.world.remove_deferred::<Health>(e);
            }
            self.world.finalize_updates();
        }
        fn check(&self) -> Check {
            checked!(self.world, self.entities, None)
        }
    }
}

/// typed_ecs without hooks, at sync points, the caller keeping the index.
pub mod batched_by_hand {
    use super::typed_ecs_worlds::{checked, populated, PlainWorld};
    use super::*;
    use crate::Instance;
    use ::typed_ecs::prelude::*;

    /// The world without hooks and the handles.
    pub struct State {
        world: PlainWorld,
        entities: Vec<Entity>,
    }

    /// `n` entities holding `A`, none `Health`.
    pub fn setup(n: usize) -> State {
        let (world, entities) = populated!(PlainWorld, n);
        State { world, entities }
    }

    impl Instance for State {
        fn run(&mut self) {
            for (i, &e) in self.entities.iter().enumerate() {
                self.world.add_deferred(e, health(i));
            }
            self.world.finalize_updates();
            for &e in &self.entities {
                self.world.index.insert(e.index());
            }
            for &e in &self.entities {
                self.world.remove_deferred::<Health>(e);
            }
            self.world.finalize_updates();
            for &e in &self.entities {
                self.world.index.remove(e.index());
            }
        }
        fn check(&self) -> Check {
            checked!(self.world, self.entities, None)
        }
    }
}

/// bevy with component hooks, through a command queue.
pub mod bevy_batched {
    use super::bevy_hooks::{checked, populated, HookedHealth};
    use super::*;
    use crate::Instance;
    use ::bevy_ecs::{entity::Entity, system::Commands, world::CommandQueue, world::World};

    /// The world (the index a resource in it), the handles and the queue.
    pub struct State {
        world: World,
        entities: Vec<Entity>,
        queue: CommandQueue,
    }

    /// `n` entities holding `A`, none `Health`.
    pub fn setup(n: usize) -> State {
        let (world, entities) = populated(n);
        State {
            world,
            entities,
            queue: CommandQueue::default(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut commands = Commands::new(&mut self.queue, &self.world);
            for (i, &e) in self.entities.iter().enumerate() {
                commands.entity(e).insert(HookedHealth(health(i)));
            }
            self.queue.apply(&mut self.world);
            let mut commands = Commands::new(&mut self.queue, &self.world);
            for &e in &self.entities {
                commands.entity(e).remove::<HookedHealth>();
            }
            self.queue.apply(&mut self.world);
        }
        fn check(&self) -> Check {
            checked(&self.world, &self.entities, None)
        }
    }
}

/// Plain `Vec`s, the changes queued in `Vec`s and applied in loops.
pub mod raw_batched {
    use super::raw_columns::Columns;
    use super::*;
    use crate::Instance;

    /// The columns and the index, and the two queues (kept between runs).
    pub struct State {
        columns: Columns,
        adds: Vec<(usize, Health)>,
        removals: Vec<usize>,
    }

    /// `n` entities holding `A`, none `Health`.
    pub fn setup(n: usize) -> State {
        State {
            columns: Columns::new(n),
            adds: Vec::new(),
            removals: Vec::new(),
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let Columns {
                health: column,
                index,
                entities,
                ..
            } = &mut self.columns;
            self.adds
                .extend(entities.iter().enumerate().map(|(i, &e)| (e, health(i))));
            for (e, h) in self.adds.drain(..) {
                column[e] = Some(h);
                index.insert(e as u32);
            }
            self.removals.extend(entities.iter().copied());
            for e in self.removals.drain(..) {
                column[e] = None;
                index.remove(e as u32);
            }
        }
        fn check(&self) -> Check {
            self.columns.check(None)
        }
    }
}
