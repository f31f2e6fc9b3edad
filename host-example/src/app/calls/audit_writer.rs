//! Group commit for single calls: calls finishing at the same time have
//! their rows (each one's audit entry and the proposal it made) written in
//! one transaction, so one disk flush serves them all, and each call still
//! answers only once its rows are committed.
//!
//! One writer task takes every call waiting, writes them together
//! ([`store::Store::record_calls`]), and tells each caller. Under load the
//! calls queue while a commit is under way and the next commit takes them
//! all; a lone call is written at once. If a shared transaction fails,
//! each of its calls is written again alone, so one call whose rows cannot
//! be stored fails only itself; a call's own rows are never split.

use std::sync::Mutex;

use tokio::sync::{mpsc, oneshot};

use crate::store::{self, CallRows, StoreError};

/// At most this many calls go into one transaction.
const MAX_BATCH: usize = 256;

type Job = (CallRows, oneshot::Sender<Result<(), String>>);

/// Writes calls' rows through one writer task per runtime.
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

    /// Writes `rows` and returns once they are committed.
    pub(crate) async fn write(&self, rows: CallRows) -> Result<(), String> {
        let (done, committed) = oneshot::channel();
        let job = (rows, done);
        let job = match self.sender().send(job) {
            Ok(()) => None,
            // The writer's runtime is gone (a backend outliving the
            // runtime that first used it): start one here.
            Err(mpsc::error::SendError(job)) => {
                self.jobs.lock().unwrap_or_else(|e| e.into_inner()).take();
                self.sender().send(job).err().map(|e| e.0)
            }
        };
        if let Some((rows, _)) = job {
            return written(self.database.decisions().record_calls(&[rows]).await);
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

fn written(result: Result<(), StoreError>) -> Result<(), String> {
    result.map_err(|e| e.to_string())
}

/// Takes every job waiting, writes their rows in one transaction, tells
/// each caller; until every sender is gone.
async fn run(database: store::Store, mut jobs: mpsc::UnboundedReceiver<Job>) {
    let mut batch = Vec::new();
    while jobs.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let (calls, callers): (Vec<_>, Vec<_>) = batch.drain(..).unzip();
        let together = written(database.decisions().record_calls(&calls).await);
        if together.is_ok() || calls.len() == 1 {
            for caller in callers {
                let _ = caller.send(together.clone());
            }
            continue;
        }
        for (call, caller) in calls.into_iter().zip(callers) {
            let alone = written(database.decisions().record_calls(&[call]).await);
            let _ = caller.send(alone);
        }
    }
}
