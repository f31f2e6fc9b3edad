//! The `files` group.
