//! The `content` group.
