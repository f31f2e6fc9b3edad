//! The browser front door in a real browser: the host's web router served
//! on loopback over a fresh SQLite database, driven by Playwright (Python)
//! and Debian's chromium, both installed by `tests/browser/install.sh`.
//!
//! The setup writes through the library what a run would have left: the
//! write tool `update_page_metadata` switched on, and two pending
//! proposals made by a gated call of it (one of them carrying markup in
//! its new title, which every page must show as text). The Python tests
//! (`tests/browser/test_*.py`) then sign in, switch, approve and look.
//!
//! The model configuration points at a rule-driven fake Chat Completions
//! server ([`scripted_model`]): a test steers a run through its prompt
//! (`CALL <tool> <json>`, `SAY <text>`, `HOLD <name>`).
//!
//! Without the browser or the virtualenv the test prints a note and passes,
//! unless `CI` is set: then it fails.

#[path = "support/scripted_model.rs"]
mod scripted_model;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use host_example::store::Store;
use scripted_model::ScriptedModel;
use host_example::web::{self, WebState};
use serde_json::{Value, json};
use site_model::Site;
use tool_core::gates::{Gates, RunConfig, RunInputs, Selection};
use tool_core::{Actor, Outcome, RunId, ToolContext};

/// A title a model could write: it must reach the page as text.
const HOSTILE_TITLE: &str =
    "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">";

fn venv_python() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("browser/bin/python")
}

/// Proposes `arguments` for `update_page_metadata` in a new run of `user`
/// and stores the proposal, pending.
async fn propose(
    store: &Store,
    registry: &tool_core::Registry,
    run: &str,
    user: &str,
    arguments: Value,
) {
    let settings = store.host_settings().await.unwrap();
    let actor = Actor {
        id: user.into(),
        admin: store.user(user).await.unwrap().unwrap().admin,
    };
    let config = RunConfig {
        trust_zone: store.trust_zone().await.unwrap(),
        ..RunConfig::default()
    };
    let inputs = RunInputs {
        settings: &settings,
        actor: Some(&actor),
        config: &config,
        skills: &[],
        selection: &Selection::All,
    };
    let gates = Gates::new(registry, inputs);
    let grant = gates.resolve().grant;
    let run = RunId(run.into());
    store.create_run(&run, user, &grant).await.unwrap();
    let site: Arc<dyn Site> = Arc::new(store.site());
    let cx = ToolContext::new(run.clone())
        .with_actor(actor.clone())
        .with_service(site);
    let outcome = gates
        .call(&grant, "update_page_metadata", arguments, &cx)
        .await
        .unwrap();
    let Outcome::Proposed(proposal) = outcome else {
        panic!("a write tool proposes")
    };
    store.save_proposal(&run, &proposal).await.unwrap();
}

#[test]
fn browser_pages() {
    let python = venv_python();
    if !python.exists() || !Path::new("/usr/bin/chromium").exists() {
        let note = format!(
            "browser tests skipped: run host-example/tests/browser/install.sh (missing {} or /usr/bin/chromium)",
            python.display()
        );
        assert!(std::env::var_os("CI").is_none(), "{note}");
        eprintln!("{note}");
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let url = format!(
        "sqlite://{}?mode=rwc",
        folder.path().join("host.db").display()
    );
    let registry = Arc::new(host_example::registry().unwrap());
    let (address, model) = runtime.block_on(async {
        let store = Store::open(&url).await.unwrap();
        let model = ScriptedModel::start().await;
        store.set_setting("model", &model.setting()).await.unwrap();
        store
            .set_setting("tools", r#"{"update_page_metadata": {"state": "enabled"}}"#)
            .await
            .unwrap();
        propose(
            &store,
            &registry,
            "run-repairs",
            "ops",
            json!({"page": 20, "title": "Repairs and servicing"}),
        )
        .await;
        propose(
            &store,
            &registry,
            "run-hostile",
            "ops",
            json!({"page": 2, "title": HOSTILE_TITLE}),
        )
        .await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let host = Arc::new(host_example::Host::new(store).unwrap());
        let app = web::router(WebState::new(host));
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (address, model)
    });
    let folder_of_tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    // The README shows the committed screenshots; a test run writes beside
    // the virtualenv unless asked to refresh them (UPDATE_SCREENSHOTS=1),
    // so running the tests leaves the work tree as it was.
    let screenshots = if std::env::var_os("UPDATE_SCREENSHOTS").is_some() {
        folder_of_tests.join("screenshots")
    } else {
        venv_python().parent().and_then(Path::parent).map_or_else(
            || folder_of_tests.join("screenshots"),
            |venv| venv.join("screenshots"),
        )
    };
    let status = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(&folder_of_tests)
        .env("BASE_URL", format!("http://{address}"))
        .env("SCREENSHOTS", &screenshots)
        .env("MODEL_URL", &model.base_url)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "the browser tests failed (pytest's output is above)"
    );
}
