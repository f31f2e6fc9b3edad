-- The host's first schema (SQLite). Integers are seconds since the Unix
-- epoch or ids; every entity the site model defines is kept whole as a JSON
-- document in `data`, with the columns reads filter or order by beside it.

CREATE TABLE host_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The site.
CREATE TABLE site_columns (id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE site_pages (
    id INTEGER PRIMARY KEY,
    parent INTEGER,
    translation_of INTEGER,
    language INTEGER NOT NULL,
    sorting INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX site_pages_parent ON site_pages (parent);
CREATE TABLE site_elements (
    id INTEGER PRIMARY KEY,
    page INTEGER NOT NULL,
    col INTEGER NOT NULL,
    sorting INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX site_elements_page ON site_elements (page);
CREATE TABLE site_tables (name TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE site_records (
    tbl TEXT NOT NULL,
    id INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (tbl, id)
);
CREATE TABLE site_history (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    tbl TEXT NOT NULL,
    record_id INTEGER NOT NULL,
    at INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX site_history_record ON site_history (tbl, record_id);
CREATE TABLE site_storages (id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE site_files (
    id INTEGER PRIMARY KEY,
    storage INTEGER NOT NULL,
    missing INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE site_references (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    file INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX site_references_file ON site_references (file);
CREATE TABLE site_users (id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE site_groups (id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE site_logs (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    level_rank INTEGER NOT NULL,
    component TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX site_logs_at ON site_logs (at, id);
CREATE TABLE site_sites (identifier TEXT PRIMARY KEY, data TEXT NOT NULL);

-- The host's own tables.
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE users (
    name TEXT PRIMARY KEY,
    admin INTEGER NOT NULL,
    password_hash TEXT,
    created_at INTEGER NOT NULL
);
CREATE TABLE tokens (
    hash TEXT PRIMARY KEY,
    user_name TEXT NOT NULL REFERENCES users (name),
    created_at INTEGER NOT NULL
);
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    user_name TEXT NOT NULL,
    status TEXT NOT NULL,
    grant_json TEXT NOT NULL,
    state TEXT,
    answer TEXT,
    outcome TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE run_events (
    run_id TEXT NOT NULL REFERENCES runs (id),
    seq INTEGER NOT NULL,
    at INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE proposals (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    record TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE decisions (
    proposal_id TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    decided_at INTEGER NOT NULL
);
CREATE TABLE audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    run_id TEXT,
    tool TEXT,
    kind TEXT NOT NULL,
    decision TEXT NOT NULL,
    gate TEXT,
    detail TEXT
);
