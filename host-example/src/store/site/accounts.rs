//! Accounts, the log and the sites: the read-only concerns.

use site_model::{
    Accounts, Configuration, Group, LogEntry, LogQuery, Logs, SiteConfig, SiteError, User, UserId,
    async_trait,
};

use super::SqlSite;
use super::rows::{db_id, level_rank};

#[async_trait]
impl Accounts for SqlSite {
    async fn users(&self) -> Result<Vec<User>, SiteError> {
        self.all(sqlx::query("SELECT data FROM site_users ORDER BY id"))
            .await
    }

    async fn user(&self, id: UserId) -> Result<User, SiteError> {
        let query = sqlx::query("SELECT data FROM site_users WHERE id = $1").bind(db_id(id.0));
        self.one(query, || format!("user {id}")).await
    }

    async fn groups(&self) -> Result<Vec<Group>, SiteError> {
        self.all(sqlx::query("SELECT data FROM site_groups ORDER BY id"))
            .await
    }
}

#[async_trait]
impl Logs for SqlSite {
    async fn logs(&self, query: &LogQuery) -> Result<Vec<LogEntry>, SiteError> {
        let mut sql = String::from("SELECT data FROM site_logs WHERE 1 = 1");
        let mut next = 1;
        if query.min_level.is_some() {
            sql.push_str(&format!(" AND level_rank <= ${next}"));
            next += 1;
        }
        if query.component.is_some() {
            sql.push_str(&format!(" AND component = ${next}"));
            next += 1;
        }
        sql.push_str(&format!(" ORDER BY at DESC, id DESC LIMIT ${next}"));
        let mut select = sqlx::query(&sql);
        if let Some(min) = query.min_level {
            select = select.bind(level_rank(min));
        }
        if let Some(component) = &query.component {
            select = select.bind(component.as_str());
        }
        let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
        self.all(select.bind(limit)).await
    }
}

#[async_trait]
impl Configuration for SqlSite {
    async fn sites(&self) -> Result<Vec<SiteConfig>, SiteError> {
        let mut sites: Vec<SiteConfig> =
            self.all(sqlx::query("SELECT data FROM site_sites")).await?;
        sites.sort_by(|a, b| a.identifier.cmp(&b.identifier));
        Ok(sites)
    }

    async fn site(&self, identifier: &str) -> Result<SiteConfig, SiteError> {
        let query =
            sqlx::query("SELECT data FROM site_sites WHERE identifier = $1").bind(identifier);
        self.one(query, || format!("site {identifier}")).await
    }
}
