//! [`Listings`]: each user's `tools/list` pages, built once per grant and
//! reused until the grant changes.
//!
//! A listing is keyed by the grant it was built from, compared by identity
//! ([`Arc::ptr_eq`]): [`McpHost::grant`](crate::McpHost::grant) hands out
//! a new `Arc` whenever the grant may have changed, so a listing built
//! before a change can never match the grant after it. The listing holds
//! its grant, so the address cannot be reused while the comparison
//! depends on it. Whatever made a new grant (a tool or group switched off,
//! a setting changed in another process) makes the next `tools/list`
//! build anew: a stale list would offer a tool the gates now refuse.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{CacheScope, ListToolsResult, Tool};
use tool_core::export::Provider;
use tool_core::gates::Grant;
use tool_core::{Actor, Registry};

/// Why a listing could not be built: a registered tool's MCP form did not
/// read as rmcp's `Tool` (a bug of the export, never the client's doing).
#[derive(Debug, thiserror::Error)]
#[error("tool `{tool}` has no valid MCP form: {error}")]
pub(crate) struct ListingError {
    tool: String,
    error: serde_json::Error,
}

/// The answer to one `tools/list` page.
#[derive(Debug)]
pub(crate) struct Page {
    result: ListToolsResult,
}

impl Page {
    fn new(tools: Vec<Tool>, next_cursor: Option<String>) -> Self {
        let mut result = ListToolsResult::with_all_items(tools)
            // Per user, and changed by any settings change.
            .with_ttl_ms(0)
            .with_cache_scope(CacheScope::Private);
        result.next_cursor = next_cursor;
        Page { result }
    }

    /// The typed result rmcp serializes.
    pub(crate) fn result(&self) -> &ListToolsResult {
        &self.result
    }
}

/// One grant's `tools/list` pages.
#[derive(Debug)]
struct Listing {
    grant: Arc<Grant>,
    names: Vec<Arc<str>>,
    pages: Vec<Arc<Page>>,
}

/// Each user's listing, rebuilt whenever their grant is a new one.
#[derive(Debug)]
pub(crate) struct Listings {
    page_size: usize,
    by_actor: Mutex<HashMap<Actor, Arc<Listing>>>,
}

impl Listings {
    /// Listings of `page_size` tools a page (at least 1).
    pub(crate) fn new(page_size: usize) -> Self {
        Listings {
            page_size: page_size.max(1),
            by_actor: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn page_size(&self) -> usize {
        self.page_size
    }

    /// The page of `grant` that follows `cursor` (the last name of the
    /// previous page; none for the first page). A cursor on a page boundary
    /// of this grant answers from the cache; any other cursor (one from
    /// before a change) gets a page built for it, starting after that name.
    pub(crate) fn page(
        &self,
        registry: &Registry,
        actor: &Actor,
        grant: &Arc<Grant>,
        cursor: Option<&str>,
    ) -> Result<Arc<Page>, ListingError> {
        let listing = self.listing(registry, actor, grant)?;
        let start = match cursor {
            None => 0,
            Some(after) => listing.names.partition_point(|name| &**name <= after),
        };
        if start % self.page_size == 0 {
            let index = start / self.page_size;
            return Ok(match listing.pages.get(index) {
                Some(page) => Arc::clone(page),
                None => Arc::new(Page::new(Vec::new(), None)),
            });
        }
        build_page(registry, &listing.names, start, self.page_size).map(Arc::new)
    }

    fn listing(
        &self,
        registry: &Registry,
        actor: &Actor,
        grant: &Arc<Grant>,
    ) -> Result<Arc<Listing>, ListingError> {
        if let Some(listing) = self.lock().get(actor)
            && Arc::ptr_eq(&listing.grant, grant)
        {
            return Ok(Arc::clone(listing));
        }
        // Built outside the lock: two requests racing build twice, and
        // each answers from the listing of the grant it was given.
        let names: Vec<Arc<str>> = grant
            .tool_names()
            .filter(|name| registry.get(name).is_some())
            .map(Arc::from)
            .collect();
        let pages = (0..names.len())
            .step_by(self.page_size)
            .map(|start| build_page(registry, &names, start, self.page_size).map(Arc::new))
            .collect::<Result<_, _>>()?;
        let listing = Arc::new(Listing {
            grant: Arc::clone(grant),
            names,
            pages,
        });
        self.lock().insert(actor.clone(), Arc::clone(&listing));
        Ok(listing)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Actor, Arc<Listing>>> {
        // Every write under this lock is one insert: a panic elsewhere
        // cannot leave the map half-written.
        self.by_actor.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The page of `names` from `start`: at most `page_size` tools, with the
/// last one's name as the cursor when more follow.
fn build_page(
    registry: &Registry,
    names: &[Arc<str>],
    start: usize,
    page_size: usize,
) -> Result<Page, ListingError> {
    let end = names.len().min(start + page_size);
    let tools = names[start..end]
        .iter()
        .filter_map(|name| registry.get(name))
        .map(|tool| {
            serde_json::from_value::<Tool>(tool.export(Provider::Mcp).clone()).map_err(|error| {
                ListingError {
                    tool: tool.name().to_owned(),
                    error,
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let next_cursor = (end < names.len()).then(|| names[end - 1].to_string());
    Ok(Page::new(tools, next_cursor))
}

/// The tool `name` as listed, if one of its arguments is also sent as a
/// header (`x-mcp-header` on a property, SEP-2243); `None` otherwise, so
/// a call of any other tool is not slowed by a copy of its schema.
pub(crate) fn with_header_parameters(registry: &Registry, name: &str) -> Option<Tool> {
    let exported = registry.get(name)?.export(Provider::Mcp);
    let annotated = exported["inputSchema"]["properties"]
        .as_object()?
        .values()
        .any(|property| property.get("x-mcp-header").is_some());
    if !annotated {
        return None;
    }
    serde_json::from_value(exported.clone()).ok()
}
