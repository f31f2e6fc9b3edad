//! The site's content as one person may see it: the page tree, one page
//! with its elements, the files of the storages they reach. The same rule
//! the tools apply ([`Runs::site_permissions`](crate::app::Runs::site_permissions)); a page they may not see is
//! answered as one that does not exist.

use site_model::{Column, ContentElement, File, FileQuery, Files, Page, PageId, Pages, SiteError};
use tool_core::Actor;

use crate::app::Runs;

/// The most files listed per storage.
const FILES_PER_STORAGE: usize = 500;

impl Runs<'_> {
    /// Every page `actor` may see, not deleted.
    pub async fn visible_pages(&self, actor: &Actor) -> Result<Vec<Page>, SiteError> {
        let site = self.host.store().site();
        let permissions = self.site_permissions(actor).await?;
        let mut shown = Vec::new();
        for page in site.pages().await? {
            if !page.deleted && permissions.may_show_page(page.id, &site).await? {
                shown.push(page);
            }
        }
        Ok(shown)
    }

    /// Page `id` with the site's columns and the page's elements, if
    /// `actor` may see it; [`SiteError::NotFound`] alike for a page that
    /// does not exist and one they may not see.
    pub async fn visible_page(
        &self,
        actor: &Actor,
        id: PageId,
    ) -> Result<(Page, Vec<Column>, Vec<ContentElement>), SiteError> {
        let site = self.host.store().site();
        let permissions = self.site_permissions(actor).await?;
        if !permissions.may_show_page(id, &site).await? {
            return Err(SiteError::not_found(format!("page {id}")));
        }
        let page = site.page(id).await?;
        let columns = site.columns().await?;
        let elements = site.elements(id).await?;
        Ok((page, columns, elements))
    }

    /// The files of every storage `actor` reaches, by storage name.
    pub async fn visible_files(
        &self,
        actor: &Actor,
    ) -> Result<Vec<(String, Vec<File>)>, SiteError> {
        let site = self.host.store().site();
        let permissions = self.site_permissions(actor).await?;
        let mut files = Vec::new();
        for storage in site.storages().await? {
            if permissions.may_reach_storage(storage.id) {
                let query = FileQuery {
                    storage: Some(storage.id),
                    text: String::new(),
                    limit: FILES_PER_STORAGE,
                };
                files.push((storage.name.clone(), site.search_files(&query).await?));
            }
        }
        Ok(files)
    }
}
