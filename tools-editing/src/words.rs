//! Records in words a person recognises: a page's title and path, a
//! column's name, an element's header. These words are for the person who
//! approves (a proposal's `record` and `summary`), never shown to a model
//! (docs/exposure.md), so they quote titles with `for_host`; what a model
//! reads names records by id ([`target`]).

use site_model::{ColumnId, ContentElement, Page, PageId, Site, Target};
use tool_core::ToolError;

use crate::access::site_failed;

/// `page 25 "Team" (/about/team)`.
pub(crate) async fn page(site: &dyn Site, id: PageId) -> Result<String, ToolError> {
    let line = site.rootline(id).await.map_err(site_failed)?;
    Ok(format!(
        "page {id} \"{}\" ({})",
        line[0].title.for_host(),
        path(&line)
    ))
}

/// The page's address path from its rootline (the page first): the slugs
/// below the root, e.g. `/about/team`.
fn path(rootline: &[Page]) -> String {
    let slugs: Vec<&str> = rootline
        .iter()
        .rev()
        .map(|page| page.slug.for_host().as_str())
        .filter(|slug| !slug.is_empty())
        .collect();
    format!("/{}", slugs.join("/"))
}

/// `content element 8 "Our bikes"`.
pub(crate) fn element(element: &ContentElement) -> String {
    format!(
        "content element {} \"{}\"",
        element.id,
        element.header.for_host()
    )
}

/// A column's name, e.g. `Main`; `None` for a column the layout lacks.
pub(crate) async fn column(site: &dyn Site, id: ColumnId) -> Result<Option<String>, ToolError> {
    let columns = site.columns().await.map_err(site_failed)?;
    Ok(columns
        .into_iter()
        .find(|column| column.id == id)
        .map(|column| column.name))
}

/// A written record by its id alone, e.g. `page 21`: nothing a person wrote.
pub(crate) fn target(target: &Target) -> String {
    match target {
        Target::Page(id) => format!("page {id}"),
        Target::Element(id) => format!("content element {id}"),
        Target::File(id) => format!("file {id}"),
        Target::Record { table, id } => format!("record {id} of `{table}`"),
    }
}
