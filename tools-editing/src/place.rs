//! Where an element goes in a column: after a given element, first, or
//! last; as a `sorting` value between its neighbours.

use site_model::{ColumnId, ContentElement, ElementId, LanguageId, PageId, Site};
use tool_core::ToolError;

use crate::access::site_failed;
use crate::{invalid, words};

/// The gap left between neighbours at the ends of a column.
const STEP: i64 = 256;

/// Where to put an element in a column.
pub(crate) enum Position {
    /// Directly after this element of the column.
    After(ElementId),
    /// Before every element of the column.
    First,
    /// After every element of the column.
    Last,
}

/// The `sorting` for `position` in the column of `page` (elements of
/// `language`, not deleted, `moving` left out), and the position in words.
pub(crate) async fn sorting(
    site: &dyn Site,
    page: PageId,
    column: ColumnId,
    language: LanguageId,
    moving: Option<ElementId>,
    position: Position,
) -> Result<(i64, String), ToolError> {
    let neighbours: Vec<ContentElement> = site
        .elements(page)
        .await
        .map_err(site_failed)?
        .into_iter()
        .filter(|e| {
            e.column == column && e.language == language && !e.deleted && Some(e.id) != moving
        })
        .collect();
    match position {
        Position::First => Ok((
            neighbours
                .first()
                .map_or(STEP, |first| first.sorting - STEP),
            "first in the column".to_owned(),
        )),
        Position::Last => Ok((
            neighbours.last().map_or(STEP, |last| last.sorting + STEP),
            "last in the column".to_owned(),
        )),
        Position::After(id) => {
            let Some(at) = neighbours.iter().position(|e| e.id == id) else {
                return Err(invalid(
                    "`after` must name another element in the target column of the target page",
                ));
            };
            let previous = &neighbours[at];
            let sorting = match neighbours.get(at + 1) {
                None => previous.sorting + STEP,
                Some(next) if next.sorting - previous.sorting >= 2 => {
                    previous.sorting + (next.sorting - previous.sorting) / 2
                }
                Some(_) => {
                    return Err(invalid(
                        "there is no room after that element: its column needs re-sorting first",
                    ));
                }
            };
            Ok((sorting, format!("after {}", words::element(previous))))
        }
    }
}
