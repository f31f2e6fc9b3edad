//! `create_content_element_draft`: a new, hidden element on a page, of a
//! type the host allows.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use site_model::{ColumnId, ElementId, Fields, HistoryAction, Operation, PageId, Target};
use tool_core::{Change, Proposal, Tool, ToolContext, ToolError, ToolOutput, Write};

use crate::access::{Editor, not_found, site_failed};
use crate::place::{Position, sorting};
use crate::write::{Step, arguments, change, commit};
use crate::{DEFAULT_ELEMENT_TYPES, ElementTypes, invalid, words};

/// The most characters of a header.
const HEADER_MAX: usize = 255;
/// The most characters of a body.
const BODY_MAX: usize = 20_000;

/// Create a new content element on a page as a hidden draft, for an editor
/// to review and publish. Its type must be one the site allows. Nothing is
/// written until a person approves the proposal.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "editing",
    effect = "write",
    data = "internal",
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct CreateContentElementDraft {
    /// The id of the page to put it on.
    page: u64,
    /// The column's number, e.g. 0 for "Main".
    column: u32,
    /// Its type, e.g. `text` or `textpic`.
    ctype: String,
    /// Its header (at most 255 characters).
    header: String,
    /// Its body text (at most 20,000 characters).
    #[serde(default)]
    body: String,
    /// The element to put it after; absent puts it last in the column.
    after: Option<u64>,
}

/// The fields of a new element, in the order a person reads them.
const FIELDS: [&str; 11] = [
    "id",
    "page",
    "column",
    "sorting",
    "ctype",
    "header",
    "body",
    "hidden",
    "deleted",
    "language",
    "translation_of",
];

impl Write for CreateContentElementDraft {
    async fn propose(self, cx: &ToolContext) -> Result<Proposal, ToolError> {
        let editor = Editor::actor(cx).await?;
        let page_id = PageId(self.page);
        if !editor.may_edit_page(page_id).await? {
            return Err(not_found());
        }
        let page = editor.site.page(page_id).await.map_err(site_failed)?;
        let allowed: Vec<&str> = match cx.service::<ElementTypes>() {
            Ok(ElementTypes(types)) => types.iter().map(String::as_str).collect(),
            Err(_) => DEFAULT_ELEMENT_TYPES.to_vec(),
        };
        if !allowed.contains(&self.ctype.as_str()) {
            return Err(invalid(format!(
                "type `{}` is not allowed here; allowed: {}",
                self.ctype,
                allowed.join(", ")
            )));
        }
        if self.header.chars().count() > HEADER_MAX {
            return Err(invalid("`header` must have at most 255 characters"));
        }
        if self.body.chars().count() > BODY_MAX {
            return Err(invalid("`body` must have at most 20000 characters"));
        }
        let column = ColumnId(self.column);
        let Some(column_name) = words::column(&*editor.site, column).await? else {
            return Err(invalid("the page layout has no such column"));
        };
        let position = self
            .after
            .map_or(Position::Last, |id| Position::After(ElementId(id)));
        let (sorting, place) = sorting(
            &*editor.site,
            page_id,
            column,
            page.language,
            None,
            position,
        )
        .await?;
        let id = next_element_id(&editor).await?;
        let values = [
            json!(id),
            json!(page_id),
            json!(column),
            json!(sorting),
            json!(self.ctype),
            json!(self.header),
            json!(self.body),
            json!(true),
            json!(false),
            json!(page.language),
            Value::Null,
        ];
        let changes = FIELDS
            .iter()
            .zip(values)
            .map(|(field, new)| Change {
                field: (*field).into(),
                new,
                replaces: Value::Null,
            })
            .collect();
        let page_words = words::page(&*editor.site, page_id).await?;
        let record = format!("new content element {id} on {page_words}, column {column_name}");
        let summary = format!(
            "Approving creates hidden content element {id} ({}) \"{}\" on {page_words}, column {column_name}, {place}; visitors see nothing until an editor publishes it.",
            self.ctype, self.header
        );
        Ok(Proposal::new(record, changes, summary))
    }

    async fn apply(proposal: &Proposal, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let CreateContentElementDraft { page, .. } = arguments(proposal)?;
        let approver = Editor::approver(cx).await?;
        Editor::require(approver.may_edit_page(PageId(page)).await?)?;
        let step = insert(proposal)?;
        commit(&approver, proposal, cx, vec![step]).await
    }
}

/// The id the next element gets: one above the highest in use.
pub(crate) async fn next_element_id(editor: &Editor) -> Result<u64, ToolError> {
    let pages = editor.site.pages().await.map_err(site_failed)?;
    let mut highest = 0;
    for page in pages {
        let elements = editor.site.elements(page.id).await.map_err(site_failed)?;
        highest = elements.iter().map(|e| e.id.0).fold(highest, u64::max);
    }
    Ok(highest + 1)
}

/// The insert a proposal of a new element describes: its `id` change names
/// the target, the others are its fields.
pub(crate) fn insert(proposal: &Proposal) -> Result<Step, ToolError> {
    let id = change(proposal, "id")
        .and_then(|change| change.new.as_u64())
        .ok_or_else(|| ToolError::failed("the proposal names no new id"))?;
    let values: Fields = proposal
        .changes
        .iter()
        .filter(|change| change.field != "id")
        .map(|change| (change.field.clone(), change.new.clone()))
        .collect();
    Ok(Step {
        operation: Operation::Insert {
            target: Target::Element(ElementId(id)),
            values,
        },
        action: HistoryAction::Created,
    })
}
