//! User accounts and groups.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tool_core::Authored;

use crate::{GroupId, PageId, Permissions, SiteError, StorageId, Timestamp, UserId};

/// What a user or a group is granted directly. Administrators need none.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Grants {
    /// Roots of the page subtrees they may see.
    pub show_pages: Vec<PageId>,
    /// Roots of the page subtrees they may edit.
    pub edit_pages: Vec<PageId>,
    /// Tables they may read.
    pub read_tables: Vec<String>,
    /// Tables they may change.
    pub edit_tables: Vec<String>,
    /// Storages they may reach.
    pub storages: Vec<StorageId>,
}

/// A user account.
///
/// `password_hash` and `mfa_secret` are here so a tool can be tested never
/// to show them: they are credentials and no output may contain them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    /// Its id.
    pub id: UserId,
    /// The login name, as the person or an administrator chose it.
    #[serde(with = "tool_core::authored::stored")]
    pub name: Authored<String>,
    /// The person's real name, as they gave it.
    #[serde(with = "tool_core::authored::stored")]
    pub real_name: Authored<String>,
    /// The e-mail address.
    #[serde(with = "tool_core::authored::stored")]
    pub email: Authored<String>,
    /// May do and see everything.
    pub admin: bool,
    /// Cannot log in.
    pub disabled: bool,
    /// The groups they belong to.
    pub groups: Vec<GroupId>,
    /// What they are granted besides their groups.
    pub grants: Grants,
    /// Their last login, if any.
    pub last_login: Option<Timestamp>,
    /// A credential: the password hash.
    pub password_hash: String,
    /// A credential: the second factor's shared secret, if enrolled.
    pub mfa_secret: Option<String>,
}

/// A group of users and what it grants them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// Its id.
    pub id: GroupId,
    /// Its name.
    pub name: String,
    /// What its members are granted.
    pub grants: Grants,
}

/// Reading users and groups, and what they may do.
#[async_trait]
pub trait Accounts: Send + Sync {
    /// Every user, by id.
    async fn users(&self) -> Result<Vec<User>, SiteError>;

    /// One user, or [`SiteError::NotFound`].
    async fn user(&self, id: UserId) -> Result<User, SiteError>;

    /// Every group, by id.
    async fn groups(&self) -> Result<Vec<Group>, SiteError>;

    /// What a user may see and change: everything for an administrator,
    /// otherwise their own grants and those of their groups together.
    /// A disabled user may do nothing.
    async fn permissions(&self, id: UserId) -> Result<Permissions, SiteError> {
        let user = self.user(id).await?;
        let groups = self.groups().await?;
        let theirs: Vec<&Group> = groups
            .iter()
            .filter(|group| user.groups.contains(&group.id))
            .collect();
        Ok(Permissions::for_user(&user, &theirs))
    }
}
