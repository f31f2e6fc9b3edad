use async_trait::async_trait;

use super::MemorySite;
use crate::{Column, ContentElement, ElementId, Page, PageId, Pages, SiteError};

#[async_trait]
impl Pages for MemorySite {
    async fn pages(&self) -> Result<Vec<Page>, SiteError> {
        let mut pages = self.read().pages.clone();
        pages.sort_by_key(|page| page.id);
        Ok(pages)
    }

    async fn page(&self, id: PageId) -> Result<Page, SiteError> {
        self.read()
            .pages
            .iter()
            .find(|page| page.id == id)
            .cloned()
            .ok_or_else(|| SiteError::not_found(format!("page {id}")))
    }

    async fn children(&self, parent: Option<PageId>) -> Result<Vec<Page>, SiteError> {
        let mut children: Vec<Page> = self
            .read()
            .pages
            .iter()
            .filter(|page| page.parent == parent && page.translation_of.is_none())
            .cloned()
            .collect();
        children.sort_by_key(|page| (page.sorting, page.id));
        Ok(children)
    }

    async fn translations(&self, page: PageId) -> Result<Vec<Page>, SiteError> {
        let mut translations: Vec<Page> = self
            .read()
            .pages
            .iter()
            .filter(|candidate| candidate.translation_of == Some(page))
            .cloned()
            .collect();
        translations.sort_by_key(|page| (page.language, page.id));
        Ok(translations)
    }

    async fn columns(&self) -> Result<Vec<Column>, SiteError> {
        let mut columns = self.read().columns.clone();
        columns.sort_by_key(|column| column.id);
        Ok(columns)
    }

    async fn elements(&self, page: PageId) -> Result<Vec<ContentElement>, SiteError> {
        let mut elements: Vec<ContentElement> = self
            .read()
            .elements
            .iter()
            .filter(|element| element.page == page)
            .cloned()
            .collect();
        elements.sort_by_key(|element| (element.column, element.sorting, element.id));
        Ok(elements)
    }

    async fn element(&self, id: ElementId) -> Result<ContentElement, SiteError> {
        self.read()
            .elements
            .iter()
            .find(|element| element.id == id)
            .cloned()
            .ok_or_else(|| SiteError::not_found(format!("content element {id}")))
    }
}
