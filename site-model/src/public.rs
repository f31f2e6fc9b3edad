//! What the public may read: the one rule every public-content index and
//! answer follows ([`public_sources`]).
//!
//! Whoever asks, an administrator included, public retrieval sees only what
//! an anonymous visitor of the site could read: the rule is about the
//! content, not about the actor, so it takes no [`Permissions`](crate::Permissions).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use tool_core::Authored;

use crate::{
    Configuration, ContentElement, FileQuery, Files, LanguageId, Page, PageId, PageKind, Pages,
    SiteConfig, SiteError,
};

/// What a public source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A page in one language with its public content elements.
    Page,
    /// A file's public metadata (title, alternative text).
    File,
}

impl SourceKind {
    /// Its name in a source id and in answers: `page` or `file`.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Page => "page",
            SourceKind::File => "file",
        }
    }
}

/// One thing a visitor may read, as plain text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublicSource {
    /// Its id: `page:<page id>` (a translation is a page of its own) or
    /// `file:<file id>`.
    pub id: String,
    /// What it is.
    pub kind: SourceKind,
    /// The site it belongs to, by identifier.
    pub site: String,
    /// Its language's code, e.g. `en`.
    pub language: String,
    /// Its title.
    #[serde(with = "tool_core::authored::stored")]
    pub title: Authored<String>,
    /// Where a visitor reads it.
    pub url: String,
    /// Its readable text, HTML taken out: for a page its title, description
    /// and public elements' headers and bodies, in column and sorting order;
    /// for a file its title and alternative text in its language.
    #[serde(with = "tool_core::authored::stored")]
    pub text: Authored<String>,
}

/// Everything the public may read of every site, pages first (by id), then
/// files (by id).
///
/// - A **page** is public when it is a standard page (folders, links and
///   shortcuts show no content of their own), neither it nor any page on
///   its rootline is hidden or deleted, the rootline ends at a site's root
///   page, and its language is one of that site's languages. A translation
///   is public only when the page it translates is, and every page above it
///   has a public translation into its language too (its address is made of
///   their slugs, as a visitor reaches it).
/// - Its **elements** count when they are neither hidden nor deleted, are in
///   the page's language, and (for a translated element) the element they
///   translate is neither hidden nor deleted.
/// - A **file** is public when it is not missing and a public page or public
///   element uses it; its public metadata is its title and its alternative
///   text in that page's language. A file only hidden or deleted content
///   uses is as unpublished as that content.
///
/// Nothing else (records, settings, hidden or deleted content, files'
/// storage details) is ever public by this rule.
pub async fn public_sources<S>(site: &S) -> Result<Vec<PublicSource>, SiteError>
where
    S: Pages + Files + Configuration + ?Sized,
{
    let pages = site.pages().await?;
    let configs = site.sites().await?;
    let tree = Tree::new(&pages);
    let mut sources = Vec::new();
    // Public elements by id with the page source they are on, for files.
    let mut element_on: HashMap<u64, (PageId, usize)> = HashMap::new();
    let mut page_source: HashMap<PageId, usize> = HashMap::new();
    let mut sorted: Vec<&Page> = pages.iter().collect();
    sorted.sort_by_key(|page| page.id);
    for page in sorted {
        let Some((config, path)) = tree.public_address(page, &configs) else {
            continue;
        };
        let Some(language) = config.languages.iter().find(|l| l.id == page.language) else {
            continue;
        };
        let elements = tree.public_elements(site, page).await?;
        // Joined by the host, not shown to a model: the text stays
        // authored (wrapped again below).
        let mut text = vec![page.title.for_host().clone()];
        text.extend(page.description.as_ref().map(|d| d.for_host().clone()));
        for element in &elements {
            element_on.insert(element.id.0, (page.id, sources.len()));
            text.push(plain_text(element.header.for_host()));
            text.push(plain_text(element.body.for_host()));
        }
        page_source.insert(page.id, sources.len());
        let prefix = if language.id == LanguageId(0) {
            String::new()
        } else {
            format!("{}/", language.code)
        };
        sources.push(PublicSource {
            id: format!("page:{}", page.id),
            kind: SourceKind::Page,
            site: config.identifier.clone(),
            language: language.code.clone(),
            title: page.title.clone(),
            url: format!("{}{prefix}{path}", with_slash(&config.base_url)),
            text: Authored::new(join_text(text)),
        });
    }
    let storages: BTreeMap<_, _> = site
        .storages()
        .await?
        .into_iter()
        .map(|storage| (storage.id, storage.name))
        .collect();
    let files = site
        .search_files(&FileQuery {
            storage: None,
            text: String::new(),
            limit: usize::MAX,
        })
        .await?;
    for file in files.into_iter().filter(|file| !file.missing) {
        let mut users: Vec<(PageId, usize)> = Vec::new();
        for reference in site.references(file.id).await? {
            let user = match reference.table.as_str() {
                "content" => element_on.get(&reference.record_id).copied(),
                "pages" => page_source
                    .get(&PageId(reference.record_id))
                    .map(|index| (PageId(reference.record_id), *index)),
                _ => None,
            };
            users.extend(user);
        }
        let Some((page, index)) = users.into_iter().min() else {
            continue;
        };
        let (site_id, language_code, base) = {
            let on = &sources[index];
            (on.site.clone(), on.language.clone(), on.url.clone())
        };
        let language = tree.pages.get(&page).map_or(LanguageId(0), |p| p.language);
        let mut text = Vec::new();
        text.extend(file.title.as_ref().map(|title| title.for_host().clone()));
        text.extend(file.alternative.for_host().get(&language).cloned());
        let storage = storages.get(&file.storage).map_or("files", String::as_str);
        let site_base = configs
            .iter()
            .find(|config| config.identifier == site_id)
            .map_or(base, |config| with_slash(&config.base_url));
        sources.push(PublicSource {
            id: format!("file:{}", file.id),
            kind: SourceKind::File,
            site: site_id,
            language: language_code,
            title: file.title.clone().unwrap_or_else(|| file.name.clone()),
            // The URL carries the file's path; every output that shows a
            // source's URL shows its title too, read through the call.
            url: format!("{site_base}{storage}/{}", file.path.for_host()),
            text: Authored::new(join_text(text)),
        });
    }
    Ok(sources)
}

/// The pages indexed for the public rule.
struct Tree<'a> {
    pages: HashMap<PageId, &'a Page>,
    translations: HashMap<(PageId, LanguageId), &'a Page>,
}

impl<'a> Tree<'a> {
    fn new(pages: &'a [Page]) -> Self {
        let mut translations = HashMap::new();
        for page in pages {
            if let Some(of) = page.translation_of {
                translations.insert((of, page.language), page);
            }
        }
        Tree {
            pages: pages.iter().map(|page| (page.id, page)).collect(),
            translations,
        }
    }

    fn is_visible(page: &Page) -> bool {
        !page.hidden && !page.deleted
    }

    /// The site a public page belongs to and its path under the site's base
    /// address (`warranty/` style, `""` for the root); `None` when the page
    /// is not public.
    fn public_address<'c>(
        &self,
        page: &Page,
        configs: &'c [SiteConfig],
    ) -> Option<(&'c SiteConfig, String)> {
        if page.kind != PageKind::Standard || !Self::is_visible(page) {
            return None;
        }
        let original = match page.translation_of {
            Some(of) => *self.pages.get(&of)?,
            None => page,
        };
        let language = page.language;
        // The default-language rootline, the page's original first.
        let mut line = Vec::new();
        let mut seen = HashSet::new();
        let mut next = Some(original.id);
        while let Some(id) = next {
            if !seen.insert(id) {
                return None; // a cycle is corrupt data: show nothing
            }
            let step = *self.pages.get(&id)?;
            if !Self::is_visible(step) {
                return None;
            }
            next = step.parent;
            line.push(step);
        }
        let root = line.last()?.id;
        let config = configs.iter().find(|config| config.root_page == root)?;
        if !config.languages.iter().any(|l| l.id == language) {
            return None;
        }
        // Every page on the line is shown in the page's language: in the
        // default language itself, otherwise through its translation, which
        // must be public too (a visitor reaches the page through them).
        let mut slugs = Vec::new();
        for (depth, step) in line.iter().rev().enumerate() {
            let shown = if language == LanguageId(0) {
                *step
            } else {
                let translated = *self.translations.get(&(step.id, language))?;
                if !Self::is_visible(translated) {
                    return None;
                }
                translated
            };
            // The root's slug is the site's base address. The URL is shown
            // only beside the source's title, read through the call.
            let slug = shown.slug.for_host();
            if depth > 0 && !slug.is_empty() {
                slugs.push(format!("{slug}/"));
            }
        }
        Some((config, slugs.concat()))
    }

    /// The page's public elements in its language, by column, sorting, id.
    async fn public_elements<S>(
        &self,
        site: &S,
        page: &Page,
    ) -> Result<Vec<ContentElement>, SiteError>
    where
        S: Pages + ?Sized,
    {
        let mut all = site.elements(page.id).await?;
        if let Some(original) = page.translation_of {
            all.extend(site.elements(original).await?);
        }
        let by_id: HashMap<_, _> = all.iter().map(|e| (e.id, e.clone())).collect();
        let mut public: Vec<ContentElement> = all
            .into_iter()
            .filter(|element| element.language == page.language)
            .filter(|element| !element.hidden && !element.deleted)
            .filter(|element| {
                element.translation_of.is_none_or(|of| {
                    by_id
                        .get(&of)
                        .is_some_and(|original| !original.hidden && !original.deleted)
                })
            })
            .collect();
        public.sort_by_key(|element| (element.column, element.sorting, element.id));
        public.dedup_by_key(|element| element.id);
        Ok(public)
    }
}

fn with_slash(base: &str) -> String {
    if base.ends_with('/') {
        base.to_owned()
    } else {
        format!("{base}/")
    }
}

fn join_text(parts: Vec<String>) -> String {
    parts
        .into_iter()
        .map(|part| part.trim().to_owned())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Text a visitor reads in an HTML fragment: tags dropped (a block tag
/// leaves a space, so words do not run together), the common entities
/// decoded, white space folded.
pub fn plain_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            _ => out.push(ch),
        }
    }
    let decoded = out
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}
