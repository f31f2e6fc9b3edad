//! `allowed-tools`: the forms it is read in, the tokenizer's diagnostics,
//! and the values that cannot be read with certainty, which fail closed
//! (gate 6 lets nothing through). One named test per rule.

mod skills_support;

use skills_support::*;
use tool_core::skills::{
    AllowedTools, Code, Diagnostic, Position, ScopePattern, Severity, SkillReport, ToolTarget,
    tokenize,
};

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
fn an_empty_scope_before_a_stray_paren_is_reported_too() {
    let (tokens, diagnostics) = tokenize("Grep Bash())");
    assert_eq!(
        tokens.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["Grep"]
    );
    let positions: Vec<_> = diagnostics.iter().map(|d| (d.code, d.position)).collect();
    assert_eq!(
        positions,
        [(Code::EmptyScope, at(1, 10)), (Code::StrayParen, at(1, 12))]
    );
    // A scope that is not empty: only the `)` is wrong.
    let (_, diagnostics) = tokenize("Bash(git status))");
    let codes: Vec<_> = diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::StrayParen]);
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

/// Gate 6 lets nothing through for a run with the report's skill alone.
fn assert_allows_nothing(report: &SkillReport) {
    let allowed_tools = report
        .manifest
        .as_ref()
        .map(|m| m.allowed_tools.clone())
        .expect("manifest");
    let mut skill = skill("demo", None);
    skill.allowed_tools = allowed_tools;
    let registry = registry_of(KNOWN);
    let allowed = Allowed::new(&registry, &[skill]);
    assert!(allowed.allows_nothing(), "{:?}", allowed.granted());
    assert!(!allowed.admits("Read"));
}

/// The report declares zero tools (never "absent"), gate 6 lets nothing
/// through, and `code` is among its diagnostics as an error.
fn assert_fails_closed(report: &SkillReport, code: Code) {
    assert!(declared(report).is_empty(), "{:?}", report.manifest);
    assert_allows_nothing(report);
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

#[test]
fn server_part_with_a_double_underscore_is_refused() {
    let (tokens, diagnostics) = tokenize("mcp__a____*");
    assert!(tokens.is_empty());
    assert!(diagnostics[0].is_error(), "{diagnostics:?}");
}
