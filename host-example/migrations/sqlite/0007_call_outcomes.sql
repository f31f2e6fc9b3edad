-- What applying an approved proposal of a single call (an MCP client's,
-- outside any agent run) came to, so the client that asked can learn it
-- later from any host process (an MCP task, docs/mcp.md): `outcome` is
-- {"applied": ToolOutput} or {"failed": "why nothing was written"}.
CREATE TABLE call_outcomes (
    proposal_id TEXT PRIMARY KEY,
    outcome TEXT NOT NULL,
    recorded_at INTEGER NOT NULL
);
