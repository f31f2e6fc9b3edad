//! Checking `allowed-tools` against the tools a host has registered.

use crate::skills::allowed_tools::{AllowedTools, ToolPattern, ToolTarget};
use crate::skills::diagnostic::{Code, Diagnostic};

/// A registered tool, as far as `allowed-tools` cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownTool<'a> {
    /// The registered name.
    pub name: &'a str,
    /// Whether the tool declares a `scope` field; a scoped grant can only be
    /// enforced on such a tool.
    pub has_scope: bool,
}

/// What one pattern grants once the registry is known.
pub(crate) enum Resolved<'k> {
    /// These tools, whole.
    Whole(Vec<&'k str>),
    /// One tool, only for calls within the pattern's scope.
    Scoped(&'k str),
}

/// Reports each token of `allowed-tools` that resolves to no registered tool
/// (with a "did you mean" for a near name), and each scope on a tool that has
/// no `scope` field. Such tokens grant nothing.
pub fn check_allowed_tools(tools: &AllowedTools, known: &[KnownTool<'_>]) -> Vec<Diagnostic> {
    match tools {
        AllowedTools::Absent => Vec::new(),
        AllowedTools::Declared(patterns) => patterns
            .iter()
            .filter_map(|p| resolve(p, known).err())
            .collect(),
    }
}

pub(crate) fn resolve<'k>(
    pattern: &ToolPattern,
    known: &[KnownTool<'k>],
) -> Result<Resolved<'k>, Diagnostic> {
    match &pattern.target {
        ToolTarget::Tool(name) => {
            let Some(tool) = known.iter().find(|k| k.name == name) else {
                return Err(Diagnostic::new(
                    Code::UnresolvedTool,
                    pattern.position,
                    format!(
                        "no tool named `{name}` is registered, so it is not allowed{}",
                        suggestion(name, known.iter().map(|k| k.name))
                    ),
                ));
            };
            match pattern.scope {
                None => Ok(Resolved::Whole(vec![tool.name])),
                Some(_) if tool.has_scope => Ok(Resolved::Scoped(tool.name)),
                Some(_) => Err(Diagnostic::new(
                    Code::UnenforceableScope,
                    pattern.position,
                    format!(
                        "`{pattern}` scopes a tool that has no `scope` argument, so the scope cannot \
                         be enforced and nothing is allowed: write `{name}` to allow the whole tool"
                    ),
                )),
            }
        }
        ToolTarget::McpServer(server) => {
            let prefix = format!("mcp__{server}__");
            let tools: Vec<&'k str> = known
                .iter()
                .map(|k| k.name)
                .filter(|n| n.starts_with(&prefix))
                .collect();
            if tools.is_empty() {
                let servers = known.iter().filter_map(|k| server_of(k.name));
                Err(Diagnostic::new(
                    Code::UnresolvedServer,
                    pattern.position,
                    format!(
                        "no tool of the MCP server `{server}` is registered, so none is allowed{}",
                        suggestion(server, servers)
                    ),
                ))
            } else {
                Ok(Resolved::Whole(tools))
            }
        }
    }
}

fn server_of(name: &str) -> Option<&str> {
    name.strip_prefix("mcp__")?.split_once("__").map(|(s, _)| s)
}

/// Names are compared exactly; a near miss earns a hint, never a grant.
fn suggestion<'k>(written: &str, candidates: impl Iterator<Item = &'k str>) -> String {
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        if candidate.eq_ignore_ascii_case(written) {
            return format!(": did you mean `{candidate}`? (names are case-sensitive)");
        }
        if let Some(d) = distance(written, candidate)
            && d <= 2
            && d < written.chars().count()
            && best.is_none_or(|(b, _)| d < b)
        {
            best = Some((d, candidate));
        }
    }
    best.map_or_else(String::new, |(_, c)| format!(": did you mean `{c}`?"))
}

/// Levenshtein distance; `None` for names too long to be worth comparing,
/// which bounds the cost of a hostile token.
fn distance(a: &str, b: &str) -> Option<usize> {
    const LIMIT: usize = 128;
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > LIMIT || b.len() > LIMIT {
        return None;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            let insert = current[j] + 1;
            let delete = previous[j + 1] + 1;
            current.push(substitute.min(insert).min(delete));
        }
        previous = current;
    }
    previous.last().copied()
}
