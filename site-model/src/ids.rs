//! Typed ids, so a page id cannot be passed where a file id is meant.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident($inner:ty)) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub $inner);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id!(
    /// A page (of any language).
    PageId(u64)
);
id!(
    /// A content element.
    ElementId(u64)
);
id!(
    /// A column of a page layout (`0` is the main column).
    ColumnId(u32)
);
id!(
    /// A language of a site (`0` is the default language).
    LanguageId(u32)
);
id!(
    /// A file storage.
    StorageId(u32)
);
id!(
    /// A file.
    FileId(u64)
);
id!(
    /// A user account.
    UserId(u64)
);
id!(
    /// A group of users.
    GroupId(u64)
);
id!(
    /// A log entry.
    LogId(u64)
);
