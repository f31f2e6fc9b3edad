//! Sessions of signed-in browsers, in the database: any host process
//! sharing it knows a browser another process signed in. The browser's
//! cookie carries only a random id (the database keeps its SHA-256); the
//! session's CSRF token and its one-time notice are kept with it.
//!
//! A session ends when it has not been used for the idle lifetime, when
//! the absolute lifetime has passed since sign-in (setting
//! `browser_sessions`, one hour and twelve hours unless set), when its
//! user's password changes or the user is removed, and when it signs out.
//! An expired session is removed when it is next shown, and every expired
//! session whenever a new one begins. A bad, expired or unknown id are
//! the same to a door: no session.

use std::net::IpAddr;

use tool_core::Actor;

use crate::app::{HostError, Sessions};
use crate::store::{SessionLifetimes, StoredBrowserSession, now};

/// A new session's id (for the cookie, never stored) and CSRF token (for
/// the forms).
#[derive(Debug, Clone)]
pub struct NewBrowserSession {
    /// The cookie's value.
    pub id: String,
    /// The token every form of the session carries.
    pub csrf: String,
}

/// A signed-in session, as a page sees it.
#[derive(Debug, Clone)]
pub struct SignedInSession {
    /// Who, as the database knows them now.
    pub user: Actor,
    /// The token every form of the session carries.
    pub csrf: String,
    /// The one-time message left for this page (taken: the next page has
    /// none).
    pub notice: Option<String>,
}

/// How seldom a session's last use is written: at most once a minute (a
/// page view is then a read, not a write), and at most half the idle
/// lifetime, so a session used steadily never lapses.
fn touch_every(lifetimes: SessionLifetimes) -> i64 {
    (lifetimes.idle_seconds / 2).clamp(1, 60)
}

fn expired(session: &StoredBrowserSession, lifetimes: SessionLifetimes, at: i64) -> bool {
    at >= session.last_seen_at.saturating_add(lifetimes.idle_seconds)
        || at
            >= session
                .created_at
                .saturating_add(lifetimes.lifetime_seconds)
}

impl Sessions<'_> {
    /// A session for the sign-in form, signed in as no one: it only
    /// carries the form's CSRF token. Expired sessions are removed first,
    /// so unused ones do not pile up.
    pub async fn begin_signin_session(&self) -> Result<NewBrowserSession, HostError> {
        self.begin_browser_session(None).await
    }

    async fn begin_browser_session(
        &self,
        user: Option<&str>,
    ) -> Result<NewBrowserSession, HostError> {
        let at = now();
        let lifetimes = self.host.store().config().session_lifetimes().await?;
        self.host
            .store()
            .people()
            .remove_browser_sessions_older_than(
                at - lifetimes.idle_seconds,
                at - lifetimes.lifetime_seconds,
            )
            .await?;
        let (id, csrf) = self
            .host
            .store()
            .people()
            .begin_browser_session(user, at)
            .await?;
        Ok(NewBrowserSession { id, csrf })
    }

    /// Signs `name` in with `password` from `address` ([`Sessions::sign_in`](crate::app::Sessions::sign_in),
    /// held back against guessing) and, if the password is right, begins
    /// their session, ending `replacing` (the sign-in form's session) so
    /// an id known before sign-in is worth nothing after. `None` for a
    /// refused sign-in.
    pub async fn sign_in_browser(
        &self,
        name: &str,
        password: &str,
        address: Option<IpAddr>,
        replacing: Option<&str>,
    ) -> Result<Option<NewBrowserSession>, HostError> {
        if !self.sign_in(name, password, address).await? {
            return Ok(None);
        }
        if let Some(old) = replacing {
            self.host.store().people().end_browser_session(old).await?;
        }
        self.begin_browser_session(Some(name)).await.map(Some)
    }

    /// The session `id` names if it is live (signed in or not): removed
    /// and `None` when it has expired, `None` when it is unknown or its
    /// user is gone.
    async fn live_session(
        &self,
        id: &str,
    ) -> Result<Option<(StoredBrowserSession, SessionLifetimes, i64)>, HostError> {
        let Some(session) = self.host.store().people().browser_session(id).await? else {
            return Ok(None);
        };
        let lifetimes = self.host.store().config().session_lifetimes().await?;
        let at = now();
        if expired(&session, lifetimes, at) {
            self.host.store().people().end_browser_session(id).await?;
            return Ok(None);
        }
        Ok(Some((session, lifetimes, at)))
    }

    /// The CSRF token of the live session `id` (signed in or not), which
    /// a form must carry; `None` when there is no such session.
    pub async fn browser_session_csrf(&self, id: &str) -> Result<Option<String>, HostError> {
        Ok(self
            .live_session(id)
            .await?
            .map(|(session, ..)| session.csrf))
    }

    /// The signed-in session `id` names, with its user as the database
    /// knows them now, its last use recorded and its notice taken; `None`
    /// alike for an unknown, expired or signed-out id, the sign-in form's
    /// session, and a user who is gone.
    pub async fn signed_in_session(&self, id: &str) -> Result<Option<SignedInSession>, HostError> {
        let Some((session, lifetimes, at)) = self.live_session(id).await? else {
            return Ok(None);
        };
        let Some(name) = session.user else {
            return Ok(None);
        };
        let Some(user) = self.access.user(&name).await? else {
            self.host.store().people().end_browser_session(id).await?;
            return Ok(None);
        };
        let due = at - session.last_seen_at >= touch_every(lifetimes);
        if due || session.notice.is_some() {
            self.host
                .store()
                .people()
                .touch_browser_session(id, at, session.notice.as_deref())
                .await?;
        }
        Ok(Some(SignedInSession {
            user,
            csrf: session.csrf,
            notice: session.notice,
        }))
    }

    /// Leaves `notice` for the next page of session `id`.
    pub async fn leave_notice(&self, id: &str, notice: &str) -> Result<(), HostError> {
        Ok(self
            .host
            .store()
            .people()
            .set_browser_session_notice(id, notice)
            .await?)
    }

    /// Ends session `id` (signing out).
    pub async fn end_browser_session(&self, id: &str) -> Result<(), HostError> {
        self.host.store().people().end_browser_session(id).await?;
        Ok(())
    }
}
