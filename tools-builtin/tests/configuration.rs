//! `get_site_config` against the demo site.

mod common;

use std::sync::Arc;

use serde_json::{Map, Value, json};
use site_model::{MemorySite, NOT_FOUND};
use tool_core::{DataClass, Egress, Shipped};

use common::{ADMIN, CLARA, NILS, PETRA, assert_no_secret, call_with, cx_on, registry, text};

const EDITORS: [&str; 3] = [PETRA, NILS, CLARA];

#[test]
fn declaration_is_what_the_table_says() {
    let registry = registry();
    let declaration = registry.get("get_site_config").unwrap().declaration();
    assert_eq!(declaration.group, tools_builtin::groups::CONFIGURATION);
    assert!(declaration.requires_admin);
    assert_eq!(declaration.shipped, Shipped::Enabled);
    assert_eq!(declaration.data, DataClass::Confidential);
    assert_eq!(declaration.egress, Egress::None);
}

#[test]
fn without_arguments_lists_the_sites() {
    let output = text("get_site_config", json!({}), ADMIN);
    assert_eq!(
        output,
        "main: https://www.northwind-bikes.example/, root page 1, languages en (English), de (Deutsch)\n\
         outlet: https://outlet.northwind-bikes.example/, root page 33, languages en (English)\n\
         2 in total"
    );
}

#[test]
fn a_site_shows_its_settings_flattened_with_secrets_redacted() {
    let main = text("get_site_config", json!({"site": "main"}), ADMIN);
    assert!(main.starts_with("settings of site main:\n"), "{main}");
    for line in [
        "mail.smtpServer: \"mail.northwind-bikes.example:587\"",
        "mail.smtpPassword: [redacted]",
        "payment.currency: \"EUR\"",
        "payment.apiKey: [redacted]",
        "database.url: [redacted]",
        "database.poolSize: 10",
        "cache.backend: [redacted]",
        "features.maxUploadMb: 20",
        "seo.sitemap: true",
    ] {
        assert!(main.lines().any(|l| l == line), "missing `{line}`:\n{main}");
    }
    assert!(main.ends_with("in total"), "{main}");
    let outlet = text("get_site_config", json!({"site": "outlet"}), ADMIN);
    // `webhooks` reads as a secret name: its whole subtree goes (fail closed).
    assert!(
        outlet.lines().any(|l| l == "payment.webhooks: [redacted]"),
        "{outlet}"
    );
    assert!(outlet.lines().any(|l| l == "payment.currency: \"EUR\""));
    for output in [main, outlet, text("get_site_config", json!({}), ADMIN)] {
        assert_no_secret("get_site_config", &output);
    }
}

#[test]
fn unknown_site_and_editors_get_the_same_denial() {
    let unknown = text("get_site_config", json!({"site": "nope"}), ADMIN);
    assert_eq!(unknown, NOT_FOUND);
    for editor in EDITORS {
        assert_eq!(
            text("get_site_config", json!({"site": "main"}), editor),
            unknown
        );
        assert_eq!(
            text("get_site_config", json!({"site": "nope"}), editor),
            unknown
        );
        assert_eq!(text("get_site_config", json!({}), editor), unknown);
    }
}

#[test]
fn settings_are_cut_one_over_the_cap() {
    let mut data = MemorySite::demo().data();
    let settings: Map<String, Value> = (0..301).map(|i| (format!("key{i:03}"), json!(i))).collect();
    data.sites[0].settings = Value::Object(settings);
    let cx = cx_on(Arc::new(MemorySite::new(data)), ADMIN);
    let output = call_with("get_site_config", json!({"site": "main"}), &cx).unwrap();
    assert_eq!(output.lines().count(), 302, "heading, 300 settings, total");
    assert!(output.ends_with("showing 300 of 301; narrow the query to see the rest"));
}

#[test]
fn long_values_are_redacted_before_they_are_cut() {
    let mut data = MemorySite::demo().data();
    let value = format!(
        "{} ghp_1234567890abcdefghijABCDEFGHIJ123456",
        "x".repeat(400)
    );
    data.sites[0].settings = json!({"notes": value, "long": "y".repeat(400)});
    let cx = cx_on(Arc::new(MemorySite::new(data)), ADMIN);
    let output = call_with("get_site_config", json!({"site": "main"}), &cx).unwrap();
    assert!(!output.contains("ghp_"), "{output}");
    let long = output.lines().find(|l| l.starts_with("long: ")).unwrap();
    assert_eq!(
        long.chars().count(),
        "long: ".len() + 301,
        "300 characters and the ellipsis"
    );
}
