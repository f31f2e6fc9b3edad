//! Signing in with a password, held back against guessing: failures are
//! counted per user name and per client address in the database (every
//! process sees them), each past a threshold holds the next attempt back a
//! growing while, and many lock the name (or the address) for a time. An
//! attempt held back is not checked and counts as a failure. Every failure
//! and every lock is audited; the answer a door gives is the same for a
//! locked name, a wrong password and a name that does not exist.
//!
//! Only the password sign-in is held back: the command line (which acts
//! as the user it names) and bearer tokens never are, so an administrator
//! can always lift a lock (`users unlock`).

use std::net::IpAddr;

use serde::Serialize;

use crate::app::{HostError, Sessions};
use crate::store::{AuditEntry, AuditKind, ThrottleState, now};

/// How one kind of key is held back.
struct Policy {
    /// Failures before the next attempt waits at all.
    delay_after: i64,
    /// Failures that lock the key for [`LOCK_SECONDS`].
    lock_after: i64,
}

/// Per user name: a person mistyping a few times is never held back; a
/// guesser is slowed at once and locked after twenty.
const PER_USER: Policy = Policy {
    delay_after: 5,
    lock_after: 20,
};

/// Per address: several people may share one (an office behind one NAT),
/// so it takes more.
const PER_ADDRESS: Policy = Policy {
    delay_after: 10,
    lock_after: 50,
};

/// How long a lock lasts, from the last failure.
pub const LOCK_SECONDS: i64 = 15 * 60;

/// The longest wait between attempts short of a lock.
const MAX_DELAY_SECONDS: i64 = 60;

/// Failures this old are forgotten (the count starts again).
const QUIET_SECONDS: i64 = 15 * 60;

impl Policy {
    /// `(not_before, locked_until)` after `failures` failures at `now`: a
    /// wait of 1 s, 2 s, 4 s … (at most a minute) past `delay_after`, a
    /// lock from `lock_after` on.
    fn hold(&self, failures: i64, now: i64) -> (i64, i64) {
        if failures >= self.lock_after {
            (now + LOCK_SECONDS, now + LOCK_SECONDS)
        } else if failures >= self.delay_after {
            let doublings = u32::try_from(failures - self.delay_after).unwrap_or(u32::MAX);
            let wait = 1_i64.checked_shl(doublings).unwrap_or(MAX_DELAY_SECONDS);
            (now + wait.min(MAX_DELAY_SECONDS), 0)
        } else {
            (now, 0)
        }
    }
}

/// A user name locked now, for the people page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lock {
    /// The name signed in with (it may be no user's).
    pub name: String,
    /// Failures counted.
    pub failures: i64,
    /// Until when (seconds since the Unix epoch).
    pub until: i64,
}

fn user_key(name: &str) -> String {
    format!("user:{name}")
}

fn address_key(address: IpAddr) -> String {
    format!("address:{address}")
}

impl Sessions<'_> {
    /// The client a sign-in is counted against: the peer's address, or,
    /// when the peer is a trusted proxy (setting `trusted_proxies`), the
    /// nearest address in `forwarded_for` (an `X-Forwarded-For` value)
    /// that is not one of them.
    pub async fn client_address(
        &self,
        peer: Option<IpAddr>,
        forwarded_for: Option<&str>,
    ) -> Result<Option<IpAddr>, HostError> {
        let Some(peer) = peer else { return Ok(None) };
        let proxies = self.host.store().config().trusted_proxies().await?;
        if !proxies.contains(&peer) {
            return Ok(Some(peer));
        }
        let forwarded = forwarded_for
            .unwrap_or_default()
            .rsplit(',')
            .filter_map(|hop| hop.trim().parse::<IpAddr>().ok())
            .find(|hop| !proxies.contains(hop));
        Ok(Some(forwarded.unwrap_or(peer)))
    }

    /// Whether `name` may sign in with `password` from `address` now:
    /// `false` alike for a wrong password, an unknown name, and a name or
    /// address held back or locked (then the password is not checked).
    /// A success forgets the name's failures; a failure is counted for the
    /// name and the address and audited, and so is a lock it causes.
    pub async fn sign_in(
        &self,
        name: &str,
        password: &str,
        address: Option<IpAddr>,
    ) -> Result<bool, HostError> {
        let at = now();
        let keys: Vec<(String, &Policy)> = std::iter::once((user_key(name), &PER_USER))
            .chain(address.map(|a| (address_key(a), &PER_ADDRESS)))
            .collect();
        let mut held_back = None;
        for (key, _) in &keys {
            if let Some(state) = self.host.store().people().throttle(key).await? {
                if state.locked_until > at {
                    held_back = Some("locked");
                } else if state.not_before > at && held_back.is_none() {
                    held_back = Some("too soon after the last failure");
                }
            }
        }
        let failure = match held_back {
            Some(reason) => reason,
            None if self
                .host
                .store()
                .people()
                .verify_password(name, password)
                .await? =>
            {
                self.host
                    .store()
                    .people()
                    .clear_throttle(&user_key(name))
                    .await?;
                return Ok(true);
            }
            None if self.host.store().people().user(name).await?.is_some() => "wrong password",
            None => "no such user",
        };
        let from = address.map_or_else(|| "an unknown address".to_owned(), |a| a.to_string());
        let mut name_failures = 0;
        for (key, policy) in &keys {
            let was_locked = self
                .host
                .store()
                .people()
                .throttle(key)
                .await?
                .is_some_and(|state| state.locked_until > at);
            let state: ThrottleState = self
                .host
                .store()
                .people()
                .count_failure(key, at, QUIET_SECONDS, |n| policy.hold(n, at))
                .await?;
            if name_failures == 0 {
                name_failures = state.failures;
            }
            if state.locked_until > at && !was_locked {
                let mut entry = AuditEntry::new(AuditKind::Write, name, "locked");
                entry.tool = Some("signin".to_owned());
                entry.detail = Some(format!(
                    "{key} locked for {} minutes after {} failed sign-ins",
                    LOCK_SECONDS / 60,
                    state.failures
                ));
                self.host.store().audit_log().audit(&entry).await?;
            }
        }
        let mut entry = AuditEntry::new(AuditKind::Write, name, "refused");
        entry.tool = Some("signin".to_owned());
        entry.detail = Some(format!(
            "{failure}, from {from} (failure {name_failures} for this name)"
        ));
        self.host.store().audit_log().audit(&entry).await?;
        Ok(false)
    }

    /// Lifts the sign-in lock (and any wait) on `name`, as `user`, an
    /// administrator; whether there was anything to lift. Audited.
    pub async fn unlock(&self, user: &str, name: &str) -> Result<bool, HostError> {
        self.access.administrator(user, "unlocking a user").await?;
        let lifted = self
            .host
            .store()
            .people()
            .clear_throttle(&user_key(name))
            .await?;
        let mut entry = AuditEntry::new(AuditKind::Write, user, "ok");
        entry.tool = Some("users unlock".to_owned());
        entry.detail = Some(format!(
            "sign-in of {name} {}",
            if lifted {
                "unlocked"
            } else {
                "was not held back"
            }
        ));
        self.host.store().audit_log().audit(&entry).await?;
        Ok(lifted)
    }

    /// The user names locked now, for `user`, an administrator.
    pub async fn sign_in_locks(&self, user: &str) -> Result<Vec<Lock>, HostError> {
        self.access.require_admin(user, "see sign-in locks").await?;
        Ok(self
            .host
            .store()
            .people()
            .locked("user:", now())
            .await?
            .into_iter()
            .map(|(key, state)| Lock {
                name: key.trim_start_matches("user:").to_owned(),
                failures: state.failures,
                until: state.locked_until,
            })
            .collect())
    }
}
