//! Who is signed in, as a page sees them (made from the session by
//! `session.rs`).

/// A signed-in user, as the host's database knows them now (a user made
/// or unmade administrator sees the change on their next page).
#[derive(Debug, Clone)]
pub(crate) struct SignedIn {
    pub name: String,
    pub admin: bool,
    pub csrf: String,
    pub session: String,
    /// The one-time message left for this page.
    pub notice: Option<String>,
}

impl SignedIn {
    pub(crate) fn actor(&self) -> tool_core::Actor {
        tool_core::Actor {
            id: self.name.clone(),
            admin: self.admin,
        }
    }
}
