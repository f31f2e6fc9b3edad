//! Reading a `SKILL.md`: the front matter, its fields and the description
//! checks. One named test per rule; each fails if its rule breaks.

mod skills_support;

use skills_support::*;
use tool_core::skills::{
    AllowedTools, Code, MAX_FRONT_MATTER_BYTES, Severity, SkillReport, read_skill,
};

// ---- front matter ----

#[test]
fn valid_skill_has_no_diagnostics() {
    let r = read(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nlicense: MIT\ncompatibility: Needs git.\nmetadata:\n  author: me",
    );
    assert!(r.is_valid(), "{:?}", r.diagnostics);
    assert!(r.diagnostics.is_empty());
    let m = r.manifest.expect("manifest");
    assert_eq!(m.body, "Body\n");
    assert_eq!(m.metadata.get("author").map(String::as_str), Some("me"));
    assert_eq!(m.allowed_tools, AllowedTools::Absent);
}

#[test]
fn the_front_matter_is_kept_whole_as_json_by_the_core_schema() {
    let r = read(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nallowed-tools: Read Grep(src/**)\nmetadata:\n  author: me\n  version: \"1.0\"\nx-plain: [1, -0x10, 2.5, .inf, true, null, 'quoted']\nx-map: {a: 1}\n",
    );
    let m = r.manifest.expect("manifest");
    assert_eq!(
        serde_json::Value::Object(m.front_matter),
        serde_json::json!({
            "name": "demo",
            "description": "Reads a demo skill for the tests. Use when testing the reader.",
            "allowed-tools": "Read Grep(src/**)",
            "metadata": {"author": "me", "version": "1.0"},
            "x-plain": [1, -16, 2.5, ".inf", true, null, "quoted"],
            "x-map": {"a": 1},
        })
    );
}

#[test]
fn missing_front_matter_is_error() {
    let r = read_skill("# Title\n", "demo");
    assert_eq!(codes(&r), [Code::MissingFrontMatter]);
    assert!(!r.is_valid());
}

#[test]
fn unterminated_front_matter_is_error() {
    let r = read_skill("---\nname: demo\n", "demo");
    assert_eq!(codes(&r), [Code::UnterminatedFrontMatter]);
}

#[test]
fn front_matter_over_64_kib_is_refused() {
    let big = format!(
        "---\nname: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nx: '{}'\n---\n",
        "a".repeat(MAX_FRONT_MATTER_BYTES)
    );
    assert_eq!(
        codes(&read_skill(&big, "demo")),
        [Code::FrontMatterTooLarge]
    );
    let unclosed = format!("---\n{}", "a: b\n".repeat(MAX_FRONT_MATTER_BYTES));
    assert_eq!(
        codes(&read_skill(&unclosed, "demo")),
        [Code::FrontMatterTooLarge]
    );
}

#[test]
fn yaml_alias_bomb_is_refused() {
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b]";
    let r = read(bomb);
    assert_eq!(codes(&r), [Code::YamlAlias]);
    assert_eq!(r.diagnostics[0].position, at(2, 4));
}

#[test]
fn yaml_anchor_alone_is_refused() {
    assert_eq!(
        codes(&read(
            "name: &n demo\ndescription: Reads a demo skill for the tests. Use when testing the reader."
        )),
        [Code::YamlAlias]
    );
}

#[test]
fn non_mapping_root_is_refused() {
    assert_eq!(codes(&read("- a\n- b")), [Code::NotAMapping]);
    assert_eq!(codes(&read("just text")), [Code::NotAMapping]);
    assert_eq!(
        codes(&read_skill("---\n---\nBody", "demo")),
        [Code::NotAMapping]
    );
}

#[test]
fn yaml_syntax_error_has_position() {
    let r = read("name: demo\ndescription: [unclosed");
    assert_eq!(codes(&r), [Code::YamlSyntax]);
    assert!(r.diagnostics[0].position.line >= 3);
}

#[test]
fn deep_nesting_is_refused() {
    let deep = format!("a: {}{}", "[".repeat(100), "]".repeat(100));
    assert_eq!(codes(&read(&deep)), [Code::YamlTooDeep]);
}

#[test]
fn duplicate_key_is_error() {
    let r = read(
        "name: demo\nname: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.",
    );
    assert_eq!(codes(&r), [Code::DuplicateKey]);
    assert_eq!(r.diagnostics[0].position, at(3, 1));
}

#[test]
fn unknown_field_is_error_with_position() {
    let r = read(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nversion: 1.0",
    );
    assert_eq!(codes(&r), [Code::UnknownField]);
    assert_eq!(r.diagnostics[0].position, at(4, 1));
    assert!(r.diagnostics[0].message.contains("`version`"));
}

#[test]
fn crlf_line_endings_are_read() {
    let r = read_skill(
        "---\r\nname: demo\r\ndescription: d\r\n---\r\nBody\r\n",
        "demo",
    );
    assert!(r.is_valid(), "{:?}", r.diagnostics);
}

// ---- fields ----

#[test]
fn name_must_be_lowercase() {
    let r = read_skill(
        "---\nname: Demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\n---\n",
        "Demo",
    );
    assert_eq!(codes(&r), [Code::InvalidName]);
    assert!(r.diagnostics[0].message.contains("`demo`"));
}

#[test]
fn name_rejects_leading_trailing_and_doubled_hyphens() {
    for name in ["-demo", "demo-", "de--mo"] {
        let r = read_skill(
            &format!(
                "---\nname: {name}\ndescription: Reads a demo skill for the tests. Use when testing the reader.\n---\n"
            ),
            name,
        );
        assert_eq!(codes(&r), [Code::InvalidName], "{name}");
    }
}

#[test]
fn name_over_64_characters_is_error() {
    let ok = "a".repeat(64);
    let long = "a".repeat(65);
    assert!(read_skill(&format!("---\nname: {ok}\ndescription: Reads a demo skill for the tests. Use when testing the reader.\n---\n"), &ok).is_valid());
    let r = read_skill(
        &format!(
            "---\nname: {long}\ndescription: Reads a demo skill for the tests. Use when testing the reader.\n---\n"
        ),
        &long,
    );
    assert_eq!(codes(&r), [Code::InvalidName]);
}

#[test]
fn name_with_unicode_letters_is_error() {
    let r = read_skill(
        "---\nname: café\ndescription: Reads a demo skill for the tests. Use when testing the reader.\n---\n",
        "café",
    );
    assert_eq!(codes(&r), [Code::InvalidName]);
}

#[test]
fn name_must_equal_folder() {
    let r = read_skill(
        "---\nname: other\ndescription: Reads a demo skill for the tests. Use when testing the reader.\n---\n",
        "demo",
    );
    assert_eq!(codes(&r), [Code::NameFolderMismatch]);
    assert_eq!(r.diagnostics[0].position, at(2, 7));
}

#[test]
fn missing_name_and_description_are_errors() {
    let r = read("license: MIT");
    assert_eq!(codes(&r), [Code::MissingName, Code::MissingDescription]);
    assert_eq!(
        codes(&read("name: demo\ndescription: ''")),
        [Code::MissingDescription]
    );
}

#[test]
fn description_over_1024_characters_is_error() {
    let ok = read(&format!("name: demo\ndescription: {}", "é".repeat(1024)));
    assert!(ok.is_valid());
    let long = read(&format!("name: demo\ndescription: {}", "d".repeat(1025)));
    assert_eq!(codes(&long), [Code::DescriptionTooLong]);
}

#[test]
fn compatibility_over_500_characters_is_error() {
    let r = read(&format!(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\ncompatibility: {}",
        "c".repeat(501)
    ));
    assert_eq!(codes(&r), [Code::InvalidCompatibility]);
}

#[test]
fn metadata_must_map_strings_to_strings() {
    let r = read(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nmetadata:\n  tags:\n    - a",
    );
    assert_eq!(codes(&r), [Code::WrongType]);
    assert_eq!(r.diagnostics[0].position, at(6, 5));
    let r = read(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nmetadata: text",
    );
    assert_eq!(codes(&r), [Code::WrongType]);
}

#[test]
fn number_where_text_is_expected_is_a_warning() {
    let r = read(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nmetadata:\n  version: 1.0",
    );
    assert_eq!(codes(&r), [Code::ScalarTakenAsText]);
    assert!(r.is_valid());
    let m = r.manifest.expect("manifest");
    assert_eq!(m.metadata.get("version").map(String::as_str), Some("1.0"));
}

#[test]
fn every_code_is_in_the_module_docs_table() {
    let docs = include_str!("../src/skills/mod.rs");
    for code in Code::ALL {
        let severity = match code.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let row = format!("//! | {} | {severity} |", code.id());
        assert!(docs.contains(&row), "missing row `{row}`");
    }
}

// ---- descriptions that route ----

/// The diagnostics of a skill with `description: {text}` on line 3.
fn described(text: &str) -> SkillReport {
    let quoted = text.replace('\'', "''");
    read(&format!("name: demo\ndescription: '{quoted}'"))
}

#[test]
fn description_that_says_what_and_when_has_no_warning() {
    for text in [
        "Reviews diffs for security bugs. Use when a change touches authentication.",
        "Formats Rust code with rustfmt. Use before committing changes.",
        "Writes conventional commit messages from the staged diff. Use for git commits.",
    ] {
        let r = described(text);
        assert!(r.diagnostics.is_empty(), "{text}: {:?}", r.diagnostics);
    }
}

#[test]
fn description_that_opens_with_when_is_warned() {
    for text in [
        "Use when creating skills: edits and checks SKILL.md files for hosts.",
        "This skill should be used when the user asks to release the SDK.",
        "You MUST use this before any creative work on features.",
        "When the user asks for a role, this explains which one fits best.",
        "Before modifying shared code, traces all callers and dependents first.",
    ] {
        let r = described(text);
        assert_eq!(codes(&r), [Code::DescriptionOpensWithoutWhat], "{text}");
        let d = &r.diagnostics[0];
        assert_eq!(d.severity(), Severity::Warning);
        assert_eq!(d.position, at(3, 14));
        assert!(d.message.contains("start with what the skill does"));
        assert!(r.is_valid());
    }
}

#[test]
fn description_that_never_says_when_is_warned() {
    for text in [
        "Reviews diffs for security bugs and explains each finding in plain words.",
        "Complete Go development: code conventions, architecture, concurrency, and code review.",
    ] {
        let r = described(text);
        assert_eq!(codes(&r), [Code::DescriptionWithoutWhen], "{text}");
        let d = &r.diagnostics[0];
        assert_eq!(d.severity(), Severity::Warning);
        assert!(d.message.contains("`Use when"));
        assert!(r.is_valid());
    }
}

#[test]
fn clauses_equivalent_to_use_when_count() {
    for text in [
        "Checks skill files for hosts. Use this skill proactively when editing them.",
        "Scans a codebase with CodeQL. Triggers on \"run codeql\" and \"SAST scan\".",
        "Creates a plugin with validation and release automation. TRIGGERS - create plugin",
        "Operational protocol for sessions. Load at session start to govern the graph.",
        "Checks for loose ends in the code. Activates after implementing features.",
        "Guidance for distinctive visual design when building new UI from scratch.",
        "Graph quality assessment with scores. Use to check the graph's structural health.",
    ] {
        let r = described(text);
        assert!(
            !codes(&r).contains(&Code::DescriptionWithoutWhen),
            "{text}: {:?}",
            r.diagnostics
        );
    }
}

#[test]
fn description_shorter_than_a_sentence_is_warned() {
    let r = described("Use for calculations.");
    let d = find(&r, Code::DescriptionTooShort);
    assert_eq!(d.severity(), Severity::Warning);
    assert!(d.message.contains("has 3 word(s)"), "{}", d.message);
    assert_eq!(
        codes(&described(
            "Performs mathematical calculations. Use when asked."
        )),
        [Code::DescriptionTooShort]
    );
    // Eight words is enough for this rule (the others still apply).
    assert!(
        !codes(&described(
            "Performs calculations on numbers. Use when asked twice."
        ))
        .contains(&Code::DescriptionTooShort)
    );
}

#[test]
fn description_in_another_script_is_not_checked() {
    let r = described("Git 커밋 생성. Conventional Commit 형식 + 티켓 참조 자동 포함.");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}
