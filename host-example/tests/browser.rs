//! The browser front door in a real browser: the host's web router served
//! on loopback over a fresh SQLite database, driven by Playwright (Python)
//! and Debian's chromium, with axe-core for the accessibility checks, all
//! installed by `tests/browser/install.sh`.
//!
//! The setup switches the writing tools on and starts two runs that each
//! wait on a proposal of `update_page_metadata` (one of them carrying
//! markup in its new title, which every page must show as text). The Python tests
//! (`tests/browser/test_*.py`) then sign in, switch, approve and look.
//!
//! The model configuration points at a rule-driven fake Chat Completions
//! server ([`scripted_model`]): a test steers a run through its prompt
//! (`CALL <tool> <json>`, `SAY <text>`, `HOLD <name>`).
//!
//! Two test tools are linked into this binary, so the host's registry
//! serves them beside the real tools (administrators only): `render_swatch`
//! returns an image, and `count_to_three` reports progress, for the
//! inspector to show.
//!
//! Without the browser or the virtualenv the test prints a note and passes,
//! unless `CI` is set: then it fails.

#[path = "support/scripted_model.rs"]
mod scripted_model;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use host_example::Host;
use host_example::app::runs::RunEnded;
use host_example::serve::HostState;
use host_example::store::{RunRequest, Store};
use scripted_model::ScriptedModel;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tool_core::{ContentItem, Execute, Tool, ToolContext, ToolError, ToolOutput};

/// A 1×1 PNG.
const PIXEL: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Renders a colour swatch as a PNG.
#[derive(Tool, serde::Deserialize, schemars::JsonSchema)]
#[tool(group = "testing", effect = "read", data = "public", requires_admin)]
#[serde(deny_unknown_fields)]
struct RenderSwatch {
    /// The colour's name.
    colour: String,
}

impl Execute for RenderSwatch {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("The {} swatch:", self.colour))
            .with(ContentItem::image(&PIXEL, "image/png")))
    }
}

/// Counts to three, reporting each number as progress, for the inspector
/// to show a call under way.
#[derive(Tool, serde::Deserialize, schemars::JsonSchema)]
#[tool(group = "testing", effect = "read", data = "public", requires_admin)]
#[serde(deny_unknown_fields)]
struct CountToThree {}

impl Execute for CountToThree {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        for done in 1..=3 {
            // A real wait, so each report may reach the page on its own.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            cx.progress(done, Some(3), &format!("counted {done}"));
        }
        Ok(ToolOutput::text("counted to three"))
    }
}

/// A skill for the skills page: approved, changed and approved again there.
const SKILL: &str = "---\nname: review\ndescription: Reviews the site's page tree for broken structure. Use when asked to audit pages.\nallowed-tools: get_pagetree\n---\nRead the page tree first.\n";

/// A title a model could write: it must reach the page as text.
const HOSTILE_TITLE: &str =
    "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">";

/// Every writing tool switched on (they ship disabled), so the content
/// browser offers each as an action.
const WRITE_TOOLS_ON: &str = r#"{
    "update_page_metadata": {"state": "enabled"},
    "create_content_element_draft": {"state": "enabled"},
    "move_content_element": {"state": "enabled"},
    "create_translation_draft": {"state": "enabled"},
    "set_file_alternative_text": {"state": "enabled"}
}"#;

fn venv_python() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("browser/bin/python")
}

#[test]
fn browser_pages() {
    let python = venv_python();
    // axe-core, beside the virtualenv (install.sh puts it there).
    let axe = python
        .parent()
        .and_then(Path::parent)
        .map(|venv| venv.join("axe/node_modules/axe-core/axe.min.js"))
        .unwrap_or_default();
    if !python.exists() || !axe.exists() || !Path::new("/usr/bin/chromium").exists() {
        let note = format!(
            "browser tests skipped: run host-example/tests/browser/install.sh (missing {}, {} or /usr/bin/chromium)",
            python.display(),
            axe.display()
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
    let skills = folder.path().join("skills");
    let (address, model) = runtime.block_on(async {
        let store = Store::open(&url).await.unwrap();
        let model = ScriptedModel::start().await;
        store
            .config()
            .set_setting("model", &model.setting())
            .await
            .unwrap();
        store
            .config()
            .set_setting(
                "models",
                &format!(r#"{{"second": {}}}"#, model.setting_named("second")),
            )
            .await
            .unwrap();
        store
            .config()
            .set_setting("tools", WRITE_TOOLS_ON)
            .await
            .unwrap();
        // One skill, never approved, for the skills page to show.
        let review = skills.join("review");
        std::fs::create_dir_all(&review).unwrap();
        std::fs::write(review.join("SKILL.md"), SKILL).unwrap();
        let folders = serde_json::to_string(&[&skills]).unwrap();
        store
            .config()
            .set_setting("skills_folders", &folders)
            .await
            .unwrap();
        // The sign-in tests send `X-Forwarded-For` as a proxy in front would.
        store
            .config()
            .set_setting("trusted_proxies", r#"["127.0.0.1"]"#)
            .await
            .unwrap();
        let state = HostState::new(Host::new(store).unwrap());
        let host = Arc::clone(&state.host);
        // Two runs of ops, each suspended on its proposal, as a model's
        // call would leave them.
        for arguments in [
            json!({"page": 20, "title": "Repairs and servicing"}),
            json!({"page": 2, "title": HOSTILE_TITLE}),
        ] {
            let prompt = format!("CALL update_page_metadata {arguments}");
            let started = host
                .runs()
                .start_run("ops", RunRequest::new(prompt), &mut ())
                .await
                .unwrap();
            assert!(
                matches!(started.ended, RunEnded::Suspended(_)),
                "{started:?}"
            );
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        // The pages and `/mcp` as `serve` serves them (a token made in
        // the browser is tried at `/mcp`), and the worker `serve` starts
        // beside them (the batches' jobs).
        let _worker = state.host.start_worker(CancellationToken::new());
        let app = host_example::serve::router(&state, CancellationToken::new())
            .into_make_service_with_connect_info::<std::net::SocketAddr>();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (address, model)
    });
    let folder_of_tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    // The README shows the committed screenshots (docs/images); a test run
    // writes beside the virtualenv unless asked to refresh them
    // (UPDATE_SCREENSHOTS=1), so running the tests leaves the work tree as
    // it was.
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/images");
    let screenshots = if std::env::var_os("UPDATE_SCREENSHOTS").is_some() {
        committed
    } else {
        venv_python()
            .parent()
            .and_then(Path::parent)
            .map_or(committed, |venv| venv.join("screenshots"))
    };
    let status = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(&folder_of_tests)
        .env("BASE_URL", format!("http://{address}"))
        .env("SCREENSHOTS", &screenshots)
        .env("MODEL_URL", &model.base_url)
        .env("SKILLS_DIR", &skills)
        .env("AXE_JS", &axe)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "the browser tests failed (pytest's output is above)"
    );
}
