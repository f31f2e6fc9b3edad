//! The overview (administrators, `/overview`): how the host is used over
//! the last 7, 30 or 90 days, as SVG charts drawn on the server (no
//! script, no library): calls per tool per day, refusals per gate, how
//! long proposals waited, tokens and estimated cost per day. Each chart
//! has its figures as a table beside it, for screen readers and copying.

use std::collections::BTreeMap;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::WebState;
use super::layout;
use super::session::Admin;
use crate::app::HostError;
use crate::app::overview::{Overview, PERIODS};

/// Colours of a chart's series, in order; the last one stands for the rest.
const PALETTE: [&str; 7] = [
    "#1f6f8b", "#e07a1f", "#3a8f3a", "#b03a48", "#6a4c93", "#8a7a2a", "#777777",
];

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 180.0;
/// Room for the axis labels.
const LEFT: f64 = 48.0;
const BOTTOM: f64 = 20.0;

#[derive(Debug, Deserialize)]
pub(super) struct Period {
    days: Option<u32>,
}

/// One bar: its label and its stacked parts (series, value).
struct Bar {
    label: String,
    parts: Vec<(String, f64)>,
}

pub(super) async fn page(
    State(state): State<WebState>,
    Admin(user): Admin,
    Query(period): Query<Period>,
) -> Response {
    let days = period.days.unwrap_or(30);
    let overview = match state.host.admin().overview(&user.name, days).await {
        Ok(overview) => overview,
        Err(error @ HostError::Invalid(_)) => {
            let body = html! { p.problem role="alert" { (error) } };
            let page = layout::page("Overview", Some(&user), body);
            return (StatusCode::BAD_REQUEST, page).into_response();
        }
        Err(error) => return layout::failure(&error.to_string()),
    };
    let body = html! {
        form.period method="get" action="/overview" {
            label { "Period "
                select name="days" {
                    @for choice in PERIODS {
                        option value=(choice) selected[choice == days] { "the last " (choice) " days" }
                    }
                }
            }
            " "
            button type="submit" { "Show" }
        }
        (calls_chart(&overview))
        (refusals_chart(&overview))
        (waits(&overview))
        (spending_charts(&overview))
    };
    layout::page("Overview", Some(&user), body).into_response()
}

/// `YYYY-MM-DD` of a day number.
fn day_label(day: i64) -> String {
    layout::when(day * 86_400)
        .split(' ')
        .next()
        .unwrap_or_default()
        .to_owned()
}

fn days(overview: &Overview) -> impl Iterator<Item = i64> {
    overview.first_day..overview.first_day + i64::from(overview.days)
}

fn calls_chart(overview: &Overview) -> Markup {
    // The six most called tools by name, the rest together.
    let mut totals: BTreeMap<&str, f64> = BTreeMap::new();
    for (_, tool, n) in &overview.usage.calls {
        *totals.entry(tool.as_str()).or_default() += *n as f64;
    }
    let mut ranked: Vec<(&str, f64)> = totals.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let named: Vec<&str> = ranked
        .iter()
        .take(PALETTE.len() - 1)
        .map(|(tool, _)| *tool)
        .collect();
    let series = |tool: &str| {
        if named.contains(&tool) {
            tool.to_owned()
        } else {
            "other tools".to_owned()
        }
    };
    let bars: Vec<Bar> = days(overview)
        .map(|day| Bar {
            label: day_label(day),
            parts: overview
                .usage
                .calls
                .iter()
                .filter(|(d, _, _)| *d == day)
                .map(|(_, tool, n)| (series(tool), *n as f64))
                .collect(),
        })
        .collect();
    chart("calls", "Calls per tool per day", &bars, |v| {
        format!("{v:.0}")
    })
}

fn refusals_chart(overview: &Overview) -> Markup {
    let bars: Vec<Bar> = overview
        .usage
        .refusals
        .iter()
        .map(|(gate, n)| Bar {
            label: gate.clone(),
            parts: vec![(gate.clone(), *n as f64)],
        })
        .collect();
    chart("refusals", "Refusals per gate", &bars, |v| {
        format!("{v:.0}")
    })
}

fn waits(overview: &Overview) -> Markup {
    let minutes = |seconds: Option<i64>| seconds.map(|s| s as f64 / 60.0);
    let bars: Vec<Bar> = [
        ("median", minutes(overview.wait_median)),
        ("90th percentile", minutes(overview.wait_p90)),
    ]
    .into_iter()
    .filter_map(|(label, value)| {
        value.map(|value| Bar {
            label: label.to_owned(),
            parts: vec![(label.to_owned(), value)],
        })
    })
    .collect();
    html! {
        (chart("waits", "How long decided proposals waited, in minutes", &bars, |v| format!("{v:.1}")))
        p.waits { (overview.usage.waits.len()) " proposals decided in the period." }
    }
}

fn spending_charts(overview: &Overview) -> Markup {
    let per_day = |value: &dyn Fn(&(i64, u64, f64)) -> f64, series: &str| -> Vec<Bar> {
        days(overview)
            .map(|day| Bar {
                label: day_label(day),
                parts: overview
                    .usage
                    .spending
                    .iter()
                    .filter(|row| row.0 == day)
                    .map(|row| (series.to_owned(), value(row)))
                    .collect(),
            })
            .collect()
    };
    let tokens = per_day(&|row| row.1 as f64, "tokens");
    let cost = per_day(&|row| row.2, "estimated cost");
    html! {
        (chart("tokens", "Tokens per day", &tokens, |v| format!("{v:.0}")))
        (chart("cost", "Estimated cost per day", &cost, |v| format!("{v:.4}")))
    }
}

/// Each part of `bar` with its top and height, stacked from the axis up.
fn stack(bar: &Bar, scale: f64) -> Vec<(&str, f64, f64, f64)> {
    let mut base = HEIGHT - BOTTOM;
    bar.parts
        .iter()
        .map(|(name, value)| {
            let height = value * scale;
            base -= height;
            (name.as_str(), *value, base, height)
        })
        .collect()
}

/// A stacked bar chart with its legend and its figures as a table.
fn chart(id: &str, title: &str, bars: &[Bar], show: impl Fn(f64) -> String) -> Markup {
    let mut series: Vec<&str> = Vec::new();
    for bar in bars {
        for (name, _) in &bar.parts {
            if !series.contains(&name.as_str()) {
                series.push(name);
            }
        }
    }
    let colour = |name: &str| {
        let at = series.iter().position(|s| *s == name).unwrap_or(0);
        PALETTE[at.min(PALETTE.len() - 1)]
    };
    let total = |bar: &Bar| bar.parts.iter().map(|(_, v)| v).sum::<f64>();
    let top = bars.iter().map(total).fold(0.0_f64, f64::max);
    let scale = if top > 0.0 {
        (HEIGHT - BOTTOM - 8.0) / top
    } else {
        0.0
    };
    let slot = (WIDTH - LEFT) / bars.len().max(1) as f64;
    let width = (slot * 0.8).clamp(1.0, 48.0);
    // At most about twelve labels under the bars.
    let every = bars.len().div_ceil(12).max(1);
    let heading = format!("chart-{id}-title");
    html! {
        section.chart id={"chart-" (id)} {
            h2 id=(heading) { (title) }
            @if bars.iter().all(|bar| total(bar) == 0.0) {
                p.empty { "Nothing in this period." }
            } @else {
                svg xmlns="http://www.w3.org/2000/svg" viewBox={"0 0 " (WIDTH) " " (HEIGHT)} role="img" aria-labelledby=(heading) {
                    line x1=(LEFT) y1=(HEIGHT - BOTTOM) x2=(WIDTH) y2=(HEIGHT - BOTTOM) stroke="#555" {}
                    text x=(LEFT - 4.0) y="12" text-anchor="end" font-size="10" { (show(top)) }
                    text x=(LEFT - 4.0) y=(HEIGHT - BOTTOM) text-anchor="end" font-size="10" { "0" }
                    @for (at, bar) in bars.iter().enumerate() {
                        @let x = LEFT + slot * at as f64 + (slot - width) / 2.0;
                        @for (name, value, y, h) in stack(bar, scale) {
                            rect x=(x) y=(y) width=(width) height=(h) fill=(colour(name))
                                data-series=(name) data-label=(bar.label) data-value=(value) {
                                title { (bar.label) " · " (name) ": " (show(value)) }
                            }
                        }
                        @if at % every == 0 {
                            text x=(x + width / 2.0) y=(HEIGHT - 6.0) text-anchor="middle" font-size="9" {
                                (bar.label.trim_start_matches("20"))
                            }
                        }
                    }
                }
                @if series.len() > 1 {
                    ul.legend {
                        @for name in &series {
                            li { svg width="10" height="10" aria-hidden="true" { rect width="10" height="10" fill=(colour(name)) {} } " " (name) }
                        }
                    }
                }
                details {
                    summary { "The figures" }
                    table.figures {
                        thead { tr { th { "" } th { "Series" } th { "Value" } } }
                        tbody {
                            @for bar in bars {
                                @for (name, value) in &bar.parts {
                                    tr { td { (bar.label) } td { (name) } td { (show(*value)) } }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
