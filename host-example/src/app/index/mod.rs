//! The public search behind the `rag` tools: what the public may read of
//! the site ([`site_model::public_sources`]), searched by the best backend
//! the host has, kept current with the site by the database's generation.
//!
//! - **Backends**, best first: tantivy (an index on disk beside the
//!   database), the database's own full-text search (SQLite FTS5,
//!   PostgreSQL `tsvector`), a substring search over the sources in memory.
//!   The host prefers one ([`SearchBackend`]); when it cannot be built or
//!   fails, the next answers, and every answer names the one that did.
//! - **Freshness**: every change applied to the site raises the site's
//!   generation in its own transaction. Before each search or fetch the
//!   generation is read (one indexed row); an index built at an older one
//!   is replaced first. So a page hidden by an approved change is gone from
//!   the next answer in the process that applied it and in every other
//!   process on the same database.
//! - **Location**: tantivy keeps one folder per generation (`gen-N`) under
//!   the index folder ([`IndexLocation`]); a process builds one in a
//!   private folder and renames it into place, so processes sharing the
//!   folder never see half an index and never write the same one.
//!
//! docs/rag.md has the whole model.

mod tantivy;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use site_model::{PublicSource, Site, async_trait, public_sources};
use tokio::sync::Mutex;
use tools_builtin::rag::{
    IndexError, PublicAnswer, PublicHit, PublicIndex, PublicQuery, SUBSTRING_BACKEND,
    SubstringIndex, query_terms,
};

use self::tantivy::TantivyIndex;
use crate::store::{Backend, DatabasePlace, FullTextQuery, Store};

/// The backend a host prefers for public search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchBackend {
    /// tantivy, kept on disk beside the database (the default).
    #[default]
    Tantivy,
    /// The database's full-text search: SQLite FTS5 or PostgreSQL `tsvector`.
    Database,
    /// A case-insensitive substring search, nothing ranked beyond counting.
    Substring,
}

impl SearchBackend {
    /// Every backend, by name.
    pub const ALL: [SearchBackend; 3] = [
        SearchBackend::Tantivy,
        SearchBackend::Database,
        SearchBackend::Substring,
    ];

    /// Its name on the command line: `tantivy`, `database`, `substring`.
    pub fn as_str(self) -> &'static str {
        match self {
            SearchBackend::Tantivy => "tantivy",
            SearchBackend::Database => "database",
            SearchBackend::Substring => "substring",
        }
    }

    /// The backend named `name`, if any.
    pub fn parse(name: &str) -> Option<SearchBackend> {
        SearchBackend::ALL
            .into_iter()
            .find(|backend| backend.as_str() == name)
    }

    /// The one tried when this one cannot answer.
    fn fallback(self) -> Option<SearchBackend> {
        match self {
            SearchBackend::Tantivy => Some(SearchBackend::Database),
            SearchBackend::Database => Some(SearchBackend::Substring),
            SearchBackend::Substring => None,
        }
    }
}

impl fmt::Display for SearchBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where the tantivy index is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexLocation {
    /// A folder (one subfolder per generation).
    Folder(PathBuf),
    /// In memory, rebuilt by each process (a database with no file of its
    /// own, such as an in-memory SQLite).
    Memory,
}

impl IndexLocation {
    /// The default for the database at `url`: for a SQLite file, the folder
    /// `FILE.index` beside it; for PostgreSQL, `host-example-index/DATABASE`
    /// in the working folder (processes on one machine share it; each
    /// machine builds its own); for an in-memory SQLite, memory.
    pub fn for_database(url: &str) -> IndexLocation {
        match DatabasePlace::of(url) {
            DatabasePlace::Memory => IndexLocation::Memory,
            DatabasePlace::File(file) => {
                IndexLocation::Folder(PathBuf::from(format!("{file}.index")))
            }
            DatabasePlace::Server(name) => {
                IndexLocation::Folder(PathBuf::from("host-example-index").join(name))
            }
        }
    }
}

/// What `host-example index status` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexStatus {
    /// The backend the host prefers.
    pub preferred: SearchBackend,
    /// The backend answering now, by the name answers carry, and why the
    /// preferred one does not when it does not.
    pub answering: String,
    /// Why a better backend is not answering, when one is not.
    pub fallback_reason: Option<String>,
    /// The site's generation in the database.
    pub site_generation: i64,
    /// The generation the answering backend was built at.
    pub index_generation: i64,
    /// How many public sources it holds.
    pub sources: usize,
    /// Where the tantivy index is kept.
    pub location: String,
}

/// A backend ready to answer, at one generation.
enum Loaded {
    Tantivy(Arc<TantivyIndex>),
    Database,
    Substring(Arc<SubstringIndex>),
}

struct State {
    generation: i64,
    loaded: Option<(SearchBackend, Loaded)>,
    sources: usize,
    fallback_reason: Option<String>,
}

/// The host's [`PublicIndex`]: the preferred backend, or the next, always
/// at the site's current generation.
pub struct PublicSearch {
    store: Store,
    site: Arc<dyn Site>,
    preferred: SearchBackend,
    location: IndexLocation,
    state: Mutex<State>,
}

impl PublicSearch {
    /// Public search over `site` (kept in `store`), preferring `preferred`,
    /// its tantivy index at `location`. Nothing is built until it is used
    /// or [`PublicSearch::refresh`] is called.
    pub(crate) fn new(
        store: Store,
        site: Arc<dyn Site>,
        preferred: SearchBackend,
        location: IndexLocation,
    ) -> Self {
        PublicSearch {
            store,
            site,
            preferred,
            location,
            state: Mutex::new(State {
                generation: -1,
                loaded: None,
                sources: 0,
                fallback_reason: None,
            }),
        }
    }

    /// The backend at the site's current generation, built (or opened)
    /// first when it is behind or missing; `rebuild` builds it again even
    /// when it is current.
    async fn current(&self, rebuild: bool) -> Result<(SearchBackend, LoadedRef), IndexError> {
        let generation = self
            .store
            .search_index()
            .site_generation()
            .await
            .map_err(failed)?;
        let mut state = self.state.lock().await;
        if !rebuild
            && state.generation == generation
            && let Some((backend, loaded)) = &state.loaded
        {
            return Ok((*backend, loaded.share()));
        }
        let mut sources: Option<Vec<PublicSource>> = None;
        let mut backend = Some(self.preferred);
        let mut reasons = Vec::new();
        while let Some(trying) = backend {
            match self.load(trying, generation, rebuild, &mut sources).await {
                Ok((loaded, count)) => {
                    let shared = loaded.share();
                    state.generation = generation;
                    state.loaded = Some((trying, loaded));
                    state.sources = count;
                    state.fallback_reason = (!reasons.is_empty()).then(|| reasons.join("; "));
                    return Ok((trying, shared));
                }
                Err(reason) => {
                    reasons.push(format!("{trying}: {reason}"));
                    backend = trying.fallback();
                }
            }
        }
        Err(IndexError(reasons.join("; ")))
    }

    async fn load(
        &self,
        backend: SearchBackend,
        generation: i64,
        rebuild: bool,
        sources: &mut Option<Vec<PublicSource>>,
    ) -> Result<(Loaded, usize), String> {
        match backend {
            SearchBackend::Tantivy => {
                let folder = match &self.location {
                    IndexLocation::Folder(root) => Some(root.join(format!("gen-{generation}"))),
                    IndexLocation::Memory => None,
                };
                if let Some(folder) = &folder
                    && !rebuild
                    && folder.is_dir()
                {
                    let folder = folder.clone();
                    let opened = blocking(move || TantivyIndex::open(&folder)).await?;
                    let count = usize::try_from(opened.len()).unwrap_or(usize::MAX);
                    return Ok((Loaded::Tantivy(Arc::new(opened)), count));
                }
                let all = self.sources(sources).await?;
                let count = all.len();
                let built = blocking(move || build_tantivy(folder.as_deref(), &all)).await?;
                Ok((Loaded::Tantivy(Arc::new(built)), count))
            }
            SearchBackend::Database => {
                let all = self.sources(sources).await?;
                self.store
                    .search_index()
                    .write_public_sources(generation, &all, rebuild)
                    .await
                    .map_err(|error| error.to_string())?;
                Ok((Loaded::Database, all.len()))
            }
            SearchBackend::Substring => {
                let all = self.sources(sources).await?;
                let count = all.len();
                Ok((
                    Loaded::Substring(Arc::new(SubstringIndex::new(all.to_vec()))),
                    count,
                ))
            }
        }
    }

    /// The public sources as they are now, read once per refresh.
    async fn sources(
        &self,
        sources: &mut Option<Vec<PublicSource>>,
    ) -> Result<Arc<Vec<PublicSource>>, String> {
        if sources.is_none() {
            *sources = Some(
                public_sources(&*self.site)
                    .await
                    .map_err(|error| error.to_string())?,
            );
        }
        Ok(Arc::new(sources.clone().unwrap_or_default()))
    }

    /// Brings the index up to the site's generation (building it when it is
    /// missing); `rebuild` builds it again even when it is current.
    pub(crate) async fn refresh(&self, rebuild: bool) -> Result<IndexStatus, IndexError> {
        self.current(rebuild).await?;
        self.status().await
    }

    /// The index's state now, without building anything.
    pub(crate) async fn status(&self) -> Result<IndexStatus, IndexError> {
        let site_generation = self
            .store
            .search_index()
            .site_generation()
            .await
            .map_err(failed)?;
        let state = self.state.lock().await;
        Ok(IndexStatus {
            preferred: self.preferred,
            answering: state.loaded.as_ref().map_or_else(
                || "none yet".to_owned(),
                |(backend, _)| self.name_of(*backend),
            ),
            fallback_reason: state.fallback_reason.clone(),
            site_generation,
            index_generation: state.generation,
            sources: state.sources,
            location: match &self.location {
                IndexLocation::Folder(folder) => folder.display().to_string(),
                IndexLocation::Memory => "memory".to_owned(),
            },
        })
    }

    /// The name an answer of `backend` carries.
    fn name_of(&self, backend: SearchBackend) -> String {
        match backend {
            SearchBackend::Tantivy => "tantivy".to_owned(),
            SearchBackend::Database => match self.store.backend() {
                Backend::Sqlite => "sqlite-fts5".to_owned(),
                Backend::Postgres => "postgres-tsvector".to_owned(),
            },
            SearchBackend::Substring => SUBSTRING_BACKEND.to_owned(),
        }
    }
}

/// A loaded backend shared beyond the lock.
enum LoadedRef {
    Tantivy(Arc<TantivyIndex>),
    Database,
    Substring(Arc<SubstringIndex>),
}

impl Loaded {
    fn share(&self) -> LoadedRef {
        match self {
            Loaded::Tantivy(index) => LoadedRef::Tantivy(Arc::clone(index)),
            Loaded::Database => LoadedRef::Database,
            Loaded::Substring(index) => LoadedRef::Substring(Arc::clone(index)),
        }
    }
}

#[async_trait]
impl PublicIndex for PublicSearch {
    async fn search(&self, query: &PublicQuery) -> Result<PublicAnswer, IndexError> {
        let (backend, loaded) = self.current(false).await?;
        let hits = match loaded {
            LoadedRef::Tantivy(index) => index.search(query).map_err(failed)?,
            LoadedRef::Substring(index) => index.search_now(query),
            LoadedRef::Database => {
                let terms: Vec<String> = query_terms(&query.text)
                    .iter()
                    .map(|term| term.text())
                    .collect();
                let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
                self.store
                    .search_index()
                    .search_public_sources(&FullTextQuery {
                        terms: &terms,
                        site: query.site.as_deref().unwrap_or_default(),
                        language: query.language.as_deref().unwrap_or_default(),
                        limit,
                    })
                    .await
                    .map_err(failed)?
                    .into_iter()
                    .map(|hit| PublicHit {
                        id: hit.source.id,
                        title: hit.source.title,
                        url: hit.source.url,
                        site: hit.source.site,
                        language: hit.source.language,
                        // f32 is the trait's score type; ranks are small.
                        score: hit.score as f32,
                        excerpt: tool_core::Authored::new(hit.excerpt),
                    })
                    .collect()
            }
        };
        Ok(PublicAnswer {
            backend: self.name_of(backend),
            hits,
        })
    }

    async fn fetch(&self, id: &str) -> Result<Option<PublicSource>, IndexError> {
        let (_, loaded) = self.current(false).await?;
        match loaded {
            LoadedRef::Tantivy(index) => index.fetch(id).map_err(failed),
            LoadedRef::Substring(index) => index.fetch(id).await,
            LoadedRef::Database => self
                .store
                .search_index()
                .public_source(id)
                .await
                .map_err(failed),
        }
    }
}

/// Builds a tantivy index of `sources` at `folder` (in memory for `None`):
/// in a private folder beside it first, renamed into place when complete,
/// so another process never opens half an index. When another process
/// finished the same generation first, its index is opened instead.
fn build_tantivy(folder: Option<&Path>, sources: &[PublicSource]) -> Result<TantivyIndex, String> {
    let Some(folder) = folder else {
        return TantivyIndex::build(None, sources).map_err(|error| error.to_string());
    };
    let parent = folder.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|error| format!("{}: {error}", parent.display()))?;
    let private = parent.join(format!(
        ".building-{}-{}",
        std::process::id(),
        folder
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    ));
    let _ = std::fs::remove_dir_all(&private);
    std::fs::create_dir_all(&private).map_err(|error| format!("{}: {error}", private.display()))?;
    let built = TantivyIndex::build(Some(&private), sources).map_err(|error| error.to_string());
    drop(built?);
    if folder.is_dir() {
        // A rebuild, or another process finished first: replace it (readers
        // that have it open keep their files until they let go).
        let _ = std::fs::remove_dir_all(folder);
    }
    if let Err(error) = std::fs::rename(&private, folder) {
        let _ = std::fs::remove_dir_all(&private);
        if !folder.is_dir() {
            return Err(format!("{}: {error}", folder.display()));
        }
    }
    remove_older_generations(parent, folder);
    TantivyIndex::open(folder).map_err(|error| error.to_string())
}

/// Removes the `gen-N` folders older than `current` (best effort: a folder
/// another process still reads stays readable to it until it lets go).
fn remove_older_generations(parent: &Path, current: &Path) {
    let number = |path: &Path| -> Option<i64> {
        path.file_name()?
            .to_str()?
            .strip_prefix("gen-")?
            .parse()
            .ok()
    };
    let Some(current_number) = number(current) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if number(&path).is_some_and(|n| n < current_number) {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

/// Runs tantivy's blocking work off the async threads.
async fn blocking<T, E, F>(work: F) -> Result<T, String>
where
    T: Send + 'static,
    E: fmt::Display,
    F: FnOnce() -> Result<T, E> + Send + 'static,
{
    tokio::task::spawn_blocking(move || work().map_err(|error| error.to_string()))
        .await
        .map_err(|error| error.to_string())?
}

fn failed(error: impl fmt::Display) -> IndexError {
    IndexError(error.to_string())
}
