//! The world under test: its components, the [`Tracked`] payload they hold,
//! and the per-thread drop ledger that records every such value made and
//! dropped.

use std::any::type_name;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};

use typed_ecs::prelude::*;

use super::ops::{Op, Target};

// ---------------------------------------------------------------------------
// The drop ledger
// ---------------------------------------------------------------------------

thread_local! {
    /// Ids of the [`Tracked`] values alive on this thread.
    pub(super) static LEDGER: RefCell<HashSet<u64>> = RefCell::new(HashSet::new());
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

/// A component payload whose creation and drop are recorded in the ledger.
/// Its `id` is unique; `value` is what operations read and write.
#[derive(Debug)]
pub struct Tracked {
    id: u64,
    pub(super) value: u64,
}

impl Tracked {
    pub fn new(value: u64) -> Self {
        let id = NEXT_ID.with(|next| {
            let id = next.get();
            next.set(id + 1);
            id
        });
        LEDGER.with(|ledger| ledger.borrow_mut().insert(id));
        Tracked { id, value }
    }
}

/// Saved as `[id, value]`. Loading makes the value again under its id,
/// which must not be alive: a load after the saved world was dropped
/// revives each value exactly once.
#[cfg(feature = "serde")]
impl serde::Serialize for Tracked {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.id, self.value).serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Tracked {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (id, value) = <(u64, u64)>::deserialize(deserializer)?;
        let fresh = LEDGER.with(|ledger| ledger.borrow_mut().insert(id));
        assert!(fresh, "a load revived value #{id}, which is still alive");
        Ok(Tracked { id, value })
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let known = LEDGER.with(|ledger| ledger.borrow_mut().remove(&self.id));
        assert!(
            known,
            "double drop of value #{} (or a drop of a value never made)",
            self.id
        );
    }
}

/// A saved world with each storage's entry lists sorted, so that two saves
/// of one world compare equal whatever the order of its dense arrays.
#[cfg(feature = "serde")]
pub(super) fn normalized(mut saved: serde_json::Value) -> serde_json::Value {
    for (field, value) in saved.as_object_mut().expect("a world saves as a map") {
        if field == "entities" {
            continue;
        }
        for list in ["values", "pending_adds", "pending_removes"] {
            let entries = value[list]
                .as_array_mut()
                .expect("a storage saves its lists");
            entries.sort_by_key(|entry| entry.to_string());
        }
    }
    saved
}

// ---------------------------------------------------------------------------
// The world under test
// ---------------------------------------------------------------------------

#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct A(pub Tracked);

#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct B(pub Tracked);

#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct C(pub Tracked);

/// The zero-sized component.
#[derive(Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Marker;

#[cfg(not(feature = "serde"))]
world! {
    /// The world the harness drives: three tracked values and a marker, with
    /// `A` and `B` in an owning group, so every operation also keeps a group
    /// packed (and queries over exactly `A` and `B` walk it densely).
    pub struct Sim<A, B, C, Marker>;
    group (A, B);
}

#[cfg(feature = "serde")]
world! {
    /// The world the harness drives (see above), saved and loaded by
    /// [`Op::SaveLoad`].
    #[derive(serde::Serialize, serde::Deserialize)]
    pub struct Sim<A, B, C, Marker>;
    group (A, B);
}

/// A component of [`Sim`], by declaration position (which is the order
/// `apply` processes storages in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum K {
    A,
    B,
    C,
    Marker,
}

impl K {
    pub const ALL: [K; 4] = [K::A, K::B, K::C, K::Marker];

    pub(super) fn from_byte(byte: u8) -> K {
        K::ALL[usize::from(byte) % 4]
    }

    /// The name an `ApplyReport` gives the component.
    pub(super) fn type_name(self) -> &'static str {
        match self {
            K::A => type_name::<A>(),
            K::B => type_name::<B>(),
            K::C => type_name::<C>(),
            K::Marker => type_name::<Marker>(),
        }
    }
}

/// What the model knows of one component value: its ledger id (0 for the
/// marker, which is not tracked) and its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Val {
    pub id: u64,
    pub value: u64,
}

impl Val {
    pub(super) const MARKER: Val = Val { id: 0, value: 0 };

    /// The value after a query wrote it (the marker has nothing to write).
    pub(super) fn bumped(self, input: u64, salt: usize) -> Val {
        if self.id == 0 {
            return self;
        }
        Val {
            id: self.id,
            value: mix(self.value, input, salt),
        }
    }
}

/// The payload of the `made`-th value made by `op` (see `Harness::fresh`).
/// The target is left out, so that pinning it changes nothing.
pub(super) fn fresh_value(mut op: Option<Op>, made: u64) -> u64 {
    if let Some(target) = op.as_mut().and_then(Op::target_mut) {
        *target = Target::Live(0);
    }
    let mut hasher = DefaultHasher::new();
    (op, made).hash(&mut hasher);
    hasher.finish() % 1_000_000
}

/// The write every query and `get_many` edit makes, in world and model alike.
pub(super) fn mix(old: u64, input: u64, salt: usize) -> u64 {
    old.wrapping_mul(31)
        .wrapping_add(input)
        .wrapping_add(salt as u64 + 1)
}

/// What the harness needs to know about each component type of [`Sim`].
pub trait Comp: Component<Sim> + fmt::Debug + 'static {
    const K: K;
    /// A new value (a new ledger entry, except for the marker).
    fn make(value: u64) -> Self;
    fn val(&self) -> Val;
    fn value_mut(&mut self) -> Option<&mut u64>;
}

macro_rules! tracked_components {
    ($($t:ident),*) => {$(
        impl Comp for $t {
            const K: K = K::$t;
            fn make(value: u64) -> Self {
                $t(Tracked::new(value))
            }
            fn val(&self) -> Val {
                Val { id: self.0.id, value: self.0.value }
            }
            fn value_mut(&mut self) -> Option<&mut u64> {
                Some(&mut self.0.value)
            }
        }
    )*};
}

tracked_components!(A, B, C);

impl Comp for Marker {
    const K: K = K::Marker;
    fn make(_: u64) -> Self {
        Marker
    }
    fn val(&self) -> Val {
        Val::MARKER
    }
    fn value_mut(&mut self) -> Option<&mut u64> {
        None
    }
}

/// Runs `$body` with the type alias `$t` naming the component `$k`.
macro_rules! for_comp {
    ($k:expr, $t:ident => $body:expr) => {
        for_comp!(@arms $k, $t, $body; A B C Marker)
    };
    (@arms $k:expr, $t:ident, $body:expr; $($component:ident)*) => {
        match $k {
            $(K::$component => {
                type $t = $component;
                $body
            })*
        }
    };
}

pub(super) use for_comp;

/// The values in a bundle, to check a `SpawnError` hands them all back.
pub trait Made {
    fn made(&self, out: &mut Vec<(K, Val)>);
}

macro_rules! made_tuples {
    ($(($($t:ident),*))*) => {$(
        impl<$($t: Comp),*> Made for ($($t,)*) {
            #[allow(non_snake_case, unused_variables)]
            fn made(&self, out: &mut Vec<(K, Val)>) {
                let ($($t,)*) = self;
                $(out.push(($t::K, $t.val()));)*
            }
        }
    )*};
}

made_tuples!(()(T0)(T0, T1)(T0, T1, T2)(T0, T1, T2, T3));

/// Builds the bundle numbered `$set` (bit `k` set: component `k` is in it),
/// in declaration order or, if `$reversed`, another order, binds it to `$b`
/// and runs `$call`. With `pair` first, binds an array of two such bundles.
macro_rules! with_bundle {
    ($h:ident, $set:expr, $reversed:expr, |$b:ident| $call:expr) => {
        with_bundle!(@table single, $h, $set, $reversed, $b, $call)
    };
    (pair $h:ident, $set:expr, $reversed:expr, |$b:ident| $call:expr) => {
        with_bundle!(@table pair, $h, $set, $reversed, $b, $call)
    };
    (@table $how:ident, $h:ident, $set:expr, $reversed:expr, $b:ident, $call:expr) => {
        with_bundle!(@arms $how, $h, ($set & 15, $reversed), $b, $call;
            0 => [] [];
            1 => [A] [A];
            2 => [B] [B];
            3 => [A B] [B A];
            4 => [C] [C];
            5 => [A C] [C A];
            6 => [B C] [C B];
            7 => [A B C] [C A B];
            8 => [Marker] [Marker];
            9 => [A Marker] [Marker A];
            10 => [B Marker] [Marker B];
            11 => [A B Marker] [Marker B A];
            12 => [C Marker] [Marker C];
            13 => [A C Marker] [C Marker A];
            14 => [B C Marker] [Marker C B];
            15 => [A B C Marker] [Marker C B A];
        )
    };
    (@arms $how:ident, $h:ident, $sel:expr, $b:ident, $call:expr;
        $($bits:literal => [$($x:ident)*] [$($y:ident)*];)*) => {
        match $sel {
            $(
                ($bits, false) => {
                    let $b = with_bundle!(@make $how $h $($x)*);
                    $call
                }
                ($bits, true) => {
                    let $b = with_bundle!(@make $how $h $($y)*);
                    $call
                }
            )*
            _ => unreachable!("a bundle set has four bits"),
        }
    };
    (@make single $h:ident $($x:ident)*) => {
        ($($x::make($h.fresh()),)*)
    };
    (@make pair $h:ident $($x:ident)*) => {
        [($($x::make($h.fresh()),)*), ($($x::make($h.fresh()),)*)]
    };
}

pub(super) use with_bundle;
