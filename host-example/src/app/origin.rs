//! Which browser origins may send a request that acts: every request to
//! `/mcp` and every form the pages post. A browser names the page a
//! request comes from in its `Origin` header; a page of another site (or
//! one that a DNS-rebinding attack points at this server) must not make
//! the browser act here with the user's token or session. The MCP
//! specification asks for a `403` to an invalid `Origin`.
//!
//! The rule, in order:
//! - a `Host` that names this server by a domain name the host was not
//!   told of: refused. DNS rebinding points a name the attacker owns at
//!   this server, so the attacker's page and its `Host` agree and the
//!   `Origin` rule alone would admit it. Admitted are IP literals (no name
//!   to rebind), `localhost`, and the hosts of the origins
//!   `allowed_origins` lists; a request without `Host` (not a browser's)
//!   is judged by its `Origin` alone;
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
//! `/mcp` also accepts only loopback `Host` headers (rmcp's check); the
//! pages' forms have the first rule.

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
        if let Some(host) = headers.get(header::HOST)
            && !self.host_admitted(host.to_str().ok()).await?
        {
            return Ok(OriginVerdict::Refused);
        }
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

    /// Whether a request whose `Host` is `authority` may act: an IP
    /// literal, `localhost`, or the host of an allowed origin. A header
    /// that is not an authority is refused.
    async fn host_admitted(&self, authority: Option<&str>) -> Result<bool, HostError> {
        let Some(host) = authority
            .and_then(|a| a.parse::<axum::http::uri::Authority>().ok())
            .map(|a| {
                a.host()
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_ascii_lowercase()
            })
        else {
            return Ok(false);
        };
        if host == "localhost" || host.parse::<std::net::IpAddr>().is_ok() {
            return Ok(true);
        }
        let settings = self.call_settings().await?;
        Ok(settings
            .allowed_origins
            .iter()
            .filter_map(|origin| origin.as_str().split_once("://"))
            .any(|(_, authority)| {
                authority
                    .parse::<axum::http::uri::Authority>()
                    .is_ok_and(|a| a.host().eq_ignore_ascii_case(&host))
            }))
    }
}
