//! The webhook signature, and the receiver's check (docs/webhooks.md).
//!
//! Each delivery carries the header [`SIGNATURE_HEADER`],
//! `t=TIMESTAMP,v1=HEX`: `TIMESTAMP` the seconds since the Unix epoch when
//! it was sent, `HEX` the lowercase hex HMAC-SHA256, keyed with the
//! webhook's secret (the whole string, `whsec_…`, as UTF-8 bytes), of
//! `TIMESTAMP`, a `.`, and the body's exact bytes. Signing the timestamp
//! with the body lets a receiver refuse a replay: [`verify`] recomputes
//! the signature, compares it in constant time, and refuses a timestamp
//! more than [`TOLERANCE_SECONDS`] away from its own clock.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header carrying the timestamp and the signature.
pub const SIGNATURE_HEADER: &str = "Host-Webhook-Signature";

/// The header carrying the event's id (the same on every attempt).
pub const EVENT_ID_HEADER: &str = "Host-Webhook-Id";

/// The header carrying the event's type.
pub const EVENT_TYPE_HEADER: &str = "Host-Webhook-Event";

/// How far a delivery's timestamp may be from the receiver's clock: five
/// minutes.
pub const TOLERANCE_SECONDS: i64 = 5 * 60;

/// Why a delivery was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The header is missing or not `t=…,v1=…`.
    #[error("the signature header is not `t=TIMESTAMP,v1=HEX`")]
    Malformed,
    /// The timestamp is more than five minutes away (a replay, or a clock
    /// far off).
    #[error("the timestamp {timestamp} is more than {TOLERANCE_SECONDS} seconds from now ({now})")]
    Stale {
        /// The delivery's timestamp.
        timestamp: i64,
        /// The receiver's clock.
        now: i64,
    },
    /// No `v1` signature matches the body and timestamp.
    #[error("the signature does not match")]
    Mismatch,
}

fn mac(secret: &str, timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length.
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The [`SIGNATURE_HEADER`] value for `body` sent at `timestamp`.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let digest = mac(secret, timestamp, body).finalize().into_bytes();
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("t={timestamp},v1={hex}")
}

/// The receiver's check of `header` (the [`SIGNATURE_HEADER`] value) on
/// `body`, at `now` (seconds since the Unix epoch): the timestamp within
/// [`TOLERANCE_SECONDS`] of `now`, and a `v1` signature that matches,
/// compared in constant time. Several `v1` entries may be given (while a
/// secret is being changed); one match is enough. Returns the timestamp.
pub fn verify(secret: &str, header: &str, body: &[u8], now: i64) -> Result<i64, SignatureError> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => {
                timestamp = Some(
                    value
                        .parse::<i64>()
                        .map_err(|_| SignatureError::Malformed)?,
                );
            }
            Some(("v1", value)) => signatures.push(parse_hex(value)?),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed)?;
    if signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    if now.abs_diff(timestamp) > TOLERANCE_SECONDS.unsigned_abs() {
        return Err(SignatureError::Stale { timestamp, now });
    }
    let matches = signatures
        .iter()
        .any(|signature| mac(secret, timestamp, body).verify_slice(signature).is_ok());
    if matches {
        Ok(timestamp)
    } else {
        Err(SignatureError::Mismatch)
    }
}

fn parse_hex(text: &str) -> Result<Vec<u8>, SignatureError> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return Err(SignatureError::Malformed);
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).map_err(|_| SignatureError::Malformed))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_body_verifies_and_nothing_else_does() {
        let header = sign("whsec_k", 1_000, b"{}");
        assert_eq!(verify("whsec_k", &header, b"{}", 1_010), Ok(1_000));
        assert_eq!(
            verify("whsec_k", &header, b"{ }", 1_010),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify("whsec_other", &header, b"{}", 1_010),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify("whsec_k", "v1=00", b"{}", 1_010),
            Err(SignatureError::Malformed)
        );
        // The timestamp is signed: moving it breaks the signature.
        let moved = header.replace("t=1000", "t=1300");
        assert_eq!(
            verify("whsec_k", &moved, b"{}", 1_300),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn a_timestamp_past_five_minutes_is_refused() {
        let header = sign("whsec_k", 1_000, b"{}");
        assert_eq!(verify("whsec_k", &header, b"{}", 1_300), Ok(1_000));
        assert!(matches!(
            verify("whsec_k", &header, b"{}", 1_301),
            Err(SignatureError::Stale { .. })
        ));
        assert!(matches!(
            verify("whsec_k", &header, b"{}", 699),
            Err(SignatureError::Stale { .. })
        ));
    }
}
