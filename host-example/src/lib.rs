//! A host that links chosen tool crates, lists what it got, and checks skill
//! files against it ([`skills_check`]).

#![forbid(unsafe_code)]

use std::fmt::Write as _;

use tool_core::{Registry, RegistryError};

pub mod mcp;
pub mod model;
pub mod skills_check;

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
                d.effect.to_string(),
                d.egress.to_string(),
                if d.requires_admin { "yes" } else { "no" }.to_owned(),
                d.shipped.to_string(),
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
