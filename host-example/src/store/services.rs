//! The store's services: its tables grouped by what they keep, each group
//! its own type reached from [`Store`] (`store.people()`,
//! `store.decisions()`, …), so that no type answers for every table.
//!
//! A service borrows the store (its pool, its backend, its audit chain)
//! and owns the methods over its tables. It persists and reads; it decides
//! nothing about who may do what, which is the app layer's.

use super::Store;

/// Declares each service: a view of the store, copied freely.
macro_rules! services {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<'s> {
            pub(in crate::store) store: &'s Store,
        }

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.store.backend()).finish()
            }
        }
    )*};
}

services! {
    /// Runs: their rows, events and notes, suspended runs and their
    /// recovery, batches, the exposures a run recorded, and usage.
    RunLog;
    /// Decisions: proposals and their votes, standing approvals, skill
    /// approvals, and single calls' rows and outcomes.
    Decisions;
    /// People: users and their tokens, browser and MCP sessions, sign-in
    /// throttling, and budgets.
    People;
    /// The host's settings, each read and written whole.
    Config;
    /// The public search index's sources and generations.
    SearchIndex;
    /// Background jobs and their leases, webhooks and their deliveries.
    JobQueue;
    /// The audit trail, its hash chain and its check; the database's
    /// schema and maintenance.
    AuditLog;
}

/// Each service's accessor, written out so that what `Store` offers reads
/// here and `.ci/narrow-types.py` counts it.
impl Store {
    /// [`RunLog`].
    pub fn run_log(&self) -> RunLog<'_> {
        RunLog { store: self }
    }

    /// [`Decisions`].
    pub fn decisions(&self) -> Decisions<'_> {
        Decisions { store: self }
    }

    /// [`People`].
    pub fn people(&self) -> People<'_> {
        People { store: self }
    }

    /// [`Config`].
    pub fn config(&self) -> Config<'_> {
        Config { store: self }
    }

    /// [`SearchIndex`].
    pub fn search_index(&self) -> SearchIndex<'_> {
        SearchIndex { store: self }
    }

    /// [`JobQueue`].
    pub fn job_queue(&self) -> JobQueue<'_> {
        JobQueue { store: self }
    }

    /// [`AuditLog`].
    pub fn audit_log(&self) -> AuditLog<'_> {
        AuditLog { store: self }
    }
}
