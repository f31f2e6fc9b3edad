//! What single calls have read (gate 9), on every backend: kept per key,
//! merged so no rise is lost, forgotten after a window without calls.

use std::time::Duration;

use host_example::store::{SettingKey, Store, StoreError};
use tool_core::exposure::Exposure;
use tool_core::gates::{Approvers, GroupExposure};
use tool_core::{Content, DataClass};

const WINDOW: Duration = Duration::from_secs(30 * 60);

fn read(tool: &str, call: &str, data: DataClass, content: Content) -> Exposure {
    let mut exposure = Exposure::default();
    let _ = exposure.record(tool, call, data, content);
    exposure
}

pub async fn exposures_are_kept_per_key_and_merged(url: &str) {
    let store = Store::open(url).await.unwrap();
    let nothing = store
        .run_log()
        .exposure("caller:ada", WINDOW)
        .await
        .unwrap();
    assert!(nothing.exposure.is_empty());
    assert_eq!(nothing.seen_at, 0);

    let untrusted = read(
        "get_page_content",
        "c1",
        DataClass::Internal,
        Content::Untrusted,
    );
    store
        .run_log()
        .raise_exposure("caller:ada", &untrusted, WINDOW)
        .await
        .unwrap();
    // A second call raised from what it read before the first was stored:
    // both rises are kept, each with the call that raised it first.
    let personal = read("list_users", "c2", DataClass::Personal, Content::Trusted);
    let merged = store
        .run_log()
        .raise_exposure("caller:ada", &personal, WINDOW)
        .await
        .unwrap();
    assert_eq!(merged.untrusted.as_ref().unwrap().call, "c1");
    assert_eq!(merged.data.as_ref().unwrap().class, DataClass::Personal);
    let stored = store
        .run_log()
        .exposure("caller:ada", WINDOW)
        .await
        .unwrap();
    assert_eq!(stored.exposure, merged);
    assert!(stored.seen_at > 0);

    // Another key has read nothing.
    let other = store
        .run_log()
        .exposure("session:abc", WINDOW)
        .await
        .unwrap();
    assert!(other.exposure.is_empty());
}

pub async fn an_exposure_is_forgotten_after_a_window_without_calls(url: &str) {
    let store = Store::open(url).await.unwrap();
    let untrusted = read("fetch_logs", "c1", DataClass::Personal, Content::Untrusted);
    store
        .run_log()
        .raise_exposure("caller:ada", &untrusted, WINDOW)
        .await
        .unwrap();
    // The last call an hour ago, past a window of thirty minutes.
    sqlx::query("UPDATE exposures SET seen_at = seen_at - 3600")
        .execute(store.pool())
        .await
        .unwrap();
    let forgotten = store
        .run_log()
        .exposure("caller:ada", WINDOW)
        .await
        .unwrap();
    assert!(forgotten.exposure.is_empty());
    // Nothing to keep alive: touching does not bring it back.
    store
        .run_log()
        .touch_exposure("caller:ada", forgotten.seen_at)
        .await
        .unwrap();
    assert!(
        store
            .run_log()
            .exposure("caller:ada", WINDOW)
            .await
            .unwrap()
            .exposure
            .is_empty()
    );
    // A new rise after the window starts over, without the old one.
    let public = read("get_pagetree", "c9", DataClass::Internal, Content::Trusted);
    let fresh = store
        .run_log()
        .raise_exposure("caller:ada", &public, WINDOW)
        .await
        .unwrap();
    assert_eq!(fresh.untrusted, None);

    // Within a longer window, the same row is still remembered, and a call
    // keeps it alive.
    sqlx::query("UPDATE exposures SET seen_at = seen_at - 600")
        .execute(store.pool())
        .await
        .unwrap();
    let kept = store
        .run_log()
        .exposure("caller:ada", WINDOW)
        .await
        .unwrap();
    assert_eq!(kept.exposure, fresh);
    store
        .run_log()
        .touch_exposure("caller:ada", kept.seen_at)
        .await
        .unwrap();
    let touched = store
        .run_log()
        .exposure("caller:ada", WINDOW)
        .await
        .unwrap();
    assert!(touched.seen_at > kept.seen_at);
}

pub async fn exposure_settings_round_trip_and_bad_values_are_refused(url: &str) {
    let store = Store::open(url).await.unwrap();
    // The defaults: gate 9 on, safe rules, a window of thirty minutes,
    // results marked.
    let settings = store.config().host_settings().await.unwrap();
    assert!(settings.exposure.enabled);
    assert_eq!(
        settings.exposure.egress_after_data,
        Some(DataClass::Confidential)
    );
    assert_eq!(settings.exposure.writes_after_untrusted, Approvers::Others);
    assert_eq!(store.config().exposure_window().await.unwrap(), WINDOW);
    assert!(store.config().mark_tool_results().await.unwrap());

    store
        .config()
        .set_setting(
            "exposure",
            r#"{"egress_after_data": null, "writes_after_untrusted": "anyone"}"#,
        )
        .await
        .unwrap();
    store
        .config()
        .set_setting("exposure_window_minutes", "5")
        .await
        .unwrap();
    store
        .config()
        .set_setting("mark_tool_results", "false")
        .await
        .unwrap();
    store
        .config()
        .set_setting("groups", r#"{"system": {"exposure": "exempt"}}"#)
        .await
        .unwrap();
    let settings = store.config().host_settings().await.unwrap();
    assert!(
        settings.exposure.enabled,
        "an unnamed rule keeps its default"
    );
    assert_eq!(settings.exposure.egress_after_data, None);
    assert_eq!(settings.exposure.writes_after_untrusted, Approvers::Anyone);
    assert_eq!(settings.groups["system"].exposure, GroupExposure::Exempt);
    assert_eq!(
        store.config().exposure_window().await.unwrap(),
        Duration::from_secs(300)
    );
    assert!(!store.config().mark_tool_results().await.unwrap());
    let shown = store.config().settings().await.unwrap();
    for key in [
        SettingKey::Exposure,
        SettingKey::ExposureWindowMinutes,
        SettingKey::MarkToolResults,
    ] {
        assert!(
            shown.iter().any(|s| s.key == key && !s.is_default),
            "{key:?}"
        );
    }

    for (key, value) in [
        ("exposure", r#"{"enabled": "yes"}"#),
        ("exposure", r#"{"writes_after_untrusted": "nobody"}"#),
        ("exposure", r#"{"egress_after_data": "secret"}"#),
        ("exposure", r#"{"tainted": true}"#),
        ("exposure_window_minutes", "0"),
        ("exposure_window_minutes", "43201"),
        ("exposure_window_minutes", "-1"),
        ("mark_tool_results", r#""no""#),
        ("groups", r#"{"system": {"exposure": "loose"}}"#),
    ] {
        let error = store.config().set_setting(key, value).await.unwrap_err();
        assert!(
            matches!(error, StoreError::InvalidSetting { .. }),
            "{key} {value}: {error}"
        );
    }
    assert_eq!(
        store.config().exposure_window().await.unwrap(),
        Duration::from_secs(300)
    );
}

/// What a call reads before it runs ([`RunLog::call_state`], on a
/// connection SQLite keeps out of the pool) is what is committed now: a
/// settings change and an exposure raised through another store (another
/// process) a moment ago are both seen by the very next read, however
/// often that connection was used before.
pub async fn a_call_reads_what_another_store_committed_a_moment_ago(url: &str) {
    let this = Store::open(url).await.unwrap();
    let other = Store::open(url).await.unwrap();
    let mut generation = this
        .run_log()
        .call_state("caller:ada")
        .await
        .unwrap()
        .generation;
    for round in 0..5 {
        for _ in 0..3 {
            let state = this.run_log().call_state("caller:ada").await.unwrap();
            assert_eq!(state.generation, generation, "round {round}");
        }
        other
            .config()
            .set_setting("exposure_window_minutes", &(10 + round).to_string())
            .await
            .unwrap();
        let state = this.run_log().call_state("caller:ada").await.unwrap();
        assert!(state.generation > generation, "round {round}: {state:?}");
        generation = state.generation;
    }
    let untrusted = read(
        "get_page_content",
        "c1",
        DataClass::Internal,
        Content::Untrusted,
    );
    other
        .run_log()
        .raise_exposure("caller:ada", &untrusted, WINDOW)
        .await
        .unwrap();
    let state = this.run_log().call_state("caller:ada").await.unwrap();
    assert!(!state.exposure(WINDOW).unwrap().exposure.is_empty());
    // A key with no row reads as nothing, with the generation all the same.
    let none = this.run_log().call_state("caller:nobody").await.unwrap();
    assert_eq!(none.generation, generation);
    assert!(none.exposure(WINDOW).unwrap().exposure.is_empty());
    // A session's row is read in the same statement, apart from the
    // caller's: what one read, the other did not.
    other
        .run_log()
        .raise_exposure("session:bo:s1", &untrusted, WINDOW)
        .await
        .unwrap();
    let both = this
        .run_log()
        .call_state_in("caller:ada", Some("session:bo:s1"))
        .await
        .unwrap();
    assert_eq!(both.generation, generation);
    assert!(!both.exposure(WINDOW).unwrap().exposure.is_empty());
    assert!(!both.session_exposure(WINDOW).unwrap().exposure.is_empty());
    let fresh = this
        .run_log()
        .call_state_in("caller:nobody", Some("session:nobody:s2"))
        .await
        .unwrap();
    assert!(fresh.exposure(WINDOW).unwrap().exposure.is_empty());
    assert!(fresh.session_exposure(WINDOW).unwrap().exposure.is_empty());
}
