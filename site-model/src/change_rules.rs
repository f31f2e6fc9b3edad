//! The rules every implementation of [`Changes::apply`](crate::Changes)
//! keeps, in one place: the compare of compare-and-set, the field checks of
//! a record, what a soft delete writes and where it may not, and writing a
//! page, element or file through its serialized form. [`MemorySite`](crate::MemorySite) and a host's database store call
//! these, so the two cannot drift apart.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::{FieldKind, Fields, SiteError, TableSchema, Target};

/// The compare of compare-and-set: the first field whose stored value
/// (`stored(field)`, absent read as `null`) is not the expected one is the
/// conflict.
pub fn check_expected<'a>(
    target: &Target,
    stored: impl Fn(&str) -> Option<&'a Value>,
    expected: &Fields,
) -> Result<(), SiteError> {
    for (field, want) in expected {
        let actual = stored(field).unwrap_or(&Value::Null);
        if actual != want {
            return Err(SiteError::Conflict {
                target: target.to_string(),
                field: field.clone(),
                expected: want.clone(),
                actual: actual.clone(),
            });
        }
    }
    Ok(())
}

/// What [`Operation::SoftDelete`](crate::Operation::SoftDelete) of `target`
/// writes, `{"deleted": true}`, or why it cannot: a file is never
/// soft-deleted, and a record only when its table has a boolean `deleted`
/// field. `schema` is the record's table as the caller found it (`None`:
/// no such table, [`SiteError::NotFound`]); it is not read for other
/// targets.
pub fn soft_delete(target: &Target, schema: Option<&TableSchema>) -> Result<Fields, SiteError> {
    match target {
        Target::File(_) => {
            return Err(SiteError::invalid(
                target.to_string(),
                "files cannot be soft-deleted",
            ));
        }
        Target::Record { .. } => {
            let schema = schema.ok_or_else(|| SiteError::not_found(target.to_string()))?;
            if !matches!(schema.field("deleted"), Some(field) if field.kind == FieldKind::Bool) {
                return Err(SiteError::invalid(
                    target.to_string(),
                    "its table has no `deleted` field",
                ));
            }
        }
        Target::Page(_) | Target::Element(_) => {}
    }
    Ok(Fields::from([("deleted".to_owned(), Value::Bool(true))]))
}

/// Every field of `values` is in the table's schema and holds a value of
/// its kind (or `null`).
pub fn check_record_fields(
    schema: &TableSchema,
    target: &Target,
    values: &Fields,
) -> Result<(), SiteError> {
    for (field, value) in values {
        let Some(declared) = schema.field(field) else {
            return Err(SiteError::invalid(
                target.to_string(),
                format!("no field `{field}`"),
            ));
        };
        let fits = value.is_null()
            || match &declared.kind {
                FieldKind::String => value.is_string(),
                FieldKind::Bool => value.is_boolean(),
                FieldKind::Int | FieldKind::Datetime | FieldKind::Relation { .. } => {
                    value.is_i64() || value.is_u64()
                }
            };
        if !fits {
            return Err(SiteError::invalid(
                target.to_string(),
                format!("`{field}` must be {:?}, not {value}", declared.kind),
            ));
        }
    }
    Ok(())
}

/// `entity` (a page, element or file) with `new` written over its
/// serialized form, after `expected` was compared: the field names are
/// those a tool reads, and deserializing back checks the types. The id
/// cannot change; an unknown field is refused.
pub fn updated<T: Serialize + DeserializeOwned>(
    entity: &T,
    target: &Target,
    expected: &Fields,
    new: &Fields,
) -> Result<T, SiteError> {
    let Value::Object(mut object) =
        serde_json::to_value(entity).map_err(|error| SiteError::Storage(error.to_string()))?
    else {
        return Err(SiteError::Storage(format!("{target} is not an object")));
    };
    check_expected(target, |field| object.get(field), expected)?;
    for (field, value) in new {
        if field == "id" {
            return Err(SiteError::invalid(
                target.to_string(),
                "the id cannot change",
            ));
        }
        let Some(slot) = object.get_mut(field) else {
            return Err(SiteError::invalid(
                target.to_string(),
                format!("no field `{field}`"),
            ));
        };
        *slot = value.clone();
    }
    serde_json::from_value(Value::Object(object))
        .map_err(|error| SiteError::invalid(target.to_string(), error.to_string()))
}

/// A new page, element or file with id `id` from `values`.
pub fn built<T: DeserializeOwned>(
    target: &Target,
    id: u64,
    values: &Fields,
) -> Result<T, SiteError> {
    let mut object: Map<String, Value> = values.clone().into_iter().collect();
    object.insert("id".to_owned(), Value::from(id));
    serde_json::from_value(Value::Object(object))
        .map_err(|error| SiteError::invalid(target.to_string(), error.to_string()))
}
