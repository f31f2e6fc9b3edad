//! What the `Origin` check reads and decides. The MCP specification asks
//! a server to refuse, with `403`, a request whose `Origin` it does not
//! admit: a page of another site (or one a DNS-rebinding attack points at
//! the server) must not make a browser act with the user's token. The
//! rule is the host's ([`McpHost::judge_origin`]); its default admits no
//! browser at all.
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
