//! Who proposes and who approves, as the site knows them: the call's actor
//! and the approver matched to the site's users of the same name.

use std::sync::Arc;

use site_model::{ContentElement, NOT_FOUND, PageId, Permissions, Site, SiteError};
use tool_core::Approver;
use tool_core::{Actor, ToolContext, ToolError};

/// The neutral denial ([`NOT_FOUND`]) as an error.
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
            Some(actor) => {
                let permissions = Permissions::for_actor(&*site, &actor.id, actor.admin)
                    .await
                    .map_err(|_| not_found())?;
                (actor.id.clone(), permissions)
            }
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
