//! A browser origin as the `allowed_origins` setting names it, checked
//! when written: the app's origin rule (`app::origin`) compares requests'
//! origins with these.

use serde::{Deserialize, Serialize};

/// A web origin (RFC 6454) an HTTP request may come from, as the
/// `allowed_origins` setting lists it: `scheme://host[:port]`, http or
/// https, kept in one form (lower case, the scheme's default port left
/// out), so comparing two is comparing strings. `null` (an opaque origin:
/// a sandboxed frame, a `file:` page) is never one: nobody can be told
/// apart behind it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct WebOrigin(String);

impl WebOrigin {
    /// `value` as an origin, or why it is none.
    pub fn parse(value: &str) -> Result<WebOrigin, String> {
        let refuse =
            || format!("`{value}` is not an origin: write `https://host` or `http://host:port`");
        let (scheme, authority) = value.split_once("://").ok_or_else(refuse)?;
        let scheme = scheme.to_ascii_lowercase();
        if !matches!(scheme.as_str(), "http" | "https")
            || authority.is_empty()
            || authority.contains(['/', '?', '#', '@', ' '])
        {
            return Err(refuse());
        }
        WebOrigin::from_authority(&scheme, authority).ok_or_else(refuse)
    }

    /// The origin of a page at `authority` (a `Host` header's value:
    /// `host[:port]`) over `scheme`, if it is a valid authority.
    pub fn from_authority(scheme: &str, authority: &str) -> Option<WebOrigin> {
        let authority: axum::http::uri::Authority = authority.parse().ok()?;
        if authority.as_str().contains('@') || authority.host().is_empty() {
            return None;
        }
        let host = authority.host().to_ascii_lowercase();
        let default = match scheme {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        Some(WebOrigin(match authority.port_u16() {
            Some(port) if port != default => format!("{scheme}://{host}:{port}"),
            _ => format!("{scheme}://{host}"),
        }))
    }

    /// Its host, lower-case, without the port (an IPv6 address in its
    /// brackets).
    pub fn host(&self) -> &str {
        let authority = self.0.split_once("://").map_or("", |(_, rest)| rest);
        match authority.strip_prefix('[') {
            Some(_) => authority
                .find(']')
                .map_or(authority, |end| &authority[..=end]),
            None => authority.split(':').next().unwrap_or(authority),
        }
    }

    /// Its one written form.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for WebOrigin {
    type Error = String;

    fn try_from(value: String) -> Result<Self, String> {
        WebOrigin::parse(&value)
    }
}

impl From<WebOrigin> for String {
    fn from(origin: WebOrigin) -> String {
        origin.0
    }
}
