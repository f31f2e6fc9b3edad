use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use site_model::{LanguageId, Page, PageId, SiteConfig};
use tool_core::egress::{EgressGuard, Site as Origin};
use tool_core::redact::redact_text;
use tool_core::{Egress, Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::tree::{Tree, kind_name};
use crate::access::{not_found, viewer};

/// Find the page that serves a URL of one of this host's sites. Sends no
/// request: the address is matched against the sites' base URLs (scheme,
/// host and port exactly) and then, segment by segment, against the slugs
/// of the page tree (a first segment such as `de` selects that language).
///
/// Returns the page's id, title, kind, site and language. A URL of another
/// host, a path no page serves, and a page you may not see all give the
/// same answer. Hidden and deleted pages serve nothing.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "structure",
    effect = "read",
    data = "public",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct ResolveUrl {
    /// A full URL (`https://www.example.com/products/`), or a path
    /// starting with `/`, which is read against the first site (by
    /// identifier). Query and fragment are ignored.
    url: String,
}

impl Execute for ResolveUrl {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let sites = viewer.site.sites().await.map_err(|_| not_found())?;
        let tree = Tree::load(&*viewer.site).await?;
        let is_path = self.url.starts_with('/') && !self.url.starts_with("//");
        for config in sites.iter().take(if is_path { 1 } else { usize::MAX }) {
            let Some((guard, prefix)) = guard(config) else {
                continue;
            };
            // The guard parses as a client would (percent-encoding, IDNA,
            // `\`, user-info), so a look-alike host never matches a site.
            let Ok(url) = guard.check(&self.url) else {
                continue;
            };
            let Some(path) = url.path().strip_prefix(prefix) else {
                continue;
            };
            return match walk(&tree, config, path) {
                Some((page, language)) if tree.is_shown(page.id, &viewer.permissions) => {
                    Ok(ToolOutput::json(json!({
                        "page": page.id,
                        "title": redact_text(page.title.read(cx)),
                        "kind": kind_name(page.kind),
                        "site": config.identifier,
                        "language": language,
                    })))
                }
                _ => Err(not_found()),
            };
        }
        Err(not_found())
    }
}

/// A guard admitting only `config`'s origin, and the path its base URL
/// puts before every page's (`/` for a site at the root of its host).
fn guard(config: &SiteConfig) -> Option<(EgressGuard, &str)> {
    let (scheme, rest) = config.base_url.split_once("://")?;
    let slash = rest.find('/').unwrap_or(rest.len());
    let origin = Origin::parse(&format!("{scheme}://{}", &rest[..slash])).ok()?;
    let prefix = rest.get(slash..).filter(|p| !p.is_empty()).unwrap_or("/");
    Some((EgressGuard::new(Egress::OwnSite, vec![origin]), prefix))
}

/// The published page `path` names under the site's root, with the code of
/// the language it is in.
fn walk<'a>(tree: &'a Tree, config: &'a SiteConfig, path: &str) -> Option<(&'a Page, &'a str)> {
    let mut segments = path
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(percent_decode)
        .peekable();
    let default = config.languages.first()?;
    let mut language = default;
    if let Some(Some(first)) = segments.peek()
        && let Some(other) = config.languages[1..].iter().find(|l| l.code == *first)
    {
        language = other;
        segments.next();
    }
    let mut page = config.root_page;
    for segment in segments {
        let segment = segment?;
        page = *tree.children(Some(page)).iter().find(|&&child| {
            tree.is_published(child)
                && in_language(tree, child, language.id).is_some_and(|p| p.slug == segment)
        })?;
    }
    let served = in_language(tree, page, language.id)?;
    (tree.is_published(page) && tree.is_published(served.id)).then_some((served, &language.code))
}

/// The page, or its translation into `language`.
fn in_language(tree: &Tree, page: PageId, language: LanguageId) -> Option<&Page> {
    if language == LanguageId(0) {
        tree.page(page)
    } else {
        tree.translation(page, language)
    }
}

/// A path segment with `%XX` decoded; `None` when it is not UTF-8.
fn percent_decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .filter(|hex| hex.iter().all(u8::is_ascii_hexdigit))
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                i += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(decoded).ok()
}
