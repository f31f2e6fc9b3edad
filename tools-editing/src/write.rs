//! Applying an approved proposal: one change set (one transaction of the
//! site's store, each operation a compare-and-set), its history, and a
//! re-read of every written field.

use serde_json::{Value, json};
use site_model::{
    ChangeSet, FieldChange, Fields, HistoryAction, HistoryEntry, Operation, SiteError, Target,
    Timestamp,
};
use tool_core::EditedFrom;
use tool_core::{Authored, Proposal, ToolContext, ToolError, ToolOutput};

use crate::access::{Editor, site_failed};
use crate::words;

/// One operation and how it is recorded in the target's history.
pub(crate) struct Step {
    pub(crate) operation: Operation,
    pub(crate) action: HistoryAction,
}

/// Applies `steps` in one change set, with a history entry per step naming
/// the proposer and the approver, then re-reads each target and reports the
/// fields as written; a field that did not take fails the call, naming it.
pub(crate) async fn commit(
    approver: &Editor,
    proposal: &Proposal,
    cx: &ToolContext,
    steps: Vec<Step>,
) -> Result<ToolOutput, ToolError> {
    let proposer = cx.actor().map_or("", |actor| actor.id.as_str());
    let at = Timestamp(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    );
    let proposed = cx.service::<EditedFrom>().ok().map(|EditedFrom(original)| {
        original
            .changes
            .iter()
            .map(|change| (change.field.clone(), change.new.clone()))
            .collect::<Fields>()
    });
    let history = steps
        .iter()
        .map(|step| HistoryEntry {
            table: step.operation.target().table().to_owned(),
            record_id: step.operation.target().id(),
            at,
            actor: Authored::new(proposer.to_owned()),
            action: step.action,
            changes: field_changes(&step.operation),
            proposed_by: Some(Authored::new(proposer.to_owned())),
            approved_by: Some(Authored::new(approver.name.clone())),
            proposed: proposed.clone(),
        })
        .collect();
    let operations: Vec<Operation> = steps.into_iter().map(|step| step.operation).collect();
    let changes = ChangeSet {
        operations: operations.clone(),
        history,
    };
    approver
        .site
        .apply(changes)
        .await
        .map_err(|error| match error {
            SiteError::Conflict { field, .. } => ToolError::failed(format!(
                "`{field}` changed since the proposal was made; nothing was written"
            )),
            SiteError::Invalid { reason, .. } => ToolError::failed(format!(
                "the change was refused: {reason}; nothing was written"
            )),
            other => site_failed(other),
        })?;
    let mut written = serde_json::Map::new();
    for operation in &operations {
        let stored = read(approver, operation.target()).await?;
        let wanted = match operation {
            Operation::Update { new, .. } => new.clone(),
            Operation::Insert { values, .. } => values.clone(),
            Operation::SoftDelete { .. } => Fields::from([("deleted".to_owned(), json!(true))]),
        };
        for (field, value) in wanted {
            if stored.get(&field) != Some(&value) {
                return Err(ToolError::failed(format!(
                    "`{field}` of {} did not take the new value",
                    operation.target()
                )));
            }
        }
    }
    for change in &proposal.changes {
        written.insert(change.field.clone(), change.new.clone());
    }
    let text = proposal
        .changes
        .iter()
        .map(|change| format!("{} = {}", change.field, change.new))
        .collect::<Vec<_>>()
        .join(", ");
    // The records by id, not in the proposal's words: those quote titles
    // people wrote, for the person who approves; the model reads this, and
    // learns only what it asked for (docs/exposure.md).
    let records = operations
        .iter()
        .map(|operation| words::target(operation.target()))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(ToolOutput::both(
        format!("written and verified: {records}: {text}"),
        json!({"record": records, "written": written}),
    ))
}

/// The fields a step changes, old → new.
fn field_changes(operation: &Operation) -> Vec<FieldChange> {
    let change = |field: &String, old: Value, new: Value| FieldChange {
        field: field.clone(),
        old: Authored::new(old),
        new: Authored::new(new),
    };
    match operation {
        Operation::Update { expected, new, .. } => new
            .iter()
            .map(|(field, value)| {
                let old = expected.get(field).cloned().unwrap_or(Value::Null);
                change(field, old, value.clone())
            })
            .collect(),
        Operation::Insert { values, .. } => values
            .iter()
            .map(|(field, value)| change(field, Value::Null, value.clone()))
            .collect(),
        Operation::SoftDelete { .. } => {
            vec![change(&"deleted".to_owned(), json!(false), json!(true))]
        }
    }
}

/// A page, element or file as its fields, read again from the site.
async fn read(editor: &Editor, target: &Target) -> Result<Fields, ToolError> {
    let site = &editor.site;
    let value = match target {
        Target::Page(id) => serde_json::to_value(site.page(*id).await.map_err(site_failed)?),
        Target::Element(id) => serde_json::to_value(site.element(*id).await.map_err(site_failed)?),
        Target::File(id) => serde_json::to_value(site.file(*id).await.map_err(site_failed)?),
        Target::Record { table, id } => {
            // Compared with what was written, not shown.
            let record = site.record(table, *id).await.map_err(site_failed)?;
            serde_json::to_value(record.values.for_host())
        }
    };
    match value {
        Ok(Value::Object(object)) => Ok(object.into_iter().collect()),
        _ => Err(ToolError::failed("the record cannot be read back")),
    }
}

/// The arguments a proposal was made from, as the tool's type.
pub(crate) fn arguments<T: serde::de::DeserializeOwned>(
    proposal: &Proposal,
) -> Result<T, ToolError> {
    serde_json::from_value(proposal.arguments().clone())
        .map_err(|_| ToolError::failed("the proposal's arguments do not fit the tool"))
}

/// The proposal's change of `field`, if it has one.
pub(crate) fn change<'p>(proposal: &'p Proposal, field: &str) -> Option<&'p tool_core::Change> {
    proposal.changes.iter().find(|change| change.field == field)
}
