//! Change sets on the memory site: checked and written on a copy of the
//! state under the write lock, and swapped in only when all of it applied.

use async_trait::async_trait;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{MemorySite, integrity};
use crate::{
    ChangeSet, Changes, FieldKind, Fields, Operation, Record, SiteData, SiteError, TableSchema,
    Target,
};

#[async_trait]
impl Changes for MemorySite {
    async fn apply(&self, changes: ChangeSet) -> Result<(), SiteError> {
        let mut state = self.write();
        let mut draft = state.clone();
        for operation in &changes.operations {
            apply_operation(&mut draft, operation)?;
        }
        let touched: Vec<&Target> = changes.operations.iter().map(Operation::target).collect();
        integrity::check(&draft, &touched)?;
        draft.history.extend(changes.history);
        *state = draft;
        Ok(())
    }
}

fn apply_operation(data: &mut SiteData, operation: &Operation) -> Result<(), SiteError> {
    match operation {
        Operation::Update {
            target,
            expected,
            new,
        } => update(data, target, expected, new),
        Operation::SoftDelete { target, expected } => {
            let deleted = Fields::from([("deleted".to_owned(), Value::Bool(true))]);
            if let Target::Record { table, .. } = target {
                let schema = schema(data, target, table)?;
                if !matches!(schema.field("deleted"), Some(field) if field.kind == FieldKind::Bool)
                {
                    return Err(SiteError::invalid(
                        target.to_string(),
                        "its table has no `deleted` field",
                    ));
                }
            }
            if matches!(target, Target::File(_)) {
                return Err(SiteError::invalid(
                    target.to_string(),
                    "files cannot be soft-deleted",
                ));
            }
            update(data, target, expected, &deleted)
        }
        Operation::Insert { target, values } => insert(data, target, values),
    }
}

fn update(
    data: &mut SiteData,
    target: &Target,
    expected: &Fields,
    new: &Fields,
) -> Result<(), SiteError> {
    let not_found = || SiteError::not_found(target.to_string());
    match target {
        Target::Page(id) => {
            let page = data
                .pages
                .iter_mut()
                .find(|page| page.id == *id)
                .ok_or_else(not_found)?;
            update_typed(page, target, expected, new)
        }
        Target::Element(id) => {
            let element = data
                .elements
                .iter_mut()
                .find(|element| element.id == *id)
                .ok_or_else(not_found)?;
            update_typed(element, target, expected, new)
        }
        Target::File(id) => {
            let file = data
                .files
                .iter_mut()
                .find(|file| file.id == *id)
                .ok_or_else(not_found)?;
            update_typed(file, target, expected, new)
        }
        Target::Record { table, id } => {
            let schema = schema(data, target, table)?.clone();
            let record = data
                .records
                .iter_mut()
                .find(|record| record.table == *table && record.id == *id)
                .ok_or_else(not_found)?;
            check_expected(
                target,
                &record.values.clone().into_iter().collect(),
                expected,
            )?;
            check_record_fields(&schema, target, new)?;
            record.values.extend(new.clone());
            Ok(())
        }
    }
}

fn insert(data: &mut SiteData, target: &Target, values: &Fields) -> Result<(), SiteError> {
    let taken = || SiteError::invalid(target.to_string(), "the id is taken");
    match target {
        Target::Page(id) => {
            if data.pages.iter().any(|page| page.id == *id) {
                return Err(taken());
            }
            data.pages.push(build(target, id.0, values)?);
        }
        Target::Element(id) => {
            if data.elements.iter().any(|element| element.id == *id) {
                return Err(taken());
            }
            data.elements.push(build(target, id.0, values)?);
        }
        Target::File(id) => {
            if data.files.iter().any(|file| file.id == *id) {
                return Err(taken());
            }
            data.files.push(build(target, id.0, values)?);
        }
        Target::Record { table, id } => {
            let schema = schema(data, target, table)?;
            check_record_fields(schema, target, values)?;
            if data
                .records
                .iter()
                .any(|record| record.table == *table && record.id == *id)
            {
                return Err(taken());
            }
            data.records.push(Record {
                table: table.clone(),
                id: *id,
                values: values.clone(),
            });
        }
    }
    Ok(())
}

fn schema<'a>(
    data: &'a SiteData,
    target: &Target,
    table: &str,
) -> Result<&'a TableSchema, SiteError> {
    data.tables
        .iter()
        .find(|schema| schema.name == table)
        .ok_or_else(|| SiteError::not_found(target.to_string()))
}

/// Updates a page, element or file through its serialized form, so the
/// field names are those a tool reads, and deserializing back checks types.
fn update_typed<T: Serialize + DeserializeOwned>(
    entity: &mut T,
    target: &Target,
    expected: &Fields,
    new: &Fields,
) -> Result<(), SiteError> {
    let Value::Object(mut object) = serde_json::to_value(&*entity).map_err(storage)? else {
        return Err(SiteError::Storage(format!("{target} is not an object")));
    };
    check_expected(target, &object, expected)?;
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
    *entity = serde_json::from_value(Value::Object(object))
        .map_err(|error| SiteError::invalid(target.to_string(), error.to_string()))?;
    Ok(())
}

fn build<T: DeserializeOwned>(target: &Target, id: u64, values: &Fields) -> Result<T, SiteError> {
    let mut object: Map<String, Value> = values.clone().into_iter().collect();
    object.insert("id".to_owned(), Value::from(id));
    serde_json::from_value(Value::Object(object))
        .map_err(|error| SiteError::invalid(target.to_string(), error.to_string()))
}

fn check_expected(
    target: &Target,
    stored: &Map<String, Value>,
    expected: &Fields,
) -> Result<(), SiteError> {
    for (field, want) in expected {
        let actual = stored.get(field).unwrap_or(&Value::Null);
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

fn check_record_fields(
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

fn storage(error: serde_json::Error) -> SiteError {
    SiteError::Storage(error.to_string())
}
