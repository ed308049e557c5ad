//! Sets of storage indices, decided at compile time: every check that one
//! component appears at most once (in a bundle, a query, a group line, a
//! system's parameters) is one of these functions in a `const` context, and
//! every message such a check prints is here too.

/// The position of `field` in `fields`: a component's `INDEX`, for the
/// macro. `field` is always present.
pub const fn field_index(fields: &[&str], field: &str) -> usize {
    let mut i = 0;
    while i < fields.len() {
        if str_eq(fields[i], field) {
            return i;
        }
        i += 1;
    }
    panic!("world!: a field is missing from its own field list")
}

/// `true` if `name` is in `list`, ignoring whitespace (both come from
/// `stringify!` of types, whose spacing may differ).
pub const fn is_listed(list: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < list.len() {
        if same_tokens(list[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

/// `a == b` once ASCII whitespace is taken out of both.
pub(crate) const fn same_tokens(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    loop {
        while i < a.len() && a[i].is_ascii_whitespace() {
            i += 1;
        }
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        match (i < a.len(), j < b.len()) {
            (false, false) => return true,
            (true, true) if a[i] == b[j] => {
                i += 1;
                j += 1;
            }
            _ => return false,
        }
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Fails the build with `message` unless `field` is the name of exactly
/// one of `fields`: a plugin's component that the world, or another of its
/// plugins, declares too (`world!`'s check, which names the plugin).
pub const fn plugin_field_once(fields: &[&str], field: &str, message: &str) {
    let mut count = 0;
    let mut i = 0;
    while i < fields.len() {
        if str_eq(fields[i], field) {
            count += 1;
        }
        i += 1;
    }
    if count != 1 {
        panic!("{}", message);
    }
}

/// `true` when `indices` holds `index`.
pub(crate) const fn contains(indices: &[usize], index: usize) -> bool {
    let mut i = 0;
    while i < indices.len() {
        if indices[i] == index {
            return true;
        }
        i += 1;
    }
    false
}

/// `true` when no two of `indices` are equal.
pub const fn all_distinct(indices: &[usize]) -> bool {
    let mut i = 0;
    while i < indices.len() {
        let mut j = i + 1;
        while j < indices.len() {
            if indices[i] == indices[j] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// A short list of storage indices, built at compile time: what one
/// element of a mutable query names (one component, or an `Or`'s several).
#[derive(Clone, Copy, Debug)]
pub struct Indices {
    list: [usize; Indices::CAPACITY],
    len: usize,
}

impl Indices {
    /// The most indices one query element may name.
    pub const CAPACITY: usize = 16;

    /// No index.
    pub const EMPTY: Indices = Indices {
        list: [0; Indices::CAPACITY],
        len: 0,
    };

    /// One index.
    pub const fn one(index: usize) -> Self {
        Self::EMPTY.with(index)
    }

    /// These and `more`; fails the build past [`CAPACITY`](Self::CAPACITY).
    pub const fn and(self, more: Indices) -> Self {
        let mut out = self;
        let mut i = 0;
        while i < more.len {
            out = out.with(more.list[i]);
            i += 1;
        }
        out
    }

    const fn with(mut self, index: usize) -> Self {
        assert!(
            self.len < Self::CAPACITY,
            "an `Or` in a query names more than 16 components: split it"
        );
        self.list[self.len] = index;
        self.len += 1;
        self
    }

    /// The indices, in order.
    pub const fn as_slice(&self) -> &[usize] {
        self.list.split_at(self.len).0
    }
}

/// `true` when no two elements of `lists`, taken together, are equal: the
/// storage indices of a query's elements, some of which name several.
pub(crate) const fn all_distinct_lists(lists: &[&[usize]]) -> bool {
    let mut i = 0;
    while i < lists.len() {
        if !all_distinct(lists[i]) {
            return false;
        }
        let mut j = i + 1;
        while j < lists.len() {
            if overlaps(lists[i], lists[j]) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// `true` if every element of `b` is in `a`.
pub(crate) const fn covers(a: &[usize], b: &[usize]) -> bool {
    let mut i = 0;
    while i < b.len() {
        if !contains(a, b[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// `true` if `a` and `b` share an element.
pub(crate) const fn overlaps(a: &[usize], b: &[usize]) -> bool {
    let mut i = 0;
    while i < a.len() {
        if contains(b, a[i]) {
            return true;
        }
        i += 1;
    }
    false
}

/// A bundle names one component twice.
pub(crate) const DUPLICATE_IN_BUNDLE: &str =
    "a bundle holds the same component type twice: give each type once";

/// A mutable query names one component twice.
pub(crate) const DUPLICATE_IN_QUERY: &str =
    "a mutable query names the same component twice: each component may appear once \
     (use `&mut C` alone to both read and write it)";

/// A query has no component every result must have.
pub(crate) const NEEDS_REQUIRED: &str =
    "a query needs at least one component every result has (`&C`, `&mut C` or `With<C>`); \
     with only `Option` and `Without` it would visit every entity: iterate \
     `world.entities()` instead";

#[cfg(test)]
mod tests {
    use super::*;

    /// One table of cases per function.
    #[test]
    fn index_sets() {
        for (indices, distinct) in [
            (&[][..], true),
            (&[3], true),
            (&[0, 1, 2, 7], true),
            (&[0, 1, 0], false),
            (&[4, 4], false),
        ] {
            assert_eq!(all_distinct(indices), distinct, "{indices:?}");
        }
        for (a, b, covered, shared) in [
            (&[0, 1, 2][..], &[2, 0][..], true, true),
            (&[0, 1], &[1, 3], false, true),
            (&[0, 1], &[], true, false),
            (&[], &[5], false, false),
            (&[7], &[8, 9], false, false),
        ] {
            assert_eq!(covers(a, b), covered, "{a:?} covers {b:?}");
            assert_eq!(overlaps(a, b), shared, "{a:?} overlaps {b:?}");
        }
        assert!(all_distinct_lists(&[&[0, 1], &[2], &[]]));
        assert!(!all_distinct_lists(&[&[0, 1], &[2, 1]]));
        assert!(!all_distinct_lists(&[&[3, 3]]));
        assert_eq!(field_index(&["pos", "vel", "name"], "vel"), 1);
        assert!(contains(&[1, 5], 5) && !contains(&[1, 5], 4));
    }
}

// ----- the same checks as trait bounds, so that `cargo check` sees them -----
//
// A `const` check fails only when the program is built, and its error
// points into this crate. A trait bound fails in `cargo check` and
// rust-analyzer, at the caller's line. So each component of a world also
// has its storage index as a type, an [`Id`], and [`Differ`] holds exactly
// for two different `Id`s: a tuple that names each component once meets
// one `Differ` bound per pair of its elements.

/// How many binary digits an [`Id`] has: a world has at most
/// `1 << ID_DIGITS` components (`world!` checks).
pub const ID_DIGITS: usize = 12;

/// A storage index as a type: its binary digits, lowest first (`Id<1, 0,
/// …>` is index 1). `2` is what `Differ` shifts in behind the digits it
/// has compared, so two equal `Id`s end as all `2`s, where no impl is.
#[derive(Debug)]
pub struct Id<
    const D0: u8,
    const D1: u8,
    const D2: u8,
    const D3: u8,
    const D4: u8,
    const D5: u8,
    const D6: u8,
    const D7: u8,
    const D8: u8,
    const D9: u8,
    const D10: u8,
    const D11: u8,
>;

/// The `Id` of a query element that names several components (an `Or`):
/// it differs from every `Id`, and the `const` check covers it.
#[derive(Debug)]
pub struct Several;

/// Digit `k` of `index`, for `world!` to spell a component's [`Id`].
pub const fn digit(index: usize, k: usize) -> u8 {
    ((index >> k) & 1) as u8
}

/// `A` and `B` are different [`Id`]s, for `Self` (the component whose `Id`
/// is `A`) in the world `W`. When it fails, `Self` is a component named
/// twice, and the message says so at the caller's line.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is named twice in one query or bundle of `{W}`",
    label = "`{Self}` appears twice here",
    note = "each component may appear once in a query or a bundle; \
            in a query, `&mut {Self}` alone both reads and writes it"
)]
pub trait Differ<W, A, B> {}

/// The four impls that make `$tr<ctx…, A, B>` hold for `Self` exactly
/// when the [`Id`]s `A` and `B` differ: a digit that differs ends the
/// comparison, an equal one shifts both `Id`s right (a `2` coming in), so
/// two equal `Id`s end as all `2`s, where no impl is. Used by [`Differ`]
/// and by the stage checks of `system/claims.rs`, whose messages differ.
macro_rules! impl_ids_apart {
    ($tr:ident<$($cx:ident),*>; $($x:ident $y:ident),+) => {
        impl<T, $($cx,)* $(const $x: u8, const $y: u8),+> $tr<$($cx,)* $crate::indices::Id<0, $($x),+>, $crate::indices::Id<1, $($y),+>> for T {}
        impl<T, $($cx,)* $(const $x: u8, const $y: u8),+> $tr<$($cx,)* $crate::indices::Id<1, $($x),+>, $crate::indices::Id<0, $($y),+>> for T {}
        impl<T, $($cx,)* $(const $x: u8, const $y: u8),+> $tr<$($cx,)* $crate::indices::Id<0, $($x),+>, $crate::indices::Id<0, $($y),+>> for T
        where
            T: $tr<$($cx,)* $crate::indices::Id<$($x,)+ 2>, $crate::indices::Id<$($y,)+ 2>>,
        {
        }
        impl<T, $($cx,)* $(const $x: u8, const $y: u8),+> $tr<$($cx,)* $crate::indices::Id<1, $($x),+>, $crate::indices::Id<1, $($y),+>> for T
        where
            T: $tr<$($cx,)* $crate::indices::Id<$($x,)+ 2>, $crate::indices::Id<$($y,)+ 2>>,
        {
        }
    };
    ($tr:ident<$($cx:ident),*>) => {
        $crate::indices::impl_ids_apart!($tr<$($cx),*>; X1 Y1, X2 Y2, X3 Y3, X4 Y4, X5 Y5, X6 Y6, X7 Y7, X8 Y8, X9 Y9, X10 Y10, X11 Y11);
    };
}
pub(crate) use impl_ids_apart;

impl_ids_apart!(Differ<W>);

impl<C, W, B> Differ<W, Several, B> for C {}
impl<
        C,
        W,
        const X0: u8,
        const X1: u8,
        const X2: u8,
        const X3: u8,
        const X4: u8,
        const X5: u8,
        const X6: u8,
        const X7: u8,
        const X8: u8,
        const X9: u8,
        const X10: u8,
        const X11: u8,
    > Differ<W, Id<X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11>, Several> for C
{
}

/// Implements a marker trait for tuples whose elements are pairwise
/// [`Differ`], with the bounds `$init` besides: `$id!(T)` is the element
/// `T`'s `Id`, and `$of!(T)` the component a failure names.
macro_rules! impl_pairwise {
    ($tr:ident<$w:ident> where [$($init:tt)*] $id:ident $of:ident; $($t:ident),*) => {
        $crate::indices::impl_pairwise!(@pairs $tr<$w> $id $of [$($t),*] [$($init)*] $($t),*);
    };
    (@pairs $tr:ident<$w:ident> $id:ident $of:ident [$($all:ident),*] [$($bounds:tt)*]) => {
        impl<$w, $($all),*> $tr<$w> for ($($all,)*) where $($bounds)* {}
    };
    (@pairs $tr:ident<$w:ident> $id:ident $of:ident [$($all:ident),*] [$($bounds:tt)*]
        $head:ident $(, $tail:ident)*) => {
        $crate::indices::impl_pairwise!(@pairs $tr<$w> $id $of [$($all),*]
            [$($bounds)* $($of!($head): $crate::indices::Differ<$w, $id!($head), $id!($tail)>,)*]
            $($tail),*);
    };
}
pub(crate) use impl_pairwise;
