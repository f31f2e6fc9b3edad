//! `create_translation_draft`: a hidden translation of a page or an element
//! into one of its site's languages, replacing (recoverably) one that
//! exists.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use site_model::{ElementId, Fields, HistoryAction, Language, Operation, PageId, Site, Target};
use tool_core::{Arguments, Change, Proposal, Tool, ToolContext, ToolError, ToolOutput, Write};

use crate::access::{Editor, not_found, site_failed};
use crate::element_draft::next_element_id;
use crate::write::{Step, arguments, change, commit};
use crate::{invalid, words};

/// The most characters of a title or header.
const TITLE_MAX: usize = 255;
/// The most characters of a body or description.
const BODY_MAX: usize = 20_000;

/// What is translated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, Arguments)]
#[serde(rename_all = "snake_case")]
pub enum Translated {
    /// A page (its title and description).
    Page,
    /// A content element (its header and body).
    Element,
}

/// Create a hidden translation of a page or a content element into one of
/// its site's languages. An existing translation into that language is
/// replaced: it goes to the recycle bin with its history, so it can be
/// restored. Nothing is written until a person approves the proposal.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "editing",
    effect = "write",
    data = "internal",
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct CreateTranslationDraft {
    /// Whether `id` is a page or a content element.
    kind: Translated,
    /// The id of the page or element in the default language.
    id: u64,
    /// The language's code, e.g. `de`.
    language: String,
    /// The translated title (of a page) or header (of an element), 1 to
    /// 255 characters.
    title: String,
    /// The translated description (of a page) or body (of an element).
    body: Option<String>,
}

impl Write for CreateTranslationDraft {
    async fn propose(self, cx: &ToolContext) -> Result<Proposal, ToolError> {
        let editor = Editor::actor(cx).await?;
        let site = &*editor.site;
        let title = self.title.trim();
        if title.is_empty() || title.chars().count() > TITLE_MAX {
            return Err(invalid("`title` must have 1 to 255 characters"));
        }
        if self
            .body
            .as_ref()
            .is_some_and(|b| b.chars().count() > BODY_MAX)
        {
            return Err(invalid("`body` must have at most 20000 characters"));
        }
        let (existing, values, what) = match self.kind {
            Translated::Page => {
                let page_id = PageId(self.id);
                if !editor.may_edit_page(page_id).await? {
                    return Err(not_found());
                }
                let page = site.page(page_id).await.map_err(site_failed)?;
                if page.translation_of.is_some() {
                    return Err(invalid("translate the page in the default language"));
                }
                let language = language(site, page_id, &self.language).await?;
                let existing = site
                    .translations(page_id)
                    .await
                    .map_err(site_failed)?
                    .into_iter()
                    .find(|t| t.language == language.id && !t.deleted);
                let id = next_page_id(site).await?;
                let values = vec![
                    ("id", json!(id)),
                    ("parent", json!(page.parent)),
                    ("title", json!(title)),
                    ("nav_title", Value::Null),
                    ("slug", json!(page.slug.read(cx))),
                    ("description", json!(self.body)),
                    ("kind", json!(page.kind)),
                    ("hidden", json!(true)),
                    ("deleted", json!(false)),
                    ("language", json!(language.id)),
                    ("translation_of", json!(page.id)),
                    ("sorting", json!(page.sorting)),
                ];
                let existing = existing.map(|t| (t.id.0, to_map(&t)));
                let what = format!(
                    "{} translation of {}",
                    language.title,
                    words::page(site, page_id).await?
                );
                (existing, values, what)
            }
            Translated::Element => {
                let element = match site.element(ElementId(self.id)).await {
                    Ok(element) if editor.may_edit_element(&element).await? => element,
                    _ => return Err(not_found()),
                };
                if element.translation_of.is_some() {
                    return Err(invalid("translate the element in the default language"));
                }
                let language = language(site, element.page, &self.language).await?;
                let existing = site
                    .elements(element.page)
                    .await
                    .map_err(site_failed)?
                    .into_iter()
                    .find(|e| {
                        e.translation_of == Some(element.id)
                            && e.language == language.id
                            && !e.deleted
                    });
                let id = next_element_id(&editor).await?;
                let values = vec![
                    ("id", json!(id)),
                    ("page", json!(element.page)),
                    ("column", json!(element.column)),
                    ("sorting", json!(element.sorting)),
                    ("ctype", json!(element.ctype)),
                    ("header", json!(title)),
                    ("body", json!(self.body.clone().unwrap_or_default())),
                    ("hidden", json!(true)),
                    ("deleted", json!(false)),
                    ("language", json!(language.id)),
                    ("translation_of", json!(element.id)),
                ];
                let existing = existing.map(|e| (e.id.0, to_map(&e)));
                let what = format!(
                    "{} translation of {} on {}",
                    language.title,
                    words::element(&element),
                    words::page(site, element.page).await?
                );
                (existing, values, what)
            }
        };
        // Each field's `replaces` is the existing translation's value, so a
        // person sees what the replaced translation said.
        let changes = values
            .into_iter()
            .map(|(field, new)| Change {
                field: field.to_owned(),
                replaces: existing
                    .as_ref()
                    .and_then(|(_, fields)| fields.get(field).cloned())
                    .unwrap_or(Value::Null),
                new,
            })
            .collect::<Vec<_>>();
        let new_id = &changes[0].new;
        let record = format!("new {what}");
        let summary = match &existing {
            None => format!(
                "Approving creates the {what} as hidden {} {new_id}.",
                self.kind.noun()
            ),
            Some((old, _)) => format!(
                "Approving creates the {what} as hidden {} {new_id} and replaces the existing one, {} {old}, which goes to the recycle bin with its history (recoverable).",
                self.kind.noun(),
                self.kind.noun()
            ),
        };
        Ok(Proposal::new(record, changes, summary))
    }

    async fn apply(proposal: &Proposal, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let CreateTranslationDraft { kind, id, .. } = arguments(proposal)?;
        let approver = Editor::approver(cx).await?;
        let may = match kind {
            Translated::Page => approver.may_edit_page(PageId(id)).await?,
            Translated::Element => match approver.site.element(ElementId(id)).await {
                Ok(element) => approver.may_edit_element(&element).await?,
                Err(_) => false,
            },
        };
        Editor::require(may)?;
        let new_id = change(proposal, "id")
            .and_then(|change| change.new.as_u64())
            .ok_or_else(|| ToolError::failed("the proposal names no new id"))?;
        let target = |id| match kind {
            Translated::Page => Target::Page(PageId(id)),
            Translated::Element => Target::Element(ElementId(id)),
        };
        let mut steps = Vec::new();
        if let Some(old) = change(proposal, "id").and_then(|change| change.replaces.as_u64()) {
            // Expect exactly the translation the proposal showed.
            let expected: Fields = proposal
                .changes
                .iter()
                .filter(|change| change.field != "id")
                .map(|change| (change.field.clone(), change.replaces.clone()))
                .collect();
            steps.push(Step {
                operation: Operation::SoftDelete {
                    target: target(old),
                    expected,
                },
                action: HistoryAction::Deleted,
            });
        }
        let values: Fields = proposal
            .changes
            .iter()
            .filter(|change| change.field != "id")
            .map(|change| (change.field.clone(), change.new.clone()))
            .collect();
        steps.push(Step {
            operation: Operation::Insert {
                target: target(new_id),
                values,
            },
            action: HistoryAction::Created,
        });
        commit(&approver, proposal, cx, steps).await
    }
}

impl Translated {
    fn noun(self) -> &'static str {
        match self {
            Translated::Page => "page",
            Translated::Element => "content element",
        }
    }
}

fn to_map<T: serde::Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// The language of `code` among the translation languages of the site the
/// page belongs to (not its default language).
async fn language(site: &dyn Site, page: PageId, code: &str) -> Result<Language, ToolError> {
    let rootline = site.rootline(page).await.map_err(site_failed)?;
    let root = rootline.last().map(|page| page.id);
    let sites = site.sites().await.map_err(site_failed)?;
    let languages: Vec<Language> = sites
        .into_iter()
        .filter(|s| Some(s.root_page) == root)
        .flat_map(|s| s.languages)
        .filter(|language| language.id.0 != 0)
        .collect();
    if let Some(language) = languages.iter().find(|language| language.code == code) {
        return Ok(language.clone());
    }
    let codes: Vec<&str> = languages.iter().map(|l| l.code.as_str()).collect();
    Err(invalid(if codes.is_empty() {
        "the page's site has no other language to translate into".to_owned()
    } else {
        format!(
            "the page's site has no translation language `{code}`; it has: {}",
            codes.join(", ")
        )
    }))
}

/// The id the next page gets: one above the highest in use.
async fn next_page_id(site: &dyn Site) -> Result<u64, ToolError> {
    let pages = site.pages().await.map_err(site_failed)?;
    Ok(pages.iter().map(|page| page.id.0).max().unwrap_or(0) + 1)
}
