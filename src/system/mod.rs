//! Systems and stages (the user guide is the doc of [`SystemParam`]).
//! `function.rs` makes a function a system, `param.rs` its parameters,
//! `access.rs` what each touches, `stage.rs` the compile-time proof
//! that a stage's members do not conflict, `seen.rs` [`Seen`], `local.rs` [`Local`].

pub(crate) mod access;
mod function;
mod local;
pub(crate) mod param;
mod seen;
pub(crate) mod stage;

pub use self::function::{named, Named, SystemFn, SystemParams, SystemShape};
pub use self::local::Local;
pub use self::param::{ReadParam, SystemParam, WriteParam};
pub use self::seen::Seen;

pub use self::stage::{IntoStage, StageParams, StageShape};
