//! Following redirects hop by hop: every `Location` is checked before it
//! is requested, and the number of hops is capped.

use url::Url;

use super::{EgressDenied, EgressGuard};

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

impl EgressGuard {
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
}

/// The number of the next redirect, if one more is allowed.
fn count_redirect<E>(done: usize, max_hops: usize) -> Result<usize, FollowError<E>> {
    if done >= max_hops {
        return Err(FollowError::TooManyRedirects { max: max_hops });
    }
    Ok(done + 1)
}
