//! Systems whose parameters say what they touch, and stages whose systems
//! are proven not to conflict at compile time.
//!
//! A system is a function or closure. Its parameters are its declaration:
//!
//! | parameter | touches |
//! |---|---|
//! | `&SparseMap<C>` | reads the component `C` |
//! | `&mut SparseMap<C>` | writes `C` |
//! | `&R` | reads the resource `R` (declared in `resources { … }`) |
//! | `&mut R` | writes `R` |
//! | `&EntityAllocator` | reads which entities are alive |
//! | `&mut Commands<W>` | the system's own command buffer (nothing shared) |
//! | `&mut W` | the whole world: the system is *exclusive*, and takes nothing else |
//!
//! Up to 8 parameters. The same component or resource twice, once as
//! `&mut`, is a compile error; so is `&mut W` beside other parameters
//! (a `&mut Commands<W>` may come along).
//!
//! [`Schedule::add_systems`](crate::Schedule::add_systems) adds a *stage*:
//! systems that may run at the same time. Two members that conflict (one
//! writes what the other reads or writes, or one is exclusive) are a
//! compile error that names both and the component or resource. With the
//! `rayon` feature a stage's systems run on rayon's pool; without it, one
//! after the other, with the same results. Either way no borrow flag is
//! checked at run time and no `unsafe` is written: the schedule splits
//! `&mut W` field by field, as [`join`](crate::join) does.
//!
//! A system's `Commands` are applied at the next sync point
//! ([`Schedule::add_sync_point`](crate::Schedule::add_sync_point)), system
//! after system in the order they ran, before `finalize_updates`; their
//! reports are in [`Schedule::last_reports`](crate::Schedule::last_reports).
//!
//! ```
//! use typed_ecs::prelude::*;
//!
//! #[derive(Clone, Copy)]
//! struct Position(f32);
//! struct Velocity(f32);
//! struct Health(i32);
//! #[derive(Default)]
//! struct Time { dt: f32 }
//! #[derive(Default)]
//! struct Score(u32);
//!
//! world! {
//!     pub struct Game<Position, Velocity, Health>;
//!     resources { time: Time, score: Score }
//! }
//!
//! fn movement(pos: &mut SparseMap<Position>, vel: &SparseMap<Velocity>, time: &Time) {
//!     join((pos, vel)).for_each(|_, (p, v)| p.0 += v.0 * time.dt);
//! }
//! fn poison(health: &mut SparseMap<Health>) {
//!     health.values_mut().iter_mut().for_each(|h| h.0 -= 1);
//! }
//! fn reaper(health: &SparseMap<Health>, score: &mut Score, commands: &mut Commands<Game>) {
//!     for (entity, h) in health.iter() {
//!         if h.0 <= 0 {
//!             commands.despawn(entity);
//!             score.0 += 1;
//!         }
//!     }
//! }
//!
//! let mut world = Game::new();
//! world.time.dt = 0.5;
//! world.spawn_with((Position(0.0), Velocity(2.0), Health(2)));
//!
//! let mut schedule = Schedule::new();
//! schedule
//!     .add_systems((movement, poison)) // disjoint: may run in parallel
//!     .add_system(reaper)
//!     .add_sync_point(); // applies the reaper's commands
//! schedule.run(&mut world);
//! schedule.run(&mut world);
//! assert_eq!((world.entity_count(), world.score.0), (0, 1));
//! ```
//!
//! The conflicts are compile errors:
//!
//! ```compile_fail
//! # use typed_ecs::prelude::*;
//! # struct Position(f32);
//! # world! { pub struct Game<Position>; }
//! fn write(pos: &mut SparseMap<Position>) {}
//! fn read(pos: &SparseMap<Position>) {}
//! let mut schedule = Schedule::<Game>::new();
//! // systems #1 and #2 of this stage conflict: #1 writes `SparseMap<Position>`, which #2 reads.
//! schedule.add_systems((write, read));
//! ```

pub(crate) mod access;
mod function;
pub(crate) mod param;
mod seen;
pub(crate) mod stage;

pub use self::function::{named, Named, SystemFn, SystemParams, SystemShape};
pub use self::param::{ReadParam, SystemParam, WriteParam};
pub use self::seen::Seen;

pub use self::stage::{IntoStage, StageParams, StageShape};
