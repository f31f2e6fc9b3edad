-- What single calls outside an agent run have read (gate 9,
-- docs/exposure.md): one row per MCP session, or per caller of the
-- session-less protocol revision. `seen_at` is the last call's time, so a
-- caller's exposure is forgotten only after a whole window without calls.
CREATE TABLE exposures (
    key TEXT PRIMARY KEY,
    exposure TEXT NOT NULL,
    seen_at INTEGER NOT NULL
);
