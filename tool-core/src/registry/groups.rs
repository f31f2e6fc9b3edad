//! The registry's tools by group, worked out once at build, so that the
//! gates look up each group's settings once per run instead of once per
//! tool.

use rustc_hash::FxHashMap;

/// Which group each tool is in, by position: groups are numbered in the
/// order their first tool comes in the registry.
#[derive(Debug)]
pub(crate) struct Groups {
    /// Per tool, in registry order: the number of its group.
    of_tool: Vec<usize>,
    /// Per group: the position of its first tool, whose declaration names
    /// the group.
    first_tool: Vec<usize>,
}

impl Groups {
    /// The groups of the tools whose groups are `of_tools`, in registry
    /// order.
    pub(super) fn new<'a>(of_tools: impl IntoIterator<Item = &'a str>) -> Self {
        let mut numbers: FxHashMap<&str, usize> = FxHashMap::default();
        let mut first_tool = Vec::new();
        let of_tool = of_tools
            .into_iter()
            .enumerate()
            .map(|(position, group)| {
                *numbers.entry(group).or_insert_with(|| {
                    first_tool.push(position);
                    first_tool.len() - 1
                })
            })
            .collect();
        Groups {
            of_tool,
            first_tool,
        }
    }

    /// The number of each tool's group, in registry order.
    pub(crate) fn of_tools(&self) -> &[usize] {
        &self.of_tool
    }

    /// Each group's first tool, by group number.
    pub(crate) fn first_tools(&self) -> &[usize] {
        &self.first_tool
    }
}
