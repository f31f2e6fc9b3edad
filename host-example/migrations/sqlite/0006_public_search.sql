-- The site's generation: raised in the transaction of every change applied
-- to the site, so a process whose search index was built at an older
-- generation knows it is behind (docs/rag.md).
CREATE TABLE site_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation BIGINT NOT NULL
);
INSERT INTO site_generation (id, generation) VALUES (1, 0);
-- What the public may read (site_model::public_sources), as the database's
-- own full-text backend searches it: written whole at one generation.
CREATE TABLE public_sources (
    id TEXT PRIMARY KEY,
    site TEXT NOT NULL,
    language TEXT NOT NULL,
    title TEXT NOT NULL,
    url TEXT NOT NULL,
    data TEXT NOT NULL
);
-- FTS5 (bundled SQLite has it): the Porter stemmer (English) over Unicode
-- words with diacritics folded. rowid follows public_sources' rowid.
CREATE VIRTUAL TABLE public_sources_fts USING fts5(
    title, body, tokenize = 'porter unicode61 remove_diacritics 2'
);
-- The generation public_sources was written at; -1: never.
CREATE TABLE public_sources_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation BIGINT NOT NULL
);
INSERT INTO public_sources_state (id, generation) VALUES (1, -1);
