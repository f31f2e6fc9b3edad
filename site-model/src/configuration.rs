//! The sites a host serves and their settings.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{LanguageId, PageId, SiteError};

/// A language a site is offered in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Language {
    /// Its id; `0` is the default language.
    pub id: LanguageId,
    /// Its code, e.g. `en` or `de`.
    pub code: String,
    /// Its name for people.
    pub title: String,
}

/// One site: an entry point into the page tree with its own address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SiteConfig {
    /// Its identifier, e.g. `main`.
    pub identifier: String,
    /// Its base address, e.g. `https://www.example.com/`.
    pub base_url: String,
    /// The root of its page tree.
    pub root_page: PageId,
    /// Its languages, the default first.
    pub languages: Vec<Language>,
    /// Nested settings; some values are secrets (passwords, API keys,
    /// connection strings), so a tool redacts before it shows any.
    pub settings: Value,
}

/// Reading the sites.
#[async_trait]
pub trait Configuration: Send + Sync {
    /// Every site, by identifier.
    async fn sites(&self) -> Result<Vec<SiteConfig>, SiteError>;

    /// One site, or [`SiteError::NotFound`].
    async fn site(&self, identifier: &str) -> Result<SiteConfig, SiteError>;
}
