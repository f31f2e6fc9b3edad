//! Runs, independent of how they are asked for: start one
//! ([`Runs::start_run`](crate::app::Runs::start_run)), list them, show one. A run resolves its grant once
//! through the gates, is stored with it, and drives the agent loop with the
//! configured model; every event is recorded as it happens
//! ([`crate::app::recorder`]). A write proposal suspends it: its state and the
//! proposal are stored until [`crate::app::approvals`] decides.

use std::collections::BTreeSet;

use argon2::password_hash::rand_core::{OsRng, RngCore};
use serde_json::Value;
use tool_core::agent::{
    Agent, Budget, BudgetExceeded, DryRun, Event, EventSink, Finished, Message, Model,
    ModelRequest, RunEnd, RunStatus, Spent,
};
use tool_core::approval::Decision;
use tool_core::exposure::Exposure;
use tool_core::gates::{Gates, Selection};
use tool_core::{Actor, Content, DataClass, Proposal, Registry, RunId};

use crate::app::budgets::Allowance;
use crate::app::recorder::{EventLog, Recorder};
use crate::app::webhooks::events;
use crate::app::{DEFAULT_ROUNDS, HostError, RunSetup, Runs};
use crate::store::{RunNote, RunRequest, RunSummary, StoredProposal, StoredRun};

/// What asking a run came to.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEnded {
    /// The run is over (completed, truncated, or failed: see
    /// [`Finished::status`]).
    Finished(Finished),
    /// A write call proposed a change; the run waits for a decision.
    Suspended(Proposal),
}

/// A run started or resumed, and how it ended this time.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// The run.
    pub run: RunId,
    /// How it ended, or that it waits.
    pub ended: RunEnded,
}

/// What a run would send first ([`Runs::dry_run`](crate::app::Runs::dry_run)).
#[derive(Debug, Clone, PartialEq)]
pub struct DryRunReport {
    /// The first request as the agent loop assembles it.
    pub dry: DryRun,
    /// The JSON body the model client would post for it.
    pub body: Value,
}

/// A run with its events, for `runs show`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunDetail {
    /// The run as stored.
    pub run: StoredRun,
    /// What the host noted about it, such as a skill it did not trust.
    pub notes: Vec<RunNote>,
    /// Its events, in order.
    pub events: Vec<Event<'static>>,
    /// Its proposals, each with its decision once there is one.
    pub proposals: Vec<(StoredProposal, Option<Decision>)>,
}

impl Runs<'_> {
    /// The stored run `run`, for the app's own steps: no viewer, so the
    /// caller has decided who sees it; an unknown run is
    /// [`HostError::UnknownRun`].
    pub(in crate::app) async fn stored(&self, run: &RunId) -> Result<StoredRun, HostError> {
        self.host
            .store()
            .run_log()
            .run(run)
            .await?
            .ok_or_else(|| HostError::UnknownRun(run.0.clone()))
    }

    /// What a stored run was asked, and its set-up (its skills and tools)
    /// as the settings and skills stand now; a run stored before requests
    /// were kept was asked nothing more than its prompt.
    pub(in crate::app) async fn setup_of(
        &self,
        stored: &StoredRun,
    ) -> Result<(RunRequest, RunSetup), HostError> {
        let request = stored
            .request
            .clone()
            .unwrap_or_else(|| RunRequest::new(String::new()));
        let setup = self.request_setup(&stored.user, &request).await?;
        Ok((request, setup))
    }

    /// Starts a run as `user`: resolves its grant through the gates with
    /// the settings as they are now, the skills `request` names and its
    /// pick of tools, stores the run, then drives the agent loop until the
    /// model answers or a write call suspends it. `watch` sees every event
    /// as it happens; it is `Send`, so a front door can spawn the run.
    ///
    /// # Errors
    ///
    /// Before the run is stored: an unknown user or skill, no or an
    /// unusable model configuration, a corrupt setting. A provider's
    /// failure is not an error: the run ends failed ([`RunEnded::Finished`]
    /// with [`RunStatus::Failed`]),
    /// its conversation kept.
    pub async fn start_run(
        &self,
        user: &str,
        request: RunRequest,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<RunReport, HostError> {
        self.start_run_as(new_run_id(), user, request, watch).await
    }

    /// [`Runs::start_run`](crate::app::Runs::start_run) with the run's id chosen beforehand
    /// ([`new_run_id`]), so that its caller can keep it before the run is
    /// stored.
    pub(crate) async fn start_run_as(
        &self,
        run: RunId,
        user: &str,
        request: RunRequest,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<RunReport, HostError> {
        request.check()?;
        let setup = self.request_setup(user, &request).await?;
        let model = self
            .model_named(request.model.as_deref())
            .await?
            .capture_raw(request.capture_raw);
        let grant = Gates::new(self.host.registry(), setup.inputs())
            .resolve()
            .grant;
        let lease = self.jobs.lease().await?;
        self.host
            .store()
            .run_log()
            .create_run(&run, user, &grant, lease)
            .await?;
        self.host
            .store()
            .run_log()
            .save_run_request(&run, &request)
            .await?;
        for note in &setup.notes {
            self.host
                .store()
                .run_log()
                .record_run_note(&run, note)
                .await?;
        }

        let messages = vec![setup.system_prompt(), Message::user(&request.prompt)];
        let cx = self.context(&run, &setup.actor);
        let agent = request
            .agent(self.host.registry(), &model)
            .context_window(model.config().window())
            .skill_bytes(setup.skill_bytes())
            .mark_results(setup.mark_results);
        // The user's budget is checked before the first request too, with
        // that request's estimated size.
        let first = agent
            .dry_run(messages.clone(), setup.inputs())
            .budget
            .total();
        let allowance = self
            .admin
            .allowance(user, None, model.config(), first)
            .await?;
        let agent = agent.budget(request.budget(allowance));
        let log = EventLog::new(self.host.store().clone(), run.clone(), user);
        let mut recorder = Recorder::new(log, watch);
        let end = agent
            .start(messages, setup.inputs(), &cx, &mut recorder)
            .await;
        let (_, written) = recorder.finish().await;
        self.admin.record_cost(&run, model.config(), &end).await?;
        let ended = self.conclude(&run, end).await?;
        written?;
        Ok(RunReport { run, ended })
    }

    /// What starting `request` as `user` would send first, without
    /// storing a run or asking the model: the first request as the agent
    /// loop assembles it ([`Agent::dry_run`]) and the body the model client
    /// would post for it.
    ///
    /// # Errors
    ///
    /// As [`Runs::start_run`](crate::app::Runs::start_run) before the run is stored.
    pub async fn dry_run(
        &self,
        user: &str,
        request: &RunRequest,
    ) -> Result<DryRunReport, HostError> {
        let setup = self.request_setup(user, request).await?;
        let model = self.model_named(request.model.as_deref()).await?;
        let messages = vec![setup.system_prompt(), Message::user(&request.prompt)];
        let dry = Agent::new(self.host.registry(), &model)
            .context_window(model.config().window())
            .skill_bytes(setup.skill_bytes())
            .dry_run(messages, setup.inputs());
        let body = model.request_body(&ModelRequest {
            messages: &dry.messages,
            tools: dry.tools.as_deref(),
        });
        Ok(DryRunReport { dry, body })
    }

    /// Stores how a run invocation ended: a finished run's outcome and
    /// conversation, or a suspended run's state and its proposal.
    pub(crate) async fn conclude(&self, run: &RunId, end: RunEnd) -> Result<RunEnded, HostError> {
        match end {
            RunEnd::Finished(finished) => {
                self.host
                    .store()
                    .run_log()
                    .finish_run(run, &finished)
                    .await?;
                if let RunStatus::Failed { error } = &finished.status {
                    let user = self.host.store().run_log().run(run).await?.map(|r| r.user);
                    events::run_failed(
                        self.host.store(),
                        run,
                        user.as_deref().unwrap_or("?"),
                        &error.to_string(),
                    )
                    .await;
                }
                Ok(RunEnded::Finished(finished))
            }
            RunEnd::Suspended(state) => {
                let proposal = state.proposal().clone();
                self.host.store().run_log().suspend_run(run, &state).await?;
                Ok(RunEnded::Suspended(proposal))
            }
        }
    }

    /// The newest `limit` runs `viewer` may see, newest first: their own,
    /// or everyone's for an administrator ([`may_see_run`]).
    pub async fn list(&self, viewer: &str, limit: usize) -> Result<Vec<RunSummary>, HostError> {
        let viewer = self.host.actor(viewer).await?;
        let whose = (!viewer.admin).then_some(viewer.id.as_str());
        Ok(self.host.store().run_log().runs_of(whose, limit).await?)
    }

    /// One run as `viewer` sees it: its events, notes, proposals and their
    /// decisions. A run they may not see is answered as one that does not
    /// exist, so nobody learns which ids are taken.
    pub async fn run_detail(&self, viewer: &str, id: &str) -> Result<RunDetail, HostError> {
        let viewer = self.host.actor(viewer).await?;
        let id = RunId(id.to_owned());
        let run = self
            .host
            .store()
            .run_log()
            .run(&id)
            .await?
            .filter(|run| may_see_run(&viewer, run))
            .ok_or_else(|| HostError::UnknownRun(id.0.clone()))?;
        let events = self.host.store().run_log().run_events(&id).await?;
        let notes = self.host.store().run_log().run_notes(&id).await?;
        let mut proposals = Vec::new();
        for stored in self.host.store().decisions().run_proposals(&id).await? {
            let decision = self
                .host
                .store()
                .decisions()
                .decision(stored.proposal.id())
                .await?;
            proposals.push((stored, decision));
        }
        Ok(RunDetail {
            run,
            notes,
            events,
            proposals,
        })
    }
}

/// The most rounds a run may offer tools in, whichever door starts it.
pub const MAX_ROUNDS: u32 = 50;

impl RunRequest {
    /// What every run must be, whichever door asks for it: a prompt, and a
    /// rounds cap from 1 to [`MAX_ROUNDS`]. [`Runs::start_run`](crate::app::Runs::start_run) checks it;
    /// a door may ask first, to answer in its own form.
    pub fn check(&self) -> Result<(), HostError> {
        if self.prompt.trim().is_empty() {
            return Err(HostError::EmptyPrompt);
        }
        if !(1..=MAX_ROUNDS).contains(&self.max_rounds) {
            return Err(HostError::Rounds {
                asked: self.max_rounds,
                most: MAX_ROUNDS,
            });
        }
        Ok(())
    }

    /// The tools this request selects, whichever door asked: a group
    /// stands for every tool of it in `registry`; groups and tools asked
    /// together select their union; nothing asked is every tool. Groups
    /// that hold no tool select none (never every tool), and the gates
    /// still decide which of those selected are offered.
    pub fn selection(&self, registry: &Registry) -> Selection {
        if self.groups.is_empty() {
            return self.tools.clone();
        }
        let mut picked = match &self.tools {
            Selection::All => BTreeSet::new(),
            Selection::Only(tools) => tools.clone(),
        };
        picked.extend(
            registry
                .tools()
                .iter()
                .map(|tool| tool.declaration())
                .filter(|declaration| self.groups.contains(declaration.group.as_ref()))
                .map(|declaration| declaration.name.to_string()),
        );
        Selection::Only(picked)
    }
}

/// Who may see a run: the user it acts for, and administrators. The one
/// rule every door's listing and detail follows.
pub fn may_see_run(viewer: &Actor, run: &StoredRun) -> bool {
    may_see_runs_of(viewer, &run.user)
}

/// [`may_see_run`] for a run known only by whom it acts for (the
/// playground's live view, before the run is stored).
pub fn may_see_runs_of(viewer: &Actor, user: &str) -> bool {
    viewer.admin || viewer.id == user
}

impl RunRequest {
    /// `prompt` with no skills and the default round cap.
    pub fn new(prompt: impl Into<String>) -> Self {
        RunRequest {
            prompt: prompt.into(),
            skills: Vec::new(),
            max_rounds: DEFAULT_ROUNDS,
            model: None,
            tools: Selection::All,
            groups: BTreeSet::new(),
            token_budget: None,
            capture_raw: false,
            quotes: None,
        }
    }

    /// The agent loop this request asks for over `model`, with its round
    /// cap; its budget is [`RunRequest::budget`].
    pub fn agent<'a, M: Model>(&self, registry: &'a Registry, model: &'a M) -> Agent<'a, M> {
        let agent = Agent::new(registry, model).max_rounds(self.max_rounds);
        match &self.quotes {
            // The prompt carries a record's text as people wrote it: what
            // a tool result carrying it would bring in, the run has read.
            Some(record) => {
                let mut read = Exposure::default();
                let _ = read.record("prompt", record, DataClass::Internal, Content::Untrusted);
                agent.having_read(read)
            }
            None => agent,
        }
    }

    /// The check before every round: this request's own token budget, if
    /// it has one, then the user's `allowance` (their budget per day and
    /// month).
    pub fn budget(&self, allowance: Allowance) -> impl Budget + use<> {
        let own = self.token_budget;
        move |spent: &Spent| {
            if let Some(limit) = own {
                let used = spent
                    .usage
                    .input_tokens
                    .saturating_add(spent.usage.output_tokens);
                if used >= limit {
                    return Err(BudgetExceeded::new(format!(
                        "{used} tokens spent, the run's budget is {limit}"
                    )));
                }
            }
            allowance.check(spent)
        }
    }
}

/// `run-` and 16 random hex digits.
/// A fresh random run id.
pub(crate) fn new_run_id() -> RunId {
    let mut bytes = [0u8; 8];
    OsRng.fill_bytes(&mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    RunId(format!("run-{hex}"))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use tool_core::gates::Selection;

    use crate::store::RunRequest;

    fn names(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn a_group_asked_for_stands_for_its_tools_and_nothing_asked_for_is_every_tool() {
        let registry = crate::registry().unwrap();
        let files: BTreeSet<String> = registry
            .tools()
            .iter()
            .map(|tool| tool.declaration())
            .filter(|declaration| declaration.group == "files")
            .map(|declaration| declaration.name.to_string())
            .collect();
        assert!(files.len() > 1, "the files group holds several tools");

        let nothing = RunRequest::new("p");
        assert_eq!(nothing.selection(&registry), Selection::All);

        let asked = RunRequest {
            groups: names(&["files", "not_a_group"]),
            tools: Selection::Only(names(&["read_records"])),
            ..RunRequest::new("p")
        };
        let mut expected = files.clone();
        expected.insert("read_records".to_owned());
        assert_eq!(asked.selection(&registry), Selection::Only(expected));

        // A group asked for alone selects its tools, not every tool.
        let group = RunRequest {
            groups: names(&["files"]),
            ..RunRequest::new("p")
        };
        assert_eq!(group.selection(&registry), Selection::Only(files));
    }

    #[test]
    fn groups_that_hold_no_tool_select_none_never_every_tool() {
        let registry = crate::registry().unwrap();
        let unknown = RunRequest {
            groups: names(&["not_a_group"]),
            ..RunRequest::new("p")
        };
        assert_eq!(
            unknown.selection(&registry),
            Selection::Only(BTreeSet::new())
        );
    }
}
