//! The argument size limit: whether a call's arguments, as JSON, fit in
//! the host's byte limit.

use serde_json::{Number, Value};

/// Whether `arguments` serialize to at most `limit` bytes.
///
/// Most arguments are far under the limit, and a cheap walk of the tree
/// shows it without writing a byte: only when that bound passes the limit
/// (or a float, whose length is not known without printing it, leaves it
/// open) are the arguments serialized and counted exactly.
pub(super) fn fits(arguments: &Value, limit: usize) -> bool {
    let mut budget = Budget::new(limit);
    if budget.whole(arguments) && !budget.needs_exact() {
        return true;
    }
    exact_fits(arguments, limit)
}

/// A running upper bound on the length of a value as compact JSON (what
/// `serde_json` writes), against a limit. The size check's own walk uses
/// it, and so does the compiled validation walk, which counts as it goes so
/// that a valid call needs no second walk for its size.
///
/// Counting a part twice is harmless (the bound only grows, and past the
/// limit the caller counts exactly); leaving a part out is not, so every
/// walk counts each part at least once.
#[derive(Debug)]
pub(crate) struct Budget {
    /// Bytes still free under the limit.
    left: usize,
    /// A float was counted as nothing: the bound holds only for the rest.
    exact: bool,
    /// The bound passed the limit.
    over: bool,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        Budget {
            left: limit,
            exact: false,
            over: false,
        }
    }

    /// Counts `bytes`; `false`, and the budget spent, past the limit.
    #[inline]
    pub(crate) fn take(&mut self, bytes: usize) -> bool {
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                true
            }
            None => {
                self.left = 0;
                self.over = true;
                false
            }
        }
    }

    /// Counts a string: its quotes, and at most six bytes per byte (a
    /// control character is written `\u001f`).
    #[inline]
    pub(crate) fn string(&mut self, text: &str) -> bool {
        self.take(text.len().saturating_mul(6).saturating_add(2))
    }

    /// Counts a number: an integer is at most 20 bytes (`u64::MAX` is 20
    /// digits and `i64::MIN` 19 and a sign); a float is left to the exact
    /// count.
    #[inline]
    pub(crate) fn number(&mut self, number: &Number) -> bool {
        if number.is_u64() || number.is_i64() {
            self.take(20)
        } else {
            self.exact = true;
            true
        }
    }

    /// Counts `null`, `true` or `false`.
    #[inline]
    pub(crate) fn literal(&mut self, literal: &Value) -> bool {
        self.take(if matches!(literal, Value::Bool(false)) {
            5
        } else {
            4
        })
    }

    /// Counts an object's braces, and per member a comma and a colon.
    #[inline]
    pub(crate) fn object(&mut self, members: usize) -> bool {
        self.take(members.saturating_mul(2).saturating_add(2))
    }

    /// Counts an array's brackets and commas.
    #[inline]
    pub(crate) fn array(&mut self, items: usize) -> bool {
        self.take(items.saturating_add(2))
    }

    /// Counts all of `value`; `false` as soon as it passes the limit.
    pub(crate) fn whole(&mut self, value: &Value) -> bool {
        match value {
            Value::Null | Value::Bool(_) => self.literal(value),
            Value::Number(n) => self.number(n),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.array(items.len()) && items.iter().all(|item| self.whole(item))
            }
            Value::Object(map) => {
                self.object(map.len())
                    && map
                        .iter()
                        .all(|(key, item)| self.string(key) && self.whole(item))
            }
        }
    }

    /// The bound counted so far, for a budget started at `limit`.
    #[cfg(all(test, feature = "validate"))]
    pub(crate) fn counted(&self, limit: usize) -> usize {
        limit - self.left
    }

    /// Whether the bound passed the limit at some point of the walk (a
    /// walk that went on after that, as a refused branch of `anyOf` lets
    /// one, has counted nothing since).
    #[cfg(feature = "validate")]
    pub(crate) fn is_over(&self) -> bool {
        self.over
    }

    /// Whether a float was counted: the value may still be longer than
    /// what was counted, so only serializing it tells.
    pub(crate) fn needs_exact(&self) -> bool {
        self.exact
    }
}

/// Whether `arguments` serialize to at most `limit` bytes, counted by
/// serializing them; stops writing at the limit, so a huge value costs no
/// more than the limit to measure.
pub(super) fn exact_fits(arguments: &Value, limit: usize) -> bool {
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
