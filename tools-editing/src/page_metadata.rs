//! `update_page_metadata`: a page's title, navigation title, slug,
//! description and visibility.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use site_model::{Fields, HistoryAction, Operation, PageId, Target};
use tool_core::{Change, Proposal, Tool, ToolContext, ToolError, ToolOutput, Write};

use crate::access::{Editor, not_found, site_failed};
use crate::write::{Step, arguments, commit};
use crate::{invalid, words};

/// The most characters of a title or navigation title.
const TITLE_MAX: usize = 255;
/// The most characters of a description.
const DESCRIPTION_MAX: usize = 1_000;
/// The most characters of a slug.
const SLUG_MAX: usize = 100;

/// Change a page's title, navigation title, slug, description or whether it
/// is hidden. Give only the fields to change; an empty navigation title or
/// description removes it. Nothing is written until a person approves the
/// proposal.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "editing",
    effect = "write",
    data = "internal",
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct UpdatePageMetadata {
    /// The page's id.
    page: u64,
    /// Its new title (1 to 255 characters).
    title: Option<String>,
    /// Its new title for menus (at most 255 characters; empty removes it).
    nav_title: Option<String>,
    /// Its new slug: lower-case letters, digits and single hyphens, unique
    /// among the page's siblings.
    slug: Option<String>,
    /// Its new meta description (at most 1,000 characters; empty removes it).
    description: Option<String>,
    /// `true` hides it, and the pages under it, from visitors; `false` shows
    /// it again.
    hidden: Option<bool>,
}

impl Write for UpdatePageMetadata {
    async fn propose(self, cx: &ToolContext) -> Result<Proposal, ToolError> {
        let editor = Editor::actor(cx).await?;
        let id = PageId(self.page);
        if !editor.may_edit_page(id).await? {
            return Err(not_found());
        }
        let page = editor.site.page(id).await.map_err(site_failed)?;
        let mut wanted: Vec<(&str, Value)> = Vec::new();
        if let Some(title) = self.title {
            let title = title.trim();
            if title.is_empty() || title.chars().count() > TITLE_MAX {
                return Err(invalid("`title` must have 1 to 255 characters"));
            }
            wanted.push(("title", json!(title)));
        }
        if let Some(nav_title) = self.nav_title {
            if nav_title.chars().count() > TITLE_MAX {
                return Err(invalid("`nav_title` must have at most 255 characters"));
            }
            wanted.push(("nav_title", optional(nav_title.trim())));
        }
        if let Some(slug) = self.slug {
            check_slug(&slug)?;
            if page.parent.is_none() {
                return Err(invalid("a root page has no slug to change"));
            }
            let taken = editor
                .site
                .pages()
                .await
                .map_err(site_failed)?
                .iter()
                .any(|other| {
                    other.id != page.id
                        && other.parent == page.parent
                        && other.language == page.language
                        && !other.deleted
                        && other.slug == slug
                });
            if taken {
                return Err(invalid(
                    "`slug` is taken by a sibling of the page: choose another",
                ));
            }
            wanted.push(("slug", json!(slug)));
        }
        if let Some(description) = self.description {
            if description.chars().count() > DESCRIPTION_MAX {
                return Err(invalid("`description` must have at most 1000 characters"));
            }
            wanted.push(("description", optional(description.trim())));
        }
        if let Some(hidden) = self.hidden {
            wanted.push(("hidden", json!(hidden)));
        }
        let current = serde_json::to_value(&page)
            .map_err(|_| ToolError::failed("the page could not be read"))?;
        let changes: Vec<Change> = wanted
            .into_iter()
            .filter(|(field, new)| current[*field] != *new)
            .map(|(field, new)| Change {
                field: field.to_owned(),
                new,
                replaces: current[field].clone(),
            })
            .collect();
        if changes.is_empty() {
            return Err(invalid(
                "nothing to change: give at least one field with a new value",
            ));
        }
        let record = words::page(&*editor.site, id).await?;
        let fields: Vec<&str> = changes.iter().map(|c| c.field.as_str()).collect();
        let summary = format!("Approving sets the {} of {record}.", fields.join(", "));
        Ok(Proposal::new(record, changes, summary))
    }

    async fn apply(proposal: &Proposal, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let UpdatePageMetadata { page, .. } = arguments(proposal)?;
        let approver = Editor::approver(cx).await?;
        Editor::require(approver.may_edit_page(PageId(page)).await?)?;
        let (mut expected, mut new) = (Fields::new(), Fields::new());
        for change in &proposal.changes {
            expected.insert(change.field.clone(), change.replaces.clone());
            new.insert(change.field.clone(), change.new.clone());
        }
        let step = Step {
            operation: Operation::Update {
                target: Target::Page(PageId(page)),
                expected,
                new,
            },
            action: HistoryAction::Updated,
        };
        commit(&approver, proposal, cx, vec![step]).await
    }
}

/// `null` for an empty text, which removes an optional field.
fn optional(text: &str) -> Value {
    if text.is_empty() {
        Value::Null
    } else {
        json!(text)
    }
}

fn check_slug(slug: &str) -> Result<(), ToolError> {
    let well_formed = !slug.is_empty()
        && slug.len() <= SLUG_MAX
        && slug.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if well_formed {
        Ok(())
    } else {
        Err(invalid(
            "`slug` must be lower-case letters and digits joined by single hyphens, at most 100 characters",
        ))
    }
}
