//! The tools page (administrators): every registered tool by group, with
//! its declaration, and the switches per group and per tool. A change is
//! stored as a setting and audited; runs resolve their grant from the
//! settings when they start, so the next run sees it.

use std::collections::BTreeMap;

use axum::Form;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;
use tool_core::gates::{HostSettings, Toggle};
use tool_core::{Egress, RegisteredTool, Shipped};

use super::WebState;
use super::layout::{self, OrFailure, csrf_field};
use super::session::{Admin, SignedIn};
use crate::store::{AuditEntry, AuditKind, SettingKey};

pub(super) async fn page(State(state): State<WebState>, Admin(user): Admin) -> Response {
    match state.store.host_settings().await.or_failure() {
        Ok(settings) => {
            layout::page("Tools", Some(&user), body(&state, &user, &settings)).into_response()
        }
        Err(response) => response,
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
                table {
                    thead { tr {
                        th { "Tool" } th { "Effect" } th { "Egress" } th { "Admin only" }
                        th { "Data" } th { "Shipped" } th { "Defined at" } th { "State" } th { "Switch" }
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
        }
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
    Admin(user): Admin,
    Form(form): Form<GroupSwitch>,
) -> Response {
    let known = state
        .registry()
        .tools()
        .iter()
        .any(|t| t.declaration().group == form.group);
    if !known {
        return back(
            &state,
            &user,
            format!("There is no group `{}`.", form.group),
        );
    }
    let result = async {
        let mut groups = state.store.host_settings().await?.groups;
        let entry = groups.entry(form.group.clone()).or_default();
        entry.state = form.state;
        entry.egress = form.egress;
        save(&state, &user, SettingKey::Groups, &groups, &form.group).await
    };
    match result.await {
        Ok(()) => back(&state, &user, format!("Group {} saved.", form.group)),
        Err(error) => back(&state, &user, format!("Not saved: {error}")),
    }
}

#[derive(Deserialize)]
pub(super) struct ToolSwitch {
    tool: String,
    state: Toggle,
}

pub(super) async fn switch_tool(
    State(state): State<WebState>,
    Admin(user): Admin,
    Form(form): Form<ToolSwitch>,
) -> Response {
    if state.registry().get(&form.tool).is_none() {
        return back(&state, &user, format!("There is no tool `{}`.", form.tool));
    }
    let result = async {
        let mut tools = state.store.host_settings().await?.tools;
        tools.entry(form.tool.clone()).or_default().state = form.state;
        save(&state, &user, SettingKey::Tools, &tools, &form.tool).await
    };
    match result.await {
        Ok(()) => back(&state, &user, format!("Tool {} saved.", form.tool)),
        Err(error) => back(&state, &user, format!("Not saved: {error}")),
    }
}

#[derive(Deserialize)]
pub(super) struct SitesForm {
    sites: String,
}

pub(super) async fn save_sites(
    State(state): State<WebState>,
    Admin(user): Admin,
    Form(form): Form<SitesForm>,
) -> Response {
    let sites: Vec<&str> = form
        .sites
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match save(&state, &user, SettingKey::Sites, &sites, "sites").await {
        Ok(()) => back(&state, &user, "Sites saved.".to_owned()),
        Err(error) => back(&state, &user, format!("Not saved: {error}")),
    }
}

/// Stores `value` under `key` (checked against the key's type) and audits
/// the change.
async fn save(
    state: &WebState,
    user: &SignedIn,
    key: SettingKey,
    value: &impl serde::Serialize,
    what: &str,
) -> Result<(), crate::store::StoreError> {
    let json = serde_json::to_string(value).unwrap_or_default();
    state.store.set_setting(key.name(), &json).await?;
    let mut entry = AuditEntry::new(AuditKind::Write, user.name.clone(), "ok");
    entry.tool = Some("web: settings".into());
    entry.detail = Some(format!("{} ({what}) = {json}", key.name()));
    state.store.audit(&entry).await
}

fn back(state: &WebState, user: &SignedIn, notice: String) -> Response {
    state.sessions.notify(&user.session, notice);
    Redirect::to("/tools").into_response()
}
