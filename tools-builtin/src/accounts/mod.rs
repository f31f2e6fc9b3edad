//! The `accounts` group.
