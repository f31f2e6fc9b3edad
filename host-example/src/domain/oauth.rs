//! The `oauth` setting: which issuer's access tokens this server takes,
//! for which resource, and which host user each subject acts as; checked
//! whole before it is stored. Verifying a token is the app's
//! (`app::oauth`).

use std::collections::BTreeMap;

use reqwest::Url;
use serde::{Deserialize, Serialize};

/// The `oauth` setting: the authorization server whose access tokens this
/// server accepts, as `host-example settings set oauth '{...}'` stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, try_from = "RawOAuthSettings")]
pub struct OAuthSettings {
    /// The issuer identifier, compared exactly with a token's `iss`, and
    /// named in the protected-resource metadata's `authorization_servers`.
    pub issuer: String,
    /// This server's MCP endpoint as clients reach it
    /// (`https://host.example/mcp`): the audience a token must name, and
    /// the `resource` of the protected-resource metadata.
    pub resource: String,
    /// Where the issuer publishes its JSON Web Key Set.
    pub jwks_uri: String,
    /// Maps a token's `sub` to a host user's name; a subject not listed
    /// names the host user directly.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub subjects: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOAuthSettings {
    issuer: String,
    resource: String,
    jwks_uri: String,
    #[serde(default)]
    subjects: BTreeMap<String, String>,
}

impl TryFrom<RawOAuthSettings> for OAuthSettings {
    type Error = String;

    fn try_from(raw: RawOAuthSettings) -> Result<Self, String> {
        for (field, value) in [
            ("issuer", &raw.issuer),
            ("resource", &raw.resource),
            ("jwks_uri", &raw.jwks_uri),
        ] {
            let url = Url::parse(value).map_err(|e| format!("`{field}` is not a URL: {e}"))?;
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err(format!("`{field}` must be an http or https URL"));
            }
        }
        Ok(OAuthSettings {
            issuer: raw.issuer,
            resource: raw.resource,
            jwks_uri: raw.jwks_uri,
            subjects: raw.subjects,
        })
    }
}

impl OAuthSettings {
    /// The protected-resource metadata (RFC 9728) for [`resource`](Self::resource).
    pub fn metadata(&self) -> serde_json::Value {
        serde_json::json!({
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "bearer_methods_supported": ["header"],
        })
    }

    /// Where the metadata is served for this resource: the well-known path
    /// with the resource's path appended (RFC 9728 §3.1), on its origin.
    pub fn metadata_url(&self) -> String {
        // Checked to be an http(s) URL with a host when stored.
        match Url::parse(&self.resource) {
            Ok(url) => {
                let path = url.path().trim_end_matches('/');
                format!(
                    "{}/.well-known/oauth-protected-resource{path}",
                    url.origin().ascii_serialization()
                )
            }
            Err(_) => String::new(),
        }
    }

    /// The host user a token's subject acts as.
    pub(crate) fn user_for<'a>(&'a self, subject: &'a str) -> &'a str {
        self.subjects.get(subject).map_or(subject, String::as_str)
    }
}
