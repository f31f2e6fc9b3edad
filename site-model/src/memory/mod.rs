//! [`MemorySite`]: the site model held in memory, with real semantics.

mod accounts;
mod apply;
mod files;
mod integrity;
mod pages;
mod records;

use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::{SiteData, SiteError, SourceRoot};

/// A site held in memory, e.g. the demo site for tests and for a host
/// without a database.
///
/// One lock guards the whole state, so a change set's checks and writes are
/// one atomic step: two racing compare-and-sets cannot both succeed.
///
/// ```
/// use site_model::{MemorySite, Pages};
///
/// let site = MemorySite::demo();
/// let roots = futures_executor::block_on(site.children(None)).unwrap();
/// assert_eq!(roots[0].title, "Northwind Bikes");
/// ```
#[derive(Debug)]
pub struct MemorySite {
    state: RwLock<SiteData>,
    source_root: Option<PathBuf>,
}

impl MemorySite {
    /// A site holding `data`, without source code.
    pub fn new(data: SiteData) -> Self {
        MemorySite {
            state: RwLock::new(data),
            source_root: None,
        }
    }

    /// A site read from JSON in the demo file's format.
    pub fn from_json(json: &str) -> Result<Self, SiteError> {
        SiteData::from_json(json)
            .map(MemorySite::new)
            .map_err(|error| SiteError::Storage(format!("site data: {error}")))
    }

    /// The demo site: [`demo::DATA`](crate::demo::DATA) with
    /// [`demo::source_root`](crate::demo::source_root) as its source code.
    pub fn demo() -> Self {
        // The file is part of this crate and tested to parse.
        Self::from_json(crate::demo::DATA)
            .expect("the demo data parses")
            .with_source_root(crate::demo::source_root())
    }

    /// The same site with `root` as the folder of its source code.
    pub fn with_source_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.source_root = Some(root.into());
        self
    }

    /// A copy of everything the site holds.
    pub fn data(&self) -> SiteData {
        self.read().clone()
    }

    /// Everything the site holds as bytes (JSON), equal exactly when the
    /// states are: a test compares two to prove a write changed nothing.
    pub fn snapshot(&self) -> Vec<u8> {
        serde_json::to_vec(&*self.read()).expect("site data serializes")
    }

    // A panic while the lock is held cannot leave the state half-written
    // (writes swap in a finished copy), so a poisoned lock is still sound.
    fn read(&self) -> RwLockReadGuard<'_, SiteData> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, SiteData> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }
}

impl SourceRoot for MemorySite {
    fn source_root(&self) -> Option<&Path> {
        self.source_root.as_deref()
    }
}
