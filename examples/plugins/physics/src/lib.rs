//! Two typed_ecs plugins in one crate, for the worlds of other crates:
//!
//! * [`Physics`]: bodies that fall (`Pos`, `Vel`, the resource `Gravity`,
//!   the event `Landed`);
//! * [`Expiry`]: entities that despawn when their `Ttl` runs out (through
//!   `Commands`), counted in the resource `Expired`.
//!
//! A game includes them by path in its `world!`:
//!
//! ```text
//! world! {
//!     pub struct Game<Health>;
//!     plugins (physics::Physics, physics::Expiry);
//! }
//! ```
//!
//! Each plugin is declared at this crate's root, and so are the types its
//! part names (`plugin!`'s rules). Its systems are generic over the world
//! (`W: Physics`), name their storages `StorageOf<W, C>`, and bound the
//! resources they take (`Gravity: ReadParam<W>`).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use typed_ecs::prelude::*;

/// Where a body is, in metres above the ground.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pos(pub f32);

/// How fast it moves, in metres per tick (up is positive).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vel(pub f32);

/// What every body's velocity loses per tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gravity(pub f32);

impl Default for Gravity {
    fn default() -> Self {
        Gravity(1.0)
    }
}

/// A body reached the ground this tick (sent by [`integrate`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Landed(pub Entity);

typed_ecs::plugin! {
    /// Falling bodies: every tick, gravity pulls each velocity down, each
    /// body moves by its velocity, and a body on the ground stops there
    /// (the event `Landed` says which).
    pub trait Physics {
        components (Pos, Vel);
        resources {
            /// The pull of every tick.
            gravity: Gravity
        }
        events { landed: Landed }
        systems add_physics;
    }
}

/// Gravity pulls every velocity down.
pub fn fall<W: Physics>(vel: &mut StorageOf<W, Vel>, gravity: &Gravity)
where
    Gravity: ReadParam<W>,
{
    vel.values_mut().iter_mut().for_each(|v| v.0 -= gravity.0);
}

/// Each body moves by its velocity, and stops on the ground, which it
/// says with a [`Landed`].
pub fn integrate<W: Physics>(
    pos: &mut StorageOf<W, Pos>,
    vel: &mut StorageOf<W, Vel>,
    landed: &mut Writer<Landed>,
) {
    join((pos, vel)).for_each(|body, (p, v)| {
        p.0 += v.0;
        if p.0 <= 0.0 {
            if v.0 < 0.0 {
                landed.send(Landed(body));
            }
            p.0 = 0.0;
            v.0 = 0.0;
        }
    });
}

/// The plugin's systems: [`fall`], then [`integrate`], then a sync point
/// (its `Landed` messages are there for the systems after it).
pub fn add_physics<W: Physics>(schedule: &mut Schedule<W>)
where
    Gravity: ReadParam<W>,
{
    schedule
        .add_system(fall::<W>)
        .add_system(integrate::<W>)
        .add_sync_point();
}

/// Ticks left before the entity is despawned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ttl(pub u32);

/// How many entities with a [`Ttl`] have gone (despawned at zero, or
/// otherwise): counted by [`Expiry`]'s hook.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Expired(pub u64);

typed_ecs::plugin! {
    /// Entities that last a number of ticks: each tick counts every `Ttl`
    /// down, and the entities at zero are despawned at the next sync point;
    /// a hook counts every `Ttl` that goes.
    pub trait Expiry {
        components (Ttl);
        resources {
            /// How many have gone.
            expired: Expired
        }
        hooks {
            on_remove(Ttl) => count_gone;
        }
        systems add_expiry;
    }
}

/// Counts every `Ttl` down and queues the despawn of those at zero.
pub fn expire<W: Expiry>(ttl: &mut StorageOf<W, Ttl>, commands: &mut Commands<W>) {
    for (entity, ttl) in ttl.iter_mut() {
        if ttl.0 == 0 {
            commands.despawn(entity);
        } else {
            ttl.0 -= 1;
        }
    }
}

/// The plugin's hook: each `Ttl` removed (its entity despawned, or the
/// `Ttl` taken off) is counted, whichever path removed it.
pub fn count_gone<W: Expiry>(gone: OnRemove<Ttl>, expired: &mut Expired)
where
    Expired: WriteParam<W>,
{
    expired.0 += gone.len() as u64;
}

/// The plugin's systems: [`expire`], then a sync point that applies its
/// despawns.
pub fn add_expiry<W: Expiry>(schedule: &mut Schedule<W>) {
    schedule.add_system(expire::<W>).add_sync_point();
}

/// Marks a body that bounces off the ground instead of stopping there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bouncy(pub f32);

typed_ecs::plugin! {
    /// Bouncing bodies: a plugin over another's components. It requires
    /// `Pos` and `Vel`, which a world gets from [`Physics`] (or declares
    /// itself); a world without them does not compile.
    pub trait Bounce {
        components (Bouncy);
        requires (Pos, Vel);
        systems add_bounce;
    }
}

/// A bouncy body that has just stopped on the ground is thrown back up,
/// with its `Bouncy` factor as the new speed.
pub fn bounce<W: Bounce>(
    bouncy: &StorageOf<W, Bouncy>,
    pos: &StorageOf<W, Pos>,
    vel: &mut StorageOf<W, Vel>,
) {
    join((vel, bouncy, pos)).for_each(|_, (v, b, p)| {
        if p.0 == 0.0 && v.0 == 0.0 {
            v.0 = b.0;
        }
    });
}

/// The plugin's system: [`bounce`] (add it after the physics).
pub fn add_bounce<W: Bounce>(schedule: &mut Schedule<W>) {
    schedule.add_system(bounce::<W>);
}
