//! RFC 3986 syntax for the `uri` format, checked without building a URI.
//!
//! Ported from `jsonschema` 0.61.2 (`src/keywords/rfc3986.rs`, MIT licence,
//! Copyright (c) 2020-2025 Dmitry Dygalo), so that `uri` means here what it
//! means to the validator the differential test holds these checks to. The
//! one change: where that file hands a bracketed IP literal to a full URI
//! parser, [`check`] reads it itself ([`ip_literal`]).

// unreserved / sub-delims: everything a `reg-name` holds besides percent-encodings.
const REG_NAME: u8 = 1;
const COLON: u8 = 2;
const AT: u8 = 4;
const SLASH: u8 = 8;
const QUESTION: u8 = 16;
const PERCENT: u8 = 32;

const PCHAR: u8 = REG_NAME | COLON | AT;
const PATH: u8 = PCHAR | SLASH;
// Query and fragment share one grammar.
const QUERY: u8 = PATH | QUESTION;
const USERINFO: u8 = REG_NAME | COLON;
const AUTHORITY: u8 = USERINFO | AT;

const CLASSES: [u8; 256] = {
    let mut table = [0; 256];
    let mut b: u8 = 0;
    loop {
        table[b as usize] = if b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
            ) {
            REG_NAME
        } else {
            match b {
                b':' => COLON,
                b'@' => AT,
                b'/' => SLASH,
                b'?' => QUESTION,
                b'%' => PERCENT,
                _ => 0,
            }
        };
        if b == u8::MAX {
            break;
        }
        b += 1;
    }
    table
};

/// Whether `text` is a URI (with a scheme).
pub(crate) fn is_uri(text: &str) -> bool {
    check(text).unwrap_or(false)
}

fn check(text: &str) -> Option<bool> {
    let bytes = text.as_bytes();
    let scheme = scheme_length(bytes);
    if scheme.is_none() {
        return Some(false);
    }
    let mut at = scheme.map_or(0, |length| length + 1);
    if bytes[at..].starts_with(b"//") {
        let Some(end) = scan(bytes, at + 2, AUTHORITY) else {
            return Some(false);
        };
        if matches!(bytes.get(end), Some(b'[' | b']')) {
            let end = ip_literal(bytes, at + 2)?;
            at = end;
        } else {
            if !authority(&bytes[at + 2..end]) {
                return Some(false);
            }
            at = end;
        }
    }
    let Some(end) = scan(bytes, at, PATH) else {
        return Some(false);
    };
    at = end;
    if bytes.get(at) == Some(&b'?') {
        let Some(end) = scan(bytes, at + 1, QUERY) else {
            return Some(false);
        };
        at = end;
    }
    if bytes.get(at) == Some(&b'#') {
        let Some(end) = scan(bytes, at + 1, QUERY) else {
            return Some(false);
        };
        at = end;
    }
    Some(at == bytes.len())
}

/// The length of a leading `scheme` followed by `:`.
fn scheme_length(bytes: &[u8]) -> Option<usize> {
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let length = bytes
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    (bytes[length] == b':').then_some(length)
}

/// The end of the run of bytes in `class`, percent-encodings included; `None` on a broken one.
#[inline]
fn scan(bytes: &[u8], mut at: usize, class: u8) -> Option<usize> {
    while let Some(&b) = bytes.get(at) {
        let found = CLASSES[b as usize];
        if found & class != 0 {
            at += 1;
        } else if found == PERCENT {
            if !bytes.get(at + 1..at + 3)?.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            at += 3;
        } else {
            break;
        }
    }
    Some(at)
}

/// `[ userinfo "@" ] host [ ":" port ]`, from bytes the authority scan already limited to
/// those characters with sound percent-encodings, which any userinfo then satisfies.
fn authority(bytes: &[u8]) -> bool {
    let host_port = bytes
        .iter()
        .position(|&b| b == b'@')
        .map_or(bytes, |at| &bytes[at + 1..]);
    let host_end = host_port
        .iter()
        .position(|&b| CLASSES[b as usize] & (COLON | AT) != 0)
        .unwrap_or(host_port.len());
    match host_port.get(host_end) {
        None => true,
        Some(b':') => host_port[host_end + 1..].iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// An authority whose host is a bracketed IP literal (`[` IPv6 or
/// IPvFuture `]`, RFC 3986 section 3.2.2), from `start`: the end of the
/// authority, or `None` when it is not one.
fn ip_literal(bytes: &[u8], start: usize) -> Option<usize> {
    let open = start + bytes[start..].iter().position(|&b| b == b'[')?;
    // What comes before the bracket is userinfo and its `@`.
    if open > start {
        let userinfo = &bytes[start..open - 1];
        if bytes[open - 1] != b'@' || scan(userinfo, 0, USERINFO)? != userinfo.len() {
            return None;
        }
    }
    let close = open + bytes[open..].iter().position(|&b| b == b']')?;
    let inside = std::str::from_utf8(&bytes[open + 1..close]).ok()?;
    let future = |text: &str| {
        let Some((version, rest)) = text
            .strip_prefix(['v', 'V'])
            .and_then(|t| t.split_once('.'))
        else {
            return false;
        };
        !version.is_empty()
            && version.bytes().all(|b| b.is_ascii_hexdigit())
            && !rest.is_empty()
            && rest
                .bytes()
                .all(|b| CLASSES[b as usize] & (REG_NAME | COLON) != 0)
    };
    if inside.parse::<std::net::Ipv6Addr>().is_err() && !future(inside) {
        return None;
    }
    let mut at = close + 1;
    if bytes.get(at) == Some(&b':') {
        at += 1;
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
    }
    matches!(bytes.get(at), None | Some(b'/' | b'?' | b'#')).then_some(at)
}
