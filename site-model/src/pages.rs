//! The page tree and the content elements on each page.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tool_core::Authored;

use crate::{ColumnId, ElementId, LanguageId, PageId, SiteError};

/// What a page is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PageKind {
    /// An ordinary page with content.
    Standard,
    /// A container in the tree that is never shown itself.
    Folder,
    /// A shortcut to another page of the site.
    Shortcut,
    /// A link to an address outside the site.
    Link,
}

/// A page. A translation is a page of its own whose `translation_of` names
/// the page in the default language; it has the same parent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// Its id.
    pub id: PageId,
    /// The page above it; `None` for a root.
    pub parent: Option<PageId>,
    /// Its title.
    #[serde(with = "tool_core::authored::stored")]
    pub title: Authored<String>,
    /// A shorter title for menus, when it has one.
    #[serde(with = "tool_core::authored::stored_option")]
    pub nav_title: Option<Authored<String>>,
    /// The last segment of its address, e.g. `team`.
    #[serde(with = "tool_core::authored::stored")]
    pub slug: Authored<String>,
    /// Its meta description, when it has one.
    #[serde(with = "tool_core::authored::stored_option")]
    pub description: Option<Authored<String>>,
    /// What it is for.
    pub kind: PageKind,
    /// Hidden from visitors (editors still see it).
    pub hidden: bool,
    /// In the recycle bin: soft-deleted, still stored.
    pub deleted: bool,
    /// Its language.
    pub language: LanguageId,
    /// For a translation, the default-language page it translates.
    pub translation_of: Option<PageId>,
    /// Its place among its siblings, ascending.
    pub sorting: i64,
}

/// A column of the page layout, e.g. `0` "Main".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    /// Its number.
    pub id: ColumnId,
    /// Its name for people.
    pub name: String,
}

/// A content element: one block of content in a column of a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentElement {
    /// Its id.
    pub id: ElementId,
    /// The page it is on.
    pub page: PageId,
    /// The column it is in.
    pub column: ColumnId,
    /// Its place in the column, ascending.
    pub sorting: i64,
    /// Its type, e.g. `text`, `textpic`, `image`, `html`.
    pub ctype: String,
    /// Its header.
    #[serde(with = "tool_core::authored::stored")]
    pub header: Authored<String>,
    /// Its body text (HTML for rich text).
    #[serde(with = "tool_core::authored::stored")]
    pub body: Authored<String>,
    /// Hidden from visitors.
    pub hidden: bool,
    /// In the recycle bin.
    pub deleted: bool,
    /// Its language.
    pub language: LanguageId,
    /// For a translation, the default-language element it translates.
    pub translation_of: Option<ElementId>,
}

/// Reading the page tree and its content.
///
/// Every method returns deleted and hidden things too: which of them a
/// person may see is for [`Permissions`](crate::Permissions) and the tool.
#[async_trait]
pub trait Pages: Send + Sync {
    /// Every page of every language, by id.
    async fn pages(&self) -> Result<Vec<Page>, SiteError>;

    /// One page, or [`SiteError::NotFound`].
    async fn page(&self, id: PageId) -> Result<Page, SiteError>;

    /// The default-language pages under `parent` (`None`: the roots),
    /// in their `sorting` order.
    async fn children(&self, parent: Option<PageId>) -> Result<Vec<Page>, SiteError>;

    /// The translations of a default-language page, by language.
    async fn translations(&self, page: PageId) -> Result<Vec<Page>, SiteError>;

    /// The columns of the page layout, by id.
    async fn columns(&self) -> Result<Vec<Column>, SiteError>;

    /// The content elements on a page (of every language), by column, then
    /// sorting, then id.
    async fn elements(&self, page: PageId) -> Result<Vec<ContentElement>, SiteError>;

    /// One content element, or [`SiteError::NotFound`].
    async fn element(&self, id: ElementId) -> Result<ContentElement, SiteError>;

    /// The page and its ancestors, the page first and a root last.
    ///
    /// A translation's rootline starts with the translation and continues
    /// through its parent, like the page it translates.
    async fn rootline(&self, id: PageId) -> Result<Vec<Page>, SiteError> {
        let mut line = vec![self.page(id).await?];
        while let Some(parent) = line.last().and_then(|page| page.parent) {
            // A cycle is corrupt data; stopping beats looping forever.
            if line.iter().any(|page| page.id == parent) {
                return Err(SiteError::Storage(format!(
                    "page tree has a cycle at page {parent}"
                )));
            }
            line.push(self.page(parent).await?);
        }
        Ok(line)
    }
}
