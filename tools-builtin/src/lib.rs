//! Read-only tools that show the security contract: inputs validated and
//! scoped, volumes capped, secrets redacted.
//!
//! | tool | group | admin | ships |
//! | --- | --- | --- | --- |
//! | `get_system_status` | `tools-builtin` | no | enabled |
//! | `get_env` | `tools-builtin` | no | enabled |
//! | `get_env_raw` | `tools-builtin` | yes | disabled |
//!
//! A host keeps this crate linked with one line before building its
//! registry:
//!
//! ```
//! tools_builtin::link();
//! let registry = tool_core::Registry::linked().unwrap();
//! assert!(registry.get("get_env").is_some());
//! ```

mod env;
mod status;

pub use env::{Environment, GetEnv, GetEnvRaw};
pub use status::{GetSystemStatus, HostInfo};

/// The group of every tool in this crate: the crate's name, so an
/// administrator can switch them off together.
pub const GROUP: &str = "tools-builtin";

/// Keeps this crate, and so its tool registrations, linked into a host that
/// names no other item of it. Call it once before building the registry.
#[inline(never)]
pub fn link() {
    // Naming a static of this crate is what makes the linker keep the
    // object file that holds the `inventory` registrations.
    std::hint::black_box(&GROUP);
}
