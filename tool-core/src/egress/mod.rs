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
//! 1. The group's scope is [`Egress::OwnSite`](crate::Egress::OwnSite) ([`EgressDenied::NoEgress`])
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
//! the [`Url`](url::Url) that `check` returns, never the string it passed in: the
//! returned URL is serialised in the normalised form every parser reads the
//! same way. Backslashes and control characters are refused outright for the
//! same reason: no honest URL needs them unencoded.
//!
//! # What the guard does not do
//!
//! It checks names, not addresses: what a configured site's name resolves to
//! is the host's own DNS, trusted like the site list itself.

mod denied;
mod guard;
mod redirects;
mod site;

pub use denied::EgressDenied;
pub use guard::EgressGuard;
pub use redirects::{FollowError, Hop};
pub use site::{Site, SiteError};

/// The longest URL, in bytes, that [`EgressGuard::check`] will look at.
///
/// Longer input is refused before it is parsed, and so is a URL whose
/// normalised form (percent-encoding can triple a string) grows past it.
/// 8 KiB is what common servers and proxies accept for a request line.
pub const MAX_URL_LEN: usize = 8 * 1024;
