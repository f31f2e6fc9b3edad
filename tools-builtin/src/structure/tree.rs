//! The page tree held in memory for one call, so a tool walks it and checks
//! visibility without one site round-trip per page.

use std::collections::HashMap;

use site_model::{LanguageId, Page, PageId, PageKind, Permissions, Site};
use tool_core::ToolError;

use super::readable::site_failed;

/// Every page of the site, indexed.
pub(crate) struct Tree {
    pages: HashMap<PageId, Page>,
    /// Default-language children by parent (`None`: the roots), in sorting order.
    children: HashMap<Option<PageId>, Vec<PageId>>,
    /// Translations by the page they translate and their language.
    translations: HashMap<(PageId, LanguageId), PageId>,
}

impl Tree {
    pub(crate) async fn load(site: &dyn Site) -> Result<Self, ToolError> {
        let all = site.pages().await.map_err(site_failed)?;
        let mut children: HashMap<Option<PageId>, Vec<&Page>> = HashMap::new();
        let mut translations = HashMap::new();
        for page in &all {
            match page.translation_of {
                None => children.entry(page.parent).or_default().push(page),
                Some(of) => {
                    translations.insert((of, page.language), page.id);
                }
            }
        }
        let children = children
            .into_iter()
            .map(|(parent, mut pages)| {
                pages.sort_by_key(|page| (page.sorting, page.id));
                (parent, pages.into_iter().map(|page| page.id).collect())
            })
            .collect();
        let pages = all.into_iter().map(|page| (page.id, page)).collect();
        Ok(Tree {
            pages,
            children,
            translations,
        })
    }

    pub(crate) fn page(&self, id: PageId) -> Option<&Page> {
        self.pages.get(&id)
    }

    /// The default-language pages under `parent` (`None`: the roots).
    pub(crate) fn children(&self, parent: Option<PageId>) -> &[PageId] {
        self.children.get(&parent).map_or(&[], Vec::as_slice)
    }

    /// The translation of `page` into `language`, if it has one.
    pub(crate) fn translation(&self, page: PageId, language: LanguageId) -> Option<&Page> {
        self.translations
            .get(&(page, language))
            .and_then(|id| self.page(*id))
    }

    /// The page and its ancestors, the page first; empty when the page, or
    /// an ancestor, is missing or the tree has a cycle (corrupt data shows
    /// nothing rather than something).
    fn rootline(&self, id: PageId) -> Vec<Page> {
        let mut line: Vec<Page> = Vec::new();
        let mut next = Some(id);
        while let Some(id) = next {
            if line.iter().any(|page| page.id == id) {
                return Vec::new();
            }
            let Some(page) = self.page(id) else {
                return Vec::new();
            };
            next = page.parent;
            line.push(page.clone());
        }
        line
    }

    /// Whether visitors see the page: it and every page above it exist and
    /// are neither hidden nor deleted.
    pub(crate) fn is_published(&self, id: PageId) -> bool {
        let line = self.rootline(id);
        !line.is_empty() && line.iter().all(|page| !page.hidden && !page.deleted)
    }

    /// Whether the page is published and `permissions` may see it.
    pub(crate) fn is_shown(&self, id: PageId, permissions: &Permissions) -> bool {
        let line = self.rootline(id);
        !line.is_empty()
            && line.iter().all(|page| !page.hidden && !page.deleted)
            && permissions.may_show_rootline(&line)
    }
}

/// A page kind as the model reads it.
pub(crate) fn kind_name(kind: PageKind) -> &'static str {
    match kind {
        PageKind::Standard => "standard",
        PageKind::Folder => "folder",
        PageKind::Shortcut => "shortcut",
        PageKind::Link => "link",
        _ => "other",
    }
}
