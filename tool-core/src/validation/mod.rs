//! Run-time validation: a run-time tool's arguments and declared output
//! (`DynTool`, whose schemas come from outside), against their JSON
//! Schemas.
//!
//! With the `validate` feature this is the `jsonschema` crate, compiled once
//! per schema (a run-time tool's at registry build, a declared output's on
//! the first result checked). Without it a run-time tool's arguments are
//! only checked to be an object, and its declared output only to be there.
//! Derived tools never come here: their checks are generated with their
//! schemas (`crate::checks`). See docs/validation.md.

use serde_json::Value;

use crate::ArgumentProblem;
use crate::checks::shorten;

#[cfg(feature = "validate")]
pub(crate) struct ArgumentValidator {
    validator: jsonschema::Validator,
}

#[cfg(feature = "validate")]
impl ArgumentValidator {
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        // `format` is an annotation unless asked for; the schema the model
        // was shown says `email`, `uri`, `date-time`…, so it is enforced.
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map_err(|error| error.to_string())?;
        Ok(ArgumentValidator { validator })
    }

    pub(crate) fn check(&self, arguments: &Value) -> Result<(), Vec<ArgumentProblem>> {
        if self.validator.is_valid(arguments) {
            return Ok(());
        }
        Err(self
            .validator
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
        // A schema's root is an object; that much needs no validator.
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
