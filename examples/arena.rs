//! A small, complete game loop: the example to copy when you start a game.
//!
//! A player patrols the middle of an arena while waves of monsters crawl in
//! from the edges to reach them. The player's turret shoots the nearest
//! monster; a hit costs the monster health and stuns it for a moment, and a
//! monster at 0 health dies. A monster that reaches the player hurts them and
//! is gone.
//!
//! Several levels run side by side. Each is its own world (one `world!`
//! type, one value per level) with its own `Schedule`, and one main loop
//! steps them all at a fixed 60 Hz. A frame of a level runs, in order:
//!
//! 1. `spawner`: a wave of monsters every 1.5 s, spawned through a
//!    `Commands` buffer the system keeps (reserved handles, `world.apply`);
//! 2. `pilot`: walks the player between random waypoints (a system with
//!    state of its own);
//! 3. `turret`: fires at the nearest monster (`join` over fields of the
//!    world: one written, others read, checked by the borrow checker);
//! 4. `steer`: points every monster that is not stunned at the player
//!    (`query_mut` with a `Without` filter, run with `for_each`);
//! 5. `movement`: moves everything with a velocity, player, monsters and
//!    projectiles alike (`query_mut` in a `for` loop);
//! 6. `collide`: projectiles against monsters and monsters against the
//!    player, with a uniform grid; a hit stuns (`add_deferred`);
//! 7. `recover`: counts stuns down and lifts them (`remove_deferred` in an
//!    index loop);
//! 8. a sync point: `finalize_updates` applies the queued stuns and
//!    recoveries, all at once;
//! 9. `reap`: despawns dead monsters and spent projectiles (`Commands`), and
//!    gets a knocked-out player back up.
//!
//! Every second of simulated time it prints one line per level, and at the
//! end the time each system took in the last level. Everything is seeded, so
//! every run prints the same lines (the timings aside).
//!
//! ```text
//! cargo run --release --example arena -- --seconds 10 --levels 3
//! ```

use std::ops::{Add, Mul, Sub};
use std::process::ExitCode;

use typed_ecs::prelude::*;
use typed_ecs::query::join;
use typed_ecs::schedule::ScheduleStats;

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
/// the player with `With<Player>` rather than by keeping its handle.
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
/// `movement` skip it (through `Without<Stunned>`). `collide` and `recover`
/// only queue stuns and recoveries; the sync point applies them all at once,
/// so no system sees half of a frame's changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stunned {
    pub frames_left: u32,
}

/// The level's running totals. Game-wide data like this (other ECS crates
/// call it a *resource*) is simply a component on one entity of its own.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Scoreboard {
    pub spawned: u32,
    pub shots: u32,
    pub hits: u32,
    pub kills: u32,
    pub bites: u32,
    pub knockouts: u32,
    /// Commands that `world.apply` could not apply (a bug if not 0).
    pub rejected: u32,
}

world! {
    /// One level of the game. Every level is a separate `Arena` value with
    /// entities of its own: keep each handle with the world that made it.
    #[derive(Debug, Clone)]
    pub struct Arena<
        Position, Velocity, Radius, Health, Player, Turret,
        Monster, Projectile, Lifetime, Stunned, Scoreboard
    >;
}

/// The level's scoreboard (there is exactly one).
fn scoreboard(world: &Arena) -> &Scoreboard {
    world
        .scoreboard
        .values()
        .first()
        .expect("every level has a scoreboard")
}

/// The level's scoreboard, to update it.
fn scoreboard_mut(world: &mut Arena) -> &mut Scoreboard {
    world
        .scoreboard
        .values_mut()
        .first_mut()
        .expect("every level has a scoreboard")
}

/// Where the player is, if there is one.
fn player_position(world: &Arena) -> Option<Vec2> {
    world
        .query::<(&Position, With<Player>)>()
        .next()
        .map(|(_player, (position, ()))| position.0)
}

/// Applies a system's command buffer. A rejected command (say, despawning an
/// entity twice) would be a bug in the system: log it and count it rather
/// than losing it silently.
fn apply(world: &mut Arena, commands: &mut Commands<Arena>, system: &str) -> usize {
    let report = world.apply(commands);
    for rejected in report.rejected() {
        eprintln!("warning: {system}: {rejected}");
    }
    scoreboard_mut(world).rejected += report.rejected().len() as u32;
    report.spawned().len()
}

// ---------------------------------------------------------------------------
// Systems: each is an `FnMut(&mut Arena)`. A plain `fn` when it needs no
// state of its own; a closure, made by a function, when it keeps something
// between frames (a random generator, a command buffer, a grid).
// ---------------------------------------------------------------------------

/// Sends a wave of monsters from the edges every `rules.wave_every` frames,
/// each wave bigger than the last (up to `MAX_WAVE`).
///
/// It spawns through a `Commands` buffer: `commands.spawn_with` hands back a
/// *reserved* handle that later commands in the same buffer can use (here to
/// daze the new monster), and `world.apply` turns it into a real entity. The
/// closure keeps the buffer, so its memory is reused every wave.
fn spawner(rules: Rules) -> impl FnMut(&mut Arena) {
    let mut rng = Rng(rules.seed);
    let mut commands = Commands::new();
    let mut frame: u32 = 0;
    let mut wave: u32 = 0;
    move |world: &mut Arena| {
        let now = frame;
        frame += 1;
        if now % rules.wave_every != 0 {
            return;
        }
        let size = (rules.first_wave + wave * rules.wave_growth).min(MAX_WAVE);
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
        wave += 1;
        let spawned = apply(world, &mut commands, "spawner");
        scoreboard_mut(world).spawned += spawned as u32;
    }
}

/// Walks the player towards a waypoint, and picks a new random one in the
/// middle of the arena on arrival. The state (the generator and the
/// waypoint) lives in the closure, not in the world.
///
/// `for_each` is driven by the smallest storage the query requires, here
/// `Player`, which holds one entity. A `for` loop over the same query would
/// be driven by its first element, `Velocity`, and walk every monster and
/// projectile to find the player.
fn pilot(seed: u64) -> impl FnMut(&mut Arena) {
    let mut rng = Rng(seed);
    let mut waypoint = Vec2::new(ARENA / 2.0, ARENA / 2.0);
    move |world: &mut Arena| {
        world
            .query_mut::<(&mut Velocity, &Position, With<Player>)>()
            .for_each(|_player, (velocity, position, ())| {
                if (waypoint - position.0).length() < 1.0 {
                    waypoint = Vec2::new(
                        rng.range(0.3 * ARENA, 0.7 * ARENA),
                        rng.range(0.3 * ARENA, 0.7 * ARENA),
                    );
                }
                velocity.0 = (waypoint - position.0).normalized() * PLAYER_SPEED;
            });
    }
}

/// Every turret that is ready fires a fan of projectiles at the nearest
/// monster in range.
///
/// `join((&mut world.turret, &world.position))` borrows two fields of the
/// world, one of them mutably; the loop body borrows two more
/// (`&world.position` again, and `&world.monster`) to look for the target.
/// The compiler checks that the borrows do not overlap, which a single
/// `world.query_mut` could not allow. New projectiles go into the command
/// buffer, since the storages are borrowed until the loop ends.
fn turret() -> impl FnMut(&mut Arena) {
    let mut commands = Commands::new();
    move |world: &mut Arena| {
        for (_gunner, (turret, from)) in join((&mut world.turret, &world.position)) {
            turret.cooldown = turret.cooldown.saturating_sub(1);
            if turret.cooldown > 0 {
                continue;
            }
            let distance = |target: Vec2| (target - from.0).length_squared();
            let nearest = join((&world.position, With(&world.monster)))
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
            turret.cooldown = turret.reload;
        }
        let fired = apply(world, &mut commands, "turret");
        scoreboard_mut(world).shots += fired as u32;
    }
}

/// Points every monster that is not stunned at the player.
///
/// `(&Monster, &Position, &mut Velocity, Without<Stunned>)`: read two
/// components, write one, and skip the entities that have a `Stunned` (a
/// filter yields `()`). `for_each` runs a query of any shape; a `for` loop
/// would need the `&mut` first (see `movement`).
fn steer(world: &mut Arena) {
    let Some(target) = player_position(world) else {
        return;
    };
    world
        .query_mut::<(&Monster, &Position, &mut Velocity, Without<Stunned>)>()
        .for_each(|_monster, (monster, position, velocity, ())| {
            velocity.0 = (target - position.0).normalized() * monster.speed;
        });
}

/// Moves everything that has a position and a velocity and is not stunned:
/// the player, the monsters and the projectiles alike. The first element is
/// `&mut` and the others only read, so a plain `for` loop works.
fn movement(world: &mut Arena) {
    for (_entity, (position, velocity, ())) in
        world.query_mut::<(&mut Position, &Velocity, Without<Stunned>)>()
    {
        position.0 = position.0 + velocity.0 * DT;
    }
}

/// One body in the collision grid.
#[derive(Debug, Clone, Copy)]
struct Body {
    entity: Entity,
    center: Vec2,
    radius: f32,
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
struct Grid {
    side: usize,
    cells: Vec<Vec<Body>>,
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

/// Finds what touches what, with a grid of the monsters rebuilt every frame:
///
/// * a projectile that touches a live monster takes 1 health from it, stuns
///   it and is used up (each projectile hits once);
/// * a live monster that touches the player bites them and is gone.
///
/// Projectiles and bitten monsters are despawned through the command
/// buffer. Stuns go through the world's own queue: `add_deferred` queues a
/// `Stunned` that only appears at the next sync point. A monster that is
/// already stunned just has its timer reset.
fn collide() -> impl FnMut(&mut Arena) {
    let mut grid = Grid::new();
    let mut commands = Commands::new();
    let mut newly_stunned: Vec<Entity> = Vec::new();
    move |world: &mut Arena| {
        grid.clear();
        for (monster, (position, radius, ())) in
            world.query::<(&Position, &Radius, With<Monster>)>()
        {
            grid.insert(Body {
                entity: monster,
                center: position.0,
                radius: radius.0,
            });
        }

        // Three fields are read by the join and two more are written on the
        // side: disjoint borrows of one world, checked by the compiler.
        let mut hits = 0;
        for (shot, (position, radius, projectile)) in
            join((&world.position, &world.radius, &world.projectile))
        {
            let health = &mut world.health;
            let target = grid.near(position.0).find(|body| {
                body.touches(position.0, radius.0)
                    && health.get(body.entity).is_some_and(|h| h.0 > 0)
            });
            let Some(target) = target else { continue };
            if let Some(health) = health.get_mut(target.entity) {
                health.0 -= projectile.damage;
            }
            match world.stunned.get_mut(target.entity) {
                Some(stun) => stun.frames_left = STUN_FRAMES,
                None => newly_stunned.push(target.entity),
            }
            commands.despawn(shot);
            hits += 1;
        }
        // Two shots may hit one monster in a frame: stun it once. Queue the
        // stuns now, while every monster is alive (`add_deferred` panics on a
        // dead entity; `try_add_deferred` would return an error instead).
        newly_stunned.sort_unstable();
        newly_stunned.dedup();
        for monster in newly_stunned.drain(..) {
            world.add_deferred(
                monster,
                Stunned {
                    frames_left: STUN_FRAMES,
                },
            );
        }

        let mut bites = 0;
        let player = world
            .query::<(&Position, &Radius, With<Player>)>()
            .next()
            .map(|(player, (position, radius, ()))| (player, position.0, radius.0));
        if let Some((player, center, radius)) = player {
            for body in grid.near(center) {
                let Some(monster) = world.monster.get(body.entity) else {
                    continue;
                };
                let dead = world.health.get(body.entity).is_some_and(|h| h.0 <= 0);
                if dead || !body.touches(center, radius) {
                    continue; // a dead monster is left for `reap`, as a kill
                }
                if let Some(health) = world.health.get_mut(player) {
                    health.0 -= monster.damage;
                }
                // If it was also stunned this frame, the queued `Stunned`
                // goes away with it: nothing is left for the sync point.
                commands.despawn(body.entity);
                bites += 1;
            }
        }

        apply(world, &mut commands, "collide");
        let board = scoreboard_mut(world);
        board.hits += hits;
        board.bites += bites;
    }
}

/// Counts every stun down by one frame, and queues the removal of those that
/// are over.
///
/// This is the index-loop pattern: `entity_at` / `value_at_mut` walk the
/// `Stunned` storage slot by slot. Removing right away would move the last
/// slot into this one and skip it; `remove_deferred` leaves the storage as
/// it is until the sync point.
fn recover(world: &mut Arena) {
    for i in 0..world.size::<Stunned>() {
        let stun = world.value_at_mut::<Stunned>(i);
        stun.frames_left = stun.frames_left.saturating_sub(1);
        if stun.frames_left == 0 {
            let entity = world.entity_at::<Stunned>(i);
            world.remove_deferred::<Stunned>(entity);
        }
    }
}

/// Clears away what is finished: monsters at 0 health (a kill), projectiles
/// that fizzled out or left the arena. A knocked-out player gets back up in
/// the middle of the arena, with full health.
fn reap() -> impl FnMut(&mut Arena) {
    let mut commands = Commands::new();
    move |world: &mut Arena| {
        let mut kills = 0;
        for (monster, (health, ())) in world.query::<(&Health, With<Monster>)>() {
            if health.0 <= 0 {
                commands.despawn(monster);
                kills += 1;
            }
        }
        for (shot, (lifetime, position)) in world.query_mut::<(&mut Lifetime, &Position)>() {
            lifetime.0 = lifetime.0.saturating_sub(1);
            let p = position.0;
            let outside = p.x < 0.0 || p.y < 0.0 || p.x > ARENA || p.y > ARENA;
            if lifetime.0 == 0 || outside {
                commands.despawn(shot);
            }
        }
        let mut knockouts = 0;
        world
            .query_mut::<(&mut Health, &mut Position, With<Player>)>()
            .for_each(|_player, (health, position, ())| {
                if health.0 <= 0 {
                    health.0 = PLAYER_HEALTH;
                    position.0 = Vec2::new(ARENA / 2.0, ARENA / 2.0);
                    knockouts += 1;
                }
            });
        apply(world, &mut commands, "reap");
        let board = scoreboard_mut(world);
        board.kills += kills;
        board.knockouts += knockouts;
    }
}

// ---------------------------------------------------------------------------
// Levels
// ---------------------------------------------------------------------------

/// What makes one level harder than another.
#[derive(Debug, Clone, Copy)]
struct Rules {
    name: &'static str,
    seed: u64,
    /// Frames between waves.
    wave_every: u32,
    /// Monsters in the first wave, and how many more in each next one.
    first_wave: u32,
    wave_growth: u32,
    /// Health of an ordinary monster (a brute has three times as much).
    monster_health: i32,
    /// Speed of an ordinary monster, in m/s.
    monster_speed: f32,
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

/// A level: its world, its schedule and the timings of its systems.
struct Level {
    number: u32,
    rules: Rules,
    world: Arena,
    schedule: Schedule<Arena>,
    stats: ScheduleStats,
}

impl Level {
    fn new(number: u32) -> Level {
        let rules = Rules::for_level(number);
        let mut world = Arena::new();
        world.spawn_with((Scoreboard::default(),));
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

        // The systems run in the order they are added. The sync point
        // applies what `collide` and `recover` queued (stuns on and off), so
        // the next frame's `steer` and `movement` see them.
        let mut schedule = Schedule::new();
        schedule
            .add_system_named("spawner", spawner(rules))
            .add_system_named("pilot", pilot(rules.seed ^ 0xfeed))
            .add_system_named("turret", turret())
            .add_system_named("steer", steer)
            .add_system_named("movement", movement)
            .add_system_named("collide", collide())
            .add_system_named("recover", recover)
            .add_sync_point()
            .add_system_named("reap", reap());

        Level {
            number,
            rules,
            world,
            schedule,
            stats: ScheduleStats::with_window(TIMING_WINDOW),
        }
    }

    /// Runs one frame: every system once, timed.
    fn step(&mut self) {
        self.schedule.run_timed(&mut self.world, &mut self.stats);
    }

    /// One line about the level's state and totals.
    fn summary(&self, second: u32) -> String {
        let world = &self.world;
        let board = scoreboard(world);
        let health = world
            .query::<(&Health, With<Player>)>()
            .next()
            .map_or(0, |(_player, (health, ()))| health.0);
        format!(
            "{second:>3}s {:<8} | {:>4} entities, {:>4} monsters ({:>3} stunned), {:>3} projectiles \
             | spawned {:>4}, shots {:>4}, hits {:>4}, kills {:>4}, bites {:>3} | player {:>3} hp, {} KOs",
            self.rules.name,
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
struct Rng(u64);

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
        let rejected = scoreboard(&level.world).rejected;
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
        last.rules.name,
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
