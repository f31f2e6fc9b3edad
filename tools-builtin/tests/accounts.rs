//! `list_users`, `list_users_raw` and `list_groups` against the demo site.

mod common;

use std::sync::Arc;

use serde_json::json;
use site_model::{MemorySite, NOT_FOUND, UserId};
use tool_core::{DataClass, Egress, Shipped};

use common::{ADMIN, CLARA, NILS, PETRA, assert_no_secret, call_with, cx_on, registry, text};

const EDITORS: [&str; 3] = [PETRA, NILS, CLARA];
const TOOLS: [&str; 3] = ["list_users", "list_users_raw", "list_groups"];

#[test]
fn declarations_are_what_the_table_says() {
    let registry = registry();
    for (name, data, shipped) in [
        ("list_users", DataClass::Personal, Shipped::Enabled),
        ("list_users_raw", DataClass::Personal, Shipped::Disabled),
        ("list_groups", DataClass::Confidential, Shipped::Enabled),
    ] {
        let declaration = registry.get(name).unwrap().declaration();
        assert_eq!(declaration.group, tools_builtin::groups::ACCOUNTS, "{name}");
        assert!(declaration.requires_admin, "{name}");
        assert_eq!(declaration.shipped, shipped, "{name}");
        assert_eq!(declaration.data, data, "{name}");
        assert_eq!(declaration.egress, Egress::None, "{name}");
    }
}

#[test]
fn editors_get_the_neutral_denial() {
    for tool in TOOLS {
        for editor in EDITORS {
            assert_eq!(
                text(tool, json!({}), editor),
                NOT_FOUND,
                "{tool} as {editor}"
            );
        }
    }
}

#[test]
fn no_credential_in_any_output() {
    for tool in TOOLS {
        let output = text(tool, json!({}), ADMIN);
        assert_no_secret(tool, &output);
        assert!(!output.contains("argon2"), "{tool}:\n{output}");
    }
}

#[test]
fn list_users_shows_accounts_without_e_mail() {
    let output = text("list_users", json!({}), ADMIN);
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(
        lines[0],
        "#1 admin (Anna Berg), administrator, enabled; no groups; last login 2024-05-29T00:00:00Z"
    );
    assert!(output.contains("#3 petra (Petra Meyer), editor, enabled; groups: Product team (#2)"));
    assert!(output.ends_with("\n5 in total"), "{output}");
    assert!(!output.contains('@'), "no e-mail addresses:\n{output}");
}

#[test]
fn list_users_raw_adds_e_mail_and_own_grants() {
    let output = text("list_users_raw", json!({}), ADMIN);
    assert!(
        output.contains("#3 petra (Petra Meyer) <petra@northwind-bikes.example>"),
        "{output}"
    );
    let clara = output
        .lines()
        .find(|line| line.contains(" clara "))
        .unwrap();
    assert!(
        clara.contains("own grants: sees pages 1; edits pages 19"),
        "{clara}"
    );
    assert!(output.ends_with("\n5 in total"), "{output}");
}

/// The demo with users copied until there are `count`.
fn site_with_users(count: u64) -> Arc<MemorySite> {
    let mut data = MemorySite::demo().data();
    let template = data.users[2].clone();
    for id in data.users.len() as u64 + 1..=count {
        let mut user = template.clone();
        user.id = UserId(id);
        user.name = format!("user{id}").into();
        data.users.push(user);
    }
    Arc::new(MemorySite::new(data))
}

#[test]
fn list_users_cuts_one_over_the_cap() {
    let cx = cx_on(site_with_users(201), ADMIN);
    for tool in ["list_users", "list_users_raw"] {
        let output = call_with(tool, json!({"limit": 201}), &cx).unwrap();
        assert_eq!(output.lines().count(), 201, "200 users and the total");
        assert!(output.ends_with("showing 200 of 201; narrow the query to see the rest"));
        assert_no_secret(tool, &output);
        let default = call_with(tool, json!({}), &cx).unwrap();
        assert!(default.ends_with("showing 50 of 201; narrow the query to see the rest"));
    }
}

#[test]
fn list_groups_summarises_grants_and_counts_members() {
    let output = text("list_groups", json!({}), ADMIN);
    assert_eq!(
        output,
        "#1 Newsroom: 1 members; grants sees pages 13; edits pages 13; reads tables news; \
         edits tables news; storages 1, 2\n\
         #2 Product team: 1 members; grants sees pages 2; edits pages 2; reads tables products; \
         edits tables products; storages 2\n\
         2 in total"
    );
    let one = text("list_groups", json!({"limit": 1}), ADMIN);
    assert!(one.ends_with("showing 1 of 2; narrow the query to see the rest"));
}

#[test]
fn unknown_arguments_are_refused() {
    for tool in TOOLS {
        assert!(
            text(tool, json!({"email": true}), ADMIN).contains("email"),
            "{tool}"
        );
    }
}
