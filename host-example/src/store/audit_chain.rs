//! The audit trail proves itself: every audit row is linked into a chain
//! by a keyed hash (HMAC-SHA256) of its content and of the previous row's
//! hash, with a key kept in a file outside the database; each chain's
//! latest head is appended to a heads file, also outside the database.
//!
//! One chain per opened [`Store`] (a process, in practice): writers in
//! several processes sharing one PostgreSQL database never wait for each
//! other's chain. A row names its chain and its position there (from 1).
//! A restarted process starts a new chain.
//!
//! Writing: the chain's lock is taken *before* the write transaction
//! begins (so a writer never waits for the lock while holding the
//! database's), each row gets the next position and its hash, and the
//! chain's head in memory advances only once the transaction committed;
//! then the new head is appended to the heads file (one line per commit,
//! `CHAIN POSITION HASH`, appended while the lock is still held).
//!
//! [`AuditLog::verify_audit`](crate::store::AuditLog::verify_audit) (audit_verify.rs) walks every chain: a row changed (or a chain
//! recomputed without the key) fails its hash; a row removed leaves a
//! position missing; rows moved break the order of their sequence numbers;
//! a cut tail (or a whole chain removed) falls short of the head the heads
//! file recorded.

use crate::store::AuditLog;
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write as _};
use std::path::{Path, PathBuf};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use sqlx::{AnyPool, Row};
use tokio::sync::{Mutex, MutexGuard};

use super::audit::AuditEntry;
use super::database_place::DatabasePlace;
use super::users::hex;
use super::{Store, StoreError, now};

/// Where the audit chain's key and heads are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditFiles {
    /// Files on disk: the key (32 random bytes as 64 hex digits, created
    /// with mode 0600 on first use of a database without chained rows) and
    /// the heads file (appended to).
    Files {
        /// The key file.
        key: PathBuf,
        /// The heads file.
        heads: PathBuf,
    },
    /// A key made for this process and no heads file: for a database in
    /// memory, gone with the process anyway.
    Memory,
}

impl AuditFiles {
    /// The default for a database: `FILE.audit-key` and
    /// `FILE.audit-heads` beside a SQLite file; in memory for a SQLite
    /// database in memory; `host-example-audit/HOST-DATABASE.key` and
    /// `.heads` in the working folder for PostgreSQL.
    pub fn for_database(url: &str) -> AuditFiles {
        let folder = PathBuf::from("host-example-audit");
        match DatabasePlace::of(url) {
            DatabasePlace::Memory => AuditFiles::Memory,
            DatabasePlace::File(file) => AuditFiles::Files {
                key: PathBuf::from(format!("{file}.audit-key")),
                heads: PathBuf::from(format!("{file}.audit-heads")),
            },
            DatabasePlace::Server(name) => AuditFiles::Files {
                key: folder.join(format!("{name}.key")),
                heads: folder.join(format!("{name}.heads")),
            },
        }
    }

    /// The key file named, the heads file `heads` or else beside it
    /// (`KEY.heads`).
    pub fn at(key: PathBuf, heads: Option<PathBuf>) -> AuditFiles {
        let heads = heads.unwrap_or_else(|| {
            let mut name = key.clone().into_os_string();
            name.push(".heads");
            PathBuf::from(name)
        });
        AuditFiles::Files { key, heads }
    }
}

/// A chain's latest row: its position and hash (position 0 and no hash
/// before the first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Head {
    pub(super) position: i64,
    pub(super) hash: String,
}

/// What the lock guards: the head and the heads file.
struct State {
    head: Head,
    heads: Option<File>,
    /// A write linked rows and did not see its commit through (an error,
    /// or a commit whose answer was lost): the head is read back from the
    /// database before the next write, so a committed row's position is
    /// never used twice.
    unsure: bool,
    /// The chain's start (`ID 0 -`) is in the heads file: appended before
    /// the chain's first write begins, so a process killed between a
    /// commit and its head's line still left its chain named there.
    announced: bool,
}

/// This store's chain.
pub(super) struct AuditChain {
    id: String,
    pub(super) key: [u8; 32],
    pub(super) heads_path: Option<PathBuf>,
    state: Mutex<State>,
}

impl std::fmt::Debug for AuditChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditChain")
            .field("id", &self.id)
            .field("heads", &self.heads_path)
            .finish_non_exhaustive()
    }
}

impl AuditChain {
    /// A secret for `purpose`: HMAC-SHA256 of it under the chain's key.
    pub(super) fn derive(&self, purpose: &str) -> [u8; 32] {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes a key of any length");
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }
}

/// One audit row ready to insert: the entry, when, and its link.
pub(super) struct LinkedRow<'e> {
    pub(super) entry: &'e AuditEntry,
    pub(super) at: i64,
    pub(super) chain: String,
    pub(super) position: i64,
    pub(super) hash: String,
}

/// The chain held for one write: rows linked so far, not yet committed.
pub(super) struct Links<'c> {
    chain: &'c AuditChain,
    state: MutexGuard<'c, State>,
    next: Head,
}

impl Links<'_> {
    /// `entry`, stamped now, linked after the last row.
    pub(super) fn link<'e>(&mut self, entry: &'e AuditEntry) -> LinkedRow<'e> {
        let at = now();
        let position = self.next.position + 1;
        let content = Content::of(entry, at);
        let hash = row_hash(
            &self.chain.key,
            &self.chain.id,
            position,
            &content,
            &self.next.hash,
        );
        self.next = Head {
            position,
            hash: hash.clone(),
        };
        LinkedRow {
            entry,
            at,
            chain: self.chain.id.clone(),
            position,
            hash,
        }
    }

    /// The rows linked are committed: the head advances and is appended to
    /// the heads file. A heads file that cannot be written is said on
    /// stderr (the rows are committed; the next commit appends again).
    pub(super) fn committed(mut self) {
        if self.next == self.state.head {
            return;
        }
        self.state.head = self.next.clone();
        self.state.unsure = false;
        if let Some(file) = self.state.heads.as_mut() {
            let line = format!(
                "{} {} {}\n",
                self.chain.id, self.next.position, self.next.hash
            );
            if let Err(error) = file.write_all(line.as_bytes()) {
                tracing::error!(
                    "cannot append to the audit heads file {:?}: {error}",
                    self.chain.heads_path
                );
            }
        }
    }
}

impl Drop for Links<'_> {
    /// Rows linked and not committed: the head is read back before the next
    /// write (see `State::unsure`).
    fn drop(&mut self) {
        if self.next != self.state.head {
            self.state.unsure = true;
        }
    }
}

impl AuditChain {
    /// A new chain for `store`, its key read from (or, for a database
    /// without chained rows, created at) `files`.
    pub(super) async fn open(store: &Store, files: &AuditFiles) -> Result<AuditChain, StoreError> {
        let mut id = [0u8; 12];
        OsRng.fill_bytes(&mut id);
        let (key, heads_path, heads) = match files {
            AuditFiles::Memory => {
                let mut key = [0u8; 32];
                OsRng.fill_bytes(&mut key);
                (key, None, None)
            }
            AuditFiles::Files { key, heads } => {
                let chained = sqlx::query("SELECT seq FROM audit WHERE chain IS NOT NULL LIMIT 1")
                    .fetch_optional(store.pool())
                    .await?
                    .is_some();
                let key = load_key(key, !chained)?;
                (key, Some(heads.clone()), Some(open_heads(heads)?))
            }
        };
        Ok(AuditChain {
            id: hex(&id),
            key,
            heads_path,
            state: Mutex::new(State {
                head: Head::default(),
                heads,
                unsure: false,
                announced: false,
            }),
        })
    }

    /// The chain, held until the [`Links`] are committed or dropped.
    pub(super) async fn begin(&self, pool: &AnyPool) -> Result<Links<'_>, StoreError> {
        let mut state = self.state.lock().await;
        if !state.announced {
            if let Some(file) = state.heads.as_mut() {
                let line = format!("{} 0 -\n", self.id);
                if let Err(error) = file.write_all(line.as_bytes()) {
                    tracing::error!(
                        "cannot append to the audit heads file {:?}: {error}",
                        self.heads_path
                    );
                }
            }
            state.announced = true;
        }
        if state.unsure {
            let last = sqlx::query(
                "SELECT chain_pos, hash FROM audit WHERE chain = $1 ORDER BY chain_pos DESC LIMIT 1",
            )
            .bind(self.id.as_str())
            .fetch_optional(pool)
            .await?;
            state.head = match last {
                Some(row) => Head {
                    position: row.try_get("chain_pos")?,
                    hash: row.try_get("hash")?,
                },
                None => Head::default(),
            };
            state.unsure = false;
        }
        Ok(Links {
            chain: self,
            next: state.head.clone(),
            state,
        })
    }
}

pub(super) fn refused(message: String) -> StoreError {
    StoreError::Refused(message)
}

/// The key in `path`; created there (mode 0600) when missing and `create`.
fn load_key(path: &Path, create: bool) -> Result<[u8; 32], StoreError> {
    match fs::read_to_string(path) {
        Ok(text) => parse_key(path, &text),
        Err(error) if error.kind() == ErrorKind::NotFound && create => create_key(path),
        Err(error) if error.kind() == ErrorKind::NotFound => Err(refused(format!(
            "the audit key file {} is missing, but the database holds chained audit rows: restore the key, or name it with --audit-key (HOST_AUDIT_KEY)",
            path.display()
        ))),
        Err(error) => Err(refused(format!(
            "cannot read the audit key file {}: {error}",
            path.display()
        ))),
    }
}

fn parse_key(path: &Path, text: &str) -> Result<[u8; 32], StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = fs::metadata(path)
            .map_err(|error| refused(format!("cannot read {}: {error}", path.display())))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(refused(format!(
                "the audit key file {} may be read by others (mode {:o}): chmod 600 it",
                path.display(),
                mode & 0o777
            )));
        }
    }
    let text = text.trim();
    let mut key = [0u8; 32];
    let valid = text.len() == 64
        && text.is_ascii()
        && key.iter_mut().enumerate().all(|(i, byte)| {
            u8::from_str_radix(&text[2 * i..2 * i + 2], 16)
                .map(|value| *byte = value)
                .is_ok()
        });
    if !valid {
        return Err(refused(format!(
            "the audit key file {} does not hold a key (64 hex digits)",
            path.display()
        )));
    }
    Ok(key)
}

/// A new random key written to `path`, atomically: a process starting at
/// the same moment reads the same key.
fn create_key(path: &Path) -> Result<[u8; 32], StoreError> {
    let failed = |error: std::io::Error| {
        refused(format!(
            "cannot create the audit key file {}: {error}",
            path.display()
        ))
    };
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(folder).map_err(failed)?;
    }
    let mut key = [0u8; 32];
    OsRng.fill_bytes(&mut key);
    let mut suffix = [0u8; 8];
    OsRng.fill_bytes(&mut suffix);
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".{}.tmp", hex(&suffix)));
    let temporary = PathBuf::from(temporary);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let written = options
        .open(&temporary)
        .and_then(|mut file| {
            file.write_all(format!("{}\n", hex(&key)).as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| fs::hard_link(&temporary, path));
    let _ = fs::remove_file(&temporary);
    match written {
        Ok(()) => Ok(key),
        // Another process made it first: theirs is the key.
        Err(error) if error.kind() == ErrorKind::AlreadyExists => load_key(path, false),
        Err(error) => Err(failed(error)),
    }
}

fn open_heads(path: &Path) -> Result<File, StoreError> {
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        let _ = fs::create_dir_all(folder);
    }
    OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|error| {
            refused(format!(
                "cannot open the audit heads file {}: {error}",
                path.display()
            ))
        })
}

/// A row's columns as hashed: what was written, read back the same.
pub(super) struct Content {
    at: i64,
    actor: String,
    run: Option<String>,
    tool: Option<String>,
    kind: String,
    decision: String,
    gate: Option<String>,
    detail: Option<String>,
    client_name: Option<String>,
    client_version: Option<String>,
    protocol: Option<String>,
    duration_ms: Option<i64>,
}

impl Content {
    fn of(entry: &AuditEntry, at: i64) -> Content {
        let client = entry.client.as_ref();
        Content {
            at,
            actor: entry.actor.clone(),
            run: entry.run.clone(),
            tool: entry.tool.clone(),
            kind: entry.kind.as_str().to_owned(),
            decision: entry.decision.clone(),
            gate: entry.gate.clone(),
            detail: entry.detail.clone(),
            client_name: client.and_then(|c| c.name.clone()),
            client_version: client.and_then(|c| c.version.clone()),
            protocol: client.and_then(|c| c.protocol.clone()),
            duration_ms: entry.duration_ms(),
        }
    }

    pub(super) fn read(row: &sqlx::any::AnyRow) -> Result<Content, sqlx::Error> {
        Ok(Content {
            at: row.try_get("at")?,
            actor: row.try_get("actor")?,
            run: row.try_get("run_id")?,
            tool: row.try_get("tool")?,
            kind: row.try_get("kind")?,
            decision: row.try_get("decision")?,
            gate: row.try_get("gate")?,
            detail: row.try_get("detail")?,
            client_name: row.try_get("client_name")?,
            client_version: row.try_get("client_version")?,
            protocol: row.try_get("protocol")?,
            duration_ms: row.try_get("duration_ms")?,
        })
    }
}

/// HMAC-SHA256 under `key` of the row's chain, position and content and
/// of the previous row's hash (empty for the first), as hex.
pub(super) fn row_hash(
    key: &[u8; 32],
    chain: &str,
    position: i64,
    row: &Content,
    previous: &str,
) -> String {
    // The JSON array of these sixteen values, as `json!([...])` wrote it
    // before (verified chains depend on the exact text), written straight
    // from a tuple: no `Value` tree built per audit row.
    let fields = (
        "host-example audit 1",
        chain,
        position,
        row.at,
        &row.actor,
        &row.run,
        &row.tool,
        &row.kind,
        &row.decision,
        &row.gate,
        &row.detail,
        &row.client_name,
        &row.client_version,
        &row.protocol,
        row.duration_ms,
        previous,
    );
    let message = serde_json::to_string(&fields).expect("strings, numbers and nulls serialize");
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(message.as_bytes());
    hex(&mac.finalize().into_bytes())
}

impl AuditLog<'_> {
    /// Appends `entry`, stamped now, to this store's chain.
    pub async fn audit(&self, entry: &AuditEntry) -> Result<(), StoreError> {
        let mut links = self.store.chain()?.begin(&self.store.pool).await?;
        let row = links.link(entry);
        if self
            .store
            .direct
            .as_ref()
            .and_then(|direct| direct.execute(INSERT_AUDIT, audit_values(&row)))
            .is_none()
        {
            let mut connection = self.store.statement_connection().await?;
            let inserted = insert_audit(&row).execute(&mut *connection).await;
            connection.finish(inserted)?;
        }
        links.committed();
        Ok(())
    }
}

/// Appends an audit row linked into its chain, with [`audit_values`]:
/// through sqlx ([`insert_audit`]) or the direct connection
/// (store/direct.rs).
pub(super) const INSERT_AUDIT: &str =
    "INSERT INTO audit (at, actor, run_id, tool, kind, decision, gate, detail,
     client_name, client_version, protocol, duration_ms, chain, chain_pos, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";

/// [`INSERT_AUDIT`]'s values for `row`, in its order: bound one by one by
/// [`insert_audit`], taken whole by the direct connection
/// (store/direct.rs).
type AuditValues<'r> = (
    i64,
    &'r str,
    Option<&'r str>,
    Option<&'r str>,
    &'r str,
    &'r str,
    Option<&'r str>,
    Option<&'r str>,
    Option<&'r str>,
    Option<&'r str>,
    Option<&'r str>,
    Option<i64>,
    &'r str,
    i64,
    &'r str,
);

fn audit_values<'r>(row: &'r LinkedRow<'r>) -> AuditValues<'r> {
    let entry = row.entry;
    let client = entry.client.as_ref();
    (
        row.at,
        entry.actor.as_str(),
        entry.run.as_deref(),
        entry.tool.as_deref(),
        entry.kind.as_str(),
        entry.decision.as_str(),
        entry.gate.as_deref(),
        entry.detail.as_deref(),
        client.and_then(|c| c.name.as_deref()),
        client.and_then(|c| c.version.as_deref()),
        client.and_then(|c| c.protocol.as_deref()),
        entry.duration_ms(),
        row.chain.as_str(),
        row.position,
        row.hash.as_str(),
    )
}

/// The statement appending `row`, linked into its chain.
pub(super) fn insert_audit<'q>(
    row: &'q LinkedRow<'q>,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    let v = audit_values(row);
    sqlx::query(INSERT_AUDIT)
        .bind(v.0)
        .bind(v.1)
        .bind(v.2)
        .bind(v.3)
        .bind(v.4)
        .bind(v.5)
        .bind(v.6)
        .bind(v.7)
        .bind(v.8)
        .bind(v.9)
        .bind(v.10)
        .bind(v.11)
        .bind(v.12)
        .bind(v.13)
        .bind(v.14)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The hashed text is the one `json!` wrote when the chain was made:
    /// chains written before still verify.
    #[test]
    fn the_hashed_text_is_the_json_array_it_always_was() {
        let row = Content {
            at: 1_764_000_000,
            actor: "ada \"quoted\" \u{e9}".into(),
            run: None,
            tool: Some("get_pagetree".into()),
            kind: "call".into(),
            decision: "done".into(),
            gate: None,
            detail: Some("line\nbreak".into()),
            client_name: Some("c".into()),
            client_version: None,
            protocol: Some("2025-11-25".into()),
            duration_ms: Some(3),
        };
        let key = [7u8; 32];
        let before = json!([
            "host-example audit 1",
            "chain",
            4,
            row.at,
            row.actor,
            row.run,
            row.tool,
            row.kind,
            row.decision,
            row.gate,
            row.detail,
            row.client_name,
            row.client_version,
            row.protocol,
            row.duration_ms,
            "prev",
        ])
        .to_string();
        let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
        mac.update(before.as_bytes());
        let expected = hex(&mac.finalize().into_bytes());
        assert_eq!(row_hash(&key, "chain", 4, &row, "prev"), expected);
    }
}
