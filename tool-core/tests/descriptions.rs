//! The description rules (S050 to S052) over the corpus of real skill
//! files: the counts and examples that `docs/skills-descriptions.md`
//! records must be what the rules flag, so the document cannot drift.

mod corpus_support;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use corpus_support::corpus;
use tool_core::skills::{Code, read_skill};

/// The folder of hand-written cases; every other folder holds real files.
const SYNTHETIC: &str = "synthetic__cases";

const DOC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../docs/skills-descriptions.md"
);

const CODES: [Code; 3] = [
    Code::DescriptionOpensWithoutWhat,
    Code::DescriptionWithoutWhen,
    Code::DescriptionTooShort,
];

/// What the rules flag among the real files: how many files were read,
/// how many each code flags, and how many at least one flags. The same
/// numbers are in the document's table.
const EXPECTED: (usize, [(Code, usize); 3], usize) = (
    127,
    [
        (Code::DescriptionOpensWithoutWhat, 15),
        (Code::DescriptionWithoutWhen, 24),
        (Code::DescriptionTooShort, 2),
    ],
    39,
);

struct Flagged {
    files: usize,
    by_code: BTreeMap<Code, BTreeSet<String>>,
    any: BTreeSet<String>,
}

/// What the rules flag among the corpus's real files; `None` (the test
/// skips) without the corpus.
fn flag_real_files() -> Option<Flagged> {
    let root = corpus()?;
    let mut skills = Vec::new();
    for repo in fs::read_dir(&root)
        .expect("the corpus is readable")
        .flatten()
    {
        let repo_name = repo.file_name().to_string_lossy().into_owned();
        if repo_name == SYNTHETIC || !repo.path().is_dir() {
            continue;
        }
        for skill in fs::read_dir(repo.path())
            .expect("a corpus folder")
            .flatten()
        {
            let file = skill.path().join("SKILL.md");
            if file.is_file() {
                let folder = skill.file_name().to_string_lossy().into_owned();
                skills.push((format!("{repo_name}/{folder}/SKILL.md"), folder, file));
            }
        }
    }
    skills.sort();
    let mut flagged = Flagged {
        files: skills.len(),
        by_code: CODES.iter().map(|c| (*c, BTreeSet::new())).collect(),
        any: BTreeSet::new(),
    };
    for (path, folder, file) in skills {
        let text = fs::read_to_string(file).expect("a corpus file is UTF-8");
        for d in read_skill(&text, &folder).diagnostics {
            if let Some(set) = flagged.by_code.get_mut(&d.code) {
                set.insert(path.clone());
                flagged.any.insert(path.clone());
            }
        }
    }
    Some(flagged)
}

#[test]
fn description_rules_flag_the_recorded_counts() {
    let Some(flagged) = flag_real_files() else {
        return;
    };
    let counts: Vec<(Code, usize)> = flagged
        .by_code
        .iter()
        .map(|(code, files)| (*code, files.len()))
        .collect();
    assert_eq!(
        (flagged.files, counts.as_slice(), flagged.any.len()),
        (EXPECTED.0, EXPECTED.1.as_slice(), EXPECTED.2),
        "{:#?}",
        flagged.by_code
    );
}

/// The rows `| key | what | number |` of the document's counts table.
fn doc_counts(doc: &str) -> BTreeMap<String, usize> {
    doc.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let [_, key, _, number, _] = cells.as_slice() else {
                return None;
            };
            Some(((*key).to_owned(), number.parse().ok()?))
        })
        .collect()
}

#[test]
fn docs_record_the_counts_the_rules_give() {
    let doc = fs::read_to_string(DOC).expect("the descriptions document is readable");
    let recorded = doc_counts(&doc);
    let Some(flagged) = flag_real_files() else {
        return;
    };
    let mut expected = BTreeMap::from([
        ("read".to_owned(), flagged.files),
        ("any".to_owned(), flagged.any.len()),
    ]);
    for (code, files) in &flagged.by_code {
        expected.insert(code.id().to_owned(), files.len());
    }
    assert_eq!(recorded, expected, "the counts table in {DOC}");
}

#[test]
fn docs_examples_get_their_codes() {
    let doc = fs::read_to_string(DOC).expect("the descriptions document is readable");
    let Some(flagged) = flag_real_files() else {
        return;
    };
    let mut examples: BTreeMap<&str, usize> = BTreeMap::new();
    // Lines such as "- `repo/skill/SKILL.md` (S050): …".
    for line in doc.lines().filter_map(|l| l.strip_prefix("- `")) {
        let Some((path, rest)) = line.split_once("` (") else {
            continue;
        };
        let Some((id, _)) = rest.split_once(')') else {
            continue;
        };
        let code = CODES
            .iter()
            .find(|c| c.id() == id)
            .unwrap_or_else(|| panic!("{path}: unknown code {id}"));
        assert!(
            flagged.by_code[code].contains(path),
            "{path} is given as an example of {id} but does not get it"
        );
        *examples.entry(code.id()).or_default() += 1;
    }
    for code in CODES {
        assert!(
            examples.get(code.id()).copied().unwrap_or(0) >= 2,
            "{code} needs two examples in {DOC}"
        );
    }
}
