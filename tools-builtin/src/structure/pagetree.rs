use schemars::JsonSchema;
use serde::Deserialize;
use site_model::{PageId, Permissions};
use tool_core::redact::redact_text;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::tree::{Tree, kind_name};
use crate::access::{limit, not_found, shown_of, viewer};

/// At most this many lines per call: the outline goes into a prompt.
const MAX_LINES: usize = 200;

/// Show the page tree as an indented outline, one page a line:
/// `id title /slug (kind)`, two spaces of indent per level.
///
/// Starts at `root`, or, without one, at the top of every tree you may see.
/// Deleted and hidden pages are never shown, and neither is anything below
/// them, nor any page you may not see. At most 200 lines; the last line
/// reports the total.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "structure",
    effect = "read",
    data = "public",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct GetPagetree {
    /// The id of the page to start from. Default: the top of every tree
    /// you may see.
    root: Option<u64>,
    /// How many levels below the start to show: default 3, at least 1, at
    /// most 10.
    depth: Option<u32>,
}

impl Execute for GetPagetree {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let tree = Tree::load(&*viewer.site).await?;
        let depth = limit(self.depth, 3, 10);
        let mut outline = Outline {
            cx,
            tree: &tree,
            permissions: &viewer.permissions,
            depth,
            lines: Vec::new(),
            total: 0,
        };
        match self.root.map(PageId) {
            Some(root) if tree.is_shown(root, &viewer.permissions) => outline.subtree(root, 0),
            Some(_) => return Err(not_found()),
            None => outline.entry_points(None),
        }
        let mut text = outline.lines.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&shown_of(outline.lines.len(), outline.total));
        Ok(ToolOutput::text(text))
    }
}

struct Outline<'a> {
    cx: &'a ToolContext,
    tree: &'a Tree,
    permissions: &'a Permissions,
    depth: usize,
    lines: Vec<String>,
    total: usize,
}

impl Outline<'_> {
    /// Walks down from `parent` to the highest pages the viewer may see
    /// (for an editor, the roots of their grants) and outlines each.
    fn entry_points(&mut self, parent: Option<PageId>) {
        for &id in self.tree.children(parent) {
            if !self.tree.is_published(id) {
                continue;
            }
            if self.tree.is_shown(id, self.permissions) {
                self.subtree(id, 0);
            } else {
                self.entry_points(Some(id));
            }
        }
    }

    fn subtree(&mut self, id: PageId, level: usize) {
        let Some(page) = self.tree.page(id) else {
            return;
        };
        self.total += 1;
        if self.lines.len() < MAX_LINES {
            self.lines.push(format!(
                "{}{} {} /{} ({})",
                "  ".repeat(level),
                page.id,
                redact_text(page.title.read(self.cx)),
                redact_text(page.slug.read(self.cx)),
                kind_name(page.kind),
            ));
        }
        if level == self.depth {
            return;
        }
        for &child in self.tree.children(Some(id)) {
            if self.tree.is_shown(child, self.permissions) {
                self.subtree(child, level + 1);
            }
        }
    }
}
