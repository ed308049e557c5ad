//! The operations the harness runs, and how bytes decode to them (the fuzz
//! corpora depend on this decoding: change it and they mean other sequences).

use super::queries::{GET_SHAPES, MUT_SHAPES, READ_SHAPES};
use super::world::K;
use super::CODE_LEN;

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
    /// if `batch`, `spawn_batch` (`try_spawn_batch`) of two such bundles,
    /// or `extend` (`try_extend`) if `extend` too.
    SpawnWith {
        set: u8,
        reversed: bool,
        fallible: bool,
        batch: bool,
        extend: bool,
    },
    /// `despawn`; or, if `batch` is some, `despawn_batch` of the target, a
    /// live entity and an issued handle picked by the byte, and the target
    /// again.
    Despawn(Target, Option<u8>),
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
                extend: bit(7),
            },
            3 => Op::Despawn(t, bit(7).then_some(extra & 127)),
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
            Op::Despawn(t, _)
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
