//! Accounts, the log and the sites: the read-only concerns with one list
//! each.

use async_trait::async_trait;

use super::MemorySite;
use crate::{
    Accounts, Configuration, Group, LogEntry, LogQuery, Logs, SiteConfig, SiteError, User, UserId,
};

#[async_trait]
impl Accounts for MemorySite {
    async fn users(&self) -> Result<Vec<User>, SiteError> {
        let mut users = self.read().users.clone();
        users.sort_by_key(|user| user.id);
        Ok(users)
    }

    async fn user(&self, id: UserId) -> Result<User, SiteError> {
        self.read()
            .users
            .iter()
            .find(|user| user.id == id)
            .cloned()
            .ok_or_else(|| SiteError::not_found(format!("user {id}")))
    }

    async fn groups(&self) -> Result<Vec<Group>, SiteError> {
        let mut groups = self.read().groups.clone();
        groups.sort_by_key(|group| group.id);
        Ok(groups)
    }
}

#[async_trait]
impl Logs for MemorySite {
    async fn logs(&self, query: &LogQuery) -> Result<Vec<LogEntry>, SiteError> {
        let mut entries: Vec<LogEntry> = self
            .read()
            .logs
            .iter()
            .filter(|entry| {
                query
                    .min_level
                    .is_none_or(|min| entry.level.is_at_least(min))
            })
            .filter(|entry| {
                query
                    .component
                    .as_deref()
                    .is_none_or(|component| entry.component == component)
            })
            .cloned()
            .collect();
        entries.sort_by_key(|entry| std::cmp::Reverse((entry.at, entry.id)));
        entries.truncate(query.limit);
        Ok(entries)
    }
}

#[async_trait]
impl Configuration for MemorySite {
    async fn sites(&self) -> Result<Vec<SiteConfig>, SiteError> {
        let mut sites = self.read().sites.clone();
        sites.sort_by(|a, b| a.identifier.cmp(&b.identifier));
        Ok(sites)
    }

    async fn site(&self, identifier: &str) -> Result<SiteConfig, SiteError> {
        self.read()
            .sites
            .iter()
            .find(|site| site.identifier == identifier)
            .cloned()
            .ok_or_else(|| SiteError::not_found(format!("site {identifier}")))
    }
}
