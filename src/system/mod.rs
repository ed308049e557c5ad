//! Systems and stages (the user guide is the doc of [`SystemParam`]).
//! `function.rs` makes a function a system, `param.rs` its parameters,
//! `access.rs` what each touches and the build-time check of the rules,
//! `claims.rs` the same rules as trait bounds (checked by `cargo check`
//! for a declared world), `stage.rs` stages, `seen.rs` [`Seen`], `local.rs` [`Local`].

pub(crate) mod access;
pub(crate) mod claims;
mod function;
mod local;
pub(crate) mod param;
mod seen;
pub(crate) mod stage;

pub(crate) use self::function::short_name;
pub use self::function::{named, Named, SystemFn, SystemParams, SystemShape};
pub use self::local::Local;
pub use self::param::{ReadParam, SystemParam, WriteParam};
pub use self::seen::Seen;

pub use self::stage::{IntoStage, StageParams, StageShape};
