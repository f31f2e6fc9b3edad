//! What one person may see and change.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::{
    Accounts, ContentElement, Group, Page, PageId, Pages, SiteError, StorageId, TableSchema, User,
};

/// The one text a tool or a host gives for something that does not exist
/// *and* for something the person may not see or change, byte for byte, so
/// a refusal never confirms that something exists.
pub const NOT_FOUND: &str = "not found or not permitted";

/// A set of things a person may reach: all of them, or only some.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope<T: Ord> {
    /// Every one, now and later.
    Everything,
    /// Only these (for pages: these subtree roots). Empty: none.
    Only(BTreeSet<T>),
}

impl<T: Ord> Scope<T> {
    /// Whether `item` is in scope.
    pub fn contains(&self, item: &T) -> bool {
        match self {
            Scope::Everything => true,
            Scope::Only(items) => items.contains(item),
        }
    }

    /// Scope of nothing.
    pub fn nothing() -> Self {
        Scope::Only(BTreeSet::new())
    }
}

/// What one person may see and change, computed by
/// [`Accounts::permissions`](crate::Accounts::permissions).
///
/// Tools offered to people who are not administrators enforce these
/// themselves, so nobody sees through a tool what the host would not show
/// them. For everyone but administrators, deleted pages and elements are out
/// of reach, and sensitive tables are unreadable whatever a grant says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Permissions {
    /// An administrator: everything below is [`Scope::Everything`].
    pub admin: bool,
    /// Roots of the page subtrees they may see.
    pub show_pages: Scope<PageId>,
    /// Roots of the page subtrees they may edit.
    pub edit_pages: Scope<PageId>,
    /// Tables they may read.
    pub read_tables: Scope<String>,
    /// Tables they may change.
    pub edit_tables: Scope<String>,
    /// Storages they may reach.
    pub storages: Scope<StorageId>,
}

impl Permissions {
    /// Everything, for an administrator.
    pub fn administrator() -> Self {
        Permissions {
            admin: true,
            show_pages: Scope::Everything,
            edit_pages: Scope::Everything,
            read_tables: Scope::Everything,
            edit_tables: Scope::Everything,
            storages: Scope::Everything,
        }
    }

    /// Nothing at all, for a disabled or unknown person.
    pub fn nothing() -> Self {
        Permissions {
            admin: false,
            show_pages: Scope::nothing(),
            edit_pages: Scope::nothing(),
            read_tables: Scope::nothing(),
            edit_tables: Scope::nothing(),
            storages: Scope::nothing(),
        }
    }

    /// A user's permissions from their own grants and those of `groups`
    /// (the groups they belong to).
    pub fn for_user(user: &User, groups: &[&Group]) -> Self {
        if user.disabled {
            return Permissions::nothing();
        }
        if user.admin {
            return Permissions::administrator();
        }
        let grants = std::iter::once(&user.grants).chain(groups.iter().map(|group| &group.grants));
        let mut permissions = Permissions::nothing();
        for grant in grants {
            extend(&mut permissions.show_pages, &grant.show_pages);
            extend(&mut permissions.edit_pages, &grant.edit_pages);
            extend(&mut permissions.read_tables, &grant.read_tables);
            extend(&mut permissions.edit_tables, &grant.edit_tables);
            extend(&mut permissions.storages, &grant.storages);
        }
        permissions
    }

    /// What the site lets the person called `name` see and change, `admin`
    /// saying whether the host (not the site) makes them an administrator:
    /// everything for a host administrator; otherwise what the site grants
    /// its user of the same name ([`Accounts::permissions`]), never
    /// administrator rights the host did not give; [`Permissions::nothing`]
    /// for a name the site does not know.
    ///
    /// The one mapping from a host's actor to the site: every tool and every
    /// door of a host asks this, so they cannot disagree about who may do
    /// what.
    pub async fn for_actor<A: Accounts + ?Sized>(
        accounts: &A,
        name: &str,
        admin: bool,
    ) -> Result<Permissions, SiteError> {
        if admin {
            return Ok(Permissions::administrator());
        }
        let users = accounts.users().await?;
        let Some(user) = users.iter().find(|user| user.name == name) else {
            return Ok(Permissions::nothing());
        };
        let mut permissions = accounts.permissions(user.id).await?;
        // The host says this person is not an administrator; the site's
        // flag cannot raise it.
        permissions.admin = false;
        Ok(permissions)
    }

    /// Whether they may see the first page of `rootline` (as
    /// [`Pages::rootline`] returns it: the page, then its ancestors).
    pub fn may_show_rootline(&self, rootline: &[Page]) -> bool {
        may_reach(self.admin, &self.show_pages, rootline)
    }

    /// Whether they may edit the first page of `rootline`.
    pub fn may_edit_rootline(&self, rootline: &[Page]) -> bool {
        may_reach(self.admin, &self.edit_pages, rootline)
    }

    /// Whether they may see a page. A page that does not exist is
    /// [`SiteError::NotFound`], which a tool reports like a refusal.
    pub async fn may_show_page<P: Pages + ?Sized>(
        &self,
        page: PageId,
        pages: &P,
    ) -> Result<bool, SiteError> {
        Ok(self.may_show_rootline(&pages.rootline(page).await?))
    }

    /// Whether they may edit a page.
    pub async fn may_edit_page<P: Pages + ?Sized>(
        &self,
        page: PageId,
        pages: &P,
    ) -> Result<bool, SiteError> {
        Ok(self.may_edit_rootline(&pages.rootline(page).await?))
    }

    /// Whether they may see a content element: its page, and, unless an
    /// administrator, only if it is not deleted.
    pub async fn may_show_element<P: Pages + ?Sized>(
        &self,
        element: &ContentElement,
        pages: &P,
    ) -> Result<bool, SiteError> {
        if element.deleted && !self.admin {
            return Ok(false);
        }
        self.may_show_page(element.page, pages).await
    }

    /// Whether they may edit a content element.
    pub async fn may_edit_element<P: Pages + ?Sized>(
        &self,
        element: &ContentElement,
        pages: &P,
    ) -> Result<bool, SiteError> {
        if element.deleted && !self.admin {
            return Ok(false);
        }
        self.may_edit_page(element.page, pages).await
    }

    /// Whether they may read the records of a table.
    pub fn may_read_table(&self, table: &TableSchema) -> bool {
        self.admin || (!table.sensitive && self.read_tables.contains(&table.name))
    }

    /// Whether they may change the records of a table.
    pub fn may_edit_table(&self, table: &TableSchema) -> bool {
        self.admin || (!table.sensitive && self.edit_tables.contains(&table.name))
    }

    /// Whether they may reach the files of a storage.
    pub fn may_reach_storage(&self, storage: StorageId) -> bool {
        self.admin || self.storages.contains(&storage)
    }
}

fn extend<T: Ord + Clone>(scope: &mut Scope<T>, items: &[T]) {
    if let Scope::Only(set) = scope {
        set.extend(items.iter().cloned());
    }
}

fn may_reach(admin: bool, roots: &Scope<PageId>, rootline: &[Page]) -> bool {
    if admin {
        return true;
    }
    // A page in the recycle bin, or under one, is gone for editors.
    if rootline.is_empty() || rootline.iter().any(|page| page.deleted) {
        return false;
    }
    match roots {
        Scope::Everything => true,
        // A translation is reached through the page it translates.
        Scope::Only(roots) => rootline.iter().any(|page| {
            roots.contains(&page.id) || page.translation_of.is_some_and(|of| roots.contains(&of))
        }),
    }
}
