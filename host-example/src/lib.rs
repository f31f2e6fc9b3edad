//! A host that links chosen tool crates, lists what it got, checks skill
//! files against it ([`skills_check`]), and keeps its site, settings,
//! users, runs, approvals and audit trail in a database ([`store`]).

use std::fmt::Write as _;

use tool_core::{Effect, Egress, Registry, RegistryError, Shipped};

pub mod model;
pub mod skills_check;
pub mod store;

/// The registry of every tool crate this host links.
pub fn registry() -> Result<Registry, RegistryError> {
    // One line per tool crate: without it the linker may drop a crate this
    // host never names, and its tools with it.
    tools_builtin::link();
    tools_editing::link();
    Registry::linked()
}

/// The registry as a table: name, group, effect, egress, admin, shipped
/// state, definition site.
pub fn tools_table(registry: &Registry) -> String {
    let header = [
        "NAME",
        "GROUP",
        "EFFECT",
        "EGRESS",
        "ADMIN",
        "SHIPPED",
        "DEFINED AT",
    ];
    let rows: Vec<[String; 7]> = registry
        .tools()
        .iter()
        .map(|tool| {
            let d = tool.declaration();
            [
                d.name.to_string(),
                d.group.to_string(),
                match d.effect {
                    Effect::Read => "read",
                    Effect::Write => "write",
                }
                .to_owned(),
                match d.egress {
                    Egress::None => "none",
                    Egress::OwnSite => "own_site",
                }
                .to_owned(),
                if d.requires_admin { "yes" } else { "no" }.to_owned(),
                match d.shipped {
                    Shipped::Enabled => "enabled",
                    Shipped::Disabled => "disabled",
                }
                .to_owned(),
                tool.site().to_string(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::new();
        for (cell, width) in cells.zip(widths) {
            let _ = write!(text, "{cell:<width$}  ");
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut header.iter().copied());
    for row in &rows {
        line(&mut row.iter().map(String::as_str));
    }
    out
}
