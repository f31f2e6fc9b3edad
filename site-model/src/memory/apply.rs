//! Change sets on the memory site: checked and written on a copy of the
//! state under the write lock, and swapped in only when all of it applied.

use async_trait::async_trait;
use tool_core::Authored;

use super::{MemorySite, integrity};
use crate::change_rules::{built, check_expected, check_record_fields, soft_delete, updated};
use crate::{
    ChangeSet, Changes, Fields, Operation, Record, SiteData, SiteError, TableSchema, Target,
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
            let table = match target {
                Target::Record { table, .. } => data.tables.iter().find(|t| t.name == *table),
                _ => None,
            };
            let deleted = soft_delete(target, table)?;
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
            *page = updated(&*page, target, expected, new)?;
            Ok(())
        }
        Target::Element(id) => {
            let element = data
                .elements
                .iter_mut()
                .find(|element| element.id == *id)
                .ok_or_else(not_found)?;
            *element = updated(&*element, target, expected, new)?;
            Ok(())
        }
        Target::File(id) => {
            let file = data
                .files
                .iter_mut()
                .find(|file| file.id == *id)
                .ok_or_else(not_found)?;
            *file = updated(&*file, target, expected, new)?;
            Ok(())
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
                |field| record.values.for_host().get(field),
                expected,
            )?;
            check_record_fields(&schema, target, new)?;
            record.values.for_host_mut().extend(new.clone());
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
            data.pages.push(built(target, id.0, values)?);
        }
        Target::Element(id) => {
            if data.elements.iter().any(|element| element.id == *id) {
                return Err(taken());
            }
            data.elements.push(built(target, id.0, values)?);
        }
        Target::File(id) => {
            if data.files.iter().any(|file| file.id == *id) {
                return Err(taken());
            }
            data.files.push(built(target, id.0, values)?);
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
                values: Authored::new(values.clone()),
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
