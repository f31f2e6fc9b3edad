//! The `configuration` group.
