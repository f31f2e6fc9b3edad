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
pub(super) struct Pattern {
    segments: Vec<Segment>,
    /// For the commonest shape, literal segments and one `**` last
    /// (`src/**`): the literal part, `src`. Such a pattern admits a clean
    /// value that is this folder or lies under it, which a prefix test
    /// answers without the segment walk.
    folder: Option<String>,
}

impl Pattern {
    pub(super) fn compile(text: &str) -> Result<Pattern, &'static str> {
        let segments: Vec<Segment> = clean_segments(text)?
            .into_iter()
            .map(|s| match s {
                "**" => Segment::Any,
                s => Segment::Glob(s.chars().collect()),
            })
            .collect();
        let folder = match segments.split_last() {
            Some((Segment::Any, literal))
                if !literal.is_empty()
                    && literal
                        .iter()
                        .all(|s| matches!(s, Segment::Glob(g) if !g.contains(&'*'))) =>
            {
                text.strip_suffix("/**").map(str::to_owned)
            }
            _ => None,
        };
        Ok(Pattern { segments, folder })
    }

    pub(super) fn admits(&self, value: &str) -> bool {
        if check_clean(value).is_err() {
            return false;
        }
        match &self.folder {
            Some(folder) => value
                .strip_prefix(folder.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/')),
            None => matches(&self.segments, value),
        }
    }
}

/// The segments of a clean relative path, or why it is not one.
fn clean_segments(text: &str) -> Result<Vec<&str>, &'static str> {
    check_clean(text)?;
    Ok(text.split('/').collect())
}

/// Whether `text` is a clean relative path, without collecting anything.
fn check_clean(text: &str) -> Result<(), &'static str> {
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
    // One pass over the bytes, by a table of byte classes (a gated call of
    // a scoped tool runs this); a bad character is reported before a bad
    // segment, wherever each is.
    let mut bad_segment = false;
    let mut segment_start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        match BYTE_CLASS[usize::from(byte)] {
            PLAIN => {}
            SLASH => {
                bad_segment |= is_bad_segment(&bytes[segment_start..i]);
                segment_start = i + 1;
            }
            // 0xC2 leads U+0080–U+00BF; U+0080–U+009F are control
            // characters (0xC2 is never a continuation byte).
            C2 if bytes.get(i + 1).is_none_or(|next| *next > 0x9f) => {}
            _ => return Err("a path must not hold a backslash or a control character"),
        }
    }
    if bad_segment || is_bad_segment(&bytes[segment_start..]) {
        return Err("a path must not hold an empty, `.` or `..` segment");
    }
    Ok(())
}

const PLAIN: u8 = 0;
const SLASH: u8 = 1;
const BAD: u8 = 2;
const C2: u8 = 3;

/// The class of each byte of a path: `char::is_control` characters
/// (U+0000–U+001F, U+007F) and the backslash are bad; 0xC2 needs the next
/// byte to tell.
const BYTE_CLASS: [u8; 256] = {
    let mut table = [PLAIN; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = BAD;
        byte += 1;
    }
    table[0x7f] = BAD;
    table[b'\\' as usize] = BAD;
    table[b'/' as usize] = SLASH;
    table[0xc2] = C2;
    table
};

fn is_bad_segment(segment: &[u8]) -> bool {
    matches!(segment, b"" | b"." | b"..")
}

/// Segment matching with `**`, over the segments of a clean `value` in
/// place: the wildcard walk of [`super::wildcard`] one level up, with `**`
/// as the star and a glob segment as the character. Backtracking only to
/// the last `**` is enough, as for `*`, because every other pattern segment
/// takes exactly one value segment; so any number of `**` stays linear in
/// the pattern times the value, and nothing is allocated.
fn matches(pattern: &[Segment], value: &str) -> bool {
    // The value segments not yet matched, `None` once all are.
    let mut rest = Some(value);
    let mut pi = 0;
    // The last `**` seen, and the segments left when it was tried.
    let mut star: Option<(usize, Option<&str>)> = None;
    while let Some((segment, after)) = rest.map(first_segment) {
        match pattern.get(pi) {
            Some(Segment::Any) => {
                star = Some((pi, rest));
                pi += 1;
            }
            Some(Segment::Glob(glob)) if super::wildcard(glob, segment) => {
                pi += 1;
                rest = after;
            }
            _ => match star {
                // Let that `**` take one more segment and retry.
                Some((sp, Some(tried))) => {
                    pi = sp + 1;
                    rest = first_segment(tried).1;
                    star = Some((sp, rest));
                }
                _ => return false,
            },
        }
    }
    pattern[pi..].iter().all(|s| matches!(s, Segment::Any))
}

/// The first segment of a path, and the segments after it, if any.
fn first_segment(path: &str) -> (&str, Option<&str>) {
    // A byte scan: segments are short, and `split_once` sets up a searcher.
    match path.bytes().position(|byte| byte == b'/') {
        Some(slash) => (&path[..slash], Some(&path[slash + 1..])),
        None => (path, None),
    }
}
