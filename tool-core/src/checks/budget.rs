//! A running upper bound on the size of a call's arguments as JSON, which
//! the checks' walk counts as it goes, so that a valid call needs no
//! second walk for the host's size limit.

use serde_json::{Number, Value};

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
}

impl Budget {
    /// A budget of `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        Budget {
            left: limit,
            exact: false,
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
    #[cfg(test)]
    pub(crate) fn counted(&self, limit: usize) -> usize {
        limit - self.left
    }

    /// Whether a float was counted: the value may still be longer than
    /// what was counted, so only serializing it tells.
    #[cfg(feature = "host")]
    pub(crate) fn needs_exact(&self) -> bool {
        self.exact
    }
}
