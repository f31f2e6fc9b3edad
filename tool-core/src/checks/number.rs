//! Numbers as `jsonschema` reads them: `integer` includes `1.0`, and a
//! bound compares exactly across `u64`, `i64` and `f64` (no rounding of a
//! large integer to the nearest float).

use std::cmp::Ordering;

use serde_json::Number;

/// A JSON number held exactly: every `u64` and `i64` fits an `i128`.
#[derive(Clone, Copy, Debug)]
pub enum Exact {
    Integer(i128),
    Float(f64),
}

impl Exact {
    /// `None` for a number no `f64` holds (only with serde_json's
    /// `arbitrary_precision`), which the caller leaves to `jsonschema`.
    pub(crate) fn of(number: &Number) -> Option<Exact> {
        if let Some(unsigned) = number.as_u64() {
            Some(Exact::Integer(i128::from(unsigned)))
        } else if let Some(signed) = number.as_i64() {
            Some(Exact::Integer(i128::from(signed)))
        } else {
            number
                .as_f64()
                .filter(|float| float.is_finite())
                .map(Exact::Float)
        }
    }

    /// The order of `self` against `other`; `None` only for a NaN, which no
    /// JSON number is.
    #[inline]
    pub(crate) fn compare(self, other: Exact) -> Option<Ordering> {
        match (self, other) {
            (Exact::Integer(a), Exact::Integer(b)) => Some(a.cmp(&b)),
            _ => self.compare_with_float(other),
        }
    }

    /// Apart, so that the common case (two integers) stays one comparison.
    #[cold]
    #[inline(never)]
    fn compare_with_float(self, other: Exact) -> Option<Ordering> {
        match (self, other) {
            (Exact::Integer(a), Exact::Integer(b)) => Some(a.cmp(&b)),
            (Exact::Integer(a), Exact::Float(b)) => integer_against_float(a, b),
            (Exact::Float(a), Exact::Integer(b)) => {
                integer_against_float(b, a).map(Ordering::reverse)
            }
            (Exact::Float(a), Exact::Float(b)) => a.partial_cmp(&b),
        }
    }
}

/// Drafts 6 and later: a number with no fractional part is an integer,
/// however it is written.
pub(crate) fn is_integer(number: &Number) -> bool {
    number.is_u64() || number.is_i64() || number.as_f64().is_some_and(|float| float.fract() == 0.0)
}

/// `integer` (within ±2^64) against `float`, without rounding either.
fn integer_against_float(integer: i128, float: f64) -> Option<Ordering> {
    const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;
    if float.is_nan() {
        return None;
    }
    if float >= TWO_TO_64 {
        return Some(Ordering::Less);
    }
    if float <= -TWO_TO_64 {
        return Some(Ordering::Greater);
    }
    // Within ±2^64 the whole part of a float is exact as an i128, and the
    // fraction left over is exact as a float.
    let whole = float.trunc();
    Some(match integer.cmp(&(whole as i128)) {
        Ordering::Equal => 0.0_f64.partial_cmp(&(float - whole))?,
        unequal => unequal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(text: &str) -> Exact {
        Exact::of(&serde_json::from_str(text).unwrap()).unwrap()
    }

    #[test]
    fn integers_and_floats_compare_without_rounding() {
        // 2^53 + 1 rounds to 2^53 as a float; compared exactly it is larger.
        assert_eq!(
            exact("9007199254740993").compare(exact("9007199254740992.0")),
            Some(Ordering::Greater)
        );
        assert_eq!(exact("3").compare(exact("3.5")), Some(Ordering::Less));
        assert_eq!(exact("-3").compare(exact("-3.5")), Some(Ordering::Greater));
        assert_eq!(exact("-3.5").compare(exact("-3")), Some(Ordering::Less));
        assert_eq!(exact("4").compare(exact("4.0")), Some(Ordering::Equal));
        assert_eq!(
            exact("18446744073709551615").compare(exact("1e20")),
            Some(Ordering::Less)
        );
        assert_eq!(
            exact("-9223372036854775808").compare(exact("-1e19")),
            Some(Ordering::Greater)
        );
    }

    #[test]
    fn an_integer_may_be_written_with_a_fraction_of_zero() {
        let number = |text| serde_json::from_str::<Number>(text).unwrap();
        assert!(is_integer(&number("1.0")));
        assert!(is_integer(&number("1e3")));
        assert!(is_integer(&number("-7")));
        assert!(!is_integer(&number("1.5")));
    }
}
