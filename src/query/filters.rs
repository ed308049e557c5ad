//! The wrappers a query spells its filters with: [`With`], [`Without`],
//! [`Or`] and [`Maybe`]. Each is both a query term (`With<C>`) and, around a borrowed
//! storage, a fetch (`With(&world.c)`); a leaf, so that the terms and the
//! fetches can both name them.

/// Filter: only entities that have a `C`. Yields `()`.
///
/// In a query type, `With<C>` names a component; in a [`join`](super::join),
/// `With(&world.c)` wraps the storage.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(i32);
/// struct Player;
/// world! { struct Game<Pos, Player>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(1), Player));
/// world.spawn_with((Pos(2),));
/// let mut players = 0;
/// world.query_mut::<(&mut Pos, With<Player>)>().for_each(|_, (pos, ())| {
///     pos.0 += 10;
///     players += 1;
/// });
/// assert_eq!(players, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct With<T>(pub T);

/// Filter: only entities that have no `C`. Yields `()`.
///
/// In a query type, `Without<C>` names a component; in a [`join`](super::join),
/// `Without(&world.c)` wraps the storage.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(i32);
/// struct Frozen;
/// world! { struct Game<Pos, Frozen>; }
///
/// let mut world = Game::new();
/// let moving = world.spawn_with((Pos(1),));
/// let frozen = world.spawn_with((Pos(1), Frozen));
/// for (_, (pos, ())) in world.query_mut::<(&mut Pos, Without<Frozen>)>() {
///     pos.0 += 1;
/// }
/// assert_eq!(world.get::<Pos>(moving).unwrap().0, 2);
/// assert_eq!(world.get::<Pos>(frozen).unwrap().0, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Without<T>(pub T);

/// Whether each entity has a `C`: yields a `bool`, and filters nothing
/// (bevy's `Has<C>`). Cheaper than `Option<&C>` when only the presence
/// matters, and it borrows `C`'s storage only to read.
///
/// In a query type, `Has<C>` names a component; in a [`join`](super::join),
/// `Has(&world.c)` wraps the storage.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(i32);
/// struct Shield;
/// world! { struct Game<Pos, Shield>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(10),));
/// world.spawn_with((Pos(10), Shield));
/// for (_, (pos, shielded)) in world.query_mut::<(&mut Pos, Has<Shield>)>() {
///     pos.0 -= if shielded { 1 } else { 5 };
/// }
/// let mut left: Vec<i32> = world.query::<&Pos>().map(|(_, p)| p.0).collect();
/// left.sort();
/// assert_eq!(left, [5, 9]);
/// let shielded = join((&world.pos, Has(&world.shield))).into_iter().filter(|(_, (_, has))| *has).count();
/// assert_eq!(shielded, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Has<T>(pub T);

/// A written storage in a [`join`](super::join) whose values are handed
/// out as [`Mut`](crate::Mut)s: on a tracked storage a value counts as
/// changed only once written through (bevy's `Mut<T>` in a query), where
/// `&mut world.c` marks every value it hands out. For the loops that write
/// a few of many values: `join((Lazy(&mut world.energy), &world.id))`
/// walks the two side by side, with no lookup by handle, and marks only
/// the energies it changes.
///
/// In a query type it is `Lazy<C>`: `world.query_mut::<(Lazy<Energy>,
/// &Id)>()`.
///
/// `for_each` marks exactly what was written through. A `for` loop or
/// `par_for_each` over such a join marks every value it hands out, as
/// `&mut` does (its items may be kept and written after the walk's
/// bookkeeping ends). On an untracked storage it is a plain `&mut`.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{join, Changed, Lazy};
///
/// struct Energy(i32);
/// struct Id(u32);
/// world! { struct Game<Energy, Id>; tracked (Energy); }
///
/// let mut world = Game::new();
/// for i in 0..8 {
///     world.spawn_with((Energy(10), Id(i)));
/// }
/// world.clear_changes();
/// join((Lazy(&mut world.energy), &world.id)).for_each(|_, (mut energy, id)| {
///     if id.0 % 4 == 0 {
///         energy.0 -= 1; // a write through: marked
///     }
///     let _ = energy.0; // a read: not marked
/// });
/// assert_eq!(world.query::<Changed<&Energy>>().count(), 2);
/// ```
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Lazy<T>(pub T);

/// An optional storage in a [`join`](super::join): yields `Some(item)` when the entity has
/// the component and `None` otherwise, and never excludes an entity. The
/// query-type spelling is `Option<&C>` / `Option<&mut C>`.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::{join, Maybe};
///
/// struct Pos(i32);
/// struct Boost(i32);
/// world! { struct Game<Pos, Boost>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(0), Boost(5)));
/// world.spawn_with((Pos(0),));
/// join((&mut world.pos, Maybe(&world.boost))).for_each(|_, (pos, boost)| {
///     pos.0 += boost.map_or(1, |b| b.0);
/// });
/// let mut totals: Vec<i32> = world.pos.values().iter().map(|p| p.0).collect();
/// totals.sort();
/// assert_eq!(totals, [1, 5]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Maybe<T>(pub T);

/// Filter: entities that pass at least one of 2 to 4 filters ([`With`],
/// [`Without`], or another `Or`). Yields `()`.
///
/// In a query type, `Or<(With<A>, With<B>)>`; in a [`join`](super::join),
/// `Or((With(&world.a), With(&world.b)))`. An `Or` is never required: a
/// query needs another element every result has (`&C`, `&mut C` or
/// `With<C>`), which drives the walk, and the `Or` is checked for each of
/// its entities.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::Or;
///
/// struct Hp(i32);
/// struct Burning;
/// struct Poisoned;
/// world! { struct Game<Hp, Burning, Poisoned>; }
///
/// let mut world = Game::new();
/// world.spawn_with((Hp(10), Burning));
/// world.spawn_with((Hp(10), Poisoned));
/// world.spawn_with((Hp(10),));
/// world
///     .query_mut::<(&mut Hp, Or<(With<Burning>, With<Poisoned>)>)>()
///     .for_each(|_, (hp, ())| hp.0 -= 1);
/// let hurt = world.hp.values().iter().filter(|hp| hp.0 < 10).count();
/// assert_eq!(hurt, 2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Or<T>(pub T);

/// A change filter: entities whose tracked `C` changed since the
/// observer's last look (a mutable borrow, an `insert` or an add counts as
/// a change). Yields the item it wraps.
///
/// In a query type, `Changed<&C>` or `Changed<&mut C>`; in a
/// [`join`](super::join), `Changed(&world.c)` or `Changed(&mut world.c)`.
/// The observer is the world's own view (changes since
/// [`World::clear_changes`](crate::World::clear_changes)), or a system's
/// [`Seen`](crate::system::Seen). `C` must be listed in the world's
/// `tracked (…);` line. Iterating with `for_each` costs O(entities
/// changed), not O(entities with `C`).
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::Changed;
///
/// #[derive(Debug, PartialEq)]
/// struct Pos(i32);
/// struct Vel(i32);
/// world! { struct Game<Pos, Vel>; tracked (Pos); }
///
/// let mut world = Game::new();
/// let still = world.spawn_with((Pos(0), Vel(0)));
/// let moving = world.spawn_with((Pos(0), Vel(2)));
/// world.clear_changes(); // the spawns are seen
///
/// world.query_mut::<(&mut Pos, &Vel)>().for_each(|_, (pos, vel)| {
///     if vel.0 != 0 {
///         pos.0 += vel.0; // only these values are borrowed mutably
///     }
/// });
/// // `&mut Pos` was handed out for both: both count as changed.
/// assert_eq!(world.query::<Changed<&Pos>>().count(), 2);
/// world.clear_changes();
/// world.pos.get_mut(moving).unwrap().0 += 1;
/// let changed: Vec<_> = world.query::<Changed<&Pos>>().collect();
/// assert_eq!(changed, [(moving, &Pos(3))]);
/// # let _ = still;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Changed<T>(pub T);

/// A change filter: entities that gained their tracked `C` since the
/// observer's last look (an add, a spawn with it, a deferred add or a
/// command; after a removal, adding again counts as added again). Yields
/// the item it wraps. Spelled like [`Changed`]: `Added<&C>`,
/// `Added<&mut C>`, `Added(&world.c)`.
///
/// ```
/// use typed_ecs::prelude::*;
/// use typed_ecs::Added;
///
/// struct Pos(i32);
/// world! { struct Game<Pos>; tracked (Pos); }
///
/// let mut world = Game::new();
/// world.spawn_with((Pos(0),));
/// world.clear_changes();
/// let fresh = world.spawn_with((Pos(1),));
/// let added: Vec<Entity> = world.query::<Added<&Pos>>().map(|(e, _)| e).collect();
/// assert_eq!(added, [fresh]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Added<T>(pub T);

/// The value of `C` on the entity's *target* in the relation `R` (flecs'
/// `up`): yields the target's `&C`, and only entities whose target has a
/// `C` match. `Up<R, Option<&C>>` yields an `Option` and never filters
/// (`None` for an entity with no target, or a target without a `C`).
///
/// In a query type, `Up<ChildOf, &C>`; in a [`join`](super::join),
/// `Up(&world.child_of, &world.c)` (the relation's forward field, and the
/// storage), or `Up(&world.child_of, Maybe(&world.c))`. It reads `C`'s
/// storage, so a mutable query that also names `C` (`(&mut C, Up<ChildOf,
/// &C>)`) is a compile error, as any component named twice is; a
/// read-only query may name it twice (`(&C, Up<ChildOf, &C>)`).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct ChildOf;
/// #[derive(Debug, PartialEq)]
/// struct Scale(f32);
/// world! {
///     struct Scene<Scale>;
///     relations { child_of: ChildOf -> children [despawn, tree]; }
/// }
///
/// let mut scene = Scene::new();
/// let ship = scene.spawn_with((Scale(2.0),));
/// let gun = scene.spawn_with((Scale(0.5),));
/// scene.relate(gun, ChildOf, ship).unwrap();
/// let scaled: Vec<(Entity, f32)> = scene
///     .query::<(&Scale, Up<ChildOf, &Scale>)>()
///     .map(|(e, (own, parent))| (e, own.0 * parent.0))
///     .collect();
/// assert_eq!(scaled, [(gun, 1.0)]);
/// let roots = scene
///     .query::<(&Scale, Up<ChildOf, Option<&Scale>>)>()
///     .filter(|(_, (_, parent))| parent.is_none())
///     .count();
/// assert_eq!(roots, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Up<R, Q>(pub R, pub Q);

/// Filter: only entities that have a target in the relation `R` (its
/// sources: a child, in a hierarchy). Yields `()`. Never drives a walk:
/// pair it with a component.
///
/// In a query type, `Linked<ChildOf>`; in a [`join`](super::join),
/// `Linked(&world.child_of)`.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct ChildOf;
/// struct Name(&'static str);
/// world! {
///     struct Scene<Name>;
///     relations { child_of: ChildOf -> children; }
/// }
///
/// let mut scene = Scene::new();
/// let ship = scene.spawn_with((Name("ship"),));
/// let gun = scene.spawn_with((Name("gun"),));
/// scene.relate(gun, ChildOf, ship).unwrap();
/// let linked: Vec<&str> = scene.query::<(&Name, Linked<ChildOf>)>().map(|(_, (n, ()))| n.0).collect();
/// assert_eq!(linked, ["gun"]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Linked<R>(pub R);

/// Filter: only entities that have no target in the relation `R` (the
/// roots of a hierarchy). Yields `()`. Never drives a walk: pair it with a
/// component.
///
/// In a query type, `Unlinked<ChildOf>`; in a [`join`](super::join),
/// `Unlinked(&world.child_of)`.
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct ChildOf;
/// struct Name(&'static str);
/// world! {
///     struct Scene<Name>;
///     relations { child_of: ChildOf -> children; }
/// }
///
/// let mut scene = Scene::new();
/// let ship = scene.spawn_with((Name("ship"),));
/// let gun = scene.spawn_with((Name("gun"),));
/// scene.relate(gun, ChildOf, ship).unwrap();
/// let roots: Vec<&str> = scene.query::<(&Name, Unlinked<ChildOf>)>().map(|(_, (n, ()))| n.0).collect();
/// assert_eq!(roots, ["ship"]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Unlinked<R>(pub R);

/// Filter: only entities that are the target of at least one link of the
/// relation `R` (a parent, in a hierarchy). Yields `()`. Never drives a
/// walk: pair it with a component.
///
/// In a query type, `Targeted<ChildOf>`; in a [`join`](super::join),
/// `Targeted(&world.children)` (the relation's reverse field).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct ChildOf;
/// struct Name(&'static str);
/// world! {
///     struct Scene<Name>;
///     relations { child_of: ChildOf -> children; }
/// }
///
/// let mut scene = Scene::new();
/// let ship = scene.spawn_with((Name("ship"),));
/// let gun = scene.spawn_with((Name("gun"),));
/// scene.relate(gun, ChildOf, ship).unwrap();
/// let parents: Vec<&str> = join((&scene.name, Targeted(&scene.children))).into_iter().map(|(_, (n, ()))| n.0).collect();
/// assert_eq!(parents, ["ship"]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Targeted<R>(pub R);
