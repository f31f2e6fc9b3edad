//! Browser sessions live in the database: two real `host-example serve`
//! processes on one database (a SQLite file always, PostgreSQL when
//! `HOST_TEST_POSTGRES_URL` names a server) know each other's sessions. A
//! browser signed in on one is signed in on the other; a password changed
//! on the command line, a removed user, signing out and the session's
//! lifetimes end sessions on both alike; an expired, ended, unknown or
//! malformed session is sent back to sign-in the same way.
//!
//! Expiry is tested with a lifetime of one second (setting
//! `browser_sessions`), and only ever past it: nothing asserts that a
//! session is still alive within a short lifetime.

#[path = "store/backends.rs"]
mod backends;
mod mcp_support;

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use backends::TestDb;
use host_example::store::Store;
use mcp_support::Host;

/// Runs a command with `stdin` as its input; asserts it succeeded.
fn run(url: &str, args: &[&str], stdin: &str) {
    let mut child = Host::at(url)
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?}: {stderr}");
}

/// What a server answered: the status, where it redirects, the cookie it
/// set (its `name=value`), the body.
struct Answer {
    status: u16,
    location: Option<String>,
    cookie: Option<String>,
    body: String,
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn send(request: reqwest::RequestBuilder, cookie: Option<&str>) -> Answer {
    let request = match cookie {
        Some(cookie) => request.header("cookie", cookie),
        None => request,
    };
    let response = request.send().await.unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|value| value.to_str().unwrap().to_owned())
    };
    let location = header("location");
    let cookie = header("set-cookie").map(|set| set.split(';').next().unwrap().to_owned());
    let status = response.status().as_u16();
    let body = response.text().await.unwrap();
    Answer {
        status,
        location,
        cookie,
        body,
    }
}

async fn get(base: &str, path: &str, cookie: Option<&str>) -> Answer {
    send(client().get(format!("{base}{path}")), cookie).await
}

async fn post(base: &str, path: &str, cookie: &str, form: &[(&str, &str)]) -> Answer {
    let body = form
        .iter()
        .map(|(name, value)| format!("{name}={}", value.replace(' ', "+")))
        .collect::<Vec<_>>()
        .join("&");
    let request = client()
        .post(format!("{base}{path}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body);
    send(request, Some(cookie)).await
}

/// The value of the first hidden `csrf` field of a page.
fn csrf_in(body: &str) -> String {
    let (_, rest) = body
        .split_once("name=\"csrf\" value=\"")
        .unwrap_or_else(|| panic!("no CSRF field in {body}"));
    rest.split('"').next().unwrap().to_owned()
}

/// Fetches the sign-in form from `form_from` and signs in on `submit_to`
/// (the form's session, too, is known to every process); the new
/// session's cookie, and the form's.
async fn sign_in(form_from: &str, submit_to: &str, name: &str, password: &str) -> (String, String) {
    let form = get(form_from, "/signin", None).await;
    assert_eq!(form.status, 200, "{}", form.body);
    let before = form.cookie.expect("the sign-in form begins a session");
    let csrf = csrf_in(&form.body);
    let signed_in = post(
        submit_to,
        "/signin",
        &before,
        &[("name", name), ("password", password), ("csrf", &csrf)],
    )
    .await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    let after = signed_in.cookie.expect("sign-in sets the session's cookie");
    assert_ne!(before, after, "sign-in begins a new session");
    (after, before)
}

/// Whether the page opens for `cookie`, as `name`; otherwise it must
/// send the browser to sign in.
async fn signed_in_as(base: &str, cookie: &str, name: &str) -> bool {
    let page = get(base, "/approvals", Some(cookie)).await;
    match page.status {
        200 => {
            assert!(
                page.body
                    .contains(&format!("Signed in as <strong>{name}</strong>")),
                "{}",
                page.body
            );
            true
        }
        _ => {
            assert_refused(&page);
            false
        }
    }
}

/// The one answer to a session that is not (or no longer) one.
fn assert_refused(page: &Answer) {
    assert_eq!(
        (page.status, page.location.as_deref(), page.body.as_str()),
        (303, Some("/signin"), ""),
    );
}

async fn sessions_in_database(url: &str, user: &str) -> i64 {
    let store = Store::open(url).await.unwrap();
    let count = store.people().browser_sessions_of(user).await.unwrap();
    store.pool().close().await;
    count
}

async fn sessions_are_shared_and_ended(url: &str) {
    run(url, &["db", "migrate"], "");
    let a = Host::at(url).serve();
    let b = Host::at(url).serve();
    let (a, b) = (a.base.clone(), b.base.clone());

    // Signed in on A (with the form B served): known on B.
    let (petra, form_session) = sign_in(&b, &a, "petra", "demo").await;
    assert!(signed_in_as(&a, &petra, "petra").await);
    assert!(signed_in_as(&b, &petra, "petra").await);
    // The sign-in form's session is over: its id is worth nothing now.
    assert!(!signed_in_as(&b, &form_session, "petra").await);

    // A notice left by a form on B is shown by A's next page, once.
    let page = get(&b, "/approvals", Some(&petra)).await;
    let csrf = csrf_in(&page.body);
    let decided = post(
        &b,
        "/approvals/no-such-proposal/reject",
        &petra,
        &[("csrf", &csrf), ("reason", "no")],
    )
    .await;
    assert_eq!(decided.status, 303, "{}", decided.body);
    let shown = get(&a, "/approvals", Some(&petra)).await;
    assert!(shown.body.contains("Nothing was written"), "{}", shown.body);
    let again = get(&b, "/approvals", Some(&petra)).await;
    assert!(
        !again.body.contains("Nothing was written"),
        "{}",
        again.body
    );

    // A second session of petra's, then her password changes on the
    // command line: both sessions end, on both processes.
    let (petra_elsewhere, _) = sign_in(&a, &a, "petra", "demo").await;
    assert!(signed_in_as(&b, &petra_elsewhere, "petra").await);
    let (nils, _) = sign_in(&a, &b, "nils", "demo").await;
    run(
        url,
        &["--user", "admin", "users", "password", "petra"],
        "n3w pass\n",
    );
    for cookie in [&petra, &petra_elsewhere] {
        assert!(!signed_in_as(&a, cookie, "petra").await);
        assert!(!signed_in_as(&b, cookie, "petra").await);
    }
    assert_eq!(sessions_in_database(url, "petra").await, 0);
    // Another user's session is not touched, and the new password works.
    assert!(signed_in_as(&a, &nils, "nils").await);
    let (petra, _) = sign_in(&b, &b, "petra", "n3w pass").await;
    assert!(signed_in_as(&a, &petra, "petra").await);

    // Signing out ends that session only, everywhere.
    let (nils_too, _) = sign_in(&b, &b, "nils", "demo").await;
    let page = get(&a, "/approvals", Some(&nils)).await;
    let out = post(&a, "/signout", &nils, &[("csrf", &csrf_in(&page.body))]).await;
    assert_eq!(
        (out.status, out.location.as_deref()),
        (303, Some("/signin"))
    );
    assert!(!signed_in_as(&b, &nils, "nils").await);
    assert!(signed_in_as(&b, &nils_too, "nils").await);

    // A removed user's sessions go with them.
    run(
        url,
        &[
            "--user",
            "admin",
            "users",
            "add",
            "tomas",
            "--password-stdin",
        ],
        "tomas pass\n",
    );
    let (tomas, _) = sign_in(&a, &a, "tomas", "tomas pass").await;
    assert!(signed_in_as(&b, &tomas, "tomas").await);
    let store = Store::open(url).await.unwrap();
    sqlx::query("DELETE FROM users WHERE name = 'tomas'")
        .execute(store.pool())
        .await
        .unwrap();
    store.pool().close().await;
    assert_eq!(sessions_in_database(url, "tomas").await, 0);
    assert!(!signed_in_as(&a, &tomas, "tomas").await);

    // An idle lifetime of one second: past it, refused on both, and the
    // session removed.
    run(
        url,
        &[
            "--user",
            "admin",
            "settings",
            "set",
            "browser_sessions",
            r#"{"idle_seconds": 1, "lifetime_seconds": 43200}"#,
        ],
        "",
    );
    past_one_second().await;
    let expired = get(&b, "/approvals", Some(&petra)).await;
    assert_refused(&expired);
    assert!(!signed_in_as(&a, &petra, "petra").await);
    assert_eq!(sessions_in_database(url, "petra").await, 0);

    // An absolute lifetime of one second: however recently used, past it
    // the session is refused.
    run(
        url,
        &[
            "--user",
            "admin",
            "settings",
            "set",
            "browser_sessions",
            r#"{"idle_seconds": 3600, "lifetime_seconds": 1}"#,
        ],
        "",
    );
    let (clara, _) = sign_in(&a, &b, "clara", "demo").await;
    past_one_second().await;
    assert!(!signed_in_as(&a, &clara, "clara").await);
    assert!(!signed_in_as(&b, &clara, "clara").await);

    // An expired, an unknown and a malformed session read alike.
    run(
        url,
        &[
            "--user",
            "admin",
            "settings",
            "set",
            "browser_sessions",
            r#"{"idle_seconds": 3600, "lifetime_seconds": 43200}"#,
        ],
        "",
    );
    let unknown = format!("host_session={}", "ab".repeat(32));
    for cookie in [
        petra.as_str(),
        clara.as_str(),
        &unknown,
        "host_session=%00'",
    ] {
        assert_refused(&get(&a, "/approvals", Some(cookie)).await);
    }
    assert_refused(&get(&b, "/approvals", None).await);
}

/// Sleeps past a lifetime of one second: the stored times are whole
/// seconds, so two of them have passed for certain.
async fn past_one_second() {
    tokio::time::sleep(Duration::from_millis(2100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_two_processes_share_and_end_sessions() {
    let db = TestDb::sqlite();
    sessions_are_shared_and_ended(&db.url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_processes_share_and_end_sessions() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    sessions_are_shared_and_ended(&db.url).await;
}
