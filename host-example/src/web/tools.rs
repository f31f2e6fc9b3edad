//! The tools page (administrators): every registered tool by group, with
//! its declaration, the switches per group and per tool and their approval
//! policies (who approves, how many, and whether from the tool, its group
//! or the default), then why the
//! tools not offered to a chosen user are not ([`super::why_not`]). A change is
//! stored as a setting and audited; runs resolve their grant from the
//! settings when they start, so the next run sees it.

use std::collections::BTreeMap;

use axum::Form;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;
use tool_core::gates::{Approvers, HostSettings, Required, Toggle};
use tool_core::{Egress, RegisteredTool, Shipped};

use super::WebState;
use super::layout::{self, OrFailure, csrf_field};
use super::session::{self, Admin, SignedIn};
use super::why_not::{self, ForUser};
use crate::app::HostError;
use crate::app::SettingKey;
use crate::app::index::IndexStatus;
use crate::app::policies::{PolicyOf, policy_view};

pub(super) async fn page(
    State(state): State<WebState>,
    Admin(user): Admin,
    Query(query): Query<ForUser>,
) -> Response {
    let why_not = match why_not::section(&state, &user, &query, "/tools").await {
        Ok(section) => section,
        Err(response) => return response,
    };
    match state
        .host
        .admin()
        .host_settings(&user.name)
        .await
        .or_failure()
    {
        Ok(settings) => {
            // As the last question (or `serve`'s start) left it: the page
            // builds nothing.
            let index = state.host.index_status().await.ok();
            let mut page = body(&state, &user, &settings);
            page.0.push_str(&why_not.0);
            page.0.push_str(&index_section(index.as_ref()).0);
            layout::page("Tools", Some(&user), page).into_response()
        }
        Err(response) => response,
    }
}

/// Where the `rag` tools' public search index stands.
fn index_section(index: Option<&IndexStatus>) -> Markup {
    html! {
        section #search-index {
            h2 { "Public search index" }
            @match index {
                Some(status) => dl {
                    dt { "Preferred backend" } dd { (status.preferred) }
                    dt { "Answering" } dd.answering { (status.answering) }
                    @if let Some(reason) = &status.fallback_reason {
                        dt { "Fallback because" } dd { (reason) }
                    }
                    dt { "Public sources" } dd { (status.sources) }
                    dt { "Generation" } dd.generation {
                        "index " (status.index_generation) " of site " (status.site_generation)
                    }
                    dt { "Kept at" } dd { code { (status.location) } }
                },
                None => p { "The index's state could not be read." },
            }
            p { "Rebuild it with " code { "host-example index rebuild" } "." }
        }
    }
}

fn body(state: &WebState, user: &SignedIn, settings: &HostSettings) -> Markup {
    let mut groups: BTreeMap<&str, Vec<&RegisteredTool>> = BTreeMap::new();
    for tool in state.registry().tools() {
        groups
            .entry(&tool.declaration().group)
            .or_default()
            .push(tool);
    }
    html! {
        p { "Switches take effect for every run that starts after the change; a run keeps the tools it was granted, less any switched off since." }
        @for (group, tools) in &groups {
            @let group_settings = settings.groups.get(*group).cloned().unwrap_or_default();
            @let group_on = group_settings.state != Toggle::Disabled;
            section.group id={"group-" (group)} data-group=(group) data-enabled=(group_on) {
                h2 { "Group " code { (group) } " " span.state { (if group_on { "on" } else { "off" }) } }
                form.switch method="post" action="/tools/group" {
                    (csrf_field(user))
                    input type="hidden" name="group" value=(group);
                    label { "Switch "
                        select name="state" { (toggle_options(group_settings.state, "enabled")) }
                    }
                    label { " Egress "
                        select name="egress" {
                            option value="none" selected[group_settings.egress == Egress::None] { "none" }
                            option value="own_site" selected[group_settings.egress == Egress::OwnSite] { "own_site (the host's sites)" }
                        }
                    }
                    button type="submit" { "Save group " (group) }
                }
                form.policy method="post" action="/tools/policy" {
                    (csrf_field(user))
                    input type="hidden" name="of" value="group";
                    input type="hidden" name="name" value=(group);
                    "Approval policy of the group's write tools (a tool's own wins): "
                    (policy_fields(group_settings.approvers, group_settings.required, "default", &format!("group {group}")))
                    button type="submit" { "Save policy of group " (group) }
                }
                table {
                    thead { tr {
                        th { "Tool" } th { "Effect" } th { "Egress" } th { "Admin only" }
                        th { "Data" } th { "Shipped" } th { "Defined at" } th { "State" } th { "Switch" }
                        th { "Approval" }
                    } }
                    tbody {
                        @for tool in tools {
                            (tool_row(user, settings, tool, group_on))
                        }
                    }
                }
            }
        }
        section {
            h2 { "Egress sites" }
            p { "The host's own sites, the only places a tool of a group with egress " code { "own_site" } " may reach." }
            @if settings.sites.is_empty() { p { "None: no tool may reach the network." } }
            ul.sites { @for site in &settings.sites { li { code { (String::from(site.clone())) } } } }
            form method="post" action="/tools/sites" {
                (csrf_field(user))
                label { "One origin per line " textarea name="sites" rows="3" cols="50" {
                    @for site in &settings.sites { (String::from(site.clone())) "\n" }
                } }
                button type="submit" { "Save sites" }
            }
        }
    }
}

fn tool_row(
    user: &SignedIn,
    settings: &HostSettings,
    tool: &RegisteredTool,
    group_on: bool,
) -> Markup {
    let d = tool.declaration();
    let switch = settings
        .tools
        .get(d.name.as_ref())
        .map(|t| t.state)
        .unwrap_or_default();
    let tool_on = match switch {
        Toggle::Enabled => true,
        Toggle::Disabled => false,
        Toggle::Unset => d.shipped == Shipped::Enabled,
    };
    let shipped = match d.shipped {
        Shipped::Enabled => "enabled",
        Shipped::Disabled => "disabled",
    };
    let policy = policy_view(settings, &d.name, &d.group);
    html! {
        tr.tool data-tool=(d.name) data-offered=(group_on && tool_on) {
            td { code { (d.name) } }
            td { (d.effect.to_string()) }
            td { (d.egress.to_string()) }
            td { (if d.requires_admin { "yes" } else { "no" }) }
            td { (d.data.to_string()) }
            td { (shipped) }
            td.site { (tool.site().to_string()) }
            td.state {
                @if !group_on {
                    (if tool_on { "on" } else { "off" }) " — no effect while group " code { (d.group) } " is off"
                } @else {
                    (if tool_on { "on" } else { "off" })
                }
            }
            td {
                form.switch method="post" action="/tools/tool" {
                    (csrf_field(user))
                    input type="hidden" name="tool" value=(d.name);
                    select name="state" aria-label={"switch " (d.name)} { (toggle_options(switch, shipped)) }
                    button type="submit" { "Save" }
                }
            }
            td.approval data-approvers=(policy.approvers) data-approvers-from=(policy.approvers_from.as_str())
                data-required=(policy.required.count()) data-required-from=(policy.required_from.as_str()) {
                span.policy {
                    (policy.approvers) " (" (policy.approvers_from.as_str()) "), "
                    (policy.required.count()) " required (" (policy.required_from.as_str()) ")"
                }
                form.policy method="post" action="/tools/policy" {
                    (csrf_field(user))
                    input type="hidden" name="of" value="tool";
                    input type="hidden" name="name" value=(d.name);
                    (policy_fields(policy.own.0, policy.own.1, "group's", &d.name))
                    button type="submit" { "Save policy" }
                }
            }
        }
    }
}

/// The two selects of a policy form; `unset` names what an empty one takes.
fn policy_fields(
    approvers: Option<Approvers>,
    required: Option<Required>,
    unset: &str,
    whose: &str,
) -> Markup {
    html! {
        select name="approvers" aria-label={"approvers of " (whose)} {
            option value="" selected[approvers.is_none()] { "approvers: " (unset) }
            @for choice in [Approvers::Anyone, Approvers::Others, Approvers::Admins] {
                option value=(choice) selected[approvers == Some(choice)] { (choice) }
            }
        }
        " "
        select name="required" aria-label={"approvals required for " (whose)} {
            option value="" selected[required.is_none()] { "required: " (unset) }
            option value="1" selected[required == Some(Required::One)] { "1" }
            option value="2" selected[required == Some(Required::Two)] { "2 (different people)" }
        }
        " "
    }
}

fn toggle_options(current: Toggle, default: &str) -> Markup {
    html! {
        option value="unset" selected[current == Toggle::Unset] { "default (" (default) ")" }
        option value="enabled" selected[current == Toggle::Enabled] { "on" }
        option value="disabled" selected[current == Toggle::Disabled] { "off" }
    }
}

#[derive(Deserialize)]
pub(super) struct GroupSwitch {
    group: String,
    state: Toggle,
    egress: Egress,
}

pub(super) async fn switch_group(
    State(state): State<WebState>,
    user: SignedIn,
    Form(form): Form<GroupSwitch>,
) -> Response {
    let saved = state
        .host
        .admin()
        .switch_group(&user.name, &form.group, form.state, form.egress)
        .await;
    answer(&state, &user, saved, format!("Group {} saved.", form.group)).await
}

#[derive(Deserialize)]
pub(super) struct ToolSwitch {
    tool: String,
    state: Toggle,
}

pub(super) async fn switch_tool(
    State(state): State<WebState>,
    user: SignedIn,
    Form(form): Form<ToolSwitch>,
) -> Response {
    let saved = state
        .host
        .admin()
        .switch_tool(&user.name, &form.tool, form.state)
        .await;
    answer(&state, &user, saved, format!("Tool {} saved.", form.tool)).await
}

#[derive(Deserialize)]
pub(super) struct PolicyForm {
    of: String,
    name: String,
    #[serde(default)]
    approvers: String,
    #[serde(default)]
    required: String,
}

impl PolicyForm {
    /// The form's fields as the app layer takes them; an empty select is
    /// unset.
    #[allow(clippy::type_complexity, reason = "one parse, read once")]
    fn parse(&self) -> Result<(PolicyOf, Option<Approvers>, Option<Required>), HostError> {
        let of = match self.of.as_str() {
            "tool" => PolicyOf::Tool,
            "group" => PolicyOf::Group,
            other => {
                return Err(HostError::Invalid(format!(
                    "`{other}` is neither a tool nor a group"
                )));
            }
        };
        let approvers = match self.approvers.as_str() {
            "" => None,
            text => Some(
                serde_json::from_value(serde_json::Value::String(text.to_owned())).map_err(
                    |_| {
                        HostError::Invalid(format!(
                            "approvers: `{text}` is not anyone, others or admins"
                        ))
                    },
                )?,
            ),
        };
        let required = match self.required.as_str() {
            "" => None,
            "1" => Some(Required::One),
            "2" => Some(Required::Two),
            text => {
                return Err(HostError::Invalid(format!(
                    "required: `{text}` is not 1 or 2"
                )));
            }
        };
        Ok((of, approvers, required))
    }
}

pub(super) async fn save_policy(
    State(state): State<WebState>,
    user: SignedIn,
    Form(form): Form<PolicyForm>,
) -> Response {
    let saved = match form.parse() {
        Ok((of, approvers, required)) => {
            state
                .host
                .approvals()
                .set_approval_policy(&user.name, of, &form.name, approvers, required)
                .await
        }
        Err(error) => Err(error),
    };
    let done = format!("Approval policy of {} {} saved.", form.of, form.name);
    answer(&state, &user, saved, done).await
}

#[derive(Deserialize)]
pub(super) struct SitesForm {
    sites: String,
}

pub(super) async fn save_sites(
    State(state): State<WebState>,
    user: SignedIn,
    Form(form): Form<SitesForm>,
) -> Response {
    let sites: Vec<&str> = form
        .sites
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let json = serde_json::to_string(&sites).unwrap_or_default();
    let saved = state
        .host
        .admin()
        .set_setting(&user.name, SettingKey::Sites.name(), &json)
        .await
        .map(drop);
    answer(&state, &user, saved, "Sites saved.".to_owned()).await
}

/// Back to the tools page with `done` or why not; 403 for someone the app
/// layer says is no administrator.
async fn answer(
    state: &WebState,
    user: &SignedIn,
    saved: Result<(), HostError>,
    done: String,
) -> Response {
    let notice = match saved {
        Ok(()) => done,
        Err(refusal @ HostError::NotAdmin { .. }) => return layout::forbidden(user, &refusal),
        Err(error) => format!("Not saved: {error}"),
    };
    session::notify(state, user, notice).await;
    Redirect::to("/tools").into_response()
}
