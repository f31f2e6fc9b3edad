//! The `system` group (administrators): environment, status, logs, and
//! probing the host's own sites.

mod env;
mod logs;
mod probe;
mod status;

pub use env::{Environment, GetEnv, GetEnvRaw};
pub use logs::{FetchLogs, GetLastError, Severity};
pub use probe::ProbeUrl;
pub use status::{GetSystemStatus, HostInfo};
