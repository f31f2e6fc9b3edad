//! [`HostDoor`]: each question tool-mcp asks answered by one [`Host`]
//! method, its errors turned into tool-mcp's words. The rules are the
//! app layer's; this only translates.

use std::sync::Arc;

use tokio::sync::watch;
use tool_core::gates::Grant;
use tool_core::{Actor, Outcome, Proposal, Registry};
use tool_mcp::{
    Authenticate, Call, CallError as McpCallError, Failure, McpHost, OfferedSkill, OriginVerdict,
    Proposals, RequestOrigin, ResourceMetadata, SkillFile, Skills, Task, TaskState, Withdrawal,
};

use super::sessions::StoredSessions;
use crate::app::calls::CallError;
use crate::app::calls::tasks::{CallTask, CallTaskState};
use crate::app::skills::prompts::{SkillPrompt, read_approved_file};
use crate::app::timestamps::Utc;
use crate::app::{Host, HostError};

/// The host as tool-mcp's server sees it.
pub(super) struct HostDoor(pub(super) Arc<Host>);

fn failure(error: HostError) -> Failure {
    Box::new(error)
}

#[async_trait::async_trait]
impl McpHost for HostDoor {
    fn registry(&self) -> &Registry {
        self.0.registry()
    }

    async fn grant(&self, actor: &Actor) -> Result<Arc<Grant>, Failure> {
        self.0.access().grant(actor).await.map_err(failure)
    }

    async fn call(&self, call: Call) -> Result<Outcome, McpCallError> {
        let Call {
            caller,
            tool,
            arguments,
            run,
            scope,
            control,
        } = call;
        match self
            .0
            .calls()
            .call_watched(&caller, &tool, arguments, run, &scope, control)
            .await
        {
            Ok(outcome) => Ok(outcome),
            Err(CallError::Tool(error)) => Err(McpCallError::Tool(error)),
            Err(CallError::Host(error)) => Err(McpCallError::Host(failure(error))),
        }
    }

    fn changes(&self) -> Option<watch::Receiver<u64>> {
        Some(self.0.access().changes())
    }

    async fn poll_changes(&self) -> Result<(), Failure> {
        self.0.access().poll_settings().await.map_err(failure)
    }

    async fn judge_origin(&self, request: RequestOrigin<'_>) -> Result<OriginVerdict, Failure> {
        self.0
            .sessions()
            .judge_origin(request)
            .await
            .map_err(failure)
    }

    fn authenticate(&self) -> Option<&dyn Authenticate> {
        Some(self)
    }

    fn proposals(&self) -> Option<&dyn Proposals> {
        Some(self)
    }

    fn skills(&self) -> Option<&dyn Skills> {
        Some(self)
    }

    fn sessions(
        &self,
    ) -> Option<Arc<dyn rmcp::transport::streamable_http_server::session::store::SessionStore>>
    {
        Some(Arc::new(StoredSessions(Arc::clone(&self.0))))
    }
}

#[async_trait::async_trait]
impl Authenticate for HostDoor {
    async fn authenticate(&self, token: &str) -> Result<Option<Actor>, Failure> {
        self.0.access().authenticate(token).await.map_err(failure)
    }

    async fn resource_metadata(&self) -> Result<Option<ResourceMetadata>, Failure> {
        Ok(self
            .0
            .access()
            .oauth()
            .await
            .map_err(failure)?
            .map(|oauth| ResourceMetadata {
                document: oauth.metadata(),
                url: oauth.metadata_url(),
            }))
    }
}

#[async_trait::async_trait]
impl Proposals for HostDoor {
    fn waiting(&self, _caller: &Actor, proposal: &Proposal) -> Task {
        task(CallTask::waiting(proposal.clone()))
    }

    async fn task(&self, caller: &Actor, id: &str) -> Result<Option<Task>, Failure> {
        match Box::pin(self.0.calls().call_task(caller, id)).await {
            Ok(found) => Ok(Some(task(found))),
            Err(HostError::UnknownProposal(_)) => Ok(None),
            Err(error) => Err(failure(error)),
        }
    }

    async fn withdraw(&self, caller: &Actor, id: &str) -> Result<Withdrawal, Failure> {
        match Box::pin(self.0.calls().withdraw_call(caller, id)).await {
            Ok(()) => Ok(Withdrawal::Done),
            Err(HostError::UnknownProposal(_)) => Ok(Withdrawal::Unknown),
            Err(error @ HostError::MayNotDecide) => Ok(Withdrawal::Refused(error.to_string())),
            Err(error) => Err(failure(error)),
        }
    }
}

/// The app layer's task in tool-mcp's words: its words are the host's
/// (the same at every door), the state as MCP tells it.
fn task(task: CallTask) -> Task {
    let state = match &task.state {
        CallTaskState::Waiting | CallTaskState::Applying { .. } => TaskState::Working,
        CallTaskState::Applied(output) => TaskState::Applied(output.clone()),
        CallTaskState::NotApplied(reason) => TaskState::NotApplied(reason.clone()),
        CallTaskState::Rejected { .. } | CallTaskState::Expired => TaskState::Failed,
        CallTaskState::Withdrawn => TaskState::Withdrawn,
    };
    Task {
        id: task.proposal.id().as_str().to_owned(),
        created_at: Utc::from_epoch(task.created_at).iso8601(),
        updated_at: Utc::from_epoch(task.updated_at).iso8601(),
        message: task.status_message(),
        state,
    }
}

#[async_trait::async_trait]
impl Skills for HostDoor {
    async fn offered(&self, actor: &Actor) -> Result<Vec<OfferedSkill>, Failure> {
        let offered = self
            .0
            .skills()
            .skill_prompts(actor)
            .await
            .map_err(failure)?;
        Ok(offered.iter().map(offered_skill).collect())
    }

    async fn read(
        &self,
        skill: &OfferedSkill,
        file: &SkillFile,
    ) -> Result<Option<Vec<u8>>, Failure> {
        Ok(read_approved_file(&skill.folder, &file.path, &file.sha256))
    }
}

fn offered_skill(skill: &SkillPrompt) -> OfferedSkill {
    OfferedSkill {
        name: skill.name.clone(),
        description: skill.description.clone(),
        text: skill.text.clone(),
        front_matter: skill.front_matter.clone(),
        folder: skill.folder().to_path_buf(),
        files: skill
            .files
            .iter()
            .map(|file| SkillFile {
                path: file.path.clone(),
                sha256: file.sha256.clone(),
                size: file.size,
            })
            .collect(),
    }
}
