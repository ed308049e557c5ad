//! `world!`: declares a world struct and wires each component to generic code.
//!
//! The public macro only parses the user's syntax (two forms) and hands a
//! normalised field list to `__world_declare!`. That helper emits the struct
//! and, inside one `const _: () = { … };`, the constructors, the `World` impl
//! (a few one-line hooks over all fields) and one `Component<World>` impl per
//! component. Every behaviour lives in `src/`, in ordinary generic Rust.

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
/// error (conflicting `Component` impls).
///
/// Field names in the first form come from `paste`'s snake_case, which splits
/// at every capital: `HttpServer` becomes `http_server`, but `HTTPServer`
/// becomes `h_t_t_p_server`. Use the second form to choose names.
///
/// What one declaration generates, for a world `W` with components `A`, `B`:
///
/// * `pub struct W { pub entities: EntityAllocator, pub a: SparseMap<A>, pub b: SparseMap<B> }`;
/// * `W::new()`, `W::with_capacity(n)` and `Default`;
/// * `impl World for W` (all the world methods: `spawn`, `add`, `query`, …);
/// * `impl Component<W> for A` and `impl Component<W> for B`, which give
///   `W: Contains<A> + Contains<B>`.
#[macro_export]
macro_rules! world {
    // `world! { pub struct W<A, B, C>; }`
    (
        $(#[$($attr:tt)*])*
        $vis:vis struct $name:ident < $($component:ident),+ $(,)? > ;
        $( group ( $($group:ty),+ $(,)? ) ; )*
    ) => {
        $crate::__private::paste! {
            $crate::__world_attrs! {
                @todo [$([$($attr)*])*] @kept [] @serde []
                @item {
                    $vis struct $name { $( [<$component:snake>] : $component ),+ }
                    $( group ( $($group),+ ) ; )*
                }
            }
        }
    };
    // `world! { pub struct W { a: A, pos: Vec3<f32> } }`
    (
        $(#[$($attr:tt)*])*
        $vis:vis struct $name:ident { $( $(#[$field_meta:meta])* $field:ident : $ty:ty ),+ $(,)? }
        $( group ( $($group:ty),+ $(,)? ) ; )*
    ) => {
        $crate::__world_attrs! {
            @todo [$([$($attr)*])*] @kept [] @serde []
            @item {
                $vis struct $name { $( $(#[$field_meta])* $field : $ty ),+ }
                $( group ( $($group),+ ) ; )*
            }
        }
    };
    ($($input:tt)*) => {
        $crate::__private::core::compile_error! {
            "`world!` expects one of two forms, each with at least one component:\n\
             \n    world! { pub struct MyWorld<Position, Velocity>; }\
             \n    world! { pub struct MyWorld { position: Position, velocity: Vec3<f32> } }\n\
             \nThe first takes type names and names each field after its type; the second \
             takes `field: Type` pairs (fields are always `pub`, so write no visibility). \
             Either may be followed by owning groups, one per line: `group (Position, Velocity);`"
        }
    };
}

/// Sorts a world's attributes: keeps them all, except that `Serialize` and
/// `Deserialize` are taken out of `derive(..)` lists (the world's serde
/// impls are generated, so they can check the whole world). Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __world_attrs {
    (@todo [] @kept [$($kept:tt)*] @serde [$($serde:tt)*] @item { $($item:tt)* }) => {
        $crate::__world_declare! { @serde [$($serde)*] $($kept)* $($item)* }
    };
    (@todo [[derive($($list:tt)*)] $($todo:tt)*] @kept $kept:tt @serde $serde:tt @item $item:tt) => {
        $crate::__world_derives! {
            @list [$($list)*] @keep [] @serde $serde @then [@todo [$($todo)*] @kept $kept @item $item]
        }
    };
    (@todo [[$($attr:tt)*] $($todo:tt)*] @kept [$($kept:tt)*] @serde $serde:tt @item $item:tt) => {
        $crate::__world_attrs! { @todo [$($todo)*] @kept [$($kept)* #[$($attr)*]] @serde $serde @item $item }
    };
}

/// Sorts one `derive(..)` list for `__world_attrs!`. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __world_derives {
    (@list [] @keep [$($keep:tt)*] @serde $serde:tt @then [@todo $todo:tt @kept [$($kept:tt)*] @item $item:tt]) => {
        $crate::__world_attrs! { @todo $todo @kept [$($kept)* #[derive($($keep)*)]] @serde $serde @item $item }
    };
    (@list [Serialize $(, $($rest:tt)*)?] @keep $keep:tt @serde [$($serde:tt)*] @then $then:tt) => {
        $crate::__world_derives! { @list [$($($rest)*)?] @keep $keep @serde [$($serde)* ser(Serialize)] @then $then }
    };
    (@list [Deserialize $(, $($rest:tt)*)?] @keep $keep:tt @serde [$($serde:tt)*] @then $then:tt) => {
        $crate::__world_derives! { @list [$($($rest)*)?] @keep $keep @serde [$($serde)* de(Deserialize)] @then $then }
    };
    (@list [serde::Serialize $(, $($rest:tt)*)?] @keep $keep:tt @serde [$($serde:tt)*] @then $then:tt) => {
        $crate::__world_derives! {
            @list [$($($rest)*)?] @keep $keep @serde [$($serde)* ser(serde::Serialize)] @then $then
        }
    };
    (@list [serde::Deserialize $(, $($rest:tt)*)?] @keep $keep:tt @serde [$($serde:tt)*] @then $then:tt) => {
        $crate::__world_derives! {
            @list [$($($rest)*)?] @keep $keep @serde [$($serde)* de(serde::Deserialize)] @then $then
        }
    };
    (@list [::serde::Serialize $(, $($rest:tt)*)?] @keep $keep:tt @serde [$($serde:tt)*] @then $then:tt) => {
        $crate::__world_derives! {
            @list [$($($rest)*)?] @keep $keep @serde [$($serde)* ser(::serde::Serialize)] @then $then
        }
    };
    (@list [::serde::Deserialize $(, $($rest:tt)*)?] @keep $keep:tt @serde [$($serde:tt)*] @then $then:tt) => {
        $crate::__world_derives! {
            @list [$($($rest)*)?] @keep $keep @serde [$($serde)* de(::serde::Deserialize)] @then $then
        }
    };
    // Any other derive is kept exactly as written, leading `::` included.
    (@list [:: $($path:ident)::+ $(, $($rest:tt)*)?] @keep [$($keep:tt)*] @serde $serde:tt @then $then:tt) => {
        $crate::__world_derives! { @list [$($($rest)*)?] @keep [$($keep)* :: $($path)::+,] @serde $serde @then $then }
    };
    (@list [$($path:ident)::+ $(, $($rest:tt)*)?] @keep [$($keep:tt)*] @serde $serde:tt @then $then:tt) => {
        $crate::__world_derives! { @list [$($($rest)*)?] @keep [$($keep)* $($path)::+,] @serde $serde @then $then }
    };
}

/// Emits a world from a normalised field list. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __world_declare {
    (
        @serde [$($serde:tt)*]
        $(#[$meta:meta])*
        $vis:vis struct $name:ident { $( $(#[$field_meta:meta])* $field:ident : $ty:ty ),+ }
        $( group ( $($group:ty),+ ) ; )*
    ) => {
        $(#[$meta])*
        #[doc = $crate::__private::core::concat!(
            "\n\nA [`typed_ecs`](", "https://docs.rs/typed_ecs", ") world with these components:\n",
            $("\n- `", $crate::__private::core::stringify!($ty),
              "` in the field `", $crate::__private::core::stringify!($field), "`",)+
            $("\n\nOwning group: `(", $crate::__private::core::stringify!($($group),+), ")`",)*
        )]
        $vis struct $name {
            /// Which entities are alive, and their generations (read-only).
            pub entities: $crate::EntityAllocator,
            $(
                #[doc = $crate::__private::core::concat!(
                    "Storage for the `", $crate::__private::core::stringify!($ty), "` component."
                )]
                $(#[$field_meta])*
                pub $field: $crate::SparseMap<$ty>,
            )+
        }

        // The reviewed allow list: a private world may never call `new` or
        // `with_capacity` (dead_code); every path is spelled in full so
        // nothing in the user's scope can shadow it (unused_qualifications);
        // the hidden `__Parts` and `__Queues` helpers have no use for `Debug`
        // (missing_debug_implementations).
        #[allow(dead_code, unused_qualifications, missing_debug_implementations)]
        const _: () = {
            /// The field names in order: `Component::INDEX` is a position here.
            const __FIELDS: &[&str] = &[$($crate::__private::core::stringify!($field)),+];

            impl $name {
                /// An empty world.
                #[must_use]
                #[inline]
                $vis fn new() -> Self {
                    let entities = $crate::__private::new_allocator();
                    let mut world = Self {
                        $($field: $crate::__private::new_storage(&entities, 0),)+
                        entities,
                    };
                    $crate::World::__groups_refresh(&mut world);
                    world
                }

                /// An empty world with room for `capacity` entities, and for
                /// `capacity` values in every component storage.
                #[must_use]
                $vis fn with_capacity(capacity: usize) -> Self {
                    let entities = $crate::__private::allocator_with_capacity(capacity);
                    let mut world = Self {
                        $($field: $crate::__private::new_storage(&entities, capacity),)+
                        entities,
                    };
                    $crate::World::__groups_refresh(&mut world);
                    world
                }
            }

            /// The world split into disjoint borrows, one per component.
            pub struct __Parts<'a> {
                $($field: $crate::__private::core::option::Option<&'a mut $crate::SparseMap<$ty>>,)+
            }

            /// One command queue per component.
            pub struct __Queues {
                $($field: $crate::__private::Queue<$ty>,)+
            }

            impl $crate::__private::core::default::Default for __Queues {
                fn default() -> Self {
                    Self {
                        $($field: $crate::__private::core::default::Default::default(),)+
                    }
                }
            }

            impl $crate::__private::core::default::Default for $name {
                #[inline]
                fn default() -> Self {
                    Self::new()
                }
            }

            impl $crate::World for $name {
                const NAME: &'static str = $crate::__private::core::stringify!($name);
                const COMPONENT_NAMES: &'static [&'static str] =
                    &[$($crate::__private::core::stringify!($ty)),+];

                type __Parts<'a> = __Parts<'a>;
                type __Queues = __Queues;
                type __Removed = ($($crate::__private::core::option::Option<$ty>,)+);
                type __Purged = ($($crate::__private::Purged<$ty>,)+);
                type __Taken = ($($crate::__private::Taken<$ty>,)+);

                #[inline]
                fn __entities(&self) -> &$crate::EntityAllocator {
                    &self.entities
                }
                #[inline]
                fn __entities_mut(&mut self) -> &mut $crate::EntityAllocator {
                    &mut self.entities
                }
                #[inline]
                fn __remove_all(&mut self, entity: $crate::Entity) -> Self::__Removed {
                    ($(self.$field.remove(entity),)+)
                }
                #[inline]
                fn __purge(&mut self, entity: $crate::Entity) -> Self::__Purged {
                    ($($crate::__private::purge(&self.entities, &mut self.$field, entity),)+)
                }
                #[inline]
                fn __sync_all(&mut self) {
                    // One branch for all storages (`|`, not `||`); the work,
                    // needed only after storages were moved, out of line.
                    #[cold]
                    #[inline(never)]
                    fn resync(world: &mut $name) {
                        $($crate::__private::sync(&world.entities, &mut world.$field);)+
                    }
                    if false $(| $crate::__private::stale(&self.entities, &self.$field))+ {
                        resync(self);
                    }
                }
                fn __apply_removals(&mut self) {
                    $($crate::__private::apply_removals::<Self, $ty>(self);)+
                }
                fn __apply_additions(&mut self) {
                    $($crate::__private::apply_additions::<Self, $ty>(self);)+
                }
                fn __take_all(&mut self) -> Self::__Taken {
                    ($($crate::__private::take_all(&self.entities, &mut self.$field),)+)
                }
                #[inline]
                fn __parts(&mut self) -> __Parts<'_> {
                    __Parts {
                        $($field: $crate::__private::core::option::Option::Some(&mut self.$field),)+
                    }
                }
                fn __apply_commands(&mut self, commands: &mut $crate::Commands<Self>) {
                    $($crate::__private::apply_command_removals::<Self, $ty>(self, commands);)+
                    $($crate::__private::apply_command_additions::<Self, $ty>(self, commands);)+
                }
                fn __check_storages(
                    &self,
                ) -> $crate::__private::core::result::Result<(), $crate::__private::String> {
                    $($crate::__private::check_storage(
                        &self.entities,
                        $crate::__private::core::stringify!($ty),
                        &self.$field,
                    )?;)+
                    $crate::__private::core::result::Result::Ok(())
                }

                const __GROUPED: &'static [usize] =
                    &[$($(<$group as $crate::Component<$name>>::INDEX,)+)*];

                #[inline]
                fn __groups_hook<__B: $crate::Bundle<Self>>(
                    &mut self,
                    hook: $crate::__private::GroupHook,
                    entities: &[$crate::Entity],
                ) {
                    $($crate::__private::group_hook::<Self, ($($group,)+), __B>(self, hook, entities);)*
                    let _ = (hook, entities);
                }
                fn __groups_check(
                    &self,
                ) -> $crate::__private::core::result::Result<(), $crate::__private::String> {
                    $(<($($group,)+) as $crate::Group<Self>>::__check(self)?;)*
                    $crate::__private::core::result::Result::Ok(())
                }
            }

            // Each component belongs to at most one owning group.
            const _: () = $crate::__private::core::assert!(
                $crate::__private::all_distinct(<$name as $crate::World>::__GROUPED),
                "{}",
                $crate::__private::core::concat!(
                    "a component of `", $crate::__private::core::stringify!($name),
                    "` is listed in two owning groups, or twice in one: each component may belong to at most one group"
                ),
            );

            $(
                impl $crate::Component<$name> for $ty {
                    const INDEX: usize =
                        $crate::__private::field_index(__FIELDS, $crate::__private::core::stringify!($field));

                    #[inline]
                    fn storage(world: &$name) -> &$crate::SparseMap<$ty> {
                        &world.$field
                    }
                    #[inline]
                    fn storage_mut(world: &mut $name) -> &mut $crate::SparseMap<$ty> {
                        &mut world.$field
                    }
                    #[inline]
                    fn __take<'a>(parts: &mut __Parts<'a>) -> &'a mut $crate::SparseMap<$ty>
                    where
                        $name: 'a,
                    {
                        $crate::__private::take_part(&mut parts.$field)
                    }
                    #[inline]
                    fn __queue(queues: &mut __Queues) -> &mut $crate::__private::Queue<$ty> {
                        &mut queues.$field
                    }
                    #[inline]
                    fn __split(world: &mut $name) -> (&$crate::EntityAllocator, &mut $crate::SparseMap<$ty>) {
                        (&world.entities, &mut world.$field)
                    }
                }
            )+

            $crate::__world_serde! { [$($serde)*] $name { $($field: $ty),+ } }
        };
    };
}

/// Emits the serde impls a world's `derive(..)` asked for. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __world_serde {
    ([] $name:ident $fields:tt) => {};
    ([ser($($path:tt)+) $($rest:tt)*] $name:ident $fields:tt) => {
        $crate::__world_serialize! { [$($path)+] $name $fields }
        $crate::__world_serde! { [$($rest)*] $name $fields }
    };
    ([de($($path:tt)+) $($rest:tt)*] $name:ident $fields:tt) => {
        $crate::__world_deserialize! { [$($path)+] $name $fields }
        $crate::__world_serde! { [$($rest)*] $name $fields }
    };
}

/// `Serialize` for a world: the allocator, then every storage. Not public API.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __world_serialize {
    ([$($path:tt)+] $name:ident { $($field:ident: $ty:ty),+ }) => {
        impl $($path)+ for $name {
            fn serialize<__S>(
                &self,
                serializer: __S,
            ) -> $crate::__private::core::result::Result<__S::Ok, __S::Error>
            where
                __S: $crate::__private::serde::Serializer,
            {
                use $crate::__private::serde::ser::SerializeStruct as _;
                let mut state = serializer
                    .serialize_struct($crate::__private::core::stringify!($name), 1 + __FIELDS.len())?;
                state.serialize_field("entities", &self.entities)?;
                $(state.serialize_field(
                    $crate::__private::core::stringify!($field),
                    &$crate::__private::live_storage(&self.entities, &self.$field),
                )?;)+
                state.end()
            }
        }
    };
}

/// `Deserialize` for a world, which checks that the storages agree with the
/// allocator. Not public API.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __world_deserialize {
    ([$($path:tt)+] $name:ident { $($field:ident: $ty:ty),+ }) => {
        impl<'de> $($path)+<'de> for $name {
            fn deserialize<__D>(deserializer: __D) -> $crate::__private::core::result::Result<Self, __D::Error>
            where
                __D: $crate::__private::serde::Deserializer<'de>,
            {
                $crate::__private::deserialize_world::<__D, Self>(deserializer)
            }
        }

        /// One `Option` per field, filled while loading.
        pub struct __Partial {
            entities: $crate::__private::core::option::Option<$crate::EntityAllocator>,
            $($field: $crate::__private::core::option::Option<$crate::SparseMap<$ty>>,)+
        }

        impl $crate::__private::core::default::Default for __Partial {
            fn default() -> Self {
                Self {
                    entities: $crate::__private::core::option::Option::None,
                    $($field: $crate::__private::core::option::Option::None,)+
                }
            }
        }

        impl $crate::__private::WorldFields for $name {
            const FIELDS: &'static [&'static str] = &["entities", $($crate::__private::core::stringify!($field)),+];
            type Partial = __Partial;

            fn read_field<'de, __A: $crate::__private::serde::de::MapAccess<'de>>(
                partial: &mut __Partial,
                key: &str,
                map: &mut __A,
            ) -> $crate::__private::core::result::Result<(), __A::Error> {
                match key {
                    "entities" => $crate::__private::read_once(&mut partial.entities, "entities", map),
                    $($crate::__private::core::stringify!($field) => $crate::__private::read_once(
                        &mut partial.$field,
                        $crate::__private::core::stringify!($field),
                        map,
                    ),)+
                    other => $crate::__private::core::result::Result::Err(
                        $crate::__private::serde::de::Error::unknown_field(other, Self::FIELDS),
                    ),
                }
            }

            fn read_fields<'de, __A: $crate::__private::serde::de::SeqAccess<'de>>(
                seq: &mut __A,
            ) -> $crate::__private::core::result::Result<__Partial, __A::Error> {
                let mut position = 0;
                let entities = $crate::__private::read_next(seq, position, Self::NAME)?;
                $(
                    position += 1;
                    let $field = $crate::__private::read_next(seq, position, Self::NAME)?;
                )+
                let _ = position;
                $crate::__private::core::result::Result::Ok(__Partial { entities, $($field),+ })
            }

            fn finish(partial: __Partial) -> $crate::__private::core::result::Result<Self, $crate::__private::String> {
                let entities = $crate::__private::required(partial.entities, "entities", Self::NAME)?;
                $(
                    let $field = $crate::__private::loaded_storage(
                        &entities,
                        $crate::__private::required(
                            partial.$field,
                            $crate::__private::core::stringify!($field),
                            Self::NAME,
                        )?,
                    );
                )+
                $crate::__private::finish_world(Self { entities, $($field),+ })
            }
        }
    };
}

/// Without the `serde` feature, deriving serde traits on a world says how to
/// turn it on.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __world_serialize {
    ($($input:tt)*) => {
        $crate::__private::core::compile_error! {
            "deriving `Serialize` on a world needs the `serde` feature of typed_ecs: \
typed_ecs = { version = \"0.1\", features = [\"serde\"] }"
        }
    };
}

/// Without the `serde` feature, deriving serde traits on a world says how to
/// turn it on.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __world_deserialize {
    ($($input:tt)*) => {
        $crate::__private::core::compile_error! {
            "deriving `Deserialize` on a world needs the `serde` feature of typed_ecs: \
typed_ecs = { version = \"0.1\", features = [\"serde\"] }"
        }
    };
}
