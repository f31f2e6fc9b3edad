//! The content browser: the page tree, a page's elements, the files; each
//! as the signed-in user may see it in the site (an editor sees the pages
//! and storages the site grants the user of the same name), with the
//! writing actions that fit each record ([`super::actions`]).

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use site_model::{Page, PageId, SiteError};

use super::WebState;
use super::actions::{forms, offered};
use super::layout::{self, OrFailure};
use super::session::SignedIn;
use crate::app::actions::RecordKind;

pub(super) async fn tree(State(state): State<WebState>, user: SignedIn) -> Response {
    let pages = match state
        .host
        .runs()
        .visible_pages(&user.actor())
        .await
        .or_failure()
    {
        Ok(pages) => pages,
        Err(response) => return response,
    };
    let mut children: BTreeMap<Option<PageId>, Vec<&Page>> = BTreeMap::new();
    for page in &pages {
        let parent = page.parent.filter(|p| pages.iter().any(|q| q.id == *p));
        children.entry(parent).or_default().push(page);
    }
    for list in children.values_mut() {
        list.sort_by_key(|p| (p.sorting, p.id));
    }
    let body = html! {
        p { a href="/content/files" { "Files" } }
        (branch(&children, None))
    };
    layout::page("Content", Some(&user), body).into_response()
}

fn branch(children: &BTreeMap<Option<PageId>, Vec<&Page>>, parent: Option<PageId>) -> Markup {
    html! {
        @if let Some(pages) = children.get(&parent) {
            ul.tree {
                @for page in pages {
                    li data-page=(page.id) {
                        a href={"/content/page/" (page.id)} { (page.title.for_host()) }
                        " " small { "/" (page.slug.for_host()) @if page.hidden { " · hidden" } }
                        (branch(children, Some(page.id)))
                    }
                }
            }
        }
    }
}

pub(super) async fn page(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<u64>,
) -> Response {
    let loaded = state
        .host
        .runs()
        .visible_page(&user.actor(), PageId(id))
        .await;
    let (page, columns, elements) = match loaded {
        Ok(loaded) => loaded,
        Err(SiteError::NotFound { .. }) => {
            let body = html! { p { "Not found, or not yours to see." } };
            return (
                axum::http::StatusCode::NOT_FOUND,
                layout::page("Page", Some(&user), body),
            )
                .into_response();
        }
        Err(error) => return layout::failure(&error.to_string()),
    };
    let offered = offered(&state, &user).await;
    let back = format!("/content/page/{}", page.id);
    let column_name = |id| {
        columns
            .iter()
            .find(|c| c.id == id)
            .map_or("?", |c| c.name.as_str())
    };
    let body = html! {
        dl.metadata data-page=(page.id) {
            dt { "Title" } dd.title { (page.title.for_host()) }
            dt { "Navigation title" } dd { (page.nav_title.as_ref().map_or("—", |title| title.for_host())) }
            dt { "Slug" } dd { (page.slug.for_host()) }
            dt { "Description" } dd.description { (page.description.as_ref().map_or("—", |text| text.for_host())) }
            dt { "Hidden" } dd { (if page.hidden { "yes" } else { "no" }) }
        }
        div.actions { (forms(&user, &offered, RecordKind::Page, page.id.0, &back)) }
        h2 { "Elements" }
        table.elements {
            thead { tr { th { "Id" } th { "Column" } th { "Type" } th { "Header" } th { "Body" } th { "Actions" } } }
            tbody {
                @for element in elements.iter().filter(|e| !e.deleted) {
                    tr data-element=(element.id) {
                        td { (element.id) }
                        td { (column_name(element.column)) }
                        td { (element.ctype) }
                        td { (element.header.for_host()) }
                        td { (element.body.for_host()) }
                        td { (forms(&user, &offered, RecordKind::Element, element.id.0, &back)) }
                    }
                }
            }
        }
        p { a href="/content" { "Back to the tree" } }
    };
    layout::page(
        &format!("Page: {}", page.title.for_host()),
        Some(&user),
        body,
    )
    .into_response()
}

pub(super) async fn files(State(state): State<WebState>, user: SignedIn) -> Response {
    let storages = match state
        .host
        .runs()
        .visible_files(&user.actor())
        .await
        .or_failure()
    {
        Ok(files) => files,
        Err(response) => return response,
    };
    let offered = offered(&state, &user).await;
    let body = html! {
        @for (storage, files) in &storages {
            h2 { (storage) }
            table.files {
                thead { tr { th { "Id" } th { "Path" } th { "Type" } th { "Title" } th { "Alternative text" } th { "Actions" } } }
                tbody {
                    @for file in files {
                        tr data-file=(file.id) {
                            td { (file.id) }
                            td { (file.path.for_host()) @if file.missing { " (missing)" } }
                            td { (file.mime) }
                            td { (file.title.as_ref().map_or("—", |title| title.for_host())) }
                            td.alternative { @for (language, text) in file.alternative.for_host() { (language) ": " (text) " " } }
                            td { (forms(&user, &offered, RecordKind::File, file.id.0, "/content/files")) }
                        }
                    }
                }
            }
        }
    };
    layout::page("Files", Some(&user), body).into_response()
}
