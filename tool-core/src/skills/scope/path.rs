//! Path scopes: relative paths, matched segment by segment.
//!
//! A value is admitted only when it is a clean relative path: not empty, no
//! leading `/` or `~`, no drive letter (`C:`), no backslash, no NUL or other
//! control character, no empty, `.` or `..` segment. So an admitted value
//! never climbs out of the pattern's literal leading folder, and the tool
//! receives exactly the value that was checked (nothing is normalised).
//! In a pattern, `*` matches within one segment and a `**` segment matches
//! any number of segments, none included.

/// One segment of a compiled pattern.
enum Segment {
    /// `**`: zero or more whole segments.
    Any,
    /// Text with `*` wildcards inside the segment.
    Glob(Vec<char>),
}

/// A compiled path pattern.
pub(super) struct Pattern(Vec<Segment>);

impl Pattern {
    pub(super) fn compile(text: &str) -> Result<Pattern, &'static str> {
        let segments = clean_segments(text)?;
        Ok(Pattern(
            segments
                .into_iter()
                .map(|s| match s {
                    "**" => Segment::Any,
                    s => Segment::Glob(s.chars().collect()),
                })
                .collect(),
        ))
    }

    pub(super) fn admits(&self, value: &str) -> bool {
        match clean_segments(value) {
            Ok(segments) => matches(&self.0, &segments),
            Err(_) => false,
        }
    }
}

/// The segments of a clean relative path, or why it is not one.
fn clean_segments(text: &str) -> Result<Vec<&str>, &'static str> {
    if text.is_empty() {
        return Err("a path is empty");
    }
    if text.starts_with('/') || text.starts_with('~') {
        return Err("a path must be relative to the tool's root");
    }
    let bytes = text.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err("a path must not start with a drive letter");
    }
    if text.chars().any(|c| c == '\\' || c.is_control()) {
        return Err("a path must not hold a backslash or a control character");
    }
    let segments: Vec<&str> = text.split('/').collect();
    if segments
        .iter()
        .any(|s| s.is_empty() || *s == "." || *s == "..")
    {
        return Err("a path must not hold an empty, `.` or `..` segment");
    }
    Ok(segments)
}

/// Segment matching with `**`; a table over (pattern, value) positions, so
/// any number of `**` stays polynomial.
fn matches(pattern: &[Segment], value: &[&str]) -> bool {
    let (p, v) = (pattern.len(), value.len());
    // reach[i][j]: pattern[..i] matches value[..j].
    let mut reach = vec![vec![false; v + 1]; p + 1];
    reach[0][0] = true;
    for i in 1..=p {
        for j in 0..=v {
            reach[i][j] = match &pattern[i - 1] {
                Segment::Any => reach[i - 1][j] || (j > 0 && reach[i][j - 1]),
                Segment::Glob(glob) => {
                    j > 0 && reach[i - 1][j - 1] && super::wildcard(glob, value[j - 1])
                }
            };
        }
    }
    reach[p][v]
}
