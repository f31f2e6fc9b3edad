//! Serve a tool-core [`Registry`](tool_core::Registry) over MCP, gated per
//! caller: stdio and Streamable HTTP, the 2025-11-25 revision (sessions)
//! and 2026-07-28 (stateless), through the official Rust SDK (rmcp).
//!
//! ```no_run
//! # async fn serve() -> std::io::Result<()> {
//! use tool_core::{Actor, Registry};
//! use tool_mcp::McpServer;
//!
//! let registry = Registry::linked().expect("the linked tools register");
//! McpServer::new(registry).serve_stdio(Actor::user("local")).await
//! # }
//! ```
//!
//! The server owns what is MCP's: `tools/list` per caller from the
//! caller's grant (paged, rebuilt when the grant changes),
//! `tools/call` through the host's gated call with rich results, progress
//! and cancellation, `list_changed`, the `Origin` and bearer checks, the
//! tasks extension's wire form, and **where a caller's reads are kept**
//! ([`CallScope`]): the caller always, a session only when this server
//! issued it, so no client can choose its own scope.
//!
//! The host owns who may do what ([`McpHost`]): the grant, the call
//! through the gates and its record, and, when it hands them over,
//! proposals followed as tasks ([`Proposals`]), skills as prompts and
//! files ([`Skills`]), its own resources, prompts and completions
//! ([`Resources`], [`Prompts`], [`Completions`]), bearer tokens
//! ([`Authenticate`]) and sessions across processes. [`Gated`] is a host for a registry on fixed
//! settings; host-example's MCP door implements [`McpHost`] over its
//! database. Nothing here approves a proposal: a person decides through
//! the host's own approval path.
//!
//! | module | concern |
//! | --- | --- |
//! | `host.rs` | [`McpHost`] and the smaller traits (tasks, skills, resources, prompts, completion, tokens), the words of a call |
//! | `gated.rs` | [`Gated`]: a registry on fixed settings |
//! | `server.rs` | [`McpServer`], rmcp's `ServerHandler` |
//! | `asking.rs` | a call's questions to its client (elicitation, sampling) and its log messages, as far as the client and its revision allow |
//! | `catalog.rs` | what a host serves besides tools ([`Resources`], [`Prompts`], [`Completions`]), merged with its skills |
//! | `changes.rs` | `list_changed` for tools and prompts |
//! | `listing.rs` | each caller's `tools/list` pages, built once per grant |
//! | `results.rs` | an outcome as a `tools/call` result |
//! | `tasks.rs` | a proposal as a task of the tasks extension |
//! | `skills.rs` | offered skills in the Skills extension's form |
//! | `progress.rs` | a call's progress, rate-limited on its way out |
//! | `http.rs` | [`McpServer::router`]: `/mcp`, its checks, the metadata |
//! | `serve.rs`, `stdio.rs` | [`McpServer::serve_stdio`] and [`McpServer::serve_io`] |
//! | `hangup.rs` | noticing a client went away, to cancel its call |
//! | `origin.rs` | what the `Origin` check reads and decides |

mod asking;
mod catalog;
mod changes;
mod gated;
mod hangup;
mod host;
pub mod http;
mod input;
mod listing;
mod origin;
mod progress;
mod results;
mod serve;
mod server;
mod skills;
mod stdio;
mod subscriptions;
mod task_runs;
mod tasks;

pub use asking::ASK_TIMEOUT;
pub use changes::POLL_INTERVAL;
pub use gated::Gated;
pub use host::{
    Authenticate, Call, CallControl, CallError, CallScope, Caller, Completions, Failure, McpHost,
    OfferedSkill, Prompts, Proposals, ResourceMetadata, Resources, SkillFile, Skills, Task,
    TaskState, Withdrawal,
};
pub use origin::{OriginVerdict, RequestOrigin};
pub use progress::{
    PROGRESS_INTERVAL, ProgressFeed, ProgressReport, ProgressWatch, progress_channel,
};
pub use server::{DEFAULT_PAGE_SIZE, McpServer};

/// The MCP SDK this crate serves with: the types [`Resources`],
/// [`Prompts`] and [`Completions`] answer in, at the version they are.
pub use rmcp;
