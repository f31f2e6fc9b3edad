//! A host that links chosen tool crates and serves them through three
//! doors (the command line, the browser pages in [`web`], MCP in [`mcp`])
//! over one app layer ([`app`], whose [`Host`] is the only way any door
//! reaches the domain), which keeps its site, settings, users, runs,
//! approvals and audit trail in a database ([`store`]) and asks a model
//! ([`model`]).

// Names a tool crate whose `link()` the host forgot (tool_core::linkable).
// Not in the lib's unit tests, where every dev-dependency would be named.
#![cfg_attr(not(test), warn(unused_crate_dependencies))]
#![forbid(unsafe_code)]

use comfy_table::{ContentArrangement, Table, presets};
// The command line's parser and progress bars are the binary's (main.rs).
use tool_core::Registry;
use {clap as _, indicatif as _};

pub mod app;
pub mod domain;
pub mod mcp;
pub mod model;
pub mod serve;
pub mod store;
pub mod web;

pub use app::{Host, HostError, registry};

/// The registry as a table: name, group, effect, egress, admin, shipped
/// state, definition site.
pub fn tools_table(registry: &Registry) -> String {
    let mut table = plain_table([
        "NAME",
        "GROUP",
        "EFFECT",
        "EGRESS",
        "ADMIN",
        "SHIPPED",
        "DEFINED AT",
    ]);
    for tool in registry.tools() {
        let d = tool.declaration();
        table.add_row([
            d.name.to_string(),
            d.group.to_string(),
            d.effect.to_string(),
            d.egress.to_string(),
            if d.requires_admin { "yes" } else { "no" }.to_owned(),
            d.shipped.to_string(),
            tool.site().to_string(),
        ]);
    }
    render_table(&table)
}

/// A table without borders, its columns two spaces apart and never
/// wrapped: for people, and for `awk` and `split_whitespace`.
pub fn plain_table<const N: usize>(header: [&str; N]) -> Table {
    let mut table = Table::new();
    table
        .load_preset(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    for column in table.column_iter_mut() {
        column.set_padding((0, 2));
    }
    table
}

/// `table` as lines without trailing blanks, each ending in a newline.
pub fn render_table(table: &Table) -> String {
    let mut out = String::new();
    for line in table.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
