//! [`Site`]: one of the host's own origins, parsed from configuration.

use std::fmt;
use std::str::FromStr;

use url::{Host, ParseError, Url};

use serde::{Deserialize, Serialize};

/// One of the host's own sites: an origin (scheme, host, port), nothing more.
///
/// Parsed from configuration strings such as `https://example.com` or
/// `http://example.com:8080` with [`Site::parse`], [`FromStr`] or serde (as a
/// string). A site has no path (`/` at most), no query, no fragment and no
/// user-info, and its scheme is `http` or `https`. The host is kept in the
/// parser's normalised form (lower case, IDNA as `xn--`), without a trailing
/// dot. It displays as the origin, with the port only when it is not the
/// scheme's default.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Site {
    /// The origin as a URL with path `/`: the base a leading `/` resolves
    /// against.
    pub(super) base: Url,
    host: Host<String>,
    port: u16,
}

impl Site {
    /// Parses a configured site; see [`Site`] for what is accepted.
    ///
    /// # Errors
    ///
    /// A [`SiteError`] naming the first rule the string breaks.
    pub fn parse(site: &str) -> Result<Self, SiteError> {
        let mut base = Url::parse(site).map_err(SiteError::Unparsable)?;
        if !is_allowed_scheme(base.scheme()) {
            return Err(SiteError::SchemeNotAllowed {
                scheme: base.scheme().to_owned(),
            });
        }
        if has_user_info(&base) {
            return Err(SiteError::UserInfo);
        }
        if base.path() != "/" {
            return Err(SiteError::Path {
                path: base.path().to_owned(),
            });
        }
        if base.query().is_some() {
            return Err(SiteError::Query);
        }
        if base.fragment().is_some() {
            return Err(SiteError::Fragment);
        }
        let (host, port) = host_and_port(&base).map_err(SiteError::Unparsable)?;
        let host = match host {
            Host::Domain(name) => {
                let name = without_trailing_dot(name).to_owned();
                // Keeps the base (and so `Display` and equality) free of the
                // dot too, so `example.com.` and `example.com` are one site.
                base.set_host(Some(&name)).map_err(SiteError::Unparsable)?;
                Host::Domain(name)
            }
            Host::Ipv4(ip) => Host::Ipv4(ip),
            Host::Ipv6(ip) => Host::Ipv6(ip),
        };
        Ok(Self { base, host, port })
    }

    /// `"http"` or `"https"`.
    pub fn scheme(&self) -> &str {
        self.base.scheme()
    }

    /// The host, normalised: a lower-case ASCII domain without trailing dot,
    /// or an IP address.
    pub fn host(&self) -> &Host<String> {
        &self.host
    }

    /// The port, the scheme's default when the configuration gave none.
    pub fn port(&self) -> u16 {
        self.port
    }

    pub(super) fn admits(&self, scheme: &str, host: &Host<&str>, port: u16) -> bool {
        self.base.scheme() == scheme
            && self.port == port
            && match (&self.host, host) {
                (Host::Domain(site), Host::Domain(asked)) => {
                    site.eq_ignore_ascii_case(without_trailing_dot(asked))
                }
                (Host::Ipv4(site), Host::Ipv4(asked)) => site == asked,
                (Host::Ipv6(site), Host::Ipv6(asked)) => site == asked,
                _ => false,
            }
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The base always ends in the `/` path (checked in `parse`); the origin
        // is written without it.
        let origin = self.base.as_str();
        f.write_str(origin.strip_suffix('/').unwrap_or(origin))
    }
}

impl FromStr for Site {
    type Err = SiteError;

    fn from_str(site: &str) -> Result<Self, Self::Err> {
        Self::parse(site)
    }
}

impl TryFrom<String> for Site {
    type Error = SiteError;

    fn try_from(site: String) -> Result<Self, Self::Error> {
        Self::parse(&site)
    }
}

impl From<Site> for String {
    fn from(site: Site) -> Self {
        site.to_string()
    }
}

/// Why a configured site was rejected.
///
/// The messages never repeat the configured string: it may carry a password.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SiteError {
    /// The string is not a URL.
    #[error("site is not a URL ({0}): write it as `https://example.com`")]
    Unparsable(ParseError),
    /// The scheme is not `http` or `https`.
    #[error("site scheme `{scheme}` is not allowed: use `http` or `https`")]
    SchemeNotAllowed {
        /// The scheme that was given.
        scheme: String,
    },
    /// The site has a user name or password.
    #[error("site has user-info: remove the `user:password@` part")]
    UserInfo,
    /// The site has a path other than `/`.
    #[error("site has path `{path}`: a site is an origin, remove the path")]
    Path {
        /// The path that was given.
        path: String,
    },
    /// The site has a query.
    #[error("site has a query: a site is an origin, remove the `?…` part")]
    Query,
    /// The site has a fragment.
    #[error("site has a fragment: a site is an origin, remove the `#…` part")]
    Fragment,
}

pub(super) fn is_allowed_scheme(scheme: &str) -> bool {
    matches!(scheme, "http" | "https")
}

pub(super) fn has_user_info(url: &Url) -> bool {
    !url.username().is_empty() || url.password().is_some()
}

pub(super) fn host_and_port(url: &Url) -> Result<(Host<&str>, u16), ParseError> {
    match (url.host(), url.port_or_known_default()) {
        (Some(host), Some(port)) => Ok((host, port)),
        // The parser gives every http(s) URL a host and a known default port,
        // and callers check the scheme first; fail closed rather than assume.
        _ => Err(ParseError::EmptyHost),
    }
}

pub(super) fn without_trailing_dot(name: &str) -> &str {
    name.strip_suffix('.').unwrap_or(name)
}
