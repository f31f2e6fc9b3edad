//! [`EgressGuard`]: the rules of [`crate::egress`], applied to one URL.

use url::{Host, ParseError, Url};

use super::site::{has_user_info, host_and_port, is_allowed_scheme};
use super::{EgressDenied, MAX_URL_LEN, Site};
use crate::Egress;

/// Checks URLs against a group's [`Egress`] and the host's own
/// [`Site`]s; see the [module docs](crate::egress) for the rules.
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
    /// Request the returned [`Url`], not `url`: see the [module docs](crate::egress).
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

    pub(super) fn first_site(&self) -> Result<&Site, EgressDenied> {
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
