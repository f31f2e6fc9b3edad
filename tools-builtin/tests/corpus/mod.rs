//! The corpora `secret_corpus.rs` runs through the tools: samples of every
//! rule of gitleaks' default rule set (`gitleaks.toml`, pinned), generated
//! here at test time from each rule's regular expression, and ordinary
//! values (`ordinary.rs`); each placed in the contexts secrets are written
//! in.
//!
//! Nothing secret-looking is committed: the rule file holds regular
//! expressions, and the samples exist only while the test runs.

pub mod ordinary;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, ClassUnicode, Hir, HirKind};
use serde::Deserialize;

/// Samples generated per rule.
pub const SAMPLES_PER_RULE: usize = 3;

#[derive(Deserialize)]
struct RuleSet {
    rules: Vec<RuleData>,
}

#[derive(Deserialize)]
struct RuleData {
    id: String,
    regex: Option<String>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(rename = "secretGroup")]
    secret_group: Option<u32>,
}

/// The beginnings of gitleaks' "semi-generic" rules: a keyword in a name,
/// an assignment, then a value whose shape alone says little.
const KEYWORD_ASSIGNED: [&str; 2] = [
    r"(?i)[\w.-]{0,50}?(?:",
    r"[\w.-]{0,50}?(?i:[\w.-]{0,50}?(?:",
];

/// How a rule recognises a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A value assigned to a name holding the keyword (`adafruit = …`).
    KeywordAssigned,
    /// The value's own shape (a published prefix, a PEM block, a URL).
    Shaped,
}

/// One rule and the samples generated from it.
pub struct Rule {
    pub id: String,
    /// The provider, the first part of the rule's id (`github` for
    /// `github-pat`): the family rates are reported by.
    pub family: String,
    pub kind: Kind,
    /// The word a name holding one of these secrets is made of: the name
    /// a keyword-assigned rule looks for, else the rule's first keyword
    /// that is a word, else its family (whose keywords are then pieces of
    /// the value, `ghp_`).
    pub name_keyword: String,
    /// Every keyword of the rule, lower case.
    pub keywords: Vec<String>,
    /// The rule's regular expression, whose fixed text (`_gitlab_session=`)
    /// a tool may show.
    pub regex: String,
    pub samples: Vec<String>,
}

impl Rule {
    /// Whether a name made of the rule's name word names one of its
    /// keywords for `sample`: always for a keyword-assigned rule; for a
    /// shaped rule when the word is one of its keywords and the sample is
    /// one word (a value with spaces is found by the rule in its own
    /// syntax only: a `curl` command line, a NuGet or Kubernetes file).
    pub fn names_keyword(&self, sample: &str) -> bool {
        match self.kind {
            Kind::KeywordAssigned => true,
            Kind::Shaped => {
                self.keywords.contains(&self.name_keyword) && !sample.contains(char::is_whitespace)
            }
        }
    }

    /// Whether `sample` holds one of a shaped rule's keywords of three or
    /// more characters (`ghp_`; `sk` and `ey` start too many words to
    /// count). A keyword-assigned rule's keywords in a value (`live_`,
    /// `nrjs-`) only pick candidates; the rule needs the name.
    pub fn in_value(&self, sample: &str) -> bool {
        let sample = sample.to_lowercase();
        self.kind == Kind::Shaped
            && self
                .keywords
                .iter()
                .any(|keyword| keyword.len() >= 3 && sample.contains(keyword.as_str()))
    }
}

/// Every rule of the pinned rule set that has a regular expression, with
/// its samples. Deterministic: the same samples on every run.
pub fn rules() -> Vec<Rule> {
    let text = include_str!("gitleaks.toml");
    let set: RuleSet = toml::from_str(text).expect("the pinned rule set parses");
    set.rules
        .into_iter()
        .enumerate()
        .filter_map(|(index, rule)| {
            let regex = rule.regex.as_deref()?;
            let family = rule.id.split('-').next().unwrap_or(&rule.id).to_owned();
            let keywords: Vec<String> = rule.keywords.iter().map(|k| k.to_lowercase()).collect();
            let plain = keywords
                .iter()
                .find(|k| k.len() >= 3 && k.bytes().all(|b| b.is_ascii_lowercase()));
            let assigned = KEYWORD_ASSIGNED
                .iter()
                .find_map(|start| regex.strip_prefix(start));
            let (kind, name_keyword) = match (assigned, plain) {
                (Some(rest), _) => (Kind::KeywordAssigned, name_in(rest)),
                (None, Some(plain)) => (Kind::Shaped, plain.clone()),
                (None, None) => (Kind::Shaped, family.clone()),
            };
            let hir = secret_hir(regex, rule.secret_group)
                .unwrap_or_else(|| panic!("{}: no secret group", rule.id));
            let samples = (0..SAMPLES_PER_RULE)
                .map(|sample| generate(&rule.id, &hir, rule.entropy, index, sample))
                .collect();
            Some(Rule {
                id: rule.id,
                family,
                kind,
                name_keyword,
                keywords,
                regex: regex.to_owned(),
                samples,
            })
        })
        .collect()
}

/// The name a keyword-assigned rule looks for, from the rest of its
/// regular expression after the opening: its first alternative, letters
/// only (`(?-i:[Ss]umo|SUMO)` → `sumo`, `linked[_-]?in` → `linkedin`).
fn name_in(rest: &str) -> String {
    let rest = rest.strip_prefix("(?-i:").unwrap_or(rest);
    let end = rest.find(['|', ')', '(']).unwrap_or(rest.len());
    let mut name = String::new();
    let mut chars = rest[..end].chars().peekable();
    while let Some(c) = chars.next() {
        if c == '[' {
            // `[Ss]`: the letter; `[_-]`: nothing.
            let class: String = chars.by_ref().take_while(|c| *c != ']').collect();
            if let Some(letter) = class.chars().find(char::is_ascii_alphabetic) {
                name.push(letter.to_ascii_lowercase());
            }
        } else if c.is_ascii_alphabetic() {
            name.push(c.to_ascii_lowercase());
        }
    }
    name
}

/// The part of `regex` a rule calls the secret: its `secret_group`, its
/// first group (unless that is repeated), or the whole match; anchors and word boundaries dropped,
/// every class narrowed to printable ASCII.
fn secret_hir(regex: &str, group: Option<u32>) -> Option<Hir> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(regex)
        .unwrap_or_else(|error| panic!("{regex}: {error}"));
    let secret = match group {
        Some(0) => Some(hir),
        Some(index) => capture(&hir, index),
        None => capture(&hir, 1).or(Some(hir)),
    }?;
    Some(printable(&secret))
}

fn capture(hir: &Hir, index: u32) -> Option<Hir> {
    match hir.kind() {
        // A named group (`(?P<alg>…)`) tells which variant matched; the
        // secret is the whole match.
        HirKind::Capture(capture) if capture.name.is_some() => None,
        HirKind::Capture(capture) if capture.index == index => Some((*capture.sub).clone()),
        HirKind::Capture(capture) => self::capture(&capture.sub, index),
        // A group repeated (`([a-z0-9]{4}-){3}`) shapes the value, it is
        // not the secret: the whole match is.
        HirKind::Repetition(_) => None,
        HirKind::Concat(items) | HirKind::Alternation(items) => {
            items.iter().find_map(|item| self::capture(item, index))
        }
        _ => None,
    }
}

/// What a sample may hold: printable ASCII without quotes or backslashes,
/// so a sample reads the same inside JSON and YAML strings.
fn allowed() -> ClassUnicode {
    let mut class = ClassUnicode::new([regex_syntax::hir::ClassUnicodeRange::new(' ', '~')]);
    for c in ['"', '\'', '\\', '`'] {
        class.difference(&ClassUnicode::new([
            regex_syntax::hir::ClassUnicodeRange::new(c, c),
        ]));
    }
    class
}

fn printable(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Look(_) | HirKind::Empty => Hir::empty(),
        HirKind::Literal(literal) => {
            let kept: Vec<u8> = literal
                .0
                .iter()
                .copied()
                .filter(|b| !matches!(b, b'"' | b'\'' | b'\\' | b'`'))
                .collect();
            Hir::literal(kept)
        }
        HirKind::Class(Class::Unicode(class)) => {
            let mut narrowed = class.clone();
            narrowed.intersect(&allowed());
            if narrowed.ranges().is_empty() {
                // Only quotes or backslashes: left out of the sample.
                return Hir::empty();
            }
            Hir::class(Class::Unicode(narrowed))
        }
        HirKind::Class(Class::Bytes(class)) => {
            let mut narrowed = class.clone();
            narrowed.intersect(&ClassBytes::new([ClassBytesRange::new(b'0', b'z')]));
            if narrowed.ranges().is_empty() {
                return Hir::empty();
            }
            Hir::class(Class::Bytes(narrowed))
        }
        HirKind::Repetition(repetition) => {
            let mut repetition = repetition.clone();
            // Unbounded repetitions (`{250,}`, `+`) stop a little past
            // their minimum.
            repetition.max = Some(repetition.max.unwrap_or(repetition.min + 24));
            repetition.sub = Box::new(printable(&repetition.sub));
            Hir::repetition(repetition)
        }
        HirKind::Capture(capture) => printable(&capture.sub),
        HirKind::Concat(items) => Hir::concat(items.iter().map(printable).collect()),
        HirKind::Alternation(items) => Hir::alternation(items.iter().map(printable).collect()),
    }
}

/// One sample of `hir`, seeded by the rule's and the sample's index, with
/// at least the rule's entropy (as gitleaks computes it: Shannon, bits per
/// byte); a draw below it is drawn again.
fn generate(id: &str, hir: &Hir, entropy: Option<f64>, rule: usize, sample: usize) -> String {
    let strategy = proptest::string::string_regex_parsed(hir)
        .unwrap_or_else(|error| panic!("{id}: cannot generate: {error}"));
    for attempt in 0..100u8 {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&(rule as u64).to_le_bytes());
        seed[8..16].copy_from_slice(&(sample as u64).to_le_bytes());
        seed[16] = attempt;
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed);
        let mut runner = TestRunner::new_with_rng(Config::default(), rng);
        let value = strategy
            .new_tree(&mut runner)
            .expect("a regex strategy always draws")
            .current();
        let value = value.trim().to_owned();
        // A draw of a rule's optional or template parts (`""`, `{{ x }}`)
        // holds no secret to find: drawn again.
        let alnum = value.bytes().filter(u8::is_ascii_alphanumeric).count();
        if alnum >= 8 && shannon(&value) >= entropy.unwrap_or(0.0) {
            return value;
        }
    }
    panic!("{id}: no sample of the rule's entropy in 100 draws")
}

/// Shannon entropy in bits per byte.
pub fn shannon(text: &str) -> f64 {
    let mut counts = [0usize; 256];
    for b in text.bytes() {
        counts[b as usize] += 1;
    }
    let len = text.len() as f64;
    counts
        .iter()
        .filter(|count| **count > 0)
        .map(|count| {
            let p = *count as f64 / len;
            -p * p.log2()
        })
        .sum()
}

/// Where a value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    /// `NAME=value`: an environment variable, a `.env` line, a record's
    /// field called NAME.
    Assignment,
    /// `{"name": "value"}`.
    Json,
    /// `name: value`.
    Yaml,
    /// `https://name:value@host/`.
    UrlUserInfo,
    /// `https://host/word/value` (the ordinary corpus' URL: a value in a
    /// URL's user-info is a password by where it is).
    UrlPath,
    /// A log line that mentions the value.
    LogLine,
}

/// The places of a secret.
pub const PLACES: [Place; 5] = [
    Place::Assignment,
    Place::Json,
    Place::Yaml,
    Place::UrlUserInfo,
    Place::LogLine,
];

/// One value written somewhere: the name it is given (when the place has
/// one) and the line that holds it.
pub struct Written {
    pub place: Place,
    /// Whether a keyword of the value's rule is written there: in the
    /// name, as the URL's user, or in the value itself (`ghp_`).
    pub keyword: bool,
    pub name: String,
    pub line: String,
}

/// `value` written at `place`, under a name made of `word` (a secret
/// keyword, or an ordinary word), numbered `n` so names stay unique;
/// `keyword`: whether a keyword of the value's rule is written there.
pub fn write(place: Place, word: &str, keyword: bool, value: &str, n: usize) -> Written {
    let snake = format!("{}_value_{n}", word.replace(['-', '.', ' '], "_"));
    let (name, line) = match place {
        Place::Assignment => {
            let name = snake.to_uppercase();
            let line = format!("{name}={value}");
            (name, line)
        }
        Place::Json => (snake.clone(), format!(r#"{{"{snake}": "{value}"}}"#)),
        Place::Yaml => (snake.clone(), format!("{snake}: {value}")),
        Place::UrlUserInfo => (
            String::from("service_url"),
            format!("https://{word}:{value}@service.example.net/v1/items"),
        ),
        Place::UrlPath => (
            String::from("link"),
            format!("https://service.example.net/{word}/{value}"),
        ),
        Place::LogLine => (
            String::from("message"),
            format!(
                "2026-03-01T12:00:{:02}Z INFO request {n} sent with {value}",
                n % 60
            ),
        ),
    };
    Written {
        place,
        keyword,
        name,
        line,
    }
}

/// Whether `output` shows any part of `value`: the value, or any 12
/// characters of it in a row that are not fixed text of its rule's
/// regular expression `fixed` (`_gitlab_session=`, `AGE-SECRET-KEY-1`).
pub fn shows(output: &str, value: &str, fixed: &str) -> bool {
    let bytes = value.as_bytes();
    let window = bytes.len().min(12);
    output.contains(value)
        || bytes
            .windows(window)
            .filter_map(|piece| std::str::from_utf8(piece).ok())
            .filter(|piece| piece.trim().len() == window && !piece.contains(' '))
            .filter(|piece| !fixed.contains(piece))
            .any(|piece| output.contains(piece))
}
