//! How values reach the model: redacted first, then cut, so a cut never
//! splits a secret into a piece no rule recognises.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use site_model::TableSchema;
use tool_core::redact::{REDACTED, redact_json, redact_named, redact_text};

use crate::structure::readable::is_credential;

/// Longest string value shown in a record, in characters.
pub(crate) const MAX_VALUE_CHARS: usize = 500;

/// `text` cut to `max` characters, with `…` when something was cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// Rich text as plain text: tags dropped, whitespace collapsed.
pub(crate) fn plain(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Redacted plain text, cut to `max` characters.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    cut(&redact_text(&plain(text)), max)
}

/// Redacted plain text of at most `max` characters around the first place
/// `needle` occurs (case-insensitively), or from the start.
pub(crate) fn excerpt_around(text: &str, needle: &str, max: usize) -> String {
    let text = redact_text(&plain(text)).into_owned();
    let lower = text.to_lowercase();
    // Byte offsets of the lower-cased text match the text only when
    // lower-casing kept every length; otherwise start at the beginning.
    let at = (lower.len() == text.len())
        .then(|| lower.find(&needle.to_lowercase()))
        .flatten()
        .filter(|&at| text.is_char_boundary(at))
        .map_or(0, |at| text[..at].chars().count());
    let start = at.saturating_sub(max / 3);
    let rest: String = text.chars().skip(start).collect();
    let cut = cut(&rest, max.saturating_sub(usize::from(start > 0)));
    if start > 0 { format!("…{cut}") } else { cut }
}

/// A text field's value as the model may see it, redacted under the
/// field's name ([`redact_named`]: a credential-shaped value of a field
/// named for a service, `twitter_consumer`, is redacted whole).
pub(crate) fn field_text(name: &str, text: &str) -> String {
    redact_named(name, &Value::from(text))
        .as_str()
        .unwrap_or(REDACTED)
        .to_owned()
}

/// A record's values as the model may see them: the table's fields only,
/// credential fields (and fields the schema does not know) left out, every
/// value redacted and long text cut.
pub(crate) fn record_values(
    table: &TableSchema,
    values: &BTreeMap<String, Value>,
) -> Map<String, Value> {
    table
        .fields
        .iter()
        .filter(|field| !is_credential(field))
        .filter_map(|field| {
            let value = redact_named(&field.name, values.get(&field.name)?);
            Some((field.name.clone(), cut_strings(value)))
        })
        .collect()
}

/// One value, redacted, its strings cut.
pub(crate) fn shown_value(value: &Value) -> Value {
    cut_strings(redact_json(value))
}

fn cut_strings(value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(cut(&text, MAX_VALUE_CHARS)),
        Value::Array(items) => Value::Array(items.into_iter().map(cut_strings).collect()),
        Value::Object(object) => Value::Object(
            object
                .into_iter()
                .map(|(key, item)| (key, cut_strings(item)))
                .collect(),
        ),
        other => other,
    }
}
