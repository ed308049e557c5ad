//! What a queued change can be, and why applying it can refuse it: the
//! words of the rule table and of a [`Commands`](crate::Commands) report.

use crate::RelateErrorKind;

/// What kind of command was rejected. See [`Rejected`](crate::commands::Rejected).
///
/// ```
/// use typed_ecs::CommandKind;
/// assert_ne!(CommandKind::Add, CommandKind::Remove);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CommandKind {
    /// `Commands::spawn` / `spawn_with`.
    Spawn,
    /// `Commands::add`.
    Add,
    /// `Commands::insert`.
    Insert,
    /// `Commands::remove`.
    Remove,
    /// `Commands::despawn`.
    Despawn,
    /// `Commands::relate`.
    Relate,
    /// `Commands::unrelate`.
    Unrelate,
}

/// Why a command was rejected. See [`Rejected`](crate::commands::Rejected).
///
/// ```
/// use typed_ecs::RejectReason;
/// assert_ne!(RejectReason::DeadEntity, RejectReason::AlreadyPresent);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RejectReason {
    /// The entity was not alive when the command was applied.
    DeadEntity,
    /// The entity already had the component the command adds.
    AlreadyPresent,
    /// The world ran out of entity indices.
    OutOfIndices,
    /// A `deny` relation refused the despawn: the entity is the target of
    /// a source the despawn would not take (see [`Denied`](crate::Denied)).
    Denied,
    /// The relate could not be made: its target was not alive, it named
    /// one entity as source and target, or it would have closed a cycle
    /// in a `tree` relation. (A source not alive is
    /// [`DeadEntity`](RejectReason::DeadEntity), as for every command.)
    Relate(RelateErrorKind),
}
