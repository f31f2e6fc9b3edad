-- The host's first schema (PostgreSQL). Integers are seconds since the
-- Unix epoch or ids; every entity the site model defines is kept whole as a
-- JSON document in `data` (TEXT, not jsonb: it is read back through sqlx's
-- `Any` driver, which has no JSON type), with the columns reads filter or
-- order by beside it.

CREATE TABLE host_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The site.
CREATE TABLE site_columns (id BIGINT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE site_pages (
    id BIGINT PRIMARY KEY,
    parent BIGINT,
    translation_of BIGINT,
    language BIGINT NOT NULL,
    sorting BIGINT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX site_pages_parent ON site_pages (parent);
CREATE TABLE site_elements (
    id BIGINT PRIMARY KEY,
    page BIGINT NOT NULL,
    col BIGINT NOT NULL,
    sorting BIGINT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX site_elements_page ON site_elements (page);
CREATE TABLE site_tables (name TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE site_records (
    tbl TEXT NOT NULL,
    id BIGINT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (tbl, id)
);
CREATE TABLE site_history (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tbl TEXT NOT NULL,
    record_id BIGINT NOT NULL,
    at BIGINT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX site_history_record ON site_history (tbl, record_id);
CREATE TABLE site_storages (id BIGINT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE site_files (
    id BIGINT PRIMARY KEY,
    storage BIGINT NOT NULL,
    missing BIGINT NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE site_references (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    file BIGINT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX site_references_file ON site_references (file);
CREATE TABLE site_users (id BIGINT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE site_groups (id BIGINT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE site_logs (
    id BIGINT PRIMARY KEY,
    at BIGINT NOT NULL,
    level_rank BIGINT NOT NULL,
    component TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX site_logs_at ON site_logs (at, id);
CREATE TABLE site_sites (identifier TEXT PRIMARY KEY, data TEXT NOT NULL);

-- The host's own tables.
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE TABLE users (
    name TEXT PRIMARY KEY,
    admin BIGINT NOT NULL,
    password_hash TEXT,
    created_at BIGINT NOT NULL
);
CREATE TABLE tokens (
    hash TEXT PRIMARY KEY,
    user_name TEXT NOT NULL REFERENCES users (name),
    created_at BIGINT NOT NULL
);
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    user_name TEXT NOT NULL,
    status TEXT NOT NULL,
    grant_json TEXT NOT NULL,
    state TEXT,
    answer TEXT,
    outcome TEXT,
    input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE TABLE run_events (
    run_id TEXT NOT NULL REFERENCES runs (id),
    seq BIGINT NOT NULL,
    at BIGINT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE proposals (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    record TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE decisions (
    proposal_id TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    decided_at BIGINT NOT NULL
);
CREATE TABLE audit (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at BIGINT NOT NULL,
    actor TEXT NOT NULL,
    run_id TEXT,
    tool TEXT,
    kind TEXT NOT NULL,
    decision TEXT NOT NULL,
    gate TEXT,
    detail TEXT
);
