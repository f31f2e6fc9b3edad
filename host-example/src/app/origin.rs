//! Which browser origins may send a request that acts: every request to
//! `/mcp` and every form the pages post. A browser names the page a
//! request comes from in its `Origin` header; a page of another site (or
//! one that a DNS-rebinding attack points at this server) must not make
//! the browser act here with the user's token or session. The MCP
//! specification asks for a `403` to an invalid `Origin`.
//!
//! The rule, in order:
//! - no `Origin` header: admitted (clients that are not browsers, and a
//!   browser's own same-origin navigation, send none);
//! - `null` or anything that is not an origin: refused (an opaque origin,
//!   a sandboxed frame or a `file:` page, cannot be told apart from an
//!   attacker's);
//! - the server's own origin, the scheme `http` or `https` with the
//!   request's own `Host`: admitted;
//! - an origin the `allowed_origins` setting lists: admitted;
//! - any other: refused.
//!
//! The own origin follows the `Host` header, so this rule alone does not
//! stop DNS rebinding (the attacker's page and `Host` name one host):
//! `/mcp` also accepts only loopback `Host` headers (rmcp's check).

use axum::http::{HeaderMap, header};

use crate::app::{Host, HostError};
use crate::store::WebOrigin;

/// Whether a request may act, by its `Origin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OriginVerdict {
    /// No origin, the server's own, or one the settings allow.
    Admitted,
    /// Any other origin, `null`, or a malformed one.
    Refused,
}

impl Host {
    /// The verdict on a request with `headers`, by its `Origin` and its
    /// `Host`. Reads the settings only for an origin that is not the
    /// server's own.
    pub async fn judge_origin(&self, headers: &HeaderMap) -> Result<OriginVerdict, HostError> {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(OriginVerdict::Admitted);
        };
        // A header that is not text is no origin, and no host.
        let Some(origin) = origin.to_str().ok().and_then(|o| WebOrigin::parse(o).ok()) else {
            return Ok(OriginVerdict::Refused);
        };
        let authority = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let own = ["http", "https"]
            .into_iter()
            .filter_map(|scheme| WebOrigin::from_authority(scheme, authority?))
            .any(|own| own == origin);
        if own {
            return Ok(OriginVerdict::Admitted);
        }
        let settings = self.call_settings().await?;
        Ok(if settings.allowed_origins.contains(&origin) {
            OriginVerdict::Admitted
        } else {
            OriginVerdict::Refused
        })
    }
}
