//! `set_file_alternative_text`: one file's alternative text (and title), in
//! one of the site's languages.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use site_model::{Fields, FileId, HistoryAction, LanguageId, Operation, Site, Target};
use tool_core::{Authored, Change, Proposal, Tool, ToolContext, ToolError, ToolOutput, Write};

use crate::access::{Editor, not_found, site_failed};
use crate::invalid;
use crate::write::{Step, arguments, change, commit};

/// The most characters of an alternative text or a title.
const TEXT_MAX: usize = 1_000;

/// Set a file's alternative text (what a screen reader says for an image),
/// and optionally its title, in one language of the site. Nothing is
/// written until a person approves the proposal.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "editing",
    effect = "write",
    data = "internal",
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct SetFileAlternativeText {
    /// The file's id.
    file: u64,
    /// The new alternative text (1 to 1,000 characters).
    alternative: String,
    /// The new title (1 to 1,000 characters); absent keeps it.
    title: Option<String>,
    /// The language's code, e.g. `de`; absent is the default language.
    language: Option<String>,
}

/// The field name a person reads for the alternative text of a language.
fn alternative_field(code: &str) -> String {
    format!("alternative[{code}]")
}

impl Write for SetFileAlternativeText {
    async fn propose(self, cx: &ToolContext) -> Result<Proposal, ToolError> {
        let editor = Editor::actor(cx).await?;
        let file = match editor.site.file(FileId(self.file)).await {
            Ok(file) if editor.may_edit_storage(file.storage) => file,
            _ => return Err(not_found()),
        };
        let (language, code) = language(&*editor.site, self.language.as_deref()).await?;
        let alternative = self.alternative.trim();
        if alternative.is_empty() || alternative.chars().count() > TEXT_MAX {
            return Err(invalid("`alternative` must have 1 to 1000 characters"));
        }
        let mut changes = Vec::new();
        // The values replaced are for the approver and the compare-and-set:
        // no door shows them to a model (docs/exposure.md).
        let current = file
            .alternative
            .for_host()
            .get(&language)
            .map_or(Value::Null, |t| json!(t));
        if current != json!(alternative) {
            changes.push(Change {
                field: alternative_field(&code),
                new: json!(alternative),
                replaces: current,
            });
        }
        if let Some(title) = self.title {
            let title = title.trim();
            if title.is_empty() || title.chars().count() > TEXT_MAX {
                return Err(invalid("`title` must have 1 to 1000 characters"));
            }
            let replaced = file.title.as_ref().map(Authored::for_host);
            if replaced.map(String::as_str) != Some(title) {
                changes.push(Change {
                    field: "title".into(),
                    new: json!(title),
                    replaces: json!(replaced),
                });
            }
        }
        if changes.is_empty() {
            return Err(invalid(
                "nothing to change: the file already has these values",
            ));
        }
        // For the approver (words.rs): the path is quoted as the host reads it.
        let record = format!("file {} ({})", file.id, file.path.for_host());
        let summary = format!(
            "Approving sets the alternative text{} of {record} in language `{code}`.",
            if changes.len() > 1 { " and title" } else { "" }
        );
        Ok(Proposal::new(record, changes, summary))
    }

    async fn apply(proposal: &Proposal, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let SetFileAlternativeText {
            file,
            language: code,
            ..
        } = arguments(proposal)?;
        let approver = Editor::approver(cx).await?;
        let file = approver
            .site
            .file(FileId(file))
            .await
            .map_err(site_failed)?;
        Editor::require(approver.may_edit_storage(file.storage))?;
        let (language, code) = language(&*approver.site, code.as_deref()).await?;
        let (mut expected, mut new) = (Fields::new(), Fields::new());
        if let Some(alternative) = change(proposal, &alternative_field(&code)) {
            let stored = file
                .alternative
                .for_host()
                .get(&language)
                .map_or(Value::Null, |t| json!(t));
            if stored != alternative.replaces {
                return Err(ToolError::failed(
                    "the alternative text changed since the proposal was made; nothing was written",
                ));
            }
            // The whole map is the compare-and-set, so a concurrent change
            // of another language refuses this one rather than being lost.
            let mut map = file.alternative.for_host().clone();
            let text = alternative.new.as_str().unwrap_or_default().to_owned();
            map.insert(language, text);
            expected.insert("alternative".into(), json!(file.alternative.for_host()));
            new.insert("alternative".into(), json!(map));
        }
        if let Some(title) = change(proposal, "title") {
            expected.insert("title".into(), title.replaces.clone());
            new.insert("title".into(), title.new.clone());
        }
        let step = Step {
            operation: Operation::Update {
                target: Target::File(file.id),
                expected,
                new,
            },
            action: HistoryAction::Updated,
        };
        commit(&approver, proposal, cx, vec![step]).await
    }
}

/// The language of `code` among the site's languages (absent: the default
/// language), with its code.
async fn language(site: &dyn Site, code: Option<&str>) -> Result<(LanguageId, String), ToolError> {
    let sites = site.sites().await.map_err(site_failed)?;
    let mut languages: Vec<_> = sites.iter().flat_map(|s| s.languages.iter()).collect();
    languages.sort_by_key(|language| language.id);
    languages.dedup_by_key(|language| language.id);
    let found = match code {
        None => languages
            .iter()
            .find(|language| language.id == LanguageId(0)),
        Some(code) => languages.iter().find(|language| language.code == code),
    };
    match found {
        Some(language) => Ok((language.id, language.code.clone())),
        None => {
            let codes: Vec<&str> = languages.iter().map(|l| l.code.as_str()).collect();
            Err(invalid(format!(
                "the site has no language `{}`; it has: {}",
                code.unwrap_or_default(),
                codes.join(", ")
            )))
        }
    }
}
