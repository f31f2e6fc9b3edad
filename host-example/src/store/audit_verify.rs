//! Checking the audit trail's chains ([`AuditLog::verify_audit`](crate::store::AuditLog::verify_audit)): every
//! row's keyed hash, positions without gaps, sequence numbers growing
//! along each chain, and each chain reaching the head the heads file
//! records (store/audit_chain.rs writes them).

use crate::store::AuditLog;
use std::collections::BTreeMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use sqlx::Row;

use super::StoreError;
use super::audit_chain::{Content, Head, refused, row_hash};

/// What [`AuditLog::verify_audit`](crate::store::AuditLog::verify_audit) found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditVerification {
    /// Chained rows checked.
    pub rows: u64,
    /// Chains in the database.
    pub chains: usize,
    /// Rows from before the chain began (the migration that added it):
    /// not covered.
    pub before_chain: u64,
    /// The heads file read, if there is one.
    pub heads_file: Option<PathBuf>,
    /// Chains the heads file records.
    pub heads: usize,
    /// What is wrong, the earliest row first; at most one per chain (the
    /// first found walking it), then every chain the heads file names that
    /// the database lacks.
    pub problems: Vec<AuditProblem>,
}

impl AuditVerification {
    /// Whether nothing is wrong.
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty()
    }
}

/// One thing wrong with the audit trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditProblem {
    /// The row it is about (its sequence number), when there is one.
    pub seq: Option<i64>,
    /// The chain.
    pub chain: Option<String>,
    /// The position in the chain.
    pub position: Option<i64>,
    /// What is wrong, in words.
    pub what: String,
}

impl std::fmt::Display for AuditProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.seq, &self.chain, self.position) {
            (Some(seq), Some(chain), Some(position)) => {
                write!(f, "row {seq} (chain {chain}, position {position}): ")?;
            }
            (Some(seq), _, _) => write!(f, "row {seq}: ")?,
            (None, Some(chain), _) => write!(f, "chain {chain}: ")?,
            (None, None, _) => {}
        }
        f.write_str(&self.what)
    }
}

const VERIFY_COLUMNS: &str = "seq, chain, chain_pos, hash, at, actor, run_id, tool, kind, decision,
    gate, detail, client_name, client_version, protocol, duration_ms";

impl AuditLog<'_> {
    /// Checks every chain of the audit trail with this store's key and
    /// heads file ([`super::AuditFiles`]): see the module's documentation.
    pub async fn verify_audit(&self) -> Result<AuditVerification, StoreError> {
        let chain = self.store.chain()?;
        let rows = sqlx::query(&format!(
            "SELECT {VERIFY_COLUMNS} FROM audit WHERE chain IS NOT NULL ORDER BY chain, chain_pos"
        ))
        .fetch_all(self.store.pool())
        .await?;
        let heads = match &chain.heads_path {
            Some(path) => read_heads(path)?,
            None => BTreeMap::new(),
        };
        let mut problems = Vec::new();
        let mut walks: BTreeMap<String, Walk> = BTreeMap::new();
        for row in &rows {
            let name: String = row.try_get("chain")?;
            let walk = walks.entry(name.clone()).or_default();
            if walk.problem {
                continue;
            }
            let seq: i64 = row.try_get("seq")?;
            let position: Option<i64> = row.try_get("chain_pos")?;
            let stored: Option<String> = row.try_get("hash")?;
            let problem = |what: String| AuditProblem {
                seq: Some(seq),
                chain: Some(name.clone()),
                position,
                what,
            };
            let expected = walk.head.position + 1;
            let found = match position {
                Some(position) if position > expected => Some(problem(format!(
                    "{} missing (removed): the chain goes from position {} to {position}",
                    if position == expected + 1 {
                        format!("the row at position {expected} before it is")
                    } else {
                        format!(
                            "the rows at positions {expected} to {} before it are",
                            position - 1
                        )
                    },
                    walk.head.position
                ))),
                Some(position) if position == expected => None,
                _ => Some(problem("has no valid position (changed)".into())),
            };
            let found = found.or_else(|| {
                walk.seq
                    .filter(|previous| seq <= *previous)
                    .map(|previous| {
                        problem(format!(
                            "is out of order (reordered): it follows row {previous} in the chain but precedes it in the table"
                        ))
                    })
            });
            let content = Content::read(row)?;
            let found = found.or_else(|| {
                let hash = row_hash(&chain.key, &name, expected, &content, &walk.head.hash);
                (stored.as_deref() != Some(hash.as_str())).then(|| {
                    problem(
                        "was changed: its hash does not match its content and the previous row's hash under the key (edited, or the chain recomputed without the key)"
                            .into(),
                    )
                })
            });
            if let Some(found) = found {
                problems.push(found);
                walk.problem = true;
                continue;
            }
            walk.head = Head {
                position: expected,
                hash: stored.unwrap_or_default(),
            };
            walk.seq = Some(seq);
        }
        for (name, recorded) in &heads {
            let walk = walks.get(name);
            if walk.is_some_and(|w| w.problem) {
                continue;
            }
            let reached = walk.map_or(0, |w| w.head.position);
            if reached < recorded.position {
                problems.push(AuditProblem {
                    seq: walk.and_then(|w| w.seq),
                    chain: Some(name.clone()),
                    position: walk.map(|w| w.head.position),
                    what: format!(
                        "the tail was cut: the heads file records position {} but the chain {}",
                        recorded.position,
                        match walk {
                            Some(w) => format!("ends at position {}", w.head.position),
                            None => "has no rows left".into(),
                        }
                    ),
                });
            } else if walk.is_some() && recorded.position > 0 {
                let row =
                    sqlx::query("SELECT seq, hash FROM audit WHERE chain = $1 AND chain_pos = $2")
                        .bind(name.as_str())
                        .bind(recorded.position)
                        .fetch_one(self.store.pool())
                        .await?;
                let hash: Option<String> = row.try_get("hash")?;
                if hash.as_deref() != Some(recorded.hash.as_str()) {
                    problems.push(AuditProblem {
                        seq: Some(row.try_get("seq")?),
                        chain: Some(name.clone()),
                        position: Some(recorded.position),
                        what:
                            "differs from the head the heads file records (the chain was rewritten)"
                                .into(),
                    });
                }
            }
        }
        if chain.heads_path.is_some() {
            for (name, walk) in &walks {
                if !walk.problem && !heads.contains_key(name) {
                    problems.push(AuditProblem {
                        seq: walk.seq,
                        chain: Some(name.clone()),
                        position: Some(walk.head.position),
                        what: "has no head in the heads file (written with another heads file, or added by hand)".into(),
                    });
                }
            }
        }
        let first_chained: Option<i64> =
            sqlx::query("SELECT MIN(seq) AS seq FROM audit WHERE chain IS NOT NULL")
                .fetch_one(self.store.pool())
                .await?
                .try_get("seq")?;
        let first_chained = first_chained.unwrap_or(i64::MAX);
        let before_chain: i64 =
            sqlx::query("SELECT COUNT(*) AS n FROM audit WHERE chain IS NULL AND seq < $1")
                .bind(first_chained)
                .fetch_one(self.store.pool())
                .await?
                .try_get("n")?;
        for row in sqlx::query(
            "SELECT seq FROM audit WHERE chain IS NULL AND seq > $1 ORDER BY seq LIMIT 1",
        )
        .bind(first_chained)
        .fetch_all(self.store.pool())
        .await?
        {
            problems.push(AuditProblem {
                seq: Some(row.try_get("seq")?),
                chain: None,
                position: None,
                what: "belongs to no chain though it was written after the chain began (added or changed by hand)".into(),
            });
        }
        problems.sort_by_key(|p| p.seq.unwrap_or(i64::MAX));
        Ok(AuditVerification {
            rows: rows.len() as u64,
            chains: walks.len(),
            before_chain: u64::try_from(before_chain).unwrap_or(0),
            heads_file: chain.heads_path.clone(),
            heads: heads.len(),
            problems,
        })
    }
}

/// One chain as the walk found it so far.
#[derive(Default)]
struct Walk {
    head: Head,
    seq: Option<i64>,
    problem: bool,
}

/// The latest head per chain the heads file records (the highest
/// position); a missing file records none.
fn read_heads(path: &Path) -> Result<BTreeMap<String, Head>, StoreError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == ErrorKind::NotFound => String::new(),
        Err(error) => {
            return Err(refused(format!(
                "cannot read the audit heads file {}: {error}",
                path.display()
            )));
        }
    };
    let mut heads = BTreeMap::<String, Head>::new();
    for (number, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        let parsed = match (words.next(), words.next(), words.next(), words.next()) {
            (Some(chain), Some(position), Some(hash), None) => position
                .parse::<i64>()
                .ok()
                .map(|position| (chain, position, hash)),
            _ => None,
        };
        let Some((chain, position, hash)) = parsed else {
            return Err(refused(format!(
                "the audit heads file {} is damaged at line {}",
                path.display(),
                number + 1
            )));
        };
        let head = heads.entry(chain.to_owned()).or_default();
        if position > head.position {
            *head = Head {
                position,
                hash: hash.to_owned(),
            };
        }
    }
    Ok(heads)
}
