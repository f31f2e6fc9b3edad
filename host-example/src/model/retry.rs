//! When to ask again after a 429 or a 5xx, and how long to wait first.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

/// The first wait; each later one doubles it.
const BASE_DELAY: Duration = Duration::from_millis(200);

/// The longest computed wait.
const MAX_DELAY: Duration = Duration::from_secs(10);

/// The longest wait a server's `Retry-After` can ask for: a provider asking
/// for minutes would hold the run that long; better to fail and say so.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// A rate limit or a server-side failure: worth asking again. Every other
/// status is the same answer the next time.
pub(crate) fn is_retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

/// The wait before retry number `retry` (1 for the first): the server's
/// `retry-after-ms` or `Retry-After` (seconds) when it sent one, capped;
/// otherwise exponential from [`BASE_DELAY`], capped.
pub(crate) fn delay(retry: u32, headers: &HeaderMap) -> Duration {
    match retry_after(headers) {
        Some(asked) => asked.min(MAX_RETRY_AFTER),
        None => BASE_DELAY
            .saturating_mul(1u32 << retry.saturating_sub(1).min(16))
            .min(MAX_DELAY),
    }
}

/// `retry-after-ms` (OpenAI, Azure) or `Retry-After` in seconds. The
/// HTTP-date form of `Retry-After` is not read: the backoff applies.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| -> Option<f64> {
        headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok()
    };
    let from_secs = |secs: f64| Duration::try_from_secs_f64(secs).ok();
    number("retry-after-ms")
        .and_then(|ms| from_secs(ms / 1000.0))
        .or_else(|| number("retry-after").and_then(from_secs))
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let none = HeaderMap::new();
        assert_eq!(delay(1, &none), Duration::from_millis(200));
        assert_eq!(delay(2, &none), Duration::from_millis(400));
        assert_eq!(delay(3, &none), Duration::from_millis(800));
        assert_eq!(delay(10, &none), MAX_DELAY);
        assert_eq!(delay(u32::MAX, &none), MAX_DELAY);
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        assert_eq!(
            delay(1, &headers(&[("retry-after", "2")])),
            Duration::from_secs(2)
        );
        assert_eq!(
            delay(
                1,
                &headers(&[("retry-after-ms", "150"), ("retry-after", "2")])
            ),
            Duration::from_millis(150)
        );
        assert_eq!(
            delay(1, &headers(&[("retry-after", "3600")])),
            MAX_RETRY_AFTER
        );
        // A date, or nonsense: the backoff.
        assert_eq!(
            delay(
                1,
                &headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")])
            ),
            BASE_DELAY
        );
        assert_eq!(delay(1, &headers(&[("retry-after", "-1")])), BASE_DELAY);
    }
}
