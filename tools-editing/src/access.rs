//! Who proposes and who approves, as the site knows them: the call's actor
//! and the approver matched to the site's users of the same name.

use std::sync::Arc;

use site_model::{ContentElement, PageId, Permissions, Site, SiteError};
use tool_core::approval::Approver;
use tool_core::{Actor, ToolContext, ToolError};

/// The one text for a record that does not exist *and* for one the actor
/// may not see or edit, byte for byte, so a refusal never confirms that
/// something exists.
pub const NOT_FOUND: &str = "not found or not permitted";

pub(crate) fn not_found() -> ToolError {
    ToolError::failed(NOT_FOUND)
}

/// What an approver without edit rights on the record is told.
const APPROVER_MAY_NOT: &str =
    "the approver may not edit this record, so it cannot be approved by them; nothing was written";

/// The site and what one person may change in it.
pub(crate) struct Editor {
    pub(crate) site: Arc<dyn Site>,
    /// Their name, for the history.
    pub(crate) name: String,
    permissions: Permissions,
}

impl Editor {
    /// The call's actor. Fails closed: no actor, or one the site does not
    /// know, may edit nothing.
    pub(crate) async fn actor(cx: &ToolContext) -> Result<Editor, ToolError> {
        Editor::of(cx, cx.actor()).await
    }

    /// The approver of the proposal being applied ([`Approver`]); a call
    /// without one is not an approval, and writes nothing.
    pub(crate) async fn approver(cx: &ToolContext) -> Result<Editor, ToolError> {
        let Ok(Approver(approver)) = cx.service::<Approver>() else {
            return Err(ToolError::failed(
                "a change is applied only through an approval; nothing was written",
            ));
        };
        Editor::of(cx, Some(approver)).await
    }

    async fn of(cx: &ToolContext, actor: Option<&Actor>) -> Result<Editor, ToolError> {
        let site = Arc::clone(cx.service::<Arc<dyn Site>>()?);
        let (name, permissions) = match actor {
            None => (String::new(), Permissions::nothing()),
            Some(actor) => (actor.id.clone(), permissions(&*site, actor).await?),
        };
        Ok(Editor {
            site,
            name,
            permissions,
        })
    }

    /// Whether they may edit the page; a page that does not exist is `false`.
    pub(crate) async fn may_edit_page(&self, page: PageId) -> Result<bool, ToolError> {
        reachable(self.permissions.may_edit_page(page, &*self.site).await)
    }

    /// Whether they may edit the element (and see it: not deleted).
    pub(crate) async fn may_edit_element(
        &self,
        element: &ContentElement,
    ) -> Result<bool, ToolError> {
        reachable(
            self.permissions
                .may_edit_element(element, &*self.site)
                .await,
        )
    }

    /// Whether they may change the files of a storage.
    pub(crate) fn may_edit_storage(&self, storage: site_model::StorageId) -> bool {
        self.permissions.may_reach_storage(storage)
    }

    /// For an approver: refuses unless `allowed`.
    pub(crate) fn require(allowed: bool) -> Result<(), ToolError> {
        if allowed {
            Ok(())
        } else {
            Err(ToolError::failed(APPROVER_MAY_NOT))
        }
    }
}

/// A person's permissions: a host administrator has all; anyone else what
/// the site grants the user of the same name, never administrator rights
/// the host did not give; an unknown user nothing.
async fn permissions(site: &dyn Site, actor: &Actor) -> Result<Permissions, ToolError> {
    if actor.admin {
        return Ok(Permissions::administrator());
    }
    let users = site.users().await.map_err(|_| not_found())?;
    let Some(user) = users.iter().find(|user| user.name == actor.id) else {
        return Ok(Permissions::nothing());
    };
    let mut permissions = site.permissions(user.id).await.map_err(|_| not_found())?;
    permissions.admin = false;
    Ok(permissions)
}

fn reachable(answer: Result<bool, SiteError>) -> Result<bool, ToolError> {
    match answer {
        Ok(allowed) => Ok(allowed),
        Err(SiteError::NotFound { .. }) => Ok(false),
        Err(error) => Err(site_failed(error)),
    }
}

/// A failure of the site's store, told without its detail.
pub(crate) fn site_failed(error: SiteError) -> ToolError {
    match error {
        SiteError::NotFound { .. } => not_found(),
        _ => ToolError::failed("the site could not be read; nothing was written"),
    }
}
