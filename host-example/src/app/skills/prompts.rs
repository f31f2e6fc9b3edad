//! Approved skills offered to MCP clients as prompts (`prompts/list`,
//! `prompts/get`) and as the Skills extension's skills and files, to each
//! user only those they could follow.
//!
//! A skill is offered to a user when, read now from the skills folders:
//! - it is approved and its files match the approval (the rule runs use,
//!   [`judge`], with unapproved skills refused whatever the setting says:
//!   a prompt is handed to a model the host does not watch);
//! - it is a valid skill (`skills check` finds no error);
//! - it declares `allowed-tools`, and the gates grant the user every tool
//!   it names, each as a tool of this host (a scope such as
//!   `read_source(src/**)` needs the whole tool granted).
//!
//! So a skill with no `allowed-tools` (nothing says what it needs), an
//! empty list, or one naming a tool this host lacks (`Bash`, an
//! `mcp__server` tool) is offered to nobody. The name, description and
//! text all come from the bytes whose digest was checked, so a file
//! edited after the check is never shown in part.

use std::path::{Path, PathBuf};

use tool_core::Actor;
use tool_core::gates::Grant;
use tool_core::skills::{AllowedTools, ToolTarget, read_skill};

use crate::app::skills::approval::{UnapprovedSkills, Verdict, judge};
use crate::app::skills::check::SkillFolders;
use crate::app::skills::digest::{SkillFolder, sha256_hex};
use crate::app::{HostError, Skills};

/// One skill offered to a user: as a prompt, and as the files of the
/// MCP Skills extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillPrompt {
    /// The skill folder's name: the prompt's name.
    pub name: String,
    /// The skill's `description`.
    pub description: String,
    /// The skill's instructions (the file's body, after the front matter).
    pub text: String,
    /// The front matter whole, as JSON.
    pub front_matter: serde_json::Map<String, serde_json::Value>,
    /// Every file of the skill as approved: path, SHA-256 and size, in
    /// path order.
    pub files: Vec<SkillFile>,
    /// Where the skill folder is.
    folder: PathBuf,
}

/// One file of an offered skill, as approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// Its path below the skill folder, `/`-separated.
    pub path: String,
    /// The SHA-256 of its bytes, lowercase hex.
    pub sha256: String,
    /// Its length in bytes.
    pub size: u64,
}

impl Skills<'_> {
    /// The approved, unchanged skills `actor` is granted every tool of,
    /// by name.
    pub async fn skill_prompts(&self, actor: &Actor) -> Result<Vec<SkillPrompt>, HostError> {
        let folders: Vec<PathBuf> = self.host.store().config().skills_folders().await?;
        let approvals = self.host.store().decisions().skill_approvals().await?;
        let grant = self.access.grant(actor).await?;
        let mut prompts: Vec<SkillPrompt> = Vec::new();
        // A folder that cannot be listed holds no skill to offer.
        for folder in SkillFolders::find(&folders).folders {
            let Some(name) = folder.file_name().map(|n| n.to_string_lossy().into_owned()) else {
                continue;
            };
            // The first folder of a name wins, as for runs.
            if prompts.iter().any(|p| p.name == name) {
                continue;
            }
            let read = SkillFolder::read(&folder);
            let approval = approvals.iter().find(|a| a.name == name);
            let verdict = judge(
                read.as_ref().map(|r| &r.digest),
                approval,
                UnapprovedSkills::Refuse,
            );
            let (Verdict::Trusted, Ok(read)) = (verdict, read) else {
                continue;
            };
            let Ok(text) = std::str::from_utf8(&read.skill_file) else {
                continue;
            };
            let report = read_skill(text, &name);
            if !report.is_valid() {
                continue;
            }
            let Some(manifest) = report.manifest else {
                continue;
            };
            if !granted_every_tool(&manifest.allowed_tools, &grant) {
                continue;
            }
            let files = read
                .digest
                .files
                .iter()
                .map(|file| SkillFile {
                    path: file.path.clone(),
                    sha256: file.sha256.clone(),
                    size: read.sizes.get(&file.path).copied().unwrap_or_default(),
                })
                .collect();
            prompts.push(SkillPrompt {
                name,
                description: manifest.description.unwrap_or_default(),
                text: manifest.body,
                front_matter: manifest.front_matter,
                files,
                folder,
            });
        }
        prompts.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(prompts)
    }
}

impl SkillPrompt {
    /// Where the skill's folder is.
    pub fn folder(&self) -> &Path {
        &self.folder
    }
}

/// The bytes at `path` below an offered skill's `folder`, read afresh and
/// handed out only when they are the bytes approved (`sha256`): what is
/// handed out is what was checked. `None` when the file is gone,
/// unreadable or changed since its approval. `path` must be one the
/// folder's own listing gave ([`SkillPrompt::files`]), never a caller's
/// text, so it names a file inside the folder.
pub fn read_approved_file(folder: &Path, path: &str, sha256: &str) -> Option<Vec<u8>> {
    let bytes = std::fs::read(folder.join(path)).ok()?;
    (sha256_hex(&bytes) == sha256).then_some(bytes)
}

/// Whether `allowed` names at least one tool and `grant` holds every tool
/// it names.
fn granted_every_tool(allowed: &AllowedTools, grant: &Grant) -> bool {
    let AllowedTools::Declared(patterns) = allowed else {
        return false;
    };
    !patterns.is_empty()
        && patterns.iter().all(|pattern| match &pattern.target {
            ToolTarget::Tool(name) => grant.tool_names().any(|granted| granted == name),
            ToolTarget::McpServer(_) => false,
        })
}
