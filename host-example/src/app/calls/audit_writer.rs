//! Group commit for the MCP audit trail: calls finishing at the same time
//! have their entries written in one transaction, so one disk flush serves
//! them all, and each call still answers only once its entry is committed.
//!
//! One writer task takes every entry waiting, writes them together
//! ([`store::Store::audit_all`]), and tells each caller. Under load the
//! calls queue while a commit is under way and the next commit takes them
//! all; a lone call is written at once, as before.

use std::sync::Mutex;

use tokio::sync::{mpsc, oneshot};

use crate::store::{self, StoreError};

/// At most this many entries go into one transaction.
const MAX_BATCH: usize = 256;

type Job = (store::AuditEntry, oneshot::Sender<Result<(), String>>);

/// Writes audit entries through one writer task per runtime.
pub(crate) struct AuditWriter {
    database: store::Store,
    jobs: Mutex<Option<mpsc::UnboundedSender<Job>>>,
}

impl AuditWriter {
    pub(crate) fn new(database: store::Store) -> Self {
        AuditWriter {
            database,
            jobs: Mutex::new(None),
        }
    }

    /// Appends `entry` and returns once it is committed.
    pub(crate) async fn write(&self, entry: store::AuditEntry) -> Result<(), String> {
        let (done, committed) = oneshot::channel();
        let job = (entry, done);
        let job = match self.sender().send(job) {
            Ok(()) => None,
            // The writer's runtime is gone (a backend outliving the
            // runtime that first used it): start one here.
            Err(mpsc::error::SendError(job)) => {
                self.jobs.lock().unwrap_or_else(|e| e.into_inner()).take();
                self.sender().send(job).err().map(|e| e.0)
            }
        };
        if let Some((entry, _)) = job {
            return self.database.audit(&entry).await.map_err(|e| e.to_string());
        }
        committed
            .await
            .unwrap_or_else(|_| Err("the audit writer stopped".to_owned()))
    }

    /// The writer task's queue, starting the task in this runtime if none
    /// runs.
    fn sender(&self) -> mpsc::UnboundedSender<Job> {
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(sender) = jobs.as_ref().filter(|sender| !sender.is_closed()) {
            return sender.clone();
        }
        let (sender, receiver) = mpsc::unbounded_channel();
        tokio::spawn(run(self.database.clone(), receiver));
        *jobs = Some(sender.clone());
        sender
    }
}

/// Takes every job waiting, writes their entries in one transaction, tells
/// each caller; until every sender is gone.
async fn run(database: store::Store, mut jobs: mpsc::UnboundedReceiver<Job>) {
    let mut batch = Vec::new();
    while jobs.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let (entries, callers): (Vec<_>, Vec<_>) = batch.drain(..).unzip();
        let written = database
            .audit_all(&entries)
            .await
            .map_err(|e: StoreError| e.to_string());
        for caller in callers {
            let _ = caller.send(written.clone());
        }
    }
}
