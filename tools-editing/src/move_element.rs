//! `move_content_element`: one element to a page, column and position.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use site_model::{ColumnId, ElementId, Fields, HistoryAction, Operation, PageId, Target};
use tool_core::{Change, Proposal, Tool, ToolContext, ToolError, ToolOutput, Write};

use crate::access::{Editor, not_found};
use crate::place::{Position, sorting};
use crate::write::{Step, arguments, commit};
use crate::{invalid, words};

/// Move a content element to a page, a column and a place in it: after a
/// given element, or first. The actor needs edit rights on both pages.
/// Nothing is written until a person approves the proposal.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "editing",
    effect = "write",
    data = "internal",
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct MoveContentElement {
    /// The element's id.
    element: u64,
    /// The id of the page to move it to (may be its own page).
    page: u64,
    /// The column's number, e.g. 0 for "Main".
    column: u32,
    /// The element to put it after; absent puts it first in the column.
    after: Option<u64>,
}

impl Write for MoveContentElement {
    async fn propose(self, cx: &ToolContext) -> Result<Proposal, ToolError> {
        let editor = Editor::actor(cx).await?;
        let element = match editor.site.element(ElementId(self.element)).await {
            Ok(element) if editor.may_edit_element(&element).await? => element,
            _ => return Err(not_found()),
        };
        let page = PageId(self.page);
        if !editor.may_edit_page(page).await? {
            return Err(not_found());
        }
        let column = ColumnId(self.column);
        let Some(column_name) = words::column(&*editor.site, column).await? else {
            return Err(invalid("the page layout has no such column"));
        };
        if self.after == Some(self.element) {
            return Err(invalid("an element cannot go after itself"));
        }
        let position = self
            .after
            .map_or(Position::First, |id| Position::After(ElementId(id)));
        let (sorting, place) = sorting(
            &*editor.site,
            page,
            column,
            element.language,
            Some(element.id),
            position,
        )
        .await?;
        let candidates = [
            ("page", json!(page), json!(element.page)),
            ("column", json!(column), json!(element.column)),
            ("sorting", json!(sorting), json!(element.sorting)),
        ];
        let changes: Vec<Change> = candidates
            .into_iter()
            .filter(|(_, new, old)| new != old)
            .map(|(field, new, replaces)| Change {
                field: field.into(),
                new,
                replaces,
            })
            .collect();
        if changes.is_empty() {
            return Err(invalid("nothing to change: the element is already there"));
        }
        let from_column = words::column(&*editor.site, element.column)
            .await?
            .unwrap_or_else(|| element.column.to_string());
        let summary = format!(
            "Approving moves {} from {}, column {from_column}, to {}, column {column_name}, {place}.",
            words::element(&element),
            words::page(&*editor.site, element.page).await?,
            words::page(&*editor.site, page).await?,
        );
        Ok(Proposal::new(words::element(&element), changes, summary))
    }

    async fn apply(proposal: &Proposal, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let MoveContentElement { element, page, .. } = arguments(proposal)?;
        let approver = Editor::approver(cx).await?;
        let stored = approver.site.element(ElementId(element)).await;
        let may = match &stored {
            Ok(stored) => approver.may_edit_element(stored).await?,
            Err(_) => false,
        };
        Editor::require(may && approver.may_edit_page(PageId(page)).await?)?;
        let (mut expected, mut new) = (Fields::new(), Fields::new());
        for change in &proposal.changes {
            expected.insert(change.field.clone(), change.replaces.clone());
            new.insert(change.field.clone(), change.new.clone());
        }
        let step = Step {
            operation: Operation::Update {
                target: Target::Element(ElementId(element)),
                expected,
                new,
            },
            action: HistoryAction::Moved,
        };
        commit(&approver, proposal, cx, vec![step]).await
    }
}
