//! The source root as a capability: who may open it, and opening one file
//! in it without following any symbolic link.

use cap_std::ambient_authority;
use cap_std::fs::{Dir, MetadataExt};
use tool_core::{ToolContext, ToolError};

use super::rules::{clean_segments, is_unreadable};
use crate::access::{not_found, viewer};

/// The source root of the site, opened as a capability; the neutral
/// denial for anyone but an administrator (the tools are declared
/// `requires_admin`; this holds when a host calls them ungated too).
pub(super) async fn open_root(cx: &ToolContext) -> Result<(Dir, std::path::PathBuf), ToolError> {
    let viewer = viewer(cx).await?;
    if !viewer.is_admin() {
        return Err(not_found());
    }
    let Some(root) = viewer.site.source_root().map(ToOwned::to_owned) else {
        return Err(ToolError::failed("this host offers no source code"));
    };
    let dir = Dir::open_ambient_dir(&root, ambient_authority())
        .map_err(|_| ToolError::failed("the source root cannot be read now"))?;
    Ok((dir, root))
}

/// Opens the regular file at `path` under `dir`. Refused, with the neutral
/// denial, for anything but a clean relative path, an unreadable name
/// ([`is_unreadable`]), a symbolic link anywhere on the way, or anything
/// that is not a regular file.
pub(super) fn open_file(dir: &Dir, path: &str) -> Result<(cap_std::fs::File, u64), ToolError> {
    let segments = clean_segments(path).ok_or_else(not_found)?;
    if is_unreadable(path) {
        return Err(not_found());
    }
    // `Dir` keeps every lookup inside the root; this keeps it off symbolic
    // links inside the root as well (`notes.txt -> .env`, `lib -> .git`).
    let mut checked = None;
    for end in 1..=segments.len() {
        let prefix = segments[..end].join("/");
        let metadata = dir.symlink_metadata(&prefix).map_err(|_| not_found())?;
        let last = end == segments.len();
        let expected = if last {
            metadata.is_file()
        } else {
            metadata.is_dir()
        };
        if metadata.file_type().is_symlink() || !expected {
            return Err(not_found());
        }
        checked = Some(metadata);
    }
    let checked = checked.ok_or_else(not_found)?;
    let file = dir.open(path).map_err(|_| not_found())?;
    let opened = file.metadata().map_err(|_| not_found())?;
    // A link swapped in between the check and the open is a different file.
    if (opened.dev(), opened.ino()) != (checked.dev(), checked.ino()) || !opened.is_file() {
        return Err(not_found());
    }
    Ok((file, opened.len()))
}
