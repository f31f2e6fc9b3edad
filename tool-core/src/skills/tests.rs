//! One named test per rule; each fails if its rule breaks.

use super::*;
use crate::ScopeKind;

fn read(front: &str) -> SkillReport {
    read_skill(&format!("---\n{front}\n---\nBody\n"), "demo")
}

/// A valid skill with `tools_yaml` after `allowed-tools:` on line 4.
fn with_tools(tools_yaml: &str) -> SkillReport {
    read(&format!(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nallowed-tools:{tools_yaml}"
    ))
}

fn codes(report: &SkillReport) -> Vec<Code> {
    report.diagnostics.iter().map(|d| d.code).collect()
}

fn find(report: &SkillReport, code: Code) -> &Diagnostic {
    report
        .diagnostics
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no {code} in {:?}", report.diagnostics))
}

fn declared(report: &SkillReport) -> Vec<String> {
    match report.manifest.as_ref().map(|m| &m.allowed_tools) {
        Some(AllowedTools::Declared(p)) => p.iter().map(ToString::to_string).collect(),
        other => panic!("not declared: {other:?}"),
    }
}

fn at(line: usize, column: usize) -> Position {
    Position { line, column }
}

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
    let docs = include_str!("mod.rs");
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

// ---- allowed-tools: forms ----

#[test]
fn absent_allowed_tools_is_absent() {
    let r = read(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.",
    );
    assert_eq!(
        r.manifest.map(|m| m.allowed_tools),
        Some(AllowedTools::Absent)
    );
}

#[test]
fn null_allowed_tools_declares_nothing_with_warning() {
    let r = with_tools("");
    assert_eq!(codes(&r), [Code::NoToolsDeclared]);
    assert!(declared(&r).is_empty());
    assert!(r.is_valid());
}

#[test]
fn empty_string_and_empty_list_declare_nothing_with_warning() {
    for value in [" ''", " []", " '   '"] {
        let r = with_tools(value);
        assert_eq!(codes(&r), [Code::NoToolsDeclared], "{value}");
        assert!(declared(&r).is_empty());
    }
}

#[test]
fn bash_scope_with_spaces_is_one_token() {
    let r = with_tools(" Read Bash(git diff:*) Bash(cargo test --workspace)");
    assert_eq!(
        declared(&r),
        ["Read", "Bash(git diff:*)", "Bash(cargo test --workspace)"]
    );
    assert!(r.diagnostics.is_empty());
}

#[test]
fn folded_block_tokens_keep_their_scopes() {
    let r = with_tools(" >-\n  Bash(git diff:*) Bash(git log:*)\n  Read");
    assert_eq!(
        declared(&r),
        ["Bash(git diff:*)", "Bash(git log:*)", "Read"]
    );
}

#[test]
fn comma_separated_is_accepted_with_warning() {
    let r = with_tools(" Read, Grep,Bash(git log:*)");
    assert_eq!(declared(&r), ["Read", "Grep", "Bash(git log:*)"]);
    assert_eq!(codes(&r), [Code::CommaSeparated]);
    assert_eq!(r.diagnostics[0].position, at(4, 20));
}

#[test]
fn commas_inside_a_scope_do_not_split() {
    let r = with_tools(r#" Bash(git commit -m "fix, typo") Read"#);
    assert_eq!(declared(&r), [r#"Bash(git commit -m "fix, typo")"#, "Read"]);
    assert!(r.diagnostics.is_empty());
}

#[test]
fn yaml_list_of_strings_is_accepted() {
    let r = with_tools("\n  - Read\n  - Bash(git log:*)\n  - 'mcp__srv__tool'");
    assert_eq!(declared(&r), ["Read", "Bash(git log:*)", "mcp__srv__tool"]);
    let flow = with_tools(" [Read, Grep]");
    assert_eq!(declared(&flow), ["Read", "Grep"]);
}

#[test]
fn tab_and_newline_separate_tokens() {
    let r = with_tools(r#" "Read\tGrep\nGlob""#);
    assert_eq!(declared(&r), ["Read", "Grep", "Glob"]);
}

#[test]
fn nested_parentheses_are_counted() {
    let (tokens, diagnostics) = tokenize("Bash(echo (a b) c) Read");
    assert!(diagnostics.is_empty());
    assert_eq!(
        tokens[0].scope.as_ref().map(ScopePattern::as_str),
        Some("echo (a b) c")
    );
    assert_eq!(tokens.len(), 2);
}

#[test]
fn escaped_parentheses_and_backslash_are_literal() {
    let (tokens, diagnostics) = tokenize(r"Bash(print\(1\) \\ x\y)");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        tokens[0].scope.as_ref().map(ScopePattern::as_str),
        Some(r"print(1) \ x\y")
    );
}

#[test]
fn unterminated_paren_is_error_with_position() {
    let r = with_tools(" Read Bash(git status");
    assert_eq!(declared(&r), ["Read"]);
    let d = find(&r, Code::UnterminatedParen);
    assert_eq!(d.position, at(4, 25));
    assert!(d.is_error());
}

#[test]
fn stray_close_paren_is_error_with_position() {
    let (tokens, diagnostics) = tokenize("Read) Bash(x)) Grep");
    assert_eq!(
        tokens.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["Grep"]
    );
    let positions: Vec<_> = diagnostics.iter().map(|d| (d.code, d.position)).collect();
    assert_eq!(
        positions,
        [(Code::StrayParen, at(1, 5)), (Code::StrayParen, at(1, 14))]
    );
}

#[test]
fn empty_scope_is_error() {
    let (tokens, diagnostics) = tokenize("Bash() Read( )");
    assert!(tokens.is_empty());
    assert_eq!(
        diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::EmptyScope; 2]
    );
    assert_eq!(diagnostics[0].position, at(1, 5));
}

#[test]
fn scope_without_tool_name_is_error() {
    let (tokens, diagnostics) = tokenize("(orphan) Read");
    assert_eq!(tokens.len(), 1);
    assert_eq!(diagnostics[0].code, Code::ScopeWithoutTool);
    assert_eq!(diagnostics[0].position, at(1, 1));
}

#[test]
fn text_after_scope_is_error() {
    let (tokens, diagnostics) = tokenize("Bash(ls)x");
    assert!(tokens.is_empty());
    assert_eq!(diagnostics[0].code, Code::TextAfterScope);
    assert_eq!(diagnostics[0].position, at(1, 9));
}

#[test]
fn unanchored_star_is_error() {
    for text in ["*", "Bash*", "mcp__*", "*__tool", "mcp__a*__b"] {
        let (tokens, diagnostics) = tokenize(text);
        assert!(tokens.is_empty(), "{text}");
        assert_eq!(diagnostics[0].code, Code::UnanchoredWildcard, "{text}");
    }
    let r = with_tools(r#" "*""#);
    assert_eq!(find(&r, Code::UnanchoredWildcard).position, at(4, 17));
}

#[test]
fn invalid_tool_name_is_error() {
    let (tokens, diagnostics) = tokenize("bash: Read");
    assert_eq!(tokens.len(), 1);
    assert_eq!(diagnostics[0].code, Code::InvalidToolName);
}

#[test]
fn tool_star_scope_means_the_whole_tool() {
    let (tokens, _) = tokenize("Bash(*)");
    assert_eq!(tokens[0].scope, None);
    assert_eq!(tokens[0].target, ToolTarget::Tool("Bash".into()));
}

#[test]
fn duplicates_are_folded_with_warning() {
    let (tokens, diagnostics) = tokenize("Read Bash(ls) Read Bash(ls) Bash(*) Bash");
    let shown: Vec<String> = tokens.iter().map(ToString::to_string).collect();
    assert_eq!(shown, ["Read", "Bash(ls)", "Bash"]);
    assert!(diagnostics.iter().all(|d| d.code == Code::DuplicateToken));
    assert_eq!(diagnostics.len(), 3);
}

#[test]
fn mcp_names_keep_case_and_hyphens() {
    let (tokens, diagnostics) = tokenize("mcp__My-Server__Do_Thing");
    assert!(diagnostics.is_empty());
    assert_eq!(
        tokens[0].target,
        ToolTarget::Tool("mcp__My-Server__Do_Thing".into())
    );
}

#[test]
fn duplicates_are_folded_in_long_fields_too() {
    // Past a handful of tokens, duplicates are found through a hash index.
    let mut text: Vec<String> = (0..40).map(|n| format!("t{n}")).collect();
    text.extend(["t3", "t39", "t0(x)", "t0(x)", "mcp__s", "mcp__s__*", "t0"].map(String::from));
    let (tokens, diagnostics) = tokenize(&text.join(" "));
    assert_eq!(tokens.len(), 42);
    let duplicates = diagnostics
        .iter()
        .filter(|d| d.code == Code::DuplicateToken)
        .count();
    assert_eq!(duplicates, 5, "{diagnostics:?}");
}

#[test]
fn mcp_server_ending_in_underscore_means_the_same_in_both_forms() {
    // Regression (fuzz target `tokenize`): `mcp__esim_` wrote back as
    // `mcp__esim___*`, which was refused as the tool `_*` of server `esim`.
    for text in ["mcp__esim_", "mcp__esim___*"] {
        let (tokens, diagnostics) = tokenize(text);
        assert!(diagnostics.is_empty(), "{text}: {diagnostics:?}");
        assert_eq!(tokens[0].target, ToolTarget::McpServer("esim_".into()));
        let (again, _) = tokenize(&tokens[0].to_string());
        assert_eq!(again, tokens, "{text}");
    }
    // A `__` inside the server part still splits at the first one.
    let (_, diagnostics) = tokenize("mcp__a__b__*");
    assert_eq!(diagnostics[0].code, Code::UnanchoredWildcard);
}

#[test]
fn mcp_server_forms_name_the_whole_server() {
    let (tokens, diagnostics) = tokenize("mcp__Cal mcp__Cal__*");
    assert_eq!(tokens.len(), 1, "the two forms are one grant");
    assert_eq!(tokens[0].target, ToolTarget::McpServer("Cal".into()));
    assert_eq!(diagnostics[0].code, Code::DuplicateToken);
    let (_, diagnostics) = tokenize("mcp__Cal(x)");
    assert_eq!(diagnostics[0].code, Code::ScopeOnServer);
}

#[test]
fn map_value_is_error_and_grants_nothing() {
    let r = with_tools("\n  bash: git\n  file: read");
    assert_eq!(codes(&r), [Code::AllowedToolsWrongType]);
    assert!(declared(&r).is_empty());
}

#[test]
fn number_value_is_error_and_grants_nothing() {
    let r = with_tools(" 42");
    assert_eq!(codes(&r), [Code::AllowedToolsWrongType]);
    assert!(declared(&r).is_empty());
}

#[test]
fn non_string_list_item_is_error_and_grants_nothing() {
    let r = with_tools("\n  - Read\n  - 42\n  - null\n  - [Grep]");
    assert_eq!(declared(&r), ["Read"]);
    assert_eq!(codes(&r), [Code::ListItemNotString; 3]);
    assert_eq!(r.diagnostics[0].position, at(6, 5));
}

#[test]
fn token_positions_point_into_the_file() {
    let r = with_tools(" |\n  Read\n  Bash(git log:*\n  Grep");
    let d = find(&r, Code::UnterminatedParen);
    assert_eq!(d.position, at(6, 7));
    let Some(AllowedTools::Declared(p)) = r.manifest.as_ref().map(|m| &m.allowed_tools) else {
        panic!("declared");
    };
    assert_eq!(p[0].position, at(5, 3));
}

#[test]
fn repeated_names_in_a_block_scalar_each_get_their_own_position() {
    // Tokens are found in the source by their first characters; a name seen
    // before must not send a later token back to the first one's place.
    let r = with_tools(
        " >-\n  Bash(git diff:*) Bash(git log:*)\n  mcp__issue-tracker__a mcp__issue-tracker__b Bash(x)",
    );
    let Some(AllowedTools::Declared(p)) = r.manifest.as_ref().map(|m| &m.allowed_tools) else {
        panic!("declared");
    };
    let positions: Vec<Position> = p.iter().map(|p| p.position).collect();
    assert_eq!(
        positions,
        [at(5, 3), at(5, 20), at(6, 3), at(6, 25), at(6, 47)]
    );
}

// ---- allowed-tools that cannot be read with certainty fail closed ----

/// What gate 6 makes of the report's skill alone.
fn allowance(report: &SkillReport) -> AllowList {
    let allowed_tools = report
        .manifest
        .as_ref()
        .map(|m| m.allowed_tools.clone())
        .expect("manifest");
    let skills = [SkillRef {
        id: "demo".into(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(1),
        allowed_tools,
        text: String::new(),
    }];
    EffectiveSkills::select(&skills, TrustLevel(0)).allow_list(KNOWN)
}

/// The report declares zero tools (never "absent"), gate 6 lets nothing
/// through, and `code` is among its diagnostics as an error.
fn assert_fails_closed(report: &SkillReport, code: Code) {
    assert!(declared(report).is_empty(), "{:?}", report.manifest);
    assert_eq!(allowance(report), AllowList::Only(Default::default()));
    assert!(!allowance(report).admits("Read"));
    let d = find(report, code);
    assert_eq!(d.severity(), Severity::Error);
    assert!(!report.is_valid());
}

#[test]
fn allowed_tools_given_twice_allows_no_tools() {
    let r = read(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nallowed-tools: Read\nallowed-tools: Bash",
    );
    assert_fails_closed(&r, Code::AllowedToolsTwice);
    assert_eq!(codes(&r), [Code::AllowedToolsTwice]);
    assert_eq!(r.diagnostics[0].position, at(5, 1));
    assert!(r.diagnostics[0].message.contains("line 4"));
}

#[test]
fn allowed_tools_given_twice_with_the_same_list_still_allows_no_tools() {
    let r = read(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nallowed-tools: Read\nallowed-tools: Read",
    );
    assert_fails_closed(&r, Code::AllowedToolsTwice);
}

#[test]
fn near_miss_spellings_of_allowed_tools_allow_no_tools() {
    for key in [
        "allowed_tools",
        "allowedTools",
        "allowed-tool",
        "Allowed-Tools",
        "allowed tools",
        "allowedtools",
        "ALLOWED_TOOLS",
        "alowed-tools",
        "'allowed-tools '",
    ] {
        let r = read(&format!(
            "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\n{key}: Read"
        ));
        assert_fails_closed(&r, Code::AllowedToolsMisspelled);
        assert_eq!(codes(&r), [Code::AllowedToolsMisspelled], "{key}");
        assert_eq!(r.diagnostics[0].position, at(4, 1), "{key}");
        assert!(
            r.diagnostics[0]
                .message
                .contains("rename the key to `allowed-tools`"),
            "{key}"
        );
    }
}

#[test]
fn near_miss_beside_the_real_key_allows_no_tools() {
    let r = read(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nallowed-tools: Read\nallowed_tools: Bash",
    );
    assert_fails_closed(&r, Code::AllowedToolsMisspelled);
}

#[test]
fn unrelated_unknown_keys_are_not_near_misses() {
    for key in ["tools", "allowed-hosts", "disallowed-tools", "allowed"] {
        let r = read(&format!(
            "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\n{key}: Read"
        ));
        assert_eq!(codes(&r), [Code::UnknownField], "{key}");
        assert_eq!(
            r.manifest.map(|m| m.allowed_tools),
            Some(AllowedTools::Absent),
            "{key}"
        );
    }
}

#[test]
fn map_value_allows_no_tools() {
    assert_fails_closed(
        &with_tools("\n  Read: yes\n  Bash: git"),
        Code::AllowedToolsWrongType,
    );
    assert_fails_closed(&with_tools(" {Read: yes}"), Code::AllowedToolsWrongType);
}

#[test]
fn number_value_allows_no_tools() {
    for value in [" 42", " 1.5", " 0x1F", " .inf"] {
        assert_fails_closed(&with_tools(value), Code::AllowedToolsWrongType);
    }
}

#[test]
fn bool_value_allows_no_tools() {
    for value in [" true", " false", " True"] {
        let r = with_tools(value);
        assert_fails_closed(&r, Code::AllowedToolsWrongType);
        assert!(
            r.diagnostics[0].message.contains("not a boolean"),
            "{value}"
        );
    }
}

#[test]
fn every_malformed_part_of_a_token_is_reported() {
    // A bad escape, an unanchored `*` and an unclosed `(` in one token.
    let (tokens, diagnostics) = tokenize(r"Ba\sh*(git status");
    assert!(tokens.is_empty());
    let found: Vec<_> = diagnostics.iter().map(|d| (d.code, d.position)).collect();
    assert_eq!(
        found,
        [
            (Code::BadEscape, at(1, 3)),
            (Code::UnanchoredWildcard, at(1, 6)),
            (Code::UnterminatedParen, at(1, 7)),
        ]
    );
    assert!(diagnostics.iter().all(Diagnostic::is_error));
}

#[test]
fn every_malformed_part_of_a_value_is_reported_with_its_file_position() {
    let r = with_tools(r" Read Ba\sh* Bash(dir C:\)");
    assert_eq!(declared(&r), ["Read"]);
    let found: Vec<_> = r.diagnostics.iter().map(|d| (d.code, d.position)).collect();
    assert_eq!(
        found,
        [
            (Code::BadEscape, at(4, 23)),
            (Code::UnanchoredWildcard, at(4, 26)),
            (Code::UnterminatedParen, at(4, 32)),
            (Code::BadEscape, at(4, 39)),
        ]
    );
}

#[test]
fn escaped_parentheses_outside_a_scope_are_bad_escapes() {
    // `\(` only escapes inside a scope: here the `(` opens one, and the
    // `\)` keeps it from closing.
    let (tokens, diagnostics) = tokenize(r"Bash\(ls\)");
    assert!(tokens.is_empty());
    let found: Vec<_> = diagnostics.iter().map(|d| (d.code, d.position)).collect();
    assert_eq!(
        found,
        [
            (Code::BadEscape, at(1, 5)),
            (Code::UnterminatedParen, at(1, 6)),
            (Code::BadEscape, at(1, 9)),
        ]
    );
}

#[test]
fn each_kind_of_fault_in_a_name_is_reported_once_where_it_first_occurs() {
    let (_, diagnostics) = tokenize(r"a*b\c:d*e\f:");
    let found: Vec<_> = diagnostics.iter().map(|d| (d.code, d.position)).collect();
    assert_eq!(
        found,
        [
            (Code::UnanchoredWildcard, at(1, 2)),
            (Code::BadEscape, at(1, 4)),
            (Code::InvalidToolName, at(1, 6)),
        ]
    );
}

#[test]
fn a_bad_name_does_not_hide_a_faulty_scope() {
    let (_, diagnostics) = tokenize("Ba*sh() (x");
    let codes: Vec<_> = diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            Code::UnanchoredWildcard,
            Code::EmptyScope,
            Code::ScopeWithoutTool,
            Code::UnterminatedParen
        ]
    );
}

// ---- registry check ----

const KNOWN: &[KnownTool<'static>] = &[
    KnownTool {
        name: "Read",
        scope: None,
    },
    KnownTool {
        name: "Bash",
        scope: Some(ScopeKind::Command),
    },
    KnownTool {
        name: "mcp__srv__one",
        scope: None,
    },
    KnownTool {
        name: "mcp__srv__two",
        scope: Some(ScopeKind::Text),
    },
    KnownTool {
        name: "mcp__other__x",
        scope: None,
    },
];

fn check(text: &str) -> Vec<Diagnostic> {
    let (tokens, _) = tokenize(text);
    check_allowed_tools(&AllowedTools::Declared(tokens), KNOWN)
}

#[test]
fn registered_tokens_resolve() {
    assert!(check("Read Bash(git:*) mcp__srv__one mcp__srv").is_empty());
}

#[test]
fn unresolved_tool_is_reported_with_a_near_name() {
    let d = check("Raed");
    assert_eq!(d[0].code, Code::UnresolvedTool);
    assert!(
        d[0].message.contains("did you mean `Read`"),
        "{}",
        d[0].message
    );
    assert!(!check("Zebra")[0].message.contains("did you mean"));
}

#[test]
fn case_slip_suggests_the_registered_name() {
    let d = check("bash");
    assert_eq!(d[0].code, Code::UnresolvedTool);
    assert!(
        d[0].message
            .contains("did you mean `Bash`? (names are case-sensitive)")
    );
}

#[test]
fn scope_on_tool_without_scope_field_is_unresolved() {
    let d = check("Read(/tmp/**)");
    assert_eq!(d[0].code, Code::UnenforceableScope);
}

#[test]
fn unknown_mcp_server_is_unresolved() {
    let d = check("mcp__SRV__*");
    assert_eq!(d[0].code, Code::UnresolvedServer);
    assert!(d[0].message.contains("did you mean `srv`"));
}

// ---- allow-list ----

fn skill(id: &str, tools: Option<&str>) -> SkillRef {
    SkillRef {
        id: id.into(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(1),
        allowed_tools: match tools {
            None => AllowedTools::Absent,
            Some(text) => AllowedTools::Declared(tokenize(text).0),
        },
        text: format!("Text of {id}."),
    }
}

fn allow(skills: &[SkillRef]) -> AllowList {
    EffectiveSkills::select(skills, TrustLevel(1)).allow_list(KNOWN)
}

#[test]
fn no_declaring_skill_means_no_opinion() {
    let list = allow(&[skill("a", None), skill("b", None)]);
    assert_eq!(list, AllowList::NoOpinion);
    assert!(list.admits("anything"));
    assert_eq!(allow(&[]), AllowList::NoOpinion);
}

#[test]
fn declared_empty_list_allows_nothing() {
    let list = allow(&[skill("a", None), skill("b", Some(""))]);
    assert!(!list.admits("Read"));
    assert_eq!(list, AllowList::Only(Default::default()));
}

#[test]
fn allow_list_is_the_union_of_declared_lists() {
    let list = allow(&[
        skill("a", Some("Read")),
        skill("b", Some("mcp__srv")),
        skill("c", None),
    ]);
    assert!(list.admits("Read"));
    assert!(list.admits("mcp__srv__one") && list.admits("mcp__srv__two"));
    assert!(!list.admits("Bash") && !list.admits("mcp__other__x"));
}

#[test]
fn ineffective_skills_do_not_count() {
    let mut disabled = skill("a", Some("Read"));
    disabled.enabled = false;
    let mut orphaned = skill("b", Some("Read"));
    orphaned.orphaned = true;
    let mut untrusted = skill("c", Some("Read"));
    untrusted.trust = TrustLevel(0);
    assert_eq!(
        allow(&[disabled, orphaned, untrusted]),
        AllowList::NoOpinion
    );
}

#[test]
fn duplicate_skill_ids_count_once() {
    let skills = [skill("a", Some("Read")), skill("a", Some("Bash"))];
    let effective = EffectiveSkills::select(&skills, TrustLevel(0));
    assert_eq!(effective.iter().count(), 1);
    assert!(!effective.allow_list(KNOWN).admits("Bash"));
}

#[test]
fn unknown_names_never_widen_the_list() {
    let list = allow(&[skill("a", Some("Nope mcp__ghost Read(/x)"))]);
    assert_eq!(list, AllowList::Only(Default::default()));
}

#[test]
fn whole_grant_admits_any_call() {
    let list = allow(&[skill("a", Some("Bash(ls) Bash"))]);
    assert!(list.admits_call("Bash", Some((ScopeKind::Command, "rm -rf /"))));
    assert!(list.admits_call("Bash", None));
}

#[test]
fn scoped_grant_admits_only_matching_calls() {
    let list = allow(&[
        skill("a", Some("Bash(git diff:*)")),
        skill("b", Some("Bash(ls)")),
    ]);
    assert!(list.admits("Bash"));
    assert!(list.admits_call("Bash", Some((ScopeKind::Command, "git diff --stat"))));
    assert!(list.admits_call("Bash", Some((ScopeKind::Command, "ls"))));
    assert!(!list.admits_call("Bash", Some((ScopeKind::Command, "git push"))));
}

#[test]
fn missing_scope_value_matches_no_scope() {
    let list = allow(&[
        skill("a", Some("Bash(*)")),
        skill("b", Some("mcp__srv__two(x)")),
    ]);
    assert!(list.admits_call("Bash", None));
    assert!(!list.admits_call("mcp__srv__two", None));
}

#[test]
fn scope_on_unscoped_tool_grants_nothing() {
    let list = allow(&[skill("a", Some("Read(/tmp/**)"))]);
    assert!(!list.admits("Read"));
    assert!(!list.admits_call("Read", Some((ScopeKind::Command, "/tmp/x"))));
}

// ---- server-wide grants name one server ----

/// Servers whose names start like `files`; each has a tool `read`.
const NEIGHBOURS: &[KnownTool<'static>] = &[
    KnownTool {
        name: "mcp__files__read",
        scope: None,
    },
    KnownTool {
        name: "mcp__files__write",
        scope: None,
    },
    KnownTool {
        name: "mcp__files___read",
        scope: None,
    },
    KnownTool {
        name: "mcp__files-x__read",
        scope: None,
    },
    KnownTool {
        name: "mcp__filesX__read",
        scope: None,
    },
    KnownTool {
        name: "mcp__files_x__read",
        scope: None,
    },
    KnownTool {
        name: "mcp__filesystem__read",
        scope: None,
    },
];

/// The tools that `allowed-tools: {tokens}` lets through among the neighbours.
fn granted(tokens: &str) -> Vec<String> {
    let skills = [skill("a", Some(tokens))];
    match EffectiveSkills::select(&skills, TrustLevel(0)).allow_list(NEIGHBOURS) {
        AllowList::Only(grants) => grants.into_keys().collect(),
        AllowList::NoOpinion => panic!("no opinion"),
    }
}

#[test]
fn server_grant_does_not_reach_servers_that_start_the_same_way() {
    for tokens in ["mcp__files", "mcp__files__*"] {
        assert_eq!(
            granted(tokens),
            ["mcp__files__read", "mcp__files__write"],
            "{tokens}"
        );
    }
}

#[test]
fn server_part_may_end_in_an_underscore() {
    // `mcp__files___read` is the tool `read` of `files_`, not `_read` of `files`.
    for tokens in ["mcp__files_", "mcp__files___*"] {
        assert_eq!(granted(tokens), ["mcp__files___read"], "{tokens}");
    }
}

#[test]
fn server_part_may_hold_single_underscores() {
    assert_eq!(granted("mcp__files_x"), ["mcp__files_x__read"]);
    assert_eq!(granted("mcp__files_x__*"), ["mcp__files_x__read"]);
}

#[test]
fn server_part_keeps_hyphens_and_capitals_exactly() {
    assert_eq!(granted("mcp__files-x"), ["mcp__files-x__read"]);
    assert_eq!(granted("mcp__filesX"), ["mcp__filesX__read"]);
    assert_eq!(granted("mcp__filesystem"), ["mcp__filesystem__read"]);
    assert!(granted("mcp__Files mcp__file mcp__files-").is_empty());
}

#[test]
fn server_grant_still_matches_its_own_tools() {
    // `mcp__files__` is a prefix of `mcp__files__read`, and that tool is the
    // server's: the exact match must not lose it.
    let skills = [skill("a", Some("mcp__files"))];
    let list = EffectiveSkills::select(&skills, TrustLevel(0)).allow_list(NEIGHBOURS);
    assert!(list.admits("mcp__files__read"));
    assert!(list.admits_call("mcp__files__read", Some((ScopeKind::Text, "anything"))));
    assert!(!list.admits("mcp__files___read"));
    assert!(!list.admits("mcp__files_x__read"));
}

#[test]
fn server_grant_with_no_exact_tool_is_unresolved() {
    let (tokens, _) = tokenize("mcp__file mcp__files_");
    let d = check_allowed_tools(&AllowedTools::Declared(tokens), NEIGHBOURS);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, Code::UnresolvedServer);
    assert!(d[0].message.contains("`file`"), "{}", d[0].message);
}

#[test]
fn server_part_with_a_double_underscore_is_refused() {
    let (tokens, diagnostics) = tokenize("mcp__a____*");
    assert!(tokens.is_empty());
    assert!(diagnostics[0].is_error(), "{diagnostics:?}");
}

// ---- skill block ----

#[test]
fn skill_block_respects_the_byte_budget() {
    let skills = [skill("a", None), skill("b", None)];
    let effective = EffectiveSkills::select(&skills, TrustLevel(0));
    let (all, dropped) = compose_skill_block(&effective, usize::MAX);
    assert!(dropped.is_empty());
    assert!(all.contains("Text of a.") && all.contains("Text of b."));
    let (block, dropped) = compose_skill_block(&effective, all.len() - 1);
    assert!(block.len() < all.len());
    assert_eq!(
        dropped,
        [Dropped {
            id: "b".into(),
            bytes: all.len() - block.len()
        }]
    );
}

#[test]
fn dropped_skill_still_contributes_its_allowed_tools() {
    let mut big = skill("big", Some("Read"));
    big.text = "x".repeat(10_000);
    let skills = [big, skill("small", Some("Bash"))];
    let effective = EffectiveSkills::select(&skills, TrustLevel(0));
    let list = effective.allow_list(KNOWN);
    let (block, dropped) = compose_skill_block(&effective, 200);
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0].id, "big");
    assert!(block.contains("Text of small."));
    assert!(list.admits("Read") && list.admits("Bash"));
}
