//! The host's services: each concern of the app layer as its own type,
//! reached from [`Host`] (`host.runs()`, `host.approvals()`, …), so that
//! no type answers for everything and a door names the concern it asks.
//!
//! A service borrows the host's shared core (its store, registry, site and
//! settings) and owns its methods. Where one service needs another, the
//! other is passed in: it is a field of the service, set by the accessor
//! (`self.access.require_admin(…)`), so what a service stands on reads in
//! its declaration and the services form one order, lowest first. No
//! service reaches another through the host (`.ci/narrow-types.py` fails
//! on `self.host.runs()` and the like), and that script keeps every type
//! at most 40 public methods, extended in at most 6 files.

use super::Host;

/// Declares each service: a view of the host, copied freely, holding the
/// services it stands on. They are held by value, so a circle between two
/// services is a type that contains itself, which the compiler refuses
/// (E0072): the order below is the only one the services can have.
macro_rules! services {
    ($($(#[$doc:meta])* $name:ident { $($dep:ident: $Dep:ident),* };)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<'h> {
            pub(in crate::app) host: &'h Host,
            $(pub(in crate::app) $dep: $Dep<'h>,)*
        }

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_tuple(stringify!($name)).field(self.host).finish()
            }
        }
    )*};
}

services! {
    /// Who is asking and what they may: a user by name or bearer token,
    /// the administrator checks, the settings as they are now and the
    /// grant they give each identity, a caller's exposure raised by an
    /// applied call. It stands on no other service.
    Access {};
    /// An administrator's concerns: settings, users and tokens, budgets,
    /// the audit trail and its check, the overview, the database's
    /// maintenance.
    Admin { access: Access };
    /// Background jobs and webhooks: enqueueing, claiming and running
    /// jobs, recovering abandoned runs, webhooks and their deliveries.
    Jobs { access: Access, admin: Admin };
    /// Runs: starting one (and a dry run), listing and showing them; a
    /// run's set-up (its model, secrets and tool context) and a model
    /// configuration's test; actions on records and batches of them; what
    /// one person may see of the site.
    Runs { access: Access, admin: Admin, jobs: Jobs };
    /// Proposals: listing, showing, approving, rejecting and withdrawing
    /// them, the approver's inbox, standing approvals, expiry, and the
    /// approval policies per tool and group.
    Approvals { access: Access, admin: Admin, jobs: Jobs, runs: Runs };
    /// A single gated call (MCP): the call, its task and its verdicts.
    Calls { access: Access, jobs: Jobs, runs: Runs, approvals: Approvals };
    /// Who is signed in: password sign-in and its locks, browser sessions,
    /// MCP sessions, and which origins may send a request that acts.
    Sessions { access: Access };
    /// Skills: their states and approvals, the check of skill files, and
    /// the skills a user may have as prompts.
    Skills { access: Access };
}

/// Each service's accessor, written out (not generated) so that what
/// `Host` offers reads here and `.ci/narrow-types.py` counts it. Each
/// passes in the services the one it builds stands on.
impl Host {
    /// [`Access`].
    pub fn access(&self) -> Access<'_> {
        Access { host: self }
    }

    /// [`Admin`].
    pub fn admin(&self) -> Admin<'_> {
        Admin {
            host: self,
            access: self.access(),
        }
    }

    /// [`Jobs`].
    pub fn jobs(&self) -> Jobs<'_> {
        Jobs {
            host: self,
            access: self.access(),
            admin: self.admin(),
        }
    }

    /// [`Runs`].
    pub fn runs(&self) -> Runs<'_> {
        Runs {
            host: self,
            access: self.access(),
            admin: self.admin(),
            jobs: self.jobs(),
        }
    }

    /// [`Approvals`].
    pub fn approvals(&self) -> Approvals<'_> {
        Approvals {
            host: self,
            access: self.access(),
            admin: self.admin(),
            jobs: self.jobs(),
            runs: self.runs(),
        }
    }

    /// [`Calls`].
    pub fn calls(&self) -> Calls<'_> {
        Calls {
            host: self,
            access: self.access(),
            jobs: self.jobs(),
            runs: self.runs(),
            approvals: self.approvals(),
        }
    }

    /// [`Sessions`].
    pub fn sessions(&self) -> Sessions<'_> {
        Sessions {
            host: self,
            access: self.access(),
        }
    }

    /// [`Skills`].
    pub fn skills(&self) -> Skills<'_> {
        Skills {
            host: self,
            access: self.access(),
        }
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
    async fn every_process_on_one_database_seals_mcp_request_state_alike() {
        let (folder, one) = host().await;
        let url = format!(
            "sqlite://{}?mode=rwc",
            folder.path().join("host.db").display()
        );
        let other = Host::open(&url).await.unwrap();
        let key = one.request_state_key();
        assert!(key.is_some());
        assert_eq!(key, other.request_state_key());
        let (_elsewhere, third) = host().await;
        assert_ne!(key, third.request_state_key());
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
    async fn access_an_editor_is_refused_in_the_apps_words_and_an_administrator_is_not() {
        let (_folder, host) = host().await;
        let access = host.access();
        assert!(access.require_admin("admin", "the user list").await.is_ok());
        let refused = access
            .require_admin("petra", "the user list")
            .await
            .unwrap_err();
        let words = refused.to_string();
        assert!(
            words.starts_with("the user list needs an administrator, and `petra` is not one"),
            "{words}"
        );
        // The reads that name their viewer refuse the same way.
        let users = host.admin().users("petra").await.unwrap_err();
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
