//! The hierarchy scenarios of issue 29 (relations), side by side with
//! bevy_ecs's `ChildOf`/`Children`. The `typed_ecs` row uses its relations
//! (the world of [`related`]: `relations { child_of: ChildOf -> children
//! [despawn, tree]; }`, `relate`, `despawn`, `children.of`); the
//! `typed_ecs_by_hand` row is a typed_ecs world holding
//! [`Parent`]`(Entity)` and [`Children`]`(Vec<Entity>)` components kept by
//! hand, as a typed_ecs user did before relations (the helpers of
//! [`by_hand`]: spawning a child pushes it on its parent's list, unlinking
//! one scans that list, despawning a tree walks it with a worklist).
//!
//! - `hierarchy_spawn` ([`spawn`]): spawn `n` (100,000) children, 100
//!   under each of `n / 100` (1,000) parents. Each run starts from a fresh
//!   world holding only the parents (set up off the clock, dropped off the
//!   clock).
//! - `hierarchy_unlink_one` ([`unlink_one`]): a parent with `n`
//!   (1,000,000) children, built once in setup; each run despawns one
//!   child picked at random (the same ones for every implementation) and
//!   spawns one new child, so the size stays the same (bevy#23295's case).
//! - `hierarchy_despawn_tree` ([`despawn_tree`]): despawn the root of a
//!   10-level tree of `n` (100,000) entities; the tree is rebuilt off the
//!   clock before each run ([`Instance::prepare`]).
//! - `transform_propagation` ([`propagation`]): global = parent's global ∘
//!   local ([`compose`]) through `n` (100,000) entities in a 5-level
//!   forest, parents first.
//!
//! The rows:
//!
//! - typed_ecs: each child `relate`d to its parent (one link per source;
//!   each link knows its place in its parent's list, so an unlink is a
//!   `swap_remove` and one place fixed: O(1), sibling order not kept); a
//!   despawn takes the children (the relation's `despawn` policy, a
//!   worklist); propagation walks `children.of(e)`.
//! - bevy: its `ChildOf` component and `Children` relationship target
//!   (`linked_spawn`: despawning a parent despawns its children), with no
//!   `bevy_transform`. Unlinking a child (its `ChildOf` hook) finds it in
//!   the parent's `Children` with `rposition` and takes it out with
//!   `Vec::remove`, keeping sibling order: O(list length).
//! - typed_ecs_by_hand: as above. Its unlink does what bevy's does
//!   (`rposition`, `Vec::remove`), so both keep sibling order.
//! - raw: plain `Vec`s indexed by `u32` handles, no generations, with the
//!   parent's index per entity (and, in `hierarchy_unlink_one`, the
//!   entity's place in its parent's list: an O(1) `swap_remove` unlink that
//!   does not keep sibling order, the ceiling a relation with O(1) unlink
//!   aims at).
//!
//! hecs, shipyard, sparsey and specs are left out (each would be the same
//! by-hand components as `typed_ecs_by_hand`).
//!
//! Checks: every entity's data, its parent's data, the length of its child
//! list and the entries of that list whose own parent link disagrees
//! ([`census`]); `transform_propagation` also counts the globals that
//! differ (to the bit) from a recursive computation ([`reference_globals`]).

use crate::components::{affine, compose, Affine2, Data, Global2, Local2};
use crate::rng::{Rng, SEED};
use crate::{Check, Instance, Scenario};

/// A parent link kept by hand: the entity's parent (`E`: the crate's
/// handle).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parent<E>(pub E);

/// A child list kept by hand: the entity's children, in the order they
/// were linked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Children<E>(pub Vec<E>);

/// The raw rows' "no parent".
const NONE: u32 = u32::MAX;

/// The data of the `i`-th entity spawned: small integers, so sums of them
/// are exact in `f64` in any order.
fn data(i: usize) -> Data {
    Data((i % 64) as f32)
}

/// One entity, as the census sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Node {
    /// Its data.
    pub data: f32,
    /// Its parent's data, if it has a parent.
    pub parent_data: Option<f32>,
    /// The length of its child list.
    pub children: usize,
    /// The entries of its child list whose parent link names another.
    pub disagreeing: usize,
}

/// The check of a hierarchy: counts and sums over every live entity.
pub fn census(nodes: impl IntoIterator<Item = Node>) -> Check {
    let (mut alive, mut linked, mut listed, mut disagreeing) = (0usize, 0usize, 0usize, 0usize);
    let (mut data, mut parent_data) = (0.0f64, 0.0f64);
    for node in nodes {
        alive += 1;
        data += f64::from(node.data);
        if let Some(p) = node.parent_data {
            linked += 1;
            parent_data += f64::from(p);
        }
        listed += node.children;
        disagreeing += node.disagreeing;
    }
    vec![
        ("entities", alive as f64),
        ("with a parent", linked as f64),
        ("child list entries", listed as f64),
        ("list entries whose parent disagrees", disagreeing as f64),
        ("sum of data", data),
        ("sum of the parents' data", parent_data),
    ]
}

/// typed_ecs with the hierarchy kept by hand: the world and the helpers a
/// typed_ecs user writes today.
pub mod by_hand {
    use super::{Children, Node, Parent};
    use crate::components::{Data, Global2, Local2};
    use ::typed_ecs::prelude::*;

    world! {
        /// Every hierarchy scenario's world (each uses some of the
        /// storages): data, the two sides of the links, and transforms.
        pub struct TreeWorld {
            data: Data,
            parent: Parent<Entity>,
            children: Children<Entity>,
            local: Local2,
            global: Global2,
        }
    }

    /// Links `child` under `parent`: its `Parent`, and the end of the
    /// parent's `Children` (added if it has none).
    #[inline]
    pub fn link(world: &mut TreeWorld, child: Entity, parent: Entity) {
        world.add(child, Parent(parent));
        match world.children.get_mut(parent) {
            Some(children) => children.0.push(child),
            None => world.add(parent, Children(vec![child])),
        }
    }

    /// Spawns an entity with `data` as the last child of `parent`.
    #[inline]
    pub fn spawn_child(world: &mut TreeWorld, parent: Entity, data: Data) -> Entity {
        let child = world.spawn_with((data, Parent(parent)));
        match world.children.get_mut(parent) {
            Some(children) => children.0.push(child),
            None => world.add(parent, Children(vec![child])),
        }
        child
    }

    /// Takes `child` out of its parent's list (a scan from the back, then
    /// `Vec::remove`, keeping sibling order, as bevy does) and drops its
    /// `Parent`.
    #[inline]
    pub fn unlink(world: &mut TreeWorld, child: Entity) {
        if let Some(Parent(parent)) = world.remove::<Parent<Entity>>(child) {
            if let Some(children) = world.children.get_mut(parent) {
                if let Some(at) = children.0.iter().rposition(|&c| c == child) {
                    children.0.remove(at);
                }
            }
        }
    }

    /// Despawns `root` and everything under it: unlinks `root` from its
    /// parent, then a worklist (`stack`, reused) of the entities to
    /// despawn, each adding its children.
    pub fn despawn_recursive(world: &mut TreeWorld, root: Entity, stack: &mut Vec<Entity>) {
        unlink(world, root);
        stack.push(root);
        while let Some(e) = stack.pop() {
            if let Some(Children(children)) = world.remove::<Children<Entity>>(e) {
                stack.extend(children);
            }
            world.despawn(e);
        }
    }

    /// The census of a by-hand world (every entity with `Data`).
    pub fn nodes(world: &TreeWorld) -> impl Iterator<Item = Node> + '_ {
        world.data.iter().map(move |(e, d)| {
            let children = world.children.get(e).map_or(&[][..], |c| &c.0[..]);
            Node {
                data: d.0,
                parent_data: world
                    .parent
                    .get(e)
                    .map(|p| world.data.get(p.0).expect("a live parent").0),
                children: children.len(),
                disagreeing: children
                    .iter()
                    .filter(|&&c| world.parent.get(c) != Some(&Parent(e)))
                    .count(),
            }
        })
    }
}

/// typed_ecs with its relations (`relations { child_of: ChildOf ->
/// children [despawn, tree]; }`): the world every typed_ecs row uses.
pub mod related {
    use super::Node;
    use crate::components::{Data, Global2, Local2};
    use ::typed_ecs::prelude::*;

    /// The relation: a child's link to its parent.
    pub struct ChildOf;

    world! {
        /// Every hierarchy scenario's world (each uses some of the
        /// storages): data, transforms, and the relation.
        pub struct RelWorld {
            data: Data,
            local: Local2,
            global: Global2,
        }
        relations { child_of: ChildOf -> children [despawn, tree]; }
    }

    /// Spawns an entity with `data` as a child of `parent`.
    #[inline]
    pub fn spawn_child(world: &mut RelWorld, parent: Entity, data: Data) -> Entity {
        let child = world.spawn_with((data,));
        world.relate(child, ChildOf, parent).expect("a new child");
        child
    }

    /// The census of a world with relations (every entity with `Data`).
    pub fn nodes(world: &RelWorld) -> impl Iterator<Item = Node> + '_ {
        world.data.iter().map(move |(e, d)| {
            let children = world.children.of(e);
            Node {
                data: d.0,
                parent_data: world
                    .child_of
                    .target(e)
                    .map(|p| world.data.get(p).expect("a live parent").0),
                children: children.len(),
                disagreeing: children
                    .iter()
                    .filter(|&&c| world.child_of.target(c) != Some(e))
                    .count(),
            }
        })
    }
}

/// bevy's census: every entity with `Data`.
fn bevy_nodes(world: &::bevy_ecs::world::World) -> Vec<Node> {
    use ::bevy_ecs::{entity::Entity, hierarchy::ChildOf, hierarchy::Children};
    // `ChildOf` and `Children` may not be registered yet: looked up one
    // entity at a time, where an unregistered component is just absent.
    let Some(mut query) = world.try_query::<(Entity, &Data)>() else {
        return Vec::new();
    };
    query
        .iter(world)
        .map(|(e, d)| {
            let parent = world.get::<ChildOf>(e);
            let children = world.get::<Children>(e).map_or(&[][..], |c| &c[..]);
            Node {
                data: d.0,
                parent_data: parent.map(|p| world.get::<Data>(p.parent()).expect("a parent").0),
                children: children.len(),
                disagreeing: children
                    .iter()
                    .filter(|&&c| world.get::<ChildOf>(c).map(ChildOf::parent) != Some(e))
                    .count(),
            }
        })
        .collect()
}

/// `hierarchy_spawn`: 100 children under each parent.
pub mod spawn {
    use super::*;

    /// Children per parent.
    pub const PER_PARENT: usize = 100;

    /// The scenario.
    pub const SCENARIO: Scenario = Scenario {
        name: "hierarchy_spawn",
        what: "spawn 100,000 children (with Data) under 1,000 parents, 100 each, into a fresh \
               world holding only the parents",
        sizes: &[100_000],
        size_note: " children",
        test_size: 1_000,
        fresh_state: true,
        impls: crate::impls![in spawn: typed_ecs, bevy, typed_ecs_by_hand, raw],
        notes: "Each run starts from a fresh world with the `n / 100` parents spawned (set up \
                off the clock) and spawns their children parent by parent, each with `Data`. \
                bevy: `entity_mut(parent).with_children(|s| s.spawn(Data))` (its `ChildOf` \
                hook pushes each child on the parent's `Children`); `typed_ecs_by_hand`: \
                `spawn_with((Data, Parent(p)))`, then a push on the parent's \
                `Children(Vec<Entity>)` (added with the first child); raw: pushes on `Vec`s of \
                data, parent index and child lists.",
    };

    /// The parents' count for `n` children.
    fn parents(n: usize) -> usize {
        (n / PER_PARENT).max(1)
    }

    /// bevy's `ChildOf`/`Children`.
    pub mod bevy {
        use super::*;
        use ::bevy_ecs::{entity::Entity, world::World};

        /// The world and the parents.
        pub struct State {
            world: World,
            parents: Vec<Entity>,
            n: usize,
        }

        /// A fresh world with the parents.
        pub fn setup(n: usize) -> State {
            let mut world = World::new();
            let parents = (0..parents(n)).map(|i| world.spawn(data(i)).id()).collect();
            State { world, parents, n }
        }

        impl Instance for State {
            fn run(&mut self) {
                let per_parent = self.n / self.parents.len();
                let mut i = 0;
                for &parent in &self.parents {
                    self.world.entity_mut(parent).with_children(|spawner| {
                        for _ in 0..per_parent {
                            spawner.spawn(data(i));
                            i += 1;
                        }
                    });
                }
            }
            fn check(&self) -> Check {
                census(bevy_nodes(&self.world))
            }
        }
    }

    /// A typed_ecs implementation over the world `$world` of `$module`
    /// (its `spawn_child` links each child as that module does). A macro
    /// rather than a generic, so each keeps its own module path (callgrind
    /// counts by it).
    macro_rules! typed_spawn {
        ($(#[$doc:meta])* $name:ident: $module:ident :: $world:ident) => {
            $(#[$doc])*
            pub mod $name {
                use super::super::$module::{nodes, spawn_child, $world};
                use super::*;
                use ::typed_ecs::prelude::*;

                /// The world and the parents.
                pub struct State {
                    world: $world,
                    parents: Vec<Entity>,
                    n: usize,
                }

                /// A fresh world with the parents.
                pub fn setup(n: usize) -> State {
                    let mut world = $world::new();
                    let parents = (0..parents(n))
                        .map(|i| world.spawn_with((data(i),)))
                        .collect();
                    State { world, parents, n }
                }

                impl Instance for State {
                    fn run(&mut self) {
                        let per_parent = self.n / self.parents.len();
                        let mut i = 0;
                        for &parent in &self.parents {
                            for _ in 0..per_parent {
                                spawn_child(&mut self.world, parent, data(i));
                                i += 1;
                            }
                        }
                    }
                    fn check(&self) -> Check {
                        census(nodes(&self.world))
                    }
                }
            }
        };
    }

    typed_spawn! {
        /// typed_ecs's relation: `spawn_with`, then `relate`.
        typed_ecs: related::RelWorld
    }

    typed_spawn! {
        /// typed_ecs with `Parent` and `Children` kept by hand.
        typed_ecs_by_hand: by_hand::TreeWorld
    }

    /// Plain `Vec`s.
    pub mod raw {
        use super::*;

        /// Data, parent index and child list by entity index.
        pub struct State {
            data: Vec<Data>,
            parent: Vec<u32>,
            children: Vec<Vec<u32>>,
            parents: Vec<u32>,
            n: usize,
        }

        /// Fresh `Vec`s holding the parents.
        pub fn setup(n: usize) -> State {
            let count = parents(n);
            State {
                data: (0..count).map(data).collect(),
                parent: vec![NONE; count],
                children: vec![Vec::new(); count],
                parents: (0..count as u32).collect(),
                n,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let per_parent = self.n / self.parents.len();
                let mut i = 0;
                for &parent in &self.parents {
                    for _ in 0..per_parent {
                        let child = self.data.len() as u32;
                        self.data.push(data(i));
                        self.parent.push(parent);
                        self.children.push(Vec::new());
                        self.children[parent as usize].push(child);
                        i += 1;
                    }
                }
            }
            fn check(&self) -> Check {
                census(raw_nodes(&self.data, &self.parent, &self.children, |_| {
                    true
                }))
            }
        }
    }
}

/// The census of raw `Vec`s: every index `alive` accepts.
fn raw_nodes<'a>(
    data: &'a [Data],
    parent: &'a [u32],
    children: &'a [Vec<u32>],
    alive: impl Fn(usize) -> bool + 'a,
) -> impl Iterator<Item = Node> + 'a {
    (0..data.len())
        .filter(move |&i| alive(i))
        .map(move |i| Node {
            data: data[i].0,
            parent_data: (parent[i] != NONE).then(|| data[parent[i] as usize].0),
            children: children[i].len(),
            disagreeing: children[i]
                .iter()
                .filter(|&&c| parent[c as usize] != i as u32)
                .count(),
        })
}

/// `hierarchy_unlink_one`: one child of a parent with many despawned, one
/// spawned.
pub mod unlink_one {
    use super::*;

    /// The scenario.
    pub const SCENARIO: Scenario = Scenario {
        name: "hierarchy_unlink_one",
        what: "despawn one random child of a parent with 1,000,000 children, then spawn one \
               new child under it (bevy#23295's case)",
        sizes: &[1_000_000],
        size_note: " children",
        test_size: 1_000,
        fresh_state: false,
        impls: crate::impls![in unlink_one: typed_ecs, bevy, typed_ecs_by_hand, raw],
        notes: "The parent and its children are spawned once, in setup. Each run picks a child \
                at random (one fixed-seed sequence for every row), despawns it, and spawns a new \
                child (with `Data`) at the end of the list. bevy: `world.despawn(child)` (its \
                `ChildOf` hook finds the child in `Children` with `rposition` and \
                `Vec::remove`s it), then `world.spawn((Data, ChildOf(parent)))`; \
                `typed_ecs_by_hand`: the same by hand (remove `Parent`, `rposition` and \
                `Vec::remove` in the parent's `Children`, `despawn`, then `spawn_with` and a \
                push); both O(list length) and both keep sibling order. raw: each child knows \
                its place in the parent's list, so the unlink is a `swap_remove` and one index \
                fixed (O(1), sibling order not kept), and freed indices are reused.",
    };

    /// The children the runs pick from, and the generator that picks.
    pub struct Picker<E> {
        /// The live children, in no particular order.
        live: Vec<E>,
        rng: Rng,
        /// Children spawned so far (their data's index).
        spawned: usize,
    }

    impl<E: Copy> Picker<E> {
        /// Picks from `live`, which `spawned` children were spawned for.
        fn new(live: Vec<E>) -> Self {
            let spawned = live.len();
            Picker {
                live,
                rng: Rng::new(SEED),
                spawned,
            }
        }

        /// The next child to despawn, no longer live.
        #[inline]
        fn pick(&mut self) -> E {
            let at = self.rng.index(self.live.len());
            self.live.swap_remove(at)
        }

        /// Counts one more child spawned and returns its data.
        #[inline]
        fn next_data(&mut self) -> Data {
            self.spawned += 1;
            data(self.spawned)
        }
    }

    /// bevy's `ChildOf`/`Children`.
    pub mod bevy {
        use super::*;
        use ::bevy_ecs::{entity::Entity, hierarchy::ChildOf, world::World};

        /// The world, the parent and the picker.
        pub struct State {
            world: World,
            parent: Entity,
            picker: Picker<Entity>,
        }

        /// A parent with `n` children.
        pub fn setup(n: usize) -> State {
            let mut world = World::new();
            let parent = world.spawn(Data(0.5)).id();
            let mut live = Vec::with_capacity(n + 1);
            world.entity_mut(parent).with_children(|spawner| {
                live.extend((0..n).map(|i| spawner.spawn(data(i)).id()));
            });
            State {
                world,
                parent,
                picker: Picker::new(live),
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let child = self.picker.pick();
                self.world.despawn(child);
                let data = self.picker.next_data();
                let child = self.world.spawn((data, ChildOf(self.parent))).id();
                self.picker.live.push(child);
            }
            fn check(&self) -> Check {
                census(bevy_nodes(&self.world))
            }
        }
    }

    /// typed_ecs's relation: `despawn` (an O(1) unlink), then
    /// `spawn_with` and `relate`.
    pub mod typed_ecs {
        use super::super::related::{nodes, spawn_child, RelWorld};
        use super::*;
        use ::typed_ecs::prelude::*;

        /// The world, the parent and the picker.
        pub struct State {
            world: RelWorld,
            parent: Entity,
            picker: Picker<Entity>,
        }

        /// A parent with `n` children.
        pub fn setup(n: usize) -> State {
            let mut world = RelWorld::new();
            let parent = world.spawn_with((Data(0.5),));
            let live = (0..n)
                .map(|i| spawn_child(&mut world, parent, data(i)))
                .collect();
            State {
                world,
                parent,
                picker: Picker::new(live),
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let child = self.picker.pick();
                self.world.despawn(child);
                let data = self.picker.next_data();
                let child = spawn_child(&mut self.world, self.parent, data);
                self.picker.live.push(child);
            }
            fn check(&self) -> Check {
                census(nodes(&self.world))
            }
        }
    }

    /// typed_ecs with `Parent` and `Children` kept by hand.
    pub mod typed_ecs_by_hand {
        use super::super::by_hand::{despawn_recursive, nodes, spawn_child, TreeWorld};
        use super::*;
        use ::typed_ecs::prelude::*;

        /// The world, the parent, the picker and the worklist.
        pub struct State {
            world: TreeWorld,
            parent: Entity,
            picker: Picker<Entity>,
            stack: Vec<Entity>,
        }

        /// A parent with `n` children.
        pub fn setup(n: usize) -> State {
            let mut world = TreeWorld::new();
            let parent = world.spawn_with((Data(0.5),));
            let live = (0..n)
                .map(|i| spawn_child(&mut world, parent, data(i)))
                .collect();
            State {
                world,
                parent,
                picker: Picker::new(live),
                stack: Vec::new(),
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let child = self.picker.pick();
                despawn_recursive(&mut self.world, child, &mut self.stack);
                let data = self.picker.next_data();
                let child = spawn_child(&mut self.world, self.parent, data);
                self.picker.live.push(child);
            }
            fn check(&self) -> Check {
                census(nodes(&self.world))
            }
        }
    }

    /// Plain `Vec`s with an O(1) unlink.
    pub mod raw {
        use super::*;

        /// Data, parent index, place in the parent's list and child list by
        /// entity index; the dead indices, reused first.
        pub struct State {
            data: Vec<Data>,
            parent: Vec<u32>,
            slot: Vec<u32>,
            children: Vec<Vec<u32>>,
            alive: Vec<bool>,
            free: Vec<u32>,
            picker: Picker<u32>,
        }

        impl State {
            /// Spawns an entity with `data` as the last child of `parent`.
            #[inline]
            fn spawn_child(&mut self, parent: u32, data: Data) -> u32 {
                let slot = self.children[parent as usize].len() as u32;
                let child = match self.free.pop() {
                    Some(child) => {
                        let i = child as usize;
                        self.data[i] = data;
                        self.parent[i] = parent;
                        self.slot[i] = slot;
                        self.alive[i] = true;
                        child
                    }
                    None => {
                        self.data.push(data);
                        self.parent.push(parent);
                        self.slot.push(slot);
                        self.children.push(Vec::new());
                        self.alive.push(true);
                        self.data.len() as u32 - 1
                    }
                };
                self.children[parent as usize].push(child);
                child
            }

            /// Despawns `child` (which has no children): `swap_remove`s it
            /// from its parent's list and tells the child moved into its
            /// place.
            #[inline]
            fn despawn_child(&mut self, child: u32) {
                let i = child as usize;
                let list = &mut self.children[self.parent[i] as usize];
                let slot = self.slot[i];
                list.swap_remove(slot as usize);
                if let Some(&moved) = list.get(slot as usize) {
                    self.slot[moved as usize] = slot;
                }
                self.parent[i] = NONE;
                self.alive[i] = false;
                self.free.push(child);
            }
        }

        /// A parent (index 0) with `n` children.
        pub fn setup(n: usize) -> State {
            let mut state = State {
                data: vec![Data(0.5)],
                parent: vec![NONE],
                slot: vec![0],
                children: vec![Vec::new()],
                alive: vec![true],
                free: Vec::new(),
                picker: Picker::new(Vec::new()),
            };
            let live = (0..n).map(|i| state.spawn_child(0, data(i))).collect();
            state.picker = Picker::new(live);
            state
        }

        impl Instance for State {
            fn run(&mut self) {
                let child = self.picker.pick();
                self.despawn_child(child);
                let data = self.picker.next_data();
                let child = self.spawn_child(0, data);
                self.picker.live.push(child);
            }
            fn check(&self) -> Check {
                census(raw_nodes(&self.data, &self.parent, &self.children, |i| {
                    self.alive[i]
                }))
            }
        }
    }
}

/// The parent of entity `i` of the `hierarchy_despawn_tree` tree (in spawn
/// order): a 4-ary heap, so the root is entity 0 and 100,000 entities make
/// 10 levels (levels 0 to 8 full, 87,381 entities; 12,619 leaves on level
/// 9).
pub fn tree_parent(i: usize) -> Option<usize> {
    (i > 0).then(|| (i - 1) / 4)
}

/// The roots of the `transform_propagation` forest.
pub const ROOTS: usize = 10;

/// The parent of entity `i` of the `transform_propagation` forest (in spawn
/// order): [`ROOTS`] roots, each with 10 children, level by level, so
/// 100,000 entities make 5 levels (10, 100, 1,000, 10,000 and 88,890).
pub fn forest_parent(i: usize) -> Option<usize> {
    (i >= ROOTS).then(|| (i - ROOTS) / 10)
}

/// `hierarchy_despawn_tree`: a 10-level tree despawned from its root.
pub mod despawn_tree {
    use super::*;

    /// The scenario.
    pub const SCENARIO: Scenario = Scenario {
        name: "hierarchy_despawn_tree",
        what: "despawn the root of a 10-level tree of 100,000 entities (with Data), and with \
               it the whole tree",
        sizes: &[100_000],
        size_note: "",
        test_size: 2_000,
        fresh_state: false,
        impls: crate::impls![in despawn_tree: typed_ecs, bevy, typed_ecs_by_hand, raw],
        notes: "The tree is a 4-ary heap in spawn order (levels 0 to 8 full, 12,619 leaves on \
                level 9), spawned parents first, and rebuilt in the same world off the clock \
                before each run (`Instance::prepare`; the timings take each run on its own). \
                bevy: `world.despawn(root)` (`Children` is `linked_spawn`: its despawn hook \
                despawns the children, each child's `ChildOf` hook unlinking it from its \
                parent's list on the way); `typed_ecs_by_hand`: a worklist from the root, each \
                entity's `Children` removed and pushed, then the entity despawned (the tree is \
                gone, so its members are not unlinked one by one); raw: the same worklist over \
                `Vec`s, marking entities dead (child lists drained, their memory kept).",
    };

    /// bevy's `ChildOf`/`Children`.
    pub mod bevy {
        use super::*;
        use ::bevy_ecs::{entity::Entity, hierarchy::ChildOf, world::World};

        /// The world and the tree's root, if it is built.
        pub struct State {
            world: World,
            root: Option<Entity>,
            n: usize,
        }

        impl State {
            /// Spawns the tree, parents first.
            fn build(&mut self) {
                let mut all: Vec<Entity> = Vec::with_capacity(self.n);
                for i in 0..self.n {
                    let e = match tree_parent(i) {
                        None => self.world.spawn(data(i)).id(),
                        Some(p) => self.world.spawn((data(i), ChildOf(all[p]))).id(),
                    };
                    all.push(e);
                }
                self.root = all.first().copied();
            }
        }

        /// A world with the tree.
        pub fn setup(n: usize) -> State {
            let mut state = State {
                world: World::new(),
                root: None,
                n,
            };
            state.build();
            state
        }

        impl Instance for State {
            fn run(&mut self) {
                if let Some(root) = self.root.take() {
                    self.world.despawn(root);
                }
            }
            fn check(&self) -> Check {
                census(bevy_nodes(&self.world))
            }
            fn prepare(&mut self) {
                if self.root.is_none() {
                    self.build();
                }
            }
            fn prepares(&self) -> bool {
                true
            }
        }
    }

    /// typed_ecs's relation: `despawn(root)`, whose `despawn` policy takes
    /// the tree.
    pub mod typed_ecs {
        use super::super::related::{nodes, ChildOf, RelWorld};
        use super::*;
        use ::typed_ecs::prelude::*;

        /// The world and the tree's root if it is built.
        pub struct State {
            world: RelWorld,
            root: Option<Entity>,
            n: usize,
        }

        impl State {
            /// Spawns the tree, parents first.
            fn build(&mut self) {
                let mut all: Vec<Entity> = Vec::with_capacity(self.n);
                for i in 0..self.n {
                    let e = self.world.spawn_with((data(i),));
                    if let Some(p) = tree_parent(i) {
                        self.world.relate(e, ChildOf, all[p]).expect("a new child");
                    }
                    all.push(e);
                }
                self.root = all.first().copied();
            }
        }

        /// A world with the tree.
        pub fn setup(n: usize) -> State {
            let mut state = State {
                world: RelWorld::new(),
                root: None,
                n,
            };
            state.build();
            state
        }

        impl Instance for State {
            fn run(&mut self) {
                if let Some(root) = self.root.take() {
                    self.world.despawn(root);
                }
            }
            fn check(&self) -> Check {
                census(nodes(&self.world))
            }
            fn prepare(&mut self) {
                if self.root.is_none() {
                    self.build();
                }
            }
            fn prepares(&self) -> bool {
                true
            }
        }
    }

    /// typed_ecs with `Parent` and `Children` kept by hand.
    pub mod typed_ecs_by_hand {
        use super::super::by_hand::{despawn_recursive, link, nodes, TreeWorld};
        use super::*;
        use ::typed_ecs::prelude::*;

        /// The world, the tree's root if it is built, and the worklist.
        pub struct State {
            world: TreeWorld,
            root: Option<Entity>,
            stack: Vec<Entity>,
            n: usize,
        }

        impl State {
            /// Spawns the tree, parents first.
            fn build(&mut self) {
                let mut all: Vec<Entity> = Vec::with_capacity(self.n);
                for i in 0..self.n {
                    let e = self.world.spawn_with((data(i),));
                    if let Some(p) = tree_parent(i) {
                        link(&mut self.world, e, all[p]);
                    }
                    all.push(e);
                }
                self.root = all.first().copied();
            }
        }

        /// A world with the tree.
        pub fn setup(n: usize) -> State {
            let mut state = State {
                world: TreeWorld::new(),
                root: None,
                stack: Vec::new(),
                n,
            };
            state.build();
            state
        }

        impl Instance for State {
            fn run(&mut self) {
                if let Some(root) = self.root.take() {
                    despawn_recursive(&mut self.world, root, &mut self.stack);
                }
            }
            fn check(&self) -> Check {
                census(nodes(&self.world))
            }
            fn prepare(&mut self) {
                if self.root.is_none() {
                    self.build();
                }
            }
            fn prepares(&self) -> bool {
                true
            }
        }
    }

    /// Plain `Vec`s.
    pub mod raw {
        use super::*;

        /// Data, parent index, child list and liveness by entity index; the
        /// worklist.
        pub struct State {
            data: Vec<Data>,
            parent: Vec<u32>,
            children: Vec<Vec<u32>>,
            alive: Vec<bool>,
            stack: Vec<u32>,
            n: usize,
        }

        impl State {
            /// Fills the `Vec`s with the tree (reusing their memory).
            fn build(&mut self) {
                let n = self.n;
                self.data.clear();
                self.data.extend((0..n).map(data));
                self.parent.clear();
                self.parent
                    .extend((0..n).map(|i| tree_parent(i).map_or(NONE, |p| p as u32)));
                self.children.resize_with(n, Vec::new);
                for list in &mut self.children {
                    list.clear();
                }
                for i in 1..n {
                    self.children[self.parent[i] as usize].push(i as u32);
                }
                self.alive.clear();
                self.alive.resize(n, true);
            }
        }

        /// `Vec`s with the tree.
        pub fn setup(n: usize) -> State {
            let mut state = State {
                data: Vec::new(),
                parent: Vec::new(),
                children: Vec::new(),
                alive: Vec::new(),
                stack: Vec::new(),
                n,
            };
            state.build();
            state
        }

        impl Instance for State {
            fn run(&mut self) {
                if self.alive.first() != Some(&true) {
                    return;
                }
                self.stack.push(0);
                while let Some(e) = self.stack.pop() {
                    let i = e as usize;
                    self.stack.append(&mut self.children[i]);
                    self.parent[i] = NONE;
                    self.alive[i] = false;
                }
            }
            fn check(&self) -> Check {
                census(raw_nodes(&self.data, &self.parent, &self.children, |i| {
                    self.alive[i]
                }))
            }
            fn prepare(&mut self) {
                if self.alive.first() != Some(&true) {
                    self.build();
                }
            }
            fn prepares(&self) -> bool {
                true
            }
        }
    }
}

/// The local transform of entity `i` (in spawn order) of the
/// `transform_propagation` forest: a small rotation and translation.
pub fn local(i: usize) -> Local2 {
    let angle = ((i % 13) as f32 - 6.0) * 0.05;
    Local2(affine(angle, (i % 7) as f32 - 3.0, (i % 5) as f32 - 2.0))
}

/// The global transforms of the `n`-entity forest, by spawn index, by
/// recursion from the roots (the reference every row is checked against).
pub fn reference_globals(n: usize) -> Vec<Affine2> {
    /// Writes `i`'s global, given its parent's, then its children's.
    fn visit(i: usize, parent: Option<&Affine2>, children: &[Vec<usize>], out: &mut [Affine2]) {
        let own = local(i).0;
        out[i] = match parent {
            None => own,
            Some(parent) => compose(parent, &own),
        };
        let global = out[i];
        for &c in &children[i] {
            visit(c, Some(&global), children, out);
        }
    }
    let mut children = vec![Vec::new(); n];
    for i in 0..n {
        if let Some(p) = forest_parent(i) {
            children[p].push(i);
        }
    }
    let mut out = vec![Affine2([0.0; 6]); n];
    for root in (0..n).filter(|&i| forest_parent(i).is_none()) {
        visit(root, None, &children, &mut out);
    }
    out
}

/// The check of `transform_propagation`: the globals by spawn index
/// (`None`: missing), against the recursive reference.
pub fn globals_check(globals: impl ExactSizeIterator<Item = Option<Affine2>>) -> Check {
    let reference = reference_globals(globals.len());
    let mut sums = [0.0f64; 6];
    let mut differ = 0usize;
    let mut count = 0usize;
    for (global, expected) in globals.zip(&reference) {
        count += 1;
        match global {
            Some(global) => {
                differ += usize::from(global != *expected);
                for (sum, value) in sums.iter_mut().zip(global.0) {
                    *sum += f64::from(value);
                }
            }
            None => differ += 1,
        }
    }
    vec![
        ("entities", count as f64),
        ("globals unlike the recursive reference", differ as f64),
        ("sum of a", sums[0]),
        ("sum of b", sums[1]),
        ("sum of c", sums[2]),
        ("sum of d", sums[3]),
        ("sum of tx", sums[4]),
        ("sum of ty", sums[5]),
    ]
}

/// A global no run has written yet (all zeros, unlike any real one).
const UNSET: Global2 = Global2(Affine2([0.0; 6]));

/// `transform_propagation`: global transforms through a 5-level forest.
pub mod propagation {
    use super::*;

    /// The scenario.
    pub const SCENARIO: Scenario = Scenario {
        name: "transform_propagation",
        what: "global = parent's global ∘ local (2D affine) for 100,000 entities in a 5-level \
               forest, parents first",
        sizes: &[100_000],
        size_note: "",
        test_size: 2_000,
        fresh_state: false,
        impls: crate::impls![in propagation: typed_ecs, bevy, typed_ecs_by_hand, raw],
        notes: "10 roots with 10 children each, level by level (10, 100, 1,000, 10,000 and \
                88,890 entities), spawned once in setup with `Local2` and `Global2`. bevy: a \
                `SystemState` of `Query<(&Local2, &mut Global2, Option<&Children>)>` and the \
                roots `Query<Entity, (With<Local2>, Without<ChildOf>)>`; from each root, a \
                worklist (a stack of `(entity, parent's global)`) through `Children`, each \
                entity read and written with `get_mut` (no `unsafe`, no `bevy_transform`); \
                `typed_ecs_by_hand`: the roots from `join((&local, &mut global, \
                Without(&parent)))`, then the same worklist through the by-hand `Children` with \
                `local.get` and `global.get_mut`; raw: one pass in index order (every parent's \
                index is below its children's), `global[i] = compose(global[parent[i]], \
                local[i])`. Every row's globals equal a recursive computation to the bit.",
    };

    /// bevy's `ChildOf`/`Children`, propagated by hand.
    pub mod bevy {
        use super::*;
        use ::bevy_ecs::{
            entity::Entity,
            hierarchy::{ChildOf, Children},
            query::{With, Without},
            system::{Query, SystemState},
            world::World,
        };

        /// An entity of the worklist.
        type Node = (
            &'static Local2,
            &'static mut Global2,
            Option<&'static Children>,
        );
        /// What a propagation system would take.
        type Params = (
            Query<'static, 'static, Node>,
            Query<'static, 'static, Entity, (With<Local2>, Without<ChildOf>)>,
        );

        /// The world, the handles by spawn index, the system state and the
        /// worklist.
        pub struct State {
            world: World,
            all: Vec<Entity>,
            system: SystemState<Params>,
            stack: Vec<(Entity, Affine2)>,
        }

        /// The forest.
        pub fn setup(n: usize) -> State {
            let mut world = World::new();
            let mut all: Vec<Entity> = Vec::with_capacity(n);
            for i in 0..n {
                let e = match forest_parent(i) {
                    None => world.spawn((local(i), UNSET)).id(),
                    Some(p) => world.spawn((local(i), UNSET, ChildOf(all[p]))).id(),
                };
                all.push(e);
            }
            let system = SystemState::new(&mut world);
            State {
                world,
                all,
                system,
                stack: Vec::new(),
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let (mut nodes, roots) = self.system.get_mut(&mut self.world).unwrap();
                let stack = &mut self.stack;
                for root in roots.iter() {
                    let (local, mut global, children) = nodes.get_mut(root).unwrap();
                    let own = local.0;
                    global.0 = own;
                    if let Some(children) = children {
                        stack.extend(children.iter().map(|&c| (c, own)));
                    }
                    while let Some((e, parent)) = stack.pop() {
                        let (local, mut global, children) = nodes.get_mut(e).unwrap();
                        let own = compose(&parent, &local.0);
                        global.0 = own;
                        if let Some(children) = children {
                            stack.extend(children.iter().map(|&c| (c, own)));
                        }
                    }
                }
            }
            fn check(&self) -> Check {
                globals_check(
                    self.all
                        .iter()
                        .map(|&e| self.world.get::<Global2>(e).map(|g| g.0)),
                )
            }
        }
    }

    /// typed_ecs with `Parent` and `Children` kept by hand, propagated by
    /// typed_ecs's relation: the roots (no `child_of` target), then a
    /// worklist over `children.of(e)`.
    pub mod typed_ecs {
        use super::super::related::{ChildOf, RelWorld};
        use super::*;
        use ::typed_ecs::join;
        use ::typed_ecs::prelude::*;

        /// The world, the handles by spawn index and the worklist.
        pub struct State {
            world: RelWorld,
            all: Vec<Entity>,
            stack: Vec<(Entity, Affine2)>,
        }

        /// The forest.
        pub fn setup(n: usize) -> State {
            let mut world = RelWorld::new();
            let mut all: Vec<Entity> = Vec::with_capacity(n);
            for i in 0..n {
                let e = world.spawn_with((local(i), UNSET));
                if let Some(p) = forest_parent(i) {
                    world.relate(e, ChildOf, all[p]).expect("a new child");
                }
                all.push(e);
            }
            State {
                world,
                all,
                stack: Vec::new(),
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let world = &mut self.world;
                let stack = &mut self.stack;
                let (links, children) = (&world.child_of, &world.children);
                join((&world.local, &mut world.global)).for_each(|e, (local, global)| {
                    if !links.contains(e) {
                        global.0 = local.0;
                        stack.extend(children.of(e).iter().map(|&c| (c, local.0)));
                    }
                });
                while let Some((e, parent)) = stack.pop() {
                    let own = compose(&parent, &world.local.get(e).unwrap().0);
                    world.global.get_mut(e).unwrap().0 = own;
                    stack.extend(world.children.of(e).iter().map(|&c| (c, own)));
                }
            }
            fn check(&self) -> Check {
                globals_check(
                    self.all
                        .iter()
                        .map(|&e| self.world.global.get(e).map(|g| g.0)),
                )
            }
        }
    }

    /// hand.
    pub mod typed_ecs_by_hand {
        use super::super::by_hand::{link, TreeWorld};
        use super::*;
        use ::typed_ecs::join;
        use ::typed_ecs::prelude::*;

        /// The world, the handles by spawn index and the worklist.
        pub struct State {
            world: TreeWorld,
            all: Vec<Entity>,
            stack: Vec<(Entity, Affine2)>,
        }

        /// The forest.
        pub fn setup(n: usize) -> State {
            let mut world = TreeWorld::new();
            let mut all: Vec<Entity> = Vec::with_capacity(n);
            for i in 0..n {
                let e = world.spawn_with((local(i), UNSET));
                if let Some(p) = forest_parent(i) {
                    link(&mut world, e, all[p]);
                }
                all.push(e);
            }
            State {
                world,
                all,
                stack: Vec::new(),
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let world = &mut self.world;
                let stack = &mut self.stack;
                let children = &world.children;
                join((&world.local, &mut world.global, Without(&world.parent))).for_each(
                    |e, (local, global, ())| {
                        global.0 = local.0;
                        if let Some(list) = children.get(e) {
                            stack.extend(list.0.iter().map(|&c| (c, local.0)));
                        }
                    },
                );
                while let Some((e, parent)) = stack.pop() {
                    let own = compose(&parent, &world.local.get(e).unwrap().0);
                    world.global.get_mut(e).unwrap().0 = own;
                    if let Some(list) = world.children.get(e) {
                        stack.extend(list.0.iter().map(|&c| (c, own)));
                    }
                }
            }
            fn check(&self) -> Check {
                globals_check(
                    self.all
                        .iter()
                        .map(|&e| self.world.global.get(e).map(|g| g.0)),
                )
            }
        }
    }

    /// Plain `Vec`s, one pass in index order.
    pub mod raw {
        use super::*;

        /// Local, global and parent index by entity index.
        pub struct State {
            local: Vec<Local2>,
            global: Vec<Global2>,
            parent: Vec<u32>,
        }

        /// The forest.
        pub fn setup(n: usize) -> State {
            State {
                local: (0..n).map(local).collect(),
                global: vec![UNSET; n],
                parent: (0..n)
                    .map(|i| forest_parent(i).map_or(NONE, |p| p as u32))
                    .collect(),
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                for i in 0..self.local.len() {
                    let own = &self.local[i].0;
                    self.global[i].0 = match self.parent[i] {
                        NONE => *own,
                        p => compose(&self.global[p as usize].0, own),
                    };
                }
            }
            fn check(&self) -> Check {
                globals_check(self.global.iter().map(|g| Some(g.0)))
            }
        }
    }
}
