//! The argument size limit: whether a call's arguments, as JSON, fit in
//! the host's byte limit.

use serde_json::Value;

/// Whether `arguments` serialize to at most `limit` bytes.
///
/// Most arguments are far under the limit, and a cheap walk of the tree
/// shows it without writing a byte: only when that bound passes the limit
/// are the arguments serialized and counted exactly.
pub(super) fn fits(arguments: &Value, limit: usize) -> bool {
    match upper_bound(arguments, limit) {
        Some(bound) if bound <= limit => true,
        _ => exact_fits(arguments, limit),
    }
}

/// At least the length of `value` as compact JSON (what `serde_json`
/// writes); `None` past `limit`, or for a number whose length is not known
/// without printing it.
fn upper_bound(value: &Value, limit: usize) -> Option<usize> {
    let bound = match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        // `u64::MAX` is 20 digits and `i64::MIN` 19 and a sign.
        Value::Number(n) if n.is_u64() || n.is_i64() => 20,
        Value::Number(_) => return None,
        Value::String(s) => string_bound(s),
        Value::Array(items) => {
            let mut total = 2 + items.len();
            for item in items {
                total = total.saturating_add(upper_bound(item, limit)?);
                if total > limit {
                    return None;
                }
            }
            total
        }
        Value::Object(map) => {
            // Braces, and per member a comma and a colon.
            let mut total = 2 + 2 * map.len();
            for (key, item) in map {
                total = total
                    .saturating_add(string_bound(key))
                    .saturating_add(upper_bound(item, limit)?);
                if total > limit {
                    return None;
                }
            }
            total
        }
    };
    (bound <= limit).then_some(bound)
}

/// A string's quotes, and at most six bytes per byte (a control
/// character is written `\u001f`).
fn string_bound(s: &str) -> usize {
    s.len().saturating_mul(6).saturating_add(2)
}

/// Whether `arguments` serialize to at most `limit` bytes, counted by
/// serializing them; stops writing at the limit, so a huge value costs no
/// more than the limit to measure.
fn exact_fits(arguments: &Value, limit: usize) -> bool {
    struct Budget(usize);
    impl std::io::Write for Budget {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 = self
                .0
                .checked_sub(bytes.len())
                .ok_or(std::io::ErrorKind::FileTooLarge)?;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(Budget(limit), arguments).is_ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The shortcut answers exactly as counting does, at every limit
    /// around each value's length: escapes, non-ASCII, the widest
    /// integers, floats (counted), nesting, and empty containers.
    #[test]
    fn the_bound_never_changes_the_answer() {
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(-1.5e300),
            json!("plain"),
            json!("\u{1}\"\\\n é 🦀"),
            json!([]),
            json!({}),
            json!([1, "two", [3.5, {"four": null}]]),
            json!({"path": "src/lib.rs", "limit": 40, "numbered": true}),
            json!({"\u{1f}key": {"nested": ["\u{0}", false, -7]}}),
        ];
        for value in &values {
            let length = serde_json::to_string(value).unwrap().len();
            for limit in 0..=length * 7 + 8 {
                assert_eq!(
                    fits(value, limit),
                    length <= limit,
                    "{value} ({length} bytes) at limit {limit}"
                );
            }
        }
    }
}
