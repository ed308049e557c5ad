//! The serde impls of a world that derives `Serialize` or `Deserialize`
//! (feature `serde`): saving goes through the world's view of each storage,
//! loading checks the world's invariants (see `src/serde_impls.rs`).

/// Emits the serde impls a world's `derive(..)` asked for. Not public API.
#[doc(hidden)] // Called by `__world_declare!` only.
#[macro_export]
macro_rules! __world_serde {
    ([] $name:ident $fields:tt resources $res:tt skipped $skip:tt) => {};
    ([ser($($path:tt)+) $($rest:tt)*] $name:ident $fields:tt resources $res:tt skipped $skip:tt) => {
        $crate::__world_serialize! { [$($path)+] $name $fields resources $res skipped $skip }
        $crate::__world_serde! { [$($rest)*] $name $fields resources $res skipped $skip }
    };
    ([de($($path:tt)+) $($rest:tt)*] $name:ident $fields:tt resources $res:tt skipped $skip:tt) => {
        $crate::__world_deserialize! { [$($path)+] $name $fields resources $res skipped $skip }
        $crate::__world_serde! { [$($rest)*] $name $fields resources $res skipped $skip }
    };
}

/// `Serialize` for a world: the allocator, then every storage, then the
/// resources not marked `#[serde(skip)]`. Not public API.
#[cfg(feature = "serde")]
#[doc(hidden)] // Called by `__world_serde!` only.
#[macro_export]
macro_rules! __world_serialize {
    ([$($path:tt)+] $name:ident { $($field:ident: $ty:ty),+ } resources { $($res:ident : $res_ty:ty),* }
        skipped { $($skipped:ident : $skipped_ty:ty),* }) => {
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
                    .serialize_struct(
                        $crate::__private::core::stringify!($name),
                        1 + __FIELDS.len() + <[&str]>::len(&[$($crate::__private::core::stringify!($res)),*]),
                    )?;
                state.serialize_field("entities", &$crate::__private::saved_entities(self))?;
                $(state.serialize_field(
                    $crate::__private::core::stringify!($field),
                    &$crate::__private::live_storage::<Self, $ty>(self),
                )?;)+
                $(state.serialize_field($crate::__private::core::stringify!($res), &self.$res)?;)*
                state.end()
            }
        }
    };
}

/// `Deserialize` for a world, which checks that the storages agree with the
/// allocator. Not public API.
#[cfg(feature = "serde")]
#[doc(hidden)] // Called by `__world_serde!` only.
#[macro_export]
macro_rules! __world_deserialize {
    ([$($path:tt)+] $name:ident { $($field:ident: $ty:ty),+ } resources { $($res:ident : $res_ty:ty),* }
        skipped { $($skipped:ident : $skipped_ty:ty),* }) => {
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
            entities: $crate::__private::core::option::Option<$crate::__private::LoadedEntities>,
            $($field: $crate::__private::core::option::Option<$crate::__private::LoadedColumn<$name, $ty>>,)+
            $($res: $crate::__private::core::option::Option<$res_ty>,)*
        }

        impl $crate::__private::core::default::Default for __Partial {
            fn default() -> Self {
                Self {
                    entities: $crate::__private::core::option::Option::None,
                    $($field: $crate::__private::core::option::Option::None,)+
                    $($res: $crate::__private::core::option::Option::None,)*
                }
            }
        }

        impl $crate::__private::WorldFields for $name {
            const SAVED_FIELDS: &'static [&'static str] =
                &["entities", $($crate::__private::core::stringify!($field),)+ $($crate::__private::core::stringify!($res),)*];
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
                    $($crate::__private::core::stringify!($res) => $crate::__private::read_once(
                        &mut partial.$res,
                        $crate::__private::core::stringify!($res),
                        map,
                    ),)*
                    // Saved before it was marked `#[serde(skip)]`: not read.
                    $($crate::__private::core::stringify!($skipped) => map
                        .next_value::<$crate::__private::serde::de::IgnoredAny>()
                        .map(|_| ()),)*
                    other => $crate::__private::core::result::Result::Err(
                        $crate::__private::serde::de::Error::unknown_field(other, Self::SAVED_FIELDS),
                    ),
                }
            }

            fn read_fields<'de, __A: $crate::__private::serde::de::SeqAccess<'de>>(
                seq: &mut __A,
            ) -> $crate::__private::core::result::Result<__Partial, __A::Error> {
                let mut position = 0;
                let entities = $crate::__private::read_next(seq, position, <Self as $crate::__private::Storages>::WORLD)?;
                $(
                    position += 1;
                    let $field = $crate::__private::read_next(seq, position, <Self as $crate::__private::Storages>::WORLD)?;
                )+
                $(
                    position += 1;
                    let $res = $crate::__private::read_next(seq, position, <Self as $crate::__private::Storages>::WORLD)?;
                )*
                let _ = position;
                $crate::__private::core::result::Result::Ok(__Partial { entities, $($field,)+ $($res,)* })
            }

            fn finish(partial: __Partial) -> $crate::__private::core::result::Result<Self, $crate::__private::String> {
                let (entities, despawns) = $crate::__private::required(
                    partial.entities,
                    "entities",
                    <Self as $crate::__private::Storages>::WORLD,
                )?
                .into_parts();
                $(
                    let mut $field = $crate::__private::required(
                        partial.$field,
                        $crate::__private::core::stringify!($field),
                        <Self as $crate::__private::Storages>::WORLD,
                    )?;
                )+
                // The allocator goes in last: the storages are stamped with
                // it first. A resource missing from a map-form save (one
                // written before the resource was declared) starts from its
                // default.
                let mut world = Self {
                    $($field: $crate::__private::loaded_storage(&entities, $field.take_storage()),)+
                    $($res: partial.$res.unwrap_or_default(),)*
                    $($skipped: $crate::__private::core::default::Default::default(),)*
                    __queued: $crate::__private::new_deferred(&entities),
                    __hooks: $crate::__private::core::default::Default::default(),
                    entities,
                };
                // The world's queued changes, saved with each storage.
                $($crate::__private::load_queued::<Self, $ty>(&mut world, $field)?;)+
                $crate::__private::load_despawns(&mut world, despawns);
                $crate::__private::finish_world(world)
            }
        }
    };
}

/// Without the `serde` feature, deriving serde traits on a world says how to
/// turn it on.
#[cfg(not(feature = "serde"))]
#[doc(hidden)] // Called by `__world_serde!` only.
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
#[doc(hidden)] // Called by `__world_serde!` only.
#[macro_export]
macro_rules! __world_deserialize {
    ($($input:tt)*) => {
        $crate::__private::core::compile_error! {
            "deriving `Deserialize` on a world needs the `serde` feature of typed_ecs: \
typed_ecs = { version = \"0.1\", features = [\"serde\"] }"
        }
    };
}
