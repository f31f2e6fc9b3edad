//! The walk the generated checks drive: each JSON Schema keyword's check,
//! with `jsonschema`'s messages, and the size bound counted on the way.
//!
//! A walk either decides (stops at the first refusal; what a call does) or
//! reports (goes on, and records every problem with its JSON path, in the
//! order `jsonschema` reports them: within a schema node by keyword
//! priority, `type` first, then bounds, lengths, `required`, `pattern`,
//! `format`, `uniqueItems`, then the members). A branch of `anyOf` or
//! `oneOf` is decided quietly: only the branch's verdict is reported.

use serde_json::{Map, Value};

use super::number::{Exact, is_integer};
use super::{Budget, Format, Keywords, Limit};
use crate::ArgumentProblem;

/// A model-supplied value is echoed in messages; keep them readable.
const MESSAGE_MAX: usize = 300;

/// Records a refusal and, unless the walk reports, ends the check.
macro_rules! refuse {
    ($walk:expr, $ok:ident, $($message:tt)+) => {{
        $walk.refuse(|| format!($($message)+));
        $ok = false;
        if !$walk.reports() {
            return false;
        }
    }};
}

/// A set of JSON types, named in `jsonschema`'s order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Types(u8);

impl Types {
    pub(crate) const NULL: Types = Types(1);
    pub(crate) const BOOLEAN: Types = Types(1 << 1);
    pub(crate) const INTEGER: Types = Types(1 << 2);
    pub(crate) const NUMBER: Types = Types(1 << 3);
    pub(crate) const STRING: Types = Types(1 << 4);
    pub(crate) const ARRAY: Types = Types(1 << 5);
    pub(crate) const OBJECT: Types = Types(1 << 6);
    const NAMES: [&'static str; 7] = [
        "null", "boolean", "integer", "number", "string", "array", "object",
    ];

    fn with_null(self, null: bool) -> Types {
        if null { Types(self.0 | 1) } else { self }
    }

    fn admits(self, value: &Value) -> bool {
        let bit = match value {
            Value::Null => Types::NULL,
            Value::Bool(_) => Types::BOOLEAN,
            Value::String(_) => Types::STRING,
            Value::Array(_) => Types::ARRAY,
            Value::Object(_) => Types::OBJECT,
            Value::Number(number) => {
                return self.0 & Types::NUMBER.0 != 0
                    || (self.0 & Types::INTEGER.0 != 0 && is_integer(number));
            }
        };
        self.0 & bit.0 != 0
    }

    /// `"integer"`, or `types "integer", "null"`, as in the message.
    fn describe(self) -> String {
        let names: Vec<String> = Types::NAMES
            .iter()
            .enumerate()
            .filter(|(bit, _)| self.0 & (1 << bit) != 0)
            .map(|(_, name)| format!("\"{name}\""))
            .collect();
        match names.as_slice() {
            [one] => format!("type {one}"),
            _ => format!("types {}", names.join(", ")),
        }
    }
}

/// What a derived struct's walk learned of one member.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum Member {
    /// A declared field: whether it passed, and whether it is required.
    Checked { ok: bool, required: bool },
    /// Not a declared field.
    Unknown,
}

impl Member {
    #[inline]
    pub fn checked(ok: bool, required: bool) -> Member {
        Member::Checked { ok, required }
    }
}

/// One step of a JSON path.
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

struct Report<'v> {
    path: Vec<Step<'v>>,
    problems: Vec<ArgumentProblem>,
    /// Above zero inside a branch of `anyOf`/`oneOf`: decide only.
    quiet: u32,
}

/// A walk of one call's arguments. Generated code drives it; a host never
/// builds one.
#[doc(hidden)]
pub struct Walk<'v> {
    budget: Budget,
    /// Boxed: a deciding walk, every call's, stays two words and a flag.
    report: Option<Box<Report<'v>>>,
}

impl<'v> Walk<'v> {
    /// A walk that decides, counting the arguments' size against `limit`.
    #[cfg(feature = "host")]
    pub(crate) fn deciding(limit: usize) -> Self {
        Walk {
            budget: Budget::new(limit),
            report: None,
        }
    }

    /// A walk that records every problem.
    pub(crate) fn reporting() -> Self {
        Walk {
            budget: Budget::new(usize::MAX),
            report: Some(Box::new(Report {
                path: Vec::new(),
                problems: Vec::new(),
                quiet: 0,
            })),
        }
    }

    pub(crate) fn into_problems(self) -> Vec<ArgumentProblem> {
        self.report
            .map(|report| report.problems)
            .unwrap_or_default()
    }

    #[cfg(feature = "host")]
    pub(crate) fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Whether a refusal goes on to find the other problems.
    #[inline]
    pub(crate) fn reports(&self) -> bool {
        matches!(&self.report, Some(report) if report.quiet == 0)
    }

    /// Records a problem at the current path, when reporting.
    #[cold]
    #[inline(never)]
    pub(crate) fn refuse(&mut self, message: impl FnOnce() -> String) {
        let Some(report) = &mut self.report else {
            return;
        };
        if report.quiet > 0 {
            return;
        }
        let mut path = String::new();
        for step in &report.path {
            path.push('/');
            match step {
                Step::Key(key) => path.push_str(&key.replace('~', "~0").replace('/', "~1")),
                Step::Index(index) => path.push_str(&index.to_string()),
            }
        }
        report.problems.push(ArgumentProblem {
            path,
            message: shorten(message()),
        });
    }

    #[inline]
    fn enter(&mut self, step: Step<'v>) {
        if let Some(report) = &mut self.report {
            report.path.push(step);
        }
    }

    #[inline]
    fn leave(&mut self) {
        if let Some(report) = &mut self.report {
            report.path.pop();
        }
    }

    /// Runs `check` deciding only, as a branch of `anyOf` or `oneOf`.
    fn quietly(&mut self, check: impl FnOnce(&mut Self) -> bool) -> bool {
        if let Some(report) = &mut self.report {
            report.quiet += 1;
        }
        let ok = check(self);
        if let Some(report) = &mut self.report {
            report.quiet -= 1;
        }
        ok
    }

    /// `type`; refuses with its message when `value` is none of `types`.
    #[inline]
    fn typed(&mut self, value: &Value, types: Types) -> bool {
        if types.admits(value) {
            return true;
        }
        self.refuse(|| format!("{value} is not of {}", types.describe()));
        false
    }

    /// A value of a type schemars writes `true` for (`serde_json::Value`).
    pub(crate) fn anything(&mut self, value: &Value) -> bool {
        self.budget.whole(value)
    }

    /// `null` alone (`()`).
    pub(crate) fn null(&mut self, value: &Value, keywords: &Keywords) -> bool {
        self.typed(value, Types::NULL.with_null(keywords.null)) && self.budget.literal(value)
    }

    pub(crate) fn boolean(&mut self, value: &Value, keywords: &Keywords) -> bool {
        self.typed(value, Types::BOOLEAN.with_null(keywords.null)) && self.budget.literal(value)
    }

    /// A string, with the field's lengths (or the type's own), pattern and
    /// format.
    pub(crate) fn string(
        &mut self,
        value: &Value,
        keywords: &Keywords,
        own_lengths: (Option<u64>, Option<u64>),
        own_format: Option<Format>,
    ) -> bool {
        let format = keywords.format.or(own_format);
        if self.report.is_none()
            && let Value::String(text) = value
            && keywords.min_length.is_none()
            && keywords.max_length.is_none()
            && own_lengths == (None, None)
            && keywords.pattern.is_none()
            && format.is_none()
        {
            // Deciding, a string with nothing to check but its type.
            return self.budget.string(text);
        }
        let mut ok = true;
        if !self.typed(value, Types::STRING.with_null(keywords.null)) {
            ok = false;
            if !self.reports() {
                return false;
            }
        }
        let Value::String(text) = value else {
            return ok && self.budget.literal(value);
        };
        if !self.budget.string(text) {
            return false;
        }
        let least = keywords.min_length.or(own_lengths.0);
        let most = keywords.max_length.or(own_lengths.1);
        if least.is_some() || most.is_some() {
            let length = code_points(text);
            if let Some(least) = least.filter(|&least| length < least) {
                refuse!(
                    self,
                    ok,
                    "{value} is shorter than {least} character{}",
                    plural(least)
                );
            }
            if let Some(most) = most.filter(|&most| length > most) {
                refuse!(
                    self,
                    ok,
                    "{value} is longer than {most} character{}",
                    plural(most)
                );
            }
        }
        if let Some(pattern) = keywords.pattern
            && !pattern.is_match(text)
        {
            refuse!(self, ok, "{value} does not match \"{}\"", pattern.source());
        }
        if let Some(format) = format
            && !format.admits(text)
        {
            refuse!(self, ok, "{value} is not a \"{}\"", format.name());
        }
        ok
    }

    /// A number of `types` (`integer` or `number`), within the field's
    /// bounds or else the type's own.
    pub(crate) fn number(
        &mut self,
        value: &Value,
        keywords: &Keywords,
        types: Types,
        own_bounds: (Option<Limit>, Option<Limit>),
    ) -> bool {
        if self.report.is_none() {
            return self.decide_number(value, keywords, types, own_bounds);
        }
        let mut ok = true;
        if !self.typed(value, types.with_null(keywords.null)) {
            ok = false;
            if !self.reports() {
                return false;
            }
        }
        let Value::Number(number) = value else {
            return ok && self.budget.literal(value);
        };
        if !self.budget.number(number) {
            return false;
        }
        let Some(exact) = Exact::of(number) else {
            // Only with serde_json's `arbitrary_precision`; no bound can
            // be compared, so refuse.
            refuse!(self, ok, "{value} is not a number this host can compare");
            return ok;
        };
        if let Some(least) = keywords
            .minimum
            .or(own_bounds.0)
            .filter(|l| l.exceeds(exact))
        {
            refuse!(self, ok, "{value} is less than the minimum of {least}");
        }
        if let Some(most) = keywords
            .maximum
            .or(own_bounds.1)
            .filter(|m| m.undercuts(exact))
        {
            refuse!(self, ok, "{value} is greater than the maximum of {most}");
        }
        ok
    }

    /// [`number`](Self::number) when deciding: the common case (a number
    /// of the type, within bounds) reading the number once.
    #[inline]
    fn decide_number(
        &mut self,
        value: &Value,
        keywords: &Keywords,
        types: Types,
        (least, most): (Option<Limit>, Option<Limit>),
    ) -> bool {
        let Value::Number(number) = value else {
            return keywords.null && value.is_null() && self.budget.literal(value);
        };
        let exact = if let Some(unsigned) = number.as_u64() {
            Exact::Integer(i128::from(unsigned))
        } else if let Some(signed) = number.as_i64() {
            Exact::Integer(i128::from(signed))
        } else {
            match number.as_f64() {
                Some(float) if float.is_finite() => Exact::Float(float),
                _ => return false,
            }
        };
        let counted = match exact {
            Exact::Integer(_) => self.budget.take(20),
            Exact::Float(float) => {
                if types == Types::INTEGER && float.fract() != 0.0 {
                    return false;
                }
                self.budget.number(number)
            }
        };
        counted
            && !keywords.minimum.or(least).is_some_and(|l| l.exceeds(exact))
            && !keywords
                .maximum
                .or(most)
                .is_some_and(|m| m.undercuts(exact))
    }

    /// An array whose items each pass `item`, with the field's counts (or
    /// `own_counts`) and, for a set, `uniqueItems`.
    pub(crate) fn array(
        &mut self,
        value: &'v Value,
        keywords: &Keywords,
        own_counts: (Option<u64>, Option<u64>),
        unique: bool,
        mut item: impl FnMut(&mut Self, usize, &'v Value) -> bool,
    ) -> bool {
        let mut ok = true;
        if !self.typed(value, Types::ARRAY.with_null(keywords.null)) {
            ok = false;
            if !self.reports() {
                return false;
            }
        }
        let Value::Array(items) = value else {
            return ok && self.budget.literal(value);
        };
        if !self.budget.array(items.len()) {
            return false;
        }
        let count = items.len() as u64;
        if let Some(least) = keywords.min_length.or(own_counts.0).filter(|&l| count < l) {
            refuse!(
                self,
                ok,
                "{value} has less than {least} item{}",
                plural(least)
            );
        }
        if let Some(most) = keywords.max_length.or(own_counts.1).filter(|&m| count > m) {
            refuse!(
                self,
                ok,
                "{value} has more than {most} item{}",
                plural(most)
            );
        }
        if unique && !all_unique(items) {
            refuse!(self, ok, "{value} has non-unique elements");
        }
        for (index, member) in items.iter().enumerate() {
            self.enter(Step::Index(index));
            let passed = item(self, index, member);
            self.leave();
            if !passed {
                ok = false;
                if !self.reports() {
                    return false;
                }
            }
        }
        ok
    }

    /// An object whose every member passes `member` (a map with string
    /// keys: `additionalProperties`).
    pub(crate) fn map(
        &mut self,
        value: &'v Value,
        keywords: &Keywords,
        mut member: impl FnMut(&mut Self, &'v Value) -> bool,
    ) -> bool {
        let mut ok = true;
        if !self.typed(value, Types::OBJECT.with_null(keywords.null)) {
            ok = false;
            if !self.reports() {
                return false;
            }
        }
        let Value::Object(map) = value else {
            return ok && self.budget.literal(value);
        };
        if !self.budget.object(map.len()) {
            return false;
        }
        for (key, item) in map {
            if !self.budget.string(key) {
                return false;
            }
            self.enter(Step::Key(key));
            let passed = member(self, item);
            self.leave();
            if !passed {
                ok = false;
                if !self.reports() {
                    return false;
                }
            }
        }
        ok
    }

    /// A derived struct: `type: object`, `required` (`fields` in
    /// declaration order, each with whether it is required; `required` of
    /// them are), `properties` (`member` checks a declared field) and,
    /// with `deny_unknown`, `additionalProperties: false`.
    pub fn object(
        &mut self,
        value: &'v Value,
        fields: &[(&str, bool)],
        required: usize,
        deny_unknown: bool,
        mut member: impl FnMut(&mut Self, &'v str, &'v Value) -> Member,
    ) -> bool {
        let Value::Object(map) = value else {
            return self.typed(value, Types::OBJECT);
        };
        if !self.budget.object(map.len()) {
            return false;
        }
        if self.report.is_none() {
            // Deciding: the first refusal ends the walk.
            let mut seen = 0;
            for (key, item) in map {
                if !self.budget.string(key) {
                    return false;
                }
                match member(self, key, item) {
                    Member::Checked { ok: true, required } => seen += usize::from(required),
                    Member::Unknown if !deny_unknown => {
                        if !self.budget.whole(item) {
                            return false;
                        }
                    }
                    _ => return false,
                }
            }
            return seen == required;
        }
        let mut ok = true;
        if self.reports() {
            for &(name, is_required) in fields {
                if is_required && !map.contains_key(name) {
                    refuse!(self, ok, "{} is a required property", Value::from(name));
                }
            }
        }
        let mut seen = 0;
        let mut unknown: Vec<&str> = Vec::new();
        for (key, item) in map {
            if !self.budget.string(key) {
                return false;
            }
            self.enter(Step::Key(key));
            let found = member(self, key, item);
            self.leave();
            match found {
                Member::Checked {
                    ok: passed,
                    required,
                } => {
                    seen += usize::from(required);
                    if !passed {
                        ok = false;
                        if !self.reports() {
                            return false;
                        }
                    }
                }
                Member::Unknown if deny_unknown => {
                    ok = false;
                    if !self.reports() {
                        return false;
                    }
                    unknown.push(key);
                }
                Member::Unknown => {
                    if !self.budget.whole(item) {
                        return false;
                    }
                }
            }
        }
        if !unknown.is_empty() {
            self.refuse(|| {
                let names: Vec<String> = unknown.iter().map(|name| format!("'{name}'")).collect();
                let verb = if names.len() == 1 { "was" } else { "were" };
                format!(
                    "Additional properties are not allowed ({} {verb} unexpected)",
                    names.join(", ")
                )
            });
        }
        ok && seen == required
    }

    /// A unit-only enum without documented variants: `type: string` and
    /// `enum` of its names.
    pub fn names(&mut self, value: &Value, names: &[&str]) -> bool {
        let mut ok = true;
        if !self.typed(value, Types::STRING) {
            ok = false;
            if !self.reports() {
                return false;
            }
        }
        if !is_one_of(value, names) {
            refuse!(self, ok, "{}", not_one_of(value, names));
        }
        ok && self.budget.literal_or_string(value)
    }

    /// `oneOf` whose branches exclude each other (an enum's variants, told
    /// apart by name): `branch` checks the one the value names, if any.
    pub fn one_of(&mut self, value: &Value, branch: impl FnOnce(&mut Self) -> bool) -> bool {
        if self.quietly(branch) {
            return true;
        }
        self.refuse(|| {
            format!("{value} is not valid under any of the schemas listed in the 'oneOf' keyword")
        });
        false
    }

    /// `anyOf` of a referenced type and `null` (`Option` of a derived
    /// type).
    pub(crate) fn any_of_or_null(
        &mut self,
        value: &Value,
        branch: impl FnOnce(&mut Self) -> bool,
    ) -> bool {
        if value.is_null() {
            return self.budget.literal(value);
        }
        if self.quietly(branch) {
            return true;
        }
        self.refuse(|| {
            format!("{value} is not valid under any of the schemas listed in the 'anyOf' keyword")
        });
        false
    }

    /// Inside a `oneOf` branch: whether `value` is one of the unit
    /// variants' `names`.
    pub fn unit_variant(&mut self, value: &Value, names: &[&str]) -> bool {
        is_one_of(value, names) && self.budget.literal_or_string(value)
    }

    /// Inside a `oneOf` branch: an externally tagged variant with data, an
    /// object of one member named for it; `content` checks the member of
    /// the name it knows (`None` for a name no variant has).
    pub fn tagged(
        &mut self,
        value: &'v Value,
        content: impl FnOnce(&mut Self, &'v str, &'v Value) -> Option<bool>,
    ) -> bool {
        let Value::Object(map) = value else {
            return false;
        };
        let Some((name, inner)) = single(map) else {
            return false;
        };
        self.budget.object(1)
            && self.budget.string(name)
            && content(self, name, inner).unwrap_or(false)
    }

    /// Inside a `oneOf` branch: an internally tagged variant, chosen by
    /// the string under `tag`; `variant` checks the object as the variant
    /// of that name (`None` for a name no variant has).
    pub fn internally_tagged(
        &mut self,
        value: &'v Value,
        tag: &str,
        variant: impl FnOnce(&mut Self, &'v str) -> Option<bool>,
    ) -> bool {
        match value.get(tag) {
            Some(Value::String(name)) => variant(self, name).unwrap_or(false),
            _ => false,
        }
    }

    /// The tag member of an internally tagged variant already chosen by
    /// it: only counted.
    pub fn tag(&mut self, value: &Value) -> bool {
        self.budget.literal_or_string(value)
    }
}

impl Budget {
    fn literal_or_string(&mut self, value: &Value) -> bool {
        match value {
            Value::String(text) => self.string(text),
            other => self.whole(other),
        }
    }
}

fn single(map: &Map<String, Value>) -> Option<(&str, &Value)> {
    let mut members = map.iter();
    match (members.next(), members.next()) {
        (Some((name, value)), None) => Some((name, value)),
        _ => None,
    }
}

fn is_one_of(value: &Value, names: &[&str]) -> bool {
    matches!(value, Value::String(text) if names.contains(&text.as_str()))
}

/// `jsonschema`'s `enum` message: up to three options, else two and a
/// count.
fn not_one_of(value: &Value, names: &[&str]) -> String {
    let quoted: Vec<String> = names
        .iter()
        .map(|name| Value::from(*name).to_string())
        .collect();
    let options = if quoted.len() <= 3 {
        match quoted.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    } else {
        format!(
            "{} or {} other candidates",
            quoted[..2].join(", "),
            quoted.len() - 2
        )
    };
    format!("{value} is not one of {options}")
}

fn plural(count: u64) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// `minLength`/`maxLength` count code points, not bytes.
fn code_points(text: &str) -> u64 {
    if text.is_ascii() {
        text.len() as u64
    } else {
        text.chars().count() as u64
    }
}

/// `uniqueItems`, with JSON Schema's equality (`1` equals `1.0`).
fn all_unique(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .all(|(at, item)| items[at + 1..].iter().all(|other| !json_equal(item, other)))
}

fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => match (Exact::of(a), Exact::of(b)) {
            (Some(a), Some(b)) => a.compare(b) == Some(std::cmp::Ordering::Equal),
            _ => a == b,
        },
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| json_equal(a, b)))
        }
        _ => a == b,
    }
}

/// Cuts a message at [`MESSAGE_MAX`] bytes.
pub(crate) fn shorten(mut message: String) -> String {
    if message.len() > MESSAGE_MAX {
        let mut end = MESSAGE_MAX;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
        message.push('…');
    }
    message
}
