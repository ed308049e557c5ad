//! [`Local`]: state a system keeps between its runs.

use core::ops::{Deref, DerefMut};

use super::param::{Source, WriteParam};
use crate::plumbing::Storages;

/// A value a system keeps for itself between runs, as bevy's `Local<T>`:
/// take `&mut Local<T>` as a parameter. It starts as `T::default()`, belongs
/// to that one system (two systems, or two parameters of one system, each
/// have their own), touches nothing of the world, so it conflicts with
/// nothing in a stage, and reads as a `T` (`Deref`).
///
/// ```
/// use typed_ecs::prelude::*;
///
/// struct Pos(i32);
/// world! { struct Game<Pos>; }
///
/// // Spawns one entity every third frame.
/// fn spawner(frame: &mut Local<u32>, commands: &mut Commands<Game>) {
///     **frame += 1;
///     if **frame % 3 == 0 {
///         commands.spawn_with((Pos(0),));
///     }
/// }
///
/// let mut world = Game::new();
/// let mut schedule = Schedule::new();
/// schedule.add_system(spawner).add_sync_point();
/// for _ in 0..7 {
///     schedule.run(&mut world);
/// }
/// assert_eq!(world.entity_count(), 2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Local<T>(pub T);

impl<T> Deref for Local<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Local<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// The system's own state, kept by the schedule like its command buffer:
/// nothing shared, so no conflict (`TARGET` is `None`).
impl<W: Storages, T: Default + Send + 'static> WriteParam<W> for Local<T> {
    const TARGET: Option<super::access::Target> = None;
    type Claim = super::claims::Kept;
    type State = Local<T>;

    #[inline]
    fn write<'a>(state: &'a mut Local<T>, _: &mut Source<'a, W>) -> &'a mut Self {
        state
    }
}

impl<T> crate::seal::Sealed for Local<T> {}
