//! Test only: the tools the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) calls by name, declared with
//! `#[derive(Tool)]` like any host's tools, in group `conformance`.
//! `host-conformance` (this crate's binary) is the host built with them;
//! the product binary (`host-example`) never links this crate.
//!
//! Each tool answers what the suite's scenario of the same name checks
//! (the scenario's text is quoted beside each). Scenarios the host does
//! not serve (sampling, elicitation, logging, completion, the fixed
//! prompts and resources) have no tool here; `expected-failures.yml`
//! names them with the reason.
#![forbid(unsafe_code)]

mod tools;

pub use tools::*;

/// The group every fixture tool is in.
pub const GROUP: &str = "conformance";

tool_core::linkable!();
