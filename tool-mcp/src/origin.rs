//! What the `Origin` check reads and decides. The MCP specification asks
//! a server to refuse, with `403`, a request whose `Origin` it does not
//! admit: a page of another site (or one a DNS-rebinding attack points at
//! the server) must not make a browser act with the user's token. The
//! rule is the host's ([`McpHost::judge_origin`]); its default admits only
//! the server's own pages ([`RequestOrigin::is_same_origin`]).
//!
//! [`McpHost::judge_origin`]: crate::McpHost::judge_origin

/// Whether a request may act, by its `Origin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OriginVerdict {
    /// No origin, the server's own, or one the host allows.
    Admitted,
    /// Any other origin, `null`, or a malformed one.
    Refused,
}

/// The two headers the rule reads, as the request carried them: each
/// absent, or its bytes. No HTTP type crosses into the host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestOrigin<'a> {
    /// The `Host` header's value.
    pub host: Option<&'a [u8]>,
    /// The `Origin` header's value.
    pub origin: Option<&'a [u8]>,
}

impl<'a> RequestOrigin<'a> {
    /// The two headers of a request as it arrived.
    pub fn of(headers: &'a axum::http::HeaderMap) -> Self {
        RequestOrigin {
            host: headers.get(axum::http::header::HOST).map(|v| v.as_bytes()),
            origin: headers
                .get(axum::http::header::ORIGIN)
                .map(|v| v.as_bytes()),
        }
    }

    /// Whether the request carries no `Origin`, or the one of the server
    /// it was sent to: `http://HOST` or `https://HOST` with its own `Host`
    /// header, byte for byte but for ASCII case.
    pub fn is_same_origin(&self) -> bool {
        let Some(origin) = self.origin else {
            return true;
        };
        let Some(host) = self.host.filter(|host| !host.is_empty()) else {
            return false;
        };
        [&b"http://"[..], &b"https://"[..]].iter().any(|scheme| {
            origin.len() == scheme.len() + host.len()
                && origin[..scheme.len()].eq_ignore_ascii_case(scheme)
                && origin[scheme.len()..].eq_ignore_ascii_case(host)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::RequestOrigin;

    fn same(host: Option<&str>, origin: Option<&str>) -> bool {
        RequestOrigin {
            host: host.map(str::as_bytes),
            origin: origin.map(str::as_bytes),
        }
        .is_same_origin()
    }

    #[test]
    fn only_no_origin_or_the_servers_own_is_the_same_origin() {
        assert!(same(Some("127.0.0.1:8080"), None));
        assert!(same(None, None));
        assert!(same(Some("127.0.0.1:8080"), Some("http://127.0.0.1:8080")));
        assert!(same(Some("LOCALHOST:1"), Some("https://localhost:1")));
        assert!(!same(Some("127.0.0.1:8080"), Some("http://127.0.0.1:8081")));
        assert!(!same(Some("127.0.0.1:8080"), Some("http://evil.example")));
        assert!(!same(Some("127.0.0.1:8080"), Some("null")));
        assert!(!same(None, Some("http://127.0.0.1:8080")));
        assert!(!same(Some(""), Some("http://")));
        assert!(!same(Some("a"), Some("ftp://a")));
    }
}
