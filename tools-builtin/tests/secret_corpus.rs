//! Redaction measured against a public rule set (issue 25): samples of
//! every rule of gitleaks' default rules, generated at test time, and
//! ordinary values, each written in the places secrets are written
//! (`NAME=value`, JSON, YAML, a URL, a log line), run through `get_env`
//! (as environment variables), `read_source` and `search_code` (as files
//! of a source root) and `read_records` and `search_records` (as a record's
//! fields).
//!
//! - Every sample written next to its keyword is redacted by every tool.
//! - The share of samples redacted without a keyword near them is
//!   reported per rule family, and may not fall below the floors below.
//! - At most 1% of the ordinary values are redacted, each one explained.
//!
//! `cargo test -p tools-builtin --test secret_corpus -- --nocapture`
//! prints the rates (docs/redaction.md).

mod common;
mod corpus;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use site_model::{FieldKind, FieldSchema, MemorySite, Record, TableSchema};
use tools_builtin::system::Environment;

use common::{ADMIN, call_with, cx_on, demo_data};
use corpus::ordinary::{self, Ordinary};
use corpus::{Kind, Place, Rule, Written, shows, write};

/// The tools each value goes through.
const TOOLS: [&str; 5] = [
    "get_env",
    "read_source",
    "search_code",
    "read_records",
    "search_records",
];

/// One value written at one place, and what each tool showed of it.
struct Case {
    /// The rule's index, or the ordinary kind's.
    source: usize,
    /// The file and the table the case is written to: at most 50 cases.
    group: usize,
    value: String,
    /// Fixed text of the value's rule that a tool may show.
    fixed: String,
    written: Written,
    /// The tools that showed the value (a piece of it, for a secret).
    shown_by: BTreeSet<&'static str>,
}

/// The file a group's lines are written to.
fn file_name(group: usize) -> String {
    format!("group{group:03}.txt")
}

/// Runs every case through every tool, filling `shown_by`. `secret`: a
/// piece of the value showing counts; otherwise only the whole value.
fn run(cases: &mut [Case], secret: bool) {
    let shown = |output: &str, case: &Case| {
        if secret {
            shows(output, &case.value, &case.fixed)
        } else {
            output.contains(&case.value)
        }
    };
    let root = TempRoot::new();
    let mut files: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (index, case) in cases.iter().enumerate() {
        files.entry(case.group).or_default().push(index);
    }
    for (group, lines) in &files {
        let text: Vec<&str> = lines
            .iter()
            .map(|&i| cases[i].written.line.as_str())
            .collect();
        std::fs::write(root.0.join(file_name(*group)), text.join("\n") + "\n").unwrap();
    }
    let data = records_data(cases);
    let site = || MemorySite::new(data.clone()).with_source_root(root.0.clone());
    let cx = cx_on(Arc::new(site()), ADMIN);

    // get_env: a `NAME=value` case as the variable NAME, any other as the
    // value of a variable with a neutral name; 200 variables per call.
    let variables: Vec<(usize, String, String)> = cases
        .iter()
        .enumerate()
        .map(|(i, case)| match case.written.place {
            Place::Assignment => (i, case.written.name.clone(), case.value.clone()),
            _ => (i, format!("CONTEXT_{i}"), case.written.line.clone()),
        })
        .collect();
    for chunk in variables.chunks(200) {
        let environment = Environment(
            chunk
                .iter()
                .map(|(_, name, value)| (name.clone(), value.clone()))
                .collect(),
        );
        let cx = cx_on(Arc::new(site()), ADMIN).with_service(environment);
        let output = json_of(call_with("get_env", json!({}), &cx));
        for (i, name, _) in chunk {
            let value = output["variables"][name]
                .as_str()
                .expect("every variable listed");
            if shown(value, &cases[*i]) {
                cases[*i].shown_by.insert("get_env");
            }
        }
    }

    // read_source: each group's file, line by line.
    for (group, lines) in &files {
        let output = text_of(call_with(
            "read_source",
            json!({"path": file_name(*group), "count": 500}),
            &cx,
        ));
        let shown_lines: Vec<&str> = output.lines().skip(1).collect();
        assert_eq!(shown_lines.len(), lines.len(), "{output}");
        for (line, &i) in shown_lines.iter().zip(lines) {
            if shown(line, &cases[i]) {
                cases[i].shown_by.insert("read_source");
            }
        }
    }

    // search_code: the value itself as the search, as a guess at it would
    // be; every hit names the file and line, so the case.
    let mut at: BTreeMap<(String, usize), usize> = BTreeMap::new();
    for (group, lines) in &files {
        for (line, &i) in lines.iter().enumerate() {
            at.insert((file_name(*group), line + 1), i);
        }
    }
    let mut searched = BTreeSet::new();
    for i in 0..cases.len() {
        let pattern: String = cases[i].value.chars().take(200).collect();
        if !searched.insert(pattern.clone()) {
            continue;
        }
        let output = text_of(call_with("search_code", json!({"pattern": pattern}), &cx));
        let mut hits = 0;
        for hit in output.lines() {
            let Some((path, rest)) = hit.split_once(':') else {
                continue;
            };
            let Some((line, text)) = rest.split_once(": ") else {
                continue;
            };
            let Some(&j) = line
                .parse()
                .ok()
                .and_then(|line| at.get(&(path.to_owned(), line)))
            else {
                continue;
            };
            hits += 1;
            if shown(text, &cases[j]) {
                cases[j].shown_by.insert("search_code");
            }
        }
        assert!(
            hits > 0,
            "search_code found no line holding {pattern}: {output}"
        );
    }

    // read_records: every case a record of its group's table, its
    // `NAME=value` as the field NAME, any other place as the field `text`.
    for (group, lines) in &files {
        let output = json_of(call_with(
            "read_records",
            json!({"table": table_name(*group), "limit": 50}),
            &cx,
        ));
        let records = output["records"].as_array().expect("records");
        assert_eq!(records.len(), lines.len(), "{output}");
        for record in records {
            let i = record["id"].as_u64().unwrap() as usize;
            // The field's value as JSON writes it; samples hold no quote
            // or backslash, so it reads the same.
            if shown(&record["values"].to_string(), &cases[i]) {
                cases[i].shown_by.insert("read_records");
            }
        }
    }

    // search_records: the value as the query, in its group's table; a hit
    // is a record whose field, redacted, still holds the query. An
    // excerpt shows at most 120 characters, some 80 of them from the
    // value: an ordinary value is shown when its first 60 are.
    let mut searched = BTreeSet::new();
    let mut search_shown = BTreeSet::new();
    for case in cases.iter() {
        let query: String = case.value.chars().take(200).collect();
        if !searched.insert((case.group, query.clone())) {
            continue;
        }
        let output = json_of(call_with(
            "search_records",
            json!({"query": query, "table": table_name(case.group), "limit": 50}),
            &cx,
        ));
        for hit in output["hits"].as_array().expect("hits") {
            let record = hit["record"].as_str().expect("a record");
            let i: usize = record.rsplit(':').next().unwrap().parse().unwrap();
            let excerpt = hit["excerpt"].as_str().expect("an excerpt");
            let head: String = cases[i].value.chars().take(60).collect();
            let shown = if secret {
                shows(excerpt, &cases[i].value, &cases[i].fixed)
            } else {
                excerpt.contains(&head)
            };
            if shown {
                search_shown.insert(i);
            }
        }
    }
    for i in search_shown {
        cases[i].shown_by.insert("search_records");
    }
}

fn table_name(group: usize) -> String {
    format!("corpus{group:03}")
}

/// The demo site's data with a table per group of cases, one record per
/// case.
fn records_data(cases: &[Case]) -> site_model::SiteData {
    let mut data = demo_data();
    let mut tables: BTreeMap<usize, Vec<FieldSchema>> = BTreeMap::new();
    for (i, case) in cases.iter().enumerate() {
        let fields = tables.entry(case.group).or_insert_with(|| {
            vec![FieldSchema {
                name: "text".into(),
                kind: FieldKind::String,
                credential: false,
            }]
        });
        let mut values = BTreeMap::new();
        if case.written.place == Place::Assignment {
            fields.push(FieldSchema {
                name: case.written.name.clone(),
                kind: FieldKind::String,
                credential: false,
            });
            values.insert(case.written.name.clone(), json!(case.value));
        } else {
            values.insert("text".into(), json!(case.written.line));
        }
        data.records.push(Record {
            table: table_name(case.group),
            id: i as u64,
            values: values.into(),
        });
    }
    for (group, fields) in tables {
        data.tables.push(TableSchema {
            name: table_name(group),
            title: table_name(group),
            search_fields: fields.iter().map(|field| field.name.clone()).collect(),
            fields,
            sensitive: false,
        });
    }
    data
}

fn text_of(result: Result<String, tool_core::ToolError>) -> String {
    result.unwrap_or_else(|error| panic!("{error}"))
}

fn json_of(result: Result<String, tool_core::ToolError>) -> Value {
    serde_json::from_str(&text_of(result)).expect("JSON output")
}

/// A source root made for one run, removed when dropped.
struct TempRoot(PathBuf);

impl TempRoot {
    fn new() -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "tools-builtin-corpus-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempRoot(path)
    }
}

impl Drop for TempRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every sample of every rule at every place: next to its keyword, and
/// (but for the URL, whose user-info is a password wherever it is) under
/// a neutral name.
fn secret_cases(rules: &[Rule]) -> Vec<Case> {
    let mut cases = Vec::new();
    for (group, rule) in rules.iter().enumerate() {
        for sample in &rule.samples {
            let in_value = rule.in_value(sample);
            for place in corpus::PLACES {
                // A value with spaces (a PEM block) is no URL's user-info.
                if place == Place::UrlUserInfo && sample.contains(' ') {
                    continue;
                }
                let mut words = vec![rule.name_keyword.as_str()];
                if place != Place::LogLine {
                    words.push("setting");
                }
                for word in words {
                    let keyword = in_value
                        || place != Place::LogLine
                            && rule.names_keyword(sample)
                            && word != "setting";
                    let n = cases.len();
                    cases.push(Case {
                        source: group,
                        group,
                        value: sample.clone(),
                        fixed: rule.regex.clone(),
                        written: write(place, word, keyword, sample, n),
                        shown_by: BTreeSet::new(),
                    });
                }
            }
        }
    }
    cases
}

fn ordinary_cases(kinds: &[Ordinary]) -> Vec<Case> {
    let mut cases = Vec::new();
    for (source, kind) in kinds.iter().enumerate() {
        for (index, value) in kind.values.iter().enumerate() {
            for place in ordinary::PLACES {
                let n = cases.len();
                cases.push(Case {
                    source,
                    group: source * ordinary::PER_KIND + index / 10,
                    value: value.clone(),
                    fixed: String::new(),
                    written: write(place, kind.word, false, value, n),
                    shown_by: BTreeSet::new(),
                });
            }
        }
    }
    cases
}

fn context_of(case: &Case) -> String {
    let line: String = case.written.line.chars().take(160).collect();
    format!("{:?} `{line}`", case.written.place)
}

#[test]
fn every_sample_next_to_its_keyword_is_redacted_by_every_tool() {
    let rules = corpus::rules();
    let mut cases = secret_cases(&rules);
    run(&mut cases, true);
    // Shown next to the keyword: by rule, how many and one example.
    let mut leaks: BTreeMap<&str, (usize, String)> = BTreeMap::new();
    for case in cases.iter().filter(|case| case.written.keyword) {
        if !case.shown_by.is_empty() {
            let entry = leaks.entry(&rules[case.source].id).or_default();
            entry.0 += 1;
            if entry.1.is_empty() {
                entry.1 = format!("by {:?}: {}", case.shown_by, context_of(case));
            }
        }
    }
    let keyworded = cases.iter().filter(|case| case.written.keyword).count();
    let shown: usize = leaks.values().map(|(count, _)| count).sum();
    println!("{keyworded} samples next to their keyword, {shown} shown");
    let leaks: Vec<String> = leaks
        .iter()
        .map(|(rule, (count, example))| format!("{rule}: {count}, e.g. {example}"))
        .collect();

    // Without a keyword near it: the share redacted by every tool, per
    // kind of rule and per family.
    let mut by_kind: BTreeMap<Kind, (usize, usize)> = BTreeMap::new();
    let mut by_family: BTreeMap<(Kind, &str), (usize, usize)> = BTreeMap::new();
    let mut by_place: BTreeMap<Place, (usize, usize)> = BTreeMap::new();
    for case in cases.iter().filter(|case| !case.written.keyword) {
        let rule = &rules[case.source];
        let redacted = usize::from(case.shown_by.is_empty());
        for entry in [
            by_kind.entry(rule.kind).or_default(),
            by_family.entry((rule.kind, &rule.family)).or_default(),
            by_place.entry(case.written.place).or_default(),
        ] {
            entry.0 += redacted;
            entry.1 += 1;
        }
    }
    let share = |(redacted, total): (usize, usize)| 100.0 * redacted as f64 / total as f64;
    println!("without a keyword near them, redacted by every tool:");
    for (kind, counts) in &by_kind {
        println!(
            "  {kind:?}: {}/{} ({:.1}%)",
            counts.0,
            counts.1,
            share(*counts)
        );
    }
    for (place, counts) in &by_place {
        println!(
            "  at {place:?}: {}/{} ({:.1}%)",
            counts.0,
            counts.1,
            share(*counts)
        );
    }
    for ((kind, family), counts) in &by_family {
        println!(
            "  {kind:?} {family}: {}/{} ({:.0}%)",
            counts.0,
            counts.1,
            share(*counts)
        );
    }
    assert!(
        leaks.is_empty(),
        "{shown} of {keyworded} shown, in {} rules:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
    for (kind, floor) in NO_KEYWORD_FLOORS {
        let rate = share(by_kind[&kind]);
        assert!(
            rate >= floor,
            "{kind:?}: {rate:.1}% redacted without a keyword, floor {floor}%"
        );
    }
}

/// The least share (%) of samples redacted with no keyword near them, by
/// kind of rule: the figures of docs/redaction.md, rounded down.
const NO_KEYWORD_FLOORS: [(Kind, f64); 2] = [(Kind::KeywordAssigned, 57.0), (Kind::Shaped, 44.0)];

/// Ordinary values that are redacted, by kind and place, and why.
const EXPLAINED: &[(&str, Place, &str)] = &[];

#[test]
fn at_most_one_percent_of_ordinary_values_is_redacted_each_explained() {
    let kinds = ordinary::corpus();
    let mut cases = ordinary_cases(&kinds);
    run(&mut cases, false);
    let total = cases.len() * TOOLS.len();
    let mut redacted = 0;
    let mut unexplained: BTreeMap<(&str, Place), (usize, String)> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for case in &cases {
        let kind = kinds[case.source].kind;
        let missing: Vec<&str> = TOOLS
            .iter()
            .copied()
            .filter(|tool| !case.shown_by.contains(tool))
            .collect();
        redacted += missing.len();
        if missing.is_empty() {
            continue;
        }
        match EXPLAINED
            .iter()
            .find(|(k, place, _)| *k == kind && *place == case.written.place)
        {
            Some(explained) => {
                seen.insert((explained.0, explained.1));
            }
            None => {
                let entry = unexplained
                    .entry((kind, case.written.place))
                    .or_insert((0, String::new()));
                entry.0 += missing.len();
                if entry.1.is_empty() {
                    entry.1 = format!("by {missing:?}: {}", context_of(case));
                }
            }
        }
    }
    let rate = 100.0 * redacted as f64 / total as f64;
    println!("ordinary corpus: {redacted} of {total} values shown by a tool redacted ({rate:.2}%)");
    let unexplained: Vec<String> = unexplained
        .iter()
        .map(|((kind, place), (count, example))| {
            format!("{kind} at {place:?}: {count}, e.g. {example}")
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "redacted without an explanation:\n{}",
        unexplained.join("\n")
    );
    assert!(rate <= 1.0, "{rate:.2}% of the ordinary corpus redacted");
    for (kind, place, why) in EXPLAINED {
        println!("  {kind} at {place:?}: {why}");
        assert!(
            seen.contains(&(*kind, *place)),
            "{kind} at {place:?} is explained but no longer redacted"
        );
    }
}

#[test]
fn the_corpus_is_what_the_rule_set_describes() {
    let rules = corpus::rules();
    // Every rule with a regular expression of the pinned set (one of its
    // 222 rules is matched by file name only).
    assert_eq!(rules.len(), 221);
    // Each rule's samples differ, but for the one rule whose expression
    // is a fixed text (a prefix the rule set reports alone).
    let fixed: Vec<&str> = rules
        .iter()
        .filter(|rule| rule.samples.iter().collect::<BTreeSet<_>>().len() < rule.samples.len())
        .map(|rule| rule.id.as_str())
        .collect();
    assert_eq!(fixed, ["aws-amazon-bedrock-api-key-short-lived"]);
    // Both kinds of rule are there, and names for each keyword-assigned
    // one are recognised as naming a keyword.
    let assigned: Vec<&Rule> = rules
        .iter()
        .filter(|rule| rule.kind == Kind::KeywordAssigned)
        .collect();
    assert_eq!(assigned.len(), 101);
    for rule in assigned {
        let name = format!("{}_VALUE", rule.name_keyword.to_uppercase());
        assert!(
            tool_core::redact::is_keyword_name(&name) || tool_core::redact::is_secret_name(&name),
            "{}: `{name}` names no keyword",
            rule.id
        );
    }
}
