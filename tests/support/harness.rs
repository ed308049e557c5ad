//! The model-based test harness of `typed_ecs`: one world, a plain model of
//! what it must hold, and a checker that runs any sequence of operations on
//! both and compares them after every step.
//!
//! Three drivers share it, so the model is written once:
//!
//! * `tests/model.rs`: seeded runs of 20,000 operations that must reach every
//!   operation and every outcome ([`Coverage`]);
//! * `tests/proptest_model.rs`: random sequences that shrink to a minimal
//!   failing one;
//! * `tests/fuzz_driver.rs` and `fuzz/fuzz_targets/model.rs`: bytes read as
//!   operations ([`ops_from_bytes`]), for random and coverage-guided fuzzing.
//!
//! The world ([`Sim`]) has three components holding a [`Tracked`] payload and
//! one zero-sized [`Marker`]. [`Op`] covers the whole `World` API (immediate,
//! deferred, command buffers, queries, `get_many`, `clear`). After every step
//! the harness compares, for every handle ever issued, `is_alive` and every
//! component (value and identity); `entity_count`; the length of the command
//! buffer; and the drop ledger: the values alive must be exactly the ones the
//! model says are stored, queued, or in the buffer. Every
//! [`DEEP_CHECK_EVERY`] steps it also runs `assert_invariants` and compares
//! each storage's dense arrays and `entities()` with the model. At the end,
//! dropping the world and the buffer must drop every value once.
//!
//! Include it with `#[path = "support/harness.rs"] mod harness;` (from
//! `fuzz/fuzz_targets`, `#[path = "../../tests/support/harness.rs"]`). It
//! needs only std and `typed_ecs`. The drop ledger is per thread and
//! [`Harness::new`] resets it: run one harness at a time on a thread.

#![allow(dead_code)]

use std::any::type_name;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::panic::{self, AssertUnwindSafe};

use typed_ecs::commands::{CommandKind, RejectReason, Rejected};
use typed_ecs::prelude::*;
use typed_ecs::query::{join, Maybe};
use typed_ecs::{AddError, AddErrorKind, SpawnError};

/// Entity indices the world may use. Small, so that indices are recycled
/// often (stale handles abound) and spawns run out (`SpawnError`,
/// `RejectReason::OutOfIndices`).
pub const INDEX_LIMIT: usize = 32;

/// `assert_invariants` and the storage-by-storage checks run every this many
/// steps (and at the end).
pub const DEEP_CHECK_EVERY: usize = 16;

/// Bytes per operation in [`ops_from_bytes`]: kind, target mode, target
/// index, component, extra.
pub const CODE_LEN: usize = 5;

// ---------------------------------------------------------------------------
// The drop ledger
// ---------------------------------------------------------------------------

thread_local! {
    /// Ids of the [`Tracked`] values alive on this thread.
    static LEDGER: RefCell<HashSet<u64>> = RefCell::new(HashSet::new());
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

/// A component payload whose creation and drop are recorded in the ledger.
/// Its `id` is unique; `value` is what operations read and write.
#[derive(Debug)]
pub struct Tracked {
    id: u64,
    value: u64,
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
fn normalized(mut saved: serde_json::Value) -> serde_json::Value {
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

/// Says how the ledger differs from `expected`, the ids the model holds.
fn ledger_differs(expected: &[u64]) -> Option<String> {
    LEDGER.with(|ledger| {
        let ledger = ledger.borrow();
        if ledger.len() == expected.len() && expected.iter().all(|id| ledger.contains(id)) {
            return None;
        }
        let expected: BTreeSet<u64> = expected.iter().copied().collect();
        let alive: BTreeSet<u64> = ledger.iter().copied().collect();
        let leaked: Vec<_> = alive.difference(&expected).collect();
        let dropped: Vec<_> = expected.difference(&alive).collect();
        Some(format!(
            "values alive but not held by the model (leaked): {leaked:?}; \
             values held by the model but dropped: {dropped:?}"
        ))
    })
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

    fn from_byte(byte: u8) -> K {
        K::ALL[usize::from(byte) % 4]
    }

    /// The name an `ApplyReport` gives the component.
    fn type_name(self) -> &'static str {
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
    const MARKER: Val = Val { id: 0, value: 0 };

    /// The value after a query wrote it (the marker has nothing to write).
    fn bumped(self, input: u64, salt: usize) -> Val {
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
fn fresh_value(mut op: Option<Op>, made: u64) -> u64 {
    if let Some(target) = op.as_mut().and_then(Op::target_mut) {
        *target = Target::Live(0);
    }
    let mut hasher = DefaultHasher::new();
    (op, made).hash(&mut hasher);
    hasher.finish() % 1_000_000
}

/// The write every query and `get_many` edit makes, in world and model alike.
fn mix(old: u64, input: u64, salt: usize) -> u64 {
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

// ---------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------

/// Which entity an operation acts on. Indices wrap around the list they
/// pick from; an empty list falls back as documented, and at last to a
/// handle that was never issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// An alive entity, `live[i % len]`; any issued handle if none is alive.
    Live(u16),
    /// Any handle ever issued, `issued[i % len]`: often a stale one.
    Issued(u16),
    /// The `i`-th most recently issued handle.
    Recent(u8),
    /// A handle made up from bits: index `i % 32`, generation `i / 32 + 1`
    /// (a handle issued already, or one of a generation not reached yet).
    Forged(u16),
    /// A reserved handle of the current command buffer; an old one if the
    /// buffer has none.
    Reserved(u8),
    /// A reserved handle of a buffer since applied or cleared.
    OldReserved(u8),
}

impl Target {
    fn from_code(mode: u8, index: u8) -> Target {
        let wide = u16::from(index) | u16::from(mode >> 4) << 8;
        match mode & 15 {
            0..=7 => Target::Live(wide),
            8..=10 => Target::Issued(wide),
            11 => Target::Recent(index % 4),
            12 => Target::Forged(wide),
            13 | 14 => Target::Reserved(index),
            _ => Target::OldReserved(index),
        }
    }
}

/// How [`Op::Edit`] reaches the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Via {
    /// `world.get_mut`
    Get,
    /// `world.storage_mut().get_mut`
    Storage,
    /// `world.value_at_mut(storage.index_of(e))`
    ValueAt,
    /// `storage.values_mut()[storage.index_of(e)]`
    Values,
    /// `storage.view_mut().into_mut(e)`
    View,
}

impl Via {
    fn from_byte(byte: u8) -> Via {
        match byte % 5 {
            0 => Via::Get,
            1 => Via::Storage,
            2 => Via::ValueAt,
            3 => Via::Values,
            _ => Via::View,
        }
    }
}

/// One operation on the world (and the command buffer the harness keeps
/// across operations). A panicking method whose call the model says would
/// panic is replaced by its fallible twin, so sequences never panic on
/// purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Spawn,
    TrySpawn,
    /// `spawn_with` (`try_spawn_with` if `fallible`) of the components in the
    /// bits of `set` (A, B, C, Marker), in declaration or another order; or,
    /// if `batch`, `spawn_batch` (`try_spawn_batch`) of two such bundles.
    SpawnWith {
        set: u8,
        reversed: bool,
        fallible: bool,
        batch: bool,
    },
    Despawn(Target),
    Add(Target, K),
    TryAdd(Target, K),
    Insert(Target, K),
    TryInsert(Target, K),
    /// `world.remove`, or `world.storage_mut().remove` when the flag is set.
    Remove(Target, K, bool),
    RemoveAll(Target),
    /// Writes the component through `get_mut` or another path.
    Edit(Target, K, Via),
    AddDeferred(Target, K),
    TryAddDeferred(Target, K),
    RemoveDeferred(Target, K),
    DespawnDeferred(Target),
    FinalizeUpdates,
    CmdAdd(Target, K),
    CmdRemove(Target, K),
    CmdDespawn(Target),
    CmdSpawn,
    CmdSpawnWith {
        set: u8,
        reversed: bool,
    },
    CmdApply,
    /// `Commands::clear`: drops what is queued; its reserved handles go stale.
    CmdClear,
    /// A read-only query, by its number in [`READ_SHAPES`].
    Query(u8),
    /// A mutable query or join that writes, by its number in [`MUT_SHAPES`].
    QueryMut(u8),
    /// A mutable query (a `for` loop or `for_each`) that queues commands
    /// for the entities it visits, as a system would.
    QueryCommands {
        for_loop: bool,
    },
    /// `get_many` or `Join::get` on one entity, by its number in
    /// [`GET_SHAPES`].
    GetMany(Target, u8),
    Clear,
    /// Saves the world (as postcard, or JSON), drops it, loads it back and
    /// checks the loaded world saves the same (feature `serde`; without it,
    /// does nothing).
    SaveLoad {
        postcard: bool,
    },
}

/// Number of operation kinds: `Op::from_parts` takes a kind below it.
pub const OP_KINDS: usize = 29;

/// How often each operation kind comes out of [`Op::from_code`], out of 256:
/// bytes make every kind reachable, most often the ones that build state.
const CODE_WEIGHTS: [u8; OP_KINDS] = [
    14, 8, 18, 10, 14, 8, 8, 6, 8, 4, 8, 14, 8, 10, 6, 10, 12, 8, 8, 8, 12, 12, 2, 10, 10, 6, 8, 2,
    4,
];

const _: () = {
    let mut sum = 0;
    let mut i = 0;
    while i < OP_KINDS {
        sum += CODE_WEIGHTS[i] as usize;
        i += 1;
    }
    assert!(sum == 256, "CODE_WEIGHTS must sum to 256");
};

impl Op {
    /// The operation `code` stands for: [`ops_from_bytes`] reads one per
    /// [`CODE_LEN`] bytes. Every code is a valid operation.
    pub fn from_code(code: [u8; CODE_LEN]) -> Op {
        let [kind, rest @ ..] = code;
        let mut kind = usize::from(kind);
        let mut index = 0;
        while kind >= usize::from(CODE_WEIGHTS[index]) {
            kind -= usize::from(CODE_WEIGHTS[index]);
            index += 1;
        }
        Op::from_parts(index, rest)
    }

    /// The operation of kind `kind` (below [`OP_KINDS`], in declaration
    /// order), its target, component and other arguments read from `rest`.
    pub fn from_parts(kind: usize, rest: [u8; CODE_LEN - 1]) -> Op {
        let [mode, index, component, extra] = rest;
        let t = Target::from_code(mode, index);
        let k = K::from_byte(component);
        let bit = |n: u32| extra >> n & 1 == 1;
        match kind % OP_KINDS {
            0 => Op::Spawn,
            1 => Op::TrySpawn,
            2 => Op::SpawnWith {
                set: extra & 15,
                reversed: bit(4),
                fallible: bit(5),
                batch: bit(6),
            },
            3 => Op::Despawn(t),
            4 => Op::Add(t, k),
            5 => Op::TryAdd(t, k),
            6 => Op::Insert(t, k),
            7 => Op::TryInsert(t, k),
            8 => Op::Remove(t, k, bit(0)),
            9 => Op::RemoveAll(t),
            10 => Op::Edit(t, k, Via::from_byte(extra)),
            11 => Op::AddDeferred(t, k),
            12 => Op::TryAddDeferred(t, k),
            13 => Op::RemoveDeferred(t, k),
            14 => Op::DespawnDeferred(t),
            15 => Op::FinalizeUpdates,
            16 => Op::CmdAdd(t, k),
            17 => Op::CmdRemove(t, k),
            18 => Op::CmdDespawn(t),
            19 => Op::CmdSpawn,
            20 => Op::CmdSpawnWith {
                set: extra & 15,
                reversed: bit(4),
            },
            21 => Op::CmdApply,
            22 => Op::CmdClear,
            23 => Op::Query(extra % READ_SHAPES.len() as u8),
            24 => Op::QueryMut(extra % MUT_SHAPES.len() as u8),
            25 => Op::QueryCommands { for_loop: bit(0) },
            26 => Op::GetMany(t, extra % GET_SHAPES.len() as u8),
            27 => Op::Clear,
            _ => Op::SaveLoad { postcard: bit(0) },
        }
    }

    /// The operation's name, which is also its coverage counter.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Spawn => "Spawn",
            Op::TrySpawn => "TrySpawn",
            Op::SpawnWith { .. } => "SpawnWith",
            Op::Despawn(..) => "Despawn",
            Op::Add(..) => "Add",
            Op::TryAdd(..) => "TryAdd",
            Op::Insert(..) => "Insert",
            Op::TryInsert(..) => "TryInsert",
            Op::Remove(..) => "Remove",
            Op::RemoveAll(..) => "RemoveAll",
            Op::Edit(..) => "Edit",
            Op::AddDeferred(..) => "AddDeferred",
            Op::TryAddDeferred(..) => "TryAddDeferred",
            Op::RemoveDeferred(..) => "RemoveDeferred",
            Op::DespawnDeferred(..) => "DespawnDeferred",
            Op::FinalizeUpdates => "FinalizeUpdates",
            Op::CmdAdd(..) => "CmdAdd",
            Op::CmdRemove(..) => "CmdRemove",
            Op::CmdDespawn(..) => "CmdDespawn",
            Op::CmdSpawn => "CmdSpawn",
            Op::CmdSpawnWith { .. } => "CmdSpawnWith",
            Op::CmdApply => "CmdApply",
            Op::CmdClear => "CmdClear",
            Op::Query(..) => "Query",
            Op::QueryMut(..) => "QueryMut",
            Op::QueryCommands { .. } => "QueryCommands",
            Op::GetMany(..) => "GetMany",
            Op::Clear => "Clear",
            Op::SaveLoad { .. } => "SaveLoad",
        }
    }

    /// The operation's target, if it has one.
    pub fn target_mut(&mut self) -> Option<&mut Target> {
        match self {
            Op::Despawn(t)
            | Op::Add(t, _)
            | Op::TryAdd(t, _)
            | Op::Insert(t, _)
            | Op::TryInsert(t, _)
            | Op::Remove(t, ..)
            | Op::RemoveAll(t)
            | Op::Edit(t, ..)
            | Op::AddDeferred(t, _)
            | Op::TryAddDeferred(t, _)
            | Op::RemoveDeferred(t, _)
            | Op::DespawnDeferred(t)
            | Op::CmdAdd(t, _)
            | Op::CmdRemove(t, _)
            | Op::CmdDespawn(t)
            | Op::GetMany(t, _) => Some(t),
            _ => None,
        }
    }

    /// The kind (for [`Op::from_parts`]) of the operation called `name`.
    pub fn kind_of(name: &str) -> Option<usize> {
        (0..OP_KINDS).find(|&kind| Op::from_parts(kind, [0; CODE_LEN - 1]).name() == name)
    }
}

/// Reads `data` as operations, [`CODE_LEN`] bytes each (a shorter tail is
/// ignored).
pub fn ops_from_bytes(data: &[u8]) -> Vec<Op> {
    data.chunks_exact(CODE_LEN)
        .map(|code| Op::from_code(code.try_into().expect("chunks of CODE_LEN bytes")))
        .collect()
}

/// Runs a harness over `ops` and finishes it; returns what was covered.
pub fn run_ops(ops: &[Op]) -> Coverage {
    let mut harness = Harness::new();
    for op in ops {
        harness.step(op);
    }
    let coverage = harness.coverage().clone();
    harness.finish();
    coverage
}

/// `ops` with each target pinned ([`Harness::pinned`]) to the handle it
/// picks when the sequence runs, up to the step that fails if one does (the
/// steps after it never ran and are left out). The result does what `ops`
/// does, but its targets stay on their entities when earlier operations are
/// dropped, which is what a minimizer needs.
pub fn pin_targets(ops: &[Op]) -> Vec<Op> {
    let mut pinned = Vec::with_capacity(ops.len());
    let _ = panic::catch_unwind(AssertUnwindSafe(|| {
        let mut harness = Harness::new();
        for &op in ops {
            let mut op = op;
            if let Some(target) = op.target_mut() {
                *target = harness.pinned(*target);
            }
            pinned.push(op);
            harness.step(&op);
        }
        harness.finish();
    }));
    pinned
}

/// Why `ops` fails (the panic message), or `None` if it passes.
pub fn failure(ops: &[Op]) -> Option<String> {
    let payload = panic::catch_unwind(AssertUnwindSafe(|| run_ops(ops))).err()?;
    let why = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|why| why.to_string()));
    Some(why.unwrap_or_else(|| "a panic".to_owned()))
}

/// Shrinks a failing sequence: drops runs of operations, then single ones,
/// while it still fails, until no single operation can go; returns it and
/// why it fails. Targets are pinned ([`pin_targets`]) before each pass, since
/// a target is an index into a list (alive entities, issued handles) that
/// shifts when an earlier operation goes. Silences the panic hook (which is
/// global) while it runs.
pub fn minimize(ops: &[Op]) -> (Vec<Op>, String) {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let mut ops = ops.to_vec();
    loop {
        ops = pin_targets(&ops);
        let before = ops.len();
        let mut run = ops.len().div_ceil(2).max(1);
        loop {
            // From the end, so the indices still to try do not move.
            let mut end = ops.len();
            while end > 0 {
                let start = end.saturating_sub(run);
                let mut fewer = ops.clone();
                fewer.drain(start..end);
                if failure(&fewer).is_some() {
                    ops = fewer;
                }
                end = start;
            }
            if run == 1 {
                break;
            }
            run /= 2;
        }
        if ops.len() == before {
            break;
        }
    }
    let why = failure(&ops);
    panic::set_hook(hook);
    (ops, why.unwrap_or_else(|| "it passes".to_owned()))
}

/// `ops`, one per line, as Rust source.
pub fn listing(ops: &[Op]) -> String {
    ops.iter().map(|op| format!("    {op:?},\n")).collect()
}

/// Runs a harness over the operations `data` encodes: the fuzz target.
pub fn run_bytes(data: &[u8]) {
    run_ops(&ops_from_bytes(data));
}

// ---------------------------------------------------------------------------
// Coverage
// ---------------------------------------------------------------------------

/// The outcome counters, besides one per operation (named by [`Op::name`]).
/// `err:` counts errors of fallible twins (and of the panicking methods the
/// harness redirected to them), `reject:` the rejections of `apply`.
pub const OUTCOMES: &[&str] = &[
    "spawned",
    "err:spawn:OutOfIndices",
    "despawn:alive",
    "despawn:dead",
    "add:ok",
    "err:add:DeadEntity",
    "err:add:AlreadyPresent",
    "insert:new",
    "insert:replaced",
    "err:insert:DeadEntity",
    "remove:some",
    "remove:none",
    "remove_all:alive",
    "remove_all:dead",
    "edit:hit",
    "edit:miss",
    "add_deferred:ok",
    "add_deferred:replacing",
    "err:add_deferred:DeadEntity",
    "err:add_deferred:AlreadyQueued",
    "err:add_deferred:AlreadyPresent",
    "remove_deferred:alive",
    "remove_deferred:dead",
    "despawn_deferred:alive",
    "despawn_deferred:dead",
    "finalize:replaced",
    "apply:spawned",
    "reject:Spawn:OutOfIndices",
    "reject:Add:DeadEntity",
    "reject:Add:AlreadyPresent",
    "reject:Remove:DeadEntity",
    "reject:Despawn:DeadEntity",
    "query:matched",
    "query_mut:matched",
    "query_commands:queued",
    "get_many:some",
    "get_many:none",
    "query:dense",
    "query_mut:dense",
    "group:rebuilding",
];

/// The outcomes of [`Op::SaveLoad`], counted with the `serde` feature only.
#[cfg(feature = "serde")]
const SAVE_LOAD_OUTCOMES: &[&str] = &["save_load:json", "save_load:postcard"];
#[cfg(not(feature = "serde"))]
const SAVE_LOAD_OUTCOMES: &[&str] = &[];

/// The read-only shapes of [`READ_SHAPES`] that are exactly the group
/// `(A, B)`, and the writing ones of [`MUT_SHAPES`].
const DENSE_READ_SHAPES: [usize; 3] = [1, 11, 12];
const DENSE_MUT_SHAPES: [usize; 3] = [10, 11, 12];

/// How many times each operation and outcome happened.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    counts: BTreeMap<String, u64>,
}

impl Coverage {
    /// Every counter, operations first.
    pub fn keys() -> Vec<&'static str> {
        let ops = (0..OP_KINDS).map(|kind| Op::from_parts(kind, [0; CODE_LEN - 1]).name());
        ops.chain(OUTCOMES.iter().copied())
            .chain(SAVE_LOAD_OUTCOMES.iter().copied())
            .collect()
    }

    fn hit(&mut self, key: &str) {
        match self.counts.get_mut(key) {
            Some(count) => *count += 1,
            None => {
                self.counts.insert(key.to_owned(), 1);
            }
        }
    }

    pub fn count(&self, key: &str) -> u64 {
        self.counts.get(key).copied().unwrap_or(0)
    }

    pub fn merge(&mut self, other: &Coverage) {
        for (key, count) in &other.counts {
            *self.counts.entry(key.clone()).or_default() += count;
        }
    }

    /// The counters below `min`, with their counts.
    ///
    /// # Panics
    ///
    /// If a counter was hit that [`Coverage::keys`] does not list.
    pub fn below(&self, min: u64) -> Vec<(&'static str, u64)> {
        let keys = Self::keys();
        let unknown: Vec<&String> = self
            .counts
            .keys()
            .filter(|key| !keys.contains(&key.as_str()))
            .collect();
        assert!(
            unknown.is_empty(),
            "unlisted coverage counters: {unknown:?}"
        );
        keys.into_iter()
            .map(|key| (key, self.count(key)))
            .filter(|&(_, count)| count < min)
            .collect()
    }

    /// Every counter and its count, one per line.
    pub fn summary(&self) -> String {
        Self::keys()
            .into_iter()
            .map(|key| format!("{key:>32} {}\n", self.count(key)))
            .collect()
    }
}

// ---------------------------------------------------------------------------
// Queries, as data for the model and as code for the world
// ---------------------------------------------------------------------------

/// One element of a query, for the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    Ref(K),
    Mut(K),
    Opt(K),
    OptMut(K),
    With(K),
    Without(K),
}

use Term::{Mut, Opt, OptMut, Ref};

/// What a query yields for one entity: per element, `Some(value)` for a
/// component reference, the `Option` for an optional one, `None` for a filter.
type Items = Vec<Option<Val>>;
type Seen = (Entity, Items);

/// The queries of [`Op::Query`], each written out in [`read_query`].
pub const READ_SHAPES: [&[Term]; 13] = [
    &[Ref(K::A)],
    &[Ref(K::A), Ref(K::B)],
    &[Ref(K::B), Opt(K::C), Term::Without(K::Marker)],
    &[Term::With(K::Marker), Ref(K::C)],
    &[Ref(K::A), Ref(K::B), Ref(K::C), Opt(K::Marker)],
    &[Term::Without(K::A), Ref(K::B)],
    &[Term::With(K::A), Term::With(K::B), Opt(K::C)],
    &[Ref(K::Marker)],
    &[Ref(K::C), Opt(K::A), Term::Without(K::B)],
    &[Ref(K::A), Opt(K::B)],
    &[Ref(K::C), Term::With(K::A)],
    // Exactly the group (A, B): a dense walk when the group is trusted.
    &[Ref(K::B), Term::With(K::A)],
    &[Ref(K::A), Ref(K::B), Ref(K::A)],
];

/// The writing queries of [`Op::QueryMut`], each written out in
/// [`mut_query`]. Each mutable element is rewritten with [`mix`] of the sum
/// of the read elements' values (1 for an absent optional one), salted with
/// its position. The last one only counts.
pub const MUT_SHAPES: [&[Term]; 15] = [
    &[Mut(K::A), Ref(K::B), Term::Without(K::C)],
    &[Mut(K::B), Opt(K::C), Term::With(K::A)],
    &[OptMut(K::A), Mut(K::C)],
    &[Mut(K::C), Opt(K::A), Term::Without(K::B)],
    &[Mut(K::A)],
    &[Mut(K::C)],
    &[Mut(K::B), Term::With(K::Marker), OptMut(K::C), Ref(K::A)],
    &[Mut(K::A), Ref(K::B), Opt(K::Marker)],
    &[Mut(K::B)],
    &[Mut(K::Marker), Ref(K::C)],
    // Exactly the group (A, B): dense walks (`for` loop, for_each, join).
    &[Mut(K::A), Ref(K::B)],
    &[Mut(K::B), Mut(K::A)],
    &[Term::With(K::B), Mut(K::A)],
    &[Mut(K::C)],
    &[Mut(K::A), Term::Without(K::B)],
];

/// The one-entity queries of [`Op::GetMany`], written out in [`get_many`].
pub const GET_SHAPES: [&[Term]; 6] = [
    &[Mut(K::A), Ref(K::B)],
    &[OptMut(K::C), Mut(K::B), Term::Without(K::Marker)],
    &[Mut(K::C)],
    &[Term::With(K::Marker), Ref(K::A)],
    &[Mut(K::B), Opt(K::A)],
    &[Mut(K::A), Mut(K::C)],
];

/// The queries that [`Op::QueryCommands`] runs (`for_each`, `for` loop).
const COMMAND_SHAPES: [&[Term]; 2] = [
    &[Mut(K::A), Opt(K::B)],
    &[Mut(K::A), Opt(K::B), Term::Without(K::C)],
];

fn v<T: Comp>(c: &T) -> Option<Val> {
    Some(c.val())
}

fn o<T: Comp>(c: Option<&T>) -> Option<Val> {
    c.map(T::val)
}

fn rd<T: Comp>(c: &T) -> u64 {
    c.val().value
}

fn opt<T: Comp>(c: Option<&T>) -> u64 {
    c.map_or(1, rd)
}

fn bump<T: Comp>(c: &mut T, input: u64, salt: usize) {
    if let Some(value) = c.value_mut() {
        *value = mix(*value, input, salt);
    }
}

/// The items of `row` for `terms`, or `None` if it does not match.
fn items(row: &Row, terms: &[Term]) -> Option<Items> {
    terms
        .iter()
        .map(|&term| match term {
            Ref(k) | Mut(k) => row.get(k).map(Some),
            Opt(k) | OptMut(k) => Some(row.get(k)),
            Term::With(k) => row.get(k).map(|_| None),
            Term::Without(k) => row.get(k).is_none().then_some(None),
        })
        .collect()
}

/// The model of a query's writes on one matching row.
fn edit(row: &mut Row, terms: &[Term]) {
    let input = terms.iter().fold(0u64, |sum, &term| {
        sum.wrapping_add(match term {
            Ref(k) => row.get(k).map_or(0, |val| val.value),
            Opt(k) => row.get(k).map_or(1, |val| val.value),
            _ => 0,
        })
    });
    for (salt, &term) in terms.iter().enumerate() {
        if let Mut(k) | OptMut(k) = term {
            if let Some(val) = row.slot(k) {
                *val = val.bumped(input, salt);
            }
        }
    }
}

/// Runs read-only query `shape` of [`READ_SHAPES`].
fn read_query(world: &mut Sim, shape: usize) -> Vec<Seen> {
    match shape {
        0 => world.query::<&A>().map(|(e, a)| (e, vec![v(a)])).collect(),
        1 => world
            .query::<(&A, &B)>()
            .map(|(e, (a, b))| (e, vec![v(a), v(b)]))
            .collect(),
        2 => world
            .query::<(&B, Option<&C>, Without<Marker>)>()
            .map(|(e, (b, c, ()))| (e, vec![v(b), o(c), None]))
            .collect(),
        3 => world
            .query::<(With<Marker>, &C)>()
            .map(|(e, ((), c))| (e, vec![None, v(c)]))
            .collect(),
        4 => world
            .query::<(&A, &B, &C, Option<&Marker>)>()
            .map(|(e, (a, b, c, m))| (e, vec![v(a), v(b), v(c), o(m)]))
            .collect(),
        5 => world
            .query::<(Without<A>, &B)>()
            .map(|(e, ((), b))| (e, vec![None, v(b)]))
            .collect(),
        6 => world
            .query::<(With<A>, With<B>, Option<&C>)>()
            .map(|(e, ((), (), c))| (e, vec![None, None, o(c)]))
            .collect(),
        7 => world
            .query::<&Marker>()
            .map(|(e, m)| (e, vec![v(m)]))
            .collect(),
        8 => world
            .query::<(&C, (Option<&A>, Without<B>))>()
            .map(|(e, (c, (a, ())))| (e, vec![v(c), o(a), None]))
            .collect(),
        // A read-only join iterates like a query.
        11 => join((&world.b, With(&world.a)))
            .into_iter()
            .map(|(e, (b, ()))| (e, vec![v(b), None]))
            .collect(),
        12 => world
            .query::<(&A, &B, &A)>()
            .map(|(e, (a, b, a2))| (e, vec![v(a), v(b), v(a2)]))
            .collect(),
        9 => world
            .query_mut::<(&A, Option<&B>)>()
            .into_iter()
            .map(|(e, (a, b))| (e, vec![v(a), o(b)]))
            .collect(),
        _ => join((&world.c, With(&world.a)))
            .into_iter()
            .map(|(e, (c, ()))| (e, vec![v(c), None]))
            .collect(),
    }
}

/// Runs writing query `shape` of [`MUT_SHAPES`] (but the last), recording
/// what each visited entity had before the write.
fn mut_query(world: &mut Sim, shape: usize, seen: &mut Vec<Seen>) {
    match shape {
        0 => world
            .query_mut::<(&mut A, &B, Without<C>)>()
            .for_each(|e, (a, b, ())| {
                seen.push((e, vec![v(a), v(b), None]));
                bump(a, rd(b), 0);
            }),
        1 => {
            for (e, (b, c, ())) in world.query_mut::<(&mut B, Option<&C>, With<A>)>() {
                seen.push((e, vec![v(b), o(c), None]));
                bump(b, opt(c), 0);
            }
        }
        2 => world
            .query_mut::<(Option<&mut A>, &mut C)>()
            .for_each(|e, (a, c)| {
                seen.push((e, vec![o(a.as_deref()), v(c)]));
                if let Some(a) = a {
                    bump(a, 0, 0);
                }
                bump(c, 0, 1);
            }),
        3 => join((&mut world.c, Maybe(&world.a), Without(&world.b))).for_each(|e, (c, a, ())| {
            seen.push((e, vec![v(c), o(a), None]));
            bump(c, opt(a), 0);
        }),
        4 => {
            for (e, a) in world.query_mut::<&mut A>() {
                seen.push((e, vec![v(a)]));
                bump(a, 0, 0);
            }
        }
        5 => {
            for (e, (c,)) in world.query_mut::<(&mut C,)>() {
                seen.push((e, vec![v(c)]));
                bump(c, 0, 0);
            }
        }
        6 => world
            .query_mut::<(&mut B, With<Marker>, Option<&mut C>, &A)>()
            .for_each(|e, (b, (), c, a)| {
                seen.push((e, vec![v(b), None, o(c.as_deref()), v(a)]));
                bump(b, rd(a), 0);
                if let Some(c) = c {
                    bump(c, rd(a), 2);
                }
            }),
        7 => {
            for (e, (a, b, m)) in join((&mut world.a, &world.b, Maybe(&world.marker))) {
                seen.push((e, vec![v(a), v(b), o(m)]));
                bump(a, rd(b).wrapping_add(opt(m)), 0);
            }
        }
        8 => {
            for (e, b) in join(&mut world.b) {
                seen.push((e, vec![v(b)]));
                bump(b, 0, 0);
            }
        }
        9 => world
            .query_mut::<(&mut Marker, &C)>()
            .for_each(|e, (m, c)| {
                seen.push((e, vec![v(m), v(c)]));
                bump(m, rd(c), 0);
            }),
        10 => {
            for (e, (a, b)) in world.query_mut::<(&mut A, &B)>() {
                seen.push((e, vec![v(a), v(b)]));
                bump(a, rd(b), 0);
            }
        }
        11 => world.query_mut::<(&mut B, &mut A)>().for_each(|e, (b, a)| {
            seen.push((e, vec![v(b), v(a)]));
            bump(b, 0, 0);
            bump(a, 0, 1);
        }),
        12 => join((With(&world.b), &mut world.a)).for_each(|e, ((), a)| {
            seen.push((e, vec![None, v(a)]));
            bump(a, 0, 1);
        }),
        // The storage's own iterator.
        _ => {
            for (e, c) in world.storage_mut::<C>().iter_mut() {
                seen.push((e, vec![v(c)]));
                bump(c, 0, 0);
            }
        }
    }
}

/// Runs one-entity query `shape` of [`GET_SHAPES`] on `e`; returns the items
/// before the write.
fn get_many(world: &mut Sim, shape: usize, e: Entity) -> Option<Items> {
    match shape {
        0 => world.get_many::<(&mut A, &B)>(e).map(|(a, b)| {
            let before = vec![v(a), v(b)];
            bump(a, rd(b), 0);
            before
        }),
        1 => world
            .get_many::<(Option<&mut C>, &mut B, Without<Marker>)>(e)
            .map(|(c, b, ())| {
                let before = vec![o(c.as_deref()), v(b), None];
                if let Some(c) = c {
                    bump(c, 0, 0);
                }
                bump(b, 0, 1);
                before
            }),
        2 => world.get_many::<&mut C>(e).map(|c| {
            let before = vec![v(c)];
            bump(c, 0, 0);
            before
        }),
        3 => world
            .get_many::<(With<Marker>, &A)>(e)
            .map(|((), a)| vec![None, v(a)]),
        4 => {
            let mut query = world.query_mut::<(&mut B, Option<&A>)>();
            query.get(e).map(|(b, a)| {
                let before = vec![v(b), o(a)];
                bump(b, opt(a), 0);
                before
            })
        }
        _ => {
            let mut both = join((&mut world.a, &mut world.c));
            both.get(e).map(|(a, c)| {
                let before = vec![v(a), v(c)];
                bump(a, 0, 0);
                bump(c, 0, 1);
                before
            })
        }
    }
}

/// Checks a query visited each entity once and saw what the model expects.
fn same_results(mut seen: Vec<Seen>, expected: &[Seen]) -> Result<(), String> {
    seen.sort();
    if let Some(twice) = seen.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!("visited {:?} twice", twice[0].0));
    }
    if seen != expected {
        return Err(format!("saw {seen:?}, the model expects {expected:?}"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------

/// One entity's components in the model, indexed by [`K`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Row(pub [Option<Val>; 4]);

impl Row {
    fn get(&self, k: K) -> Option<Val> {
        self.0[k as usize]
    }

    fn slot(&mut self, k: K) -> &mut Option<Val> {
        &mut self.0[k as usize]
    }

    fn from_made(made: &[(K, Val)]) -> Row {
        let mut row = Row::default();
        for &(k, val) in made {
            *row.slot(k) = Some(val);
        }
        row
    }

    /// What `world` holds for `e`.
    fn of(world: &Sim, e: Entity) -> Row {
        Row([
            world.get::<A>(e).map(Comp::val),
            world.get::<B>(e).map(Comp::val),
            world.get::<C>(e).map(Comp::val),
            world.get::<Marker>(e).map(Comp::val),
        ])
    }
}

/// A command in the buffer, as the model records it (in queue order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmd {
    Add(Entity, K, Val),
    Remove(Entity, K),
    Despawn(Entity),
}

/// What the world should hold: entities are numbered in the order their
/// handles were issued.
#[derive(Default)]
struct Model {
    /// Every handle ever issued, by number.
    issued: Vec<Entity>,
    numbers: HashMap<Entity, usize>,
    /// By number: the components while alive, `None` once despawned.
    rows: Vec<Option<Row>>,
    /// Numbers of the alive entities.
    live: Vec<usize>,
    /// The world's own queues (`add_deferred`, `remove_deferred`,
    /// `despawn_deferred`).
    pending_adds: BTreeMap<(usize, K), Val>,
    pending_removes: BTreeSet<(usize, K)>,
    pending_despawns: Vec<usize>,
    /// The command buffer: its commands and its reserved handles, by ordinal.
    cmds: Vec<Cmd>,
    reserved: Vec<Entity>,
    /// Handles reserved by the buffer before its last apply or clear.
    old_reserved: Vec<Entity>,
    all_reserved: HashSet<Entity>,
}

/// The reservation number a reserved handle shows in `Debug`
/// (`reserved#{number}`).
fn reservation_number(reserved: Entity) -> u64 {
    format!("{reserved:?}")
        .strip_prefix("reserved#")
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("{reserved:?} is not a reserved handle"))
}

fn rejection(
    entity: Entity,
    command: CommandKind,
    component: Option<K>,
    reason: RejectReason,
) -> Rejected {
    Rejected {
        entity,
        command,
        component: component.map(K::type_name),
        reason,
    }
}

impl Model {
    /// The number of `e` if it is alive.
    fn alive(&self, e: Entity) -> Option<usize> {
        self.numbers
            .get(&e)
            .copied()
            .filter(|&no| self.rows[no].is_some())
    }

    fn row(&self, e: Entity) -> Option<Row> {
        self.alive(e).and_then(|no| self.rows[no])
    }

    fn has(&self, no: usize, k: K) -> bool {
        self.rows[no].is_some_and(|row| row.get(k).is_some())
    }

    fn row_mut(&mut self, no: usize) -> &mut Row {
        self.rows[no].as_mut().expect("alive in the model")
    }

    fn can_spawn(&self) -> bool {
        self.live.len() < INDEX_LIMIT
    }

    fn issue(&mut self, e: Entity, row: Row) {
        let no = self.issued.len();
        self.numbers.insert(e, no);
        self.issued.push(e);
        self.rows.push(Some(row));
        self.live.push(no);
    }

    /// Immediate despawn: the row and the world's queued adds and removes
    /// for it go (a queued despawn stays, and does nothing).
    fn despawn(&mut self, no: usize) -> bool {
        if self.rows[no].take().is_none() {
            return false;
        }
        let at = self.live.iter().position(|&x| x == no).expect("listed");
        self.live.swap_remove(at);
        self.pending_adds.retain(|&(x, _), _| x != no);
        self.pending_removes.retain(|&(x, _)| x != no);
        true
    }

    /// The sync point: removals, then additions (replacing what an
    /// immediate add put there since), then despawns. Returns the number of
    /// values replaced.
    fn finalize(&mut self) -> usize {
        for (no, k) in std::mem::take(&mut self.pending_removes) {
            *self.row_mut(no).slot(k) = None;
        }
        let mut replaced = 0;
        for ((no, k), val) in std::mem::take(&mut self.pending_adds) {
            if self.row_mut(no).slot(k).replace(val).is_some() {
                replaced += 1;
            }
        }
        for no in std::mem::take(&mut self.pending_despawns) {
            self.despawn(no);
        }
        replaced
    }

    fn clear(&mut self) {
        for no in std::mem::take(&mut self.live) {
            self.rows[no] = None;
        }
        self.pending_adds.clear();
        self.pending_removes.clear();
        self.pending_despawns.clear();
    }

    /// Applies the buffer, given the entities the world spawned for its
    /// reserved handles: removals, additions (each storage in declaration
    /// order, each in queue order), then despawns. Returns the rejections the
    /// report must list, in order.
    fn apply(&mut self, spawned: &[Entity]) -> Vec<Rejected> {
        for &e in spawned {
            self.issue(e, Row::default());
        }
        let reserved = std::mem::take(&mut self.reserved);
        let cmds = std::mem::take(&mut self.cmds);
        let mut rejected: Vec<Rejected> = reserved[spawned.len()..]
            .iter()
            .map(|&r| rejection(r, CommandKind::Spawn, None, RejectReason::OutOfIndices))
            .collect();
        let resolve = |e: Entity| -> Option<Entity> {
            if e.is_reserved() {
                let ordinal = reserved.iter().position(|&r| r == e)?;
                spawned.get(ordinal).copied()
            } else {
                Some(e)
            }
        };
        for k in K::ALL {
            for &cmd in &cmds {
                if let Cmd::Remove(e, of) = cmd {
                    if of != k {
                        continue;
                    }
                    match resolve(e).and_then(|real| self.alive(real)) {
                        Some(no) => *self.row_mut(no).slot(k) = None,
                        None => rejected.push(rejection(
                            e,
                            CommandKind::Remove,
                            Some(k),
                            RejectReason::DeadEntity,
                        )),
                    }
                }
            }
        }
        for k in K::ALL {
            for &cmd in &cmds {
                if let Cmd::Add(e, of, val) = cmd {
                    if of != k {
                        continue;
                    }
                    let reason = match resolve(e).and_then(|real| self.alive(real)) {
                        Some(no) if self.has(no, k) => RejectReason::AlreadyPresent,
                        Some(no) => {
                            *self.row_mut(no).slot(k) = Some(val);
                            continue;
                        }
                        None => RejectReason::DeadEntity,
                    };
                    rejected.push(rejection(e, CommandKind::Add, Some(k), reason));
                }
            }
        }
        for &cmd in &cmds {
            if let Cmd::Despawn(e) = cmd {
                let alive = resolve(e).and_then(|real| self.alive(real));
                if !alive.is_some_and(|no| self.despawn(no)) {
                    rejected.push(rejection(
                        e,
                        CommandKind::Despawn,
                        None,
                        RejectReason::DeadEntity,
                    ));
                }
            }
        }
        self.old_reserved.extend(reserved);
        rejected
    }

    /// What a query over `terms` yields, sorted by entity.
    fn matches(&self, terms: &[Term]) -> Vec<Seen> {
        let mut seen: Vec<Seen> = self
            .live
            .iter()
            .filter_map(|&no| {
                let row = self.rows[no].as_ref()?;
                Some((self.issued[no], items(row, terms)?))
            })
            .collect();
        seen.sort();
        seen
    }

    /// Applies a query's writes to every row it matches.
    fn edit_all(&mut self, terms: &[Term]) {
        for &no in &self.live {
            let row = self.rows[no].as_mut().expect("alive");
            if items(row, terms).is_some() {
                edit(row, terms);
            }
        }
    }

    /// The ledger ids of the values in the command buffer.
    fn buffered_ids(&self) -> Vec<u64> {
        self.cmds
            .iter()
            .filter_map(|cmd| match *cmd {
                Cmd::Add(_, _, val) if val.id != 0 => Some(val.id),
                _ => None,
            })
            .collect()
    }

    /// The ledger ids of every value the world or the buffer holds.
    fn ids(&self) -> Vec<u64> {
        let mut ids = self.buffered_ids();
        for &no in &self.live {
            let row = self.rows[no].expect("alive");
            ids.extend(row.0.iter().flatten().map(|val| val.id));
        }
        ids.extend(self.pending_adds.values().map(|val| val.id));
        ids.retain(|&id| id != 0);
        ids
    }
}

// ---------------------------------------------------------------------------
// The harness
// ---------------------------------------------------------------------------

/// A world, a command buffer kept across operations, and their model.
pub struct Harness {
    world: Sim,
    commands: Commands<Sim>,
    model: Model,
    steps: usize,
    op: Option<Op>,
    /// Values made so far by the current step.
    made: u64,
    coverage: Coverage,
}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}

/// A command recorded by the query of [`Op::QueryCommands`], in order.
enum Queued {
    Spawn(Entity),
    Cmd(Cmd),
}

impl Harness {
    /// An empty world limited to [`INDEX_LIMIT`] entity indices. Resets this
    /// thread's drop ledger.
    pub fn new() -> Self {
        LEDGER.with(|ledger| ledger.borrow_mut().clear());
        let mut world = Sim::new();
        world.set_entity_limit(INDEX_LIMIT as u32);
        assert_eq!(world.component_names(), ["A", "B", "C", "Marker"]);
        Harness {
            world,
            commands: Commands::new(),
            model: Model::default(),
            steps: 0,
            op: None,
            made: 0,
            coverage: Coverage::default(),
        }
    }

    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    /// Number of alive entities.
    pub fn live_count(&self) -> usize {
        self.model.live.len()
    }

    /// Number of handles issued so far.
    pub fn issued_count(&self) -> usize {
        self.model.issued.len()
    }

    /// Applies `op` to the world and the model, then checks they agree.
    pub fn step(&mut self, op: &Op) {
        self.steps += 1;
        self.op = Some(*op);
        self.made = 0;
        self.coverage.hit(op.name());
        self.run(*op);
        self.check();
        self.check_group();
        if self.steps % DEEP_CHECK_EVERY == 0 {
            self.check_deep();
        }
    }

    /// The last checks; then drops the world (only the buffer's values may
    /// survive it) and the buffer (nothing may survive).
    pub fn finish(mut self) {
        self.op = None;
        self.check();
        self.check_deep();
        let Harness {
            world,
            commands,
            model,
            ..
        } = self;
        drop(world);
        if let Some(diff) = ledger_differs(&model.buffered_ids()) {
            panic!("after dropping the world: {diff}");
        }
        drop(commands);
        if let Some(diff) = ledger_differs(&[]) {
            panic!("after dropping the command buffer: {diff}");
        }
    }

    fn ctx(&self) -> String {
        match self.op {
            Some(op) => format!("step {}, {op:?}", self.steps),
            None => format!("after step {}", self.steps),
        }
    }

    fn hit(&mut self, key: &str) {
        self.coverage.hit(key);
    }

    /// A payload for a new value: a function of the operation and of how
    /// many values it made before, not of the steps before it, so that
    /// dropping an unrelated operation from a failing sequence leaves the
    /// values (and what queries decide from them) as they were.
    fn fresh(&mut self) -> u64 {
        self.made += 1;
        fresh_value(self.op, self.made)
    }

    fn target(&self, target: Target) -> Entity {
        let m = &self.model;
        let wrap = |i: usize, len: usize| i % len;
        match target {
            Target::Live(i) if !m.live.is_empty() => m.issued[m.live[wrap(i.into(), m.live.len())]],
            Target::Live(i) | Target::Issued(i) if !m.issued.is_empty() => {
                m.issued[wrap(i.into(), m.issued.len())]
            }
            Target::Recent(i) if !m.issued.is_empty() => {
                m.issued[m.issued.len() - 1 - wrap(i.into(), m.issued.len())]
            }
            Target::Forged(i) => {
                let (index, generation) = (u64::from(i % 32), u64::from(i / 32) + 1);
                Entity::from_bits(index | generation << 32).expect("generation > 0")
            }
            Target::Reserved(i) if !m.reserved.is_empty() => {
                m.reserved[wrap(i.into(), m.reserved.len())]
            }
            Target::Reserved(i) | Target::OldReserved(i) if !m.old_reserved.is_empty() => {
                m.old_reserved[wrap(i.into(), m.old_reserved.len())]
            }
            // Never issued: its index is past the limit.
            _ => Entity::from_bits((INDEX_LIMIT as u64 + 5) | (1 << 32)).expect("generation 1"),
        }
    }

    /// `target` written as the handle it picks now: `Issued(n)` for the
    /// `n`-th handle issued, `Reserved(i)` / `OldReserved(i)` for a reserved
    /// one; unchanged if it picks a handle never issued.
    pub fn pinned(&self, target: Target) -> Target {
        let e = self.target(target);
        let m = &self.model;
        let position = |list: &[Entity]| list.iter().position(|&x| x == e);
        let pinned = if let Some(&no) = m.numbers.get(&e) {
            u16::try_from(no).ok().map(Target::Issued)
        } else if let Some(i) = position(&m.reserved) {
            u8::try_from(i).ok().map(Target::Reserved)
        } else {
            position(&m.old_reserved)
                .and_then(|i| u8::try_from(i).ok())
                .map(Target::OldReserved)
        };
        pinned.unwrap_or(target)
    }

    fn run(&mut self, op: Op) {
        match op {
            Op::Spawn => self.spawn(false),
            Op::TrySpawn => self.spawn(true),
            Op::SpawnWith {
                set,
                reversed,
                fallible,
                batch: false,
            } => with_bundle!(self, set, reversed, |b| self.spawn_bundle(b, fallible)),
            Op::SpawnWith {
                set,
                reversed,
                fallible,
                batch: true,
            } => with_bundle!(pair self, set, reversed, |bundles| {
                self.spawn_batch(bundles, fallible)
            }),
            Op::Despawn(t) => self.despawn(self.target(t)),
            Op::Add(t, k) => for_comp!(k, T => self.add::<T>(self.target(t), false)),
            Op::TryAdd(t, k) => for_comp!(k, T => self.add::<T>(self.target(t), true)),
            Op::Insert(t, k) => for_comp!(k, T => self.insert::<T>(self.target(t), false)),
            Op::TryInsert(t, k) => for_comp!(k, T => self.insert::<T>(self.target(t), true)),
            Op::Remove(t, k, storage) => {
                for_comp!(k, T => self.remove::<T>(self.target(t), storage))
            }
            Op::RemoveAll(t) => self.remove_all(self.target(t)),
            Op::Edit(t, k, via) => for_comp!(k, T => self.edit::<T>(self.target(t), via)),
            Op::AddDeferred(t, k) => {
                for_comp!(k, T => self.add_deferred::<T>(self.target(t), false))
            }
            Op::TryAddDeferred(t, k) => {
                for_comp!(k, T => self.add_deferred::<T>(self.target(t), true))
            }
            Op::RemoveDeferred(t, k) => {
                for_comp!(k, T => self.remove_deferred::<T>(self.target(t)))
            }
            Op::DespawnDeferred(t) => self.despawn_deferred(self.target(t)),
            Op::FinalizeUpdates => self.finalize(),
            Op::CmdAdd(t, k) => for_comp!(k, T => self.cmd_add::<T>(self.target(t))),
            Op::CmdRemove(t, k) => for_comp!(k, T => self.cmd_remove::<T>(self.target(t))),
            Op::CmdDespawn(t) => {
                let e = self.target(t);
                self.commands.despawn(e);
                self.model.cmds.push(Cmd::Despawn(e));
            }
            Op::CmdSpawn => {
                let r = self.commands.spawn();
                self.reserved(r);
            }
            Op::CmdSpawnWith { set, reversed } => {
                with_bundle!(self, set, reversed, |b| self.cmd_spawn_bundle(b))
            }
            Op::CmdApply => self.cmd_apply(),
            Op::CmdClear => {
                self.commands.clear();
                let reserved = std::mem::take(&mut self.model.reserved);
                self.model.old_reserved.extend(reserved);
                self.model.cmds.clear();
            }
            Op::Query(shape) => self.query(shape),
            Op::QueryMut(shape) => self.query_mut(shape),
            Op::QueryCommands { for_loop } => self.query_commands(for_loop),
            Op::GetMany(t, shape) => self.get_many(self.target(t), shape),
            Op::Clear => {
                self.world.clear();
                self.model.clear();
            }
            Op::SaveLoad { postcard } => self.save_load(postcard),
        }
    }

    /// Saves the world, drops it, and loads it back. The drop ledger checks
    /// that every value was dropped with the old world and revived once by
    /// the load; the loaded world must save the same as the original (up to
    /// the order of each storage's entries, which a load may change while it
    /// packs the owning group); the model checks the rest after the step,
    /// and the operations after it check that the queues survived.
    #[cfg(feature = "serde")]
    fn save_load(&mut self, postcard: bool) {
        let saved = normalized(serde_json::to_value(&self.world).expect("a world saves"));
        let bytes = if postcard {
            postcard::to_allocvec(&self.world).expect("a world saves")
        } else {
            serde_json::to_vec(&self.world).expect("a world saves")
        };
        drop(std::mem::take(&mut self.world));
        let loaded: Result<Sim, String> = if postcard {
            postcard::from_bytes(&bytes).map_err(|e| e.to_string())
        } else {
            serde_json::from_slice(&bytes).map_err(|e| e.to_string())
        };
        let mut loaded = loaded.unwrap_or_else(|error| {
            panic!("a valid world failed to load ({error}): {}", self.ctx())
        });
        // The index limit is a test hook, not part of a save.
        loaded.set_entity_limit(INDEX_LIMIT as u32);
        let again = normalized(serde_json::to_value(&loaded).expect("a world saves"));
        assert_eq!(again, saved, "the loaded world differs: {}", self.ctx());
        self.world = loaded;
        self.hit(if postcard {
            "save_load:postcard"
        } else {
            "save_load:json"
        });
    }

    /// Without the `serde` feature there is nothing to save with.
    #[cfg(not(feature = "serde"))]
    fn save_load(&mut self, _postcard: bool) {}

    // ----- entities -----

    /// Records a handle the world just issued, after checking it is new.
    fn issued(&mut self, e: Entity, row: Row) {
        self.check_fresh(e);
        self.model.issue(e, row);
        self.hit("spawned");
    }

    fn check_fresh(&self, e: Entity) {
        assert!(
            !e.is_reserved(),
            "spawned a reserved handle {e:?}: {}",
            self.ctx()
        );
        assert!(
            !self.model.numbers.contains_key(&e),
            "{e:?} was handed out twice: {}",
            self.ctx()
        );
        assert!(
            (e.index() as usize) < INDEX_LIMIT,
            "{e:?} is past the index limit: {}",
            self.ctx()
        );
    }

    fn out_of_indices<Bd>(&mut self, error: &SpawnError<Bd>) {
        assert!(
            !self.model.can_spawn(),
            "spawn failed with room left: {}",
            self.ctx()
        );
        assert!(
            error.to_string().contains("out of entity indices"),
            "{error}: {}",
            self.ctx()
        );
        self.hit("err:spawn:OutOfIndices");
    }

    fn spawn(&mut self, fallible: bool) {
        if fallible || !self.model.can_spawn() {
            match self.world.try_spawn() {
                Ok(e) => self.issued(e, Row::default()),
                Err(error) => self.out_of_indices(&error),
            }
        } else {
            let e = self.world.spawn();
            self.issued(e, Row::default());
        }
    }

    fn spawn_bundle<Bd: Bundle<Sim> + Made>(&mut self, bundle: Bd, fallible: bool) {
        let mut made = Vec::new();
        bundle.made(&mut made);
        let row = Row::from_made(&made);
        if fallible || !self.model.can_spawn() {
            match self.world.try_spawn_with(bundle) {
                Ok(e) => self.issued(e, row),
                Err(error) => {
                    self.out_of_indices(&error);
                    let mut back = Vec::new();
                    error.into_inner().made(&mut back);
                    assert_eq!(back, made, "the bundle handed back: {}", self.ctx());
                }
            }
        } else {
            let e = self.world.spawn_with(bundle);
            self.issued(e, row);
        }
    }

    fn spawn_batch<Bd: Bundle<Sim> + Made>(&mut self, bundles: [Bd; 2], fallible: bool) {
        let rows: Vec<(Vec<(K, Val)>, Row)> = bundles
            .iter()
            .map(|bundle| {
                let mut made = Vec::new();
                bundle.made(&mut made);
                let row = Row::from_made(&made);
                (made, row)
            })
            .collect();
        let room = INDEX_LIMIT - self.model.live.len();
        if fallible || room < bundles.len() {
            match self.world.try_spawn_batch(bundles) {
                Ok(spawned) => {
                    assert_eq!(spawned.len(), 2, "{}", self.ctx());
                    for (e, (_, row)) in spawned.into_iter().zip(rows) {
                        self.issued(e, row);
                    }
                }
                Err(error) => {
                    let text = error.to_string();
                    assert!(
                        text.contains("out of entity indices"),
                        "{text}: {}",
                        self.ctx()
                    );
                    let (spawned, rest) = error.into_inner();
                    assert_eq!(
                        spawned.len(),
                        room,
                        "spawned before running out: {}",
                        self.ctx()
                    );
                    for (&e, (_, row)) in spawned.iter().zip(&rows) {
                        self.issued(e, *row);
                    }
                    assert!(
                        !self.model.can_spawn(),
                        "a batch stopped with room left: {}",
                        self.ctx()
                    );
                    self.hit("err:spawn:OutOfIndices");
                    for (bundle, (made, _)) in rest.zip(&rows[room..]) {
                        let mut back = Vec::new();
                        bundle.made(&mut back);
                        assert_eq!(&back, made, "a bundle handed back: {}", self.ctx());
                    }
                }
            }
        } else {
            let spawned = self.world.spawn_batch(bundles);
            assert_eq!(spawned.len(), 2, "{}", self.ctx());
            for (e, (_, row)) in spawned.into_iter().zip(rows) {
                self.issued(e, row);
            }
        }
    }

    /// Runs `call`, which says whether `e` was alive, checks that against
    /// the model and counts `{what}:alive` or `{what}:dead`. Returns `e`'s
    /// number if it is alive.
    fn on_entity(
        &mut self,
        what: &str,
        e: Entity,
        call: impl FnOnce(&mut Sim) -> bool,
    ) -> Option<usize> {
        let alive = self.model.alive(e);
        let said = call(&mut self.world);
        assert_eq!(said, alive.is_some(), "{what}({e:?}): {}", self.ctx());
        let outcome = if said { "alive" } else { "dead" };
        self.hit(&format!("{what}:{outcome}"));
        alive
    }

    fn despawn(&mut self, e: Entity) {
        if let Some(no) = self.on_entity("despawn", e, |world| world.despawn(e)) {
            self.model.despawn(no);
        }
    }

    // ----- components -----

    /// Calls `add` or `add_deferred` (`panicking`), or its fallible twin
    /// when `use_twin`: the harness never calls a method that would panic.
    fn call<T: Comp>(
        &mut self,
        use_twin: bool,
        e: Entity,
        component: T,
        twin: fn(&mut Sim, Entity, T) -> Result<(), AddError<T>>,
        panicking: fn(&mut Sim, Entity, T),
    ) -> Result<(), AddError<T>> {
        if use_twin {
            return twin(&mut self.world, e, component);
        }
        panicking(&mut self.world, e, component);
        Ok(())
    }

    /// Checks the outcome of an add (`family`: add, insert, add_deferred)
    /// against the model's prediction: an error must be the one predicted,
    /// say so, and hand the component back; it is counted as
    /// `err:{family}:{kind}`. Returns whether the add was made.
    fn add_outcome<T: Comp>(
        &mut self,
        family: &str,
        (e, val): (Entity, Val),
        expected: Result<(), AddErrorKind>,
        outcome: Result<(), AddError<T>>,
    ) -> bool {
        let error = match outcome {
            Ok(()) => {
                assert_eq!(expected, Ok(()), "{family} to {e:?}: {}", self.ctx());
                return true;
            }
            Err(error) => error,
        };
        let kind = error.kind();
        assert_eq!(Err(kind), expected, "{family} to {e:?}: {}", self.ctx());
        assert_eq!(error.entity(), e, "{}", self.ctx());
        let text = error.to_string();
        let says = match kind {
            AddErrorKind::DeadEntity => "not alive",
            AddErrorKind::AlreadyPresent => "already has one",
            _ => "already queued",
        };
        assert!(text.contains(says), "{text}: {}", self.ctx());
        assert_eq!(error.into_component().val(), val, "{}", self.ctx());
        self.hit(&format!("err:{family}:{kind:?}"));
        false
    }

    fn add<T: Comp>(&mut self, e: Entity, fallible: bool) {
        let component = T::make(self.fresh());
        let val = component.val();
        let expected = match self.model.row(e) {
            None => Err(AddErrorKind::DeadEntity),
            Some(row) if row.get(T::K).is_some() => Err(AddErrorKind::AlreadyPresent),
            Some(_) => Ok(()),
        };
        let use_twin = fallible || expected.is_err();
        let result = self.call(use_twin, e, component, Sim::try_add::<T>, Sim::add::<T>);
        if self.add_outcome("add", (e, val), expected, result) {
            let no = self.model.alive(e).expect("alive");
            *self.model.row_mut(no).slot(T::K) = Some(val);
            self.hit("add:ok");
        }
    }

    fn insert<T: Comp>(&mut self, e: Entity, fallible: bool) {
        let component = T::make(self.fresh());
        let val = component.val();
        let Some(no) = self.model.alive(e) else {
            let outcome = self.world.try_insert(e, component).map(|_| ());
            self.add_outcome("insert", (e, val), Err(AddErrorKind::DeadEntity), outcome);
            return;
        };
        let old = if fallible {
            match self.world.try_insert(e, component) {
                Ok(old) => old,
                Err(error) => panic!("{error}: {}", self.ctx()),
            }
        } else {
            self.world.insert(e, component)
        };
        let row = self.model.row_mut(no);
        let expected = row.slot(T::K).replace(val);
        assert_eq!(
            old.as_ref().map(Comp::val),
            expected,
            "insert into {e:?}: {}",
            self.ctx()
        );
        self.hit(if old.is_some() {
            "insert:replaced"
        } else {
            "insert:new"
        });
    }

    fn remove<T: Comp>(&mut self, e: Entity, through_storage: bool) {
        let removed = if through_storage {
            self.world.storage_mut::<T>().remove(e)
        } else {
            self.world.remove::<T>(e)
        };
        let expected = self.model.row(e).and_then(|row| row.get(T::K));
        assert_eq!(
            removed.as_ref().map(Comp::val),
            expected,
            "remove from {e:?}: {}",
            self.ctx()
        );
        if let Some(no) = self.model.alive(e) {
            *self.model.row_mut(no).slot(T::K) = None;
        }
        self.hit(if expected.is_some() {
            "remove:some"
        } else {
            "remove:none"
        });
    }

    fn remove_all(&mut self, e: Entity) {
        if let Some(no) = self.on_entity("remove_all", e, |world| world.remove_all(e)) {
            *self.model.row_mut(no) = Row::default();
        }
    }

    fn edit<T: Comp>(&mut self, e: Entity, via: Via) {
        let input = self.fresh();
        let world = &mut self.world;
        let component: Option<&mut T> = match via {
            Via::Get => world.get_mut::<T>(e),
            Via::Storage => world.storage_mut::<T>().get_mut(e),
            Via::ValueAt => match world.storage::<T>().index_of(e) {
                Some(i) => Some(world.value_at_mut::<T>(i)),
                None => None,
            },
            Via::Values => {
                let storage = world.storage_mut::<T>();
                match storage.index_of(e) {
                    Some(i) => storage.values_mut().get_mut(i),
                    None => None,
                }
            }
            Via::View => world.storage_mut::<T>().view_mut().into_mut(e),
        };
        let before = component.map(|c| {
            let before = c.val();
            bump(c, input, 0);
            before
        });
        let expected = self.model.row(e).and_then(|row| row.get(T::K));
        assert_eq!(before, expected, "edit of {e:?}: {}", self.ctx());
        match (self.model.alive(e), expected) {
            (Some(no), Some(val)) => {
                *self.model.row_mut(no).slot(T::K) = Some(val.bumped(input, 0));
                self.hit("edit:hit");
            }
            _ => self.hit("edit:miss"),
        }
    }

    // ----- deferred changes -----

    fn add_deferred<T: Comp>(&mut self, e: Entity, fallible: bool) {
        let component = T::make(self.fresh());
        let val = component.val();
        let alive = self.model.alive(e);
        let expected = match alive {
            None => Err(AddErrorKind::DeadEntity),
            Some(no) if self.model.pending_adds.contains_key(&(no, T::K)) => {
                Err(AddErrorKind::AlreadyQueued)
            }
            Some(no)
                if self.model.has(no, T::K)
                    && !self.model.pending_removes.contains(&(no, T::K)) =>
            {
                Err(AddErrorKind::AlreadyPresent)
            }
            Some(_) => Ok(()),
        };
        let use_twin = fallible || expected.is_err();
        let result = self.call(
            use_twin,
            e,
            component,
            Sim::try_add_deferred::<T>,
            Sim::add_deferred::<T>,
        );
        if self.add_outcome("add_deferred", (e, val), expected, result) {
            let no = alive.expect("alive");
            self.model.pending_adds.insert((no, T::K), val);
            self.hit(if self.model.has(no, T::K) {
                "add_deferred:replacing"
            } else {
                "add_deferred:ok"
            });
        }
    }

    fn remove_deferred<T: Comp>(&mut self, e: Entity) {
        let queue = |world: &mut Sim| world.remove_deferred::<T>(e);
        if let Some(no) = self.on_entity("remove_deferred", e, queue) {
            self.model.pending_removes.insert((no, T::K));
        }
    }

    fn despawn_deferred(&mut self, e: Entity) {
        let queue = |world: &mut Sim| world.despawn_deferred(e);
        if let Some(no) = self.on_entity("despawn_deferred", e, queue) {
            self.model.pending_despawns.push(no);
        }
    }

    fn finalize(&mut self) {
        self.world.finalize_updates();
        for _ in 0..self.model.finalize() {
            self.hit("finalize:replaced");
        }
    }

    // ----- the command buffer -----

    /// Records a reserved handle the buffer just handed out.
    fn reserved(&mut self, r: Entity) {
        let ordinal = self.model.reserved.len();
        assert!(r.is_reserved(), "{r:?} is not reserved: {}", self.ctx());
        // Numbers only grow, and run on within a block of 256.
        let number = reservation_number(r);
        let previous = self.model.reserved.last();
        if let Some(&previous) = previous.or(self.model.old_reserved.last()) {
            assert!(
                number > reservation_number(previous),
                "{r:?} after {previous:?}: {}",
                self.ctx()
            );
        }
        if let (Some(&previous), true) = (previous, ordinal % 256 != 0) {
            assert_eq!(
                number,
                reservation_number(previous) + 1,
                "{r:?} should follow {previous:?}: {}",
                self.ctx()
            );
        }
        assert!(
            self.model.all_reserved.insert(r),
            "{r:?} was reserved twice: {}",
            self.ctx()
        );
        assert!(!self.world.is_alive(r), "{}", self.ctx());
        self.model.reserved.push(r);
    }

    fn cmd_add<T: Comp>(&mut self, e: Entity) {
        let component = T::make(self.fresh());
        self.model.cmds.push(Cmd::Add(e, T::K, component.val()));
        self.commands.add(e, component);
    }

    fn cmd_remove<T: Comp>(&mut self, e: Entity) {
        self.commands.remove::<T>(e);
        self.model.cmds.push(Cmd::Remove(e, T::K));
    }

    fn cmd_spawn_bundle<Bd: Bundle<Sim> + Made>(&mut self, bundle: Bd) {
        let mut made = Vec::new();
        bundle.made(&mut made);
        let r = self.commands.spawn_with(bundle);
        self.reserved(r);
        for (k, val) in made {
            self.model.cmds.push(Cmd::Add(r, k, val));
        }
    }

    fn cmd_apply(&mut self) {
        let report = self.world.apply(&mut self.commands);
        assert!(self.commands.is_empty(), "{}", self.ctx());
        let spawned = report.spawned().to_vec();
        let room = INDEX_LIMIT - self.model.live.len();
        assert_eq!(
            spawned.len(),
            self.model.reserved.len().min(room),
            "spawned: {}",
            self.ctx()
        );
        for &e in &spawned {
            self.check_fresh(e);
        }
        for (ordinal, &r) in self.model.reserved.iter().enumerate() {
            assert_eq!(
                report.entity(r),
                spawned.get(ordinal).copied(),
                "report.entity({r:?}): {}",
                self.ctx()
            );
        }
        if let Some(&old) = self.model.old_reserved.last() {
            assert_eq!(report.entity(old), None, "{}", self.ctx());
        }
        let expected = self.model.apply(&spawned);
        assert_eq!(report.rejected(), expected, "the report: {}", self.ctx());
        assert_eq!(report.is_clean(), expected.is_empty(), "{}", self.ctx());
        for rejected in &expected {
            let text = rejected.to_string();
            assert!(text.contains(" rejected: "), "{text}: {}", self.ctx());
            self.hit(&format!(
                "reject:{:?}:{:?}",
                rejected.command, rejected.reason
            ));
        }
        if !spawned.is_empty() {
            self.hit("apply:spawned");
        }
    }

    // ----- queries -----

    fn query(&mut self, shape: u8) {
        let shape = usize::from(shape) % READ_SHAPES.len();
        let terms = READ_SHAPES[shape];
        let dense =
            DENSE_READ_SHAPES.contains(&shape) && self.world.group_len::<(A, B)>().is_some();
        let seen = read_query(&mut self.world, shape);
        let expected = self.model.matches(terms);
        if let Err(why) = same_results(seen, &expected) {
            panic!("query {terms:?}: {why}: {}", self.ctx());
        }
        if !expected.is_empty() {
            self.hit("query:matched");
            if dense {
                self.hit("query:dense");
            }
        }
    }

    fn query_mut(&mut self, shape: u8) {
        let shape = usize::from(shape) % MUT_SHAPES.len();
        let terms = MUT_SHAPES[shape];
        let expected = self.model.matches(terms);
        if shape == MUT_SHAPES.len() - 1 {
            let count = self.world.query_mut::<(&mut A, Without<B>)>().count();
            assert_eq!(count, expected.len(), "count of {terms:?}: {}", self.ctx());
        } else {
            let mut seen = Vec::new();
            mut_query(&mut self.world, shape, &mut seen);
            if let Err(why) = same_results(seen, &expected) {
                panic!("query_mut {terms:?}: {why}: {}", self.ctx());
            }
            self.model.edit_all(terms);
        }
        if !expected.is_empty() {
            self.hit("query_mut:matched");
            if DENSE_MUT_SHAPES.contains(&shape) {
                self.hit("query_mut:dense");
            }
        }
    }

    fn get_many(&mut self, e: Entity, shape: u8) {
        let shape = usize::from(shape) % GET_SHAPES.len();
        let terms = GET_SHAPES[shape];
        let got = get_many(&mut self.world, shape, e);
        let no = self.model.alive(e);
        let expected = no.and_then(|no| items(self.model.rows[no].as_ref()?, terms));
        assert_eq!(got, expected, "get_many {terms:?} of {e:?}: {}", self.ctx());
        match (no, expected) {
            (Some(no), Some(_)) => {
                edit(self.model.row_mut(no), terms);
                self.hit("get_many:some");
            }
            _ => self.hit("get_many:none"),
        }
    }

    /// A system: a mutable query that writes `A` and, depending on the value
    /// it wrote, queues commands for the entity it visits.
    fn query_commands(&mut self, for_loop: bool) {
        let terms = COMMAND_SHAPES[usize::from(for_loop)];
        let expected = self.model.matches(terms);
        let (op, made) = (self.op, &mut self.made);
        let Harness {
            world, commands, ..
        } = self;
        let mut seen = Vec::new();
        let mut wrote = Vec::new();
        let mut queued = Vec::new();
        let mut visit = |e: Entity, a: &mut A, b: Option<&B>| {
            let mut before = vec![v(a), o(b)];
            if for_loop {
                before.push(None);
            }
            seen.push((e, before));
            bump(a, opt(b), 0);
            wrote.push((e, a.0.value));
            *made += 1;
            let value = fresh_value(op, *made);
            match a.0.value % 8 {
                0 => {
                    commands.add(e, Marker);
                    queued.push(Queued::Cmd(Cmd::Add(e, K::Marker, Val::MARKER)));
                }
                1 => {
                    commands.remove::<B>(e);
                    queued.push(Queued::Cmd(Cmd::Remove(e, K::B)));
                }
                2 => {
                    commands.despawn(e);
                    queued.push(Queued::Cmd(Cmd::Despawn(e)));
                }
                3 => {
                    let c = C::make(value);
                    queued.push(Queued::Cmd(Cmd::Add(e, K::C, c.val())));
                    commands.add(e, c);
                }
                4 => {
                    let b = B::make(value);
                    let val = b.val();
                    let r = commands.spawn_with((b, Marker));
                    queued.push(Queued::Spawn(r));
                    queued.push(Queued::Cmd(Cmd::Add(r, K::B, val)));
                    queued.push(Queued::Cmd(Cmd::Add(r, K::Marker, Val::MARKER)));
                }
                5 => {
                    // Replace: a remove and an add in one buffer.
                    let a = A::make(value);
                    queued.push(Queued::Cmd(Cmd::Remove(e, K::A)));
                    queued.push(Queued::Cmd(Cmd::Add(e, K::A, a.val())));
                    commands.remove::<A>(e);
                    commands.add(e, a);
                }
                _ => {}
            }
        };
        if for_loop {
            for (e, (a, b, ())) in world.query_mut::<(&mut A, Option<&B>, Without<C>)>() {
                visit(e, a, b);
            }
        } else {
            world
                .query_mut::<(&mut A, Option<&B>)>()
                .for_each(|e, (a, b)| visit(e, a, b));
        }
        if let Err(why) = same_results(seen, &expected) {
            panic!("query_commands {terms:?}: {why}: {}", self.ctx());
        }
        self.model.edit_all(terms);
        for (e, value) in wrote {
            let modelled = self.model.row(e).and_then(|row| row.get(K::A));
            assert_eq!(
                modelled.map(|val| val.value),
                Some(value),
                "A of {e:?} after the query: {}",
                self.ctx()
            );
        }
        if !queued.is_empty() {
            self.hit("query_commands:queued");
        }
        for q in queued {
            match q {
                Queued::Spawn(r) => self.reserved(r),
                Queued::Cmd(cmd) => self.model.cmds.push(cmd),
            }
        }
    }

    // ----- checks -----

    /// After every step: a trusted group `(A, B)` holds exactly the live
    /// entities that have both (its packing is checked by
    /// `assert_invariants`, every few steps).
    fn check_group(&mut self) {
        match self.world.group_len::<(A, B)>() {
            Some(len) => {
                let both = self
                    .model
                    .live
                    .iter()
                    .filter(|&&no| {
                        let row = self.model.rows[no].as_ref();
                        row.is_some_and(|row| row.get(K::A).is_some() && row.get(K::B).is_some())
                    })
                    .count();
                assert_eq!(len, both, "group (A, B) length: {}", self.ctx());
            }
            None => self.hit("group:rebuilding"),
        }
    }

    /// After every step: every handle ever issued (alive or not, and every
    /// component), the buffer's reserved handles, the counts, the ledger.
    fn check(&self) {
        let (world, model) = (&self.world, &self.model);
        assert_eq!(
            world.entity_count(),
            model.live.len(),
            "entity_count: {}",
            self.ctx()
        );
        for (&e, row) in model.issued.iter().zip(&model.rows) {
            assert_eq!(
                world.is_alive(e),
                row.is_some(),
                "is_alive({e:?}): {}",
                self.ctx()
            );
            assert_eq!(
                Row::of(world, e),
                row.unwrap_or_default(),
                "components of {e:?}: {}",
                self.ctx()
            );
        }
        for &r in &model.reserved {
            assert!(!world.is_alive(r), "{r:?} is alive: {}", self.ctx());
            assert_eq!(Row::of(world, r), Row::default(), "{}", self.ctx());
        }
        let queued = model.cmds.len() + model.reserved.len();
        assert_eq!(
            self.commands.len(),
            queued,
            "commands.len(): {}",
            self.ctx()
        );
        assert_eq!(self.commands.is_empty(), queued == 0, "{}", self.ctx());
        if let Some(diff) = ledger_differs(&model.ids()) {
            panic!("drop ledger: {diff}: {}", self.ctx());
        }
    }

    /// Every few steps: the world's invariants, `entities()`, and each
    /// storage's dense arrays and index access.
    fn check_deep(&self) {
        self.world.assert_invariants();
        self.world.entities.assert_invariants();
        let mut live: Vec<Entity> = self
            .model
            .live
            .iter()
            .map(|&no| self.model.issued[no])
            .collect();
        live.sort();
        assert_eq!(self.world.entities().len(), live.len(), "{}", self.ctx());
        let entities: Vec<Entity> = self.world.entities().collect();
        assert_eq!(entities, live, "entities(): {}", self.ctx());
        self.check_storage::<A>();
        self.check_storage::<B>();
        self.check_storage::<C>();
        self.check_storage::<Marker>();
    }

    fn check_storage<T: Comp>(&self) {
        let world = &self.world;
        let storage = world.storage::<T>();
        let len = world.size::<T>();
        assert_eq!(storage.len(), len, "{}", self.ctx());
        assert_eq!(storage.is_empty(), len == 0, "{}", self.ctx());
        assert_eq!(storage.entities().len(), len, "{}", self.ctx());
        assert_eq!(storage.values().len(), len, "{}", self.ctx());
        for (i, (e, value)) in storage.iter().enumerate() {
            assert_eq!(world.entity_at::<T>(i), e, "{}", self.ctx());
            assert_eq!(world.value_at::<T>(i).val(), value.val(), "{}", self.ctx());
            assert_eq!(storage.index_of(e), Some(i), "{}", self.ctx());
            assert!(world.has::<T>(e) && storage.contains(e), "{}", self.ctx());
        }
        let mut got: Vec<(Entity, Val)> = storage.iter().map(|(e, c)| (e, c.val())).collect();
        got.sort();
        let mut expected: Vec<(Entity, Val)> = self
            .model
            .live
            .iter()
            .filter_map(|&no| Some((self.model.issued[no], self.model.rows[no]?.get(T::K)?)))
            .collect();
        expected.sort();
        assert_eq!(got, expected, "storage of {:?}: {}", T::K, self.ctx());
    }
}
