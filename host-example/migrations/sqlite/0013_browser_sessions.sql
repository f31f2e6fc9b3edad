-- Sessions of signed-in browsers (app/browser_sessions.rs), so every
-- process sharing the database knows them. The cookie carries a random id;
-- only its SHA-256 (hex) is kept. `user_name` is NULL for the sign-in
-- form's session (it only carries the form's CSRF token); a removed user's
-- sessions go with them. Times are seconds since the Unix epoch;
-- `notice` is a one-time message for the session's next page.
CREATE TABLE browser_sessions (
    id_hash TEXT PRIMARY KEY,
    user_name TEXT REFERENCES users (name) ON DELETE CASCADE,
    csrf TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    notice TEXT
);
CREATE INDEX browser_sessions_user ON browser_sessions (user_name);
CREATE INDEX browser_sessions_last_seen ON browser_sessions (last_seen_at);
CREATE INDEX browser_sessions_created ON browser_sessions (created_at);
