//! The `allowed-tools` values of the skills corpus, as the tokenizer bench
//! (`tokenizer.rs`) and the instruction-count driver (`instructions.rs`)
//! read them.

use std::fs;
use std::path::{Path, PathBuf};

/// The corpus: `$SKILLS_CORPUS`, or the shared corpus beside a checkout of
/// the repository.
fn corpus() -> PathBuf {
    std::env::var_os("SKILLS_CORPUS").map_or_else(
        || {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../shared/corpus/skills"
            ))
        },
        PathBuf::from,
    )
}

/// The one-line tokenizer: a name with a parenthesised scope, or a run of
/// non-space characters.
pub const ONE_LINE: &str = r"[^\s()]+\([^)]*\)|\S+";

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

/// The raw `allowed-tools` value of every `SKILL.md` under the corpus.
pub fn inputs() -> Vec<String> {
    let corpus = corpus();
    let mut files = Vec::new();
    skill_files(&corpus, &mut files);
    files.sort();
    let inputs: Vec<String> = files
        .iter()
        .filter_map(|f| fs::read_to_string(f).ok())
        .filter_map(|text| raw_allowed_tools(&text.replace("\r\n", "\n")))
        .collect();
    assert!(
        !inputs.is_empty(),
        "no `allowed-tools` found under {}",
        corpus.display()
    );
    inputs
}
