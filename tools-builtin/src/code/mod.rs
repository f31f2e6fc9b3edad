//! The `code` group.
