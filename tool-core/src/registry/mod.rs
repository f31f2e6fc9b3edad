//! The registry: every linked tool plus tools added at run time, checked
//! once, sorted by name, and the checked call path.
//!
//! | file | concern |
//! | --- | --- |
//! | `build.rs` | [`RegistryBuilder`]: collecting the tools, checking each once |
//! | `problems.rs` | [`RegistryError`] and [`BuildProblem`]: why a build is refused |
//! | `tools.rs` | [`Registry`] and [`RegisteredTool`]: the built tools and their lookups |
//! | `call.rs` | the checked call: admission, bounded attempts, retries, output checks, applying an approval |
//! | `groups.rs` | the tools by group, for the gates |
//! | `guard.rs` | panic isolation: a tool that panics fails its own call |
//! | `size.rs` | whether a call's arguments, as JSON, fit the byte limit |

mod build;
mod call;
mod groups;
mod guard;
mod problems;
pub(crate) mod size;
mod tools;

pub use build::{DEFAULT_MAX_ARGUMENT_BYTES, RegistryBuilder};
pub(crate) use call::Admitted;
pub use problems::{BuildProblem, RegistryError};
pub use tools::{RegisteredTool, Registry};
