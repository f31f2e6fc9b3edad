//! Actions on records: each writing tool offered on the kind of record it
//! changes (a page's metadata, a new element on a page, an element moved
//! or translated, a file's alternative text), started as one ordinary run
//! ([`Runs::start_run`](crate::app::Runs::start_run), the path the command line takes) whose prompt is
//! built from the action, the record and the person's note, and which is
//! offered that one tool. Its proposal waits in the inbox like any other.
//!
//! The record is read as the person may see it in the site: a record they
//! may not edit is refused with the words of one that does not exist.

pub mod batch;

use std::collections::BTreeSet;
use std::fmt;

use site_model::{ElementId, FileId, Files, PageId, Pages, Permissions, SiteError};
use tool_core::Actor;
use tool_core::agent::EventSink;
use tool_core::gates::{Gates, Selection};

use crate::app::runs::RunReport;
use crate::app::{HostError, Runs};
use crate::store::RunRequest;

/// The kinds of record an action is offered on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RecordKind {
    /// A page of the tree.
    Page,
    /// A content element on a page.
    Element,
    /// A file in a storage.
    File,
}

impl RecordKind {
    /// `page`, `element`, `file`.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Page => "page",
            RecordKind::Element => "element",
            RecordKind::File => "file",
        }
    }
}

/// A writing tool offered on a kind of record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    /// The tool the run is offered.
    pub tool: &'static str,
    /// The records it is offered on.
    pub kind: RecordKind,
    /// Its name on a button.
    pub label: &'static str,
    /// What the model is asked to do, before the record is named.
    task: &'static str,
}

/// Every action, in the order a record lists them.
pub const ACTIONS: [Action; 5] = [
    Action {
        tool: "update_page_metadata",
        kind: RecordKind::Page,
        label: "Update metadata",
        task: "Propose better metadata (title, navigation title, slug, description) for",
    },
    Action {
        tool: "create_content_element_draft",
        kind: RecordKind::Page,
        label: "Draft a new element",
        task: "Draft one new content element for",
    },
    Action {
        tool: "move_content_element",
        kind: RecordKind::Element,
        label: "Move",
        task: "Move",
    },
    Action {
        tool: "create_translation_draft",
        kind: RecordKind::Element,
        label: "Translate",
        task: "Draft a translation of",
    },
    Action {
        tool: "set_file_alternative_text",
        kind: RecordKind::File,
        label: "Alternative text",
        task: "Write the alternative text of",
    },
];

impl Action {
    /// The action of `tool`, if it is one.
    pub fn of_tool(tool: &str) -> Option<Action> {
        ACTIONS.into_iter().find(|action| action.tool == tool)
    }

    /// The actions offered on records of `kind`.
    pub fn on(kind: RecordKind) -> impl Iterator<Item = Action> {
        ACTIONS
            .into_iter()
            .filter(move |action| action.kind == kind)
    }

    /// The run's prompt: the task, the record as the site holds it, how to
    /// answer, and the person's note on lines of its own.
    pub fn prompt(&self, record: &RecordRef, user: &str, note: &str) -> String {
        let mut prompt = format!(
            "{} {}.\n{}\nCall `{}` once, for this record only; a person approves the change before it is written.",
            self.task, record.name, record.detail, self.tool
        );
        let note = note.trim();
        if !note.is_empty() {
            prompt.push_str(&format!("\nNote from {user}:\n{note}"));
        }
        prompt
    }

    /// The request of a run of this action on `record`: its prompt, and
    /// only this tool offered.
    pub fn request(&self, record: &RecordRef, user: &str, note: &str) -> RunRequest {
        RunRequest {
            tools: Selection::Only(BTreeSet::from([self.tool.to_owned()])),
            // The prompt quotes the record's text as people wrote it.
            quotes: Some(format!("{} {}", record.kind.as_str(), record.id)),
            ..RunRequest::new(self.prompt(record, user, note))
        }
    }
}

/// A record an action may run on, as the prompt names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef {
    /// Its kind.
    pub kind: RecordKind,
    /// Its id.
    pub id: u64,
    /// `page 20 "Repairs"`.
    pub name: String,
    /// What the model should know of it, on one or a few lines. Like
    /// `name`, it quotes what people wrote: a run it starts has read
    /// untrusted content ([`RunRequest::quotes`]).
    pub detail: String,
}

/// Why an action cannot run on a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unfit {
    /// Missing, or not the person's to change: the same words for both.
    NotFound,
    /// The tool is not offered to the person (the gates' reason).
    NotOffered(String),
    /// The site could not be read.
    Site(String),
}

impl fmt::Display for Unfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unfit::NotFound => f.write_str(site_model::NOT_FOUND),
            Unfit::NotOffered(reason) => write!(f, "the tool is not offered to you: {reason}"),
            Unfit::Site(reason) => write!(f, "the site could not be read: {reason}"),
        }
    }
}

impl Runs<'_> {
    /// What the site lets `actor` see and change: everything for a host
    /// administrator, the grants of the site user of the same name
    /// otherwise (never administrator rights the host did not give),
    /// nothing for a name the site does not know.
    pub async fn site_permissions(&self, actor: &Actor) -> Result<Permissions, SiteError> {
        Permissions::for_actor(&self.host.store().site(), &actor.id, actor.admin).await
    }

    /// Why `action` cannot be offered to `actor` at all (the tool does not
    /// pass their gates), if it cannot.
    pub async fn action_denial(
        &self,
        action: &Action,
        actor: &Actor,
    ) -> Result<Option<String>, HostError> {
        let setup = self.setup(&actor.id, &[]).await?;
        let gates = Gates::new(self.host.registry(), setup.inputs());
        Ok(gates.denial(action.tool).map(|denial| denial.to_string()))
    }

    /// Record `id` of `kind`, if `permissions` let its holder change it.
    pub async fn editable_record(
        &self,
        permissions: &Permissions,
        kind: RecordKind,
        id: u64,
    ) -> Result<RecordRef, Unfit> {
        let site = self.host.store().site();
        let read = |error: SiteError| match error {
            SiteError::NotFound { .. } => Unfit::NotFound,
            other => Unfit::Site(other.to_string()),
        };
        match kind {
            RecordKind::Page => {
                let page = PageId(id);
                if !permissions.may_edit_page(page, &site).await.map_err(read)? {
                    return Err(Unfit::NotFound);
                }
                let page = site.page(page).await.map_err(read)?;
                if page.deleted {
                    return Err(Unfit::NotFound);
                }
                Ok(RecordRef {
                    kind,
                    id,
                    name: format!("page {id} \"{}\"", page.title.for_host()),
                    detail: format!(
                        "Its slug is /{}; its description: {}.",
                        page.slug.for_host(),
                        page.description
                            .as_ref()
                            .map_or("none", |text| text.for_host())
                    ),
                })
            }
            RecordKind::Element => {
                let element = site.element(ElementId(id)).await.map_err(read)?;
                if element.deleted
                    || !permissions
                        .may_edit_element(&element, &site)
                        .await
                        .map_err(read)?
                {
                    return Err(Unfit::NotFound);
                }
                Ok(RecordRef {
                    kind,
                    id,
                    name: format!("content element {id} \"{}\"", element.header.for_host()),
                    detail: format!(
                        "It is a `{}` element on page {}, column {}. Its body: {}",
                        element.ctype,
                        element.page,
                        element.column,
                        element.body.for_host()
                    ),
                })
            }
            RecordKind::File => {
                let file = site.file(FileId(id)).await.map_err(read)?;
                if !permissions.may_reach_storage(file.storage) {
                    return Err(Unfit::NotFound);
                }
                Ok(RecordRef {
                    kind,
                    id,
                    name: format!("file {id} \"{}\"", file.path.for_host()),
                    detail: format!(
                        "It is a {} file; its title: {}.",
                        file.mime,
                        file.title.as_ref().map_or("none", |title| title.for_host())
                    ),
                })
            }
        }
    }

    /// Starts `action` on record `id` as `user`, with `note`: one ordinary
    /// run, offered that tool.
    ///
    /// # Errors
    ///
    /// [`HostError::NotStarted`] when the record is missing or not the user's
    /// to change, or the tool is not offered to them; otherwise as
    /// [`Runs::start_run`](crate::app::Runs::start_run).
    pub async fn start_action(
        &self,
        user: &str,
        action: &Action,
        id: u64,
        note: &str,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<RunReport, HostError> {
        let actor = self.host.actor(user).await?;
        if let Some(reason) = self.action_denial(action, &actor).await? {
            return Err(HostError::NotStarted(Unfit::NotOffered(reason).to_string()));
        }
        let permissions = self
            .site_permissions(&actor)
            .await
            .map_err(|error| HostError::NotStarted(Unfit::Site(error.to_string()).to_string()))?;
        let record = self
            .editable_record(&permissions, action.kind, id)
            .await
            .map_err(|unfit| HostError::NotStarted(unfit.to_string()))?;
        let request = action.request(&record, user, note);
        self.start_run(user, request, watch).await
    }
}
