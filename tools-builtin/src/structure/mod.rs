//! The `structure` group.
