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

#[cfg(test)]
mod tests {
    use super::*;

    const SITE: &str = "http://site.example";

    fn site(s: &str) -> Site {
        match Site::parse(s) {
            Ok(site) => site,
            Err(error) => panic!("test site {s:?} rejected: {error}"),
        }
    }

    fn guard(sites: &[&str]) -> EgressGuard {
        EgressGuard::new(Egress::OwnSite, sites.iter().map(|s| site(s)).collect())
    }

    fn own() -> EgressGuard {
        guard(&[SITE])
    }

    fn admitted(guard: &EgressGuard, input: &str) -> String {
        match guard.check(input) {
            Ok(url) => url.to_string(),
            Err(denial) => panic!("{input:?} refused: {denial}"),
        }
    }

    fn not_own_site(host: &str, port: u16) -> EgressDenied {
        EgressDenied::NotOwnSite {
            scheme: "http".to_owned(),
            host: host.to_owned(),
            port,
        }
    }

    // Scope and configuration.

    #[test]
    fn scope_none_refuses_everything() {
        let guard = EgressGuard::new(Egress::None, vec![site(SITE)]);
        assert_eq!(guard.check(SITE), Err(EgressDenied::NoEgress));
        assert_eq!(guard.check("/x"), Err(EgressDenied::NoEgress));
    }

    #[test]
    fn own_site_without_sites_refuses_everything() {
        let guard = EgressGuard::new(Egress::OwnSite, Vec::new());
        assert_eq!(guard.check(SITE), Err(EgressDenied::NoSites));
        assert_eq!(guard.check("/x"), Err(EgressDenied::NoSites));
    }

    #[test]
    fn default_scope_is_none() {
        assert_eq!(Egress::default(), Egress::None);
    }

    #[test]
    fn scope_serde_is_snake_case() {
        let json = serde_json::to_string(&[Egress::None, Egress::OwnSite]);
        assert_eq!(json.ok().as_deref(), Some(r#"["none","own_site"]"#));
        let parsed: Result<Egress, _> = serde_json::from_str(r#""own_site""#);
        assert_eq!(parsed.ok(), Some(Egress::OwnSite));
        let any: Result<Egress, _> = serde_json::from_str(r#""any""#);
        assert!(any.is_err());
    }

    #[test]
    fn scope_permits_nothing_wider_than_itself() {
        assert!(Egress::None.permits(Egress::None));
        assert!(!Egress::None.permits(Egress::OwnSite));
        assert!(Egress::OwnSite.permits(Egress::None));
        assert!(Egress::OwnSite.permits(Egress::OwnSite));
    }

    #[test]
    fn site_parses_origins() {
        let plain = site("https://Example.COM.");
        assert_eq!(plain.scheme(), "https");
        assert_eq!(plain.host(), &Host::Domain("example.com".to_owned()));
        assert_eq!(plain.port(), 443);
        assert_eq!(plain.to_string(), "https://example.com");
        assert_eq!(plain, site("https://example.com:443/"));

        let with_port = site("http://example.com:8080");
        assert_eq!(with_port.port(), 8080);
        assert_eq!(with_port.to_string(), "http://example.com:8080");
    }

    #[test]
    fn site_rejects_what_is_not_an_origin() {
        assert_eq!(
            Site::parse("https://example.com/api"),
            Err(SiteError::Path {
                path: "/api".to_owned()
            })
        );
        assert_eq!(
            Site::parse("https://u:pw@example.com"),
            Err(SiteError::UserInfo)
        );
        assert_eq!(Site::parse("https://example.com/?"), Err(SiteError::Query));
        assert_eq!(
            Site::parse("https://example.com/#x"),
            Err(SiteError::Fragment)
        );
        assert_eq!(
            Site::parse("ftp://example.com"),
            Err(SiteError::SchemeNotAllowed {
                scheme: "ftp".to_owned()
            })
        );
        assert_eq!(
            Site::parse("example.com"),
            Err(SiteError::Unparsable(ParseError::RelativeUrlWithoutBase))
        );
    }

    #[test]
    fn site_error_never_repeats_the_password() {
        let Err(error) = Site::parse("https://user:hunter2@example.com") else {
            panic!("user-info accepted in a site");
        };
        assert!(!error.to_string().contains("hunter2"));
    }

    #[test]
    fn site_serde_round_trips_as_a_string() {
        let parsed: Result<Vec<Site>, _> =
            serde_json::from_str(r#"["https://example.com", "http://example.com:8080"]"#);
        let Ok(sites) = parsed else {
            panic!("sites rejected: {parsed:?}");
        };
        assert_eq!(
            serde_json::to_string(&sites).ok().as_deref(),
            Some(r#"["https://example.com","http://example.com:8080"]"#)
        );
        let bad: Result<Site, _> = serde_json::from_str(r#""https://example.com/api""#);
        assert!(bad.is_err());
    }

    // Admitted.

    #[test]
    fn own_site_admitted() {
        assert_eq!(
            admitted(&own(), "http://site.example/a?b=c"),
            "http://site.example/a?b=c"
        );
    }

    #[test]
    fn uppercase_host_and_trailing_dot_admitted() {
        admitted(&own(), "http://SITE.Example/");
        admitted(&own(), "http://site.example./x");
        assert_eq!(
            own().check("http://site.example../"),
            Err(not_own_site("site.example..", 80))
        );
    }

    #[test]
    fn explicit_default_port_admitted() {
        let guard = guard(&["https://site.example"]);
        assert_eq!(
            admitted(&guard, "https://site.example:443/"),
            "https://site.example/"
        );
    }

    #[test]
    fn any_of_several_sites_admitted() {
        let guard = guard(&[SITE, "https://api.example:8443"]);
        admitted(&guard, "https://api.example:8443/v1");
        assert_eq!(
            guard.check("https://api.example/v1"),
            Err(EgressDenied::NotOwnSite {
                scheme: "https".to_owned(),
                host: "api.example".to_owned(),
                port: 443,
            })
        );
    }

    // Leading `/` and relative references.

    #[test]
    fn leading_slash_resolves_against_first_site() {
        let guard = guard(&["https://first.example", "https://second.example"]);
        assert_eq!(admitted(&guard, "/a/b?c"), "https://first.example/a/b?c");
    }

    #[test]
    fn dot_dot_path_stays_on_first_site() {
        assert_eq!(admitted(&own(), "/../../x"), "http://site.example/x");
    }

    #[test]
    fn relative_without_leading_slash_refused() {
        for input in ["../x", "x", "?q=1", "#top", "site.example/x", " /x"] {
            assert_eq!(
                own().check(input),
                Err(EgressDenied::RelativeReference),
                "{input:?}"
            );
        }
    }

    #[test]
    fn scheme_relative_refused() {
        assert_eq!(
            own().check("//evil.example"),
            Err(EgressDenied::SchemeRelative)
        );
        assert_eq!(
            own().check("//site.example/x"),
            Err(EgressDenied::SchemeRelative)
        );
    }

    // Schemes.

    #[test]
    fn file_scheme_refused() {
        assert_eq!(
            own().check("file:///etc/passwd"),
            Err(EgressDenied::SchemeNotAllowed {
                scheme: "file".to_owned()
            })
        );
    }

    #[test]
    fn gopher_scheme_refused() {
        assert_eq!(
            own().check("gopher://site.example"),
            Err(EgressDenied::SchemeNotAllowed {
                scheme: "gopher".to_owned()
            })
        );
    }

    #[test]
    fn https_site_refuses_http_on_its_port() {
        let guard = guard(&["https://site.example"]);
        assert_eq!(
            guard.check("http://site.example:443/"),
            Err(not_own_site("site.example", 443))
        );
    }

    // User-info and authority confusion.

    #[test]
    fn user_info_before_evil_host_refused() {
        assert_eq!(
            own().check("http://site.example@evil.example"),
            Err(EgressDenied::UserInfo)
        );
    }

    #[test]
    fn user_info_on_own_site_refused() {
        assert_eq!(
            own().check("http://user:pw@site.example/"),
            Err(EgressDenied::UserInfo)
        );
        assert_eq!(
            own().check("http://token@site.example/"),
            Err(EgressDenied::UserInfo)
        );
    }

    #[test]
    fn empty_user_info_is_dropped_by_the_parser_and_admitted() {
        // Nothing is sent for an empty `@`: the returned URL has none.
        assert_eq!(
            admitted(&own(), "http://@site.example/"),
            "http://site.example/"
        );
    }

    #[test]
    fn fragment_with_at_sign_refused_by_host() {
        assert_eq!(
            own().check("http://evil.example#@site.example"),
            Err(not_own_site("evil.example", 80))
        );
    }

    #[test]
    fn site_as_subdomain_of_evil_refused() {
        assert_eq!(
            own().check("http://site.example.evil.example"),
            Err(not_own_site("site.example.evil.example", 80))
        );
    }

    #[test]
    fn subdomain_of_site_refused() {
        assert_eq!(
            own().check("http://www.site.example"),
            Err(not_own_site("www.site.example", 80))
        );
    }

    #[test]
    fn other_port_than_site_refused() {
        assert_eq!(
            own().check("http://site.example:8080"),
            Err(not_own_site("site.example", 8080))
        );
    }

    // IP literals.

    fn ip_denied(ip: &str, port: u16) -> Result<Url, EgressDenied> {
        match ip.parse() {
            Ok(ip) => Err(EgressDenied::IpLiteral { ip, port }),
            Err(error) => panic!("bad test address {ip:?}: {error}"),
        }
    }

    #[test]
    fn ipv4_literal_refused() {
        assert_eq!(own().check("http://127.0.0.1"), ip_denied("127.0.0.1", 80));
    }

    #[test]
    fn ipv6_literal_refused() {
        assert_eq!(own().check("http://[::1]"), ip_denied("::1", 80));
    }

    #[test]
    fn decimal_ipv4_refused() {
        assert_eq!(own().check("http://2130706433"), ip_denied("127.0.0.1", 80));
    }

    #[test]
    fn hex_and_short_ipv4_refused() {
        assert_eq!(own().check("http://0x7f.1"), ip_denied("127.0.0.1", 80));
        assert_eq!(own().check("http://127.1"), ip_denied("127.0.0.1", 80));
    }

    #[test]
    fn ip_literal_admitted_only_when_it_is_a_site() {
        let guard = guard(&["http://127.0.0.1:8080", "http://[::1]"]);
        assert_eq!(
            admitted(&guard, "http://127.0.0.1:8080/x"),
            "http://127.0.0.1:8080/x"
        );
        // Other spellings of the same address are the same address to the
        // client, so they are the same site.
        assert_eq!(
            admitted(&guard, "http://2130706433:8080/x"),
            "http://127.0.0.1:8080/x"
        );
        admitted(&guard, "http://[0:0:0:0:0:0:0:1]/");
        assert_eq!(guard.check("http://127.0.0.1/"), ip_denied("127.0.0.1", 80));
        assert_eq!(
            guard.check("http://10.0.0.1:8080/"),
            ip_denied("10.0.0.1", 8080)
        );
        assert_eq!(guard.check("http://[::2]/"), ip_denied("::2", 80));
        assert_eq!(
            guard.check("http://[::ffff:127.0.0.1]:8080/"),
            ip_denied("::ffff:127.0.0.1", 8080)
        );
    }

    // Percent-encoding and IDNA: compared after the parser's normalisation.

    #[test]
    fn percent_encoded_own_host_is_compared_decoded() {
        assert_eq!(
            admitted(&own(), "http://%73ite.example/"),
            "http://site.example/"
        );
    }

    #[test]
    fn percent_encoded_evil_host_refused() {
        assert_eq!(
            own().check("http://%65vil.example/"),
            Err(not_own_site("evil.example", 80))
        );
        assert_eq!(
            own().check("http://site.example%2eevil.example/"),
            Err(not_own_site("site.example.evil.example", 80))
        );
    }

    #[test]
    fn percent_encoded_slash_before_at_is_user_info() {
        assert_eq!(
            own().check("http://site.example%2F@evil.example"),
            Err(EgressDenied::UserInfo)
        );
    }

    #[test]
    fn percent_encoded_nul_in_host_unparsable() {
        assert!(matches!(
            own().check("http://site.example%00/"),
            Err(EgressDenied::Unparsable(_))
        ));
    }

    #[test]
    fn idna_lookalike_host_refused() {
        // The first letter is CYRILLIC SMALL LETTER DZE, not `s`.
        assert_eq!(
            own().check("http://\u{0455}ite.example/"),
            Err(not_own_site("xn--ite-ehd.example", 80))
        );
    }

    #[test]
    fn idna_host_equal_after_mapping_admitted() {
        assert_eq!(
            admitted(&own(), "http://ｓｉｔｅ.example/"),
            "http://site.example/"
        );
        let guard = guard(&["https://bücher.example"]);
        assert_eq!(
            admitted(&guard, "https://BÜCHER.example/"),
            "https://xn--bcher-kva.example/"
        );
        admitted(&guard, "https://xn--bcher-kva.example/");
    }

    // Characters parsers disagree on.

    #[test]
    fn backslash_scheme_trick_refused() {
        assert_eq!(
            own().check(r"http:\\evil.example"),
            Err(EgressDenied::DisallowedCharacter { character: '\\' })
        );
        // Refused even towards the own site: curl and WHATWG disagree on it.
        assert_eq!(
            own().check(r"http://site.example\@evil.example"),
            Err(EgressDenied::DisallowedCharacter { character: '\\' })
        );
    }

    #[test]
    fn backslash_after_leading_slash_refused() {
        assert_eq!(
            own().check(r"/\evil.example"),
            Err(EgressDenied::DisallowedCharacter { character: '\\' })
        );
    }

    #[test]
    fn tab_and_newline_refused() {
        assert_eq!(
            own().check("/\t/evil.example"),
            Err(EgressDenied::DisallowedCharacter { character: '\t' })
        );
        assert_eq!(
            own().check("http://ev\nil.example"),
            Err(EgressDenied::DisallowedCharacter { character: '\n' })
        );
    }

    // Length.

    #[test]
    fn over_long_input_refused_before_parsing() {
        let input = format!("http://site.example/{}", "a".repeat(MAX_URL_LEN));
        assert_eq!(
            own().check(&input),
            Err(EgressDenied::TooLong {
                len: input.len(),
                max: MAX_URL_LEN
            })
        );
        // Not even parsed: garbage of that length gets the same answer.
        let garbage = "\u{0}".repeat(MAX_URL_LEN + 1);
        assert!(matches!(
            own().check(&garbage),
            Err(EgressDenied::TooLong { .. })
        ));
    }

    #[test]
    fn input_growing_past_limit_when_normalised_refused() {
        // Each `é` (2 bytes) becomes `%C3%A9` (6): short enough as given, too long
        // as sent.
        let input = format!("http://site.example/{}", "é".repeat(MAX_URL_LEN / 4));
        assert!(input.len() <= MAX_URL_LEN);
        assert!(matches!(
            own().check(&input),
            Err(EgressDenied::TooLong { .. })
        ));
    }

    #[test]
    fn input_at_limit_admitted() {
        let prefix = "http://site.example/";
        let input = format!("{prefix}{}", "a".repeat(MAX_URL_LEN - prefix.len()));
        assert_eq!(admitted(&own(), &input).len(), MAX_URL_LEN);
    }

    // Redirects.

    fn start() -> Url {
        match Url::parse("http://site.example/a/b") {
            Ok(url) => url,
            Err(error) => panic!("{error}"),
        }
    }

    #[test]
    fn redirect_relative_location_resolved_against_current() {
        let next = own().check_redirect(&start(), "../c?d");
        assert_eq!(
            next.map(String::from),
            Ok("http://site.example/c?d".to_owned())
        );
    }

    #[test]
    fn redirect_to_evil_host_refused() {
        assert_eq!(
            own().check_redirect(&start(), "https://evil.example/"),
            Err(EgressDenied::NotOwnSite {
                scheme: "https".to_owned(),
                host: "evil.example".to_owned(),
                port: 443,
            })
        );
    }

    #[test]
    fn redirect_scheme_relative_location_checked_after_resolving() {
        assert_eq!(
            own().check_redirect(&start(), "//evil.example/"),
            Err(not_own_site("evil.example", 80))
        );
        assert_eq!(
            own()
                .check_redirect(&start(), "//site.example/x")
                .map(String::from),
            Ok("http://site.example/x".to_owned())
        );
    }

    #[test]
    fn redirect_to_file_refused() {
        assert_eq!(
            own().check_redirect(&start(), "file:///etc/passwd"),
            Err(EgressDenied::SchemeNotAllowed {
                scheme: "file".to_owned()
            })
        );
    }

    /// A fake server: each path redirects to the location in the map, any
    /// other path answers with itself.
    fn server<'a>(
        redirects: &'a [(&'a str, &'a str)],
        seen: &'a mut Vec<String>,
    ) -> impl FnMut(&Url) -> Result<Hop<String>, std::convert::Infallible> + 'a {
        move |url| {
            seen.push(url.to_string());
            Ok(
                match redirects.iter().find(|(from, _)| *from == url.as_str()) {
                    Some((_, to)) => Hop::Redirect((*to).to_owned()),
                    None => Hop::Done(url.to_string()),
                },
            )
        }
    }

    #[test]
    fn follow_checks_every_hop() {
        let chain = [
            ("http://site.example/a", "/b"),
            ("http://site.example/b", "c"),
        ];
        let mut seen = Vec::new();
        let done = own().follow("/a", 5, server(&chain, &mut seen));
        assert_eq!(done.ok().as_deref(), Some("http://site.example/c"));
        assert_eq!(seen.len(), 3);
    }

    #[test]
    fn follow_refuses_chain_at_evil_hop() {
        let chain = [
            ("http://site.example/a", "/b"),
            ("http://site.example/b", "http://evil.example/c"),
        ];
        let mut seen = Vec::new();
        let result = own().follow("/a", 5, server(&chain, &mut seen));
        assert!(matches!(
            result,
            Err(FollowError::Denied {
                hop: 2,
                denial: EgressDenied::NotOwnSite { .. }
            })
        ));
        assert!(!seen.iter().any(|url| url.contains("evil")), "{seen:?}");
    }

    #[test]
    fn follow_refuses_too_many_hops() {
        let chain = [
            ("http://site.example/a", "/b"),
            ("http://site.example/b", "/c"),
            ("http://site.example/c", "/d"),
        ];
        let mut seen = Vec::new();
        let result = own().follow("/a", 2, server(&chain, &mut seen));
        assert!(matches!(
            result,
            Err(FollowError::TooManyRedirects { max: 2 })
        ));
        assert_eq!(seen.len(), 3);

        let mut seen = Vec::new();
        let result = own().follow("/a", 3, server(&chain, &mut seen));
        assert_eq!(result.ok().as_deref(), Some("http://site.example/d"));
    }

    #[test]
    fn follow_refuses_any_redirect_when_max_is_zero() {
        let chain = [("http://site.example/a", "/b")];
        let mut seen = Vec::new();
        let result = own().follow("/a", 0, server(&chain, &mut seen));
        assert!(matches!(
            result,
            Err(FollowError::TooManyRedirects { max: 0 })
        ));
    }

    #[test]
    fn follow_refuses_evil_start_without_fetching() {
        let mut seen = Vec::new();
        let result = own().follow("http://evil.example/", 5, server(&[], &mut seen));
        assert!(matches!(result, Err(FollowError::Denied { hop: 0, .. })));
        assert!(seen.is_empty());
    }

    #[test]
    fn follow_reports_fetch_error_with_its_hop() {
        let result: Result<(), _> = own().follow("/a", 5, |url| {
            if url.path() == "/a" {
                Ok(Hop::Redirect("/b".to_owned()))
            } else {
                Err("connection reset")
            }
        });
        assert!(matches!(
            result,
            Err(FollowError::Fetch {
                hop: 1,
                error: "connection reset"
            })
        ));
    }

    /// Drives a future that never waits; enough for fakes, without a runtime.
    fn ready<F: std::future::Future>(future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(output) => output,
            std::task::Poll::Pending => panic!("test future waited"),
        }
    }

    #[test]
    fn follow_async_refuses_chain_at_evil_hop() {
        let chain = [
            ("http://site.example/a", "/b"),
            ("http://site.example/b", "http://evil.example/c"),
        ];
        let mut seen = Vec::new();
        let mut fetch = server(&chain, &mut seen);
        let guard = own();
        let result = ready(guard.follow_async("/a", 5, |url: Url| std::future::ready(fetch(&url))));
        assert!(matches!(result, Err(FollowError::Denied { hop: 2, .. })));
    }

    #[test]
    fn follow_async_refuses_too_many_hops() {
        let chain = [
            ("http://site.example/a", "/b"),
            ("http://site.example/b", "/a"),
        ];
        let mut seen = Vec::new();
        let mut fetch = server(&chain, &mut seen);
        let guard = own();
        let result =
            ready(guard.follow_async("/a", 10, |url: Url| std::future::ready(fetch(&url))));
        assert!(matches!(
            result,
            Err(FollowError::TooManyRedirects { max: 10 })
        ));
        drop(fetch);
        assert_eq!(seen.len(), 11);
    }
}
