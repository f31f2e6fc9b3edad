//! The command line end to end: the real binary on a fresh SQLite file.

use assert_cmd::Command;
use tempfile::TempDir;

struct Host {
    _dir: TempDir,
    url: String,
}

impl Host {
    fn new() -> Host {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("host.db").display());
        Host { _dir: dir, url }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::cargo_bin("host-example").unwrap();
        cmd.env_remove("HOST_DATABASE_URL")
            .env_remove("HOST_USER")
            .arg("--database")
            .arg(&self.url)
            .args(args);
        cmd
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let output = self.cmd(args).output().unwrap();
        (
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    }
}

/// One line on stderr, starting with `error:`.
fn assert_one_line_error(stderr: &str) {
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

#[test]
fn db_backup_writes_a_copy_that_db_check_reads() {
    let host = Host::new();
    let (code, before, err) = host.run(&["db", "check"]);
    assert_eq!(code, 0, "{err}");
    assert!(before.starts_with("integrity: ok\n"), "{before}");
    assert!(before.contains("users: 5 rows"), "{before}");
    let file = host._dir.path().join("copy.db");
    let file = file.to_str().unwrap();
    let (code, out, err) = host.run(&["db", "backup", file]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("backed up to {file}\n"));

    let mut copy = Command::cargo_bin("host-example").unwrap();
    let output = copy
        .env_remove("HOST_DATABASE_URL")
        .args(["--database", &format!("sqlite://{file}"), "db", "check"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stdout).unwrap(), before);

    let (code, _, err) = host.run(&["db", "backup", file]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    assert!(err.contains("exists already"), "{err}");
}

#[test]
fn db_migrate_creates_a_fresh_database() {
    let host = Host::new();
    let (code, out, err) = host.run(&["db", "migrate"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(
            "schema version {}",
            host_example::store::LATEST_VERSION
        )),
        "{out}"
    );
    // Again: nothing to do, same answer.
    let (code, again, _) = host.run(&["db", "migrate"]);
    assert_eq!((code, again), (0, out));
}

#[test]
fn users_add_token_and_list() {
    let host = Host::new();
    let (code, out, err) = host
        .cmd(&[
            "--user",
            "admin",
            "users",
            "add",
            "maria",
            "--admin",
            "--password-stdin",
        ])
        .write_stdin("s3cret\n")
        .output()
        .map(|o| {
            (
                o.status.code().unwrap(),
                String::from_utf8(o.stdout).unwrap(),
                String::from_utf8(o.stderr).unwrap(),
            )
        })
        .unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("added user maria (admin)"), "{out}");

    let (code, token, err) = host.run(&["--user", "maria", "users", "token", "maria"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(token.trim().len(), 64, "{token}");
    assert!(err.contains("shown once"), "{err}");

    let (code, list, _) = host.run(&["--user", "admin", "users", "list"]);
    assert_eq!(code, 0);
    let rows: Vec<Vec<&str>> = list
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["NAME", "ADMIN", "PASSWORD", "CREATED"]);
    let maria = rows.iter().find(|r| r[0] == "maria").unwrap();
    assert_eq!(&maria[1..3], ["yes", "yes"]);
    assert_eq!(rows.len(), 7, "{list}");

    // An editor may not add users; nobody may act without --user.
    let (code, _, err) = host.run(&["--user", "petra", "users", "add", "x"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    let (code, _, err) = host.run(&["users", "add", "x"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    assert!(err.contains("--user"), "{err}");
}

#[test]
fn settings_set_with_a_bad_value_changes_nothing() {
    let host = Host::new();
    let (code, _, err) = host.run(&[
        "--user",
        "admin",
        "settings",
        "set",
        "trust_zone",
        "\"public\"",
    ]);
    assert_eq!(code, 0, "{err}");
    let (_, before, _) = host.run(&["--user", "admin", "settings", "show"]);
    assert!(before.contains("trust_zone = \"public\"\n"), "{before}");
    assert!(before.contains("model = null (default)"), "{before}");
    for bad in ["{not json", "\"secret\"", "42"] {
        let (code, out, err) = host.run(&["--user", "admin", "settings", "set", "trust_zone", bad]);
        assert_eq!(code, 1, "{bad}: {out}");
        assert_one_line_error(&err);
        assert!(err.contains("trust_zone"), "{err}");
    }
    let (_, after, _) = host.run(&["--user", "admin", "settings", "show"]);
    assert_eq!(before, after);
    let (code, tail, _) = host.run(&["--user", "admin", "audit", "tail", "-n", "5"]);
    assert_eq!(code, 0);
    assert_eq!(tail.lines().count(), 2, "{tail}");
    assert!(tail.contains("trust_zone = \"public\""), "{tail}");
}

#[test]
fn a_bad_database_url_is_a_one_line_error() {
    for url in [
        "mysql://localhost/db",
        "sqlite:///nonexistent-folder/sub/host.db",
        "postgres://nobody:wrong@127.0.0.1:1/none",
    ] {
        let output = Command::cargo_bin("host-example")
            .unwrap()
            .args(["--database", url, "users", "list"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{url}");
        let err = String::from_utf8(output.stderr).unwrap();
        assert_one_line_error(&err);
        assert!(err.contains("database"), "{err}");
    }
}

#[test]
fn help_names_exit_codes_and_examples() {
    let host = Host::new();
    let (code, out, _) = host.run(&["--help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("Exit codes: 0 ok, 1 refused or failed"),
        "{out}"
    );
    let (code, out, _) = host.run(&["settings", "set", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Example"), "{out}");
    let (code, _, err) = host.run(&["users", "frobnicate"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn skills_approve_list_audit_and_check_names_the_changed_file() {
    let host = Host::new();
    let skills = tempfile::tempdir().unwrap();
    let folder = skills.path().join("review");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        "---\nname: review\ndescription: Reviews the site's page tree for broken structure. Use when asked to audit pages.\nallowed-tools: get_pagetree\n---\nRead the page tree first.\n",
    )
    .unwrap();
    let dir = skills.path().to_str().unwrap();

    // Without --approvals the check needs no database and says nothing of
    // approvals; with it, a skill never approved is an error.
    let (code, out, err) = host.run(&["skills", "check", dir]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    let (code, out, _) = host.run(&["skills", "check", "--approvals", dir]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("/review/SKILL.md:1:1: error[A002]: skill `review` is not approved"),
        "{out}"
    );

    let (code, out, err) = host.run(&["--user", "admin", "skills", "approve", dir]);
    assert_eq!(code, 0, "{err}");
    let digest = out
        .split("sha256:")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_owned();
    assert_eq!(digest.len(), 64, "{out}");
    let (code, listed, _) = host.run(&["--user", "admin", "skills", "approved"]);
    assert_eq!(code, 0);
    let row: Vec<&str> = listed.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(
        &row[..4],
        ["review", digest.as_str(), "1", "admin"],
        "{listed}"
    );
    let (_, json, _) = host.run(&["--user", "admin", "skills", "approved", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json[0]["sha256"], digest.as_str());
    assert_eq!(json[0]["files"][0]["path"], "SKILL.md");
    let (_, tail, _) = host.run(&["--user", "admin", "audit", "tail", "-n", "1"]);
    assert!(tail.contains("skills approve"), "{tail}");
    assert!(tail.contains(&format!("review sha256:{digest}")), "{tail}");
    let (code, out, err) = host.run(&["skills", "check", "--approvals", dir]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");

    // One byte: the checker names the file, in text and in JSON.
    let text = std::fs::read_to_string(folder.join("SKILL.md")).unwrap();
    std::fs::write(folder.join("SKILL.md"), text.replace("first.", "first!")).unwrap();
    let (code, out, _) = host.run(&["skills", "check", "--approvals", dir]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "/review/SKILL.md:1:1: error[A001]: changed since `admin` approved skill `review`"
        ),
        "{out}"
    );
    let (code, out, _) = host.run(&["skills", "check", "--approvals", "--format", "json", dir]);
    assert_eq!(code, 1);
    let findings: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(findings.as_array().unwrap().len(), 1, "{out}");
    assert_eq!(findings[0]["code"], "A001");
    assert_eq!(findings[0]["severity"], "error");
    assert!(
        findings[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("/review/SKILL.md"),
        "{out}"
    );

    // Allowing unapproved skills turns A002 into the warning A003 for a
    // skill never approved, never a changed one.
    let other = skills.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("SKILL.md"),
        "---\nname: other\ndescription: Lists the site's tables and their record counts. Use when asked about data.\n---\n",
    )
    .unwrap();
    let (code, _, err) = host.run(&[
        "--user",
        "admin",
        "settings",
        "set",
        "unapproved_skills",
        "\"allow\"",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = host.run(&["skills", "check", "--approvals", dir]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("/other/SKILL.md:1:1: warning[A003]: "),
        "{out}"
    );
    assert!(out.contains("error[A001]"), "{out}");
}

/// `runs show ID | head -1`: a reader that went away is not an error. The
/// pipe's reading end is closed before the command writes, so its first
/// write fails with `EPIPE` whatever the pipe's buffer holds.
#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    let host = Host::new();
    // A model nobody serves: the run fails, and is stored with its events.
    let model = r#"{"base_url": "http://127.0.0.1:9/v1", "model": "none"}"#;
    let set = host.run(&["--user", "admin", "settings", "set", "model", model]);
    assert_eq!(set.0, 0, "{set:?}");
    let run = host.run(&["--user", "admin", "run", "hello"]);
    assert_eq!(run.0, 1, "the model is unreachable: {run:?}");
    let (_, listed, _) = host.run(&["--user", "admin", "runs", "list"]);
    let id = listed
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    for args in [
        vec!["--user", "admin", "runs", "show", id.as_str()],
        vec!["--user", "admin", "runs", "list"],
        vec!["tools"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_host-example"))
            .env_remove("HOST_DATABASE_URL")
            .env_remove("HOST_USER")
            .args(["--database", &host.url])
            .args(&args)
            .stdout(writer)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{args:?}");
    }
}

#[test]
fn users_unlock_lifts_a_sign_in_lock_which_never_stops_the_command_line() {
    let host = Host::new();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let open = || host_example::Host::open(&host.url);
    runtime.block_on(async {
        let app = open().await.unwrap();
        for _ in 0..20 {
            assert!(
                !app.sessions()
                    .sign_in("admin", "guess", None)
                    .await
                    .unwrap()
            );
        }
        assert_eq!(
            app.sessions().sign_in_locks("admin").await.unwrap().len(),
            1
        );
    });
    let (code, _, err) = host.run(&["--user", "clara", "users", "unlock", "admin"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    // The locked administrator acts on the command line all the same.
    let (code, out, err) = host.run(&["--user", "admin", "users", "unlock", "admin"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "sign-in of admin unlocked\n"),
        "{err}"
    );
    runtime.block_on(async {
        let app = open().await.unwrap();
        let password = host_example::store::DEMO_PASSWORD;
        assert!(
            app.sessions()
                .sign_in("admin", password, None)
                .await
                .unwrap()
        );
    });
    let (code, out, _) = host.run(&["--user", "admin", "users", "unlock", "admin"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "sign-in of admin was not held back\n")
    );
}

#[test]
fn users_tokens_revoke_password_and_the_last_administrator() {
    let host = Host::new();
    let (code, token, err) = host.run(&["--user", "admin", "users", "token", "petra"]);
    assert_eq!(code, 0, "{err}");
    let token = token.trim();
    let (code, listed, _) = host.run(&["--user", "petra", "users", "tokens", "petra"]);
    assert_eq!(code, 0);
    let id = listed
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    assert_eq!(id.len(), host_example::store::TOKEN_ID_LEN);
    assert!(!listed.contains(token), "a list never shows a token");
    // Another user's tokens: an administrator's business only.
    let (code, _, err) = host.run(&["--user", "clara", "users", "revoke", "petra", id]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    let (code, out, err) = host.run(&["--user", "petra", "users", "revoke", "petra", id]);
    assert_eq!(
        (code, out),
        (0, format!("token {id} of petra revoked\n")),
        "{err}"
    );
    let (code, _, err) = host.run(&["--user", "admin", "users", "revoke", "petra", id]);
    assert_eq!(code, 1);
    assert!(err.contains("has no token"), "{err}");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let store = host_example::store::Store::open(&host.url).await.unwrap();
        assert_eq!(store.people().user_for_token(token).await.unwrap(), None);
    });

    let (code, _, err) = host
        .cmd(&["--user", "admin", "users", "password", "clara"])
        .write_stdin("n3w\n")
        .output()
        .map(|o| {
            (
                o.status.code().unwrap(),
                (),
                String::from_utf8(o.stderr).unwrap(),
            )
        })
        .unwrap();
    assert_eq!(code, 0, "{err}");
    runtime.block_on(async {
        let store = host_example::store::Store::open(&host.url).await.unwrap();
        assert!(
            store
                .people()
                .verify_password("clara", "n3w")
                .await
                .unwrap()
        );
    });

    // Unmake every administrator: the last one stays.
    let (_, list, _) = host.run(&["--user", "admin", "users", "list"]);
    let admins: Vec<&str> = list
        .lines()
        .skip(1)
        .filter(|line| line.split_whitespace().nth(1) == Some("yes"))
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    let (last, others) = admins.split_last().unwrap();
    for name in others {
        let (code, _, err) = host.run(&["--user", last, "users", "admin", name, "--off"]);
        assert_eq!(code, 0, "{err}");
    }
    let (code, _, err) = host.run(&["--user", last, "users", "admin", last, "--off"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    assert!(err.contains("last administrator"), "{err}");
}

#[test]
fn audit_export_prints_the_filtered_rows_as_json_lines_for_administrators() {
    let host = Host::new();
    for zone in ["\"public\"", "\"internal\""] {
        let (code, _, err) = host.run(&["--user", "admin", "settings", "set", "trust_zone", zone]);
        assert_eq!(code, 0, "{err}");
    }
    // An editor's refused change is audited too, as another actor.
    let (code, _, _) = host.run(&[
        "--user",
        "petra",
        "settings",
        "set",
        "trust_zone",
        "\"public\"",
    ]);
    assert_eq!(code, 1);

    let (code, out, err) = host.run(&[
        "--user",
        "admin",
        "audit",
        "export",
        "--actor",
        "admin",
        "--kind",
        "write",
        "--since",
        "2000-01-01",
        "--format",
        "jsonl",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(
        rows.iter()
            .all(|row| row["actor"] == "admin" && row["kind"] == "write")
    );
    // Newest first, each with its place in the trail.
    assert!(rows[0]["seq"].as_i64() > rows[1]["seq"].as_i64(), "{out}");
    assert!(
        rows[0]["detail"].as_str().unwrap().contains("internal"),
        "{out}"
    );
    // Each with its link in its chain (one chain per process: two here).
    for row in &rows {
        assert_eq!(row["chain_position"], 1, "{row}");
        assert_eq!(row["hash"].as_str().unwrap().len(), 64, "{row}");
    }
    assert_ne!(rows[0]["chain"], rows[1]["chain"], "{out}");

    // Nothing from days that have not come.
    let (code, out, _) = host.run(&[
        "--user",
        "admin",
        "audit",
        "export",
        "--since",
        "2999-01-01",
    ]);
    assert_eq!((code, out.as_str()), (0, ""));
    // Only an administrator reads the trail; a day that is no date says so.
    let (code, _, err) = host.run(&["--user", "petra", "audit", "export"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    let (code, _, err) = host.run(&["--user", "admin", "audit", "export", "--since", "yesterday"]);
    assert_ne!(code, 0);
    assert!(err.contains("not a date"), "{err}");
}

#[test]
fn audit_verify_is_green_until_a_row_is_edited_and_then_names_it() {
    let host = Host::new();
    for zone in ["\"public\"", "\"internal\"", "\"public\""] {
        let (code, _, err) = host.run(&["--user", "admin", "settings", "set", "trust_zone", zone]);
        assert_eq!(code, 0, "{err}");
    }
    let (code, out, err) = host.run(&["--user", "admin", "audit", "verify"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("3 chained rows in 3 chains checked"),
        "{out}"
    );
    assert!(out.ends_with("ok: the audit trail verifies\n"), "{out}");
    // The key and the heads file sit beside the database, the key 0600.
    let key = host._dir.path().join("host.db.audit-key");
    assert!(host._dir.path().join("host.db.audit-heads").exists());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let edited: i64 = runtime.block_on(async {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&host.url).await.unwrap();
        let row = sqlx::query("SELECT MIN(seq) AS seq FROM audit WHERE actor = 'admin'")
            .fetch_one(&pool)
            .await
            .unwrap();
        let seq: i64 = sqlx::Row::get(&row, "seq");
        sqlx::query("UPDATE audit SET detail = 'trust_zone = \"internal\"' WHERE seq = $1")
            .bind(seq)
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
        seq
    });
    let (code, out, err) = host.run(&["--user", "admin", "audit", "verify"]);
    assert_eq!(code, 1, "{out}");
    assert_one_line_error(&err);
    assert!(
        err.contains(&format!("the first: row {edited} (chain ")),
        "{err}"
    );
    assert!(err.contains("was changed"), "{err}");

    // Without its key the database is not opened, and no new key is made.
    std::fs::remove_file(&key).unwrap();
    let (code, _, err) = host.run(&["--user", "admin", "audit", "verify"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    assert!(err.contains("--audit-key"), "{err}");
    assert!(!key.exists());
}

#[test]
fn webhooks_set_shows_the_secret_once_and_never_again() {
    let host = Host::new();
    let (code, _, err) = host.run(&[
        "--user",
        "petra",
        "webhooks",
        "set",
        "team",
        "http://127.0.0.1:9/hook",
        "--events",
        "proposal.created",
    ]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    // Loopback only once the local network is allowed.
    let (code, _, err) = host.run(&[
        "--user",
        "admin",
        "webhooks",
        "set",
        "team",
        "http://127.0.0.1:9/hook",
        "--events",
        "proposal.created",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("allow_local_network"), "{err}");
    let allow = r#"{"allow_local_network": true}"#;
    let (code, _, err) = host.run(&[
        "--user",
        "admin",
        "settings",
        "set",
        "webhook_targets",
        allow,
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = host.run(&[
        "--user",
        "admin",
        "webhooks",
        "set",
        "team",
        "http://127.0.0.1:9/hook",
        "--events",
        "proposal.created,run.failed",
    ]);
    assert_eq!(code, 0, "{err}");
    let secret = out
        .lines()
        .find_map(|line| line.strip_prefix("secret (shown this once): "))
        .unwrap_or_else(|| panic!("{out}"))
        .to_owned();
    assert!(secret.starts_with("whsec_"), "{out}");
    let (code, list, err) = host.run(&["--user", "admin", "webhooks", "list"]);
    assert_eq!(code, 0, "{err}");
    assert!(list.contains("proposal.created,run.failed"), "{list}");
    assert!(!list.contains(&secret), "{list}");
    let (_, settings, _) = host.run(&["--user", "admin", "settings", "show"]);
    assert!(!settings.contains(&secret), "{settings}");
    let (code, dead, err) = host.run(&["--user", "admin", "webhooks", "dead"]);
    assert_eq!((code, dead.as_str()), (0, ""), "{err}");
    let (code, _, err) = host.run(&["--user", "admin", "webhooks", "retry", "nope"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
}

/// The app's rule for every run, at the command line as in the
/// playground: a prompt, and 1 to 50 rounds; refused before anything is
/// stored or a model is asked (none is configured here).
#[test]
fn a_run_without_a_prompt_or_with_rounds_out_of_range_is_refused_before_it_starts() {
    let host = Host::new();
    let (code, _, err) = host.run(&["--user", "admin", "run", "  "]);
    assert_eq!(code, 1, "{err}");
    assert_one_line_error(&err);
    assert!(err.contains("write a prompt first"), "{err}");
    for rounds in ["0", "51"] {
        let (code, _, err) = host.run(&["--user", "admin", "run", "hello", "--max-rounds", rounds]);
        assert_eq!(code, 1, "{err}");
        assert_one_line_error(&err);
        assert!(
            err.contains(&format!("1 to 50 rounds, not {rounds}")),
            "{err}"
        );
    }
    let (code, runs, err) = host.run(&["--user", "admin", "runs", "list"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(runs.lines().count(), 1, "only the header: {runs}");
}

/// Every file of the database at `dir` but the WAL index (`-shm`, shared
/// memory readers write their read marks to), by name, with a hash of its
/// bytes.
fn files_of(dir: &std::path::Path) -> Vec<(String, u64)> {
    use std::hash::{Hash, Hasher};
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| !entry.file_name().to_string_lossy().ends_with("-shm"))
        .map(|entry| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            std::fs::read(entry.path()).unwrap().hash(&mut hasher);
            (
                entry.file_name().to_string_lossy().into_owned(),
                hasher.finish(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The read-only commands on a database opened read-only (`mode=ro`,
/// which SQLite enforces whoever runs them; the file's write permission is
/// taken away too): each answers and not a byte changes, as nothing is
/// migrated, seeded or written. A database older than this build, opened
/// so, is named, not migrated.
#[test]
fn read_only_commands_answer_on_a_read_only_database_and_change_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let host = Host::new();
    let (code, _, err) = host.run(&["db", "migrate"]);
    assert_eq!(code, 0, "{err}");
    let file = host._dir.path().join("host.db");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let read_only = format!("sqlite://{}?mode=ro", file.display());
    let run = |command: &[&str]| {
        Command::cargo_bin("host-example")
            .unwrap()
            .env_remove("HOST_DATABASE_URL")
            .args(["--database", &read_only, "--user", "admin"])
            .args(command)
            .output()
            .unwrap()
    };
    // Counted from a first reading: the migrating process may leave its
    // write-ahead log to be settled by the next opener.
    assert!(run(&["users", "list"]).status.success());
    let before = files_of(host._dir.path());
    for command in [
        &["users", "list"][..],
        &["settings", "show"],
        &["audit", "tail"],
        &["runs", "list"],
    ] {
        let output = run(command);
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{command:?}: {err}");
        assert!(!output.stdout.is_empty(), "{command:?}");
    }
    let after = files_of(host._dir.path());
    let changed: Vec<&String> = after
        .iter()
        .filter(|file| !before.contains(file))
        .map(|(name, _)| name)
        .collect();
    assert!(changed.is_empty(), "changed: {changed:?}");

    let empty = host._dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let output = Command::cargo_bin("host-example")
        .unwrap()
        .env_remove("HOST_DATABASE_URL")
        .args([
            "--database",
            &format!("sqlite://{}?mode=ro", empty.display()),
        ])
        .args(["--user", "admin", "users", "list"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert_one_line_error(&err);
    assert!(
        err.contains("run `host-example db migrate` on it first"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&empty).unwrap(),
        b"",
        "the old database was not migrated"
    );
}
