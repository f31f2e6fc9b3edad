-- What the MCP server needs of the host's tables (SQLite).
--
-- The settings' generation: one row, bumped in the same transaction as
-- every settings write, so each host process sharing the database sees that
-- the settings changed by reading one number.
CREATE TABLE settings_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL
);
INSERT INTO settings_generation (id, generation) VALUES (1, 1);

-- Who made an MCP call, with what client, over which protocol revision,
-- and how long it took. Empty for entries not made by an MCP call.
ALTER TABLE audit ADD COLUMN client_name TEXT;
ALTER TABLE audit ADD COLUMN client_version TEXT;
ALTER TABLE audit ADD COLUMN protocol TEXT;
ALTER TABLE audit ADD COLUMN duration_ms INTEGER;
