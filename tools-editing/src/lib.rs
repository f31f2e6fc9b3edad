//! Writing tools for the site: every call is a proposal that waits for a
//! person's approval; nothing is written before.
//!
//! | tool | writes |
//! | --- | --- |
//! | `update_page_metadata` | a page's title, navigation title, slug, description |
//! | `set_file_alternative_text` | a file's alternative text (and title) in one language |
//! | `move_content_element` | an element's page, column and place |
//! | `create_content_element_draft` | a new hidden element, of a type the host allows |
//! | `create_translation_draft` | a new hidden translation of a page or element |
//!
//! All are in the group `editing`, `effect = "write"`, and ship disabled:
//! an administrator enables each. They read the site as the call's actor
//! (the site's user of the same name; a host administrator is a site
//! administrator): a record the actor may not see or edit is refused with
//! the words of one that does not exist, [`site_model::NOT_FOUND`].
//!
//! # What a host provides
//!
//! - the site, as `ToolContext::with_service(site)` where `site` is an
//!   `Arc<dyn site_model::Site>`;
//! - optionally the content types a draft may have, as [`ElementTypes`]
//!   (absent: [`DEFAULT_ELEMENT_TYPES`]);
//! - `tools_editing::link();` once, so the tools stay linked.
//!
//! # The rules every tool keeps
//!
//! - `propose` writes nothing. The proposal names the record (with words a
//!   person recognises: a page's title and path, a column's name), every
//!   field's new value and the value it replaces (`null` for a new
//!   record), and one sentence saying what approving does.
//! - A call with any invalid part is refused whole.
//! - `apply` runs only inside an approval
//!   ([`tool_core::approval::Approval`]), and only when the approver has
//!   the same edit rights on the record as a proposer needs; it writes in
//!   one change set of the site's store, as a compare-and-set on the
//!   replaced values, then re-reads the record and reports each field as
//!   written, or fails naming the field that did not take.
//! - Every applied change is in the record's history (who proposed, who
//!   approved, when, old → new, and for an edited approval the values as
//!   proposed), read with `Records::history` under the tables `pages`,
//!   `content` and `files`.
//!
//! # From proposal to verified write
//!
//! ```
//! use std::sync::Arc;
//!
//! use serde_json::json;
//! use site_model::{MemorySite, Pages, PageId, Records, Site};
//! use tool_core::approval::{Approval, MemoryApprovals};
//! use tool_core::gates::{Grant, Gates, HostSettings, RunConfig, RunInputs, Selection, ToolSettings, Toggle};
//! use tool_core::{Actor, Outcome, Registry, RunId, ToolContext};
//!
//! # futures_executor::block_on(async {
//! tools_editing::link();
//! let registry = Registry::linked().unwrap();
//! let site = Arc::new(MemorySite::demo());
//! let shared: Arc<dyn Site> = site.clone();
//!
//! // An administrator enabled the tool; clara edits the Service pages.
//! let mut settings = HostSettings::default();
//! settings.tools.insert("update_page_metadata".into(), ToolSettings { state: Toggle::Enabled, ..ToolSettings::default() });
//! let config = RunConfig::default();
//! let clara = Actor { id: "clara".into(), admin: false };
//! let inputs = RunInputs { settings: &settings, actor: Some(&clara), config: &config, skills: &[], selection: &Selection::All };
//! let cx = ToolContext::new(RunId("run-1".into())).with_actor(clara.clone()).with_service(shared);
//!
//! // The model's call proposes; nothing is written.
//! let gates = Gates::new(&registry, inputs);
//! let grant: Grant = gates.resolve().grant;
//! let before = site.snapshot();
//! let Ok(Outcome::Proposed(proposal)) = gates
//!     .call(&grant, "update_page_metadata", json!({"page": 20, "title": "Repairs and servicing"}), &cx)
//!     .await
//! else { panic!("a write tool proposes") };
//! assert_eq!(site.snapshot(), before);
//! assert_eq!(proposal.record, "page 20 \"Repairs\" (/service/repairs)");
//! assert_eq!(proposal.changes[0].replaces, json!("Repairs"));
//!
//! // A person approves: the tool writes, re-reads and reports.
//! let approvals = MemoryApprovals::new();
//! let approval = Approval { registry: &registry, run: inputs, grant: Some(&grant), store: &approvals };
//! let admin = Actor { id: "admin".into(), admin: true };
//! let written = approval.approve(&proposal, &admin, &cx).await.unwrap();
//! assert!(written.to_model_text().starts_with("written and verified"));
//! assert_eq!(site.page(PageId(20)).await.unwrap().title, "Repairs and servicing");
//!
//! // The history names who proposed and who approved.
//! let history = site.history("pages", 20).await.unwrap();
//! assert_eq!(history[0].proposed_by, Some("clara".into()));
//! assert_eq!(history[0].approved_by, Some("admin".into()));
//! # });
//! ```

#![forbid(unsafe_code)]

mod access;
mod element_draft;
mod file_text;
mod move_element;
mod page_metadata;
mod place;
mod translation_draft;
mod words;
mod write;

pub use element_draft::CreateContentElementDraft;
pub use file_text::SetFileAlternativeText;
pub use move_element::MoveContentElement;
pub use page_metadata::UpdatePageMetadata;
pub use translation_draft::{CreateTranslationDraft, Translated};

use tool_core::ToolError;

/// The group of every tool in this crate.
pub const GROUP: &str = "editing";

/// The content types a new element may have, as the host allows them: a
/// service in the tool's context. Absent: [`DEFAULT_ELEMENT_TYPES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementTypes(pub Vec<String>);

/// The content types a draft may have when the host declares none: text
/// and images, never raw HTML.
pub const DEFAULT_ELEMENT_TYPES: &[&str] = &["header", "text", "textpic", "image", "bullets"];

tool_core::linkable!();

/// A refusal of an invalid argument: the whole call is refused.
fn invalid(reason: impl Into<String>) -> ToolError {
    ToolError::failed(reason.into())
}
