//! OAuth access tokens for Streamable HTTP: where the settings name an
//! issuer ([`OAuthSettings`], the `oauth` setting), a JWT it signed for
//! this server is accepted as a bearer token beside the host's own tokens.
//!
//! A token is accepted only when all of these hold: its `alg` is RS256 or
//! ES256; its signature verifies against a key of the issuer's JSON Web Key
//! Set (fetched from the configured `jwks_uri`); `iss` is the issuer;
//! `aud` names this server's `resource`; `exp` has not passed (60 s of
//! leeway for clock skew); and its `sub` maps to an existing host user.
//! Anything else is the same `401` as an unknown token.
//!
//! The key set is fetched when first needed and kept; a token naming a key
//! id the kept set lacks (the issuer rotated its keys) fetches it again, at
//! most once per [`JWKS_REFETCH_INTERVAL`], so tokens with made-up key ids
//! cannot make this server hammer the issuer.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use crate::app::HostError;
pub use crate::domain::oauth::OAuthSettings;

/// How often, at most, an unknown key id fetches the issuer's key set again.
pub const JWKS_REFETCH_INTERVAL: Duration = Duration::from_secs(30);

/// How long fetching the issuer's key set may take.
const JWKS_FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The claims checked; `iss`, `aud` and `exp` by the validation itself.
#[derive(Deserialize)]
struct Claims {
    sub: String,
}

/// A key set as fetched from one URL.
struct FetchedKeys {
    uri: String,
    keys: JwkSet,
    fetched: Instant,
}

/// Verifies access tokens against the issuer's keys, fetched and kept.
pub struct OAuthVerifier {
    http: reqwest::Client,
    keys: Mutex<Option<Arc<FetchedKeys>>>,
}

impl Default for OAuthVerifier {
    fn default() -> Self {
        OAuthVerifier {
            http: reqwest::Client::new(),
            keys: Mutex::new(None),
        }
    }
}

impl std::fmt::Debug for OAuthVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthVerifier").finish_non_exhaustive()
    }
}

/// Whether `token` has a JWT's shape (three base64url parts), so it is
/// not one of the host's own opaque tokens.
pub(crate) fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

impl OAuthVerifier {
    /// The host user `token` acts as, if it is a valid access token of the
    /// issuer for this server; `None` for any token that is not, whatever
    /// the reason. An error only when the issuer's keys cannot be fetched.
    pub async fn user(
        &self,
        settings: &OAuthSettings,
        token: &str,
    ) -> Result<Option<String>, HostError> {
        let Ok(header) = jsonwebtoken::decode_header(token) else {
            return Ok(None);
        };
        // Asymmetric only: a shared secret would let anyone holding it
        // (every resource server of the issuer) mint tokens.
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Ok(None);
        }
        let keys = self.keys(settings, header.kid.as_deref()).await?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&settings.issuer]);
        validation.set_audience(&[&settings.resource]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        for jwk in candidates(&keys.keys, header.kid.as_deref()) {
            let Ok(key) = DecodingKey::from_jwk(jwk) else {
                continue;
            };
            if let Ok(data) = jsonwebtoken::decode::<Claims>(token, &key, &validation) {
                return Ok(Some(settings.user_for(&data.claims.sub).to_owned()));
            }
        }
        Ok(None)
    }

    /// The issuer's key set, fetched again when `kid` is missing from the
    /// kept one and the last fetch is old enough, or when the URL changed.
    async fn keys(
        &self,
        settings: &OAuthSettings,
        kid: Option<&str>,
    ) -> Result<Arc<FetchedKeys>, HostError> {
        let kept = self.keys.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(kept) = &kept
            && kept.uri == settings.jwks_uri
            && (kid.is_none_or(|kid| kept.keys.find(kid).is_some())
                || kept.fetched.elapsed() < JWKS_REFETCH_INTERVAL)
        {
            return Ok(Arc::clone(kept));
        }
        let fetched = Arc::new(FetchedKeys {
            uri: settings.jwks_uri.clone(),
            keys: self.fetch(&settings.jwks_uri).await?,
            fetched: Instant::now(),
        });
        *self.keys.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&fetched));
        Ok(fetched)
    }

    async fn fetch(&self, uri: &str) -> Result<JwkSet, HostError> {
        let failed = |e: &dyn std::fmt::Display| {
            HostError::OAuth(format!("could not fetch the issuer's keys from {uri}: {e}"))
        };
        let response = self
            .http
            .get(uri)
            .timeout(JWKS_FETCH_TIMEOUT)
            .send()
            .await
            .map_err(|e| failed(&e))?
            .error_for_status()
            .map_err(|e| failed(&e))?;
        let body = response.bytes().await.map_err(|e| failed(&e))?;
        serde_json::from_slice(&body).map_err(|e| failed(&e))
    }
}

/// The keys a token may be signed with: the one its `kid` names, or,
/// without a `kid`, every key of the set.
fn candidates<'a>(keys: &'a JwkSet, kid: Option<&'a str>) -> impl Iterator<Item = &'a Jwk> {
    keys.keys
        .iter()
        .filter(move |jwk| kid.is_none_or(|kid| jwk.common.key_id.as_deref() == Some(kid)))
}
