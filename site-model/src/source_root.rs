//! The folder of source code the code tools may read.

use std::path::Path;

/// Where the site's source code is. Not async: it is a setting, not a read.
pub trait SourceRoot: Send + Sync {
    /// The folder, or `None` when the host offers no source code. A tool
    /// keeps every path it opens inside it (symbolic links included).
    fn source_root(&self) -> Option<&Path>;
}
