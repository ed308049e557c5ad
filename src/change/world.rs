//! The world's side of change tracking: its own view of every tracked
//! storage's changes (see [`World::clear_changes`](crate::World::clear_changes)),
//! and the clock a schedule advances between stages.

use super::Hooks;
use crate::plumbing::{Column, EachStorage, Storages};
use crate::seal::TOKEN;

/// What to do to every storage's change record.
#[derive(Clone, Copy)]
enum Step {
    /// Start the world's view afresh.
    Clear,
    /// Start a new stamp: changes from now on are told apart from the
    /// ones before.
    Tick,
    /// A schedule's run starts.
    RunStarted,
}

impl<W: Storages> EachStorage<W> for Step {
    type Out<C> = ();

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) {
        let track = C::field_mut(world, TOKEN).track_mut();
        match self {
            Step::Clear => track.clear(),
            Step::Tick => track.tick(),
            Step::RunStarted => track.run_started(),
        }
    }
}

/// Starts the world's view of every tracked storage of `world` afresh.
#[inline]
pub(crate) fn clear<W: Storages>(world: &mut W) {
    world.each(&mut Step::Clear, TOKEN);
}

/// Starts a new stamp in every tracked storage of `world` (a schedule does
/// this before each stage).
#[inline]
pub(crate) fn tick<W: Storages>(world: &mut W) {
    world.each(&mut Step::Tick, TOKEN);
}

/// A schedule's run starts: the world's view starts afresh, and removals
/// older than the previous run's start are dropped (every system has
/// looked since).
pub(crate) fn run_started<W: Storages>(world: &mut W) {
    world.each(&mut Step::RunStarted, TOKEN);
}
