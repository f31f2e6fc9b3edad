//! `host-example skills check DIR…`, run as a user runs it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The project's synthetic skill cases (`fixtures/skills`).
const SYNTHETIC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/skills/synthetic__cases"
);

fn check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_host-example"))
        .args(["skills", "check"])
        .args(args)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// A fresh folder below cargo's scratch space for integration tests.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("skills-check")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_skill(folder: &Path, text: &[u8]) {
    fs::create_dir_all(folder).unwrap();
    fs::write(folder.join("SKILL.md"), text).unwrap();
}

#[test]
fn synthetic_corpus_fails_with_one_line_per_diagnostic() {
    let output = check(&[SYNTHETIC]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    for expected in [
        "/Upper-Name/SKILL.md:2:7: error[S012]: `name` `Upper-Name` must be lowercase",
        // A description that never says when to use the skill.
        "/Upper-Name/SKILL.md:3:14: warning[S051]: `description` never says when",
        "/no-front-matter/SKILL.md:1:1: error[S001]: ",
        // At the `*` itself, not at the start of the token.
        "/broken-scopes/SKILL.md:4:66: error[S028]: `mcp__*` uses `*`",
        "/map-tools/SKILL.md:5:3: error[S022]: ",
        "/null-tools/SKILL.md:4:14: warning[S020]: ",
        "/comma-hyphen-server/SKILL.md:4:20: warning[S021]: ",
        // Checked against this host's registry, which has no `Read`.
        "/tab-separated/SKILL.md:4:17: warning[S040]: no tool named `Read`",
        // The second `Bash` of a folded block is found at its own place.
        "/folded-spaces/SKILL.md:5:20: warning[S040]: no tool named `Bash`",
    ] {
        let line = format!("{SYNTHETIC}{expected}");
        assert!(
            text.lines().any(|l| l.starts_with(&line)),
            "no line starting {line:?} in\n{text}"
        );
    }
    for line in text.lines() {
        assert!(line.starts_with(SYNTHETIC), "{line}");
        assert!(
            line.contains(": error[S") || line.contains(": warning[S"),
            "{line}"
        );
    }
    assert!(stderr(&output).contains("checked 15 skill file(s)"));
}

#[test]
fn json_is_an_array_of_diagnostics_in_file_then_position_order() {
    let output = check(&["--format", "json", SYNTHETIC]);
    assert_eq!(output.status.code(), Some(1));
    let value: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let rows = value.as_array().unwrap();
    assert_eq!(rows.len(), stdout(&check(&[SYNTHETIC])).lines().count());
    let mut keys = Vec::new();
    for row in rows {
        let object = row.as_object().unwrap();
        let mut fields: Vec<&str> = object.keys().map(String::as_str).collect();
        fields.sort_unstable();
        assert_eq!(
            fields,
            ["code", "column", "file", "line", "message", "severity"]
        );
        assert!(["error", "warning"].contains(&row["severity"].as_str().unwrap()));
        keys.push((
            PathBuf::from(row["file"].as_str().unwrap()),
            row["line"].as_u64().unwrap(),
            row["column"].as_u64().unwrap(),
        ));
    }
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    let upper = rows
        .iter()
        .find(|r| r["code"] == "S012")
        .expect("the Upper-Name finding");
    assert_eq!(
        upper["file"],
        format!("{SYNTHETIC}/Upper-Name/SKILL.md").as_str()
    );
    assert_eq!(
        (upper["line"].as_u64(), upper["column"].as_u64()),
        (Some(2), Some(7))
    );
}

#[test]
fn valid_skill_passes_and_warnings_alone_pass() {
    let dir = scratch("valid");
    write_skill(
        &dir.join("status"),
        b"---\nname: status\ndescription: Reports the host's status and uptime. Use when asked how the host is doing.\nallowed-tools: get_system_status get_env\n---\nBody\n",
    );
    let output = check(&[dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(stdout(&output), "");
    assert!(stderr(&output).contains("checked 1 skill file(s): 0 error(s), 0 warning(s)"));

    write_skill(
        &dir.join("status"),
        b"---\nname: status\ndescription: Reports the host's status and uptime. Use when asked how the host is doing.\nallowed-tools: get_system_status, Read\n---\n",
    );
    let output = check(&[dir.join("status").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(text.contains("SKILL.md:4:33: warning[S021]"), "{text}");
    assert!(text.contains("SKILL.md:4:35: warning[S040]"), "{text}");
}

#[test]
fn non_utf8_file_is_an_error_not_a_panic() {
    let dir = scratch("latin1");
    write_skill(
        &dir.join("latin"),
        b"---\nname: latin\ndescription: caf\xe9\n---\n",
    );
    let output = check(&[dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.contains("latin/SKILL.md:3:17: error[F002]: this file is not UTF-8"),
        "{text}"
    );
}

#[test]
fn missing_dir_is_a_usage_error() {
    let missing = scratch("missing").join("not-there");
    let output = check(&[missing.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "");
    let message = stderr(&output);
    assert!(message.contains("cannot read the folder"), "{message}");
    assert!(message.contains("not-there"), "{message}");
}

#[test]
fn no_dir_or_bad_option_is_a_usage_error() {
    for args in [&[][..], &["--format", "yaml", "."], &["--verbose", "."]] {
        let output = check(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).to_lowercase().contains("usage:"),
            "{args:?}"
        );
    }
}

/// A skill modelled on a real one of the corpus (`jimyag__dotfiles`, its
/// `git-commit` skill), with call examples under `metadata`
/// (docs/skills-examples.md).
const EXAMPLES_FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/skills");

#[test]
fn fixture_with_call_examples_passes_and_every_example_is_run() {
    let output = check(&[EXAMPLES_FIXTURE]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    // This host registers no `Bash`: each token says so, and the examples
    // are matched by the kind the skill states for it.
    assert!(text.lines().all(|l| l.contains("warning[S040]")), "{text}");
    let skill = fs::read_to_string(format!("{EXAMPLES_FIXTURE}/git-commit/SKILL.md")).unwrap();
    let manifest = tool_core::skills::read_skill(&skill, "git-commit")
        .manifest
        .unwrap();
    assert_eq!(manifest.examples.examples.len(), 15);
}

#[test]
fn examples_that_come_out_the_other_way_are_errors_in_text_and_json() {
    let skill = fs::read_to_string(format!("{EXAMPLES_FIXTURE}/git-commit/SKILL.md")).unwrap();
    // `git push` is granted (`Bash(git push:*)`), `git stash` is not.
    let skill = skill
        .replace("Bash(git push origin HEAD)", "Bash(git stash)")
        .replace("Bash(gitk)", "Bash(git push origin HEAD)");
    let dir = scratch("examples");
    write_skill(&dir.join("git-commit"), skill.as_bytes());

    let output = check(&[dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(
            "git-commit/SKILL.md:11:30: error[S060]: `Bash(git stash)` must be admitted but is \
             refused: no token of `Bash` admits it, read as a command; its tokens are"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "error[S061]: `Bash(git push origin HEAD)` must be refused but is admitted: the \
             token `Bash(git push:*)` admits it"
        ),
        "{text}"
    );

    let output = check(&["--format", "json", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let value: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let rows = value.as_array().unwrap();
    for (code, example) in [
        ("S060", "`Bash(git stash)`"),
        ("S061", "`Bash(git push origin HEAD)`"),
    ] {
        let row = rows
            .iter()
            .find(|r| r["code"] == code)
            .unwrap_or_else(|| panic!("no {code} in {value:#}"));
        assert_eq!(row["severity"], "error");
        assert!(
            row["message"].as_str().unwrap().starts_with(example),
            "{row}"
        );
    }
}

#[test]
fn a_terminal_gets_the_source_line_with_a_caret_under_the_span() {
    let dir = scratch("annotated");
    write_skill(
        &dir.join("broken"),
        b"---\nname: broken\ndescription: Checks things. Use when a check is needed.\nallowed-tools: Read *\n---\nBody.\n",
    );
    let registry = host_example::registry().unwrap();
    let known = registry.known_tools();
    let checked = host_example::app::skills::check::check_dirs(&[dir], &known).unwrap();
    let plain = host_example::app::skills::check::render::render_text(&checked.findings);
    let annotated = host_example::app::skills::check::render::render_annotated(&checked.findings);
    // The plain form names the position; the annotated one shows the line
    // itself and puts the mark under that column (`^` for an error).
    let finding = checked
        .findings
        .iter()
        .find(|f| f.position.line == 4 && f.severity() == tool_core::skills::Severity::Error)
        .unwrap_or_else(|| panic!("an error on line 4 in {plain}"));
    let block = annotated
        .split("\n\n")
        .find(|block| block.contains(finding.code.id()))
        .unwrap_or_else(|| panic!("no block for {} in {annotated}", finding.code.id()));
    let lines: Vec<&str> = block.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("allowed-tools: Read *"))
        .unwrap_or_else(|| panic!("the source line in {block}"));
    let text_start = lines[at].find("allowed-tools").unwrap();
    let caret = lines[at + 1].find('^').expect("a caret under the span");
    assert_eq!(caret - text_start, finding.position.column - 1, "{block}");
    assert!(
        plain.contains(&format!(":4:{}:", finding.position.column)),
        "{plain}"
    );
}
