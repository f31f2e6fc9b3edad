//! Argument validation against the schema the model was shown.
//!
//! With the `validate` feature (default) this is the `jsonschema` crate,
//! compiled once per tool (at registry build for run-time tools, on first
//! call for derived ones). Without it, serde still refuses
//! missing required fields, wrong JSON types and unknown enum variants, but
//! not schema-only constraints (`minimum`, `pattern`, `format`, ...), and its
//! errors name no JSON path. See docs/validation.md.

use serde_json::Value;

use crate::ArgumentProblem;

/// A model-supplied value is echoed in messages; keep them readable.
const MESSAGE_MAX: usize = 300;

#[cfg(feature = "validate")]
pub(crate) struct ArgumentValidator(jsonschema::Validator);

#[cfg(feature = "validate")]
impl ArgumentValidator {
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        // `format` is an annotation unless asked for; the schema the model
        // was shown says `email`, `uri`, `date-time`…, so it is enforced.
        jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map(ArgumentValidator)
            .map_err(|error| error.to_string())
    }

    pub(crate) fn check(&self, arguments: &Value) -> Result<(), Vec<ArgumentProblem>> {
        if self.0.is_valid(arguments) {
            return Ok(());
        }
        Err(self
            .0
            .iter_errors(arguments)
            .map(|error| ArgumentProblem {
                path: error.instance_path().to_string(),
                message: shorten(error.to_string()),
            })
            .collect())
    }
}

#[cfg(not(feature = "validate"))]
pub(crate) struct ArgumentValidator;

#[cfg(not(feature = "validate"))]
impl ArgumentValidator {
    pub(crate) fn compile(_schema: &Value) -> Result<Self, String> {
        Ok(ArgumentValidator)
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
