//! The `format`s schemars writes for derived tools (`#[schemars(email)]`,
//! `#[schemars(url)]`, `Ipv4Addr`, `Ipv6Addr`), read as `jsonschema` reads
//! them.

mod uri;

use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// A `format` the checks enforce.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Email,
    Uri,
    Ipv4,
    Ipv6,
}

impl Format {
    /// Its name in the schema.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Email => "email",
            Format::Uri => "uri",
            Format::Ipv4 => "ipv4",
            Format::Ipv6 => "ipv6",
        }
    }

    pub(crate) fn admits(self, text: &str) -> bool {
        match self {
            Format::Email => is_email(text),
            Format::Uri => uri::is_uri(text),
            Format::Ipv4 => Ipv4Addr::from_str(text).is_ok(),
            Format::Ipv6 => Ipv6Addr::from_str(text).is_ok(),
        }
    }
}

/// RFC 5321 mailbox, as `jsonschema` checks it: `email_address`'s parse,
/// an ASCII local part, and a domain that is a host name or a bracketed
/// IP address. One difference, on the safe side: a domain label in
/// Punycode (`xn--`) is refused here, where `jsonschema` decodes it and
/// checks the Unicode label.
fn is_email(text: &str) -> bool {
    // `email_address` refuses an empty quoted local part, which RFC 5321
    // allows.
    if let Some(domain) = text.strip_prefix("\"\"@") {
        return is_email(&format!("\"a\"@{domain}"));
    }
    let Ok(address) = email_address::EmailAddress::from_str(text) else {
        return false;
    };
    if !address.local_part().is_ascii() {
        return false;
    }
    let domain = address.domain();
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => {
                literal[5..].parse::<Ipv6Addr>().is_ok()
            }
            _ => literal.parse::<Ipv4Addr>().is_ok(),
        },
        None => is_host_name(domain),
    }
}

/// An ASCII host name (RFC 1034): labels of letters, digits and hyphens,
/// 1–63 bytes, not starting or ending with a hyphen, 253 bytes in all, no
/// trailing dot; a label with hyphens in its third and fourth places only
/// as Punycode, which is refused (see [`is_email`]).
fn is_host_name(name: &str) -> bool {
    if name.is_empty() || name.len() > 253 || name.ends_with('.') {
        return false;
    }
    name.split('.').all(|label| {
        let bytes = label.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= 63
            && bytes[0] != b'-'
            && bytes[bytes.len() - 1] != b'-'
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            && !(bytes.len() >= 4 && bytes[2] == b'-' && bytes[3] == b'-')
    })
}
