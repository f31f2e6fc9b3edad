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

    let (code, list, _) = host.run(&["users", "list"]);
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
    let (_, before, _) = host.run(&["settings", "show"]);
    assert!(before.contains("trust_zone = \"public\"\n"), "{before}");
    assert!(before.contains("model = null (default)"), "{before}");
    for bad in ["{not json", "\"secret\"", "42"] {
        let (code, out, err) = host.run(&["--user", "admin", "settings", "set", "trust_zone", bad]);
        assert_eq!(code, 1, "{bad}: {out}");
        assert_one_line_error(&err);
        assert!(err.contains("trust_zone"), "{err}");
    }
    let (_, after, _) = host.run(&["settings", "show"]);
    assert_eq!(before, after);
    let (code, tail, _) = host.run(&["audit", "tail", "-n", "5"]);
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
