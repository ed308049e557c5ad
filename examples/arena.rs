//! A small, complete game loop: the example to copy when you start a game.
//!
//! A player patrols the middle of an arena while waves of monsters crawl in
//! from the edges to reach them. The player's turret shoots the nearest
//! monster; a hit costs the monster health and stuns it for a moment, and a
//! monster at 0 health dies. A monster that reaches the player bites them and
//! is gone.
//!
//! Several levels run side by side. Each is its own world (one `world!`
//! type, one value per level) with its own `Schedule`, and one main loop
//! steps them all at a fixed 60 Hz.
//!
//! Every system is a plain function whose parameters say what it touches:
//! `&SparseMap<Position>` reads positions, `&mut SparseMap<Velocity>` writes
//! velocities, `&mut Scoreboard` writes a *resource* (one value for the whole
//! level, declared in `resources { … }`), and `&mut Commands<Arena>` is the
//! system's own buffer of spawns and despawns, applied at the next sync
//! point. Systems added together with `add_systems((a, b))` form a *stage*:
//! they may run at the same time (on rayon's threads with the `rayon`
//! feature), and the compiler refuses a stage whose systems touch the same
//! data with a `&mut`. A frame of a level runs:
//!
//! 1. stage `spawner` + `pilot`: a wave of monsters every 1.5 s, queued in
//!    the spawner's `Commands`; the player walks between random waypoints;
//! 2. sync point: the wave appears;
//! 3. stage `turret` + `steer`: the turret fires at the nearest monster
//!    (its projectiles queued in `Commands`); every monster that is not
//!    stunned turns towards the player;
//! 4. sync point: the projectiles appear;
//! 5. `movement`: moves everything with a velocity, player, monsters and
//!    projectiles alike;
//! 6. `grid`: sorts the monsters into a collision grid (a resource);
//! 7. `hit`: projectiles against monsters; a hit stuns (queued);
//! 8. stage `recover` + `bite`: stuns count down (their end is queued);
//!    monsters that touch the player bite and are gone (queued), and a
//!    knocked-out player gets back up;
//! 9. sync point: the new stuns, the ended ones, the used-up projectiles
//!    and the monsters that bit, all at once, in the order the systems ran;
//! 10. stage `reap` + `expire` + `tick`: despawns dead monsters and spent
//!     projectiles (queued), and advances the level's clock;
//! 11. sync point.
//!
//! Every second of simulated time it prints one line per level, and at the
//! end the time each system took in the last level. Everything is seeded, so
//! every run prints the same lines (the timings aside), with or without
//! the `rayon` feature.
//!
//! ```text
//! cargo run --release --example arena -- --seconds 10 --levels 3
//! cargo run --release --example arena --features rayon   # stages on threads
//! ```

use std::ops::{Add, Mul, Sub};
use std::process::ExitCode;

use typed_ecs::named;
use typed_ecs::prelude::*;
use typed_ecs::ScheduleStats;

/// Simulation steps per second: the main loop advances every level by
/// exactly `1 / FPS` seconds per frame, however long a frame takes to compute.
const FPS: u32 = 60;
/// Seconds per frame.
const DT: f32 = 1.0 / FPS as f32;
/// The arena is a square this many metres wide, with its corner at (0, 0).
const ARENA: f32 = 64.0;
/// The side of a collision-grid cell, in metres.
const CELL: f32 = 4.0;
/// The player's collision radius, in metres.
const PLAYER_RADIUS: f32 = 1.5;
/// The player's walking speed, in m/s.
const PLAYER_SPEED: f32 = 6.0;
/// The player's health when they start, and after each knock-out.
const PLAYER_HEALTH: i32 = 100;
/// Radius of an ordinary monster and of a brute (every fourth monster).
const MONSTER_RADIUS: f32 = 0.8;
const BRUTE_RADIUS: f32 = 1.6;
/// A projectile's radius, speed (m/s) and life (frames): a range of 54 m.
const SHOT_RADIUS: f32 = 0.3;
const SHOT_SPEED: f32 = 40.0;
const SHOT_LIFE: u32 = 81;
/// The turret only fires at monsters closer than this, in metres.
const TURRET_RANGE: f32 = 30.0;
/// How long a hit stuns a monster, and how long a new monster is dazed.
const STUN_FRAMES: u32 = 10;
const DAZE_FRAMES: u32 = 30;
/// The most monsters in one wave.
const MAX_WAVE: u32 = 100;
/// The levels, easiest first; `--levels N` plays the first N.
const LEVEL_NAMES: [&str; 9] = [
    "Meadow", "Crypt", "Volcano", "Glacier", "Swamp", "Ruins", "Desert", "Abyss", "Citadel",
];
/// Timings are kept for the last this many frames.
const TIMING_WINDOW: usize = 10 * FPS as usize;

// The grid finds every pair that touches only if no two touching bodies are
// more than one cell apart (see `Grid`).
const _: () = assert!(BRUTE_RADIUS + PLAYER_RADIUS <= CELL && BRUTE_RADIUS + SHOT_RADIUS <= CELL);

// ---------------------------------------------------------------------------
// Components: plain data, no behaviour. An entity is just a handle; what it
// *is* comes from the components it has. The player, the monsters and the
// projectiles all have a `Position` and a `Velocity`, so one `movement`
// system moves them all.
// ---------------------------------------------------------------------------

/// A 2-D vector. Not a component itself: the components below wrap it, so
/// that each meaning (where, how fast) gets its own storage.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec2 {
    pub x: f32,
    pub y: f32,
}

/// Where an entity is, in metres from the arena's corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position(pub Vec2);

/// How fast an entity moves, in m/s. Only entities with a position *and* a
/// velocity move; a `Stunned` one stays put.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Velocity(pub Vec2);

/// The size of an entity's collision circle, in metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Radius(pub f32);

/// Hit points. A monster at 0 dies; the player at 0 is knocked out and gets
/// back up with full health.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Health(pub i32);

/// A *tag*: a component with no data, that marks the player. Systems find
/// the player with `With(players)` rather than by keeping its handle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Player;

/// A gun: fires a fan of `spread` projectiles every `reload` frames, at the
/// nearest monster in range. Here only the player has one, but any entity
/// with a `Position` and a `Turret` would shoot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Turret {
    pub reload: u32,
    pub cooldown: u32,
    pub spread: u32,
}

/// A monster: how fast it chases the player and how much it hurts them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Monster {
    pub speed: f32,
    pub damage: i32,
}

/// A projectile, and the damage it does to the monster it hits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projectile {
    pub damage: i32,
}

/// Frames left before an entity (a projectile) fizzles out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lifetime(pub u32);

/// A status effect that comes and goes: while an entity has it, `steer` and
/// `movement` skip it (through `Without(stunned)`). `hit` and `recover` only
/// queue stuns and recoveries in their `Commands`; the sync point applies
/// them all at once, so no system sees half of a frame's changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stunned {
    pub frames_left: u32,
}

// ---------------------------------------------------------------------------
// Resources: data that belongs to the level, not to an entity. Each is a
// plain `pub` field of the world (`world.score.kills`), made with `Default`
// by `Arena::new()`, and a system takes it as `&Rules` or `&mut Scoreboard`
// like any other parameter. Resources that only one system uses (the
// spawner's random generator, the pilot's waypoint) could also live in a
// `move` closure; keeping them in the world means they are cloned with it
// (and saved with it, with the `serde` feature and derives), shown by
// `{:?}`, and set up by the code that makes a level.
// ---------------------------------------------------------------------------

/// What makes one level harder than another. Set once when the level is
/// made; the systems only read it.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    pub name: &'static str,
    pub seed: u64,
    /// Frames between waves.
    pub wave_every: u32,
    /// Monsters in the first wave, and how many more in each next one.
    pub first_wave: u32,
    pub wave_growth: u32,
    /// Health of an ordinary monster (a brute has three times as much).
    pub monster_health: i32,
    /// Speed of an ordinary monster, in m/s.
    pub monster_speed: f32,
}

impl Rules {
    /// Level `number` (from 1): each one sends bigger, faster waves.
    fn for_level(number: u32) -> Rules {
        let n = number - 1;
        Rules {
            name: LEVEL_NAMES[n as usize],
            seed: 0x5eed_0000 + u64::from(number),
            wave_every: 3 * FPS / 2,
            first_wave: 8 + 8 * n,
            wave_growth: 2 + 2 * n,
            monster_health: 2 + n as i32,
            monster_speed: 5.0 + n as f32,
        }
    }
}

/// A resource needs `Default`: `Arena::new()` starts every resource with it.
impl Default for Rules {
    fn default() -> Self {
        Rules::for_level(1)
    }
}

/// The level's clock: frames done so far, and the length of one.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pub frame: u32,
    pub dt: f32,
}

impl Default for Clock {
    fn default() -> Self {
        Clock { frame: 0, dt: DT }
    }
}

/// The spawner's state: its random generator and the waves sent so far.
#[derive(Debug, Clone, Default)]
pub struct Waves {
    pub rng: Rng,
    pub sent: u32,
}

/// The pilot's state: its random generator and where the player is headed.
#[derive(Debug, Clone)]
pub struct Patrol {
    pub rng: Rng,
    pub waypoint: Vec2,
}

impl Default for Patrol {
    fn default() -> Self {
        Patrol {
            rng: Rng::default(),
            waypoint: Vec2::new(ARENA / 2.0, ARENA / 2.0),
        }
    }
}

/// The level's running totals. In this library, game-wide data like this
/// is a resource, not a component on a "globals" entity of its own.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Scoreboard {
    pub spawned: u32,
    pub shots: u32,
    pub hits: u32,
    pub kills: u32,
    pub bites: u32,
    pub knockouts: u32,
    /// Commands that a sync point could not apply (a bug if not 0).
    pub rejected: u32,
}

world! {
    /// One level of the game. Every level is a separate `Arena` value with
    /// entities and resources of its own: keep each handle with the world
    /// that made it.
    #[derive(Debug, Clone)]
    pub struct Arena<
        Position, Velocity, Radius, Health, Player, Turret,
        Monster, Projectile, Lifetime, Stunned
    >;
    resources {
        rules: Rules,
        clock: Clock,
        waves: Waves,
        patrol: Patrol,
        /// The monsters sorted by place, rebuilt every frame by `grid`.
        grid: Grid,
        score: Scoreboard,
    }
}

/// Where the player is, if there is one: a read-only `join` of positions
/// with a filter, stopped at the first (and only) match.
fn player_position(positions: &SparseMap<Position>, players: &SparseMap<Player>) -> Option<Vec2> {
    join((positions, With(players)))
        .into_iter()
        .next()
        .map(|(_player, (position, ()))| position.0)
}

// ---------------------------------------------------------------------------
// Systems. Each is a plain `fn`; its parameters are all the schedule needs
// to know. Read `hit` for one that reads five things and writes three,
// `spawner` for one that only queues commands.
// ---------------------------------------------------------------------------

/// Sends a wave of monsters from the edges every `rules.wave_every` frames,
/// each wave bigger than the last (up to `MAX_WAVE`).
///
/// It touches no component at all: it reads two resources, writes two, and
/// queues the new monsters in its `Commands`. `commands.spawn_with` hands
/// back a *reserved* handle that later commands in the same buffer can use
/// (here to daze the new monster); the sync point after this stage turns it
/// into a real entity. The buffer belongs to the system and is kept between
/// frames, so its memory is reused every wave.
fn spawner(
    clock: &Clock,
    rules: &Rules,
    waves: &mut Waves,
    score: &mut Scoreboard,
    commands: &mut Commands<Arena>,
) {
    if clock.frame % rules.wave_every != 0 {
        return;
    }
    let size = (rules.first_wave + waves.sent * rules.wave_growth).min(MAX_WAVE);
    let rng = &mut waves.rng;
    for i in 0..size {
        let brute = i % 4 == 3;
        let (radius, health, speed, damage) = if brute {
            (BRUTE_RADIUS, 3 * rules.monster_health, 0.6, 25)
        } else {
            (MONSTER_RADIUS, rules.monster_health, 1.0, 10)
        };
        let monster = commands.spawn_with((
            Position(rng.edge_point()),
            Velocity(Vec2::ZERO),
            Radius(radius),
            Health(health),
            Monster {
                speed: speed * rules.monster_speed * rng.range(0.8, 1.2),
                damage,
            },
        ));
        // Monsters climb out of the ground, dazed for half a second. The
        // reserved handle names the new monster before it exists (putting
        // `Stunned` in the bundle would do the same).
        commands.add(
            monster,
            Stunned {
                frames_left: DAZE_FRAMES,
            },
        );
    }
    waves.sent += 1;
    score.spawned += size;
}

/// Walks the player towards a waypoint, and picks a new random one in the
/// middle of the arena on arrival.
///
/// The join is driven by the smallest storage it requires, here `Player`,
/// which holds one entity: it finds the player without walking every
/// monster and projectile. (A `for` loop over it would be driven by
/// `Player` too, and make a table of `Velocity`'s values to hand out the
/// player's; `for_each` needs none.)
fn pilot(
    velocities: &mut SparseMap<Velocity>,
    positions: &SparseMap<Position>,
    players: &SparseMap<Player>,
    patrol: &mut Patrol,
) {
    join((velocities, positions, With(players))).for_each(|_player, (velocity, position, ())| {
        if (patrol.waypoint - position.0).length() < 1.0 {
            patrol.waypoint = Vec2::new(
                patrol.rng.range(0.3 * ARENA, 0.7 * ARENA),
                patrol.rng.range(0.3 * ARENA, 0.7 * ARENA),
            );
        }
        velocity.0 = (patrol.waypoint - position.0).normalized() * PLAYER_SPEED;
    });
}

/// Every turret that is ready fires a fan of projectiles at the nearest
/// monster in range.
///
/// It writes turrets and reads positions and monsters: `join((turrets,
/// positions))` walks the turrets, and inside the loop a second join over
/// `positions` (a shared borrow can be used twice) looks for the target.
/// New projectiles go into the command buffer: the storages are borrowed
/// until the system returns, and `steer` may be reading them on another
/// thread.
fn turret(
    turrets: &mut SparseMap<Turret>,
    positions: &SparseMap<Position>,
    monsters: &SparseMap<Monster>,
    score: &mut Scoreboard,
    commands: &mut Commands<Arena>,
) {
    for (_gunner, (turret, from)) in join((turrets, positions)) {
        turret.cooldown = turret.cooldown.saturating_sub(1);
        if turret.cooldown > 0 {
            continue;
        }
        let distance = |target: Vec2| (target - from.0).length_squared();
        let nearest = join((positions, With(monsters)))
            .into_iter()
            .map(|(_monster, (position, ()))| position.0)
            .min_by(|a, b| distance(*a).total_cmp(&distance(*b)));
        let in_range = |target: &Vec2| distance(*target) <= TURRET_RANGE * TURRET_RANGE;
        let Some(target) = nearest.filter(in_range) else {
            continue; // nothing in range: stay ready
        };
        let aim = (target - from.0).normalized();
        for k in 0..turret.spread {
            let angle = 0.08 * (k as f32 - (turret.spread - 1) as f32 / 2.0);
            commands.spawn_with((
                Position(from.0),
                Velocity(aim.rotated(angle) * SHOT_SPEED),
                Radius(SHOT_RADIUS),
                Projectile { damage: 1 },
                Lifetime(SHOT_LIFE),
            ));
        }
        score.shots += turret.spread;
        turret.cooldown = turret.reload;
    }
}

/// Points every monster that is not stunned at the player.
///
/// `join((monsters, positions, velocities, Without(stunned)))`: read two
/// storages, write one, and skip the entities that have a `Stunned` (a
/// filter yields `()`). `for_each` runs a join of any shape.
fn steer(
    velocities: &mut SparseMap<Velocity>,
    positions: &SparseMap<Position>,
    monsters: &SparseMap<Monster>,
    players: &SparseMap<Player>,
    stunned: &SparseMap<Stunned>,
) {
    let Some(target) = player_position(positions, players) else {
        return;
    };
    join((monsters, positions, velocities, Without(stunned))).for_each(
        |_monster, (monster, position, velocity, ())| {
            velocity.0 = (target - position.0).normalized() * monster.speed;
        },
    );
}

/// Moves everything that has a position and a velocity and is not stunned:
/// the player, the monsters and the projectiles alike. One storage is
/// written and the others only read, so a plain `for` loop works.
fn movement(
    positions: &mut SparseMap<Position>,
    velocities: &SparseMap<Velocity>,
    stunned: &SparseMap<Stunned>,
    clock: &Clock,
) {
    for (_entity, (position, velocity, ())) in join((positions, velocities, Without(stunned))) {
        position.0 = position.0 + velocity.0 * clock.dt;
    }
}

/// Sorts every monster into the collision grid, where `hit` and `bite`
/// find it. The grid is a resource: one system writes it, later systems
/// read it.
fn grid(
    grid: &mut Grid,
    positions: &SparseMap<Position>,
    radii: &SparseMap<Radius>,
    monsters: &SparseMap<Monster>,
) {
    grid.clear();
    for (monster, (position, radius, ())) in join((positions, radii, With(monsters))) {
        grid.insert(Body {
            entity: monster,
            center: position.0,
            radius: radius.0,
        });
    }
}

/// A projectile that touches a live monster takes 1 health from it, stuns
/// it and is used up (each projectile hits once).
///
/// A monster that is already stunned just has its timer reset, in place. A
/// new stun is a new component, which changes the `Stunned` storage's
/// layout: it is queued, like the projectile's despawn, and appears at the
/// sync point.
#[allow(clippy::too_many_arguments)] // a system's parameters are its declaration
fn hit(
    grid: &Grid,
    positions: &SparseMap<Position>,
    radii: &SparseMap<Radius>,
    projectiles: &SparseMap<Projectile>,
    health: &mut SparseMap<Health>,
    stunned: &mut SparseMap<Stunned>,
    score: &mut Scoreboard,
    commands: &mut Commands<Arena>,
) {
    let mut newly_stunned: Vec<Entity> = Vec::new();
    for (shot, (position, radius, projectile)) in join((positions, radii, projectiles)) {
        let target = grid.near(position.0).find(|body| {
            body.touches(position.0, radius.0) && health.get(body.entity).is_some_and(|h| h.0 > 0)
        });
        let Some(target) = target else { continue };
        if let Some(health) = health.get_mut(target.entity) {
            health.0 -= projectile.damage;
        }
        match stunned.get_mut(target.entity) {
            Some(stun) => stun.frames_left = STUN_FRAMES,
            None => newly_stunned.push(target.entity),
        }
        commands.despawn(shot);
        score.hits += 1;
    }
    // Two shots may hit one monster in a frame: stun it once (a second
    // `add` of the same component would be rejected at the sync point).
    newly_stunned.sort_unstable();
    newly_stunned.dedup();
    for monster in newly_stunned {
        commands.add(
            monster,
            Stunned {
                frames_left: STUN_FRAMES,
            },
        );
    }
}

/// Counts every stun down by one frame, and queues the removal of those
/// that are over. Removing right away would reorder the storage under the
/// loop; the command waits for the sync point.
fn recover(stunned: &mut SparseMap<Stunned>, commands: &mut Commands<Arena>) {
    for (entity, stun) in stunned.iter_mut() {
        stun.frames_left = stun.frames_left.saturating_sub(1);
        if stun.frames_left == 0 {
            commands.remove::<Stunned>(entity);
        }
    }
}

/// A live monster that touches the player bites them and is gone. A player
/// bitten down to 0 health is knocked out, and gets back up in the middle
/// of the arena with full health.
#[allow(clippy::too_many_arguments)]
fn bite(
    grid: &Grid,
    positions: &mut SparseMap<Position>,
    radii: &SparseMap<Radius>,
    players: &SparseMap<Player>,
    monsters: &SparseMap<Monster>,
    health: &mut SparseMap<Health>,
    score: &mut Scoreboard,
    commands: &mut Commands<Arena>,
) {
    join((positions, radii, With(players))).for_each(|player, (position, radius, ())| {
        for body in grid.near(position.0) {
            let Some(monster) = monsters.get(body.entity) else {
                continue;
            };
            let dead = health.get(body.entity).is_some_and(|h| h.0 <= 0);
            if dead || !body.touches(position.0, radius.0) {
                continue; // a dead monster is left for `reap`, as a kill
            }
            if let Some(health) = health.get_mut(player) {
                health.0 -= monster.damage;
            }
            // If `hit` stunned it this frame, the queued `Stunned` is
            // applied first (`hit` ran first) and goes away with it.
            commands.despawn(body.entity);
            score.bites += 1;
        }
        if let Some(health) = health.get_mut(player).filter(|health| health.0 <= 0) {
            health.0 = PLAYER_HEALTH;
            position.0 = Vec2::new(ARENA / 2.0, ARENA / 2.0);
            score.knockouts += 1;
        }
    });
}

/// Despawns the monsters at 0 health: a kill each.
fn reap(
    health: &SparseMap<Health>,
    monsters: &SparseMap<Monster>,
    score: &mut Scoreboard,
    commands: &mut Commands<Arena>,
) {
    for (monster, (health, ())) in join((health, With(monsters))) {
        if health.0 <= 0 {
            commands.despawn(monster);
            score.kills += 1;
        }
    }
}

/// Counts projectiles' lives down, and despawns those that fizzled out or
/// left the arena.
fn expire(
    lifetimes: &mut SparseMap<Lifetime>,
    positions: &SparseMap<Position>,
    commands: &mut Commands<Arena>,
) {
    for (shot, (lifetime, position)) in join((lifetimes, positions)) {
        lifetime.0 = lifetime.0.saturating_sub(1);
        let p = position.0;
        let outside = p.x < 0.0 || p.y < 0.0 || p.x > ARENA || p.y > ARENA;
        if lifetime.0 == 0 || outside {
            commands.despawn(shot);
        }
    }
}

/// Ends the frame on the level's clock.
fn tick(clock: &mut Clock) {
    clock.frame += 1;
}

/// One body in the collision grid.
#[derive(Debug, Clone, Copy)]
pub struct Body {
    pub entity: Entity,
    pub center: Vec2,
    pub radius: f32,
}

impl Body {
    fn touches(&self, center: Vec2, radius: f32) -> bool {
        let reach = self.radius + radius;
        (self.center - center).length_squared() <= reach * reach
    }
}

/// A uniform grid over the arena: each cell lists the bodies whose centre is
/// in it. Two circles that touch have centres at most `CELL` apart (see the
/// assertion at the top), so they are in the same cell or in neighbouring
/// ones: looking in the 3×3 cells around a point finds everything that can
/// touch it. Building the grid is O(n) and each lookup visits a handful of
/// bodies, instead of testing every pair.
#[derive(Debug, Clone)]
pub struct Grid {
    side: usize,
    cells: Vec<Vec<Body>>,
}

impl Default for Grid {
    fn default() -> Self {
        Grid::new()
    }
}

impl Grid {
    fn new() -> Self {
        let side = (ARENA / CELL).ceil() as usize;
        Grid {
            side,
            cells: vec![Vec::new(); side * side],
        }
    }

    /// The cell of a point, as (column, row). Points outside the arena go to
    /// the nearest edge cell, which keeps neighbours neighbours.
    fn cell_of(&self, point: Vec2) -> (usize, usize) {
        let last = self.side as f32 - 1.0;
        let column = (point.x / CELL).floor().clamp(0.0, last) as usize;
        let row = (point.y / CELL).floor().clamp(0.0, last) as usize;
        (column, row)
    }

    fn clear(&mut self) {
        for cell in &mut self.cells {
            cell.clear();
        }
    }

    fn insert(&mut self, body: Body) {
        let (column, row) = self.cell_of(body.center);
        self.cells[row * self.side + column].push(body);
    }

    /// The bodies in the 3×3 cells around `point`.
    fn near(&self, point: Vec2) -> impl Iterator<Item = &Body> + '_ {
        let (column, row) = self.cell_of(point);
        let columns = column.saturating_sub(1)..=(column + 1).min(self.side - 1);
        let rows = row.saturating_sub(1)..=(row + 1).min(self.side - 1);
        rows.flat_map(move |r| columns.clone().map(move |c| r * self.side + c))
            .flat_map(|cell| &self.cells[cell])
    }
}

// ---------------------------------------------------------------------------
// Levels
// ---------------------------------------------------------------------------

/// A level: its world, its schedule and the timings of its systems.
struct Level {
    number: u32,
    world: Arena,
    schedule: Schedule<Arena>,
    stats: ScheduleStats,
}

impl Level {
    fn new(number: u32) -> Level {
        // `Arena::new()` makes every resource with `Default`; the level's own
        // are then set like any field.
        let rules = Rules::for_level(number);
        let mut world = Arena::new();
        world.rules = rules;
        world.waves.rng = Rng(rules.seed);
        world.patrol.rng = Rng(rules.seed ^ 0xfeed);
        world.spawn_with((
            Player,
            Position(Vec2::new(ARENA / 2.0, ARENA / 2.0)),
            Velocity(Vec2::ZERO),
            Radius(PLAYER_RADIUS),
            Health(PLAYER_HEALTH),
            Turret {
                reload: 12,
                cooldown: 0,
                spread: 3,
            },
        ));

        // Steps run in the order they are added. A stage's systems touch
        // disjoint data (the compiler checks it), so they may run at the same
        // time; `named` gives each the short name shown in the timings (by
        // default a system is named after its path, `arena::spawner`).
        //
        // A sync point applies what the systems before it queued in their
        // `Commands`, one buffer after another in the order the systems ran
        // (a stage's in the order listed), then the world's own deferred
        // queue. So it goes where a later system must see the changes: the
        // turret aims at this frame's wave, movement moves this frame's
        // projectiles, and `reap` and `expire` never meet a projectile
        // `hit` already used up.
        let mut schedule = Schedule::new();
        schedule
            // Writes resources and queues spawns ∥ writes the player's
            // velocity.
            .add_systems((named("spawner", spawner), named("pilot", pilot)))
            .add_sync_point()
            // Both read positions and monsters; one writes turrets, the other
            // velocities.
            .add_systems((named("turret", turret), named("steer", steer)))
            .add_sync_point()
            .add_system_named("movement", movement)
            .add_system_named("grid", grid)
            .add_system_named("hit", hit)
            // `recover` writes stuns only, `bite` never looks at them. The
            // order in the stage matters for the commands: `recover`'s are
            // applied first, so a monster whose stun ends the frame it bites
            // loses the stun and then is despawned. The other way round its
            // removal would name a dead entity and be rejected.
            .add_systems((named("recover", recover), named("bite", bite)))
            .add_sync_point()
            .add_systems((
                named("reap", reap),
                named("expire", expire),
                named("tick", tick),
            ))
            .add_sync_point();

        Level {
            number,
            world,
            schedule,
            stats: ScheduleStats::with_window(TIMING_WINDOW),
        }
    }

    /// Runs one frame: every system once, timed. Then looks at what the sync
    /// points applied: a rejected command (say, despawning an entity twice)
    /// would be a bug in a system, so log it and count it rather than
    /// losing it silently.
    fn step(&mut self) {
        self.schedule.run_timed(&mut self.world, &mut self.stats);
        for (system, report) in self.schedule.last_reports() {
            for rejected in report.rejected() {
                eprintln!("warning: {system}: {rejected}");
            }
            self.world.score.rejected += report.rejected().len() as u32;
        }
    }

    /// One line about the level's state and totals.
    fn summary(&self, second: u32) -> String {
        let world = &self.world;
        let board = &world.score;
        let health = join((&world.health, With(&world.player)))
            .into_iter()
            .next()
            .map_or(0, |(_player, (health, ()))| health.0);
        format!(
            "{second:>3}s {:<8} | {:>4} entities, {:>4} monsters ({:>3} stunned), {:>3} projectiles \
             | spawned {:>4}, shots {:>4}, hits {:>4}, kills {:>4}, bites {:>3} | player {:>3} hp, {} KOs",
            world.rules.name,
            world.entity_count(),
            world.monster.len(),
            world.stunned.len(),
            world.projectile.len(),
            board.spawned,
            board.shots,
            board.hits,
            board.kills,
            board.bites,
            health,
            board.knockouts,
        )
    }
}

// ---------------------------------------------------------------------------
// Small helpers: vector maths and a deterministic random generator
// ---------------------------------------------------------------------------

impl Vec2 {
    const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    const fn new(x: f32, y: f32) -> Vec2 {
        Vec2 { x, y }
    }

    fn length_squared(self) -> f32 {
        self.x * self.x + self.y * self.y
    }

    fn length(self) -> f32 {
        self.length_squared().sqrt()
    }

    /// This vector scaled to length 1 (zero stays zero).
    fn normalized(self) -> Vec2 {
        let length = self.length();
        if length > 0.0 {
            self * (1.0 / length)
        } else {
            Vec2::ZERO
        }
    }

    /// This vector turned by `angle` radians.
    fn rotated(self, angle: f32) -> Vec2 {
        let (sin, cos) = angle.sin_cos();
        Vec2::new(self.x * cos - self.y * sin, self.x * sin + self.y * cos)
    }
}

impl Add for Vec2 {
    type Output = Vec2;
    fn add(self, other: Vec2) -> Vec2 {
        Vec2::new(self.x + other.x, self.y + other.y)
    }
}

impl Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, other: Vec2) -> Vec2 {
        Vec2::new(self.x - other.x, self.y - other.y)
    }
}

impl Mul<f32> for Vec2 {
    type Output = Vec2;
    fn mul(self, factor: f32) -> Vec2 {
        Vec2::new(self.x * factor, self.y * factor)
    }
}

/// A small deterministic generator, so every run plays out the same way.
#[derive(Debug, Clone, Default)]
pub struct Rng(pub u64);

impl Rng {
    fn next_f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.next_f32()
    }

    /// A random point just inside one of the arena's four edges.
    fn edge_point(&mut self) -> Vec2 {
        let along = self.range(1.0, ARENA - 1.0);
        match (self.next_f32() * 4.0) as u32 {
            0 => Vec2::new(along, 1.0),
            1 => Vec2::new(along, ARENA - 1.0),
            2 => Vec2::new(1.0, along),
            _ => Vec2::new(ARENA - 1.0, along),
        }
    }
}

// ---------------------------------------------------------------------------
// The main loop
// ---------------------------------------------------------------------------

struct Options {
    seconds: u32,
    levels: u32,
}

const USAGE: &str = "usage: arena [--seconds N] [--levels N]   \
    (defaults: 10 simulated seconds, 3 levels; at most 3600 seconds and 9 levels)";

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        seconds: 10,
        levels: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let (target, max) = match flag.as_str() {
            "--seconds" => (&mut options.seconds, 3600),
            "--levels" => (&mut options.levels, LEVEL_NAMES.len() as u32),
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown option `{other}`")),
        };
        let value = args
            .next()
            .ok_or_else(|| format!("`{flag}` needs a number"))?;
        let number: u32 = value
            .parse()
            .map_err(|_| format!("`{flag}` needs a whole number, not `{value}`"))?;
        if !(1..=max).contains(&number) {
            return Err(format!("`{flag}` must be from 1 to {max}, not {number}"));
        }
        *target = number;
    }
    Ok(options)
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("error: {message}");
            }
            eprintln!("{USAGE}");
            return if message.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
    };

    let frames = options.seconds * FPS;
    let mut levels: Vec<Level> = (1..=options.levels).map(Level::new).collect();

    // A fixed timestep: every frame advances every level by exactly `DT`.
    // This demo runs the frames back to back, so its output does not depend
    // on the machine. A real game runs as many steps as the wall clock asks
    // for, and draws in between:
    //
    //     let step = Duration::from_secs(1) / FPS;
    //     let (mut lag, mut last) = (Duration::ZERO, Instant::now());
    //     loop {
    //         lag += last.elapsed();
    //         last = Instant::now();
    //         while lag >= step {
    //             levels.iter_mut().for_each(Level::step);
    //             lag -= step;
    //         }
    //         draw(&levels);
    //     }
    for frame in 1..=frames {
        for level in &mut levels {
            level.step();
        }
        if frame % FPS == 0 {
            for level in &levels {
                println!("{}", level.summary(frame / FPS));
            }
        }
    }

    let mut clean = true;
    for level in &levels {
        let rejected = level.world.score.rejected;
        if rejected > 0 {
            eprintln!(
                "error: level {}: {rejected} commands were rejected",
                level.number
            );
            clean = false;
        }
    }

    let last = levels.last().expect("at least one level");
    let kept = last.stats.summary().last().map_or(0, |frame| frame.samples);
    println!();
    println!(
        "time per step in {} (level {}), over the last {kept} of {} frames:",
        last.world.rules.name,
        last.number,
        last.stats.frames()
    );
    print!("{}", last.stats);

    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
