//! Who is asking, and what they may see: the one place every tool turns the
//! call's actor into the site and that actor's [`Permissions`].

use std::sync::Arc;

use site_model::{NOT_FOUND, Permissions, Site};
use tool_core::{ToolContext, ToolError};

/// The neutral denial as an error: [`NOT_FOUND`], the one text for what
/// does not exist and what the actor may not see.
pub fn not_found() -> ToolError {
    ToolError::failed(NOT_FOUND)
}

/// The site and what the call's actor may see of it.
pub struct Viewer {
    /// The host's site.
    pub site: Arc<dyn Site>,
    /// What the actor may see and change.
    pub permissions: Permissions,
}

impl Viewer {
    /// Whether the actor is an administrator (of the host *and* the site).
    pub fn is_admin(&self) -> bool {
        self.permissions.admin
    }
}

/// The viewer of this call. The host hands the site to every tool as an
/// `Arc<dyn Site>` service; the actor's permissions are the site's mapping
/// ([`Permissions::for_actor`]). Fails closed: no actor, an unknown or
/// disabled user, or a host administrator flag the site does not share all
/// see nothing beyond what [`Permissions::nothing`] allows, and only an
/// actor that is an administrator for the host gets administrator
/// permissions.
pub async fn viewer(cx: &ToolContext) -> Result<Viewer, ToolError> {
    let site = Arc::clone(cx.service::<Arc<dyn Site>>()?);
    let permissions = match cx.actor() {
        None => Permissions::nothing(),
        Some(actor) => Permissions::for_actor(&*site, &actor.id, actor.admin)
            .await
            .map_err(|_| not_found())?,
    };
    Ok(Viewer { site, permissions })
}

/// How many items to return: `requested` (at least 1) when given, else
/// `default`, never more than `max`.
pub fn limit(requested: Option<u32>, default: usize, max: usize) -> usize {
    requested.map_or(default, |n| (n as usize).max(1)).min(max)
}

/// The closing line of a capped list: always the total, so a cut list
/// never reads as complete.
pub fn shown_of(shown: usize, total: usize) -> String {
    if shown < total {
        format!("showing {shown} of {total}; narrow the query to see the rest")
    } else {
        format!("{total} in total")
    }
}
