//! The host relays none of its own secrets: a provider that echoes the
//! API key in its 401 ("Incorrect API key provided: sk-…", as OpenAI's
//! does) leaves no key in the run's outcome, its stored events, the
//! `run.failed` webhook's body, or the run's page — each read from outside:
//! the real binary runs, a real receiver on loopback gets the webhook, the
//! page is fetched from `serve`.

#[path = "support/loopback.rs"]
mod loopback;
mod mcp_support;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use host_example::store::Store;
use mcp_support::Host;
use serde_json::json;

/// The key, as the test's environment gives it to the host.
const KEY: &str = "sk-relayed-0123456789abcdef";
const KEY_VARIABLE: &str = "HOST_EXAMPLE_TEST_RELAYED_KEY";

/// `app` served on loopback; its base URL.
fn serve(app: Router) -> String {
    format!("http://{}", loopback::serve(app))
}

/// A provider that refuses every request, quoting the key it was sent.
async fn refuse(headers: HeaderMap) -> impl IntoResponse {
    let sent = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_owned();
    let body = json!({"error": {
        "message": format!("Incorrect API key provided: {sent}. You can find your API key in your account."),
        "type": "invalid_request_error",
        "code": "invalid_api_key"
    }});
    (StatusCode::UNAUTHORIZED, body.to_string())
}

#[test]
fn a_provider_echoing_the_key_leaves_it_nowhere_the_host_keeps_shows_or_sends() {
    let provider = serve(Router::new().route("/v1/chat/completions", post(refuse)));
    let got: Arc<Mutex<Vec<String>>> = Arc::default();
    let kept = Arc::clone(&got);
    let receiver = serve(Router::new().route(
        "/hook",
        post(move |body: Bytes| {
            let kept = Arc::clone(&kept);
            async move {
                kept.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&body).into_owned());
                StatusCode::OK
            }
        }),
    ));

    let host = Host::new();
    let model = json!({"base_url": format!("{provider}/v1"), "model": "any", "api_key_env": KEY_VARIABLE, "max_retries": 0});
    host.run(&[
        "--user",
        "admin",
        "settings",
        "set",
        "model",
        &model.to_string(),
    ]);
    // The receiver is on loopback: the local network is allowed for it.
    host.run(&[
        "--user",
        "admin",
        "settings",
        "set",
        "webhook_targets",
        r#"{"allow_local_network": true}"#,
    ]);
    host.run(&[
        "--user",
        "admin",
        "webhooks",
        "set",
        "failures",
        &format!("{receiver}/hook"),
        "--events",
        "run.failed",
    ]);
    let ran = host
        .command(&["--user", "ops", "run", "hello"])
        .env(KEY_VARIABLE, KEY)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(!ran.status.success(), "the run fails: {said}");
    assert!(said.contains("401 Unauthorized"), "{said}");
    assert!(!said.contains(KEY), "the command line: {said}");

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (run, events, outcome) = runtime.block_on(async {
        let store = Store::open(&host.url).await.unwrap();
        let run = store.run_log().runs(10).await.unwrap()[0].id.clone();
        let events =
            serde_json::to_string(&store.run_log().run_events(&run).await.unwrap()).unwrap();
        let outcome = format!("{:?}", store.run_log().run(&run).await.unwrap());
        (run, events, outcome)
    });
    assert!(events.contains("401 Unauthorized"), "{events}");
    assert!(!events.contains(KEY), "the stored events: {events}");
    assert!(!outcome.contains(KEY), "the stored run: {outcome}");

    // The webhook, delivered by the worker of `serve`, and the run's page.
    let served = host.serve();
    let page = runtime.block_on(mcp_support::pages::page(
        &served.base,
        "admin",
        &format!("/runs/{}", run.0),
    ));
    assert!(page.contains("401 Unauthorized"), "{page}");
    assert!(!page.contains(KEY), "the run's page: {page}");
    for _ in 0..300 {
        if !got.lock().unwrap().is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let bodies = got.lock().unwrap().clone();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    assert!(bodies[0].contains("401 Unauthorized"), "{bodies:?}");
    assert!(!bodies[0].contains(KEY), "the webhook: {bodies:?}");
}
