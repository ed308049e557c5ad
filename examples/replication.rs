//! Replication: a game server sends its clients only what changed.
//!
//! A server simulates a crowd of 20,000 people in a town square. Most stand
//! still; every tick a few start to walk somewhere, some get hurt (a person
//! whose health runs out leaves the square), and a few new people arrive.
//! A client mirrors the square in a world of its own, from the packets the
//! server sends it. Sending every position every tick would be 20,000
//! messages; sending only what changed is a few hundred.
//!
//! The server's world lists `Position` and `Health` in `tracked (…);`, so
//! their storages keep a change log (the others, here `Walk`, cost exactly
//! what they cost in a world that tracks nothing). Two systems read the log,
//! each through its own `&mut Seen<C>` parameter, which remembers what that
//! system has already seen:
//!
//! * `replicate` builds each tick's packet: the positions and health values
//!   that changed since its previous run (`seen.changed(…)`, which includes
//!   the people who arrived) and the people who left (`seen.removed(…)`);
//! * `index` keeps a crowd grid (how many people stand in each 50 m cell)
//!   up to date by moving only the people who moved, arrived or left.
//!
//! Both cost O(what changed): neither walks the 20,000 people. Every
//! second the program checks that the client's world equals the server's,
//! person for person, and that the grid equals one rebuilt from scratch,
//! and prints what the packets cost against full snapshots.
//!
//! ```text
//! cargo run --release --example replication -- --seconds 10
//! ```

use std::collections::HashMap;
use std::process::ExitCode;

use typed_ecs::join;
use typed_ecs::prelude::*;
use typed_ecs::Tracked;
use typed_ecs::{named, Seen};

/// People in the square at the start.
const PEOPLE: usize = 20_000;
/// The square is this many metres wide, with its corner at (0, 0).
const SQUARE: i32 = 1_000;
/// The side of a crowd-grid cell, in metres.
const CELL: i32 = 50;
/// Server ticks per second.
const TICKS_PER_SECOND: u32 = 20;
/// Per tick: people who may start a walk, hits, and arrivals.
const WALKS_PER_TICK: usize = 40;
const HITS_PER_TICK: usize = 30;
const ARRIVALS_PER_TICK: usize = 5;

// ---------------------------------------------------------------------------
// Components
// ---------------------------------------------------------------------------

/// Where a person stands, in metres from the square's corner. Tracked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub x: i32,
    pub y: i32,
}

/// A person's health; at 0 they leave. Tracked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Health(pub i32);

/// A walk in progress: a step per tick, `steps` more to go. Not tracked:
/// no client needs it, so it costs nothing extra.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Walk {
    pub dx: i32,
    pub dy: i32,
    pub steps: u32,
}

// ---------------------------------------------------------------------------
// What goes over the wire
// ---------------------------------------------------------------------------

/// One message of a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// This person is at this position (new, or moved).
    Moved(Entity, Position),
    /// This person's health is now this (new, or hurt).
    Hurt(Entity, Health),
    /// This person left.
    Left(Entity),
}

impl Message {
    /// Its size on the wire: a one-byte tag, an 8-byte handle, the value.
    fn bytes(&self) -> usize {
        match self {
            Message::Moved(..) => 1 + 8 + 8,
            Message::Hurt(..) => 1 + 8 + 4,
            Message::Left(..) => 1 + 8,
        }
    }
}

/// The size of a full snapshot of `people` people: a handle, a position
/// and a health each.
fn snapshot_bytes(people: usize) -> usize {
    people * (8 + 8 + 4)
}

// ---------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------

/// The packet the server sends after this tick.
#[derive(Debug, Default)]
pub struct Outbox(pub Vec<Message>);

/// How many people stand in each cell, kept up to date from the changes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Grid {
    pub cell_of: HashMap<Entity, (i32, i32)>,
    pub crowd: HashMap<(i32, i32), u32>,
}

impl Grid {
    fn cell(pos: &Position) -> (i32, i32) {
        (pos.x / CELL, pos.y / CELL)
    }

    /// `person` now stands at `pos` (new, or moved).
    fn enter(&mut self, person: Entity, pos: &Position) {
        let cell = Self::cell(pos);
        if let Some(old) = self.cell_of.insert(person, cell) {
            if old == cell {
                return;
            }
            self.leave_cell(old);
        }
        *self.crowd.entry(cell).or_default() += 1;
    }

    /// `person` left.
    fn leave(&mut self, person: Entity) {
        if let Some(old) = self.cell_of.remove(&person) {
            self.leave_cell(old);
        }
    }

    fn leave_cell(&mut self, cell: (i32, i32)) {
        let count = self
            .crowd
            .get_mut(&cell)
            .expect("a person's cell is counted");
        *count -= 1;
        if *count == 0 {
            self.crowd.remove(&cell);
        }
    }
}

world! {
    pub struct Server<Position, Health, Walk>;
    resources { rng: Rng, outbox: Outbox, grid: Grid }
    tracked (Position, Health);
}

/// A few people who stand still start to walk.
fn start_walks(
    pos: &SparseMap<Position, Tracked>,
    walks: &SparseMap<Walk>,
    rng: &mut Rng,
    commands: &mut Commands<Server>,
) {
    for _ in 0..WALKS_PER_TICK {
        let person = pos.entities()[rng.below(pos.len())];
        if !walks.contains(person) {
            let walk = Walk {
                dx: rng.below(7) as i32 - 3,
                dy: rng.below(7) as i32 - 3,
                steps: 10 + rng.below(50) as u32,
            };
            commands.add(person, walk);
        }
    }
}

/// Every walker takes a step; one at the end of their walk stops. Only
/// the walkers' positions are borrowed mutably, so only they are marked
/// changed (the join is driven by the few walks, not the many positions).
fn walk(
    pos: &mut SparseMap<Position, Tracked>,
    walks: &mut SparseMap<Walk>,
    commands: &mut Commands<Server>,
) {
    join((pos, walks)).for_each(|person, (pos, walk)| {
        pos.x = (pos.x + walk.dx).clamp(0, SQUARE - 1);
        pos.y = (pos.y + walk.dy).clamp(0, SQUARE - 1);
        walk.steps -= 1;
        if walk.steps == 0 {
            commands.remove::<Walk>(person);
        }
    });
}

/// A few people get hurt; whoever runs out of health leaves.
fn fights(health: &mut SparseMap<Health, Tracked>, rng: &mut Rng, commands: &mut Commands<Server>) {
    for _ in 0..HITS_PER_TICK {
        let person = health.entities()[rng.below(health.len())];
        let hp = health.get_mut(person).expect("a listed person has health");
        let before = hp.0;
        hp.0 -= 1 + rng.below(40) as i32;
        if before > 0 && hp.0 <= 0 {
            commands.despawn(person);
        }
    }
}

/// A few people arrive at the square's west gate.
fn arrivals(rng: &mut Rng, commands: &mut Commands<Server>) {
    for _ in 0..ARRIVALS_PER_TICK {
        let at = Position {
            x: 0,
            y: rng.below(SQUARE as usize) as i32,
        };
        commands.spawn_with((at, Health(100)));
    }
}

/// Moves in the grid only the people who moved, arrived or left since
/// this system's previous run.
fn index(pos: &SparseMap<Position, Tracked>, seen: &mut Seen<Position>, grid: &mut Grid) {
    for &gone in seen.removed(pos) {
        grid.leave(gone);
    }
    join(seen.changed(pos)).for_each(|person, pos| grid.enter(person, pos));
}

/// Builds the packet: everything that changed since this system's
/// previous run (its first run sends everyone).
fn replicate(
    pos: &SparseMap<Position, Tracked>,
    health: &SparseMap<Health, Tracked>,
    seen_pos: &mut Seen<Position>,
    seen_health: &mut Seen<Health>,
    outbox: &mut Outbox,
) {
    let packet = &mut outbox.0;
    packet.clear();
    packet.extend(
        seen_pos
            .removed(pos)
            .iter()
            .map(|&gone| Message::Left(gone)),
    );
    join(seen_pos.changed(pos)).for_each(|person, pos| packet.push(Message::Moved(person, *pos)));
    join(seen_health.changed(health))
        .for_each(|person, hp| packet.push(Message::Hurt(person, *hp)));
}

impl Server {
    /// The square at the start: `PEOPLE` people standing at random, in
    /// random health.
    fn populated(seed: u64) -> Server {
        let mut server = Server::new();
        server.rng = Rng(seed);
        for _ in 0..PEOPLE {
            let at = Position {
                x: server.rng.below(SQUARE as usize) as i32,
                y: server.rng.below(SQUARE as usize) as i32,
            };
            let hp = Health(1 + server.rng.below(100) as i32);
            server.spawn_with((at, hp));
        }
        server
    }

    /// The crowd grid rebuilt from every position, to check the one kept
    /// up to date.
    fn grid_from_scratch(&self) -> Grid {
        let mut grid = Grid::default();
        for (person, pos) in self.query::<&Position>() {
            grid.enter(person, pos);
        }
        grid
    }
}

/// One server tick: the systems in order, with the sync points that apply
/// their `Commands`.
fn server_schedule() -> Schedule<Server> {
    let mut schedule = Schedule::new();
    schedule
        .add_system_named("start_walks", start_walks)
        .add_system_named("fights", fights)
        .add_system_named("arrivals", arrivals)
        .add_sync_point()
        .add_system_named("walk", walk)
        .add_sync_point()
        .add_systems((named("index", index), named("replicate", replicate)));
    schedule
}

// ---------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------

/// The client's handle for each server handle it has heard of.
#[derive(Debug, Default)]
pub struct Mirror(pub HashMap<Entity, Entity>);

world! {
    pub struct Client<Position, Health>;
    resources { mirror: Mirror }
}

impl Client {
    /// The client's person for `person` on the server, made on first
    /// mention.
    fn person(&mut self, person: Entity) -> Entity {
        if let Some(&mine) = self.mirror.0.get(&person) {
            return mine;
        }
        let mine = self.spawn();
        self.mirror.0.insert(person, mine);
        mine
    }

    /// Applies one packet.
    fn receive(&mut self, packet: &[Message]) {
        for message in packet {
            match *message {
                Message::Left(person) => {
                    if let Some(mine) = self.mirror.0.remove(&person) {
                        self.despawn(mine);
                    }
                }
                Message::Moved(person, pos) => {
                    let mine = self.person(person);
                    self.insert(mine, pos);
                }
                Message::Hurt(person, hp) => {
                    let mine = self.person(person);
                    self.insert(mine, hp);
                }
            }
        }
    }

    /// Whether this client shows exactly the server's square.
    fn mirrors(&self, server: &Server) -> Result<(), String> {
        if self.mirror.0.len() != server.position.len() {
            return Err(format!(
                "the client knows {} people, the server has {}",
                self.mirror.0.len(),
                server.position.len()
            ));
        }
        for (person, (pos, hp)) in server.query::<(&Position, &Health)>() {
            let mine = self.mirror.0.get(&person).copied();
            let theirs = mine.map(|m| (self.get::<Position>(m), self.get::<Health>(m)));
            if theirs != Some((Some(pos), Some(hp))) {
                return Err(format!(
                    "{person:?} is at {pos:?} with {hp:?} on the server, {theirs:?} on the client"
                ));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// The main loop
// ---------------------------------------------------------------------------

fn main() -> ExitCode {
    let seconds = match parse_seconds() {
        Ok(seconds) => seconds,
        Err(message) => {
            eprintln!("{message}\nusage: replication [--seconds N]");
            return ExitCode::FAILURE;
        }
    };
    let mut server = Server::populated(0x5eed);
    let mut client = Client::new();
    let mut schedule = server_schedule();
    println!(
        "{PEOPLE} people in a {SQUARE} m square, {TICKS_PER_SECOND} ticks a second; \
         packets against full snapshots:"
    );
    let (mut sent_total, mut snapshot_total) = (0, 0);
    for second in 1..=seconds {
        let (mut messages, mut left, mut sent, mut snapshots) = (0, 0, 0, 0);
        for _ in 0..TICKS_PER_SECOND {
            schedule.run(&mut server);
            let packet = &server.outbox.0;
            client.receive(packet);
            messages += packet.len();
            left += packet
                .iter()
                .filter(|m| matches!(m, Message::Left(_)))
                .count();
            sent += packet.iter().map(Message::bytes).sum::<usize>();
            snapshots += snapshot_bytes(server.position.len());
        }
        if let Err(problem) = client.mirrors(&server) {
            eprintln!("second {second}: the client is out of step: {problem}");
            return ExitCode::FAILURE;
        }
        if server.grid != server.grid_from_scratch() {
            eprintln!("second {second}: the crowd grid is out of step with the positions");
            return ExitCode::FAILURE;
        }
        println!(
            "second {second:>3}: {:>6} people ({left:>3} left), {:>5} walking, \
             {messages:>6} messages, {sent:>8} bytes sent, {:>5.2}% of full snapshots",
            server.position.len(),
            server.walk.len(),
            100.0 * sent as f64 / snapshots as f64
        );
        sent_total += sent;
        snapshot_total += snapshots;
    }
    println!(
        "in all: {sent_total} bytes sent instead of {snapshot_total} ({:.2}%); \
         the client matched the server every second",
        100.0 * sent_total as f64 / snapshot_total.max(1) as f64
    );
    ExitCode::SUCCESS
}

fn parse_seconds() -> Result<u32, String> {
    let mut args = std::env::args().skip(1);
    let mut seconds = 10;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                seconds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--seconds takes a number")?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(seconds)
}

/// A tiny seeded generator (a 64-bit LCG), so that every run prints the
/// same lines; the example needs no dependency beyond typed_ecs.
#[derive(Debug, Default)]
pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (((self.0 >> 32) * n as u64) >> 32) as usize
    }
}
