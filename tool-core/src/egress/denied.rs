//! [`EgressDenied`]: why the guard refused a URL, one variant per rule.

use std::net::IpAddr;

use url::ParseError;

/// Why the guard refused a URL. Each variant is one rule of the [module docs](crate::egress).
///
/// The messages are for logs and administrators. They name the scheme, host
/// and port that were refused, never user-info.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EgressDenied {
    /// The group's egress scope is `none`: no network at all.
    #[error("no network access: the tool's group has egress scope `none`")]
    NoEgress,
    /// The scope is `own_site`, but the host configured no site.
    #[error("no network access: egress scope is `own_site` but no site is configured")]
    NoSites,
    /// The URL is longer than [`MAX_URL_LEN`](super::MAX_URL_LEN), as given or once normalised.
    #[error("URL is {len} bytes long, more than the {max} allowed")]
    TooLong {
        /// The length in bytes.
        len: usize,
        /// The limit, [`MAX_URL_LEN`](super::MAX_URL_LEN).
        max: usize,
    },
    /// The input has a character that parsers read differently: a backslash
    /// or an ASCII control character (tab and newline included).
    #[error("URL contains {character:?}: percent-encode it or use `/`")]
    DisallowedCharacter {
        /// The first such character.
        character: char,
    },
    /// The input is not a URL.
    #[error("URL cannot be parsed: {0}")]
    Unparsable(ParseError),
    /// A scheme-relative reference (`//host/...`).
    #[error("scheme-relative URL (`//host`) refused: give the full URL with `https://`")]
    SchemeRelative,
    /// A relative reference that does not start with `/` (`../x`, `x`, `?q`).
    #[error("relative URL refused: give a full URL or a path starting with `/`")]
    RelativeReference,
    /// The scheme is not `http` or `https`.
    #[error("scheme `{scheme}` is not allowed: only `http` and `https`")]
    SchemeNotAllowed {
        /// The scheme of the URL.
        scheme: String,
    },
    /// The URL has a user name or password.
    #[error("URL has user-info (`user@` or `user:password@`): credentials never go in a URL")]
    UserInfo,
    /// The host is an IP address that is not one of the sites.
    #[error("IP address {ip} port {port} is not one of the host's sites")]
    IpLiteral {
        /// The address, as the parser normalised it.
        ip: IpAddr,
        /// The port, the scheme's default when none was given.
        port: u16,
    },
    /// The scheme, host and port are not those of any site.
    #[error("{scheme}://{host}:{port} is not one of the host's sites")]
    NotOwnSite {
        /// The scheme of the URL.
        scheme: String,
        /// The host, as the parser normalised it.
        host: String,
        /// The port, the scheme's default when none was given.
        port: u16,
    },
}
