//! Compares [`read_skill`] with the reference validator of the Agent Skills
//! specification (`skills-ref`) over the shared corpus of real `SKILL.md`
//! files. Every disagreement is listed below and explained in
//! `docs/skills-reference-differences.md`; keep the two in sync.

use std::fs;
use std::path::PathBuf;

use tool_core::skills::read_skill;

/// The corpus root: one folder per repository, one per skill below it.
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/skills");

/// `CORPUS`, or the folder named by `SKILLS_CORPUS` when it is set: a
/// checkout in a git worktree lies elsewhere relative to the corpus.
fn corpus() -> PathBuf {
    std::env::var_os("SKILLS_CORPUS").map_or_else(|| PathBuf::from(CORPUS), PathBuf::from)
}

/// The document whose table explains each difference.
const DIFFERENCES_DOC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../docs/skills-reference-differences.md"
);

/// Files where our verdict differs from the reference validator's, with our
/// verdict (`true` = valid) and the reason's row in the doc table.
const EXPECTED_DIFFERENCES: &[(&str, bool, &str)] = &[
    ("maroffo__claude-forge/golang/SKILL.md", true, "flow-list"),
    (
        "maroffo__claude-forge/source-control/SKILL.md",
        true,
        "flow-list",
    ),
    (
        "maroffo__claude-forge/project-analyzer/SKILL.md",
        true,
        "flow-list",
    ),
    (
        "kurtcorbett__esim/signal-processing/SKILL.md",
        true,
        "flow-list",
    ),
    ("synthetic__cases/dotted-flow/SKILL.md", true, "flow-list"),
    ("synthetic__cases/mcp-flow/SKILL.md", true, "flow-list"),
    (
        "ElliotJLT__Claude-Skill-Potions/trace-it/SKILL.md",
        false,
        "not-tool-names",
    ),
    (
        "ElliotJLT__Claude-Skill-Potions/fan-out/SKILL.md",
        false,
        "not-tool-names",
    ),
    (
        "ElliotJLT__Claude-Skill-Potions/loose-ends/SKILL.md",
        false,
        "not-tool-names",
    ),
    (
        "ElliotJLT__Claude-Skill-Potions/breadcrumbs/SKILL.md",
        false,
        "not-tool-names",
    ),
    (
        "synthetic__cases/broken-scopes/SKILL.md",
        false,
        "malformed-tokens",
    ),
    (
        "synthetic__cases/list-non-strings/SKILL.md",
        false,
        "non-string-items",
    ),
    ("synthetic__cases/map-tools/SKILL.md", false, "map-value"),
    (
        "synthetic__cases/quoted-star/SKILL.md",
        false,
        "unanchored-star",
    ),
];

#[test]
fn corpus_verdicts_match_reference_or_are_explained() {
    let results = fs::read_to_string(corpus().join("skills-ref-results.tsv"))
        .expect("the corpus results file is readable");
    let mut failures = Vec::new();
    let mut seen = Vec::new();
    for line in results.lines().skip(1) {
        let mut columns = line.split('\t');
        let (Some(path), Some(verdict)) = (columns.next(), columns.next()) else {
            continue;
        };
        let reference_valid = verdict == "yes";
        let folder = path
            .split('/')
            .nth(1)
            .expect("paths are repo/skill/SKILL.md");
        let text = fs::read_to_string(corpus().join(path)).expect("corpus file readable");
        let report = read_skill(&text, folder);
        let ours = report.is_valid();
        seen.push(path);
        let expected = EXPECTED_DIFFERENCES.iter().find(|(p, _, _)| *p == path);
        let ok = match expected {
            None => ours == reference_valid,
            Some((_, expected_ours, _)) => ours == *expected_ours && ours != reference_valid,
        };
        if !ok {
            let diagnostics: Vec<String> =
                report.diagnostics.iter().map(|d| d.to_string()).collect();
            failures.push(format!(
                "{path}: ours {ours}, reference {reference_valid}, listed {}\n    {}",
                expected.is_some(),
                diagnostics.join("\n    ")
            ));
        }
    }
    for (path, _, _) in EXPECTED_DIFFERENCES {
        if !seen.contains(path) {
            failures.push(format!(
                "{path}: listed as a difference but not in the corpus"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} verdicts differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn differences_doc_table_lists_exactly_the_expected_differences() {
    let doc = fs::read_to_string(DIFFERENCES_DOC).expect("the differences document is readable");
    let mut rows: Vec<(String, String, String)> = doc
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let path = cells.get(1)?.trim_matches('`').to_owned();
            Some((path, cells.get(3)?.to_string(), cells.get(4)?.to_string()))
        })
        .collect();
    rows.sort();
    let mut expected: Vec<(String, String, String)> = EXPECTED_DIFFERENCES
        .iter()
        .map(|(path, ours, reason)| {
            let verdict = if *ours { "valid" } else { "invalid" };
            ((*path).to_owned(), verdict.to_owned(), (*reason).to_owned())
        })
        .collect();
    expected.sort();
    assert_eq!(
        rows, expected,
        "the doc table and EXPECTED_DIFFERENCES differ"
    );
}
