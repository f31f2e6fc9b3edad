//! The audit page (administrators, `/audit`): the trail filtered by
//! person, tool, kind, decision, gate, run and days, newest first, a page
//! at a time; each row links to its run (whose page lists its proposals),
//! and `/audit/export` gives the filtered rows as JSON Lines.

use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::html;
use reqwest::Url;
use serde::Deserialize;
use site_model::Timestamp;

use super::WebState;
use super::layout::{self, OrFailure, when};
use super::session::Admin;
use crate::app::{AuditFilter, HostError};

/// Rows a page shows.
const PAGE_SIZE: usize = 50;

/// The filter as the form sends it; empty fields match everything.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Filter {
    #[serde(default)]
    actor: String,
    #[serde(default)]
    tool: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    decision: String,
    #[serde(default)]
    gate: String,
    #[serde(default)]
    run: String,
    /// First day, `YYYY-MM-DD`.
    #[serde(default)]
    from: String,
    /// Last day, included.
    #[serde(default)]
    until: String,
    /// The page starts below this entry.
    before: Option<i64>,
}

impl Filter {
    fn pairs(&self) -> [(&'static str, &str); 8] {
        [
            ("actor", &self.actor),
            ("tool", &self.tool),
            ("kind", &self.kind),
            ("decision", &self.decision),
            ("gate", &self.gate),
            ("run", &self.run),
            ("from", &self.from),
            ("until", &self.until),
        ]
    }

    /// The app layer's filter; a day that is no date says so.
    fn parse(&self) -> Result<AuditFilter, HostError> {
        let text = |value: &str| Some(value.trim().to_owned()).filter(|v| !v.is_empty());
        let day = |name: &str, value: &str| match value.trim() {
            "" => Ok(None),
            date => Timestamp::from_date(date)
                .map(|t| Some(t.0))
                .ok_or_else(|| {
                    HostError::Invalid(format!("{name}: `{date}` is not a date (YYYY-MM-DD)"))
                }),
        };
        Ok(AuditFilter {
            actor: text(&self.actor),
            tool: text(&self.tool),
            kind: text(&self.kind),
            decision: text(&self.decision),
            gate: text(&self.gate),
            run: text(&self.run),
            from: day("from", &self.from)?,
            until: day("until", &self.until)?.map(|start| start + 86_400),
        })
    }

    /// `path` with the filter's non-empty fields (and `before`) as query.
    fn link(&self, path: &str, before: Option<i64>) -> String {
        let mut url = Url::parse("http://host.invalid/").expect("a valid base");
        url.set_path(path);
        {
            let mut query = url.query_pairs_mut();
            for (name, value) in self.pairs() {
                if !value.trim().is_empty() {
                    query.append_pair(name, value.trim());
                }
            }
            if let Some(before) = before {
                query.append_pair("before", &before.to_string());
            }
        }
        match url.query() {
            Some(query) if !query.is_empty() => format!("{path}?{query}"),
            _ => path.to_owned(),
        }
    }
}

pub(super) async fn page(
    State(state): State<WebState>,
    Admin(user): Admin,
    Query(filter): Query<Filter>,
) -> Response {
    let parsed = filter.parse();
    let found = match &parsed {
        Ok(parsed) => {
            let page = state
                .host
                .admin()
                .audit_page(&user.name, parsed, filter.before, PAGE_SIZE)
                .await;
            match page.or_failure() {
                Ok(page) => Some(page),
                Err(response) => return response,
            }
        }
        Err(_) => None,
    };
    let body = html! {
        form.audit-filter method="get" action="/audit" {
            @for (name, value) in filter.pairs() {
                @if name == "kind" {
                    label { "Kind "
                        select name="kind" {
                            @for kind in ["", "gate", "call", "write"] {
                                option value=(kind) selected[value == kind] { (if kind.is_empty() { "any" } else { kind }) }
                            }
                        }
                    }
                } @else if name == "from" || name == "until" {
                    label { (if name == "from" { "From " } else { "Until " }) input type="date" name=(name) value=(value); }
                } @else {
                    label { (label(name)) " " input name=(name) value=(value) size="12"; }
                }
                " "
            }
            button type="submit" { "Filter" }
            " "
            a href="/audit" { "Clear" }
        }
        @match (&parsed, &found) {
            (Err(problem), _) => p.problem role="alert" { (problem) },
            (Ok(_), Some(page)) => {
                p {
                    a #export href=(filter.link("/audit/export", None)) download="audit.jsonl" { "Export these rows (JSON Lines)" }
                }
                @if page.records.is_empty() { p.empty { "No entries match." } }
                @else {
                    div.scroll {
                        table.audit {
                            thead { tr {
                                th { "When" } th { "Who" } th { "Kind" } th { "Tool" } th { "Decision" }
                                th { "Gate" } th { "Run" } th { "Detail" }
                            } }
                            tbody {
                                @for record in &page.records {
                                    tr.entry data-seq=(record.seq) data-gate=[record.gate.as_deref()] data-decision=(record.decision) {
                                        td { (when(record.at)) }
                                        td { (record.actor) }
                                        td { (record.kind) }
                                        td { @if let Some(tool) = &record.tool { code { (tool) } } }
                                        td.decision { (record.decision) }
                                        td.gate { (record.gate.as_deref().unwrap_or("")) }
                                        td { @if let Some(run) = &record.run { a href={"/runs/" (run)} { (run) } } }
                                        td.detail { (record.detail.as_deref().unwrap_or("")) }
                                    }
                                }
                            }
                        }
                    }
                }
                @if let Some(older) = page.older {
                    p { a #older href=(filter.link("/audit", Some(older))) { "Older entries" } }
                }
            },
            (Ok(_), None) => {},
        }
    };
    layout::page("Audit", Some(&user), body).into_response()
}

fn label(name: &str) -> &str {
    match name {
        "actor" => "Person",
        "tool" => "Tool",
        "decision" => "Decision",
        "gate" => "Gate",
        _ => "Run",
    }
}

/// The filtered rows as JSON Lines, newest first.
pub(super) async fn export(
    State(state): State<WebState>,
    Admin(user): Admin,
    Query(filter): Query<Filter>,
) -> Response {
    let exported = match filter.parse() {
        Ok(parsed) => state.host.admin().audit_export(&user.name, &parsed).await,
        Err(error) => Err(error),
    };
    match exported {
        Ok(records) => {
            let mut body = String::new();
            for record in &records {
                // A record of strings and numbers always serializes.
                body.push_str(&serde_json::to_string(record).unwrap_or_default());
                body.push('\n');
            }
            (
                [
                    (header::CONTENT_TYPE, "application/jsonl; charset=utf-8"),
                    (
                        header::CONTENT_DISPOSITION,
                        "attachment; filename=\"audit.jsonl\"",
                    ),
                ],
                body,
            )
                .into_response()
        }
        Err(error @ HostError::Invalid(_)) => {
            (StatusCode::BAD_REQUEST, error.to_string()).into_response()
        }
        Err(error) => layout::failure(&error.to_string()),
    }
}
