//! Checking `allowed-tools` against the tools a host has registered.

use crate::skills::allowed_tools::{AllowedTools, ToolPattern, ToolTarget, mcp_parts};
use crate::skills::diagnostic::{Code, Diagnostic};
use crate::skills::distance::distance;
use crate::{RegisteredTool, ScopeKind};

/// A registered tool, as far as `allowed-tools` cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownTool<'a> {
    /// The registered name.
    pub name: &'a str,
    /// The kind of the tool's scope argument, `None` when it declares none; a
    /// scoped grant can only be enforced on a tool that has one, and is
    /// matched by this kind.
    pub scope: Option<ScopeKind>,
}

/// What one pattern grants once the registry is known, as positions in the
/// sorted list of known tools.
pub(crate) enum Resolved<'p> {
    /// These tools, whole.
    Whole(std::ops::Range<usize>),
    /// One tool, only for calls within the pattern's scope.
    Scoped(usize),
    /// Every tool of this MCP server, whole: the candidates are the tools
    /// whose names start `mcp__server__`, and only those whose server part
    /// is exactly `server` belong to it (`mcp__files___read` starts so but
    /// is a tool of `files_`).
    Server {
        candidates: std::ops::Range<usize>,
        server: &'p str,
    },
}

/// Whether the registered tool `name` is a tool of the MCP server `server`:
/// its server part is `server` exactly, capitals and hyphens kept.
pub(crate) fn is_tool_of(name: &str, server: &str) -> bool {
    mcp_parts(name).is_some_and(|(s, tool)| s == server && tool.is_some_and(|t| !t.is_empty()))
}

/// Reports each token of `allowed-tools` that resolves to no registered tool
/// (with a "did you mean" for a near name), and each scope on a tool that has
/// no `scope` field. Such tokens grant nothing.
#[must_use = "the diagnostics are the check's only result"]
pub fn check_allowed_tools(tools: &AllowedTools, known: &[KnownTool<'_>]) -> Vec<Diagnostic> {
    match tools {
        AllowedTools::Absent => Vec::new(),
        AllowedTools::Declared(patterns) => {
            let known = sorted(known);
            patterns
                .iter()
                .filter_map(|p| diagnose(p, &known))
                .collect()
        }
    }
}

/// `known` sorted by name, borrowed when it already is (a registry's tools
/// are), so lookups can binary-search.
pub(crate) fn sorted<'s, 'k>(known: &'s [KnownTool<'k>]) -> std::borrow::Cow<'s, [KnownTool<'k>]> {
    if known.is_sorted_by_key(|k| k.name) {
        std::borrow::Cow::Borrowed(known)
    } else {
        let mut owned = known.to_vec();
        owned.sort_by_key(|k| k.name);
        std::borrow::Cow::Owned(owned)
    }
}

/// The registered tools gate 6 resolves `allowed-tools` against, sorted by
/// name: a list of [`KnownTool`]s, or a registry's own tools, read in place
/// so that no run rebuilds a list of them.
pub(crate) trait KnownTools {
    /// How many tools.
    fn len(&self) -> usize;
    /// The name of the tool at position `i`.
    fn name(&self, i: usize) -> &str;
    /// Whether the tool at position `i` has a scope argument.
    fn has_scope(&self, i: usize) -> bool;
}

impl KnownTools for [KnownTool<'_>] {
    fn len(&self) -> usize {
        <[KnownTool<'_>]>::len(self)
    }
    fn name(&self, i: usize) -> &str {
        self[i].name
    }
    fn has_scope(&self, i: usize) -> bool {
        self[i].scope.is_some()
    }
}

impl KnownTools for [RegisteredTool] {
    fn len(&self) -> usize {
        <[RegisteredTool]>::len(self)
    }
    fn name(&self, i: usize) -> &str {
        self[i].name()
    }
    fn has_scope(&self, i: usize) -> bool {
        self[i].declaration().scope.is_some()
    }
}

/// The first position in `range` of `known` whose name `below` is false
/// for; `below` must hold for a prefix of the range and for nothing after.
fn partition_point<K: KnownTools + ?Sized>(
    known: &K,
    range: std::ops::Range<usize>,
    below: impl Fn(&str) -> bool,
) -> usize {
    let (mut low, mut high) = (range.start, range.end);
    while low < high {
        let middle = low + (high - low) / 2;
        if below(known.name(middle)) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// What `pattern` grants, looked up in `known` (sorted by name, `find`
/// giving a name's position); `None` when it grants nothing. The hot path of
/// gate 6: no diagnostics are built. Inlined, with the rarer server tokens
/// out of line: the call itself was a fifth of resolving a token by name.
#[inline]
pub(crate) fn resolve<'p, K: KnownTools + ?Sized>(
    pattern: &'p ToolPattern,
    known: &K,
    find: impl Fn(&str) -> Option<usize>,
) -> Option<Resolved<'p>> {
    match &pattern.target {
        ToolTarget::Tool(name) => {
            let i = find(name)?;
            match pattern.scope {
                None => Some(Resolved::Whole(i..i + 1)),
                Some(_) if known.has_scope(i) => Some(Resolved::Scoped(i)),
                Some(_) => None,
            }
        }
        ToolTarget::McpServer(server) => resolve_server(server, known),
    }
}

/// What the token naming every tool of the MCP server `server` grants.
#[inline(never)]
fn resolve_server<'p, K: KnownTools + ?Sized>(server: &'p str, known: &K) -> Option<Resolved<'p>> {
    let prefix = format!("mcp__{server}__");
    let all = 0..known.len();
    let start = partition_point(known, all.clone(), |name| name < prefix.as_str());
    let end = partition_point(known, start..all.end, |name| name.starts_with(&prefix));
    let candidates = start..end;
    candidates
        .clone()
        .any(|i| is_tool_of(known.name(i), server))
        .then_some(Resolved::Server { candidates, server })
}

/// Why `pattern` grants nothing, or `None` when it grants something.
fn diagnose(pattern: &ToolPattern, known: &[KnownTool<'_>]) -> Option<Diagnostic> {
    let find = |name: &str| known.binary_search_by(|k| k.name.cmp(name)).ok();
    if resolve(pattern, known, find).is_some() {
        return None;
    }
    Some(match &pattern.target {
        ToolTarget::Tool(name) => {
            if known.iter().any(|k| k.name == name) {
                Diagnostic::new(
                    Code::UnenforceableScope,
                    pattern.position,
                    format!(
                        "`{pattern}` scopes a tool that has no `scope` argument, so the scope cannot \
                         be enforced and nothing is allowed: write `{name}` to allow the whole tool"
                    ),
                )
            } else {
                Diagnostic::new(
                    Code::UnresolvedTool,
                    pattern.position,
                    format!(
                        "no tool named `{name}` is registered, so it is not allowed{}",
                        suggestion(name, known.iter().map(|k| k.name))
                    ),
                )
            }
        }
        ToolTarget::McpServer(server) => {
            let servers = known.iter().filter_map(|k| server_of(k.name));
            Diagnostic::new(
                Code::UnresolvedServer,
                pattern.position,
                format!(
                    "no tool of the MCP server `{server}` is registered, so none is allowed{}",
                    suggestion(server, servers)
                ),
            )
        }
    })
}

fn server_of(name: &str) -> Option<&str> {
    mcp_parts(name).and_then(|(server, tool)| tool.map(|_| server))
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
