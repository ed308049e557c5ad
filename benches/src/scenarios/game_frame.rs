//! `game_frame`: a whole game-shaped frame, a predator/prey simulation on a
//! square meadow of `side × side` unit cells (issue 30, target 1). The
//! size `n` (20,000) is the number of entities at the start: `n / 2` grass
//! tiles (one per cell, `side = √(n / 2)`), `3n / 10` prey and `n / 5`
//! predators. Timed: one frame of ten systems and a sync point on a state
//! that persists from run to run. The populations settle within a few
//! hundred frames and stay there (at 20,000: about 3,400 prey and 2,400
//! predators beside the 10,000 tiles, about 70 births and as many deaths a
//! frame, steady over 10,000 frames), which the tests and the `game_frame`
//! binary check.
//!
//! The frame, in order ([`SYSTEMS`]):
//!
//! 1. **movement**: every animal moves by its velocity on a wrapping
//!    meadow; one in 16 turns a quarter left or right (a hash of its
//!    [`Id`] and the frame).
//! 2. **hunger**: every fourth frame (staggered by id) an animal loses
//!    [`HUNGER`] energy: a conditional write of the tracked [`Energy`].
//! 3. **grass regrowth**: every tile below [`GRASS_MAX`] grows (a
//!    conditional write).
//! 4. **grid rebuild**: the neighbour grid ([`Grid`], a resource) is
//!    cleared and refilled with every animal's `(id, handle)` in its cell,
//!    each cell's list sorted by id.
//! 5. **grazing**: cell by cell, each prey (in id order) that is neither
//!    dead nor full eats a bite of its cell's tile if there is one: two
//!    lookups by handle (the tile's grass, the prey's energy).
//! 6. **hunting**: cell by cell, each predator (in id order) that is not
//!    full and pounces this frame (one frame in [`POUNCE_EVERY`], a hash)
//!    looks at the prey of the 3 × 3 cells around it (positions and
//!    energies by handle) and kills the nearest one within [`HUNT_RANGE`]
//!    (ties broken by id): the prey's energy becomes 0 and the predator's
//!    grows.
//! 7. **reproduction**: the animals with energy enough, sorted by id, whose
//!    cell is not crowded, give half their energy to a newborn spawned
//!    through deferred commands, with the next free id.
//! 8. **deaths**: every animal whose energy is 0 or less (starved or
//!    killed) is despawned through deferred commands.
//! 9. **sync point**: the births and deaths are applied.
//! 10. **react to births**: each newly added animal gets its velocity (a
//!     hash of its id) and is counted.
//! 11. **watch energy**: every animal whose energy changed since this
//!     system last ran is counted, with its energy summed.
//!
//! Before each frame the game loop advances a frame counter (a resource).
//! Every random choice is a hash of an entity's stable [`Id`] (never of a
//! handle's bits) and the frame, with the repository's generator
//! ([`Rng`]); every order that decides anything is an order of ids (the
//! grid's lists, the parents) or a total order on `(distance, id)` (the
//! prey a predator picks), and every implementation runs the same `f32`
//! kernels in the same order per entity, so all of them end each frame in
//! the same state, bit for bit but for `f64` sums taken in another order.
//!
//! - typed_ecs: a world with `tracked (Energy);` and the grid and counters
//!   as resources; a [`Schedule`](::typed_ecs::Schedule) of typed systems
//!   as the guide writes them: a stage of (movement, hunger, grass
//!   regrowth), five systems, a sync point, a stage of (react to births,
//!   watch energy). Conditional writes go through `Mut`
//!   (`for_each_mut`, `get_mut_lazy`) or `get_mut` when a write is
//!   certain; the reaction and the watcher take `&mut Seen<Energy>`
//!   (`seen.added`, `seen.changed`); births and deaths go through
//!   `&mut Commands<Savanna>`. No owning group is declared. The schedule's
//!   `parallel_work` is set to `Duration::MAX`, so its stages run on the
//!   calling thread: this row is single-threaded like bevy's.
//! - bevy: the same systems with `Query`, `Res`, `ResMut`, `Local` and
//!   `Commands`, chained in one `Schedule` on the `SingleThreadedExecutor`,
//!   with an explicit `ApplyDeferred` where typed_ecs has its sync point
//!   (the automatic sync points are turned off, so that both apply the
//!   commands at the same place). The reaction is a query filtered by
//!   `Added<Energy>`, the watcher by `Changed<Energy>`; writes go through
//!   `Mut`, which marks a change only when written through.
//! - hecs: plain functions over the `World` and a `CommandBuffer` applied
//!   with `run_on` at the sync point; lookups by handle through
//!   `World::view`/`view_mut`. hecs has no change detection: newborns are
//!   spawned on `reserve_entity` handles kept in a list, which the
//!   reaction drains, and every write of an energy pushes the handle to a
//!   dirty list, which the watcher sorts, dedups and reads (skipping the
//!   handles of animals despawned since).
//! - raw: the baseline, the game written by hand with no ECS: the animals
//!   in one `Vec` of structs, an animal's handle its index (nothing moves
//!   between sync points), a flag beside each energy set by every write
//!   (the watcher reads and clears them in one pass), the tiles in a `Vec`
//!   indexed by cell; births and deaths queued and applied at the sync
//!   point (a death swaps the last animal into its place).
//!
//! With parallel stages (the `game_frame` binary's `--parallel`):
//! [`typed_ecs::setup_parallel`] is the same schedule with `parallel_work`
//! left at typed_ecs's default (40 µs), as a user who asks for nothing
//! gets it: each stage goes to rayon's pool when its members' work at its
//! last run reached that, else stays on the calling thread.
//! `bevy::setup_multi_threaded` (only with this crate's
//! `bevy_multi_threaded` feature) runs the same systems on bevy's
//! `MultiThreadedExecutor`, ordered as typed_ecs's schedule:
//! `((movement, hunger, grass_regrowth), grid_rebuild, grazing, hunting,
//! reproduction, deaths, ApplyDeferred, (react_to_births,
//! watch_energy)).chain()`, the inner tuples unordered among themselves.
//! The members of a stage touch disjoint data (movement `Pos` and `Vel`,
//! hunger `Energy`, grass regrowth `Grass`; the reaction `Vel` and the
//! nursery, the watcher its own counters), so both end each frame in the
//! single-threaded instances' state.
//!
//! For the per-system table, [`TIMED`] builds the same frames with a
//! time stamp (`Instant::now()` pushed to a resource, [`Stamps`]) before
//! the first system and after every step, the same way in each crate: a
//! stamp system between the systems of the typed_ecs and bevy schedules
//! (typed_ecs's stages split into single systems so that a stamp can go
//! between their members), a call between the hecs functions. A row is
//! the time between two stamps: the step and the schedule's cost of
//! reaching it and the next stamp. The first row, "(two stamps)", is two
//! stamps with nothing between: that cost alone.

use crate::rng::Rng;
use crate::{Check, Instance, Scenario};
use std::time::{Duration, Instant};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "game_frame",
    what: "one frame of a predator/prey game of 20,000 entities (grass tiles, prey, predators): \
           ten systems and a sync point, with a neighbour grid, lookups by handle, a tracked \
           energy written conditionally, births and deaths through deferred commands, a reaction \
           to new animals and a watcher of changed energy",
    sizes: &[20_000],
    size_note: "",
    test_size: 2_000,
    fresh_state: false,
    impls: crate::impls![typed_ecs, hecs, bevy, raw],
    notes: "Each implementation is written from its crate's docs: typed_ecs with its `Schedule` \
            (two stages kept on the calling thread, a sync point), bevy with a chained \
            `Schedule` on its single-threaded executor, hecs with plain functions and a \
            `CommandBuffer`; raw by hand with no ECS (a `Vec` of structs, an animal's handle its \
            index), the baseline. The state persists from run to run; the populations stay \
            bounded.",
};

/// The rows of the per-system table, in frame order: the cost of two
/// stamps alone, then each step of the frame.
pub const SYSTEMS: [&str; 12] = [
    "(two stamps)",
    "movement",
    "hunger",
    "grass regrowth",
    "grid rebuild",
    "grazing",
    "hunting",
    "reproduction",
    "deaths",
    "sync point",
    "react to births",
    "watch energy",
];

// ---------------------------------------------------------------------------
// The rules, shared by every implementation
// ---------------------------------------------------------------------------

/// The most grass a tile holds.
pub const GRASS_MAX: f32 = 5.0;
/// What a tile below [`GRASS_MAX`] grows each frame.
pub const GROWTH: f32 = 0.125;
/// What a prey eats in a frame, from its tile.
pub const BITE: f32 = 1.0;
/// The energy an animal loses every [`HUNGER_EVERY`] frames.
pub const HUNGER: f32 = 1.0;
/// How often (in frames) an animal gets hungrier.
pub const HUNGER_EVERY: u64 = 4;
/// A prey with this much energy does not eat.
pub const PREY_FULL: f32 = 12.0;
/// A prey with this much energy gives birth (if its cell is not crowded).
pub const PREY_BIRTH: f32 = 10.0;
/// A prey gives birth only if its cell held at most this many prey (itself
/// included).
pub const PREY_CROWD: usize = 2;
/// A predator with this much energy does not hunt.
pub const PREDATOR_FULL: f32 = 44.0;
/// A predator with this much energy gives birth (if its cell is not
/// crowded).
pub const PREDATOR_BIRTH: f32 = 40.0;
/// A predator gives birth only if its cell held at most this many
/// predators (itself included).
pub const PREDATOR_CROWD: usize = 1;
/// A hungry predator hunts one frame in this many.
pub const POUNCE_EVERY: u64 = 16;
/// The energy a predator gains from a kill.
pub const KILL_GAIN: f32 = 10.0;
/// How far a predator reaches.
pub const HUNT_RANGE: f32 = 0.75;
/// A prey's speed, cells per frame.
pub const PREY_SPEED: f32 = 0.25;
/// A predator's speed, cells per frame.
pub const PREDATOR_SPEED: f32 = 0.375;

/// A position on the meadow, in cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::component::Component)]
pub struct Pos {
    /// Across.
    pub x: f32,
    /// Down.
    pub y: f32,
}

/// A velocity, in cells per frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::component::Component)]
pub struct Vel {
    /// Across.
    pub x: f32,
    /// Down.
    pub y: f32,
}

/// An animal's energy: tracked in typed_ecs, written only when it changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::component::Component)]
pub struct Energy(pub f32);

/// An animal's stable id: what every random choice and every order is
/// made from, the same in every crate (unlike handles).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bevy_ecs::component::Component)]
pub struct Id(pub u64);

/// Marks a prey.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::component::Component)]
pub struct Prey;

/// Marks a predator.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::component::Component)]
pub struct Predator;

/// A tile's grass.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::component::Component)]
pub struct Grass(pub f32);

/// The frame counter, advanced by the game loop before each frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::resource::Resource)]
pub struct Clock {
    /// The frame being run (1 in the first).
    pub frame: u64,
}

/// The meadow's size.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::resource::Resource)]
pub struct Land {
    /// Cells on a side.
    pub side: usize,
}

/// Births and deaths so far, and the next free id.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::resource::Resource)]
pub struct Census {
    /// Animals born (not counting the first ones).
    pub births: u64,
    /// Animals despawned.
    pub deaths: u64,
    /// The id the next newborn gets.
    pub next_id: u64,
}

/// What the reaction to births saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::resource::Resource)]
pub struct Nursery {
    /// Newly added animals given a velocity (the first ones included).
    pub welcomed: u64,
}

/// What the watcher of energy saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::resource::Resource)]
pub struct EnergyWatch {
    /// Energies seen changed (one per animal per look).
    pub changes: u64,
    /// Their sum.
    pub sum: f64,
    /// How many of them were low (below [`HUNGER`] × 2).
    pub low: u64,
}

impl EnergyWatch {
    /// Counts one changed energy.
    pub fn record(&mut self, energy: f32) {
        self.changes += 1;
        self.sum += f64::from(energy);
        self.low += u64::from(energy < 2.0 * HUNGER);
    }
}

/// The time stamps of one frame, for the per-system table (empty when
/// the frame is not stamped).
#[derive(Clone, Debug, Default, PartialEq, bevy_ecs::resource::Resource)]
pub struct Stamps(pub Vec<Instant>);

impl Stamps {
    /// Records the time now.
    pub fn stamp(&mut self) {
        self.0.push(Instant::now());
    }

    /// The times between consecutive stamps, into `out` (cleared first),
    /// and forgets the stamps.
    pub fn drain_into(&mut self, out: &mut Vec<Duration>) {
        out.clear();
        out.extend(self.0.windows(2).map(|w| w[1] - w[0]));
        self.0.clear();
    }
}

/// The time stamps of an implementation that calls its systems itself
/// (hecs, raw): whether it takes them, this frame's, and the time of each
/// step of the last frame.
#[derive(Clone, Debug, Default)]
pub struct StepTimes {
    on: bool,
    stamps: Stamps,
    times: Vec<Duration>,
}

impl StepTimes {
    /// Stamps taken if `on`, none otherwise.
    pub fn new(on: bool) -> Self {
        StepTimes {
            on,
            ..StepTimes::default()
        }
    }

    /// Records the time now, if on.
    pub fn stamp(&mut self) {
        if self.on {
            self.stamps.stamp();
        }
    }

    /// The frame is over: its steps' times are kept, its stamps forgotten.
    pub fn end_frame(&mut self) {
        self.stamps.drain_into(&mut self.times);
    }

    /// The time of each step of the last frame (none if off).
    pub fn times(&self) -> &[Duration] {
        &self.times
    }
}

/// The neighbour grid: for each cell, its tile and the `(id, handle)` of
/// the animals in it, sorted by id. `E` is the crate's handle type.
#[derive(Clone, Debug, bevy_ecs::resource::Resource)]
pub struct Grid<E: Send + Sync + 'static> {
    /// Cells on a side.
    pub side: usize,
    /// Each cell's grass tile, row by row (fixed).
    pub tiles: Vec<E>,
    /// Each cell's prey.
    pub prey: Vec<Vec<(u64, E)>>,
    /// Each cell's predators.
    pub predators: Vec<Vec<(u64, E)>>,
}

// By hand: a derive would ask `E: Default`, which handles are not.
impl<E: Send + Sync + 'static> Default for Grid<E> {
    fn default() -> Self {
        Grid {
            side: 0,
            tiles: Vec::new(),
            prey: Vec::new(),
            predators: Vec::new(),
        }
    }
}

impl<E: Copy + Send + Sync + 'static> Grid<E> {
    /// An empty grid over `tiles` (`side × side` of them, row by row).
    pub fn new(side: usize, tiles: Vec<E>) -> Self {
        assert_eq!(tiles.len(), side * side);
        Grid {
            side,
            tiles,
            prey: vec![Vec::new(); side * side],
            predators: vec![Vec::new(); side * side],
        }
    }

    /// Empties every cell (keeping the tiles).
    pub fn clear(&mut self) {
        self.prey.iter_mut().for_each(Vec::clear);
        self.predators.iter_mut().for_each(Vec::clear);
    }

    /// Puts an animal in the cell of `pos`.
    pub fn insert(&mut self, pos: Pos, id: u64, entity: E, is_prey: bool) {
        let cell = cell_of(pos, self.side);
        let cells = if is_prey {
            &mut self.prey
        } else {
            &mut self.predators
        };
        cells[cell].push((id, entity));
    }

    /// Sorts every cell's animals by id.
    pub fn sort(&mut self) {
        for cell in self.prey.iter_mut().chain(&mut self.predators) {
            cell.sort_unstable_by_key(|&(id, _)| id);
        }
    }

    /// The 3 × 3 cells around `cell` (itself included), wrapping.
    pub fn around(&self, cell: usize) -> [usize; 9] {
        let side = self.side;
        let (x, y) = (cell % side, cell / side);
        let mut out = [0; 9];
        let mut k = 0;
        for dy in [side - 1, 0, 1] {
            for dx in [side - 1, 0, 1] {
                out[k] = (y + dy) % side * side + (x + dx) % side;
                k += 1;
            }
        }
        out
    }

    /// Whether the cell of `pos` held too many of the parent's kind for
    /// a birth.
    pub fn crowded(&self, pos: Pos, is_prey: bool) -> bool {
        let cell = cell_of(pos, self.side);
        if is_prey {
            self.prey[cell].len() > PREY_CROWD
        } else {
            self.predators[cell].len() > PREDATOR_CROWD
        }
    }
}

/// The cell of `pos`, row by row.
pub fn cell_of(pos: Pos, side: usize) -> usize {
    // A position just below 0 wraps to `side` itself when rounded.
    let x = (pos.x as usize).min(side - 1);
    let y = (pos.y as usize).min(side - 1);
    y * side + x
}

/// 64 random bits from an id, a frame and a salt: every random choice.
pub fn hash(id: u64, frame: u64, salt: u64) -> u64 {
    Rng::new(
        id.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ frame.wrapping_mul(0xC2B2_AE3D_27D4_EB4F) ^ salt,
    )
    .next_u64()
}

const TURN_SALT: u64 = 0x7475_726e;
const POUNCE_SALT: u64 = 0x706f_756e;
const BIRTH_SALT: u64 = 0x6269_7274;

/// `v` after this frame's turn, if the animal turns (one in 16): a
/// quarter left or right, which keeps the speed exactly.
pub fn turned(v: Vel, id: u64, frame: u64) -> Vel {
    let bits = hash(id, frame, TURN_SALT);
    match bits % 32 {
        0 => Vel { x: -v.y, y: v.x },
        1 => Vel { x: v.y, y: -v.x },
        _ => v,
    }
}

/// A coordinate wrapped onto `0..side` (it moved less than `side`).
fn wrap(value: f32, side: f32) -> f32 {
    if value < 0.0 {
        value + side
    } else if value >= side {
        value - side
    } else {
        value
    }
}

/// `p` moved by `v` on a meadow of `side` cells.
pub fn moved(p: Pos, v: Vel, side: usize) -> Pos {
    let side = side as f32;
    Pos {
        x: wrap(p.x + v.x, side),
        y: wrap(p.y + v.y, side),
    }
}

/// Whether the animal `id` gets hungrier this frame.
pub fn hungry_now(id: u64, frame: u64) -> bool {
    (id + frame).is_multiple_of(HUNGER_EVERY)
}

/// A tile's grass after a frame's growth, if it grows.
pub fn regrown(grass: f32) -> Option<f32> {
    (grass < GRASS_MAX).then(|| (grass + GROWTH).min(GRASS_MAX))
}

/// Whether a prey with `energy` eats from a tile with `grass`.
pub fn grazes(energy: f32, grass: f32) -> bool {
    energy > 0.0 && energy < PREY_FULL && grass >= BITE
}

/// Whether the predator `id` with `energy` hunts this frame: when not
/// full, one frame in [`POUNCE_EVERY`] (a hash of its id and the frame).
pub fn hunts(energy: f32, id: u64, frame: u64) -> bool {
    energy > 0.0
        && energy < PREDATOR_FULL
        && hash(id, frame, POUNCE_SALT).is_multiple_of(POUNCE_EVERY)
}

/// The squared distance from `a` to `b` on the wrapping meadow.
pub fn distance2(a: Pos, b: Pos, side: usize) -> f32 {
    let side = side as f32;
    let dx = (a.x - b.x).abs();
    let dy = (a.y - b.y).abs();
    let dx = dx.min(side - dx);
    let dy = dy.min(side - dy);
    dx * dx + dy * dy
}

/// Whether prey `candidate` at squared distance `d2` is in reach and
/// nearer than `best` (ties broken by the smaller id): a total order, so
/// the pick does not depend on the order the prey are looked at.
pub fn nearer<E>(d2: f32, candidate: u64, best: &Option<(f32, u64, E)>) -> bool {
    d2 <= HUNT_RANGE * HUNT_RANGE
        && best
            .as_ref()
            .is_none_or(|&(b2, bid, _)| (d2, candidate) < (b2, bid))
}

/// Whether an animal with `energy` gives birth (crowding aside).
pub fn ready(energy: f32, is_prey: bool) -> bool {
    energy >= if is_prey { PREY_BIRTH } else { PREDATOR_BIRTH }
}

/// A newborn's velocity: one of eight directions, from its id, at its
/// kind's speed.
pub fn newborn_velocity(id: u64, is_prey: bool) -> Vel {
    const D: f32 = std::f32::consts::FRAC_1_SQRT_2;
    const DIRECTIONS: [(f32, f32); 8] = [
        (1.0, 0.0),
        (D, D),
        (0.0, 1.0),
        (-D, D),
        (-1.0, 0.0),
        (-D, -D),
        (0.0, -1.0),
        (D, -D),
    ];
    let (x, y) = DIRECTIONS[(hash(id, 0, BIRTH_SALT) % 8) as usize];
    let speed = if is_prey { PREY_SPEED } else { PREDATOR_SPEED };
    Vel {
        x: x * speed,
        y: y * speed,
    }
}

/// The meadow's side for `n` entities: one tile per cell, half of them.
pub fn side(n: usize) -> usize {
    ((n / 2) as f64).sqrt().round().max(4.0) as usize
}

/// The first animals: `(position, energy, id, is_prey)`, prey first, ids
/// `0..`, positions and energies from the repository's seed.
pub fn first_animals(n: usize) -> Vec<(Pos, Energy, Id, bool)> {
    let side = side(n);
    let mut rng = Rng::new(crate::rng::SEED);
    let prey = n * 3 / 10;
    let predators = n / 5;
    (0..prey + predators)
        .map(|i| {
            let is_prey = i < prey;
            // Multiples of 1/16: exact in f32 on any meadow.
            let x = rng.below(side as u64 * 16) as f32 / 16.0;
            let y = rng.below(side as u64 * 16) as f32 / 16.0;
            let energy = if is_prey {
                4.0 + rng.below(16) as f32 / 4.0
            } else {
                12.0 + rng.below(32) as f32 / 4.0
            };
            (Pos { x, y }, Energy(energy), Id(i as u64), is_prey)
        })
        .collect()
}

/// The grass of each tile at the start, row by row.
pub fn first_grass(n: usize) -> Vec<Grass> {
    let side = side(n);
    let mut rng = Rng::new(crate::rng::SEED ^ 1);
    (0..side * side)
        .map(|_| Grass(rng.below(21) as f32 / 4.0))
        .collect()
}

/// What every implementation reports: the populations and the sums of
/// their components, and the counters of the systems.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// Frames run.
    pub frames: u64,
    /// Prey alive.
    pub prey: usize,
    /// Predators alive.
    pub predators: usize,
    /// Grass tiles.
    pub tiles: usize,
    /// The sum of the grass.
    pub grass: f64,
    /// The sum of every animal's energy.
    pub energy: f64,
    /// The sum of every animal's x + y.
    pub positions: f64,
    /// The sum of every animal's |vx| + |vy|.
    pub speeds: f64,
    /// The sum of every animal's id.
    pub ids: f64,
    /// The census.
    pub census: Census,
    /// The nursery.
    pub nursery: Nursery,
    /// The watcher of energy.
    pub watch: EnergyWatch,
}

impl Tally {
    /// Counts one animal.
    pub fn animal(&mut self, pos: &Pos, vel: &Vel, energy: &Energy, id: &Id, is_prey: bool) {
        if is_prey {
            self.prey += 1;
        } else {
            self.predators += 1;
        }
        self.energy += f64::from(energy.0);
        self.positions += f64::from(pos.x) + f64::from(pos.y);
        self.speeds += f64::from(vel.x.abs()) + f64::from(vel.y.abs());
        self.ids += id.0 as f64;
    }

    /// Counts one tile.
    pub fn tile(&mut self, grass: &Grass) {
        self.tiles += 1;
        self.grass += f64::from(grass.0);
    }

    /// As a [`Check`].
    pub fn check(&self) -> Check {
        vec![
            ("frames", self.frames as f64),
            ("prey", self.prey as f64),
            ("predators", self.predators as f64),
            ("tiles", self.tiles as f64),
            ("sum of grass", self.grass),
            ("sum of energy", self.energy),
            ("sum of x + y", self.positions),
            ("sum of |v|", self.speeds),
            ("sum of ids", self.ids),
            ("births", self.census.births as f64),
            ("deaths", self.census.deaths as f64),
            ("next id", self.census.next_id as f64),
            ("welcomed", self.nursery.welcomed as f64),
            ("energies seen changed", self.watch.changes as f64),
            ("their sum", self.watch.sum),
            ("low among them", self.watch.low as f64),
        ]
    }
}

/// One implementation set up to time each system of its frame: after
/// each [`run`](Instance::run), the time of each row of [`SYSTEMS`].
pub trait SystemTimes: Instance {
    /// The time of each row of [`SYSTEMS`] in the last frame.
    fn times(&self) -> &[Duration];
    /// The populations now: `(prey, predators)`.
    fn populations(&self) -> (usize, usize);
}

/// One implementation of [`TIMED`]: its name and its stamped setup.
#[derive(Clone, Copy)]
pub struct TimedImpl {
    /// The implementation's name, as in [`SCENARIO`].
    pub name: &'static str,
    /// Makes a stamped instance at the given size.
    pub setup: fn(usize) -> Box<dyn SystemTimes>,
}

impl std::fmt::Debug for TimedImpl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The implementations with a time stamp around every step, for the
/// per-system table (the `game_frame` binary).
pub const TIMED: &[TimedImpl] = &[
    TimedImpl {
        name: "typed_ecs",
        setup: |n| Box::new(typed_ecs::setup_stamped(n)),
    },
    TimedImpl {
        name: "hecs",
        setup: |n| Box::new(hecs::setup_stamped(n)),
    },
    TimedImpl {
        name: "bevy",
        setup: |n| Box::new(bevy::setup_stamped(n)),
    },
    TimedImpl {
        name: "raw",
        setup: |n| Box::new(raw::setup_stamped(n)),
    },
];

pub mod typed_ecs {
    //! typed_ecs: a `Schedule` of typed systems.
    use super::*;
    use ::typed_ecs::prelude::*;
    use ::typed_ecs::{Lazy, Seen, Tracked};

    world! {
        /// The meadow and everything on it.
        pub struct Savanna<Pos, Vel, Energy, Id, Prey, Predator, Grass>;
        tracked (Energy);
        resources {
            clock: Clock,
            land: Land,
            grid: Grid<Entity>,
            census: Census,
            nursery: Nursery,
            watch: EnergyWatch,
            stamps: Stamps,
        }
    }

    fn movement(
        pos: &mut SparseMap<Pos>,
        vel: &mut SparseMap<Vel>,
        ids: &SparseMap<Id>,
        clock: &Clock,
        land: &Land,
    ) {
        join((pos, vel, ids)).for_each(|_, (p, v, id)| {
            *v = turned(*v, id.0, clock.frame);
            *p = moved(*p, *v, land.side);
        });
    }

    fn hunger(energy: &mut SparseMap<Energy, Tracked>, ids: &SparseMap<Id>, clock: &Clock) {
        // `Lazy`: each energy a `Mut`, marked only if written (the guide's
        // "Reacting to change").
        join((Lazy(energy), ids)).for_each(|_, (mut energy, id)| {
            if hungry_now(id.0, clock.frame) {
                energy.0 -= HUNGER;
            }
        });
    }

    fn grass_regrowth(grass: &mut SparseMap<Grass>) {
        for tile in grass.values_mut() {
            if let Some(grown) = regrown(tile.0) {
                tile.0 = grown;
            }
        }
    }

    fn grid_rebuild(
        grid: &mut Grid<Entity>,
        pos: &SparseMap<Pos>,
        ids: &SparseMap<Id>,
        prey: &SparseMap<Prey>,
        predators: &SparseMap<Predator>,
    ) {
        grid.clear();
        join((pos, ids, With(prey))).for_each(|e, (p, id, ())| grid.insert(*p, id.0, e, true));
        join((pos, ids, With(predators)))
            .for_each(|e, (p, id, ())| grid.insert(*p, id.0, e, false));
        grid.sort();
    }

    fn grazing(
        grid: &Grid<Entity>,
        grass: &mut SparseMap<Grass>,
        energy: &mut SparseMap<Energy, Tracked>,
    ) {
        for (cell, herd) in grid.prey.iter().enumerate() {
            if herd.is_empty() {
                continue;
            }
            let tile = grass.get_mut(grid.tiles[cell]).expect("a tile per cell");
            for &(_, prey) in herd {
                let mut energy = energy.get_mut_lazy(prey).expect("prey have energy");
                if grazes(energy.0, tile.0) {
                    tile.0 -= BITE;
                    energy.0 += BITE;
                }
            }
        }
    }

    fn hunting(
        grid: &Grid<Entity>,
        pos: &SparseMap<Pos>,
        energy: &mut SparseMap<Energy, Tracked>,
        clock: &Clock,
    ) {
        for (cell, pack) in grid.predators.iter().enumerate() {
            for &(hunter_id, hunter) in pack {
                let hunger = energy.get(hunter).expect("predators have energy").0;
                if !hunts(hunger, hunter_id, clock.frame) {
                    continue;
                }
                let here = *pos.get(hunter).expect("predators have a position");
                let mut best = None;
                for near in grid.around(cell) {
                    for &(id, prey) in &grid.prey[near] {
                        if energy.get(prey).is_none_or(|e| e.0 <= 0.0) {
                            continue;
                        }
                        let d2 = distance2(here, *pos.get(prey).unwrap(), grid.side);
                        if nearer(d2, id, &best) {
                            best = Some((d2, id, prey));
                        }
                    }
                }
                if let Some((_, _, prey)) = best {
                    energy.get_mut(prey).unwrap().0 = 0.0;
                    energy.get_mut(hunter).unwrap().0 += KILL_GAIN;
                }
            }
        }
    }

    /// A parent: its id, handle, kind and position.
    type Parent = (u64, Entity, bool, Pos);

    #[allow(clippy::too_many_arguments)] // a system takes what it touches
    fn reproduction(
        pos: &SparseMap<Pos>,
        energy: &mut SparseMap<Energy, Tracked>,
        ids: &SparseMap<Id>,
        prey: &SparseMap<Prey>,
        grid: &Grid<Entity>,
        census: &mut Census,
        parents: &mut Local<Vec<Parent>>,
        commands: &mut Commands<Savanna>,
    ) {
        parents.clear();
        join((&*energy, ids, pos, Has(prey))).for_each(|e, (energy, id, p, is_prey)| {
            if ready(energy.0, is_prey) {
                parents.push((id.0, e, is_prey, *p));
            }
        });
        parents.sort_unstable_by_key(|parent| parent.0);
        for &(_, parent, is_prey, p) in parents.iter() {
            if grid.crowded(p, is_prey) {
                continue;
            }
            let energy = energy.get_mut(parent).unwrap();
            energy.0 *= 0.5;
            let child = (p, Vel::default(), *energy, Id(census.next_id));
            census.next_id += 1;
            census.births += 1;
            if is_prey {
                commands.spawn_with((child.0, child.1, child.2, child.3, Prey));
            } else {
                commands.spawn_with((child.0, child.1, child.2, child.3, Predator));
            }
        }
    }

    fn deaths(
        energy: &SparseMap<Energy, Tracked>,
        census: &mut Census,
        commands: &mut Commands<Savanna>,
    ) {
        for (animal, energy) in energy.iter() {
            if energy.0 <= 0.0 {
                commands.despawn(animal);
                census.deaths += 1;
            }
        }
    }

    fn react_to_births(
        energy: &SparseMap<Energy, Tracked>,
        seen: &mut Seen<Energy>,
        vel: &mut SparseMap<Vel>,
        ids: &SparseMap<Id>,
        prey: &SparseMap<Prey>,
        nursery: &mut Nursery,
    ) {
        join((seen.added(energy), vel, ids, Has(prey))).for_each(|_, (_, v, id, is_prey)| {
            *v = newborn_velocity(id.0, is_prey);
            nursery.welcomed += 1;
        });
    }

    fn watch_energy(
        energy: &SparseMap<Energy, Tracked>,
        seen: &mut Seen<Energy>,
        watch: &mut EnergyWatch,
    ) {
        join(seen.changed(energy)).for_each(|_, energy| watch.record(energy.0));
    }

    fn stamp(stamps: &mut Stamps) {
        stamps.stamp();
    }

    /// The members of the schedule's stages, by name, in order: the steps
    /// that may go to rayon's pool.
    pub const STAGES: [&[&str]; 2] = [
        &["movement", "hunger", "grass_regrowth"],
        &["react_to_births", "watch_energy"],
    ];

    /// The world, its schedule, and the times of the last stamped frame.
    pub struct State {
        /// The world.
        pub world: Savanna,
        schedule: Schedule<Savanna>,
        times: Vec<Duration>,
    }

    /// The world at the start, and the frame's schedule (with a stamp
    /// around every step if `stamped`), single-threaded: the schedule's
    /// `parallel_work` at `Duration::MAX`.
    pub fn build(n: usize, stamped: bool) -> State {
        build_with(n, stamped, Some(Duration::MAX))
    }

    /// The world at the start, and the frame's schedule (with a stamp
    /// around every step if `stamped`), its `parallel_work` set to
    /// `parallel_work`, or left at typed_ecs's default (40 µs) if `None`.
    pub fn build_with(n: usize, stamped: bool, parallel_work: Option<Duration>) -> State {
        let mut world = Savanna::new();
        let side = side(n);
        world.land.side = side;
        let tiles: Vec<Entity> = first_grass(n)
            .into_iter()
            .map(|g| world.spawn_with((g,)))
            .collect();
        world.grid = Grid::new(side, tiles);
        let first = first_animals(n);
        world.census.next_id = first.len() as u64;
        for (p, energy, id, is_prey) in first {
            if is_prey {
                world.spawn_with((p, Vel::default(), energy, id, Prey));
            } else {
                world.spawn_with((p, Vel::default(), energy, id, Predator));
            }
        }

        let mut schedule = Schedule::new();
        // `Duration::MAX`: single-threaded, as bevy's single-threaded
        // executor: stages stay on the calling thread whatever their
        // members cost. `None`: what a user gets without asking.
        if let Some(work) = parallel_work {
            schedule.set_parallel_work(work);
        }
        if stamped {
            schedule
                .add_system(stamp)
                .add_system(stamp)
                .add_system(movement)
                .add_system(stamp)
                .add_system(hunger)
                .add_system(stamp)
                .add_system(grass_regrowth)
                .add_system(stamp)
                .add_system(grid_rebuild)
                .add_system(stamp)
                .add_system(grazing)
                .add_system(stamp)
                .add_system(hunting)
                .add_system(stamp)
                .add_system(reproduction)
                .add_system(stamp)
                .add_system(deaths)
                .add_system(stamp)
                .add_sync_point()
                .add_system(stamp)
                .add_system(react_to_births)
                .add_system(stamp)
                .add_system(watch_energy)
                .add_system(stamp);
        } else {
            schedule
                .add_systems((movement, hunger, grass_regrowth))
                .add_system(grid_rebuild)
                .add_system(grazing)
                .add_system(hunting)
                .add_system(reproduction)
                .add_system(deaths)
                .add_sync_point()
                .add_systems((react_to_births, watch_energy));
        }
        State {
            world,
            schedule,
            times: Vec::new(),
        }
    }

    /// The scenario's instance.
    pub fn setup(n: usize) -> State {
        build(n, false)
    }

    /// The instance with a stamp around every step.
    pub fn setup_stamped(n: usize) -> State {
        build(n, true)
    }

    /// The instance with typed_ecs's parallel stages on, as a user gets
    /// them: the schedule's `parallel_work` left at its default (40 µs),
    /// so a stage goes to rayon's pool when its members' work at its last
    /// run reached that, and stays on the calling thread otherwise.
    pub fn setup_parallel(n: usize) -> State {
        build_with(n, false, None)
    }

    impl State {
        /// The schedule's `parallel_work` (see
        /// `Schedule::set_parallel_work`).
        pub fn parallel_work(&self) -> Duration {
            self.schedule.parallel_work()
        }

        /// Runs one frame with `Schedule::run_timed`, each step's time
        /// recorded in `stats`: the frame moves the state on as
        /// [`run`](Instance::run) does.
        pub fn run_timed(&mut self, stats: &mut ::typed_ecs::ScheduleStats) {
            self.world.clock.frame += 1;
            self.schedule.run_timed(&mut self.world, stats);
            self.world.stamps.0.clear();
        }
    }

    /// Each step's name (the function's, without its path; `"frame"` for
    /// the whole frame) and median time in `stats`: for a stage, what
    /// decides whether it goes to the pool is the sum of its members'
    /// times against the schedule's `parallel_work`.
    pub fn step_medians(stats: &::typed_ecs::ScheduleStats) -> Vec<(String, Duration)> {
        stats
            .summary()
            .into_iter()
            .map(|step| {
                let name = step.name.rsplit("::").next().unwrap_or_default();
                (name.to_string(), step.median)
            })
            .collect()
    }

    impl Instance for State {
        fn run(&mut self) {
            self.world.clock.frame += 1;
            self.schedule.run(&mut self.world);
            self.world.stamps.drain_into(&mut self.times);
        }
        fn check(&self) -> Check {
            let w = &self.world;
            let mut tally = Tally {
                frames: w.clock.frame,
                census: w.census,
                nursery: w.nursery,
                watch: w.watch,
                ..Tally::default()
            };
            for (_, (p, v, energy, id, is_prey)) in
                w.query::<(&Pos, &Vel, &Energy, &Id, Has<Prey>)>()
            {
                tally.animal(p, v, energy, id, is_prey);
            }
            w.grass.values().iter().for_each(|g| tally.tile(g));
            tally.check()
        }
    }

    impl SystemTimes for State {
        fn times(&self) -> &[Duration] {
            &self.times
        }
        fn populations(&self) -> (usize, usize) {
            (self.world.prey.len(), self.world.predator.len())
        }
    }
}

pub mod bevy {
    //! bevy: a chained `Schedule` on the single-threaded executor.
    use super::*;
    use ::bevy_ecs::prelude::*;
    use ::bevy_ecs::schedule::{ScheduleBuildSettings, SingleThreadedExecutor};

    fn movement(mut animals: Query<(&mut Pos, &mut Vel, &Id)>, clock: Res<Clock>, land: Res<Land>) {
        for (mut p, mut v, id) in &mut animals {
            *v = turned(*v, id.0, clock.frame);
            *p = moved(*p, *v, land.side);
        }
    }

    fn hunger(mut animals: Query<(&mut Energy, &Id)>, clock: Res<Clock>) {
        for (mut energy, id) in &mut animals {
            if hungry_now(id.0, clock.frame) {
                energy.0 -= HUNGER;
            }
        }
    }

    fn grass_regrowth(mut tiles: Query<&mut Grass>) {
        for mut tile in &mut tiles {
            if let Some(grown) = regrown(tile.0) {
                tile.0 = grown;
            }
        }
    }

    fn grid_rebuild(
        mut grid: ResMut<Grid<Entity>>,
        prey: Query<(Entity, &Pos, &Id), With<Prey>>,
        predators: Query<(Entity, &Pos, &Id), With<Predator>>,
    ) {
        grid.clear();
        for (e, p, id) in &prey {
            grid.insert(*p, id.0, e, true);
        }
        for (e, p, id) in &predators {
            grid.insert(*p, id.0, e, false);
        }
        grid.sort();
    }

    fn grazing(
        grid: Res<Grid<Entity>>,
        mut tiles: Query<&mut Grass>,
        mut energy: Query<&mut Energy>,
    ) {
        for (cell, herd) in grid.prey.iter().enumerate() {
            if herd.is_empty() {
                continue;
            }
            let mut tile = tiles.get_mut(grid.tiles[cell]).expect("a tile per cell");
            for &(_, prey) in herd {
                let mut energy = energy.get_mut(prey).expect("prey have energy");
                if grazes(energy.0, tile.0) {
                    tile.0 -= BITE;
                    energy.0 += BITE;
                }
            }
        }
    }

    fn hunting(
        grid: Res<Grid<Entity>>,
        mut animals: Query<(&Pos, &mut Energy)>,
        clock: Res<Clock>,
    ) {
        for (cell, pack) in grid.predators.iter().enumerate() {
            for &(hunter_id, hunter) in pack {
                let (here, energy) = animals.get(hunter).expect("predators are animals");
                if !hunts(energy.0, hunter_id, clock.frame) {
                    continue;
                }
                let here = *here;
                let mut best = None;
                for near in grid.around(cell) {
                    for &(id, prey) in &grid.prey[near] {
                        let Ok((there, energy)) = animals.get(prey) else {
                            continue;
                        };
                        if energy.0 <= 0.0 {
                            continue;
                        }
                        let d2 = distance2(here, *there, grid.side);
                        if nearer(d2, id, &best) {
                            best = Some((d2, id, prey));
                        }
                    }
                }
                if let Some((_, _, prey)) = best {
                    animals.get_mut(prey).unwrap().1 .0 = 0.0;
                    animals.get_mut(hunter).unwrap().1 .0 += KILL_GAIN;
                }
            }
        }
    }

    /// A parent: its id, handle, kind and position.
    type Parent = (u64, Entity, bool, Pos);

    fn reproduction(
        mut animals: Query<(Entity, &Pos, &mut Energy, &Id, Has<Prey>)>,
        grid: Res<Grid<Entity>>,
        mut census: ResMut<Census>,
        mut parents: Local<Vec<Parent>>,
        mut commands: Commands,
    ) {
        parents.clear();
        for (e, p, energy, id, is_prey) in &animals {
            if ready(energy.0, is_prey) {
                parents.push((id.0, e, is_prey, *p));
            }
        }
        parents.sort_unstable_by_key(|parent| parent.0);
        for &(_, parent, is_prey, p) in parents.iter() {
            if grid.crowded(p, is_prey) {
                continue;
            }
            let (_, _, mut energy, _, _) = animals.get_mut(parent).unwrap();
            energy.0 *= 0.5;
            let child = (p, Vel::default(), *energy, Id(census.next_id));
            census.next_id += 1;
            census.births += 1;
            if is_prey {
                commands.spawn((child.0, child.1, child.2, child.3, Prey));
            } else {
                commands.spawn((child.0, child.1, child.2, child.3, Predator));
            }
        }
    }

    fn deaths(
        animals: Query<(Entity, &Energy)>,
        mut census: ResMut<Census>,
        mut commands: Commands,
    ) {
        for (animal, energy) in &animals {
            if energy.0 <= 0.0 {
                commands.entity(animal).despawn();
                census.deaths += 1;
            }
        }
    }

    fn react_to_births(
        mut newborns: Query<(&mut Vel, &Id, Has<Prey>), Added<Energy>>,
        mut nursery: ResMut<Nursery>,
    ) {
        for (mut v, id, is_prey) in &mut newborns {
            *v = newborn_velocity(id.0, is_prey);
            nursery.welcomed += 1;
        }
    }

    fn watch_energy(changed: Query<&Energy, Changed<Energy>>, mut watch: ResMut<EnergyWatch>) {
        for energy in &changed {
            watch.record(energy.0);
        }
    }

    fn stamp(mut stamps: ResMut<Stamps>) {
        stamps.stamp();
    }

    /// The world, its schedule, and the times of the last stamped frame.
    pub struct State {
        /// The world.
        pub world: World,
        schedule: Schedule,
        times: Vec<Duration>,
    }

    /// The world at the start, and the frame's schedule (with a stamp
    /// around every step if `stamped`) on the single-threaded executor.
    pub fn build(n: usize, stamped: bool) -> State {
        build_with(n, stamped, false)
    }

    /// The world at the start, and the frame's schedule: with a stamp
    /// around every step if `stamped`, all chained on the single-threaded
    /// executor; or, if `multi` (which needs this crate's
    /// `bevy_multi_threaded` feature), on the `MultiThreadedExecutor` with
    /// the systems ordered as typed_ecs's schedule: its stages' members
    /// unordered among themselves, every other step chained.
    pub fn build_with(n: usize, stamped: bool, multi: bool) -> State {
        assert!(
            !(stamped && multi),
            "the multi-threaded frame has no stamps"
        );
        let mut world = World::new();
        let side = side(n);
        world.insert_resource(Clock::default());
        world.insert_resource(Land { side });
        let tiles: Vec<Entity> = world.spawn_batch(first_grass(n)).collect();
        world.insert_resource(Grid::new(side, tiles));
        let first = first_animals(n);
        world.insert_resource(Census {
            next_id: first.len() as u64,
            ..Census::default()
        });
        world.insert_resource(Nursery::default());
        world.insert_resource(EnergyWatch::default());
        world.insert_resource(Stamps::default());
        for (p, energy, id, is_prey) in first {
            if is_prey {
                world.spawn((p, Vel::default(), energy, id, Prey));
            } else {
                world.spawn((p, Vel::default(), energy, id, Predator));
            }
        }

        let mut schedule = Schedule::default();
        // The sync point where typed_ecs has its own, and nowhere else.
        schedule.set_build_settings(ScheduleBuildSettings {
            auto_insert_apply_deferred: false,
            ..ScheduleBuildSettings::default()
        });
        if multi {
            crate::scenarios::parallel_stage::bevy::set_executor(&mut schedule, true);
        } else {
            schedule.set_executor(SingleThreadedExecutor::new());
        }
        if multi {
            // typed_ecs's stages, unordered inside; the rest in order.
            schedule.add_systems(
                (
                    (movement, hunger, grass_regrowth),
                    grid_rebuild,
                    grazing,
                    hunting,
                    reproduction,
                    deaths,
                    ApplyDeferred,
                    (react_to_births, watch_energy),
                )
                    .chain(),
            );
        } else if stamped {
            schedule.add_systems(
                (
                    (
                        stamp,
                        stamp,
                        movement,
                        stamp,
                        hunger,
                        stamp,
                        grass_regrowth,
                        stamp,
                        grid_rebuild,
                        stamp,
                        grazing,
                        stamp,
                    )
                        .chain(),
                    (
                        hunting,
                        stamp,
                        reproduction,
                        stamp,
                        deaths,
                        stamp,
                        ApplyDeferred,
                        stamp,
                        react_to_births,
                        stamp,
                        watch_energy,
                        stamp,
                    )
                        .chain(),
                )
                    .chain(),
            );
        } else {
            schedule.add_systems(
                (
                    movement,
                    hunger,
                    grass_regrowth,
                    grid_rebuild,
                    grazing,
                    hunting,
                    reproduction,
                    deaths,
                    ApplyDeferred,
                    react_to_births,
                    watch_energy,
                )
                    .chain(),
            );
        }
        schedule
            .initialize(&mut world)
            .expect("the schedule builds");
        State {
            world,
            schedule,
            times: Vec::new(),
        }
    }

    /// The scenario's instance.
    pub fn setup(n: usize) -> State {
        build(n, false)
    }

    /// The instance with a stamp around every step.
    pub fn setup_stamped(n: usize) -> State {
        build(n, true)
    }

    /// The instance on bevy's `MultiThreadedExecutor` (and its
    /// `ComputeTaskPool`, a thread per core), its systems ordered as
    /// typed_ecs's schedule (see [`build_with`]).
    #[cfg(feature = "bevy_multi_threaded")]
    pub fn setup_multi_threaded(n: usize) -> State {
        build_with(n, false, true)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.world.resource_mut::<Clock>().frame += 1;
            self.schedule.run(&mut self.world);
            let mut stamps = self.world.resource_mut::<Stamps>();
            stamps.drain_into(&mut self.times);
        }
        fn check(&self) -> Check {
            let w = &self.world;
            let mut tally = Tally {
                frames: w.resource::<Clock>().frame,
                census: *w.resource::<Census>(),
                nursery: *w.resource::<Nursery>(),
                watch: *w.resource::<EnergyWatch>(),
                ..Tally::default()
            };
            let mut animals = w
                .try_query::<(&Pos, &Vel, &Energy, &Id, Has<Prey>)>()
                .expect("registered");
            for (p, v, energy, id, is_prey) in animals.iter(w) {
                tally.animal(p, v, energy, id, is_prey);
            }
            let mut tiles = w.try_query::<&Grass>().expect("registered");
            tiles.iter(w).for_each(|g| tally.tile(g));
            tally.check()
        }
    }

    impl SystemTimes for State {
        fn times(&self) -> &[Duration] {
            &self.times
        }
        fn populations(&self) -> (usize, usize) {
            let w = &self.world;
            let prey = w
                .try_query_filtered::<(), With<Prey>>()
                .map_or(0, |mut q| q.iter(w).count());
            let predators = w
                .try_query_filtered::<(), With<Predator>>()
                .map_or(0, |mut q| q.iter(w).count());
            (prey, predators)
        }
    }
}

pub mod hecs {
    //! hecs: plain functions and a `CommandBuffer`.
    use super::*;
    use ::hecs::{CommandBuffer, Entity, World};

    /// Everything a hecs game keeps beside its world.
    pub struct State {
        /// The world.
        pub world: World,
        clock: Clock,
        land: Land,
        grid: Grid<Entity>,
        census: Census,
        nursery: Nursery,
        watch: EnergyWatch,
        commands: CommandBuffer,
        /// Animals spawned and not yet reacted to.
        newborns: Vec<Entity>,
        /// Animals whose energy was written since the watcher last looked.
        dirty: Vec<Entity>,
        parents: Vec<(u64, Entity, bool, Pos)>,
        steps: StepTimes,
    }

    fn movement(world: &mut World, clock: &Clock, land: &Land) {
        for (p, v, id) in world.query_mut::<(&mut Pos, &mut Vel, &Id)>() {
            *v = turned(*v, id.0, clock.frame);
            *p = moved(*p, *v, land.side);
        }
    }

    fn hunger(world: &mut World, clock: &Clock, dirty: &mut Vec<Entity>) {
        for (animal, energy, id) in world.query_mut::<(Entity, &mut Energy, &Id)>() {
            if hungry_now(id.0, clock.frame) {
                energy.0 -= HUNGER;
                dirty.push(animal);
            }
        }
    }

    fn grass_regrowth(world: &mut World) {
        for tile in world.query_mut::<&mut Grass>() {
            if let Some(grown) = regrown(tile.0) {
                tile.0 = grown;
            }
        }
    }

    fn grid_rebuild(world: &mut World, grid: &mut Grid<Entity>) {
        grid.clear();
        for (e, p, id) in world.query_mut::<(Entity, &Pos, &Id)>().with::<&Prey>() {
            grid.insert(*p, id.0, e, true);
        }
        for (e, p, id) in world.query_mut::<(Entity, &Pos, &Id)>().with::<&Predator>() {
            grid.insert(*p, id.0, e, false);
        }
        grid.sort();
    }

    fn grazing(world: &mut World, grid: &Grid<Entity>, dirty: &mut Vec<Entity>) {
        let mut tiles = world.view::<&mut Grass>();
        let mut energies = world.view::<&mut Energy>();
        for (cell, herd) in grid.prey.iter().enumerate() {
            if herd.is_empty() {
                continue;
            }
            let tile = tiles.get_mut(grid.tiles[cell]).expect("a tile per cell");
            for &(_, prey) in herd {
                let energy = energies.get_mut(prey).expect("prey have energy");
                if grazes(energy.0, tile.0) {
                    tile.0 -= BITE;
                    energy.0 += BITE;
                    dirty.push(prey);
                }
            }
        }
    }

    fn hunting(world: &mut World, grid: &Grid<Entity>, clock: &Clock, dirty: &mut Vec<Entity>) {
        let mut animals = world.view_mut::<(&Pos, &mut Energy)>();
        for (cell, pack) in grid.predators.iter().enumerate() {
            for &(hunter_id, hunter) in pack {
                let (here, energy) = animals.get_mut(hunter).expect("predators are animals");
                if !hunts(energy.0, hunter_id, clock.frame) {
                    continue;
                }
                let here = *here;
                let mut best = None;
                for near in grid.around(cell) {
                    for &(id, prey) in &grid.prey[near] {
                        let Some((there, energy)) = animals.get_mut(prey) else {
                            continue;
                        };
                        if energy.0 <= 0.0 {
                            continue;
                        }
                        let d2 = distance2(here, *there, grid.side);
                        if nearer(d2, id, &best) {
                            best = Some((d2, id, prey));
                        }
                    }
                }
                if let Some((_, _, prey)) = best {
                    animals.get_mut(prey).unwrap().1 .0 = 0.0;
                    animals.get_mut(hunter).unwrap().1 .0 += KILL_GAIN;
                    dirty.push(prey);
                    dirty.push(hunter);
                }
            }
        }
    }

    fn reproduction(state: &mut State) {
        let State {
            world,
            grid,
            census,
            commands,
            newborns,
            dirty,
            parents,
            ..
        } = state;
        parents.clear();
        for (e, p, energy, id, prey) in
            world.query_mut::<(Entity, &Pos, &Energy, &Id, Option<&Prey>)>()
        {
            let is_prey = prey.is_some();
            if ready(energy.0, is_prey) {
                parents.push((id.0, e, is_prey, *p));
            }
        }
        parents.sort_unstable_by_key(|parent| parent.0);
        for &(_, parent, is_prey, p) in parents.iter() {
            if grid.crowded(p, is_prey) {
                continue;
            }
            let energy = world.query_one_mut::<&mut Energy>(parent).unwrap();
            energy.0 *= 0.5;
            let child = (p, Vel::default(), *energy, Id(census.next_id));
            census.next_id += 1;
            census.births += 1;
            let newborn = world.reserve_entity();
            if is_prey {
                commands.insert(newborn, (child.0, child.1, child.2, child.3, Prey));
            } else {
                commands.insert(newborn, (child.0, child.1, child.2, child.3, Predator));
            }
            newborns.push(newborn);
            dirty.push(parent);
            dirty.push(newborn);
        }
    }

    fn deaths(world: &mut World, census: &mut Census, commands: &mut CommandBuffer) {
        for (animal, energy) in world.query_mut::<(Entity, &Energy)>() {
            if energy.0 <= 0.0 {
                commands.despawn(animal);
                census.deaths += 1;
            }
        }
    }

    fn react_to_births(world: &mut World, newborns: &mut Vec<Entity>, nursery: &mut Nursery) {
        let mut animals = world.view_mut::<(&mut Vel, &Id, Option<&Prey>)>();
        for newborn in newborns.drain(..) {
            if let Some((v, id, prey)) = animals.get_mut(newborn) {
                *v = newborn_velocity(id.0, prey.is_some());
                nursery.welcomed += 1;
            }
        }
    }

    fn watch_energy(world: &mut World, dirty: &mut Vec<Entity>, watch: &mut EnergyWatch) {
        dirty.sort_unstable();
        dirty.dedup();
        let energies = world.view_mut::<&Energy>();
        for animal in dirty.drain(..) {
            if let Some(energy) = energies.get(animal) {
                watch.record(energy.0);
            }
        }
    }

    /// The world at the start (with a stamp around every step if
    /// `stamped`).
    pub fn build(n: usize, stamped: bool) -> State {
        let mut world = World::new();
        let side = side(n);
        let tiles: Vec<Entity> = world
            .spawn_batch(first_grass(n).into_iter().map(|g| (g,)))
            .collect();
        let first = first_animals(n);
        let next_id = first.len() as u64;
        // Every first animal is new to the reaction and the watcher, as
        // a first run of a system sees everything in typed_ecs and bevy.
        let mut newborns = Vec::with_capacity(first.len());
        for (p, energy, id, is_prey) in first {
            newborns.push(if is_prey {
                world.spawn((p, Vel::default(), energy, id, Prey))
            } else {
                world.spawn((p, Vel::default(), energy, id, Predator))
            });
        }
        State {
            world,
            clock: Clock::default(),
            land: Land { side },
            grid: Grid::new(side, tiles),
            census: Census {
                next_id,
                ..Census::default()
            },
            nursery: Nursery::default(),
            watch: EnergyWatch::default(),
            commands: CommandBuffer::new(),
            dirty: newborns.clone(),
            newborns,
            parents: Vec::new(),
            steps: StepTimes::new(stamped),
        }
    }

    /// The scenario's instance.
    pub fn setup(n: usize) -> State {
        build(n, false)
    }

    /// The instance with a stamp around every step.
    pub fn setup_stamped(n: usize) -> State {
        build(n, true)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.clock.frame += 1;
            self.steps.stamp();
            self.steps.stamp();
            movement(&mut self.world, &self.clock, &self.land);
            self.steps.stamp();
            hunger(&mut self.world, &self.clock, &mut self.dirty);
            self.steps.stamp();
            grass_regrowth(&mut self.world);
            self.steps.stamp();
            grid_rebuild(&mut self.world, &mut self.grid);
            self.steps.stamp();
            grazing(&mut self.world, &self.grid, &mut self.dirty);
            self.steps.stamp();
            hunting(&mut self.world, &self.grid, &self.clock, &mut self.dirty);
            self.steps.stamp();
            reproduction(self);
            self.steps.stamp();
            deaths(&mut self.world, &mut self.census, &mut self.commands);
            self.steps.stamp();
            self.commands.run_on(&mut self.world);
            self.steps.stamp();
            react_to_births(&mut self.world, &mut self.newborns, &mut self.nursery);
            self.steps.stamp();
            watch_energy(&mut self.world, &mut self.dirty, &mut self.watch);
            self.steps.stamp();
            self.steps.end_frame();
        }
        fn check(&self) -> Check {
            let mut tally = Tally {
                frames: self.clock.frame,
                census: self.census,
                nursery: self.nursery,
                watch: self.watch,
                ..Tally::default()
            };
            for (p, v, energy, id, prey) in self
                .world
                .query::<(&Pos, &Vel, &Energy, &Id, Option<&Prey>)>()
                .iter()
            {
                tally.animal(p, v, energy, id, prey.is_some());
            }
            for g in self.world.query::<&Grass>().iter() {
                tally.tile(g);
            }
            tally.check()
        }
    }

    impl SystemTimes for State {
        fn times(&self) -> &[Duration] {
            self.steps.times()
        }
        fn populations(&self) -> (usize, usize) {
            let prey = self.world.query::<&Prey>().iter().count();
            let predators = self.world.query::<&Predator>().iter().count();
            (prey, predators)
        }
    }
}

pub mod raw {
    //! The plain-`Vec` baseline: the game written by hand with no ECS, the
    //! plain way. The animals are one `Vec` of structs, and an animal's
    //! handle is its index there: nothing moves between the sync points,
    //! so the grid's indices hold for the frame, and the newborns' for the
    //! reaction after the sync point that pushed them. The tiles are a
    //! `Vec` indexed by cell. Births and deaths are queued and applied at
    //! the sync point, as in the ECS versions: the deaths first, each
    //! swapped with the last animal (from the highest index down, so that
    //! no dead animal is moved), then the births pushed. Every write of an
    //! energy sets a flag beside it, which the watcher reads and clears in
    //! one pass over the animals.
    use super::*;

    /// An animal: every component of it, side by side.
    #[derive(Clone, Copy, Debug)]
    struct Animal {
        pos: Pos,
        vel: Vel,
        energy: Energy,
        id: Id,
        is_prey: bool,
        /// Whether its energy was written (or it was born) since the
        /// watcher last looked.
        energy_changed: bool,
    }

    /// The whole game.
    pub struct State {
        /// The animals; an animal's handle is its index.
        animals: Vec<Animal>,
        /// Each cell's grass, row by row.
        grass: Vec<Grass>,
        clock: Clock,
        land: Land,
        /// The grid of animals' indices; a cell's tile is `grass[cell]`.
        grid: Grid<usize>,
        census: Census,
        nursery: Nursery,
        watch: EnergyWatch,
        /// Newborns queued for the sync point.
        births: Vec<Animal>,
        /// The indices of the animals that die at the sync point, in
        /// increasing order.
        deaths: Vec<usize>,
        /// The indices of the animals born at the last sync point and not
        /// yet reacted to.
        newborns: Vec<usize>,
        /// Whether the first animals are still to be reacted to: the
        /// first sync point lists every one that survived it.
        first_unwelcomed: bool,
        parents: Vec<(u64, usize)>,
        steps: StepTimes,
    }

    fn movement(animals: &mut [Animal], clock: &Clock, land: &Land) {
        for a in animals {
            a.vel = turned(a.vel, a.id.0, clock.frame);
            a.pos = moved(a.pos, a.vel, land.side);
        }
    }

    fn hunger(animals: &mut [Animal], clock: &Clock) {
        for a in animals {
            if hungry_now(a.id.0, clock.frame) {
                a.energy.0 -= HUNGER;
                a.energy_changed = true;
            }
        }
    }

    fn grass_regrowth(grass: &mut [Grass]) {
        for tile in grass {
            if let Some(grown) = regrown(tile.0) {
                tile.0 = grown;
            }
        }
    }

    fn grid_rebuild(animals: &[Animal], grid: &mut Grid<usize>) {
        grid.clear();
        for (index, a) in animals.iter().enumerate() {
            grid.insert(a.pos, a.id.0, index, a.is_prey);
        }
        grid.sort();
    }

    fn grazing(animals: &mut [Animal], grass: &mut [Grass], grid: &Grid<usize>) {
        for (herd, tile) in grid.prey.iter().zip(grass) {
            for &(_, prey) in herd {
                let a = &mut animals[prey];
                if grazes(a.energy.0, tile.0) {
                    tile.0 -= BITE;
                    a.energy.0 += BITE;
                    a.energy_changed = true;
                }
            }
        }
    }

    fn hunting(animals: &mut [Animal], grid: &Grid<usize>, clock: &Clock) {
        for (cell, pack) in grid.predators.iter().enumerate() {
            for &(hunter_id, hunter) in pack {
                let a = &animals[hunter];
                if !hunts(a.energy.0, hunter_id, clock.frame) {
                    continue;
                }
                let here = a.pos;
                let mut best = None;
                for near in grid.around(cell) {
                    for &(id, prey) in &grid.prey[near] {
                        let there = &animals[prey];
                        if there.energy.0 <= 0.0 {
                            continue;
                        }
                        let d2 = distance2(here, there.pos, grid.side);
                        if nearer(d2, id, &best) {
                            best = Some((d2, id, prey));
                        }
                    }
                }
                if let Some((_, _, prey)) = best {
                    let prey = &mut animals[prey];
                    prey.energy.0 = 0.0;
                    prey.energy_changed = true;
                    let hunter = &mut animals[hunter];
                    hunter.energy.0 += KILL_GAIN;
                    hunter.energy_changed = true;
                }
            }
        }
    }

    fn reproduction(state: &mut State) {
        let State {
            animals,
            grid,
            census,
            births,
            parents,
            ..
        } = state;
        parents.clear();
        for (index, a) in animals.iter().enumerate() {
            if ready(a.energy.0, a.is_prey) {
                parents.push((a.id.0, index));
            }
        }
        parents.sort_unstable_by_key(|parent| parent.0);
        for &(_, parent) in parents.iter() {
            let a = &mut animals[parent];
            if grid.crowded(a.pos, a.is_prey) {
                continue;
            }
            a.energy.0 *= 0.5;
            a.energy_changed = true;
            births.push(Animal {
                pos: a.pos,
                vel: Vel::default(),
                energy: a.energy,
                id: Id(census.next_id),
                is_prey: a.is_prey,
                energy_changed: true,
            });
            census.next_id += 1;
            census.births += 1;
        }
    }

    fn deaths(animals: &[Animal], census: &mut Census, deaths: &mut Vec<usize>) {
        for (index, a) in animals.iter().enumerate() {
            if a.energy.0 <= 0.0 {
                deaths.push(index);
                census.deaths += 1;
            }
        }
    }

    /// The sync point: the queued deaths, from the highest index down
    /// (the last animal, swapped into a dead one's place, is alive), then
    /// the queued births, each listed for the reaction (and, at the first,
    /// every first animal left).
    fn sync(state: &mut State) {
        for index in state.deaths.drain(..).rev() {
            state.animals.swap_remove(index);
        }
        if std::mem::take(&mut state.first_unwelcomed) {
            state.newborns.extend(0..state.animals.len());
        }
        for animal in state.births.drain(..) {
            state.newborns.push(state.animals.len());
            state.animals.push(animal);
        }
    }

    fn react_to_births(animals: &mut [Animal], newborns: &mut Vec<usize>, nursery: &mut Nursery) {
        for newborn in newborns.drain(..) {
            let a = &mut animals[newborn];
            a.vel = newborn_velocity(a.id.0, a.is_prey);
            nursery.welcomed += 1;
        }
    }

    fn watch_energy(animals: &mut [Animal], watch: &mut EnergyWatch) {
        for a in animals {
            if a.energy_changed {
                a.energy_changed = false;
                watch.record(a.energy.0);
            }
        }
    }

    /// The game at the start (with a stamp around every step if
    /// `stamped`).
    pub fn build(n: usize, stamped: bool) -> State {
        let side = side(n);
        let grass = first_grass(n);
        // Every first animal is new to the reaction and the watcher, as
        // a first run of a system sees everything in typed_ecs and bevy.
        let animals: Vec<Animal> = first_animals(n)
            .into_iter()
            .map(|(pos, energy, id, is_prey)| Animal {
                pos,
                vel: Vel::default(),
                energy,
                id,
                is_prey,
                energy_changed: true,
            })
            .collect();
        let next_id = animals.len() as u64;
        State {
            animals,
            newborns: Vec::new(),
            first_unwelcomed: true,
            // The tiles are the cells.
            grid: Grid::new(side, (0..grass.len()).collect()),
            grass,
            clock: Clock::default(),
            land: Land { side },
            census: Census {
                next_id,
                ..Census::default()
            },
            nursery: Nursery::default(),
            watch: EnergyWatch::default(),
            births: Vec::new(),
            deaths: Vec::new(),
            parents: Vec::new(),
            steps: StepTimes::new(stamped),
        }
    }

    /// The scenario's instance.
    pub fn setup(n: usize) -> State {
        build(n, false)
    }

    /// The instance with a stamp around every step.
    pub fn setup_stamped(n: usize) -> State {
        build(n, true)
    }

    impl Instance for State {
        fn run(&mut self) {
            self.clock.frame += 1;
            self.steps.stamp();
            self.steps.stamp();
            movement(&mut self.animals, &self.clock, &self.land);
            self.steps.stamp();
            hunger(&mut self.animals, &self.clock);
            self.steps.stamp();
            grass_regrowth(&mut self.grass);
            self.steps.stamp();
            grid_rebuild(&self.animals, &mut self.grid);
            self.steps.stamp();
            grazing(&mut self.animals, &mut self.grass, &self.grid);
            self.steps.stamp();
            hunting(&mut self.animals, &self.grid, &self.clock);
            self.steps.stamp();
            reproduction(self);
            self.steps.stamp();
            deaths(&self.animals, &mut self.census, &mut self.deaths);
            self.steps.stamp();
            sync(self);
            self.steps.stamp();
            react_to_births(&mut self.animals, &mut self.newborns, &mut self.nursery);
            self.steps.stamp();
            watch_energy(&mut self.animals, &mut self.watch);
            self.steps.stamp();
            self.steps.end_frame();
        }
        fn check(&self) -> Check {
            let mut tally = Tally {
                frames: self.clock.frame,
                census: self.census,
                nursery: self.nursery,
                watch: self.watch,
                ..Tally::default()
            };
            for a in &self.animals {
                tally.animal(&a.pos, &a.vel, &a.energy, &a.id, a.is_prey);
            }
            for g in &self.grass {
                tally.tile(g);
            }
            tally.check()
        }
    }

    impl SystemTimes for State {
        fn times(&self) -> &[Duration] {
            self.steps.times()
        }
        fn populations(&self) -> (usize, usize) {
            let prey = self.animals.iter().filter(|a| a.is_prey).count();
            (prey, self.animals.len() - prey)
        }
    }
}
