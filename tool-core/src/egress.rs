//! The egress guard: which URLs a tool may request.
//!
//! Tools never open sockets on their own. A tool asks its `ToolContext` for the
//! guard of its group and passes every URL through [`EgressGuard::check`]
//! before any request; redirects go through [`EgressGuard::check_redirect`]
//! (or the loops [`EgressGuard::follow`] and [`EgressGuard::follow_async`]), so
//! a hop is never followed blindly. This module opens no connection and holds
//! no HTTP client: it decides, the tool's own client fetches.
//!
//! # Rules
//!
//! A URL is admitted only when all of these hold, checked in this order; the
//! first that fails is the [`EgressDenied`] variant returned:
//!
//! 1. The group's scope is [`Egress::OwnSite`] ([`EgressDenied::NoEgress`])
//!    and the host configured at least one [`Site`] ([`EgressDenied::NoSites`]).
//!    There is no "any host" scope.
//! 2. The input is at most [`MAX_URL_LEN`] bytes, measured before parsing
//!    ([`EgressDenied::TooLong`]), and contains no backslash and no ASCII
//!    control character ([`EgressDenied::DisallowedCharacter`]).
//! 3. It parses as an absolute URL, or it starts with a single `/` and is
//!    resolved against the *first* configured site. `//host` (scheme-relative)
//!    and references without a leading `/` (`../x`, `?q`) are refused: they
//!    would silently depend on a base the tool did not choose.
//! 4. The scheme is `http` or `https`; the URL carries no user-info (not even a
//!    user name alone).
//! 5. Scheme, host and port are exactly those of one configured site. The port
//!    defaults by scheme (`https://example.com:443/` is `https://example.com`);
//!    host names compare case-insensitively and a single trailing dot is
//!    ignored. A subdomain of a site is another host.
//! 6. An IP literal (`127.0.0.1`, `[::1]`, and the spellings the parser turns
//!    into them: `2130706433`, `0x7f.1`, `127.1`) is admitted only when a site
//!    is that same address ([`EgressDenied::IpLiteral`]); an IPv4-mapped IPv6
//!    address is not the IPv4 address.
//!
//! # Why the `url` crate, and why you must request the returned `Url`
//!
//! Parsing is done by the `url` crate, the WHATWG URL parser that reqwest (and
//! most of the Rust HTTP ecosystem) uses to turn a string into a request. What
//! this guard checks is therefore what such a client will request: the host
//! after percent-decoding (`http://%73ite.example` *is* `site.example`), after
//! IDNA mapping (full-width `ｓｉｔｅ.example` is `site.example`, a Cyrillic
//! look-alike becomes an `xn--` name that matches no site), after the IPv4
//! number forms are folded, and with `\` read as `/` the way browsers do. A
//! host name is admitted when it is byte-equal to a site *after* that
//! normalisation, and refused otherwise.
//!
//! Parsers still disagree on hostile strings (`http://site.example\@evil.example`
//! is `site.example` to WHATWG and `evil.example` to curl), so a tool must send
//! the [`Url`] that `check` returns, never the string it passed in: the
//! returned URL is serialised in the normalised form every parser reads the
//! same way. Backslashes and control characters are refused outright for the
//! same reason: no honest URL needs them unencoded.
//!
//! # What the guard does not do
//!
//! It checks names, not addresses: what a configured site's name resolves to
//! is the host's own DNS, trusted like the site list itself.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use url::{Host, ParseError, Url};

use crate::Egress;

/// The longest URL, in bytes, that [`EgressGuard::check`] will look at.
///
/// Longer input is refused before it is parsed, and so is a URL whose
/// normalised form (percent-encoding can triple a string) grows past it.
/// 8 KiB is what common servers and proxies accept for a request line.
pub const MAX_URL_LEN: usize = 8 * 1024;

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
    base: Url,
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

    fn admits(&self, scheme: &str, host: &Host<&str>, port: u16) -> bool {
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

/// Why the guard refused a URL. Each variant is one rule of the module docs.
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
    /// The URL is longer than [`MAX_URL_LEN`], as given or once normalised.
    #[error("URL is {len} bytes long, more than the {max} allowed")]
    TooLong {
        /// The length in bytes.
        len: usize,
        /// The limit, [`MAX_URL_LEN`].
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

/// What one request of [`EgressGuard::follow`] produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hop<T> {
    /// The final response: the loop ends with it.
    Done(T),
    /// A redirect, with the `Location` value exactly as received.
    Redirect(String),
}

/// Why [`EgressGuard::follow`] or [`EgressGuard::follow_async`] stopped
/// without a response.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FollowError<E> {
    /// The guard refused a URL: the start (hop 0) or the target of redirect
    /// number `hop`.
    #[error("hop {hop} refused: {denial}")]
    Denied {
        /// 0 for the start URL, n for the n-th redirect.
        hop: usize,
        /// The rule that refused it.
        denial: EgressDenied,
    },
    /// The server asked for one more redirect than allowed.
    #[error("more than {max} redirects")]
    TooManyRedirects {
        /// The `max_hops` that was given.
        max: usize,
    },
    /// The caller's fetch failed.
    #[error("request of hop {hop} failed")]
    Fetch {
        /// 0 for the start URL, n for the n-th redirect.
        hop: usize,
        /// The caller's error.
        #[source]
        error: E,
    },
}

/// Checks URLs against a group's [`Egress`] and the host's own
/// [`Site`]s; see the module docs for the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EgressGuard {
    scope: Egress,
    sites: Vec<Site>,
}

impl EgressGuard {
    /// A guard for one group. The first site is the base that a URL starting
    /// with `/` resolves against.
    pub fn new(scope: Egress, sites: Vec<Site>) -> Self {
        Self { scope, sites }
    }

    /// A guard that refuses every URL.
    pub const fn none() -> Self {
        Self {
            scope: Egress::None,
            sites: Vec::new(),
        }
    }

    /// The scope this guard enforces.
    pub fn scope(&self) -> Egress {
        self.scope
    }

    /// The sites this guard admits, in configured order.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// Checks a URL, or a path starting with `/` (resolved against the first
    /// site), and returns the URL to request.
    ///
    /// Request the returned [`Url`], not `url`: see the module docs.
    ///
    /// # Errors
    ///
    /// The [`EgressDenied`] of the first rule the URL breaks.
    pub fn check(&self, url: &str) -> Result<Url, EgressDenied> {
        let base = self.first_site()?;
        screen(url)?;
        let parsed = match Url::parse(url) {
            Ok(parsed) => parsed,
            Err(ParseError::RelativeUrlWithoutBase) => {
                if url.starts_with("//") {
                    return Err(EgressDenied::SchemeRelative);
                }
                if !url.starts_with('/') {
                    return Err(EgressDenied::RelativeReference);
                }
                base.base.join(url).map_err(EgressDenied::Unparsable)?
            }
            Err(error) => return Err(EgressDenied::Unparsable(error)),
        };
        self.admit(parsed)
    }

    /// Checks one redirect: `location` (a `Location` header, absolute or
    /// relative, as received) is resolved against `current`, the URL that
    /// answered with the redirect, and the result is checked by the same rules
    /// as [`check`](Self::check).
    ///
    /// Relative forms are legitimate here, since `current` is a real base;
    /// whatever they resolve to must still be one of the sites.
    ///
    /// # Errors
    ///
    /// The [`EgressDenied`] of the first rule the resolved URL breaks.
    pub fn check_redirect(&self, current: &Url, location: &str) -> Result<Url, EgressDenied> {
        self.first_site()?;
        screen(location)?;
        let next = current.join(location).map_err(EgressDenied::Unparsable)?;
        self.admit(next)
    }

    /// Requests `start` and follows redirects, checking every hop, for any
    /// blocking client.
    ///
    /// `fetch` performs one request, without following redirects itself, and
    /// says whether it got the final response or a redirect. At most
    /// `max_hops` redirects are followed (0: none).
    ///
    /// # Errors
    ///
    /// [`FollowError::Denied`] when a URL is refused, before it is fetched;
    /// [`FollowError::TooManyRedirects`] when the `max_hops + 1`-th redirect
    /// arrives; [`FollowError::Fetch`] with the error `fetch` returned.
    pub fn follow<T, E>(
        &self,
        start: &str,
        max_hops: usize,
        mut fetch: impl FnMut(&Url) -> Result<Hop<T>, E>,
    ) -> Result<T, FollowError<E>> {
        let mut url = self
            .check(start)
            .map_err(|denial| FollowError::Denied { hop: 0, denial })?;
        let mut hop = 0;
        loop {
            match fetch(&url).map_err(|error| FollowError::Fetch { hop, error })? {
                Hop::Done(response) => return Ok(response),
                Hop::Redirect(location) => {
                    hop = count_redirect(hop, max_hops)?;
                    url = self.redirect_hop(&url, &location, hop)?;
                }
            }
        }
    }

    /// [`follow`](Self::follow) for an async client, on any runtime.
    ///
    /// `fetch` takes the URL by value (async clients such as reqwest consume
    /// it) and returns a future rather than being an `AsyncFnMut`: a future
    /// borrowing an argument of an async closure cannot yet be proven `Send`
    /// by rustc, and a tool's future usually must be `Send`.
    ///
    /// # Errors
    ///
    /// As for [`follow`](Self::follow).
    pub async fn follow_async<T, E, F>(
        &self,
        start: &str,
        max_hops: usize,
        mut fetch: impl FnMut(Url) -> F,
    ) -> Result<T, FollowError<E>>
    where
        F: Future<Output = Result<Hop<T>, E>>,
    {
        let mut url = self
            .check(start)
            .map_err(|denial| FollowError::Denied { hop: 0, denial })?;
        let mut hop = 0;
        loop {
            match fetch(url.clone())
                .await
                .map_err(|error| FollowError::Fetch { hop, error })?
            {
                Hop::Done(response) => return Ok(response),
                Hop::Redirect(location) => {
                    hop = count_redirect(hop, max_hops)?;
                    url = self.redirect_hop(&url, &location, hop)?;
                }
            }
        }
    }

    fn redirect_hop<E>(
        &self,
        current: &Url,
        location: &str,
        hop: usize,
    ) -> Result<Url, FollowError<E>> {
        self.check_redirect(current, location)
            .map_err(|denial| FollowError::Denied { hop, denial })
    }

    fn first_site(&self) -> Result<&Site, EgressDenied> {
        match self.scope {
            Egress::None => Err(EgressDenied::NoEgress),
            Egress::OwnSite => self.sites.first().ok_or(EgressDenied::NoSites),
        }
    }

    fn admit(&self, url: Url) -> Result<Url, EgressDenied> {
        let len = url.as_str().len();
        if len > MAX_URL_LEN {
            return Err(EgressDenied::TooLong {
                len,
                max: MAX_URL_LEN,
            });
        }
        if !is_allowed_scheme(url.scheme()) {
            return Err(EgressDenied::SchemeNotAllowed {
                scheme: url.scheme().to_owned(),
            });
        }
        if has_user_info(&url) {
            return Err(EgressDenied::UserInfo);
        }
        let (host, port) = host_and_port(&url).map_err(EgressDenied::Unparsable)?;
        if self
            .sites
            .iter()
            .any(|site| site.admits(url.scheme(), &host, port))
        {
            return Ok(url);
        }
        Err(match host {
            Host::Ipv4(ip) => EgressDenied::IpLiteral {
                ip: ip.into(),
                port,
            },
            Host::Ipv6(ip) => EgressDenied::IpLiteral {
                ip: ip.into(),
                port,
            },
            Host::Domain(name) => EgressDenied::NotOwnSite {
                scheme: url.scheme().to_owned(),
                host: name.to_owned(),
                port,
            },
        })
    }
}

/// The number of the next redirect, if one more is allowed.
fn count_redirect<E>(done: usize, max_hops: usize) -> Result<usize, FollowError<E>> {
    if done >= max_hops {
        return Err(FollowError::TooManyRedirects { max: max_hops });
    }
    Ok(done + 1)
}

/// The checks made on the raw string, before the parser can rewrite it.
fn screen(input: &str) -> Result<(), EgressDenied> {
    if input.len() > MAX_URL_LEN {
        return Err(EgressDenied::TooLong {
            len: input.len(),
            max: MAX_URL_LEN,
        });
    }
    // The WHATWG parser reads `\` as `/` and silently drops tabs and
    // newlines anywhere, where other parsers do not: refusing them keeps every
    // reader of the string agreeing on its host.
    match input
        .chars()
        .find(|&character| character == '\\' || character.is_ascii_control())
    {
        Some(character) => Err(EgressDenied::DisallowedCharacter { character }),
        None => Ok(()),
    }
}

fn is_allowed_scheme(scheme: &str) -> bool {
    matches!(scheme, "http" | "https")
}

fn has_user_info(url: &Url) -> bool {
    !url.username().is_empty() || url.password().is_some()
}

fn host_and_port(url: &Url) -> Result<(Host<&str>, u16), ParseError> {
    match (url.host(), url.port_or_known_default()) {
        (Some(host), Some(port)) => Ok((host, port)),
        // The parser gives every http(s) URL a host and a known default port,
        // and callers check the scheme first; fail closed rather than assume.
        _ => Err(ParseError::EmptyHost),
    }
}

fn without_trailing_dot(name: &str) -> &str {
    name.strip_suffix('.').unwrap_or(name)
}
