//! The values the store keeps whose rules live in the app layer: the
//! `unapproved_skills`, `oauth` and `allowed_origins` settings, a skill's
//! approved digest, why a run did not trust a skill. Their shapes (and the checks a setting's
//! value must pass before it is stored) are here, beneath the app layer;
//! what they mean is in `app::skills`, `app::oauth` and `app::origin`.

use std::collections::BTreeMap;

use reqwest::Url;
use serde::{Deserialize, Serialize};

/// What runs do with a skill no administrator approved (the setting
/// `unapproved_skills`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnapprovedSkills {
    /// Not trusted, like a changed skill: no tools, no text.
    #[default]
    Refuse,
    /// Used as if approved (a run notes it).
    Allow,
}

/// Why a skill is not trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Distrust {
    /// Its files differ from the ones approved.
    Changed {
        /// Which files, and how.
        changes: Vec<FileChange>,
        /// Who approved the skill as it was.
        approved_by: String,
        /// When (seconds since the Unix epoch).
        approved_at: i64,
    },
    /// No administrator approved it, and the setting refuses such skills.
    NotApproved,
    /// Its folder could not be hashed, so no approval can vouch for it.
    Unhashable {
        /// Why.
        reason: String,
    },
}

/// How a skill folder differs from the one approved, one file at a time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", content = "path", rename_all = "snake_case")]
pub enum FileChange {
    /// The file's bytes differ.
    Changed(String),
    /// A file that was not there when approved.
    Added(String),
    /// A file approved and now gone.
    Removed(String),
}

/// One file of a skill folder and the SHA-256 of its exact bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    /// Its path below the skill folder, `/`-separated.
    pub path: String,
    /// The SHA-256 of its bytes, lowercase hex.
    pub sha256: String,
}

/// Every file of a skill folder, in path order, and the digest over them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillDigest {
    /// The files, in byte order of their paths.
    pub files: Vec<FileDigest>,
    /// The SHA-256 over the files' lines, lowercase hex.
    pub digest: String,
}

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

/// A web origin (RFC 6454) an HTTP request may come from, as the
/// `allowed_origins` setting lists it: `scheme://host[:port]`, http or
/// https, kept in one form (lower case, the scheme's default port left
/// out), so comparing two is comparing strings. `null` (an opaque origin:
/// a sandboxed frame, a `file:` page) is never one: nobody can be told
/// apart behind it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct WebOrigin(String);

impl WebOrigin {
    /// `value` as an origin, or why it is none.
    pub fn parse(value: &str) -> Result<WebOrigin, String> {
        let refuse =
            || format!("`{value}` is not an origin: write `https://host` or `http://host:port`");
        let (scheme, authority) = value.split_once("://").ok_or_else(refuse)?;
        let scheme = scheme.to_ascii_lowercase();
        if !matches!(scheme.as_str(), "http" | "https")
            || authority.is_empty()
            || authority.contains(['/', '?', '#', '@', ' '])
        {
            return Err(refuse());
        }
        WebOrigin::from_authority(&scheme, authority).ok_or_else(refuse)
    }

    /// The origin of a page at `authority` (a `Host` header's value:
    /// `host[:port]`) over `scheme`, if it is a valid authority.
    pub fn from_authority(scheme: &str, authority: &str) -> Option<WebOrigin> {
        let authority: axum::http::uri::Authority = authority.parse().ok()?;
        if authority.as_str().contains('@') || authority.host().is_empty() {
            return None;
        }
        let host = authority.host().to_ascii_lowercase();
        let default = match scheme {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        Some(WebOrigin(match authority.port_u16() {
            Some(port) if port != default => format!("{scheme}://{host}:{port}"),
            _ => format!("{scheme}://{host}"),
        }))
    }

    /// Its host, lower-case, without the port (an IPv6 address in its
    /// brackets).
    pub fn host(&self) -> &str {
        let authority = self.0.split_once("://").map_or("", |(_, rest)| rest);
        match authority.strip_prefix('[') {
            Some(_) => authority
                .find(']')
                .map_or(authority, |end| &authority[..=end]),
            None => authority.split(':').next().unwrap_or(authority),
        }
    }

    /// Its one written form.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for WebOrigin {
    type Error = String;

    fn try_from(value: String) -> Result<Self, String> {
        WebOrigin::parse(&value)
    }
}

impl From<WebOrigin> for String {
    fn from(origin: WebOrigin) -> String {
        origin.0
    }
}
