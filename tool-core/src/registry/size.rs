//! The argument size limit: whether a call's arguments, as JSON, fit in
//! the host's byte limit.

use serde_json::Value;

use crate::checks::Budget;

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
