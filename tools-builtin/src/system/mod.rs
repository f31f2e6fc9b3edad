//! The `system` group (administrators): environment, status, logs, and
//! probing the host's own sites.

mod env;
mod status;

pub use env::{Environment, GetEnv, GetEnvRaw};
pub use status::{GetSystemStatus, HostInfo};
