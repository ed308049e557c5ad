//! `world!`: declares a world struct and wires each component to generic code.
//!
//! The public macro only parses the user's syntax (two forms) and hands a
//! normalised field list on; one hidden helper does each job. Most are a
//! flat repetition over the fields; the three that walk a list one item at
//! a time (a declarative macro cannot do otherwise) say so:
//!
//! * `mod.rs`: `world!` itself, `__world_sections!` (recursive: sorts the
//!   sections after the struct line), `__world_plugins!` (recursive: asks
//!   each plugin's macro for its part and adds it), and `__world_paths!`
//!   (recursive: names the fields of the list form after the last segment
//!   of each path);
//! * `plugin.rs`: `plugin!`, a crate's part of any world;
//! * `attrs.rs`: `__world_attrs!` sorts the struct's attributes, with
//!   `__world_derives!` (recursive: takes the serde derives out of a
//!   `derive` list, as the world's serde impls are generated);
//! * `declare.rs`: `__world_declare!` emits the struct (`__world_struct!`,
//!   with the struct of the world's own queues) and, in one
//!   `const _: () = { … };`, the constructors and the `Storages` plumbing
//!   (`__world_storages!`), the hidden forwarding methods that report a
//!   duplicate component at the caller's line (`__world_checked!`), the
//!   owning groups' index list, check and visitors (`__world_groups!`), one
//!   `Column` impl per component (`__world_components!`) and the system
//!   parameters of each resource (`__world_resources!`);
//! * `serde.rs`: the serde impls, when derived (`__world_serde!`,
//!   `__world_serialize!`, `__world_deserialize!`).
//!
//! Every behaviour lives in `src/`, in ordinary generic Rust.

mod attrs;
mod declare;
mod plugin;
mod serde;

/// Declares a world: a struct with an entity allocator and one
/// [`SparseMap`](crate::SparseMap) field per component, implementing
/// [`World`](crate::World) and [`Contains<C>`](crate::Contains) for each
/// component `C`.
///
/// Two forms. A list of component types, whose fields are named by the
/// snake_case of each type name:
///
/// ```
/// use typed_ecs::prelude::*;
///
/// #[derive(Debug, Clone)]
/// pub struct Moveable { pub x: f32, pub y: f32 }
/// #[derive(Debug, Clone)]
/// pub struct Nameable(pub String);
/// #[derive(Debug, Clone)]
/// pub struct Purrable;
///
/// world! {
///     /// Everything that lives in the cat café.
///     #[derive(Debug, Clone)]
///     pub struct CatWorld<Moveable, Nameable, Purrable>;
/// }
///
/// let mut world = CatWorld::new();
/// let kitty = world.spawn_with((Nameable("Kitty".into()), Purrable));
/// assert_eq!(world.nameable.get(kitty).unwrap().0, "Kitty");
/// assert_eq!(world.purrable.len(), 1);
/// let copy = world.clone();
/// assert_eq!(copy.entity_count(), 1);
/// ```
///
/// Or explicit field names, which allow any type, generic ones included:
///
/// ```
/// use typed_ecs::prelude::*;
///
/// #[derive(Debug, PartialEq)]
/// pub struct Vec3<T>(T, T, T);
///
/// world! {
///     pub struct Physics {
///         /// Where things are.
///         pos: Vec3<f32>,
///         grid: Vec3<i32>,
///         cell: (i32, i32),
///     }
/// }
///
/// let mut world = Physics::new();
/// let e = world.spawn_with((Vec3(0.5_f32, 0.0, 0.0), Vec3(1, 2, 3), (4, 2)));
/// assert_eq!(world.grid.get(e), Some(&Vec3(1, 2, 3)));
/// assert_eq!(world.cell.get(e), Some(&(4, 2)));
/// ```
///
/// In both forms, attributes and doc comments on the struct (and, in the
/// second form, on fields) are kept. `Default` is generated, so do not derive
/// it; `Debug` and `Clone` can be derived when every component has them. Every field is `pub`; the allocator is
/// the `pub entities` field, so no component field may be named `entities`.
/// Each component type may appear once: a type listed twice is a compile
/// error (conflicting impls).
///
/// After the struct line come, in any order: `resources { name: Type, … }`
/// (at most once), `events { name: Type, … }` (at most once: each a field
/// [`Events<Type>`](crate::Events); `name: Type [bound N]` keeps at most N
/// messages), `tracked (Component, …);` (at most
/// once), any number
/// of `group (Component, Component, …);` lines, `hooks { on_add(C) =>
/// hook, other; on_remove(C) => hook; on_change(T) => hook; }` (at most
/// once; `hooks (depth N) { … }` sets how many levels of the commands hooks
/// queue one change applies, 8 if not given: see
/// [`OnAdd`](crate::OnAdd) and the guide's "Hooks"), and `plugins (path::Plugin,
/// …);` (at most once): the parts of other crates declared with
/// [`plugin!`](crate::plugin), whose components and resources become the
/// world's fields and whose trait the world implements. Name a plugin's
/// component by the plugin crate's path in `tracked` and `group` lines
/// (`tracked (physics::Pos);`). A world that lists plugins names its own
/// components by type names or by fields, not by paths.
///
/// The first form also takes paths, `world! { pub struct W<ui::Position>; }`,
/// naming each field after the last segment (`position`). A list with paths
/// is expanded one component at a time, so past about 40 components it
/// needs a higher `#![recursion_limit]`; plain names and the second form
/// have no such limit.
///
/// Field names in the first form come from `paste`'s snake_case, which splits
/// at every capital: `HttpServer` becomes `http_server`, but `HTTPServer`
/// becomes `h_t_t_p_server`. Use the second form to choose names.
///
/// What one declaration generates, for a world `W` with components `A`, `B`:
///
/// * `pub struct W { pub entities: EntityAllocator, pub a: SparseMap<A>, pub b: SparseMap<B> }`;
/// * `W::new()`, `W::with_capacity(n)` and `Default`;
/// * the hidden plumbing: one impl for `W` (its fields, reached generically)
///   and one for each of `A` and `B` (where `W` keeps it);
/// * from which `W: World` (all the world methods: `spawn`, `add`, `query`,
///   …), `A: Component<W>`, `B: Component<W>` and
///   `W: Contains<A> + Contains<B>`.
#[macro_export]
macro_rules! world {
    // `world! { pub struct W<A, B, C>; }`
    (
        @ordered
        $(#[$($attr:tt)*])*
        $vis:vis struct $name:ident < $($component:ident),+ $(,)? > ;
        $( resources { $( $(#[$($res_attr:tt)*])* $res:ident : $res_ty:ty ),* $(,)? } )?
        $( tracked ( $($tra:ty),* $(,)? ) ; )?
        $( group ( $($group:ty),+ $(,)? ) ; )*
    ) => {
        $crate::__private::paste! {
            // A component listed twice: this name is defined twice, and
            // rustc's first error says so.
            const _: () = {
                $(
                    #[allow(non_camel_case_types, dead_code)]
                    struct [<$component _is_listed_twice_in_ $name>];
                )+
            };
            $crate::__world_attrs! {
                @todo [$([$($attr)*])*] @kept [] @serde []
                @item {
                    $vis struct $name { $( [<$component:snake>] : $component ),+ }
                    resources { $($( $(#[$($res_attr)*])* $res : $res_ty ),*)? }
                    tracked ( $($($tra,)*)? )
                    $( group ( $($group),+ ) ; )*
                }
            }
        }
    };
    // `world! { pub struct W<ui::Position, B>; }`: paths, each field named
    // after the last segment (expanded one component at a time).
    (
        @ordered
        $(#[$($attr:tt)*])*
        $vis:vis struct $name:ident < $( $($seg:ident)::+ ),+ $(,)? > ;
        $( resources { $( $(#[$($res_attr:tt)*])* $res:ident : $res_ty:ty ),* $(,)? } )?
        $( tracked ( $($tra:ty),* $(,)? ) ; )?
        $( group ( $($group:ty),+ $(,)? ) ; )*
    ) => {
        $crate::__world_paths! {
            @todo [$( [$($seg)+] )+]
            @done []
            @rest {
                [$([$($attr)*])*] $vis $name
                { $($( $(#[$($res_attr)*])* $res : $res_ty ),*)? }
                { tracked ( $($($tra,)*)? ) $( group ( $($group),+ ) ; )* }
            }
        }
    };
    // `world! { pub struct W { a: A, pos: Vec3<f32> } }`
    (
        @ordered
        $(#[$($attr:tt)*])*
        $vis:vis struct $name:ident { $( $(#[$field_meta:meta])* $field:ident : $ty:ty ),+ $(,)? }
        $( resources { $( $(#[$($res_attr:tt)*])* $res:ident : $res_ty:ty ),* $(,)? } )?
        $( tracked ( $($tra:ty),* $(,)? ) ; )?
        $( group ( $($group:ty),+ $(,)? ) ; )*
    ) => {
        $crate::__world_attrs! {
            @todo [$([$($attr)*])*] @kept [] @serde []
            @item {
                $vis struct $name { $( $(#[$field_meta])* $field : $ty ),+ }
                resources { $($( $(#[$($res_attr)*])* $res : $res_ty ),*)? }
                tracked ( $($($tra,)*)? )
                $( group ( $($group),+ ) ; )*
            }
        }
    };
    // The sections after the struct line come in any order: each form
    // hands them to `__world_sections!`, which sorts them and comes back
    // here (`@ordered`) with resources, then `tracked`, then the groups.
    (
        $(#[$($attr:tt)*])*
        $vis:vis struct $name:ident < $($component:ident),+ $(,)? > ;
        $($sections:tt)*
    ) => {
        $crate::__world_hooks_split! {
            @todo [$($sections)*] @kept [] @hooks [] @plugins [] @res [] @relres [] @rels [] @name $name
            @head [$(#[$($attr)*])* $vis struct $name < $($component),+ > ;]
        }
    };
    (
        $(#[$($attr:tt)*])*
        $vis:vis struct $name:ident < $( $($seg:ident)::+ ),+ $(,)? > ;
        $($sections:tt)*
    ) => {
        $crate::__world_hooks_split! {
            @todo [$($sections)*] @kept [] @hooks [] @plugins [] @res [] @relres [] @rels [] @name $name
            @head [$(#[$($attr)*])* $vis struct $name < $( $($seg)::+ ),+ > ;]
        }
    };
    (
        $(#[$($attr:tt)*])*
        $vis:vis struct $name:ident { $( $(#[$field_meta:meta])* $field:ident : $ty:ty ),+ $(,)? }
        $($sections:tt)*
    ) => {
        $crate::__world_hooks_split! {
            @todo [$($sections)*] @kept [] @hooks [] @plugins [] @res [] @relres [] @rels [] @name $name
            @head [$(#[$($attr)*])* $vis struct $name { $( $(#[$field_meta])* $field : $ty ),+ }]
        }
    };
    ($($input:tt)*) => {
        $crate::__private::core::compile_error! {
            "`world!` expects one of two forms, each with at least one component:\n\
             \n    world! { pub struct MyWorld<Position, Velocity>; }\
             \n    world! { pub struct MyWorld { position: Position, velocity: Vec3<f32> } }\n\
             \nThe first takes type names (or paths) and names each field after the type; the second \
             takes `field: Type` pairs (fields are always `pub`, so write no visibility). \
             Either may be followed, in any order, by resources, `resources { time: Time, score: Score }`, \
             the components whose changes are tracked, `tracked (Position);`, \
             and owning groups, one per line: `group (Position, Velocity);`"
        }
    };
}

/// Sorts the sections that follow a `world!` struct line (`resources
/// { … }`, `tracked (…);`, `group (…);` and `plugins (…);` lines), written
/// in any order, into the order the rest of the macro reads, then hands the
/// world back to `world!` (through `__world_plugins!` when it lists
/// plugins). A section given twice, or one it does not know, is an error
/// that says which. Not public API.
#[doc(hidden)] // Called by `world!` only.
#[macro_export]
macro_rules! __world_sections {
    // Every section read: the events join the resources (each is a field
    // `Events<E>`), and the world goes on, through its plugins if any.
    (@head $head:tt @resources $res:tt @tracked $tra:tt @groups $grp:tt @plugins $plg:tt
        @events [$( ($(#[$eattr:meta])* $ev:ident $ety:ty [$($bound:expr)?]) )+] @todo []) => {
        $crate::__world_sections! {
            @merge_events [$( ($(#[$eattr])* $ev $ety [$($bound)?]) )+]
            @head $head @resources $res @tracked $tra @groups $grp @plugins $plg
        }
    };
    (@merge_events [$( ($(#[$eattr:meta])* $ev:ident $ety:ty [$($bound:expr)?]) )+]
        @head [$($head:tt)*] @resources [$(resources { $($r:tt)* })?] @tracked $tra:tt @groups $grp:tt
        @plugins $plg:tt) => {
        $crate::__world_sections! {
            @head [$($head)*]
            @resources [resources { $( $(#[$eattr])* $ev : $crate::Events<$ety> , )+ $($($r)*)? }]
            @tracked $tra @groups $grp @plugins $plg @events [] @todo []
        }
        $crate::__world_events! { @head [$($head)*] @events [$( ($ev $ety [$($bound)?]) )+] }
    };
    (@head [$($head:tt)*] @resources [$($res:tt)*] @tracked [$($tra:tt)*] @groups [$($grp:tt)*]
        @plugins [] @events [] @todo []) => {
        $crate::world! { @ordered $($head)* $($res)* $($tra)* $($grp)* }
    };
    (@head $head:tt @resources $res:tt @tracked $tra:tt @groups $grp:tt
        @plugins [$($plugin:tt)+] @events [] @todo []) => {
        $crate::__world_plugins! {
            @head $head @resources $res @tracked $tra @groups $grp
            @plugins [$($plugin)+] @impls []
        }
    };
    (@head $head:tt @resources [] @tracked $tra:tt @groups $grp:tt @plugins $plg:tt @events $evt:tt
        @todo [resources { $($r:tt)* } $($rest:tt)*]) => {
        $crate::__world_sections! {
            @head $head @resources [resources { $($r)* }] @tracked $tra @groups $grp @plugins $plg
            @events $evt @todo [$($rest)*]
        }
    };
    (@head $head:tt @resources [$($seen:tt)+] @tracked $tra:tt @groups $grp:tt @plugins $plg:tt
        @events $evt:tt @todo [resources $($rest:tt)*]) => {
        $crate::__private::core::compile_error! {
            "`world!`: `resources { … }` is given twice; list every resource in one block"
        }
    };
    (@head $head:tt @resources $res:tt @tracked $tra:tt @groups $grp:tt @plugins $plg:tt @events []
        @todo [events { $( $(#[$eattr:meta])* $ev:ident : $ety:ty $([bound $bound:expr])? ),* $(,)? } $($rest:tt)*]) => {
        $crate::__world_sections! {
            @head $head @resources $res @tracked $tra @groups $grp @plugins $plg
            @events [$( ($(#[$eattr])* $ev $ety [$($bound)?]) )*] @todo [$($rest)*]
        }
    };
    (@head $head:tt @resources $res:tt @tracked $tra:tt @groups $grp:tt @plugins $plg:tt
        @events [$($seen:tt)+] @todo [events $($rest:tt)*]) => {
        $crate::__private::core::compile_error! {
            "`world!`: `events { … }` is given twice; list every event in one block"
        }
    };
    (@head $head:tt @resources $res:tt @tracked [] @groups $grp:tt @plugins $plg:tt @events $evt:tt
        @todo [tracked ( $($t:tt)* ) ; $($rest:tt)*]) => {
        $crate::__world_sections! {
            @head $head @resources $res @tracked [tracked ( $($t)* ) ;] @groups $grp @plugins $plg
            @events $evt @todo [$($rest)*]
        }
    };
    (@head $head:tt @resources $res:tt @tracked [$($seen:tt)+] @groups $grp:tt @plugins $plg:tt
        @events $evt:tt @todo [tracked $($rest:tt)*]) => {
        $crate::__private::core::compile_error! {
            "`world!`: `tracked (…);` is given twice; list every tracked component in one line"
        }
    };
    (@head $head:tt @resources $res:tt @tracked $tra:tt @groups [$($grp:tt)*] @plugins $plg:tt
        @events $evt:tt @todo [group ( $($g:tt)* ) ; $($rest:tt)*]) => {
        $crate::__world_sections! {
            @head $head @resources $res @tracked $tra @groups [$($grp)* group ( $($g)* ) ;] @plugins $plg
            @events $evt @todo [$($rest)*]
        }
    };
    (@head $head:tt @resources $res:tt @tracked $tra:tt @groups $grp:tt @plugins [] @events $evt:tt
        @todo [plugins ( $( $($seg:ident)::+ ),+ $(,)? ) ; $($rest:tt)*]) => {
        $crate::__world_sections! {
            @head $head @resources $res @tracked $tra @groups $grp @plugins [$( [$($seg)+] )+]
            @events $evt @todo [$($rest)*]
        }
    };
    (@head $head:tt @resources $res:tt @tracked $tra:tt @groups $grp:tt @plugins [$($seen:tt)+]
        @events $evt:tt @todo [plugins $($rest:tt)*]) => {
        $crate::__private::core::compile_error! {
            "`world!`: `plugins (…);` is given twice; list every plugin in one line"
        }
    };
    (@head $head:tt @resources $res:tt @tracked $tra:tt @groups $grp:tt @plugins $plg:tt
        @events $evt:tt @todo [$($other:tt)+]) => {
        $crate::__private::core::compile_error! {
            "`world!`: after the struct line come, in any order, `resources { name: Type, … }`, \
             `events { name: Type, … }`, `tracked (Component, …);`, `group (Component, Component, …);` \
             lines and `plugins (path::Plugin, …);`; this is none of them (check the spelling, the \
             brackets and the `;`)"
        }
    };
}

/// Takes the `hooks { … }` section (and its `(depth N)`) out of the
/// sections after a `world!` struct line, one token tree at a time, then
/// hands the rest to `__world_sections!` and the hooks to
/// `__world_hooks!` (every world gets its hook impls, empty without
/// hooks). Not public API.
#[doc(hidden)] // Called by `world!` only.
#[macro_export]
macro_rules! __world_hooks_split {
    // Every section read: the rest goes to `__world_sections!` (with the
    // relations' two fields each joining the resources), the hooks to
    // `__world_hooks!`, the relations to `__world_relations!`.
    (@todo [] @kept [$($kept:tt)*] @hooks [$($hooks:tt)*] @plugins [$($plugin:tt)*] @res [] @relres []
        @rels $rels:tt @name $name:ident @head [$($head:tt)*]) => {
        $crate::__world_sections! {
            @head [$($head)*]
            @resources [] @tracked [] @groups [] @plugins [] @events [] @todo [$($kept)*]
        }
        $crate::__world_hooks! { @name $name @plugins [$($plugin)*] $($hooks)* }
        $crate::__world_relations! { @name $name @lines $rels }
    };
    (@todo [] @kept [$($kept:tt)*] @hooks [$($hooks:tt)*] @plugins [$($plugin:tt)*] @res [$($res:tt)*]
        @relres [$($relres:tt)*] @rels $rels:tt @name $name:ident @head [$($head:tt)*]) => {
        $crate::__world_sections! {
            @head [$($head)*]
            @resources [] @tracked [] @groups [] @plugins [] @events []
            @todo [$($kept)* resources { $($relres)* $($res)* }]
        }
        $crate::__world_hooks! { @name $name @plugins [$($plugin)*] $($hooks)* }
        $crate::__world_relations! { @name $name @lines $rels }
    };
    (@todo [hooks $($rest:tt)*] @kept $kept:tt @hooks [$($seen:tt)+] $($state:tt)*) => {
        $crate::__private::core::compile_error! {
            "`world!`: `hooks { … }` is given twice; list every hook in one block"
        }
    };
    (@todo [hooks { $($lines:tt)* } $($rest:tt)*] @kept $kept:tt @hooks [] $($state:tt)*) => {
        $crate::__world_hooks_split! {
            @todo [$($rest)*] @kept $kept @hooks [@depth [] @lines [$($lines)*]] $($state)*
        }
    };
    (@todo [hooks (depth $depth:literal) { $($lines:tt)* } $($rest:tt)*] @kept $kept:tt @hooks [] $($state:tt)*) => {
        $crate::__world_hooks_split! {
            @todo [$($rest)*] @kept $kept @hooks [@depth [$depth] @lines [$($lines)*]] $($state)*
        }
    };
    (@todo [hooks $($rest:tt)*] @kept $kept:tt @hooks [] $($state:tt)*) => {
        $crate::__private::core::compile_error! {
            "`world!`: write hooks as `hooks { on_add(Component) => hook, other_hook; on_remove(Component) => hook; }`, \
             optionally with the depth of the commands they queue, `hooks (depth 4) { … }`"
        }
    };
    // The plugins' paths are noted (their hooks join the world's), and the
    // section is kept for `__world_sections!`.
    (@todo [plugins ( $( $($seg:ident)::+ ),+ $(,)? ) ; $($rest:tt)*] @kept [$($kept:tt)*] @hooks $hooks:tt
        @plugins [] $($state:tt)*) => {
        $crate::__world_hooks_split! {
            @todo [$($rest)*] @kept [$($kept)* plugins ( $( $($seg)::+ ),+ ) ;] @hooks $hooks
            @plugins [$( [$($seg)+] )+] $($state)*
        }
    };
    // The world's own resources, held to be joined by the relations'
    // fields (a second block goes on, for `__world_sections!` to refuse).
    (@todo [resources { $($res:tt)* } $($rest:tt)*] @kept $kept:tt @hooks $hooks:tt @plugins $plugins:tt
        @res [] $($state:tt)*) => {
        $crate::__world_hooks_split! {
            @todo [$($rest)*] @kept $kept @hooks $hooks @plugins $plugins @res [$($res)*] $($state)*
        }
    };
    (@todo [relations $($rest:tt)*] @kept $kept:tt @hooks $hooks:tt @plugins $plugins:tt @res $res:tt
        @relres [$($seen:tt)+] $($state:tt)*) => {
        $crate::__private::core::compile_error! {
            "`world!`: `relations { … }` is given twice; list every relation in one block"
        }
    };
    // Each relation: its two sides become fields (resources), and its line
    // goes to `__world_relations!`.
    (@todo [relations { $( $rel:ident : $($rty:ident)::+ -> $rev:ident $([ $($policy:ident),* $(,)? ])? ; )* } $($rest:tt)*]
        @kept $kept:tt @hooks $hooks:tt @plugins $plugins:tt @res $res:tt @relres [] @rels []
        @name $name:ident @head $head:tt) => {
        $crate::__world_hooks_split! {
            @todo [$($rest)*] @kept $kept @hooks $hooks @plugins $plugins @res $res
            @relres [$(
                #[doc = $crate::__private::core::concat!(
                    "The relation `", $crate::__private::core::stringify!($($rty)::+),
                    "`: each source's target (read it; `relate` and `unrelate` change it)."
                )]
                $rel : $crate::__relation_links!([$($($policy)*)?] $($rty)::+),
                #[doc = $crate::__private::core::concat!(
                    "The sources of each target in the relation `", $crate::__private::core::stringify!($($rty)::+), "`."
                )]
                $rev : $crate::Sources<$($rty)::+>,
            )*]
            @rels [$( ($rel ($($rty)::+) $rev [$($($policy)*)?]) )*]
            @name $name @head $head
        }
    };
    (@todo [relations $($rest:tt)*] $($state:tt)*) => {
        $crate::__private::core::compile_error! {
            "`world!`: write relations as `relations { child_of: ChildOf -> children [despawn, tree]; }`: \
             the forward field's name, the relation's type, `->`, the reverse field's name, and, in brackets, \
             what a target's despawn does to its sources (`remove`, the default; `despawn`; `deny`) and \
             `tree` (no cycles)"
        }
    };
    (@todo [$next:tt $($rest:tt)*] @kept [$($kept:tt)*] $($state:tt)*) => {
        $crate::__world_hooks_split! { @todo [$($rest)*] @kept [$($kept)* $next] $($state)* }
    };
}

/// The forward side's type of a relation: [`ManyLinks<R>`](crate::ManyLinks)
/// if its policies list `many`, else [`Links<R>`](crate::Links). Not
/// public API.
#[doc(hidden)] // Called by `world!` only.
#[macro_export]
macro_rules! __relation_links {
    ([many $($rest:ident)*] $($rty:tt)*) => { $crate::ManyLinks<$($rty)*> };
    ([$other:ident $($rest:ident)*] $($rty:tt)*) => { $crate::__relation_links!([$($rest)*] $($rty)*) };
    ([] $($rty:tt)*) => { $crate::Links<$($rty)*> };
    (@many true $rty:ty) => { $crate::ManyLinks<$rty> };
    (@many false $rty:ty) => { $crate::Links<$rty> };
}

/// A world's relations (`Related`), and one `Relates` impl per relation:
/// where its two fields are, its despawn policy and whether it is a tree.
/// Not public API.
#[doc(hidden)] // Called by `__world_hooks_split!` only.
#[macro_export]
macro_rules! __world_relations {
    (@name $name:ident @lines [$( ($rel:ident ($rty:ty) $rev:ident [$($policy:ident)*]) )*]) => {
        // The relation queues of a command buffer, a struct out of sight in
        // a block, so that two worlds of one module do not clash.
        const _: () = {
            #[allow(missing_debug_implementations)]
            pub struct __RelationQueues {
                $($rel: $crate::__private::RelationQueue<$rty>,)*
            }

            impl $crate::__private::core::default::Default for __RelationQueues {
                fn default() -> Self {
                    Self { $($rel: $crate::__private::core::default::Default::default(),)* }
                }
            }

            impl $crate::__private::Related for $name {
                const RELATED: bool = !<[&str]>::is_empty(&[$($crate::__private::core::stringify!($rel)),*]);
                type Queued = __RelationQueues;

                #[inline]
                #[allow(unused_variables)]
                fn each_relation<__V: $crate::__private::EachRelation<Self>>(&mut self, visitor: &mut __V) {
                    $(visitor.visit::<$rty>(self);)*
                }
            }

            $(
                $crate::__world_relations! {
                    @policy $name $rel ($rty) $rev [$($policy)*] @found [Remove] [false] [false]
                }
            )*
        };
    };
    (@policy $name:ident $rel:ident ($rty:ty) $rev:ident [] @found [$policy:ident] [true] [true]) => {
        $crate::__private::core::compile_error! {
            $crate::__private::core::concat!(
                "`world!`: the relation `", $crate::__private::core::stringify!($rel),
                "` is declared both `many` and `tree`: a `tree` gives each source one target; drop one of the two"
            )
        }
    };
    (@policy $name:ident $rel:ident ($rty:ty) $rev:ident [] @found [$policy:ident] [$tree:literal] [$many:tt]) => {
        impl $crate::Relates<$rty> for $name {
            const POLICY: $crate::__private::Policy = $crate::__private::Policy::$policy;
            const TREE: bool = $tree;
            const NAME: &'static str = $crate::__private::core::stringify!($rel);
            type Forward = $crate::__relation_links!(@many $many $rty);

            #[inline]
            fn sides(&mut self) -> $crate::__private::Sides<'_, $rty, <Self as $crate::Relates<$rty>>::Forward> {
                $crate::__private::Sides {
                    entities: &self.entities,
                    links: &mut self.$rel,
                    sources: &mut self.$rev,
                }
            }

            #[inline]
            fn queue(queued: &mut <Self as $crate::__private::Related>::Queued) -> &mut $crate::__private::RelationQueue<$rty> {
                &mut queued.$rel
            }

            #[inline]
            fn links(&self) -> &<Self as $crate::Relates<$rty>>::Forward {
                &self.$rel
            }

            #[inline]
            fn sources(&self) -> &$crate::Sources<$rty> {
                &self.$rev
            }
        }

        impl $crate::__private::RelationAccess<$rty> for $name {
            #[inline]
            fn links<'a>(
                parts: &<Self as $crate::__private::Storages>::Parts<'a>,
                _: $crate::__private::Token,
            ) -> &'a <Self as $crate::Relates<$rty>>::Forward {
                parts.$rel
            }

            #[inline]
            fn sources<'a>(
                parts: &<Self as $crate::__private::Storages>::Parts<'a>,
                _: $crate::__private::Token,
            ) -> &'a $crate::Sources<$rty> {
                parts.$rev
            }
        }
    };
    (@policy $name:ident $rel:ident $rty:tt $rev:ident [remove $($more:ident)*] @found [$p:ident] $tree:tt $many:tt) => {
        $crate::__world_relations! { @policy $name $rel $rty $rev [$($more)*] @found [Remove] $tree $many }
    };
    (@policy $name:ident $rel:ident $rty:tt $rev:ident [despawn $($more:ident)*] @found [$p:ident] $tree:tt $many:tt) => {
        $crate::__world_relations! { @policy $name $rel $rty $rev [$($more)*] @found [Despawn] $tree $many }
    };
    (@policy $name:ident $rel:ident $rty:tt $rev:ident [deny $($more:ident)*] @found [$p:ident] $tree:tt $many:tt) => {
        $crate::__world_relations! { @policy $name $rel $rty $rev [$($more)*] @found [Deny] $tree $many }
    };
    (@policy $name:ident $rel:ident $rty:tt $rev:ident [tree $($more:ident)*] @found $p:tt [$tree:literal] $many:tt) => {
        $crate::__world_relations! { @policy $name $rel $rty $rev [$($more)*] @found $p [true] $many }
    };
    (@policy $name:ident $rel:ident $rty:tt $rev:ident [many $($more:ident)*] @found $p:tt $tree:tt [$many:literal]) => {
        $crate::__world_relations! { @policy $name $rel $rty $rev [$($more)*] @found $p $tree [true] }
    };
    (@policy $name:ident $rel:ident $rty:tt $rev:ident [$other:ident $($more:ident)*] @found $p:tt $tree:tt $many:tt) => {
        $crate::__private::core::compile_error! {
            $crate::__private::core::concat!(
                "`world!`: `", $crate::__private::core::stringify!($other), "` is not a relation policy: write `remove` (the default), `despawn` or `deny`, `tree` for no cycles, and `many` for several targets a source"
            )
        }
    };
}

/// The world's hook lines (`HookLines`), and for each `on_remove` line the
/// impl that runs its hooks right away (`RemoveHooks`). Not public API.
#[doc(hidden)] // Called by `__world_hooks_split!` only.
#[macro_export]
macro_rules! __world_hooks {
    (@name $name:ident @plugins [$($plugin:tt)*]) => {
        $crate::__world_hooks! { @name $name @plugins [$($plugin)*] @depth [] @lines [] }
    };
    // Every plugin's lines collected: the world's own lines, then theirs.
    (@name $name:ident @plugins [] $(@depth $depth:tt @lines [$($lines:tt)*])?) => {
        $crate::__world_hooks! { @emit $name $(@depth $depth @lines [$($lines)*])? }
    };
    // The next plugin: split its path (prefix, name), then ask its macro
    // for its part, which comes back at `@part`.
    (@name $name:ident @plugins [[$($seg:ident)+] $($more:tt)*] @depth $depth:tt @lines $lines:tt) => {
        $crate::__world_hooks! {
            @split [$($seg)+] @prefix [] @state { @name $name @plugins [$($more)*] @depth $depth @lines $lines }
            @path [$($seg)+]
        }
    };
    (@split [$last:ident] @prefix [$($pre:ident)*] @state { $($state:tt)* } @path [$($seg:ident)+]) => {
        $($seg)::+! { [$crate::__world_hooks] [$($pre)*] { $($state)* } }
    };
    (@split [$first:ident $($rest:ident)+] @prefix [$($pre:ident)*] @state $state:tt @path $path:tt) => {
        $crate::__world_hooks! { @split [$($rest)+] @prefix [$($pre)* $first] @state $state @path $path }
    };
    // A plugin's part: its hook lines join the world's, each hook named
    // for this world (`hook::<World>`: a plugin's hooks are generic).
    (@part { $($field:ident [$($value:tt)*])* } @name $name:ident @plugins $plugins:tt @depth $depth:tt
        @lines [$($lines:tt)*]) => {
        $crate::__world_hooks! {
            @plugin_hooks [$($field [$($value)*])*] @name $name @plugins $plugins @depth $depth
            @lines [$($lines)*]
        }
    };
    (@plugin_hooks [hooks [$( ($kind:ident ($($comp:tt)+) [$( ($($hook:tt)+) )+]) )*] $($other:tt)*]
        @name $name:ident @plugins $plugins:tt @depth $depth:tt @lines [$($lines:tt)*]) => {
        $crate::__world_hooks! {
            @name $name @plugins $plugins @depth $depth
            @lines [$($lines)* $( $kind ( $($comp)+ ) => $( $($hook)+ ::<$name> ),+ ; )*]
        }
    };
    (@plugin_hooks [$skip:ident [$($value:tt)*] $($other:tt)*] $($rest:tt)*) => {
        $crate::__world_hooks! { @plugin_hooks [$($other)*] $($rest)* }
    };
    (@emit $name:ident) => {
        $crate::__world_hooks! { @emit $name @depth [] @lines [] }
    };
    (@emit $name:ident @depth [$($depth:literal)?]
        @lines [$( $kind:ident ( $comp:ty ) => $($hook:path),+ ; )*]) => {
        #[allow(unused_qualifications)]
        const _: () = {
            impl $crate::__private::HookLines for $name {
                const LINES: &'static [(u8, &'static str)] = &[
                    $( ($crate::__world_hook_line!(@kind $kind), $crate::__private::core::stringify!($comp)) ),*
                ];
                const DEPTH: usize = {
                    let depth: usize = 8;
                    $( let depth: usize = $depth; )?
                    $crate::__private::core::assert!(depth > 0, "`hooks (depth N)`: the depth is at least 1");
                    depth
                };

                #[allow(unused_variables)]
                fn run_lines(&mut self, sync: bool) {
                    let world = self;
                    $( $crate::__world_hook_line! { @run $kind world sync $name ($comp) [$($hook),+] } )*
                }
            }
            $( $crate::__world_hook_line! { @impl $kind $name ($comp) [$($hook),+] } )*
        };
    };
    (@emit $name:ident @depth $depth:tt @lines [$($lines:tt)*]) => {
        $crate::__private::core::compile_error! {
            "`world!`: each line of `hooks { … }` is `on_add(Component) => hook, other_hook;` \
             (or `on_remove`, `on_change`): the kind, the component in brackets, `=>`, the hooks \
             (functions, by name or path) in the order they run, and a `;`"
        }
    };
}

/// One line of `hooks { … }`: its kind's code (`@kind`), its part of
/// `run_lines` (`@run`), and its impls (`@impl`). Not public API.
#[doc(hidden)] // Called by `__world_hooks!` only.
#[macro_export]
macro_rules! __world_hook_line {
    (@kind on_add) => { $crate::__private::kind_code($crate::__private::HookKind::Add) };
    (@kind on_remove) => { $crate::__private::kind_code($crate::__private::HookKind::Remove) };
    (@kind on_change) => { $crate::__private::kind_code($crate::__private::HookKind::Change) };
    (@kind $other:ident) => {
        $crate::__private::core::compile_error!($crate::__private::core::concat!(
            "`world!`: `", $crate::__private::core::stringify!($other),
            "` is not a kind of hook: write `on_add`, `on_remove` or `on_change`"
        ))
    };
    (@run on_add $world:ident $sync:ident $name:ident ($comp:ty) [$($hook:path),+]) => {{
        let batch = $crate::__private::take_added::<$name, $comp>($world);
        $crate::__world_hook_line! { @call $world $name Add OnAdd ($comp) [$($hook),+] batch }
        $crate::__private::give_back_added::<$name, $comp>($world, batch);
    }};
    (@run on_remove $world:ident $sync:ident $name:ident ($comp:ty) [$($hook:path),+]) => {{
        let batch = $crate::__private::take_removed::<$name, $comp>($world);
        if !batch.is_empty() {
            $crate::__private::run_removed::<$name, $comp>($world, &batch);
        }
        // The values, after every hook saw them.
        $crate::__private::core::mem::drop(batch);
    }};
    (@run on_change $world:ident $sync:ident $name:ident ($comp:ty) [$($hook:path),+]) => {{
        if $sync {
            let batch = $crate::__private::take_changed::<$name, $comp>($world);
            $crate::__world_hook_line! { @call $world $name Change OnChange ($comp) [$($hook),+] batch }
        }
    }};
    // Each hook of a line over a batch of entities, in order.
    (@call $world:ident $name:ident $kind:ident $batch_ty:ident ($comp:ty) [$($hook:path),+] $batch:ident) => {
        if !$batch.is_empty() {
            $crate::__private::line_start(
                $world,
                $crate::__private::HookKind::$kind,
                $crate::__private::core::stringify!($comp),
                &[$($crate::__private::core::stringify!($hook)),+],
                $batch.len(),
            );
            $(
                $crate::__private::line_next($world);
                $crate::__private::run_hook::<$name, $crate::__private::$batch_ty<'static, $comp>, _, _>(
                    $world, &$batch[..], $hook,
                );
            )+
            $crate::__private::line_done($world);
        }
    };
    (@run $other:ident $world:ident $sync:ident $name:ident ($comp:ty) [$($hook:path),+]) => {};
    (@impl on_remove $name:ident ($comp:ty) [$($hook:path),+]) => {
        impl $crate::__private::RemoveHooks<$name, $comp>
            for $crate::__private::HookSel<
                {
                    $crate::__private::line_of(
                        <$name as $crate::__private::HookLines>::LINES,
                        $crate::__private::HookKind::Remove,
                        $crate::__private::core::stringify!($comp),
                    )
                },
            >
        {
            const ANY: bool = true;

            fn run(world: &mut $name, removed: &[($crate::Entity, $comp)], _: $crate::__private::Token) {
                $crate::__private::line_start(
                    world,
                    $crate::__private::HookKind::Remove,
                    $crate::__private::core::stringify!($comp),
                    &[$($crate::__private::core::stringify!($hook)),+],
                    removed.len(),
                );
                $(
                    $crate::__private::line_next(world);
                    $crate::__private::run_hook::<$name, $crate::__private::OnRemove<'static, $comp>, _, _>(
                        world, removed, $hook,
                    );
                )+
                $crate::__private::line_done(world);
            }
        }
    };
    (@impl $other:ident $name:ident ($comp:ty) [$($hook:path),+]) => {};
}

/// The world's [`EventsOf`](crate::EventsOf) impls, one per event declared
/// in `events { … }`: its field of that type. Not public API.
#[doc(hidden)] // Called by `__world_sections!` only.
#[macro_export]
macro_rules! __world_events {
    (@head [$(#[$($attr:tt)*])* $vis:vis struct $name:ident $($rest:tt)*]
        @events [$( ($ev:ident $ety:ty [$($bound:expr)?]) )*]) => {
        $(
            impl $crate::EventsOf<$ety> for $name {
                $(const BOUND: usize = $bound;)?
                #[inline]
                fn events(&self) -> &$crate::Events<$ety> {
                    &self.$ev
                }
                #[inline]
                fn events_mut(&mut self) -> &mut $crate::Events<$ety> {
                    &mut self.$ev
                }
            }
            impl $crate::__private::EventIn<$name> for $ety {
                #[inline]
                fn send_to(self, world: &mut $name) {
                    world.$ev.send(self);
                    world.$ev.keep_at_most(<$name as $crate::EventsOf<$ety>>::BOUND);
                }
            }
        )*
    };
}

/// Includes a world's plugins, one per step: asks the plugin's macro (the
/// plugin's path, as the game wrote it) for its part, which comes back
/// here (`@part`), adds its components, tracked components and resources
/// (their paths prefixed with the plugin's), and the impl of the plugin's
/// trait; then hands the world to `world!`. Not public API.
#[doc(hidden)] // Called by `__world_sections!` and plugins' macros only.
#[macro_export]
macro_rules! __world_plugins {
    // Every plugin included: the world, then the plugins' impls.
    (@head [$($head:tt)*] @resources [$($res:tt)*] @tracked [$($tra:tt)*] @groups [$($grp:tt)*]
        @plugins [] @impls [$($impls:tt)*]) => {
        $crate::world! { @ordered $($head)* $($res)* $($tra)* $($grp)* }
        $($impls)*
    };
    // The next plugin: split its path (prefix, name), then ask its macro.
    (@head $head:tt @resources $res:tt @tracked $tra:tt @groups $grp:tt
        @plugins [[$($seg:ident)+] $($more:tt)*] @impls $impls:tt) => {
        $crate::__world_plugins! {
            @split [$($seg)+] @prefix []
            @state { @head $head @resources $res @tracked $tra @groups $grp
                @plugins [$($more)*] @impls $impls }
            @path [$($seg)+]
        }
    };
    (@split [$last:ident] @prefix [$($pre:ident)*] @state { $($state:tt)* } @path [$($seg:ident)+]) => {
        $($seg)::+! { [$crate::__world_plugins] [$($pre)*] { @prefix [$($pre)*] $($state)* } }
    };
    (@split [$first:ident $($rest:ident)+] @prefix [$($pre:ident)*] @state $state:tt @path $path:tt) => {
        $crate::__world_plugins! { @split [$($rest)+] @prefix [$($pre)* $first] @state $state @path $path }
    };
    // A plugin's part, into a world of the list form: the list becomes
    // fields (named as the list form names them), and the plugin's join.
    (@part $part:tt @prefix $pre:tt
        @head [$(#[$($attr:tt)*])* $vis:vis struct $name:ident < $($component:ident),+ $(,)? > ;]
        $($rest:tt)*) => {
        $crate::__private::paste! {
            $crate::__world_plugins! {
                @part $part @prefix $pre
                @head [$(#[$($attr)*])* $vis struct $name { $( [<$component:snake>] : $component ),+ }]
                $($rest)*
            }
        }
    };
    (@part $part:tt @prefix $pre:tt
        @head [$(#[$($attr:tt)*])* $vis:vis struct $name:ident < $( $($seg:ident)::+ ),+ $(,)? > ;]
        $($rest:tt)*) => {
        $crate::__private::core::compile_error! {
            "`world!`: a world that lists plugins names its own components by type names \
             (`struct Game<Health, Score>`) or by fields (`struct Game { health: ui::Health }`), \
             not by paths"
        }
    };
    (@part {
            name [$plugin:ident]
            components [$( ($field:ident $cname:ident $comp:ty) )*]
            tracked [$($tra:ty ,)*]
            resources [$( ($res:ident $res_ty:ty) )*]
            events [$( ($ev:ident $ev_ty:ty [$($bound:expr)?]) )*]
            hooks [$($hooks:tt)*]
            requires [$($req:ty ,)*]
            systems [$($($sys:ident)::+)?]
        }
        @prefix [$($pre:ident)*]
        @head [$(#[$($attr:tt)*])* $vis:vis struct $name:ident { $($fields:tt)* }]
        @resources [$(resources { $($r:tt)* })?]
        @tracked [$(tracked ( $($t:tt)* ) ;)?]
        @groups $grp:tt
        @plugins $plg:tt
        @impls [$($impls:tt)*]
    ) => {
        $crate::__world_plugins! {
            @head [$(#[$($attr)*])* $vis struct $name {
                $( $field : $comp , )* $($fields)*
            }]
            @resources [resources {
                $( $res : $res_ty , )* $( $ev : $crate::Events<$ev_ty> , )* $($($r)*)?
            }]
            @tracked [tracked ( $( $tra , )* $($($t)*)? ) ;]
            @groups $grp
            @plugins $plg
            @impls [
                $($impls)*
                $crate::__world_events! {
                    @head [$vis struct $name] @events [$( ($ev $ev_ty [$($bound)?]) )*]
                }
                impl $($pre::)* $plugin for $name {
                    $(
                        #[inline]
                        fn $res(&self) -> &$res_ty {
                            &self.$res
                        }
                        $crate::__private::paste! {
                            #[inline]
                            fn [<$res _mut>](&mut self) -> &mut $res_ty {
                                &mut self.$res
                            }
                        }
                    )*
                    fn add_systems(schedule: &mut $crate::Schedule<Self>) {
                        let _ = &schedule;
                        $( $($sys)::+ ::<Self>(schedule); )?
                    }
                }
                // A requirement the world lacks fails here too, with a note
                // that names the plugin ("required by a bound in
                // `Physics_requires`").
                $crate::__private::paste! {
                    const _: () = {
                        #[allow(non_snake_case)]
                        fn [<$plugin _requires>]<W: $crate::World $(+ $crate::Contains<$req>)*>() {}
                        let _ = [<$plugin _requires>]::<$name>;
                    };
                }
                $(
                    const _: () = $crate::__private::plugin_field_once(
                        <$name as $crate::__private::Storages>::FIELDS,
                        $crate::__private::core::stringify!($field),
                        $crate::__private::core::concat!(
                            "plugin `", $crate::__private::core::stringify!($plugin), "`: its component `",
                            $crate::__private::core::stringify!($cname), "` (the field `",
                            $crate::__private::core::stringify!($field), "`) is also declared by `",
                            $crate::__private::core::stringify!($name),
                            "` or by another of its plugins: declare each component once, in the world or in one plugin"
                        ),
                    );
                )*
                $(
                    const _: () = $crate::__private::plugin_field_once(
                        <$name as $crate::__private::Storages>::RESOURCE_FIELDS,
                        $crate::__private::core::stringify!($res),
                        $crate::__private::core::concat!(
                            "plugin `", $crate::__private::core::stringify!($plugin), "`: its resource `",
                            $crate::__private::core::stringify!($res), "` is also a resource of `",
                            $crate::__private::core::stringify!($name),
                            "` or of another of its plugins: give each resource one name, in the world or in one plugin"
                        ),
                    );
                )*
            ]
        }
    };
}

/// The list form with paths (`world! { struct W<ui::Position>; }`): names
/// each field after the last segment of its path, one component per step,
/// then goes on as the plain list form does. Not public API.
#[doc(hidden)] // Called by `world!` only.
#[macro_export]
macro_rules! __world_paths {
    (@todo [] @done [, $($done:tt)*] @rest {
        [$($attrs:tt)*] $vis:vis $name:ident { $($resources:tt)* } { $($groups:tt)* }
    }) => {
        $crate::__private::paste! {
            $crate::__world_attrs! {
                @todo [$($attrs)*] @kept [] @serde []
                @item {
                    $vis struct $name { $($done)* }
                    resources { $($resources)* }
                    $($groups)*
                }
            }
        }
    };
    (@todo [[$($seg:ident)+] $($todo:tt)*] @done $done:tt @rest $rest:tt) => {
        $crate::__world_paths! { @last [$($seg)+] @path [$($seg)+] @todo [$($todo)*] @done $done @rest $rest }
    };
    (@last [$last:ident] @path [$first:ident $($more:ident)*] @todo $todo:tt @done [$($done:tt)*] @rest $rest:tt) => {
        $crate::__world_paths! {
            @todo $todo @done [$($done)* , [<$last:snake>] : $first $(:: $more)*] @rest $rest
        }
    };
    (@last [$skip:ident $($tail:ident)+] @path $path:tt @todo $todo:tt @done $done:tt @rest $rest:tt) => {
        $crate::__world_paths! { @last [$($tail)+] @path $path @todo $todo @done $done @rest $rest }
    };
}
