//! Everything a tool may ask of a host, as one trait object.

use crate::{Accounts, Changes, Configuration, Files, Logs, Pages, Records, SourceRoot};

/// The whole site: what a host hands every tool, as one `Arc<dyn Site>`.
///
/// A host implements the concern traits on its store; this trait then comes
/// for free.
pub trait Site:
    Pages + Records + Files + Accounts + Logs + Configuration + SourceRoot + Changes
{
}

impl<T> Site for T where
    T: Pages + Records + Files + Accounts + Logs + Configuration + SourceRoot + Changes + ?Sized
{
}
