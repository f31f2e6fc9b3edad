//! Argument validation against the schema the model was shown.
//!
//! With the `validate` feature (default) a call's arguments are checked by a
//! small validator compiled from the schema itself (`compile`, `compiled`),
//! for the subset of JSON Schema that derived tools' schemas use; a schema
//! outside it is checked by the `jsonschema` crate alone. A refusal's
//! problems always come from `jsonschema`, so a model reads the same
//! messages and paths whichever path decided. Both are compiled once per
//! tool (at registry build for run-time tools, on first call for derived
//! ones). Without the feature, serde still refuses missing required fields,
//! wrong JSON types and unknown enum variants, but not schema-only
//! constraints (`minimum`, `pattern`, `format`, ...), and its errors name no
//! JSON path. See docs/validation.md.

#[cfg(feature = "validate")]
mod compile;
#[cfg(feature = "validate")]
mod compiled;
#[cfg(all(test, feature = "validate"))]
mod differential;
#[cfg(feature = "validate")]
mod number;

use serde_json::Value;

use crate::ArgumentProblem;
use crate::registry::size::Budget;

/// What one walk of a call's arguments settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Valid, and within the size limit.
    Admitted,
    /// Valid; whether within the size limit only counting exactly tells
    /// (the arguments hold a float).
    IfItFits,
    /// Nothing settled (refused, past the bound, or a schema the walk does
    /// not cover): the size limit and then the check, each on its own.
    Undecided,
}

/// A model-supplied value is echoed in messages; keep them readable.
const MESSAGE_MAX: usize = 300;

#[cfg(feature = "validate")]
pub(crate) struct ArgumentValidator {
    /// The reference: every refusal's problems, and the whole check of a
    /// schema outside the subset.
    reference: jsonschema::Validator,
    /// The fast check, for a schema inside the subset.
    compiled: Option<compiled::CompiledSchema>,
}

#[cfg(feature = "validate")]
impl ArgumentValidator {
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        let reference = options().build(schema).map_err(|error| error.to_string())?;
        // A delegate is a node's self-contained keywords alone, read in the
        // only dialect the subset admits.
        let delegate = |keywords: &Value| {
            options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(keywords)
                .ok()
        };
        Ok(ArgumentValidator {
            reference,
            compiled: compile::compile(schema, &delegate),
        })
    }

    /// Validates `arguments` and bounds their size in one walk, when the
    /// schema is in the compiled subset and they are valid; otherwise
    /// leaves both to [`check`](Self::check) and the size limit.
    pub(crate) fn admit(&self, arguments: &Value, limit: usize) -> Admission {
        let Some(compiled) = &self.compiled else {
            return Admission::Undecided;
        };
        let mut budget = Budget::new(limit);
        if !compiled.is_valid_within(arguments, &mut budget) {
            Admission::Undecided
        } else if budget.needs_exact() {
            Admission::IfItFits
        } else {
            Admission::Admitted
        }
    }

    pub(crate) fn check(&self, arguments: &Value) -> Result<(), Vec<ArgumentProblem>> {
        let valid = match &self.compiled {
            Some(compiled) => compiled.is_valid(arguments),
            None => self.reference.is_valid(arguments),
        };
        if valid {
            return Ok(());
        }
        let problems: Vec<ArgumentProblem> = self
            .reference
            .iter_errors(arguments)
            .map(|error| ArgumentProblem {
                path: error.instance_path().to_string(),
                message: shorten(error.to_string()),
            })
            .collect();
        if problems.is_empty() {
            // The two disagree, which the differential test says they do
            // not; fail closed rather than run on a value one refused.
            tracing::error!(target: "tool_core::call", "compiled validator refused what jsonschema admits");
            return Err(vec![ArgumentProblem {
                path: String::new(),
                message: "the arguments do not match the tool's schema".to_owned(),
            }]);
        }
        Err(problems)
    }
}

/// The options of every `jsonschema` validator here: `format` is an
/// annotation unless asked for; the schema the model was shown says
/// `email`, `uri`, `date-time`…, so it is enforced.
#[cfg(feature = "validate")]
fn options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::options().should_validate_formats(true)
}

#[cfg(not(feature = "validate"))]
pub(crate) struct ArgumentValidator;

#[cfg(not(feature = "validate"))]
impl ArgumentValidator {
    pub(crate) fn compile(_schema: &Value) -> Result<Self, String> {
        Ok(ArgumentValidator)
    }

    /// The one check here (an object at the root) and the size bound.
    pub(crate) fn admit(&self, arguments: &Value, limit: usize) -> Admission {
        let mut budget = Budget::new(limit);
        if !arguments.is_object() || !budget.whole(arguments) {
            Admission::Undecided
        } else if budget.needs_exact() {
            Admission::IfItFits
        } else {
            Admission::Admitted
        }
    }

    pub(crate) fn check(&self, arguments: &Value) -> Result<(), Vec<ArgumentProblem>> {
        // serde accepts `null` for a struct of optional fields; the schema
        // would not, so keep the one check that needs no validator.
        if arguments.is_object() {
            Ok(())
        } else {
            Err(vec![ArgumentProblem {
                path: String::new(),
                message: shorten(format!("{arguments} is not of type \"object\"")),
            }])
        }
    }
}

fn shorten(mut message: String) -> String {
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
