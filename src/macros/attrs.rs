//! Sorting a world's attributes: `derive(Serialize, Deserialize)` becomes the
//! world's own serde impls; everything else is kept exactly as written.

/// Sorts a world's attributes: keeps them all, except that `Serialize` and
/// `Deserialize` are taken out of `derive(..)` lists (the world's serde
/// impls are generated, so they can check the whole world). Not public API.
#[doc(hidden)] // Called by `world!` only.
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
#[doc(hidden)] // Called by `__world_attrs!` only.
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
