//! Settings on every backend: each key round-trips, a value that does not
//! fit is refused and stores nothing, a corrupt stored value is one line.

use host_example::app::skills::approval::UnapprovedSkills;
use host_example::store::{
    SessionLifetimes, SettingKey, Store, StoreError, WebhookDelivery, WorkerSettings,
};
use serde_json::json;
use sqlx::Row;
use tool_core::DataClass;

pub async fn settings_round_trip(url: &str) {
    let store = Store::open(url).await.unwrap();
    assert_eq!(
        store.config().trust_zone().await.unwrap(),
        DataClass::Internal
    );
    assert_eq!(store.config().model_config().await.unwrap(), None);
    store
        .config()
        .set_setting("trust_zone", r#""confidential""#)
        .await
        .unwrap();
    assert_eq!(
        store.config().trust_zone().await.unwrap(),
        DataClass::Confidential
    );
    store
        .config()
        .set_setting("groups", r#"{"system": {"state": "disabled"}}"#)
        .await
        .unwrap();
    store
        .config()
        .set_setting("sites", r#"["https://www.example.com"]"#)
        .await
        .unwrap();
    store
        .config()
        .set_setting("skill_trust_floor", "2")
        .await
        .unwrap();
    let settings = store.config().host_settings().await.unwrap();
    assert_eq!(settings.groups.len(), 1);
    assert_eq!(settings.sites.len(), 1);
    assert_eq!(settings.skill_trust_floor.0, 2);
    store
        .config()
        .set_setting(
            "model",
            r#"{"base_url": "http://localhost:11434/v1", "model": "qwen3:8b"}"#,
        )
        .await
        .unwrap();
    assert_eq!(
        store.config().model_config().await.unwrap().unwrap().model,
        "qwen3:8b"
    );
    store
        .config()
        .set_setting("skills_folders", r#"["/srv/skills"]"#)
        .await
        .unwrap();
    assert_eq!(store.config().skills_folders().await.unwrap().len(), 1);
    store
        .config()
        .set_setting(
            "models",
            r#"{"large": {"base_url": "http://localhost:8000/v1", "model": "big"}}"#,
        )
        .await
        .unwrap();
    let config = store.config();
    let named = |name| config.model_config_named(name);
    assert_eq!(named(Some("large")).await.unwrap().unwrap().model, "big");
    assert_eq!(named(None).await.unwrap().unwrap().model, "qwen3:8b");
    assert_eq!(named(Some("small")).await.unwrap(), None);
    assert_eq!(
        store.config().unapproved_skills().await.unwrap(),
        UnapprovedSkills::Refuse
    );
    store
        .config()
        .set_setting("unapproved_skills", r#""allow""#)
        .await
        .unwrap();
    assert_eq!(
        store.config().unapproved_skills().await.unwrap(),
        UnapprovedSkills::Allow
    );
    assert_eq!(store.config().oauth_settings().await.unwrap(), None);
    store
        .config()
        .set_setting(
            "oauth",
            r#"{"issuer": "https://id.example", "resource": "https://host.example/mcp",
                "jwks_uri": "https://id.example/jwks.json"}"#,
        )
        .await
        .unwrap();
    let oauth = store.config().oauth_settings().await.unwrap().unwrap();
    assert_eq!(oauth.issuer, "https://id.example");
    assert_eq!(oauth.resource, "https://host.example/mcp");
    let origins = r#"["HTTPS://Host.Test:443", "http://host.test:3000"]"#;
    let stored = store
        .config()
        .set_setting("allowed_origins", origins)
        .await
        .unwrap();
    let expected = json!(["https://host.test", "http://host.test:3000"]);
    assert_eq!(stored, expected);
    let proxies = store
        .config()
        .set_setting("trusted_proxies", r#"["127.0.0.1", "::1"]"#)
        .await
        .unwrap();
    assert_eq!(proxies, json!(["127.0.0.1", "::1"]));
    assert_eq!(store.config().trusted_proxies().await.unwrap().len(), 2);
    store
        .config()
        .set_setting(
            "budgets",
            r#"{"default": {"tokens_per_day": 5000}, "users": {"petra": {"cost_per_month": 2.5}}}"#,
        )
        .await
        .unwrap();
    let budgets = store.config().budgets().await.unwrap();
    assert_eq!(budgets.of("clara").tokens_per_day, Some(5000));
    assert_eq!(
        budgets.of("petra").tokens_per_day,
        None,
        "her own replaces the default"
    );
    assert_eq!(budgets.of("petra").cost_per_month, Some(2.5));
    assert_eq!(
        store.config().session_lifetimes().await.unwrap(),
        SessionLifetimes::default()
    );
    store
        .config()
        .set_setting(
            "browser_sessions",
            r#"{"idle_seconds": 900, "lifetime_seconds": 28800}"#,
        )
        .await
        .unwrap();
    assert_eq!(
        store.config().session_lifetimes().await.unwrap(),
        SessionLifetimes {
            idle_seconds: 900,
            lifetime_seconds: 28800
        }
    );
    assert_eq!(store.job_queue().public_url().await.unwrap(), None);
    let url = store
        .config()
        .set_setting("public_url", r#""https://host.example/""#)
        .await
        .unwrap();
    assert_eq!(url, json!("https://host.example"));
    assert_eq!(
        store.job_queue().webhook_delivery().await.unwrap(),
        WebhookDelivery::default()
    );
    store
        .config()
        .set_setting(
            "webhook_delivery",
            r#"{"attempts": 3, "backoff_seconds": [0, 5], "timeout_seconds": 2}"#,
        )
        .await
        .unwrap();
    let delivery = store.job_queue().webhook_delivery().await.unwrap();
    assert_eq!((delivery.attempts, delivery.backoff(3)), (3, 5));
    assert!(
        !store
            .job_queue()
            .webhook_targets()
            .await
            .unwrap()
            .allow_local_network
    );
    store
        .config()
        .set_setting("webhook_targets", r#"{"allow_local_network": true}"#)
        .await
        .unwrap();
    assert!(
        store
            .job_queue()
            .webhook_targets()
            .await
            .unwrap()
            .allow_local_network
    );
    assert_eq!(
        store.config().worker_settings().await.unwrap(),
        WorkerSettings::default()
    );
    // A missing field keeps its default.
    store
        .config()
        .set_setting("worker", r#"{"lease_seconds": 5}"#)
        .await
        .unwrap();
    assert_eq!(
        store.config().worker_settings().await.unwrap(),
        WorkerSettings {
            concurrency: 2,
            lease_seconds: 5
        }
    );
    // A value that does not fit is refused and stores nothing.
    let before = store.config().settings().await.unwrap();
    for (key, value) in [
        ("trust_zone", r#""secret""#),
        ("trust_zone", "not json"),
        ("model", r#"{"model": "x"}"#),
        ("models", r#"{"large": {"model": "x"}}"#),
        ("sites", r#"["ftp://example.com"]"#),
        ("unapproved_skills", r#""sometimes""#),
        ("allowed_origins", r#"["null"]"#),
        ("trusted_proxies", r#"["proxy.local"]"#),
        ("budgets", r#"{"default": {"tokens_a_day": 5}}"#),
        ("budgets", r#"{"users": {"petra": {"tokens_per_day": -1}}}"#),
        ("oauth", r#"{"issuer": "https://id.example"}"#),
        (
            "browser_sessions",
            r#"{"idle_seconds": 0, "lifetime_seconds": 60}"#,
        ),
        (
            "browser_sessions",
            r#"{"idle_seconds": 60, "lifetime_seconds": 2592001}"#,
        ),
        ("browser_sessions", r#"{"idle_seconds": 60}"#),
        ("public_url", r#""ftp://host.example""#),
        ("public_url", r#""https://host.example/?a=1""#),
        (
            "webhook_delivery",
            r#"{"attempts": 0, "backoff_seconds": [1], "timeout_seconds": 5}"#,
        ),
        (
            "webhook_delivery",
            r#"{"attempts": 3, "backoff_seconds": [], "timeout_seconds": 5}"#,
        ),
        (
            "webhook_delivery",
            r#"{"attempts": 3, "backoff_seconds": [1], "timeout_seconds": 61}"#,
        ),
        ("worker", r#"{"concurrency": 0}"#),
        ("worker", r#"{"lease_seconds": 3601}"#),
        ("worker", r#"{"leases": 3}"#),
        ("webhook_targets", r#"{"allow_local_network": "yes"}"#),
        ("webhook_targets", r#"{"allow_metadata": true}"#),
        (
            "oauth",
            r#"{"issuer": "i", "resource": "ftp://x/mcp", "jwks_uri": "https://id.example/k"}"#,
        ),
    ] {
        let error = store.config().set_setting(key, value).await.unwrap_err();
        assert!(
            matches!(error, StoreError::InvalidSetting { .. }),
            "{error}"
        );
        assert!(
            error.to_string().starts_with(&format!("setting `{key}`")),
            "{error}"
        );
        assert!(!error.to_string().contains('\n'), "{error}");
    }
    assert!(matches!(
        store.config().set_setting("nope", "1").await,
        Err(StoreError::UnknownSetting { .. })
    ));
    assert_eq!(store.config().settings().await.unwrap(), before);
    // Gate 9's settings have their own round trip (`exposures.rs`), and
    // the durability its own (`durability.rs`).
    let elsewhere = [
        SettingKey::Durability,
        SettingKey::Tools,
        SettingKey::Exposure,
        SettingKey::ExposureWindowMinutes,
        SettingKey::MarkToolResults,
    ];
    assert!(
        before
            .iter()
            .all(|s| !s.is_default || elsewhere.contains(&s.key))
    );
}

pub async fn a_corrupt_setting_is_a_one_line_error(url: &str) {
    let store = Store::open(url).await.unwrap();
    store
        .config()
        .set_setting("trust_zone", r#""public""#)
        .await
        .unwrap();
    sqlx::query("UPDATE settings SET value = $1 WHERE key = 'trust_zone'")
        .bind("{\"oops\n")
        .execute(store.pool())
        .await
        .unwrap();
    let error = store.config().trust_zone().await.unwrap_err().to_string();
    assert!(error.contains("setting `trust_zone` "), "{error}");
    assert!(!error.contains('\n'), "{error}");
    let error = store.config().host_settings().await;
    assert!(error.is_ok(), "other settings still read");
    assert!(store.config().settings().await.is_err());
    // Reading changed nothing.
    let raw: String = sqlx::query("SELECT value FROM settings WHERE key = 'trust_zone'")
        .fetch_one(store.pool())
        .await
        .unwrap()
        .get("value");
    assert_eq!(raw, "{\"oops\n");
}
