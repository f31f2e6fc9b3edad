//! What a server asks of the host it serves ([`McpHost`]), and the words
//! of a single call between them.
//!
//! The server owns what is MCP's; the host owns who may do what. A host
//! answers three questions at least (the registry, a caller's grant, a
//! call through the gates); [`Gated`](crate::Gated) answers them for a
//! registry and fixed settings. The other concerns are each a small
//! trait a host hands over or not, and the server offers only what it was
//! handed: proposals followed as tasks ([`Proposals`]), skills as prompts
//! and files ([`Skills`]), its own resources, prompts and completions
//! ([`Resources`], [`Prompts`], [`Completions`]), bearer tokens
//! ([`Authenticate`]), sessions across processes (rmcp's `SessionStore`).

use std::sync::Arc;

use rmcp::model::{
    ArgumentInfo, CompletionInfo, GetPromptResult, JsonObject, Prompt, Reference, Resource,
    ResourceContents, ResourceTemplate,
};
use rmcp::transport::streamable_http_server::session::store::SessionStore;
use serde_json::Value;
use tokio::sync::watch;
use tool_core::calls::CancelToken;
use tool_core::client::ClientChannel;
use tool_core::gates::Grant;
use tool_core::{Actor, Outcome, Proposal, Registry, RunId, ToolError, ToolOutput};

use crate::origin::{OriginVerdict, RequestOrigin};
use crate::progress::ProgressFeed;

/// A host's failure: nothing was decided, the client is told to try again
/// later, and the error itself is logged, never sent.
pub type Failure = Box<dyn std::error::Error + Send + Sync>;

/// Who made a call, with what client, over which protocol revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The authenticated user.
    pub actor: Actor,
    /// The client's name, from `initialize` or the request's `_meta`.
    pub client_name: Option<String>,
    /// The client's version, likewise.
    pub client_version: Option<String>,
    /// The protocol revision of the request (`2025-11-25`, `2026-07-28`).
    pub protocol: Option<String>,
}

/// Where one caller's reads are kept, as the server decided it (never as
/// a client claims it): always the caller's identity, on every revision;
/// a session the server itself issued (a stdio connection, an HTTP
/// session it keeps) adds its own on top, so a session's exposure is
/// never lower than its caller's. A host keys both by the caller: two
/// callers presenting one session id share nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallScope {
    /// A session the server issued: a stdio connection, or an HTTP
    /// session it created and still keeps.
    Session(String),
    /// No session (2026-07-28), or none the server issued: the caller's
    /// calls alone.
    Stateless,
}

/// How a caller steers a call under way: the token that cancels it,
/// where the tool's progress reports go (none: nowhere), and the client
/// the tool may ask and log to (none: it is told there is no client).
pub struct CallControl {
    /// Cancelling it tells the tool and ends the call.
    pub cancel: CancelToken,
    /// The tool's progress reports, when someone watches them.
    pub progress: Option<ProgressFeed>,
    /// The client, for the context's `elicit`, `sample` and `log`
    /// (`ToolContext::with_client`).
    pub client: Option<Arc<dyn ClientChannel>>,
}

impl std::fmt::Debug for CallControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallControl")
            .field("cancel", &self.cancel)
            .field("progress", &self.progress)
            .field("client", &self.client.is_some())
            .finish()
    }
}

/// One `tools/call`, as the server hands it to the host.
#[derive(Debug)]
pub struct Call {
    /// Who calls.
    pub caller: Caller,
    /// The tool's name, as the client sent it.
    pub tool: String,
    /// Its arguments (an object; `{}` when the client sent none).
    pub arguments: Value,
    /// The call's id: the caller and the request.
    pub run: RunId,
    /// Where the caller's reads are kept.
    pub scope: CallScope,
    /// Cancellation and progress.
    pub control: CallControl,
}

/// Why a call has no outcome.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The call was refused or failed; the client reads its `model_text`.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// The host failed; nothing was decided.
    #[error(transparent)]
    Host(Failure),
}

/// The host an [`McpServer`](crate::McpServer) serves.
#[async_trait::async_trait]
pub trait McpHost: Send + Sync + 'static {
    /// The tools there are.
    fn registry(&self) -> &Registry;

    /// The tools `actor` is offered now (what `tools/list` lists). A host
    /// hands out a new `Arc` whenever the grant may have changed: the
    /// server keeps each grant's pages until then.
    async fn grant(&self, actor: &Actor) -> Result<Arc<Grant>, Failure>;

    /// `call` through the gates as they are now (a tool switched off a
    /// moment ago is refused at once), recorded as the host records calls.
    async fn call(&self, call: Call) -> Result<Outcome, CallError>;

    /// Generations of what callers are offered, as they change: each
    /// change is announced as `notifications/tools/list_changed` (and the
    /// prompts are looked at again). `None`: nothing ever changes.
    fn changes(&self) -> Option<watch::Receiver<u64>> {
        None
    }

    /// Looks for changes made elsewhere (another process), to be
    /// announced through [`changes`](Self::changes); called about once a
    /// second while a client listens.
    async fn poll_changes(&self) -> Result<(), Failure> {
        Ok(())
    }

    /// Whether a request with these headers may act. The default admits
    /// a request without `Origin` (a client that is not a browser) and a
    /// page of the server's own origin (`http` or `https` and the
    /// request's own `Host`, which rmcp holds to loopback names), and
    /// refuses every other origin: a host that serves other pages says
    /// which it admits.
    async fn judge_origin(&self, request: RequestOrigin<'_>) -> Result<OriginVerdict, Failure> {
        Ok(if request.is_same_origin() {
            OriginVerdict::Admitted
        } else {
            OriginVerdict::Refused
        })
    }

    /// Who bearer tokens belong to (HTTP). `None`: every HTTP request is
    /// answered `401`.
    fn authenticate(&self) -> Option<&dyn Authenticate> {
        None
    }

    /// Where write calls' proposals wait for a person (the tasks
    /// extension). `None`: a proposal is answered as a result that says
    /// nothing was written, and no task is offered.
    fn proposals(&self) -> Option<&dyn Proposals> {
        None
    }

    /// The skills offered as prompts and files. `None`: no skills.
    fn skills(&self) -> Option<&dyn Skills> {
        None
    }

    /// The host's own resources and templates. `None`: only the skills'
    /// files.
    fn resources(&self) -> Option<&dyn Resources> {
        None
    }

    /// The host's own prompts. `None`: only the skills.
    fn prompts(&self) -> Option<&dyn Prompts> {
        None
    }

    /// Argument completion. `None`: `completion/complete` is not offered.
    fn completions(&self) -> Option<&dyn Completions> {
        None
    }

    /// Where 2025-11-25 HTTP sessions are kept, so another process can
    /// take one over. `None`: in this process's memory.
    fn sessions(&self) -> Option<Arc<dyn SessionStore>> {
        None
    }
}

/// Who a bearer token belongs to.
#[async_trait::async_trait]
pub trait Authenticate: Send + Sync {
    /// The user `token` belongs to, if any.
    async fn authenticate(&self, token: &str) -> Result<Option<Actor>, Failure>;

    /// Where clients learn to get a token (RFC 9728's protected-resource
    /// metadata and its URL), if the host names an authorization server.
    async fn resource_metadata(&self) -> Result<Option<ResourceMetadata>, Failure> {
        Ok(None)
    }
}

/// The protected-resource metadata (RFC 9728) and the URL it is served at.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceMetadata {
    /// The document.
    pub document: Value,
    /// Its URL, for the `401`'s `WWW-Authenticate` challenge.
    pub url: String,
}

/// Where write calls' proposals wait for a person, and what deciding came
/// to. Nothing here decides: a person decides through the host's own
/// approval path; a caller may only withdraw their own proposal.
#[async_trait::async_trait]
pub trait Proposals: Send + Sync {
    /// The task of a proposal `caller`'s call has just made.
    fn waiting(&self, caller: &Actor, proposal: &Proposal) -> Task;

    /// Where the proposal `id` stands, for the caller who made it. `None`
    /// for an id that names none of theirs (never issued, another's): the
    /// same answer.
    async fn task(&self, caller: &Actor, id: &str) -> Result<Option<Task>, Failure>;

    /// `caller` takes back their proposal `id` (a rejection by them,
    /// through the host's approval path).
    async fn withdraw(&self, caller: &Actor, id: &str) -> Result<Withdrawal, Failure>;
}

/// A write call's proposal followed to its end.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The task's id: the proposal's.
    pub id: String,
    /// When it was proposed (RFC 3339).
    pub created_at: String,
    /// When it last changed (RFC 3339).
    pub updated_at: String,
    /// One line for the person behind the client.
    pub message: String,
    /// Where it stands.
    pub state: TaskState,
}

/// Where a proposal stands.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskState {
    /// Waiting for a person, or approved and being applied.
    Working,
    /// Approved and written: the tool's output.
    Applied(ToolOutput),
    /// Approved, but nothing was written, and why.
    NotApplied(String),
    /// Rejected by someone else, or expired: nothing was written.
    Failed,
    /// The caller withdrew it.
    Withdrawn,
}

impl TaskState {
    /// Whether the task has ended.
    pub fn is_final(&self) -> bool {
        !matches!(self, TaskState::Working)
    }
}

/// What a withdrawal came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Withdrawal {
    /// Withdrawn, or decided already (it stays as decided).
    Done,
    /// No proposal of the caller's has this id.
    Unknown,
    /// The caller may not withdraw it, and why.
    Refused(String),
}

/// The skills a host offers each user, as prompts and as the Skills
/// extension's files.
#[async_trait::async_trait]
pub trait Skills: Send + Sync {
    /// The skills offered to `actor`, in name order.
    async fn offered(&self, actor: &Actor) -> Result<Vec<OfferedSkill>, Failure>;

    /// The bytes of `file`, one of the files [`offered`](Self::offered)
    /// listed for `skill`, as approved: `None` when it is gone or changed
    /// since. The offer was decided for the caller in the same request,
    /// so the skills are not looked at again.
    async fn read(
        &self,
        skill: &OfferedSkill,
        file: &SkillFile,
    ) -> Result<Option<Vec<u8>>, Failure>;
}

/// One skill offered to a user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedSkill {
    /// The skill's name: the prompt's name.
    pub name: String,
    /// Its `description`.
    pub description: String,
    /// Its instructions: the prompt's one user message.
    pub text: String,
    /// Its `SKILL.md` front matter whole (`name` and `description`
    /// included), as the Skills extension lists it.
    pub front_matter: serde_json::Map<String, serde_json::Value>,
    /// Its files as approved, in path order.
    pub files: Vec<SkillFile>,
    /// Where its folder is: the host reads its files from there.
    pub folder: std::path::PathBuf,
}

/// One file of an offered skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// Its path below the skill folder, `/`-separated.
    pub path: String,
    /// The SHA-256 of its bytes, lowercase hex.
    pub sha256: String,
    /// Its length in bytes.
    pub size: u64,
}

// What a host offers besides its tools, each part switched on by the host
// that builds the server: resources and resource templates, prompts with
// arguments, images and embedded resources, and argument completion. Each
// is in MCP's own types (rmcp's model), and each is per caller: a host
// answers for the actor who asks.

/// Resources a host serves, read by URI.
#[async_trait::async_trait]
pub trait Resources: Send + Sync {
    /// The resources `actor` may list.
    async fn list(&self, actor: &Actor) -> Result<Vec<Resource>, Failure>;

    /// The resource templates `actor` may list (RFC 6570 URI templates).
    async fn templates(&self, _actor: &Actor) -> Result<Vec<ResourceTemplate>, Failure> {
        Ok(Vec::new())
    }

    /// The contents at `uri` for `actor` (a listed resource or one a
    /// template names); `None` when there is none, or none `actor` may
    /// read: the same answer.
    async fn read(
        &self,
        actor: &Actor,
        uri: &str,
    ) -> Result<Option<Vec<ResourceContents>>, Failure>;

    /// The URIs of resources as they change, for subscriptions
    /// (`resources/subscribe`). `None`: nothing is announced, and clients
    /// are not offered subscriptions.
    fn updates(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        None
    }
}

/// Prompts a host serves.
#[async_trait::async_trait]
pub trait Prompts: Send + Sync {
    /// The prompts `actor` may list, with their arguments.
    async fn list(&self, actor: &Actor) -> Result<Vec<Prompt>, Failure>;

    /// The prompt `name` with `arguments`: called only for a prompt
    /// [`list`](Self::list) gave and with every required argument present.
    async fn get(
        &self,
        actor: &Actor,
        name: &str,
        arguments: &JsonObject,
    ) -> Result<GetPromptResult, Failure>;

    /// [`get`](Self::get) for a prompt that asks the client first (a form,
    /// its model, its roots) through `client`, as a tool asks through its
    /// context. On 2026-07-28 a question not yet answered ends the prompt
    /// with [`AskError::InputRequired`](tool_core::client::AskError) (return
    /// it as the error) and the client asks again with the answer. A host
    /// whose prompts ask nothing leaves this as it is.
    async fn get_asking(
        &self,
        actor: &Actor,
        name: &str,
        arguments: &JsonObject,
        client: &dyn ClientChannel,
    ) -> Result<GetPromptResult, Failure> {
        let _ = client;
        self.get(actor, name, arguments).await
    }
}

/// Completion of a prompt's or a resource template's arguments.
#[async_trait::async_trait]
pub trait Completions: Send + Sync {
    /// Values for `argument` of `reference`, best first.
    async fn complete(
        &self,
        actor: &Actor,
        reference: &Reference,
        argument: &ArgumentInfo,
    ) -> Result<CompletionInfo, Failure>;
}

/// The JSON-RPC error for a host's failure: the error is logged, the
/// client told only to try again.
pub(crate) fn host_failed(error: impl std::fmt::Display) -> rmcp::model::ErrorData {
    tracing::error!(target: "tool_mcp", %error, "the host failed");
    rmcp::model::ErrorData::internal_error("the host could not answer; try again later", None)
}
