//! Argument checks compiled from the arguments' Rust types.
//!
//! `#[derive(Tool)]` (and `#[derive(Arguments)]` for the types a tool's
//! arguments are made of) generate, beside the schema schemars derives
//! from the same type, an [`Arguments`] impl that checks a call's JSON
//! arguments against what that schema promises: types, required and
//! unknown properties, ranges, lengths, patterns, formats, enums, nested
//! types, `Option`. Its refusals read as `jsonschema`'s would over the
//! schema the model was shown (the same messages and JSON paths), which a
//! differential property test holds it to; no JSON Schema validator runs
//! for a derived tool. See docs/validation.md.

mod budget;
#[cfg(all(test, feature = "host"))]
mod differential;
mod format;
mod impls;
pub(crate) mod number;
mod walk;

pub(crate) use budget::Budget;
pub use format::Format;
#[cfg(feature = "host")]
pub(crate) use walk::shorten;
pub use walk::{Member, Walk};

use std::sync::OnceLock;

use number::Exact;
use serde_json::Value;

/// A type a tool's arguments can be made of: its checks were generated
/// from the same Rust type that gives its schema.
///
/// `#[derive(Tool)]` implements it for a tool's arguments type and
/// `#[derive(Arguments)]` for the structs and enums inside it; tool-core
/// implements it for the standard types schemars describes (strings,
/// numbers, `bool`, `Option`, `Vec`, sets, maps with string keys, tuples,
/// `Box`, `serde_json::Value`, paths and IP addresses).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is used in a tool's arguments but has no generated argument checks",
    label = "no `tool_core::Arguments` impl for `{Self}`",
    note = "add `#[derive(tool_core::Arguments)]` beside `Deserialize` and `JsonSchema` on `{Self}`; a type from another crate needs a wrapper type that derives it"
)]
pub trait Arguments {
    /// Whether the schema is written in place (with a `type`, to which
    /// `Option` adds `"null"`) rather than behind a `$ref` (which `Option`
    /// wraps in `anyOf`), as schemars writes it.
    #[doc(hidden)]
    const INLINE: bool;
    /// Whether this is `Option` (schemars leaves such fields out of
    /// `required`).
    #[doc(hidden)]
    const OPTION: bool = false;
    /// Checks `value` against the type's schema with the field's
    /// `keywords` applied; `false` when refused (the problems are in
    /// `walk` when it reports).
    #[doc(hidden)]
    fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool;
    /// Whether every value serde deserializes this type from is one the
    /// type's schema admits, looking at most `depth` types deep (`false`
    /// past it, so a recursive type answers too). When it holds, a call
    /// whose arguments serde accepts needs no walk of the checks: serde
    /// has decided (see [`serde_decides`]). `false` unless an impl shows
    /// otherwise: the safe answer.
    #[doc(hidden)]
    fn serde_decides(depth: u8) -> bool {
        let _ = depth;
        false
    }
}

/// How many types deep [`Arguments::serde_decides`] looks.
#[cfg(feature = "host")]
const SERDE_DEPTH: u8 = 8;

/// Whether serde's acceptance of `T`'s arguments implies the schema's
/// (derived from the type, never declared): then the call path checks
/// only the arguments' size before deserializing, and runs the checks
/// only to name the problems of arguments serde refused.
#[cfg(feature = "host")]
pub(crate) fn serde_decides<T: Arguments + ?Sized>() -> bool {
    T::serde_decides(SERDE_DEPTH)
}

/// The keywords a field's attributes add to its type's schema
/// (`#[schemars(range(..), length(..), pattern(..), email, url)]`), and
/// whether `Option` added `"null"` to its type.
///
/// As in schemars, each applies only where the type's own schema has the
/// JSON type it is about: a `length` on a string is `minLength`, on an
/// array `minItems`; a `range` on a struct is nothing.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Keywords {
    pub null: bool,
    /// `#[schemars(required)]`: schemars shows an `Option`'s inner type
    /// alone, without `null`.
    pub required: bool,
    pub minimum: Option<Limit>,
    pub maximum: Option<Limit>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<&'static Pattern>,
    pub format: Option<Format>,
}

impl Keywords {
    /// A field without attributes.
    pub const NONE: Keywords = Keywords {
        null: false,
        required: false,
        minimum: None,
        maximum: None,
        min_length: None,
        max_length: None,
        pattern: None,
        format: None,
    };

    pub(crate) fn nullable(&self) -> Keywords {
        Keywords {
            null: true,
            ..*self
        }
    }
}

/// A numeric bound as the schema writes it: an integer literal is an
/// integer (`1`), a float literal a float (`0.5`), as `serde_json` prints
/// them.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum Limit {
    Integer(i128),
    Float(f64),
}

impl Limit {
    fn exact(self) -> Exact {
        match self {
            Limit::Integer(integer) => Exact::Integer(integer),
            Limit::Float(float) => Exact::Float(float),
        }
    }

    /// Whether `value` is below this `minimum`.
    fn exceeds(self, value: Exact) -> bool {
        value.compare(self.exact()) == Some(std::cmp::Ordering::Less)
    }

    /// Whether `value` is above this `maximum`.
    fn undercuts(self, value: Exact) -> bool {
        value.compare(self.exact()) == Some(std::cmp::Ordering::Greater)
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Limit::Integer(integer) => write!(f, "{integer}"),
            Limit::Float(float) => match serde_json::Number::from_f64(float) {
                Some(number) => write!(f, "{number}"),
                None => write!(f, "{float}"),
            },
        }
    }
}

/// A `pattern`, compiled on first use. The derive has checked that it
/// compiles, so a failure here (unreachable) refuses every value.
#[doc(hidden)]
#[derive(Debug)]
pub struct Pattern {
    source: &'static str,
    compiled: OnceLock<Option<regex_lite::Regex>>,
}

impl Pattern {
    pub const fn new(source: &'static str) -> Self {
        Pattern {
            source,
            compiled: OnceLock::new(),
        }
    }

    /// Whether `text` has a match (JSON Schema's `pattern` is not
    /// anchored).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.compiled
            .get_or_init(|| regex_lite::Regex::new(self.source).ok())
            .as_ref()
            .is_some_and(|regex| regex.is_match(text))
    }

    pub(crate) fn source(&self) -> &'static str {
        self.source
    }
}

/// What the derive's generated code names, apart from the public API.
#[doc(hidden)]
pub mod generated {
    pub use super::{Arguments, Format, Keywords, Limit, Member, Pattern, Walk};
    pub use serde_json::Value;
}

/// Checks `arguments` against `T`'s generated checks as a call does, and
/// names every problem with its JSON path: for an extension author's
/// tests of what a tool's arguments admit, without a registry.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
/// struct Search {
///     #[schemars(length(min = 1))]
///     query: String,
/// }
///
/// let problems = tool_core::check_arguments::<Search>(&serde_json::json!({"query": ""}));
/// assert_eq!(problems.unwrap_err()[0].path, "/query");
/// ```
pub fn check_arguments<T: Arguments + ?Sized>(
    arguments: &Value,
) -> Result<(), Vec<crate::ArgumentProblem>> {
    let problems = problems_of(check_of::<T>, arguments);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The problems of `arguments` against `check`, all of them, in the
/// order `jsonschema` reports them (none when it admits them).
pub(crate) fn problems_of(
    check: for<'v> fn(&'v Value, &mut Walk<'v>) -> bool,
    arguments: &Value,
) -> Vec<crate::ArgumentProblem> {
    let mut walk = Walk::reporting();
    check(arguments, &mut walk);
    walk.into_problems()
}

/// `T`'s check as a plain function, for a registration to hold.
pub(crate) fn check_of<'v, T: Arguments + ?Sized>(value: &'v Value, walk: &mut Walk<'v>) -> bool {
    T::check(value, walk, &Keywords::NONE)
}
