//! What a result shows beside its text and JSON: images, audio, links to
//! resources and resources embedded whole ([`ContentItem`]), as MCP's
//! `tools/call` content carries them.
//!
//! Binary data is kept base64-encoded, the form every wire format that
//! carries it uses, so nothing encodes twice. One result carries at most
//! [`MAX_CONTENT_BYTES`] of items (their encoded data and text): the call
//! path refuses a larger one rather than pass it to a client or a model.
//! A consumer that cannot carry an item (a model API whose tool messages
//! are text only) is given [`ContentItem::describe`] instead.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

/// The most bytes of content items one result may carry: their base64
/// data and embedded text, summed (4 MiB).
pub const MAX_CONTENT_BYTES: usize = 4 * 1024 * 1024;

/// One content item of a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentItem {
    /// An image: base64 data and its MIME type (`image/png`).
    Image {
        /// The bytes, base64-encoded (standard alphabet, padded).
        data: String,
        /// The MIME type, `image/…`.
        mime_type: String,
    },
    /// Audio: base64 data and its MIME type (`audio/wav`).
    Audio {
        /// The bytes, base64-encoded (standard alphabet, padded).
        data: String,
        /// The MIME type, `audio/…`.
        mime_type: String,
    },
    /// A link to a resource the client may fetch itself.
    ResourceLink {
        /// Where it is.
        uri: String,
        /// Its name, for people.
        name: String,
        /// Its MIME type, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// What it is, if said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// A resource embedded whole.
    Resource {
        /// What it is called.
        uri: String,
        /// Its MIME type, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Its contents.
        body: ResourceBody,
    },
}

/// An embedded resource's contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes, base64-encoded.
    Blob(String),
}

impl ContentItem {
    /// An image of `bytes` in the format `mime_type` names.
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        ContentItem::Image {
            data: STANDARD.encode(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// Audio of `bytes` in the format `mime_type` names.
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        ContentItem::Audio {
            data: STANDARD.encode(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// A link to the resource at `uri`, called `name`.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentItem::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            mime_type: None,
            description: None,
        }
    }

    /// A text resource at `uri`, embedded.
    pub fn text_resource(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        ContentItem::Resource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: ResourceBody::Text(text.into()),
        }
    }

    /// A binary resource at `uri`, embedded.
    pub fn binary_resource(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: &[u8],
    ) -> Self {
        ContentItem::Resource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: ResourceBody::Blob(STANDARD.encode(bytes)),
        }
    }

    /// The bytes it counts against [`MAX_CONTENT_BYTES`].
    pub fn size(&self) -> usize {
        match self {
            ContentItem::Image { data, .. } | ContentItem::Audio { data, .. } => data.len(),
            ContentItem::ResourceLink { .. } => 0,
            ContentItem::Resource { body, .. } => match body {
                ResourceBody::Text(text) | ResourceBody::Blob(text) => text.len(),
            },
        }
    }

    /// One line saying what it is, for a consumer that cannot carry it:
    /// `[image: image/png, 68 bytes]`. The data itself is never written
    /// out (a model cannot read base64, and it would fill the context).
    pub fn describe(&self) -> String {
        match self {
            ContentItem::Image { data, mime_type } => {
                format!("[image: {mime_type}, {} bytes]", decoded_len(data))
            }
            ContentItem::Audio { data, mime_type } => {
                format!("[audio: {mime_type}, {} bytes]", decoded_len(data))
            }
            ContentItem::ResourceLink { uri, name, .. } => {
                format!("[resource link: {name} <{uri}>]")
            }
            ContentItem::Resource { uri, body, .. } => match body {
                ResourceBody::Text(text) => format!("[resource {uri}]\n{text}"),
                ResourceBody::Blob(data) => {
                    format!("[resource {uri}: {} bytes]", decoded_len(data))
                }
            },
        }
    }

    /// Why this item may not leave a call, if it may not: an image or
    /// audio item whose MIME type is not of its kind, or whose data is not
    /// base64.
    pub(crate) fn problem(&self) -> Option<String> {
        let (kind, data, mime_type) = match self {
            ContentItem::Image { data, mime_type } => ("image", data, mime_type),
            ContentItem::Audio { data, mime_type } => ("audio", data, mime_type),
            ContentItem::Resource {
                body: ResourceBody::Blob(data),
                uri,
                ..
            } => {
                return STANDARD
                    .decode(data)
                    .is_err()
                    .then(|| format!("the resource `{uri}` is not base64"));
            }
            ContentItem::Resource { .. } | ContentItem::ResourceLink { .. } => return None,
        };
        if !mime_type
            .strip_prefix(kind)
            .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
        {
            return Some(format!(
                "an {kind} item's MIME type must be `{kind}/…`, not `{mime_type}`"
            ));
        }
        STANDARD
            .decode(data)
            .is_err()
            .then(|| format!("an {kind} item's data is not base64"))
    }
}

/// The length of what `data` decodes to, without decoding it.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}
