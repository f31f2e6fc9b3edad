//! Compares [`read_skill`] with the reference validator of the Agent Skills
//! specification (`skills-ref`) over the project's synthetic cases
//! (`fixtures/skills`) and the shared corpus of real `SKILL.md` files.
//! Every disagreement is listed below and explained in
//! `docs/skills-reference-differences.md`; keep the two in sync.

mod corpus_support;

use std::fs;
use std::path::{Path, PathBuf};

use corpus_support::corpus;
use tool_core::skills::read_skill;

/// The project's own fixtures: `synthetic__cases/` and the reference
/// validator's verdicts for them.
fn fixtures() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/skills"))
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

/// Our verdict on every file of `root` that its `skills-ref-results.tsv`
/// lists, against the reference's: each the same, or a listed difference
/// that still differs. Every listed difference the results name is checked;
/// with `all_listed`, every listed difference must be among them.
fn check_verdicts(root: &Path, all_listed: bool) {
    let results = fs::read_to_string(root.join("skills-ref-results.tsv"))
        .expect("the results file is readable");
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
        let text = fs::read_to_string(root.join(path)).expect("skill file readable");
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
        if all_listed && !seen.contains(path) {
            failures.push(format!(
                "{path}: listed as a difference but not in the corpus"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} verdicts differ in {}:\n{}",
        failures.len(),
        root.display(),
        failures.join("\n")
    );
}

#[test]
fn synthetic_verdicts_match_reference_or_are_explained() {
    check_verdicts(&fixtures(), false);
}

/// The fixtures are the corpus's synthetic cases, byte for byte, with the
/// reference's verdicts for them.
#[test]
fn synthetic_fixtures_are_the_corpus_cases() {
    let Some(corpus) = corpus() else {
        return;
    };
    let results = |root: &Path| {
        let text = fs::read_to_string(root.join("skills-ref-results.tsv")).unwrap();
        text.lines()
            .filter(|line| line.starts_with("synthetic__cases/"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(results(&fixtures()), results(&corpus));
    let cases = fixtures().join("synthetic__cases");
    let mut names: Vec<_> = fs::read_dir(&cases)
        .expect("the fixtures are readable")
        .flatten()
        .map(|entry| entry.file_name())
        .collect();
    names.sort();
    let mut shared: Vec<_> = fs::read_dir(corpus.join("synthetic__cases"))
        .expect("the corpus's synthetic cases are readable")
        .flatten()
        .map(|entry| entry.file_name())
        .collect();
    shared.sort();
    assert_eq!(names, shared, "the fixtures hold every synthetic case");
    for name in names {
        let file = Path::new(&name).join("SKILL.md");
        assert_eq!(
            fs::read(cases.join(&file)).unwrap(),
            fs::read(corpus.join("synthetic__cases").join(&file)).unwrap(),
            "{} differs from the corpus",
            file.display()
        );
    }
}

#[test]
fn corpus_verdicts_match_reference_or_are_explained() {
    if let Some(corpus) = corpus() {
        check_verdicts(&corpus, true);
    }
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
