//! The `accounts` group (administrators): users and groups, never a
//! credential.

mod groups;
mod users;

pub use groups::ListGroups;
pub use users::{ListUsers, ListUsersRaw};

use site_model::Grants;

/// Users or groups per call when the model names no `limit`.
const DEFAULT_ENTRIES: usize = 50;
/// Users or groups per call, at most.
const MAX_ENTRIES: usize = 200;

/// What `grants` grant, in one line; `nothing` when empty.
fn summary(grants: &Grants) -> String {
    fn join<T: ToString>(items: &[T]) -> String {
        items
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
    let parts: Vec<String> = [
        ("sees pages", join(&grants.show_pages)),
        ("edits pages", join(&grants.edit_pages)),
        ("reads tables", join(&grants.read_tables)),
        ("edits tables", join(&grants.edit_tables)),
        ("storages", join(&grants.storages)),
    ]
    .into_iter()
    .filter(|(_, items)| !items.is_empty())
    .map(|(what, items)| format!("{what} {items}"))
    .collect();
    if parts.is_empty() {
        "nothing".to_owned()
    } else {
        parts.join("; ")
    }
}
