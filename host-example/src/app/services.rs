//! The host's services: each concern of the app layer as its own type,
//! reached from [`Host`] (`host.runs()`, `host.approvals()`, …), so that
//! no type answers for everything and a door names the concern it asks.
//!
//! A service borrows the host's shared core (its store, registry, site and
//! settings) and owns its methods. Where one service needs another, it
//! asks for it by name (`self.host.admin().require_admin(…)`), never
//! through a method of its own: the calls between concerns are visible at
//! the call, and `.ci/narrow-types.py` keeps every type at most 40 public
//! methods, extended in at most 6 files.

use super::Host;

/// Declares each service: a view of the host, copied freely.
macro_rules! services {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<'h> {
            pub(in crate::app) host: &'h Host,
        }

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_tuple(stringify!($name)).field(self.host).finish()
            }
        }
    )*};
}

services! {
    /// Runs: starting one (and a dry run), listing and showing them; a
    /// run's set-up (its model, secrets and tool context); actions on
    /// records and batches of them; what one person may see of the site.
    Runs;
    /// Proposals: listing, showing, approving, rejecting and withdrawing
    /// them, the approver's inbox, standing approvals, expiry, and the
    /// approval policies per tool and group.
    Approvals;
    /// An administrator's concerns: settings, users and tokens, budgets,
    /// the audit trail and its check, the overview, the database's
    /// maintenance.
    Admin;
    /// Who is asking: password sign-in and its locks, browser sessions,
    /// MCP sessions, and which origins may send a request that acts.
    Sessions;
    /// A single gated call (MCP): a caller's identity and grant, the call,
    /// its task and its verdicts.
    Calls;
    /// Skills: their states and approvals, the check of skill files, and
    /// the skills a user may have as prompts.
    Skills;
    /// Background jobs and webhooks: enqueueing, claiming and running
    /// jobs, recovering abandoned runs, webhooks and their deliveries.
    Jobs;
}

/// Each service's accessor, written out (not generated) so that what
/// `Host` offers reads here and `.ci/narrow-types.py` counts it.
impl Host {
    /// [`Runs`].
    pub fn runs(&self) -> Runs<'_> {
        Runs { host: self }
    }

    /// [`Approvals`].
    pub fn approvals(&self) -> Approvals<'_> {
        Approvals { host: self }
    }

    /// [`Admin`].
    pub fn admin(&self) -> Admin<'_> {
        Admin { host: self }
    }

    /// [`Sessions`].
    pub fn sessions(&self) -> Sessions<'_> {
        Sessions { host: self }
    }

    /// [`Calls`].
    pub fn calls(&self) -> Calls<'_> {
        Calls { host: self }
    }

    /// [`Skills`].
    pub fn skills(&self) -> Skills<'_> {
        Skills { host: self }
    }

    /// [`Jobs`].
    pub fn jobs(&self) -> Jobs<'_> {
        Jobs { host: self }
    }
}

/// The rules each service holds, checked on a real database (a temporary
/// SQLite file, migrated and seeded with the demo users as on first use).
#[cfg(test)]
mod tests {
    use tool_core::RunId;

    use crate::app::{Host, HostError};

    async fn host() -> (tempfile::TempDir, Host) {
        let folder = tempfile::tempdir().unwrap();
        let url = format!(
            "sqlite://{}?mode=rwc",
            folder.path().join("host.db").display()
        );
        let host = Host::open(&url).await.unwrap();
        (folder, host)
    }

    #[tokio::test]
    async fn runs_a_run_nobody_stored_is_unknown() {
        let (_folder, host) = host().await;
        let unknown = host.runs().stored(&RunId("run-none".into())).await;
        assert!(
            matches!(&unknown, Err(HostError::UnknownRun(id)) if id == "run-none"),
            "{unknown:?}"
        );
        // Seen through the viewer's rule, an administrator's run and a
        // missing one read alike to an editor.
        let shown = host.runs().run_detail("petra", "run-none").await;
        assert!(matches!(shown, Err(HostError::UnknownRun(_))), "{shown:?}");
    }

    #[tokio::test]
    async fn admin_an_editor_is_refused_in_the_apps_words_and_an_administrator_is_not() {
        let (_folder, host) = host().await;
        let admin = host.admin();
        assert!(admin.require_admin("admin", "the user list").await.is_ok());
        let refused = admin
            .require_admin("petra", "the user list")
            .await
            .unwrap_err();
        let words = refused.to_string();
        assert!(
            words.starts_with("the user list needs an administrator, and `petra` is not one"),
            "{words}"
        );
        // The reads that name their viewer refuse the same way.
        let users = admin.users("petra").await.unwrap_err();
        assert_eq!(users.to_string(), refused.to_string());
    }

    #[tokio::test]
    async fn admin_the_last_administrator_stays_one() {
        let (_folder, host) = host().await;
        let admin = host.admin();
        for user in admin.users("admin").await.unwrap() {
            if user.admin && user.name != "admin" {
                admin.set_admin("admin", &user.name, false).await.unwrap();
            }
        }
        let refused = admin.set_admin("admin", "admin", false).await;
        let words = refused.unwrap_err().to_string();
        assert!(words.contains("last administrator"), "{words}");
    }
}
