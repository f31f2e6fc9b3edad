//! The host's storage: one database, SQLite (a file, embedded) or
//! PostgreSQL (a server several host processes share), holding the site
//! ([`SqlSite`]) and the host's own tables: settings, users and their
//! browser sessions, runs and their
//! events and notes, proposals and decisions ([`SqlApprovals`]), approved
//! skills, and the audit trail.
//!
//! [`Store::open`] connects, applies the migrations this build embeds (one
//! set per backend, under `host-example/migrations/`), and seeds a fresh
//! database with site-model's demo site and its users. Every query goes
//! through sqlx's `AnyPool` and is written once, in SQL both backends
//! accept (`$1` placeholders, `ON CONFLICT … DO UPDATE`, `RETURNING`);
//! only taking the write lock differs (`Store::begin_write`).
//!
//! Values the site model defines are stored whole, as JSON text, beside
//! the columns reads filter and order by: the schema follows the model
//! rather than normalising it.

mod approval_votes;
mod audit;
mod audit_chain;
mod audit_verify;
mod batches;
mod browser_sessions;
mod budgets;
mod call_outcomes;
mod call_rows;
mod database_place;
mod direct;
mod durability;
mod error;
mod exposures;
mod jobs;
mod kept;
mod maintenance;
mod mcp_sessions;
mod migrate;
mod proposals;
mod public_search;
mod recovery;
mod run_notes;
mod runs;
mod seed;
mod services;
mod settings;
mod signin_throttle;
mod site;
mod skill_approvals;
mod standing_approvals;
mod usage;
mod users;
mod webhooks;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde::de::DeserializeOwned;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{Any, AnyPool, Row, Transaction};

/// The values the store keeps and [`crate::domain`] owns.
pub use crate::domain::oauth::OAuthSettings;
pub use crate::domain::origins::WebOrigin;
pub use crate::domain::settings::values::{
    Budgets, Durability, Limits, PublicUrl, SessionLifetimes, Spending, WebhookDelivery,
    WebhookTargets, WorkerSettings,
};
pub use crate::domain::settings::{SettingKey, SettingValue};
pub use crate::domain::skills::{Distrust, FileChange, FileDigest, SkillDigest, UnapprovedSkills};
pub use audit::{AuditEntry, AuditFilter, AuditKind, ChainLink, McpClient, StoredAudit};
pub use audit_chain::AuditFiles;
pub use audit_verify::{AuditProblem, AuditVerification};
pub use batches::BatchItem;
pub use browser_sessions::StoredBrowserSession;
pub use call_outcomes::CallOutcome;
pub use call_rows::{CallProposal, CallRows};
pub use database_place::DatabasePlace;
pub use error::StoreError;
pub use exposures::{CallState, StoredExposure};
pub use jobs::{JobStatus, Lease, NewJob, StoredJob, now_ms};
pub use maintenance::DatabaseCheck;
pub use migrate::LATEST_VERSION;
pub use proposals::{ProposalStatus, SqlApprovals, StoredProposal};
pub use public_search::{FullTextHit, FullTextQuery};
pub use recovery::{AbandonedRun, ApplyAudited, Recovery};
pub use run_notes::RunNote;
pub use runs::{RunPhase, RunRequest, RunSummary, StoredRun};
pub use seed::DEMO_PASSWORD;
pub use services::{AuditLog, Config, Decisions, JobQueue, People, RunLog, SearchIndex};
pub use signin_throttle::ThrottleState;
pub use site::SqlSite;
pub use skill_approvals::SkillApproval;
pub use standing_approvals::StoredStanding;
pub use usage::HostUsage;
pub use users::{HostUser, TOKEN_ID_LEN, TokenInfo, hash_password};
pub use webhooks::{DeliveryStatus, StoredDelivery, StoredWebhook, new_secret, random_id};

/// The database used when none is given: `host-example.db` in the working
/// folder, created if missing.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://host-example.db?mode=rwc";

/// Which database a [`Store`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file (`sqlite:` URLs).
    Sqlite,
    /// A PostgreSQL server (`postgres:` or `postgresql:` URLs).
    Postgres,
}

impl Backend {
    /// The backend a URL names, or why none.
    pub fn of(url: &str) -> Result<Backend, StoreError> {
        let scheme = url.split_once(':').map_or("", |(scheme, _)| scheme);
        match scheme {
            "sqlite" => Ok(Backend::Sqlite),
            "postgres" | "postgresql" => Ok(Backend::Postgres),
            _ => Err(StoreError::UnsupportedUrl {
                scheme: scheme.to_owned(),
            }),
        }
    }
}

/// The host's database: cheap to clone (a pool handle).
#[derive(Debug, Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    durability: Durability,
    /// This store's audit chain; `None` only while opening.
    chain: Option<Arc<audit_chain::AuditChain>>,
    /// Connections kept out of the pool for the statements every call
    /// makes (SQLite only: see store/kept.rs).
    kept: Arc<kept::Kept>,
    /// The connection the statements every call makes use on the calling
    /// thread, when they can (SQLite, `durability = "normal"`, a file:
    /// see store/direct.rs).
    direct: Option<Arc<direct::Direct>>,
    /// The password in the database's URL, if it has one: a secret of the
    /// host's that nothing it relays may carry.
    password: Option<Arc<str>>,
}

impl Store {
    /// This store's chain; fails closed while it is not open.
    pub(in crate::store) fn chain(&self) -> Result<&audit_chain::AuditChain, StoreError> {
        self.chain
            .as_deref()
            .ok_or_else(|| StoreError::Refused("the audit chain is not open".into()))
    }

    /// A secret for `purpose`, the same in every process on this
    /// database: derived (HMAC-SHA256) from the audit chain's key, which
    /// they share and which is kept outside the database. `None` while the
    /// chain is not open.
    pub fn shared_secret(&self, purpose: &str) -> Option<[u8; 32]> {
        self.chain.as_deref().map(|chain| chain.derive(purpose))
    }

    /// The password in the URL this store was opened with, if any.
    pub fn database_password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// Opens the database at `url`, migrates it to this build's schema and
    /// seeds it on first use. Two processes opening one database at once
    /// migrate and seed it once: both steps hold the write lock.
    ///
    /// # Errors
    ///
    /// [`StoreError::UnsupportedUrl`], [`StoreError::Connect`],
    /// [`StoreError::NewerSchema`] for a database a newer build migrated,
    /// or the failing migration.
    ///
    /// A SQLite database is put in WAL mode, and every connection to it
    /// flushes as the `durability` setting says ([`Durability`]).
    ///
    /// The audit chain's key and heads file are the database's defaults
    /// ([`AuditFiles::for_database`]).
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        Store::open_with_audit(url, &AuditFiles::for_database(url)).await
    }

    /// [`Store::open`] with the audit chain's key and heads file at
    /// `audit`: the key file is created (mode 0600) if missing while the
    /// database holds no chained rows, and refused if missing when it does
    /// (or if others may read it).
    pub async fn open_with_audit(url: &str, audit: &AuditFiles) -> Result<Store, StoreError> {
        let backend = Backend::of(url)?;
        sqlx::any::install_default_drivers();
        let durability = match backend {
            // Switching to WAL writes; a database opened read-only is read
            // in whatever mode it has, and writes nothing to need durability.
            Backend::Sqlite if is_read_only(url) => Durability::default(),
            Backend::Sqlite => durability::prepare_sqlite(url).await?,
            Backend::Postgres => Durability::default(),
        };
        // Every connection the `Any` driver makes to `sqlite::memory:` is
        // a database of its own: an in-memory store keeps one connection,
        // for as long as it lives, or a second connection would find no
        // tables (migrations ran on the first).
        let in_memory = backend == Backend::Sqlite && is_in_memory(url);
        let mut options = AnyPoolOptions::new();
        if in_memory {
            options = options
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None);
        }
        let pool = options
            .max_connections(match backend {
                Backend::Sqlite if in_memory => 1,
                Backend::Sqlite => 4,
                Backend::Postgres => 8,
            })
            // A server that is down fails in seconds, not after sqlx's
            // default 30 s of retries.
            .acquire_timeout(Duration::from_secs(5))
            // A SQLite connection is a file handle in this process: it
            // cannot go stale the way a server's socket can, so it is not
            // pinged on every acquire (one trip to its worker thread per
            // query saved). A PostgreSQL server may have restarted.
            .test_before_acquire(backend == Backend::Postgres)
            .after_connect(move |connection, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        sqlx::query(durability.pragma())
                            .execute(&mut *connection)
                            .await?;
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await
            .map_err(|error| StoreError::Connect {
                reason: one_line(&error.to_string()),
            })?;
        let mut store = Store {
            pool,
            backend,
            durability,
            chain: None,
            kept: Arc::default(),
            direct: None,
            password: reqwest::Url::parse(url)
                .ok()
                .and_then(|url| url.password().map(Arc::from)),
        };
        if is_read_only(url) {
            // A database opened read-only is read as it is: nothing is
            // migrated or seeded, and a schema this build does not have
            // is named rather than met with a failed write.
            let found = store.audit_log().schema_version().await.unwrap_or(0);
            let known = LATEST_VERSION;
            match found.cmp(&known) {
                std::cmp::Ordering::Less => return Err(StoreError::OlderSchema { found, known }),
                std::cmp::Ordering::Greater => {
                    return Err(StoreError::NewerSchema { found, known });
                }
                std::cmp::Ordering::Equal => {}
            }
        } else {
            migrate::run(&store).await?;
            seed::run(&store).await?;
        }
        store.direct = store.open_direct(url).await?.map(Arc::new);
        store.chain = Some(Arc::new(
            audit_chain::AuditChain::open(&store, audit).await?,
        ));
        Ok(store)
    }

    /// Which backend this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// When a commit reaches the disk, on SQLite; on PostgreSQL the
    /// server's own configuration decides, and this is the default.
    pub fn durability(&self) -> Durability {
        self.durability
    }

    /// The pool, for raw SQL (tests, maintenance). Everything the host does
    /// goes through the methods of [`Store`].
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// The site stored here, as site-model's traits.
    pub fn site(&self) -> SqlSite {
        SqlSite::new(self.clone())
    }

    /// A transaction holding the database's write lock from its start:
    /// `BEGIN IMMEDIATE` on SQLite (so a read-then-write cannot fail half
    /// way on a lock upgrade); a plain `BEGIN` on PostgreSQL, where the
    /// rows read are locked with `FOR UPDATE` ([`Store::for_update`]).
    pub(crate) async fn begin_write(&self) -> Result<Transaction<'static, Any>, sqlx::Error> {
        match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.pool.begin().await,
        }
    }

    /// [`Store::begin_write`], serialised with every other process doing
    /// the same: for migrating and seeding (on PostgreSQL a transaction
    /// advisory lock; SQLite's write lock already is one).
    pub(crate) async fn begin_exclusive(&self) -> Result<Transaction<'static, Any>, sqlx::Error> {
        let mut tx = self.begin_write().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("SELECT pg_advisory_xact_lock(7245001)")
                .execute(&mut *tx)
                .await?;
        }
        Ok(tx)
    }

    /// A connection for one statement that every call makes: on SQLite
    /// one kept out of the pool (no ping on its way back: see
    /// store/kept.rs), else the pool's. Give its outcome to
    /// [`kept::StatementConnection::finish`].
    async fn statement_connection(&self) -> Result<kept::StatementConnection<'_>, sqlx::Error> {
        match self.backend {
            Backend::Sqlite => self.kept.connection(&self.pool).await,
            Backend::Postgres => Ok(kept::StatementConnection::Pooled(
                self.pool.acquire().await?,
            )),
        }
    }

    /// The direct connection (store/direct.rs) to this store's SQLite file,
    /// if one may be used: not on PostgreSQL, with `durability = "full"`,
    /// for an in-memory database, or one opened read-only or immutable.
    async fn open_direct(&self, url: &str) -> Result<Option<direct::Direct>, StoreError> {
        let read_only = is_read_only(url) || url.contains("vfs=");
        if self.backend != Backend::Sqlite || self.durability != Durability::Normal || read_only {
            return Ok(None);
        }
        // The file as SQLite resolved it (empty for an in-memory database),
        // not as this host would read the URL.
        let file: String =
            sqlx::query_scalar("SELECT file FROM pragma_database_list WHERE name = 'main'")
                .fetch_one(&self.pool)
                .await?;
        Ok(if file.is_empty() {
            None
        } else {
            direct::Direct::open(&file, &self.pool)
        })
    }

    /// ` FOR UPDATE` on PostgreSQL, nothing on SQLite (whose write
    /// transaction already excludes every other writer).
    pub(crate) fn for_update(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE",
        }
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A value as the JSON text stored in a `data` column.
pub(crate) fn to_json<T: Serialize>(value: &T) -> String {
    // The types stored here serialize infallibly (no maps with non-string
    // keys, no failing `Serialize` impls).
    serde_json::to_string(value).expect("stored values serialize")
}

/// The JSON text of column `column` of `row`, read back as a `T`; `what`
/// names the row in the error.
pub(crate) fn from_json<T: DeserializeOwned>(
    row: &AnyRow,
    column: &str,
    what: impl FnOnce() -> String,
) -> Result<T, StoreError> {
    let text: String = row.try_get(column)?;
    serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
        what: what(),
        reason: error.to_string(),
    })
}

/// `text` on one line, for messages.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `url` opens a SQLite database read-only (`mode=ro`, or
/// `immutable=`): a command that only reads may be pointed at one.
fn is_read_only(url: &str) -> bool {
    ["mode=ro", "immutable="]
        .iter()
        .any(|option| url.contains(option))
}

/// Whether a SQLite URL names an in-memory database.
fn is_in_memory(url: &str) -> bool {
    url.contains(":memory:") || url.contains("mode=memory")
}
