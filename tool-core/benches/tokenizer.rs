//! The `allowed-tools` tokenizer against the one-line regex most readers use
//! instead, over every `allowed-tools` value of the shared corpus.
//!
//! The regex only finds the spans of tokens; `tokenize` also checks each
//! token, unescapes scopes, folds duplicates and keeps positions. The input
//! is the raw text of each field as written in its file (see
//! `raw_allowed_tools`); BENCHMARKS.md, "Skills: tokenizer", has the figures.

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use regex::Regex;
use tool_core::skills::tokenize;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/skills");

/// The one-line tokenizer: a name with a parenthesised scope, or a run of
/// non-space characters.
const ONE_LINE: &str = r"[^\s()]+\([^)]*\)|\S+";

fn skill_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            skill_files(&path, out);
        } else if entry.file_name() == "SKILL.md" {
            out.push(path);
        }
    }
}

/// The `allowed-tools` value of one front matter as the string a reader
/// hands its tokenizer: the rest of the line for a plain or quoted value
/// (quotes dropped, `\t` `\n` `\\` `\"` undone in double quotes); the
/// following indented lines for a block (`|` keeps line breaks, `>` folds
/// them to spaces); and for a list, flow or block, its items joined with
/// spaces. A mapping or a missing field gives nothing.
fn raw_allowed_tools(text: &str) -> Option<String> {
    let front = text.strip_prefix("---\n")?;
    let front = &front[..front.find("\n---")?];
    let mut lines = front.lines();
    let value = lines
        .by_ref()
        .find_map(|l| l.strip_prefix("allowed-tools:"))?
        .trim();
    let following: Vec<&str> = lines
        .take_while(|l| l.starts_with([' ', '\t', '-']))
        .map(str::trim)
        .collect();
    let unquote = |item: &str| -> String {
        if let Some(inner) = item.strip_prefix('"').and_then(|i| i.strip_suffix('"')) {
            inner
                .replace("\\t", "\t")
                .replace("\\n", "\n")
                .replace("\\\"", "\"")
                .replace("\\\\", "\\")
        } else if let Some(inner) = item.strip_prefix('\'').and_then(|i| i.strip_suffix('\'')) {
            inner.replace("''", "'")
        } else {
            item.to_owned()
        }
    };
    let raw = match value {
        "" if following.iter().all(|l| l.starts_with('-')) => following
            .iter()
            .map(|l| unquote(l.trim_start_matches('-').trim()))
            .collect::<Vec<_>>()
            .join(" "),
        // A mapping: no reader tokenizes it.
        "" => return None,
        "|" | "|-" | "|+" => following.join("\n"),
        ">" | ">-" | ">+" => following.join(" "),
        flow if flow.starts_with('[') => flow
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .map(|item| unquote(item.trim()))
            .collect::<Vec<_>>()
            .join(" "),
        plain => unquote(plain),
    };
    Some(raw).filter(|r| !r.trim().is_empty())
}

fn inputs() -> Vec<String> {
    let mut files = Vec::new();
    skill_files(Path::new(CORPUS), &mut files);
    files.sort();
    let inputs: Vec<String> = files
        .iter()
        .filter_map(|f| fs::read_to_string(f).ok())
        .filter_map(|text| raw_allowed_tools(&text.replace("\r\n", "\n")))
        .collect();
    assert!(
        !inputs.is_empty(),
        "no `allowed-tools` found under {CORPUS}"
    );
    inputs
}

fn bench(c: &mut Criterion) {
    let inputs = inputs();
    let bytes: usize = inputs.iter().map(String::len).sum();
    eprintln!(
        "tokenizer bench: {} `allowed-tools` values, {bytes} bytes",
        inputs.len()
    );
    let one_line = Regex::new(ONE_LINE).expect("valid regex");

    let mut group = c.benchmark_group("allowed_tools_corpus");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("tokenize", |b| {
        b.iter(|| {
            for input in &inputs {
                black_box(tokenize(black_box(input)));
            }
        });
    });
    group.bench_function("one_line_regex", |b| {
        b.iter(|| {
            for input in &inputs {
                let tokens: Vec<&str> = one_line
                    .find_iter(black_box(input))
                    .map(|m| m.as_str())
                    .collect();
                black_box(tokens);
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
