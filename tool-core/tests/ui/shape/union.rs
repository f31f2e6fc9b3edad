use tool_core::Tool;

/// Lists the pages.
#[derive(Tool)]
#[tool(group = "pages", effect = "read")]
union ListPages {
    all: u32,
    recent: u32,
}

fn main() {}
