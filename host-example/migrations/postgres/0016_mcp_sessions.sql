-- MCP sessions of 2025-11-25 clients (app/mcp_sessions.rs), so every
-- process sharing the database can take over a session another process
-- began: rmcp's session store. Only the SHA-256 (hex) of the
-- `Mcp-Session-Id` is kept. `state` is what rmcp needs to replay the
-- handshake (the client's `initialize` parameters, JSON). Times are
-- seconds since the Unix epoch.
CREATE TABLE mcp_sessions (
    id_hash TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX mcp_sessions_created ON mcp_sessions (created_at);
