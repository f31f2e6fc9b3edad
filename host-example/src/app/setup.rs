//! What every run needs before it starts: its inputs to the gates
//! ([`RunSetup`]: the user, the settings as they are now, the skills), the
//! model client, and the one context its tools get.

use std::collections::BTreeMap;
use std::sync::Arc;

use site_model::Site;
use tools_builtin::rag::PublicIndex;

use tool_core::agent::{DEFAULT_MAX_ROUNDS, Message, Model, ModelRequest};
use tool_core::gates::{HostSettings, RunConfig, RunInputs, Selection};
use tool_core::skills::{EffectiveSkills, SkillRef, compose_skill_block};
use tool_core::{Actor, RunId, ToolContext};

use crate::app::skills::{self, LoadedSkills};
use crate::app::{HostError, Runs, site_of};
use crate::model::{HostSecrets, ModelConfig, OpenAiClient};
use crate::store::{AuditEntry, RunNote, RunRequest};

/// What a run may be started with ([`Runs::run_choices`](crate::app::Runs::run_choices)).
#[derive(Debug, Clone, PartialEq)]
pub struct RunChoices {
    /// The `model` setting.
    pub model: Option<ModelConfig>,
    /// The `models` setting, by name.
    pub models: BTreeMap<String, ModelConfig>,
    /// The names of the skills in the skills folders.
    pub skills: Vec<String>,
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
    /// Whether tool results reach the model marked as data (the setting
    /// `mark_tool_results`).
    pub mark_results: bool,
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

impl Runs<'_> {
    /// The inputs of a run by `user` with the skills called `skills`, the
    /// settings and the skills' approvals read now.
    pub async fn setup(&self, user: &str, skills: &[String]) -> Result<RunSetup, HostError> {
        let actor = self.host.actor(user).await?;
        let settings = self.host.store().config().host_settings().await?;
        let config = RunConfig {
            trust_zone: self.host.store().config().trust_zone().await?,
            ..RunConfig::default()
        };
        let loaded = if skills.is_empty() {
            LoadedSkills::default()
        } else {
            skills::load(
                &self.host.store().config().skills_folders().await?,
                skills,
                &self.host.store().decisions().skill_approvals().await?,
                self.host.store().config().unapproved_skills().await?,
            )?
        };
        Ok(RunSetup {
            settings,
            actor,
            config,
            skills: loaded.skills,
            notes: loaded.notes,
            selection: Selection::All,
            mark_results: self.host.store().config().mark_tool_results().await?,
        })
    }

    /// [`Runs::setup`](crate::app::Runs::setup) for a run asked `request`: its skills, and only the
    /// tools it selects.
    pub async fn request_setup(
        &self,
        user: &str,
        request: &RunRequest,
    ) -> Result<RunSetup, HostError> {
        let mut setup = self.setup(user, &request.skills).await?;
        setup.selection = request.selection(self.host.registry());
        Ok(setup)
    }

    /// The model configuration called `name` (setting `models`), or of
    /// the `model` setting for `None`, if there is one.
    pub async fn model_config_named(
        &self,
        name: Option<&str>,
    ) -> Result<Option<ModelConfig>, HostError> {
        Ok(self.host.store().config().model_config_named(name).await?)
    }

    /// What a run may be started with: the default model configuration,
    /// the named ones, and the skills found in the skills folders.
    pub async fn run_choices(&self) -> Result<RunChoices, HostError> {
        Ok(RunChoices {
            model: self.host.store().config().model_config().await?,
            models: self.host.store().config().model_configs().await?,
            skills: skills::available(&self.host.store().config().skills_folders().await?),
        })
    }

    /// The model client of the stored model configuration.
    pub async fn model(&self) -> Result<OpenAiClient, HostError> {
        self.model_named(None).await
    }

    /// The model client of the configuration called `name` (setting
    /// `models`), or of the `model` setting for `None`.
    pub async fn model_named(&self, name: Option<&str>) -> Result<OpenAiClient, HostError> {
        let config = self
            .host
            .store
            .config()
            .model_config_named(name)
            .await?
            .ok_or_else(|| match name {
                None => HostError::NoModel,
                Some(name) => HostError::UnknownModel(name.to_owned()),
            })?;
        Ok(OpenAiClient::new(config)?.with_secrets(self.secrets().await?))
    }

    /// The host's own secrets, which nothing it relays from a model
    /// provider may carry: every configured model's API key, every
    /// webhook's signing secret, the database's password.
    pub async fn secrets(&self) -> Result<HostSecrets, HostError> {
        let named = self
            .host
            .store
            .config()
            .model_configs()
            .await?
            .into_values();
        let keys = self
            .host
            .store
            .config()
            .model_config()
            .await?
            .into_iter()
            .chain(named)
            .filter_map(|config| config.api_key().ok().flatten());
        let webhooks = self
            .host
            .store
            .job_queue()
            .webhooks()
            .await?
            .into_iter()
            .map(|webhook| webhook.secret);
        let database = self.host.store.database_password().map(str::to_owned);
        Ok(HostSecrets::new(keys.chain(webhooks).chain(database)))
    }

    /// The context every call of `run` gets, whichever door started it:
    /// its actor, the site (with the source code the `code` tools read),
    /// the public search the `rag` tools ask, and how long its proposals
    /// live. (The egress guard is added per call by the gates, for the
    /// tool's group.)
    pub fn context(&self, run: &RunId, actor: &Actor) -> ToolContext {
        self.context_over(run, actor, Arc::clone(&self.host.site))
    }

    /// [`Runs::context`](crate::app::Runs::context) for a run resumed to apply an approved proposal:
    /// the change writes `applying`, its audit rows (the decision, then
    /// `applied`), in its own transaction, so no crash between them leaves
    /// a change unaudited or a decision audited before it is applied.
    pub(crate) fn applying_context(
        &self,
        run: &RunId,
        actor: &Actor,
        applying: Vec<AuditEntry>,
    ) -> ToolContext {
        let site: Arc<dyn Site> = Arc::new(site_of(self.host.store()).auditing(applying));
        self.context_over(run, actor, site)
    }

    fn context_over(&self, run: &RunId, actor: &Actor, site: Arc<dyn Site>) -> ToolContext {
        let search: Arc<dyn PublicIndex> = self.host.search.clone();
        ToolContext::new(run.clone())
            .with_actor(actor.clone())
            .with_service(site)
            .with_service(search)
            .with_service(self.host.lifetime)
    }

    /// Sends the model configuration called `name` (the `model` setting
    /// for `None`) one small request, as `user`, an administrator, and
    /// returns its answer's text: whether the configuration reaches a
    /// model, before a run depends on it. No tool is offered; the answer
    /// or the error is the provider's, in the run's words.
    pub async fn test_model(&self, user: &str, name: Option<&str>) -> Result<String, HostError> {
        self.access
            .require_admin(user, "testing a model configuration")
            .await?;
        let client = self.model_named(name).await?;
        let messages = [Message::User {
            text: "Reply with the single word OK.".to_owned(),
        }];
        let answer = client
            .complete(ModelRequest {
                messages: &messages,
                tools: None,
            })
            .await
            .map_err(|error| HostError::ModelTest(error.to_string()))?;
        Ok(answer.text)
    }
}
