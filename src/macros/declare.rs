//! Emitting a world from a normalised field list: one helper per job.

/// Emits a world from a normalised field list: the struct, then everything
/// else in one `const _: () = { … };`. Not public API.
#[doc(hidden)] // Called by `__world_attrs!` only.
#[macro_export]
macro_rules! __world_declare {
    // First the resources are sorted into those saved with the world and
    // those marked `#[serde(skip)]` (see `__world_resources_split!`).
    (
        @serde $serde:tt
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $fields:tt
        resources { $( $(#[$($res_attr:tt)*])* $res:ident : $res_ty:ty ),* }
        $($rest:tt)*
    ) => {
        $crate::__world_resources_split! {
            @todo [$( { [$([$($res_attr)*])*] $res : $res_ty } )*]
            @kept [] @saved [] @skipped []
            @then [@serde $serde $(#[$meta])* $vis struct $name $fields $($rest)*]
        }
    };
    (
        @split @resources [$( $(#[$res_meta:meta])* $res:ident : $res_ty:ty , )*]
        @saved [$($saved:ident : $saved_ty:ty ,)*]
        @skipped [$($skipped:ident : $skipped_ty:ty ,)*]
        @serde [$($serde:tt)*]
        $(#[$meta:meta])*
        $vis:vis struct $name:ident { $( $(#[$field_meta:meta])* $field:ident : $ty:ty ),+ }
        tracked ( $($tracked:ty,)* )
        $( group ( $($group:ty),+ ) ; )*
    ) => {
        $crate::__world_struct! {
            $(#[$meta])*
            $vis struct $name { $( $(#[$field_meta])* $field : $ty ),+ }
            resources { $( $(#[$res_meta])* $res : $res_ty ),* }
            $( group ( $($group),+ ) ; )*
        }

        // The reviewed allow list: a private world may never call `new` or
        // `with_capacity` (dead_code); every path is spelled in full so
        // nothing in the user's scope can shadow it (unused_qualifications);
        // the `__Parts` and `__Queues` helpers have no use for `Debug`
        // (missing_debug_implementations).
        #[allow(dead_code, unused_qualifications, missing_debug_implementations)]
        const _: () = {
            /// The field names in order: `Component::INDEX` is a position here.
            const __FIELDS: &[&str] = &[$($crate::__private::core::stringify!($field)),+];

            /// The resource fields' names in order: a resource's index.
            const __RESOURCES: &[&str] = &[$($crate::__private::core::stringify!($res)),*];

            $crate::__world_storages! {
                $(#[$meta])* $vis $name { $($field : $ty),+ } resources { $($res : $res_ty),* }
            }
            $crate::__world_checked! { $name }
            $crate::__world_groups! { $name $( group ( $($group),+ ) ; )* }
            $crate::__world_components! { $name { $($field : $ty),+ } tracked [$($tracked,)*] }
            $crate::__world_resources! { $name { $($res : $res_ty),* } }
            $crate::__world_serde! {
                [$($serde)*] $name { $($field: $ty),+ }
                resources { $($saved : $saved_ty),* } skipped { $($skipped : $skipped_ty),* }
            }
        };
    };
}

/// Sorts a world's resources: each keeps its attributes on its field but
/// `#[serde(skip)]`, which marks it as not saved (rebuilt with `Default`
/// on load). Then goes on with `__world_declare!`. Not public API.
#[doc(hidden)] // Called by `__world_declare!` only.
#[macro_export]
macro_rules! __world_resources_split {
    (@todo [] @kept [$($kept:tt)*] @saved [$($saved:tt)*] @skipped [$($skipped:tt)*] @then [$($then:tt)*]) => {
        $crate::__world_declare! {
            @split @resources [$($kept)*] @saved [$($saved)*] @skipped [$($skipped)*] $($then)*
        }
    };
    (@todo [{ [$($attrs:tt)*] $res:ident : $res_ty:ty } $($todo:tt)*] @kept $kept:tt @saved $saved:tt @skipped $skipped:tt @then $then:tt) => {
        $crate::__world_resources_split! {
            @attrs [$($attrs)*] @keep [] @skip [] @res [$res : $res_ty]
            @todo [$($todo)*] @kept $kept @saved $saved @skipped $skipped @then $then
        }
    };
    (@attrs [[serde(skip)] $($attrs:tt)*] @keep $keep:tt @skip $skip:tt @res $res:tt
        @todo $todo:tt @kept $kept:tt @saved $saved:tt @skipped $skipped:tt @then $then:tt) => {
        $crate::__world_resources_split! {
            @attrs [$($attrs)*] @keep $keep @skip [skip] @res $res
            @todo $todo @kept $kept @saved $saved @skipped $skipped @then $then
        }
    };
    (@attrs [[$($attr:tt)*] $($attrs:tt)*] @keep [$($keep:tt)*] @skip $skip:tt @res $res:tt
        @todo $todo:tt @kept $kept:tt @saved $saved:tt @skipped $skipped:tt @then $then:tt) => {
        $crate::__world_resources_split! {
            @attrs [$($attrs)*] @keep [$($keep)* #[$($attr)*]] @skip $skip @res $res
            @todo $todo @kept $kept @saved $saved @skipped $skipped @then $then
        }
    };
    (@attrs [] @keep [$($keep:tt)*] @skip [] @res [$res:ident : $res_ty:ty]
        @todo $todo:tt @kept [$($kept:tt)*] @saved [$($saved:tt)*] @skipped $skipped:tt @then $then:tt) => {
        $crate::__world_resources_split! {
            @todo $todo @kept [$($kept)* $($keep)* $res : $res_ty ,]
            @saved [$($saved)* $res : $res_ty ,] @skipped $skipped @then $then
        }
    };
    (@attrs [] @keep [$($keep:tt)*] @skip [skip] @res [$res:ident : $res_ty:ty]
        @todo $todo:tt @kept [$($kept:tt)*] @saved $saved:tt @skipped [$($skipped:tt)*] @then $then:tt) => {
        $crate::__world_resources_split! {
            @todo $todo @kept [$($kept)* $($keep)* $res : $res_ty ,]
            @saved $saved @skipped [$($skipped)* $res : $res_ty ,] @then $then
        }
    };
}

/// The world struct and its docs. Not public API.
#[doc(hidden)] // Called by `__world_declare!` only.
#[macro_export]
macro_rules! __world_struct {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident { $( $(#[$field_meta:meta])* $field:ident : $ty:ty ),+ }
        resources { $( $(#[$res_meta:meta])* $res:ident : $res_ty:ty ),* }
        $( group ( $($group:ty),+ ) ; )*
    ) => {
        $(#[$meta])*
        #[doc = $crate::__private::core::concat!(
            "\n\nA [`typed_ecs`](", "https://docs.rs/typed_ecs", ") world with these components:\n",
            $("\n- `", $crate::__private::core::stringify!($ty),
              "` in the field `", $crate::__private::core::stringify!($field), "`",)+
            $("\n\nResource: `", $crate::__private::core::stringify!($res_ty),
              "` in the field `", $crate::__private::core::stringify!($res), "`",)*
            $("\n\nOwning group: `(", $crate::__private::core::stringify!($($group),+), ")`",)*
        )]
        $vis struct $name {
            /// Which entities are alive, and their generations.
            pub entities: $crate::EntityAllocator,
            $(
                #[doc = $crate::__private::core::concat!(
                    "Storage for the `", $crate::__private::core::stringify!($ty), "` component."
                )]
                $(#[$field_meta])*
                pub $field: $crate::__private::StorageIn<$name, $ty>,
            )+
            $(
                #[doc = $crate::__private::core::concat!(
                    "The `", $crate::__private::core::stringify!($res_ty), "` resource: one value for the whole world."
                )]
                $(#[$res_meta])*
                pub $res: $res_ty,
            )*
            /// The world's own queued changes (`add_deferred`, …), applied
            /// by `finalize_updates`.
            #[doc(hidden)]
            __queued: $crate::__private::Deferred<$name>,
            /// What the world's hooks wait for and report.
            #[doc(hidden)]
            __hooks: $crate::__private::Hooks<$name>,
        }
    };
}

/// The constructors, `Default`, `Extend` and the sealed `Storages` plumbing
/// (every `Storages` is a `World`):
/// the split borrow, the command queues, and the visitors over every storage
/// (the groups' come from `__world_groups!`). Not public API.
#[doc(hidden)] // Called by `__world_declare!` only.
#[macro_export]
macro_rules! __world_storages {
    ($(#[$meta:meta])* $vis:vis $name:ident { $($field:ident : $ty:ty),+ } resources { $($res:ident : $res_ty:ty),* }) => {
        impl $name {
            /// An empty world.
            #[must_use]
            #[inline]
            $vis fn new() -> Self {
                Self::with_capacity(0)
            }

            /// An empty world with room for `capacity` entities, and for
            /// `capacity` values in every component storage.
            #[must_use]
            $vis fn with_capacity(capacity: usize) -> Self {
                let entities = $crate::__private::new_allocator(capacity);
                let mut world = Self {
                    $($field: $crate::__private::new_storage(&entities, capacity),)+
                    $($res: $crate::__private::core::default::Default::default(),)*
                    __queued: $crate::__private::new_deferred(&entities),
                    __hooks: $crate::__private::core::default::Default::default(),
                    entities,
                };
                $crate::__private::refresh_groups(&mut world);
                world
            }

            /// Takes what went wrong with the world's hooks since it was
            /// last taken (see [`HookReport`]($crate::HookReport)): the
            /// commands hooks queued that were rejected, the hooks that
            /// missed a batch because one before them panicked, and the
            /// commands left for later past the depth. A world without
            /// hooks always reports clean.
            #[allow(dead_code)]
            #[must_use]
            $vis fn take_hook_report(&mut self) -> $crate::HookReport {
                $crate::__private::take_report(self)
            }
        }

        /// One `Reactions` per component: what its hooks wait for.
        #[derive(Default)]
        pub struct __Reactions {
            $($field: $crate::__private::Reactions<$ty>,)+
        }

        impl $crate::__private::HookHome for $name {
            type Reactions = __Reactions;

            #[inline]
            fn hooks_mut(&mut self) -> &mut $crate::__private::Hooks<Self> {
                &mut self.__hooks
            }
        }

        impl $crate::__private::core::default::Default for $name {
            #[inline]
            fn default() -> Self {
                Self::new()
            }
        }

        /// Spawns one entity per bundle (a tuple of components), as
        /// `World::spawn_batch` does, without keeping the handles.
        ///
        /// # Panics
        ///
        /// When the world runs out of entity indices; `World::try_extend`
        /// hands back the bundles not spawned instead.
        impl<__Bundle: $crate::Bundle<$name>> $crate::__private::core::iter::Extend<__Bundle> for $name {
            #[track_caller]
            #[inline]
            fn extend<__Bundles>(&mut self, bundles: __Bundles)
            where
                __Bundles: $crate::__private::core::iter::IntoIterator<Item = __Bundle>,
            {
                $crate::__private::extend(self, bundles);
            }
        }

        /// The world split into disjoint borrows, one per component.
        pub struct __Parts<'a> {
            $($field: $crate::__private::core::option::Option<&'a mut $crate::__private::StorageIn<$name, $ty>>,)+
            // The resources, shared (a query's relation terms read theirs).
            $($res: &'a $res_ty,)*
        }

        /// The world split for systems: a slot per storage and resource.
        pub struct __Borrows<'a> {
            entities: &'a $crate::EntityAllocator,
            $($field: $crate::__private::Slot<'a, $crate::__private::StorageIn<$name, $ty>>,)+
            $($res: $crate::__private::Slot<'a, $res_ty>,)*
        }

        /// One queue per component and the queued despawns: the world's
        /// own deferred changes, and a command buffer's. It takes the
        /// world's attributes, so that it derives what the world derives
        /// (`Clone`, `Debug`).
        $(#[$meta])*
        pub struct __Queues {
            $($field: $crate::__private::Queue<$ty>,)+
            __despawns: $crate::__private::Despawns,
        }

        impl $crate::__private::core::default::Default for __Queues {
            fn default() -> Self {
                Self {
                    $($field: $crate::__private::core::default::Default::default(),)+
                    __despawns: $crate::__private::core::default::Default::default(),
                }
            }
        }

        impl $crate::__private::Declared for $name {}

        impl $crate::__private::Storages for $name {
            const WORLD: &'static str = $crate::__private::core::stringify!($name);
            const COMPONENTS: &'static [&'static str] =
                &[$($crate::__private::core::stringify!($ty)),+];
            const RESOURCES: &'static [&'static str] =
                &[$($crate::__private::core::stringify!($res_ty)),*];
            const RESOURCE_FIELDS: &'static [&'static str] = __RESOURCES;
            type Parts<'a> = __Parts<'a>;
            type Borrows<'a> = __Borrows<'a>;
            type Queues = __Queues;
            const FIELDS: &'static [&'static str] = __FIELDS;
            const GROUPED: &'static [usize] = __GROUPED;
            const HOOKED: bool = !<$name as $crate::__private::HookLines>::LINES.is_empty();
            const ON_ADD: &'static [usize] = &$crate::__private::line_fields::<
                { $crate::__private::count_lines(<$name as $crate::__private::HookLines>::LINES, $crate::__private::HookKind::Add) },
            >(
                <$name as $crate::__private::HookLines>::LINES,
                $crate::__private::HookKind::Add,
                &[$($crate::__private::core::stringify!($ty)),+],
            );
            const ON_REMOVE: &'static [usize] = &$crate::__private::line_fields::<
                { $crate::__private::count_lines(<$name as $crate::__private::HookLines>::LINES, $crate::__private::HookKind::Remove) },
            >(
                <$name as $crate::__private::HookLines>::LINES,
                $crate::__private::HookKind::Remove,
                &[$($crate::__private::core::stringify!($ty)),+],
            );

            #[inline]
            fn settle(&mut self, sync: bool, _: $crate::__private::Token) {
                if <Self as $crate::__private::Storages>::HOOKED {
                    $crate::__private::settle(self, sync);
                }
            }

            #[inline]
            fn allocator(&self, _: $crate::__private::Token) -> &$crate::EntityAllocator {
                &self.entities
            }
            #[inline]
            fn allocator_mut(&mut self, _: $crate::__private::Token) -> &mut $crate::EntityAllocator {
                &mut self.entities
            }
            #[inline]
            fn parts(&mut self, _: $crate::__private::Token) -> __Parts<'_> {
                __Parts {
                    $($field: $crate::__private::core::option::Option::Some(&mut self.$field),)+
                    $($res: &self.$res,)*
                }
            }
            #[inline]
            fn borrows(&mut self, _: $crate::__private::Token) -> __Borrows<'_> {
                __Borrows {
                    entities: &self.entities,
                    $($field: $crate::__private::Slot::Unique(&mut self.$field),)+
                    $($res: $crate::__private::Slot::Unique(&mut self.$res),)*
                }
            }
            #[inline]
            fn queued(&mut self, _: $crate::__private::Token) -> &mut $crate::__private::Deferred<Self> {
                &mut self.__queued
            }
            #[inline]
            fn queued_ref(&self, _: $crate::__private::Token) -> &$crate::__private::Deferred<Self> {
                &self.__queued
            }
            #[inline]
            fn queued_split(
                &mut self,
                _: $crate::__private::Token,
            ) -> (&$crate::EntityAllocator, &mut $crate::__private::Deferred<Self>) {
                (&self.entities, &mut self.__queued)
            }
            #[inline]
            fn despawns(queues: &mut __Queues, _: $crate::__private::Token) -> &mut $crate::__private::Despawns {
                &mut queues.__despawns
            }
            #[inline]
            fn despawns_ref(queues: &__Queues, _: $crate::__private::Token) -> &$crate::__private::Despawns {
                &queues.__despawns
            }
            #[inline]
            fn borrowed_entities<'a>(borrows: &__Borrows<'a>, _: $crate::__private::Token) -> &'a $crate::EntityAllocator
            where
                Self: 'a,
            {
                borrows.entities
            }
            #[inline]
            fn each<__V: $crate::__private::EachStorage<Self>>(&mut self, visitor: &mut __V, _: $crate::__private::Token) {
                // A flat tuple, evaluated left to right: nesting one pair
                // per component would overflow rustc's drop-check past
                // about 130 components.
                // Then `done` makes the world consistent, before each storage
                // finishes with what its visit returned (bound to the field's
                // name: the macro's hygiene keeps it apart from `visitor`).
                let ($($field,)+) = ($(visitor.visit::<$ty>(self),)+);
                visitor.done(self);
                $(visitor.finish::<$ty>(self, $field);)+
            }
            #[inline]
            fn each_ref<__V: $crate::__private::EachStorageRef<Self>>(&self, visitor: &mut __V, _: $crate::__private::Token) {
                $(visitor.visit::<$ty>(self);)+
            }
            #[inline]
            fn each_group<__V: $crate::__private::EachGroup<Self>>(&mut self, visitor: &mut __V, _: $crate::__private::Token) {
                __each_group(self, visitor);
            }
            #[inline]
            fn each_group_ref<__V: $crate::__private::EachGroupRef<Self>>(&self, visitor: &mut __V, _: $crate::__private::Token) {
                __each_group_ref(self, visitor);
            }
        }

        // `&mut W` as a system parameter: the system is exclusive.
        impl $crate::WriteParam<$name> for $name {
            const TARGET: $crate::__private::core::option::Option<$crate::__private::Target> =
                $crate::__private::core::option::Option::Some($crate::__private::Target::World);
            type State = ();
            #[inline]
            fn write<'a>(_: &'a mut (), source: &mut $crate::__private::Source<'a, $name>) -> &'a mut $name {
                source.whole()
            }
            type Claim = $crate::__private::Whole;
        }
    };
}

/// The world's own `spawn_with`, `try_spawn_with`, `spawn_batch`,
/// `try_spawn_batch`, `try_extend`, `query_mut` and `get_many`: the `World`
/// methods, with the bounds `Bundle` and `QueryMut`, which include the
/// check that each component appears once (the trait's methods take the
/// weaker `BundleParts` and `QueryParts`, for generic code), so that a
/// component named twice is a trait-bound error that `cargo check` reports
/// at the caller's line. A method call finds these before the trait's. Not
/// public API.
#[doc(hidden)] // Called by `__world_declare!` only.
#[macro_export]
macro_rules! __world_checked {
    ($name:ident) => {
        // Hidden: the `World` methods are the documented ones, and these
        // only forward to them.
        #[doc(hidden)]
        impl $name {
            #[track_caller]
            #[inline]
            pub fn spawn_with<__B>(&mut self, bundle: __B) -> $crate::Entity
            where
                __B: $crate::Bundle<Self>,
            {
                <Self as $crate::World>::spawn_with(self, bundle)
            }

            #[inline]
            pub fn try_spawn_with<__B>(
                &mut self,
                bundle: __B,
            ) -> $crate::__private::core::result::Result<$crate::Entity, $crate::SpawnError<__B>>
            where
                __B: $crate::Bundle<Self>,
            {
                <Self as $crate::World>::try_spawn_with(self, bundle)
            }

            #[track_caller]
            #[inline]
            pub fn spawn_batch<__B, __I>(
                &mut self,
                bundles: __I,
            ) -> $crate::__private::Vec<$crate::Entity>
            where
                __B: $crate::Bundle<Self>,
                __I: $crate::__private::core::iter::IntoIterator<Item = __B>,
            {
                <Self as $crate::World>::spawn_batch(self, bundles)
            }

            #[allow(clippy::type_complexity)]
            #[inline]
            pub fn try_spawn_batch<__B, __I>(
                &mut self,
                bundles: __I,
            ) -> $crate::__private::core::result::Result<
                $crate::__private::Vec<$crate::Entity>,
                $crate::SpawnError<(
                    $crate::__private::Vec<$crate::Entity>,
                    $crate::__private::core::iter::Chain<
                        $crate::__private::core::iter::Once<__B>,
                        <__I as $crate::__private::core::iter::IntoIterator>::IntoIter,
                    >,
                )>,
            >
            where
                __B: $crate::Bundle<Self>,
                __I: $crate::__private::core::iter::IntoIterator<Item = __B>,
            {
                <Self as $crate::World>::try_spawn_batch(self, bundles)
            }

            #[allow(clippy::type_complexity)]
            #[inline]
            pub fn try_extend<__B, __I>(
                &mut self,
                bundles: __I,
            ) -> $crate::__private::core::result::Result<
                usize,
                $crate::SpawnError<(
                    usize,
                    $crate::__private::core::iter::Chain<
                        $crate::__private::core::iter::Once<__B>,
                        <__I as $crate::__private::core::iter::IntoIterator>::IntoIter,
                    >,
                )>,
            >
            where
                __B: $crate::Bundle<Self>,
                __I: $crate::__private::core::iter::IntoIterator<Item = __B>,
            {
                <Self as $crate::World>::try_extend(self, bundles)
            }

            #[inline]
            pub fn query_mut<'w, __Q>(
                &'w mut self,
            ) -> $crate::Join<'w, <__Q as $crate::QueryParts<'w, Self>>::Fetch>
            where
                __Q: $crate::QueryMut<'w, Self>,
            {
                // The checks left to the build (an `Or`'s components, one
                // required term), here so that their errors name the caller.
                let () = <__Q as $crate::QueryParts<'w, Self>>::EACH_COMPONENT_ONCE;
                let () = <__Q as $crate::QueryParts<'w, Self>>::ONE_REQUIRED;
                <Self as $crate::World>::query_mut::<__Q>(self)
            }

            /// Sends `event` to the world's `Events` of its type (declared in
            /// `events { … }`): every reader reads it once.
            #[inline]
            pub fn send<__E>(&mut self, event: __E)
            where
                __E: $crate::__private::EventIn<Self>,
            {
                event.send_to(self);
            }

            #[inline]
            pub fn get_many<'w, __Q>(
                &'w mut self,
                entity: $crate::Entity,
            ) -> $crate::__private::core::option::Option<$crate::QueryItem<'w, Self, __Q>>
            where
                __Q: $crate::QueryMut<'w, Self>,
            {
                // The checks left to the build (an `Or`'s components, one
                // required term), here so that their errors name the caller.
                let () = <__Q as $crate::QueryParts<'w, Self>>::EACH_COMPONENT_ONCE;
                let () = <__Q as $crate::QueryParts<'w, Self>>::ONE_REQUIRED;
                <Self as $crate::World>::get_many::<__Q>(self, entity)
            }
        }
    };
}

/// The owning groups: the grouped components' indices, checked to be
/// distinct, and the visitors over the groups. Not public API.
#[doc(hidden)] // Called by `__world_declare!` only.
#[macro_export]
macro_rules! __world_groups {
    ($name:ident $( group ( $($group:ty),+ ) ; )*) => {
        /// The `INDEX` of every grouped component, group after group.
        const __GROUPED: &[usize] = &[$($(<$group as $crate::__private::Column<$name>>::FIELD,)+)*];

        // Each component belongs to at most one owning group.
        const _: () = $crate::__private::core::assert!(
            $crate::__private::all_distinct(__GROUPED),
            "{}",
            $crate::__private::core::concat!(
                "a component of `", $crate::__private::core::stringify!($name),
                "` is listed in two owning groups, or twice in one: each component may belong to at most one group"
            ),
        );

        #[inline]
        fn __each_group<__V: $crate::__private::EachGroup<$name>>(world: &mut $name, visitor: &mut __V) {
            $(visitor.visit::<($($group,)+)>(world);)*
            let _ = (world, visitor);
        }

        #[inline]
        fn __each_group_ref<__V: $crate::__private::EachGroupRef<$name>>(world: &$name, visitor: &mut __V) {
            $(visitor.visit::<($($group,)+)>(world);)*
            let _ = (world, visitor);
        }
    };
}

/// One `Column` impl per component: where the world keeps it (the public
/// `Component` and `Contains` follow from it). Not public API.
#[doc(hidden)] // Called by `__world_declare!` only.
#[macro_export]
macro_rules! __world_components {
    ($name:ident { $($field:ident : $ty:ty),+ } tracked [$($tracked:ty,)*]) => {
        /// The `tracked (…)` list as written, for each component's `Track`.
        const __TRACKED: &[&str] = &[$($crate::__private::core::stringify!($tracked)),*];

        // Every tracked type is one of the components, as written.
        const _: () = {
            const __COMPONENTS: &[&str] = &[$($crate::__private::core::stringify!($ty)),+];
            let mut i = 0;
            while i < __TRACKED.len() {
                if !$crate::__private::is_listed(__COMPONENTS, __TRACKED[i]) {
                    $crate::__private::core::panic!(
                        "a type in `tracked (…)` is not one of the world's components, as written there: list each tracked component exactly as in the component list"
                    );
                }
                i += 1;
            }
        };

        // Each component's `Id` has room for its index.
        const _: () = $crate::__private::core::assert!(
            __FIELDS.len() <= 1 << $crate::__private::ID_DIGITS,
            "a world has at most 4096 components"
        );

        $(
            impl $crate::__private::TrackedColumn<$name> for $tracked {}
        )*

        $(
            impl $crate::__private::Column<$name> for $ty {
                const FIELD: usize =
                    $crate::__private::field_index(__FIELDS, $crate::__private::core::stringify!($field));

                type Track = $crate::__private::TrackKind<
                    { $crate::__private::is_listed(__TRACKED, $crate::__private::core::stringify!($ty)) },
                >;

                type Id = $crate::__index_id!(<$ty as $crate::__private::Column<$name>>::FIELD);

                #[inline]
                fn field(world: &$name, _: $crate::__private::Token) -> &$crate::__private::StorageIn<$name, $ty> {
                    &world.$field
                }
                #[inline]
                fn field_mut(world: &mut $name, _: $crate::__private::Token) -> &mut $crate::__private::StorageIn<$name, $ty> {
                    &mut world.$field
                }
                #[inline]
                fn take<'a>(parts: &mut __Parts<'a>, _: $crate::__private::Token) -> &'a mut $crate::__private::StorageIn<$name, $ty>
                where
                    $name: 'a,
                {
                    $crate::__private::take_part(&mut parts.$field)
                }
                #[inline]
                fn slot<'a, 'b>(
                    borrows: &'b mut __Borrows<'a>,
                    _: $crate::__private::Token,
                ) -> &'b mut $crate::__private::Slot<'a, $crate::__private::StorageIn<$name, $ty>>
                where
                    $name: 'a, // early-bound, as in the trait
                {
                    &mut borrows.$field
                }
                #[inline]
                fn queue(queues: &mut __Queues, _: $crate::__private::Token) -> &mut $crate::__private::Queue<$ty> {
                    &mut queues.$field
                }
                #[inline]
                fn queue_ref(queues: &__Queues, _: $crate::__private::Token) -> &$crate::__private::Queue<$ty> {
                    &queues.$field
                }
                #[inline]
                fn split(world: &mut $name, _: $crate::__private::Token) -> (&$crate::EntityAllocator, &mut $crate::__private::StorageIn<$name, $ty>) {
                    (&world.entities, &mut world.$field)
                }

                type OnRemove = $crate::__private::HookSel<
                    {
                        $crate::__private::line_of(
                            <$name as $crate::__private::HookLines>::LINES,
                            $crate::__private::HookKind::Remove,
                            $crate::__private::core::stringify!($ty),
                        )
                    },
                >;

                #[inline]
                fn pending_removed(world: &mut $name, _: $crate::__private::Token) -> &mut $crate::__private::Vec<($crate::Entity, $ty)> {
                    world.__hooks.reactions().$field.removed()
                }
            }

            impl $crate::__private::ReactionsIn<$name> for $ty {
                #[inline]
                fn reactions(world: &mut $name) -> &mut $crate::__private::Reactions<$ty> {
                    &mut world.__hooks.reactions().$field
                }
            }
        )+
    };
}

/// One pair of system-parameter impls per resource (`&R`, `&mut R`): a
/// resource type listed twice is a conflict of these impls. Not public API.
#[doc(hidden)] // Called by `__world_declare!` only.
#[macro_export]
macro_rules! __world_resources {
    ($name:ident { $($res:ident : $res_ty:ty),* }) => {
        $(
            impl $crate::ReadParam<$name> for $res_ty {
                const TARGET: $crate::__private::Target = $crate::__private::Target::Resource(
                    $crate::__private::field_index(__RESOURCES, $crate::__private::core::stringify!($res)),
                );
                type Claim = $crate::__private::Reads<
                    $res_ty,
                    $crate::__private::Res<$crate::__index_id!(
                        $crate::__private::field_index(__RESOURCES, $crate::__private::core::stringify!($res))
                    )>,
                >;
                #[inline]
                fn read<'a>(source: &mut $crate::__private::Source<'a, $name>) -> &'a $res_ty {
                    source.split().$res.shared()
                }
            }
            impl $crate::WriteParam<$name> for $res_ty {
                const TARGET: $crate::__private::core::option::Option<$crate::__private::Target> =
                    $crate::__private::core::option::Option::Some(<$res_ty as $crate::ReadParam<$name>>::TARGET);
                type Claim = $crate::__private::Writes<
                    $res_ty,
                    $crate::__private::Res<$crate::__index_id!(
                        $crate::__private::field_index(__RESOURCES, $crate::__private::core::stringify!($res))
                    )>,
                >;
                type State = ();
                #[inline]
                fn write<'a>(_: &'a mut (), source: &mut $crate::__private::Source<'a, $name>) -> &'a mut $res_ty {
                    source.split().$res.unique()
                }
            }
        )*
    };
}

/// A storage index as a type: the [`Id`](crate::__private::Id) whose digits
/// are those of `$index`, a `const` expression. Not public API.
#[doc(hidden)] // Called by `__world_declare!` and `__world_resources!` only.
#[macro_export]
macro_rules! __index_id {
    ($index:expr) => {
        $crate::__private::Id<
            { $crate::__private::digit($index, 0) },
            { $crate::__private::digit($index, 1) },
            { $crate::__private::digit($index, 2) },
            { $crate::__private::digit($index, 3) },
            { $crate::__private::digit($index, 4) },
            { $crate::__private::digit($index, 5) },
            { $crate::__private::digit($index, 6) },
            { $crate::__private::digit($index, 7) },
            { $crate::__private::digit($index, 8) },
            { $crate::__private::digit($index, 9) },
            { $crate::__private::digit($index, 10) },
            { $crate::__private::digit($index, 11) },
        >
    };
}
