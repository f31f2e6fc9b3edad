//! The playground's runs while they happen: each run started from the
//! playground gets a [`LiveRun`], an in-memory list of its inspector steps
//! ([`super::inspector`]) that grows as the run's events arrive, and
//! [`events`] streams that list to the browser as server-sent events, from
//! the first step (so a browser that connects after the run began misses
//! nothing) and from where it left off when it reconnects
//! (`Last-Event-ID`).
//!
//! Live runs live in this process only; the run itself, its events and
//! its outcome are stored as every run's are.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use argon2::password_hash::rand_core::{OsRng, RngCore};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use tokio::sync::watch;
use tool_core::Actor;

use super::WebState;
use super::draft::Draft;
use super::session::SignedIn;
use crate::app::runs::may_see_runs_of;

/// How many live runs are kept; the oldest finished ones go first.
const KEPT: usize = 32;

/// The steps of one run so far, and whether there will be more.
#[derive(Debug, Clone, Default)]
struct Steps {
    steps: Vec<Arc<str>>,
    done: bool,
}

/// One run started from the playground.
#[derive(Debug)]
pub(super) struct LiveRun {
    /// Who started it: they and administrators may watch it
    /// ([`may_see_runs_of`]).
    pub owner: String,
    /// What they asked, to show the form as it was.
    pub draft: Draft,
    steps: watch::Sender<Steps>,
}

impl LiveRun {
    /// Adds one step (JSON text) and wakes every watcher.
    pub fn push(&self, step: String) {
        self.steps
            .send_modify(|steps| steps.steps.push(Arc::from(step)));
    }

    /// Says there will be no more steps.
    pub fn finish(&self) {
        self.steps.send_modify(|steps| steps.done = true);
    }

    fn is_done(&self) -> bool {
        self.steps.borrow().done
    }
}

/// Every live run of this process, by id.
#[derive(Debug, Default)]
pub struct LiveRuns {
    by_id: Mutex<Vec<(String, Arc<LiveRun>)>>,
}

impl LiveRuns {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, Arc<LiveRun>)>> {
        // Every write is one push or remove: a panic cannot leave it half done.
        self.by_id.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new live run of `owner`'s, with its id.
    pub(super) fn begin(&self, owner: &str, draft: Draft) -> (String, Arc<LiveRun>) {
        let mut bytes = [0u8; 16];
        OsRng.fill_bytes(&mut bytes);
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let run = Arc::new(LiveRun {
            owner: owner.to_owned(),
            draft,
            steps: watch::Sender::new(Steps::default()),
        });
        let mut runs = self.lock();
        while runs.len() >= KEPT {
            // The oldest finished run, else the oldest.
            let oldest = runs.iter().position(|(_, run)| run.is_done()).unwrap_or(0);
            runs.remove(oldest);
        }
        runs.push((id.clone(), run.clone()));
        (id, run)
    }

    /// The live run `id`, if `viewer` may see it ([`may_see_runs_of`], the
    /// rule of every stored run): one they may not see reads as a missing
    /// one.
    pub(super) fn get(&self, id: &str, viewer: &Actor) -> Option<Arc<LiveRun>> {
        self.lock()
            .iter()
            .find(|(key, run)| key == id && may_see_runs_of(viewer, &run.owner))
            .map(|(_, run)| Arc::clone(run))
    }
}

/// `GET /playground/live/{id}/events`: the run's steps as server-sent
/// events, each with its index as its id, then an `end` event.
pub(super) async fn events(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(run) = state.live.get(&id, &user.actor()) else {
        return (StatusCode::NOT_FOUND, "no such live run").into_response();
    };
    let from = headers
        .get("last-event-id")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok())
        .map_or(0, |last| last + 1);
    let receiver = run.steps.subscribe();
    let stream = stream::unfold(Some((receiver, from)), |cursor| async move {
        let (mut receiver, next) = cursor?;
        loop {
            let (step, done) = {
                let steps = receiver.borrow_and_update();
                (steps.steps.get(next).cloned(), steps.done)
            };
            if let Some(step) = step {
                let event = SseEvent::default().id(next.to_string()).data(&*step);
                return Some((Ok::<_, Infallible>(event), Some((receiver, next + 1))));
            }
            if done {
                return Some((Ok(SseEvent::default().event("end").data("end")), None));
            }
            if receiver.changed().await.is_err() {
                return None;
            }
        }
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
