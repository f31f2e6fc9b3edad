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

pub use tool_mcp::{OriginVerdict, RequestOrigin};

use crate::app::{HostError, Sessions};
use crate::store::WebOrigin;

/// A header's value as text: visible ASCII (and tabs), as HTTP allows;
/// `None` for anything else, which is no host and no origin.
fn text(value: &[u8]) -> Option<&str> {
    let visible = |b: &u8| *b == b'\t' || (0x20..0x7f).contains(b);
    // Visible ASCII is UTF-8, so the conversion cannot fail once checked.
    std::str::from_utf8(value)
        .ok()
        .filter(|_| value.iter().all(visible))
}

impl Sessions<'_> {
    /// The verdict on a request with these headers, by its `Origin` and its
    /// `Host`. Reads the settings only for an origin that is not the
    /// server's own.
    pub async fn judge_origin(
        &self,
        request: RequestOrigin<'_>,
    ) -> Result<OriginVerdict, HostError> {
        let authority = request.host.and_then(text);
        if request.host.is_some() && !self.host_admitted(authority).await? {
            return Ok(OriginVerdict::Refused);
        }
        let Some(origin) = request.origin else {
            return Ok(OriginVerdict::Admitted);
        };
        // A header that is not text is no origin, and no host.
        let Some(origin) = text(origin).and_then(|o| WebOrigin::parse(o).ok()) else {
            return Ok(OriginVerdict::Refused);
        };
        let own = ["http", "https"]
            .into_iter()
            .filter_map(|scheme| WebOrigin::from_authority(scheme, authority?))
            .any(|own| own == origin);
        if own {
            return Ok(OriginVerdict::Admitted);
        }
        let settings = self.access.call_settings().await?;
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
        let Some(request) = authority.and_then(|a| WebOrigin::from_authority("http", a)) else {
            return Ok(false);
        };
        let host = request.host().trim_start_matches('[').trim_end_matches(']');
        if host == "localhost" || host.parse::<std::net::IpAddr>().is_ok() {
            return Ok(true);
        }
        let settings = self.access.call_settings().await?;
        Ok(settings
            .allowed_origins
            .iter()
            .any(|origin| origin.host().eq_ignore_ascii_case(request.host())))
    }
}
