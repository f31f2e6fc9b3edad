//! [`Host`]: the store and the registry, and what every run needs from
//! them: its inputs to the gates (the user, the settings as they are now,
//! the skills), the model client, and the context its tools get.

use std::sync::Arc;

use site_model::Site;
use tool_core::agent::{DEFAULT_MAX_ROUNDS, Message};
use tool_core::approval::{DEFAULT_PROPOSAL_LIFETIME, Decision, ProposalLifetime};
use tool_core::gates::{HostSettings, RunConfig, RunInputs, Selection};
use tool_core::skills::{EffectiveSkills, SkillRef, compose_skill_block};
use tool_core::{Actor, Registry, RegistryError, RunId, ToolContext};

use crate::model::{ClientError, OpenAiClient};
use crate::skill_approval::ApproveError;
use crate::skills::{self, LoadedSkills, SkillsError};
use crate::store::{RunNote, RunRequest, Store, StoreError};

/// The host's middle layer: what the command line (and any other front
/// door) asks of runs and approvals. Built once per process.
#[derive(Debug)]
pub struct Host {
    store: Store,
    registry: Registry,
}

/// Why a run or an approval could not be done. Each is one line a person
/// can act on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The store failed or refused.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The linked tools do not form a registry.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// A skill the run asked for could not be loaded.
    #[error(transparent)]
    Skills(#[from] SkillsError),
    /// Skills could not be approved; nothing was recorded.
    #[error(transparent)]
    Approve(#[from] ApproveError),
    /// No model is configured.
    #[error(
        "no model is configured: set one with `host-example --user admin settings set model '{{\"base_url\": \"http://localhost:11434/v1\", \"model\": \"qwen3:8b\"}}'`"
    )]
    NoModel,
    /// No model configuration has this name.
    #[error(
        "no model configuration `{0}` in the `models` setting; see `host-example settings show`"
    )]
    UnknownModel(String),
    /// The configured model cannot be used.
    #[error("the model setting cannot be used: {0}")]
    Client(#[from] ClientError),
    /// No run has this id.
    #[error("no run `{0}`; see `host-example runs list`")]
    UnknownRun(String),
    /// No proposal has this id.
    #[error("no proposal `{0}`; see `host-example approvals list`")]
    UnknownProposal(String),
    /// The proposal was decided before.
    #[error("already decided ({})", describe(.0))]
    AlreadyDecided(Decision),
    /// The proposal's run is not waiting for it.
    #[error("run `{run}` is not waiting for this proposal (it is {status})")]
    NotWaiting {
        /// The run.
        run: String,
        /// Its status.
        status: String,
    },
    /// The approval was refused by the gates; nothing was decided or
    /// written, and the run still waits.
    #[error("the approval was refused: {0}; nothing was written and the proposal is still pending")]
    Refused(String),
    /// The approver may not decide this proposal: its tool does not pass
    /// their gates, or its record is not theirs to change. Nothing was
    /// decided.
    #[error(
        "you may not decide this proposal (its tool or its record is not yours to change); nothing was decided"
    )]
    MayNotDecide,
    /// An action on a record could not start: the record is missing or
    /// not the user's to change, or its tool is not offered to them.
    #[error("the run was not started: {0}")]
    NotStarted(String),
    /// The decision could not be recorded; nothing was decided or written.
    #[error("the decision could not be recorded: {0}")]
    Decision(String),
}

/// `approved by ops`, `rejected by ops`, `expired`.
pub fn describe(decision: &Decision) -> String {
    match decision {
        Decision::Approved { approver } => format!("approved by {}", approver.id),
        Decision::Rejected { approver, .. } => format!("rejected by {}", approver.id),
        _ => "expired".to_owned(),
    }
}

/// A run's inputs to the gates, owned: the settings as they are now, the
/// run's user (with their administrator flag as it is now), configuration
/// and skills.
#[derive(Debug, Clone)]
pub struct RunSetup {
    /// The gates' settings.
    pub settings: HostSettings,
    /// The user the run acts for.
    pub actor: Actor,
    /// The trust zone and the rest of the run's configuration.
    pub config: RunConfig,
    /// The skills the run selected; one the host does not trust allows no
    /// tools and has no text.
    pub skills: Vec<SkillRef>,
    /// What the host noted about the skills (refused, or used unapproved),
    /// to be stored with the run.
    pub notes: Vec<RunNote>,
    /// Every tool that passes the gates.
    pub selection: Selection,
}

impl RunSetup {
    /// As the gates read it.
    pub fn inputs(&self) -> RunInputs<'_> {
        RunInputs {
            settings: &self.settings,
            actor: Some(&self.actor),
            config: &self.config,
            skills: &self.skills,
            selection: &self.selection,
        }
    }

    /// The system prompt: what the host is, then the skills' text.
    pub fn system_prompt(&self) -> Message {
        let block = self.skill_block();
        let mut prompt = String::from(SYSTEM_PROMPT);
        if !block.is_empty() {
            prompt.push_str("\n\n");
            prompt.push_str(&block);
        }
        Message::system(prompt)
    }

    /// How many bytes of the system prompt are the skills' lines.
    pub fn skill_bytes(&self) -> usize {
        self.skill_block().len()
    }

    fn skill_block(&self) -> String {
        let effective = EffectiveSkills::select(&self.skills, self.settings.skill_trust_floor);
        compose_skill_block(&effective, SKILL_BLOCK_BYTES).0
    }
}

const SYSTEM_PROMPT: &str = "You work on a website through the tools you are offered. \
Read before you answer. A change you propose is not written until a person approves it.";

/// The room skills get in the system prompt.
const SKILL_BLOCK_BYTES: usize = 16 * 1024;

/// The round cap of a run that sets none.
pub const DEFAULT_ROUNDS: u32 = DEFAULT_MAX_ROUNDS;

impl Host {
    /// The host over `store`, with every linked tool.
    pub fn new(store: Store) -> Result<Host, HostError> {
        Ok(Host::with_registry(store, crate::registry()?))
    }

    /// The host over `store` with `registry`.
    pub fn with_registry(store: Store, registry: Registry) -> Host {
        Host { store, registry }
    }

    /// Its store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Its tools.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The host user `name` as an actor, their administrator flag as
    /// stored now.
    pub async fn actor(&self, name: &str) -> Result<Actor, HostError> {
        let user = self
            .store
            .user(name)
            .await?
            .ok_or_else(|| StoreError::UnknownUser(name.to_owned()))?;
        Ok(Actor {
            id: user.name,
            admin: user.admin,
        })
    }

    /// The inputs of a run by `user` with the skills called `skills`, the
    /// settings and the skills' approvals read now.
    pub async fn setup(&self, user: &str, skills: &[String]) -> Result<RunSetup, HostError> {
        let actor = self.actor(user).await?;
        let settings = self.store.host_settings().await?;
        let config = RunConfig {
            trust_zone: self.store.trust_zone().await?,
            ..RunConfig::default()
        };
        let loaded = if skills.is_empty() {
            LoadedSkills::default()
        } else {
            skills::load(
                &self.store.skills_folders().await?,
                skills,
                &self.store.skill_approvals().await?,
                self.store.unapproved_skills().await?,
            )?
        };
        Ok(RunSetup {
            settings,
            actor,
            config,
            skills: loaded.skills,
            notes: loaded.notes,
            selection: Selection::All,
        })
    }

    /// [`Host::setup`] for a run asked `request`: its skills, and only the
    /// tools it selects.
    pub async fn request_setup(
        &self,
        user: &str,
        request: &RunRequest,
    ) -> Result<RunSetup, HostError> {
        let mut setup = self.setup(user, &request.skills).await?;
        setup.selection = request.tools.clone();
        Ok(setup)
    }

    /// The model client of the stored model configuration.
    pub async fn model(&self) -> Result<OpenAiClient, HostError> {
        self.model_named(None).await
    }

    /// The model client of the configuration called `name` (setting
    /// `models`), or of the `model` setting for `None`.
    pub async fn model_named(&self, name: Option<&str>) -> Result<OpenAiClient, HostError> {
        let config = self
            .store
            .model_config_named(name)
            .await?
            .ok_or_else(|| match name {
                None => HostError::NoModel,
                Some(name) => HostError::UnknownModel(name.to_owned()),
            })?;
        Ok(OpenAiClient::new(config)?)
    }

    /// The context every call of `run` gets: its actor, the site, and how
    /// long its proposals live. (The egress guard is added per call by the
    /// gates, for the tool's group.)
    pub fn context(&self, run: &RunId, actor: &Actor) -> ToolContext {
        let site: Arc<dyn Site> = Arc::new(self.store.site());
        ToolContext::new(run.clone())
            .with_actor(actor.clone())
            .with_service(site)
            .with_service(ProposalLifetime(DEFAULT_PROPOSAL_LIFETIME))
    }
}
