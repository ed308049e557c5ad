//! The world's side of change tracking: its own view of every tracked
//! storage's changes (see [`World::clear_changes`](crate::World::clear_changes)),
//! and the clock a schedule advances between stages.

use crate::change::Hooks;
use crate::world::storages::{Column, EachStorage, Storages};

/// Starts the world's view of every tracked storage afresh.
pub(crate) struct Clear;

impl<W: Storages> EachStorage<W> for Clear {
    type Out<C> = ();

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) {
        C::field_mut(world).track_mut().clear();
    }
}

/// Starts a new stamp in every tracked storage: changes from now on are
/// told apart from the ones before (a schedule does this before each stage).
pub(crate) struct Tick;

impl<W: Storages> EachStorage<W> for Tick {
    type Out<C> = ();

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) {
        C::field_mut(world).track_mut().tick();
    }
}

/// Starts a new stamp in every tracked storage of `world`.
#[inline]
pub(crate) fn tick<W: Storages>(world: &mut W) {
    world.each(&mut Tick);
}

/// A schedule's run starts: the world's view starts afresh, and removals
/// older than the previous run's start are dropped (every system has
/// looked since).
pub(crate) fn run_started<W: Storages>(world: &mut W) {
    world.each(&mut RunStarted);
}

struct RunStarted;

impl<W: Storages> EachStorage<W> for RunStarted {
    type Out<C> = ();

    #[inline]
    fn visit<C: Column<W>>(&mut self, world: &mut W) {
        C::field_mut(world).track_mut().run_started();
    }
}
