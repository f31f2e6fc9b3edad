//! An action on several records: the ids a person pastes ([`MOST_READ`]
//! read, the rest cut and said so), a preview of which can run and which
//! are skipped and why, a rough estimate of requests, tokens and cost, then
//! one ordinary run per record, at most [`MOST_PER_PRESS`] per press, each
//! checked against what is left of the batch's token budget before it
//! starts, and a report counting the runs by how they ended. A press
//! stores the batch as a background job ([`BatchJob`]): any host process's
//! worker runs it, a restart does not lose it, and its report is kept in
//! the database.

mod job;

use std::collections::BTreeSet;

use tool_core::agent::Message;
use tool_core::export::Provider;
use tool_core::{Actor, RunId};

use crate::app::actions::{Action, RecordRef, Unfit};
use crate::app::{HostError, Runs};
pub use crate::domain::runs::RunKind;
use crate::model::ModelConfig;
use job::{BATCH_KIND, BatchOrder};
pub use job::{BatchJob, BatchView};

/// The most ids read from one paste.
pub const MOST_READ: usize = 100;

/// The most runs one press starts.
pub const MOST_PER_PRESS: usize = 20;

/// Requests of a run that proposes once and answers after the decision.
const FEWEST_REQUESTS: u64 = 2;

/// A pasted id that will not run, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// What was pasted.
    pub text: String,
    /// Why it is skipped.
    pub why: String,
}

/// A range, low to high.
pub type Range<T> = (T, T);

/// A rough estimate of what a batch costs, per run times the runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// How many runs.
    pub runs: u64,
    /// Requests to the model.
    pub requests: Range<u64>,
    /// Tokens read.
    pub input_tokens: Range<u64>,
    /// Tokens written; `None` without an output ceiling (`max_tokens`).
    pub output_tokens: Option<Range<u64>>,
    /// In the configuration's currency; `None` unless it sets input and
    /// output prices and an output ceiling.
    pub cost: Option<Range<f64>>,
    /// The fewest tokens one run needs: a run is not started with less
    /// budget left than this.
    pub per_run_floor: u64,
}

/// What a paste comes to.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchPreview {
    /// The records that can run, in the order pasted.
    pub runnable: Vec<RecordRef>,
    /// The ids that will not, with why.
    pub skipped: Vec<Skipped>,
    /// How many ids past [`MOST_READ`] were not read.
    pub cut: usize,
    /// What running them all might cost.
    pub estimate: Estimate,
}

/// One record of a batch that was started.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRun {
    /// The record's id.
    pub record: u64,
    /// Its run, when one was stored.
    pub run: Option<RunId>,
    /// How it ended.
    pub kind: RunKind,
    /// The answer, the proposal's summary, or why it failed.
    pub said: String,
}

/// What one press started, and what it did not.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchReport {
    /// The runs started, in order.
    pub runs: Vec<BatchRun>,
    /// Records past [`MOST_PER_PRESS`]: not started, for the next press.
    pub next_press: Vec<u64>,
    /// Records the budget kept from starting.
    pub kept_by_budget: Vec<u64>,
    /// Tokens the started runs spent.
    pub spent: u64,
    /// The batch's token budget.
    pub budget: u64,
}

impl BatchReport {
    /// How many runs ended as `kind`.
    pub fn count(&self, kind: RunKind) -> usize {
        self.runs.iter().filter(|run| run.kind == kind).count()
    }
}

/// The ids of `pasted` (separated by white space or commas), the first
/// [`MOST_READ`] of them, and how many more were cut.
pub fn read_ids(pasted: &str) -> (Vec<&str>, usize) {
    let all: Vec<&str> = pasted
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|part| !part.is_empty())
        .collect();
    let cut = all.len().saturating_sub(MOST_READ);
    (all.into_iter().take(MOST_READ).collect(), cut)
}

impl Runs<'_> {
    /// Which of the pasted ids `action` can run on for `user`, and what
    /// running them might cost.
    pub async fn preview_batch(
        &self,
        user: &str,
        action: &Action,
        pasted: &str,
    ) -> Result<BatchPreview, HostError> {
        let actor = self.host.actor(user).await?;
        let (ids, cut) = read_ids(pasted);
        let denial = self.action_denial(action, &actor).await?;
        let permissions = self.site_permissions(&actor).await;
        let mut seen = BTreeSet::new();
        let mut runnable = Vec::new();
        let mut skipped = Vec::new();
        for text in ids {
            let skip = |why: String| Skipped {
                text: text.to_owned(),
                why,
            };
            let Ok(id) = text.parse::<u64>() else {
                skipped.push(skip("not a number".to_owned()));
                continue;
            };
            if !seen.insert(id) {
                skipped.push(skip("listed before".to_owned()));
                continue;
            }
            if let Some(reason) = &denial {
                skipped.push(skip(Unfit::NotOffered(reason.clone()).to_string()));
                continue;
            }
            let found = match &permissions {
                Ok(permissions) => self.editable_record(permissions, action.kind, id).await,
                Err(error) => Err(Unfit::Site(error.to_string())),
            };
            match found {
                Ok(record) => runnable.push(record),
                Err(unfit) => skipped.push(skip(unfit.to_string())),
            }
        }
        let estimate = self.estimate(&actor, action, &runnable).await?;
        Ok(BatchPreview {
            runnable,
            skipped,
            cut,
            estimate,
        })
    }

    /// A rough estimate for one run of `action` per record: each request
    /// reads the system prompt, the prompt and the tool's schema (a token
    /// taken as four bytes), plus, at worst, every earlier request's
    /// output at the ceiling; a run makes from [`FEWEST_REQUESTS`] (propose,
    /// then answer after the decision) to its round cap plus the closing
    /// request.
    async fn estimate(
        &self,
        actor: &Actor,
        action: &Action,
        records: &[RecordRef],
    ) -> Result<Estimate, HostError> {
        let config: Option<ModelConfig> = self.host.store().config().model_config().await?;
        let setup = self.setup(&actor.id, &[]).await?;
        let system = match setup.system_prompt() {
            Message::System { text } => text.len(),
            _ => 0,
        };
        let schema = self
            .host
            .registry()
            .get(action.tool)
            .map_or(0, |tool| tool.export(Provider::OpenAi).to_string().len());
        let mut low = Range::<u64>::default();
        let mut high = Range::<u64>::default();
        let ceiling = config.as_ref().and_then(|c| c.max_tokens).map(u64::from);
        let mut floor = 0;
        for record in records {
            let prompt = action.prompt(record, &actor.id, "").len();
            let base = tokens(system + prompt + schema);
            let request = action.request(record, &actor.id, "");
            let most = u64::from(request.max_rounds) + 1;
            low.0 += FEWEST_REQUESTS;
            low.1 += base * FEWEST_REQUESTS;
            high.0 += most;
            // Request k reads the base and k earlier outputs.
            let grown = ceiling.unwrap_or(0) * (most * most.saturating_sub(1) / 2);
            high.1 += base * most + grown;
            floor = floor.max(base * FEWEST_REQUESTS);
        }
        let output_tokens = ceiling.map(|ceiling| (0, high.0 * ceiling));
        let cost = match (config, output_tokens) {
            (Some(config), Some(output)) => {
                match (config.input_price_per_mtok, config.output_price_per_mtok) {
                    (Some(input), Some(out)) => {
                        let price =
                            |tokens: u64, per_million: f64| tokens as f64 * per_million / 1e6;
                        Some((
                            price(low.1, input),
                            price(high.1, input) + price(output.1, out),
                        ))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        Ok(Estimate {
            runs: records.len() as u64,
            requests: (low.0, high.0),
            input_tokens: (low.1, high.1),
            output_tokens,
            cost,
            per_run_floor: floor,
        })
    }

    /// Stores a batch of `action` on the records `ids` as `user`, with
    /// `note` and a token `budget`, as a job the worker runs
    /// ([`BatchJob`]): the first [`MOST_PER_PRESS`] records, one run each,
    /// in order; the rest are named in its report for the next press.
    /// Returns the job's id (its report's address).
    pub async fn start_batch(
        &self,
        user: &str,
        action: &Action,
        ids: &[u64],
        note: &str,
        budget: u64,
    ) -> Result<String, HostError> {
        let actor = self.host.actor(user).await?;
        let order = BatchOrder {
            tool: action.tool.to_owned(),
            note: note.to_owned(),
            budget,
            next_press: ids.iter().copied().skip(MOST_PER_PRESS).collect(),
        };
        let now: Vec<u64> = ids.iter().copied().take(MOST_PER_PRESS).collect();
        let job = self
            .jobs
            .new_job(BATCH_KIND, Some(&actor.id), order.to_value())?;
        self.host
            .store()
            .run_log()
            .enqueue_batch(&job, &now)
            .await?;
        self.jobs.wake_worker();
        Ok(job.id)
    }
}

/// Four bytes to a token, rounded up: rough, and on the high side for
/// English prose.
fn tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}
