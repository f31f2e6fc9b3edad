//! The site's generation and the database's own full-text search over what
//! the public may read: SQLite FTS5 (BM25, Porter stemming for English) or
//! PostgreSQL `tsvector` (stemmed in each source's language, ranked by
//! `ts_rank_cd`), both with highlighted excerpts.

use crate::store::SearchIndex;
use site_model::PublicSource;
use sqlx::Row;

use super::{Backend, StoreError, from_json, to_json};

/// A match of the database's full-text search.
#[derive(Debug, Clone, PartialEq)]
pub struct FullTextHit {
    /// The source, as written.
    pub source: PublicSource,
    /// Higher is better (BM25 on SQLite, `ts_rank_cd` on PostgreSQL).
    pub score: f64,
    /// The text around the match, matched words between `**`.
    pub excerpt: String,
}

/// A full-text query as the store runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullTextQuery<'a> {
    /// Words and phrases, each only letters and digits (so the database
    /// never reads the user's text as its query syntax).
    pub terms: &'a [String],
    /// Only this site ("": every site).
    pub site: &'a str,
    /// Only this language ("": every language).
    pub language: &'a str,
    /// At most this many hits.
    pub limit: i64,
}

impl SearchIndex<'_> {
    /// The site's generation: raised by every change applied to the site.
    pub async fn site_generation(&self) -> Result<i64, StoreError> {
        Ok(
            sqlx::query("SELECT generation FROM site_generation WHERE id = 1")
                .fetch_one(self.store.pool())
                .await?
                .try_get("generation")?,
        )
    }

    /// The generation the full-text table was last written at (-1: never).
    pub async fn public_sources_generation(&self) -> Result<i64, StoreError> {
        Ok(
            sqlx::query("SELECT generation FROM public_sources_state WHERE id = 1")
                .fetch_one(self.store.pool())
                .await?
                .try_get("generation")?,
        )
    }

    /// Replaces the full-text table with `sources`, as of `generation`, in
    /// one transaction; a table already written at `generation` or later
    /// (by another process) is left as it is, unless `force`.
    pub async fn write_public_sources(
        &self,
        generation: i64,
        sources: &[PublicSource],
        force: bool,
    ) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        let written: i64 = sqlx::query(&format!(
            "SELECT generation FROM public_sources_state WHERE id = 1{}",
            self.store.for_update()
        ))
        .fetch_one(&mut *tx)
        .await?
        .try_get("generation")?;
        if written >= generation && !force {
            return Ok(());
        }
        sqlx::query("DELETE FROM public_sources")
            .execute(&mut *tx)
            .await?;
        match self.store.backend() {
            Backend::Sqlite => {
                sqlx::query("DELETE FROM public_sources_fts")
                    .execute(&mut *tx)
                    .await?;
                for (row, source) in (1_i64..).zip(sources) {
                    sqlx::query(
                        "INSERT INTO public_sources (rowid, id, site, language, title, url, data) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    )
                    .bind(row)
                    .bind(&source.id)
                    .bind(&source.site)
                    .bind(&source.language)
                    .bind(source.title.for_host())
                    .bind(&source.url)
                    .bind(to_json(source))
                    .execute(&mut *tx)
                    .await?;
                    sqlx::query(
                        "INSERT INTO public_sources_fts (rowid, title, body) VALUES ($1, $2, $3)",
                    )
                    .bind(row)
                    .bind(source.title.for_host())
                    .bind(source.text.for_host())
                    .execute(&mut *tx)
                    .await?;
                }
            }
            Backend::Postgres => {
                for source in sources {
                    sqlx::query(
                        "INSERT INTO public_sources \
                         (id, site, language, title, url, data, body, document) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, \
                         setweight(to_tsvector($8::regconfig, $4), 'A') \
                         || setweight(to_tsvector($8::regconfig, $7), 'B'))",
                    )
                    .bind(&source.id)
                    .bind(&source.site)
                    .bind(&source.language)
                    .bind(source.title.for_host())
                    .bind(&source.url)
                    .bind(to_json(source))
                    .bind(source.text.for_host())
                    .bind(text_search_config(&source.language))
                    .execute(&mut *tx)
                    .await?;
                }
            }
        }
        sqlx::query("UPDATE public_sources_state SET generation = $1 WHERE id = 1")
            .bind(generation)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The sources matching any of the query's terms, best first.
    pub async fn search_public_sources(
        &self,
        query: &FullTextQuery<'_>,
    ) -> Result<Vec<FullTextHit>, StoreError> {
        if query.terms.is_empty() {
            return Ok(Vec::new());
        }
        // Each term quoted: FTS5 reads a quoted string as a phrase and
        // nothing in it as syntax; `websearch_to_tsquery` never fails on its
        // input, reads quoted terms as phrases and `or` as OR.
        let (sql, joiner) = match self.store.backend() {
            Backend::Sqlite => (SQLITE_SEARCH, " OR "),
            Backend::Postgres => (POSTGRES_SEARCH, " or "),
        };
        let matching = query
            .terms
            .iter()
            .map(|term| format!("\"{term}\""))
            .collect::<Vec<_>>()
            .join(joiner);
        let rows = sqlx::query(sql)
            .bind(matching)
            .bind(query.site)
            .bind(query.language)
            .bind(query.limit)
            .fetch_all(self.store.pool())
            .await?;
        rows.iter()
            .map(|row| {
                Ok(FullTextHit {
                    source: from_json(row, "data", || "a public source".to_owned())?,
                    score: row.try_get("score")?,
                    excerpt: row.try_get("excerpt")?,
                })
            })
            .collect()
    }

    /// The source `id` as last written to the full-text table.
    pub async fn public_source(&self, id: &str) -> Result<Option<PublicSource>, StoreError> {
        let row = sqlx::query("SELECT data FROM public_sources WHERE id = $1")
            .bind(id)
            .fetch_optional(self.store.pool())
            .await?;
        row.map(|row| from_json(&row, "data", || format!("public source {id}")))
            .transpose()
    }
}

/// FTS5's BM25 (title ×2), negated so higher is better, and its snippet.
const SQLITE_SEARCH: &str = "SELECT p.data AS data, \
     -bm25(public_sources_fts, 2.0, 1.0) AS score, \
     snippet(public_sources_fts, 1, '**', '**', '…', 24) AS excerpt \
     FROM public_sources_fts JOIN public_sources p ON p.rowid = public_sources_fts.rowid \
     WHERE public_sources_fts MATCH $1 \
     AND ($2 = '' OR p.site = $2) AND ($3 = '' OR p.language = $3) \
     ORDER BY score DESC, p.id LIMIT $4";

/// The query in English and German (a question's language is unknown),
/// ranked by cover density, the excerpt in the source's language.
const POSTGRES_SEARCH: &str = "SELECT data, ts_rank_cd(document, q)::float8 AS score, \
     ts_headline(CASE language WHEN 'de' THEN 'german' ELSE 'english' END::regconfig, \
     body, q, 'StartSel=**, StopSel=**, MaxWords=30, MinWords=12') AS excerpt \
     FROM public_sources, \
     (SELECT websearch_to_tsquery('english', $1) || websearch_to_tsquery('german', $1) AS q) AS query \
     WHERE document @@ q AND ($2 = '' OR site = $2) AND ($3 = '' OR language = $3) \
     ORDER BY score DESC, id LIMIT $4";

/// PostgreSQL's text search configuration for a language code.
fn text_search_config(language: &str) -> &'static str {
    match language {
        "de" => "german",
        _ => "english",
    }
}
