use site_model::{Column, ContentElement, ElementId, Page, PageId, Pages, SiteError, async_trait};

use super::SqlSite;
use super::rows::db_id;

#[async_trait]
impl Pages for SqlSite {
    async fn pages(&self) -> Result<Vec<Page>, SiteError> {
        self.all(sqlx::query("SELECT data FROM site_pages ORDER BY id"))
            .await
    }

    async fn page(&self, id: PageId) -> Result<Page, SiteError> {
        let query = sqlx::query("SELECT data FROM site_pages WHERE id = $1").bind(db_id(id.0));
        self.one(query, || format!("page {id}")).await
    }

    async fn children(&self, parent: Option<PageId>) -> Result<Vec<Page>, SiteError> {
        let query = match parent {
            None => sqlx::query(
                "SELECT data FROM site_pages WHERE parent IS NULL AND translation_of IS NULL
                 ORDER BY sorting, id",
            ),
            Some(parent) => sqlx::query(
                "SELECT data FROM site_pages WHERE parent = $1 AND translation_of IS NULL
                 ORDER BY sorting, id",
            )
            .bind(db_id(parent.0)),
        };
        self.all(query).await
    }

    async fn translations(&self, page: PageId) -> Result<Vec<Page>, SiteError> {
        let query = sqlx::query(
            "SELECT data FROM site_pages WHERE translation_of = $1 ORDER BY language, id",
        )
        .bind(db_id(page.0));
        self.all(query).await
    }

    async fn columns(&self) -> Result<Vec<Column>, SiteError> {
        self.all(sqlx::query("SELECT data FROM site_columns ORDER BY id"))
            .await
    }

    async fn elements(&self, page: PageId) -> Result<Vec<ContentElement>, SiteError> {
        let query =
            sqlx::query("SELECT data FROM site_elements WHERE page = $1 ORDER BY col, sorting, id")
                .bind(db_id(page.0));
        self.all(query).await
    }

    async fn element(&self, id: ElementId) -> Result<ContentElement, SiteError> {
        let query = sqlx::query("SELECT data FROM site_elements WHERE id = $1").bind(db_id(id.0));
        self.one(query, || format!("content element {id}")).await
    }
}
