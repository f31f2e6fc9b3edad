use std::collections::BTreeMap;

use async_trait::async_trait;
use serde_json::Value;

use super::MemorySite;
use crate::{HistoryEntry, Record, Records, SiteData, SiteError, TableSchema};

fn schema<'a>(data: &'a SiteData, table: &str) -> Result<&'a TableSchema, SiteError> {
    data.tables
        .iter()
        .find(|schema| schema.name == table)
        .ok_or_else(|| SiteError::not_found(format!("table {table}")))
}

fn sorted(mut records: Vec<Record>) -> Vec<Record> {
    records.sort_by_key(|record| record.id);
    records
}

#[async_trait]
impl Records for MemorySite {
    async fn tables(&self) -> Result<Vec<TableSchema>, SiteError> {
        let mut tables = self.read().tables.clone();
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(tables)
    }

    async fn table(&self, name: &str) -> Result<TableSchema, SiteError> {
        schema(&self.read(), name).cloned()
    }

    async fn record(&self, table: &str, id: u64) -> Result<Record, SiteError> {
        let data = self.read();
        schema(&data, table)?;
        data.records
            .iter()
            .find(|record| record.table == table && record.id == id)
            .cloned()
            .ok_or_else(|| SiteError::not_found(format!("record {table}:{id}")))
    }

    async fn find_records(
        &self,
        table: &str,
        equals: &BTreeMap<String, Value>,
    ) -> Result<Vec<Record>, SiteError> {
        let data = self.read();
        let schema = schema(&data, table)?;
        if let Some(unknown) = equals
            .keys()
            .find(|field| *field != "id" && schema.field(field).is_none())
        {
            return Err(SiteError::invalid(table, format!("no field `{unknown}`")));
        }
        let matches = data.records.iter().filter(|record| {
            record.table == table
                && equals.iter().all(|(field, wanted)| {
                    if field == "id" {
                        return wanted.as_u64() == Some(record.id);
                    }
                    record.values.for_host().get(field).unwrap_or(&Value::Null) == wanted
                })
        });
        Ok(sorted(matches.cloned().collect()))
    }

    async fn search_records(
        &self,
        table: &str,
        needle: &str,
        limit: usize,
    ) -> Result<Vec<Record>, SiteError> {
        let data = self.read();
        let schema = schema(&data, table)?;
        let matches = data
            .records
            .iter()
            .filter(|record| record.table == table && schema.search_matches(record, needle));
        let mut found = sorted(matches.cloned().collect());
        found.truncate(limit);
        Ok(found)
    }

    async fn history(&self, table: &str, record_id: u64) -> Result<Vec<HistoryEntry>, SiteError> {
        let data = self.read();
        // Stable sort on time, after reversing the insertion order, so two
        // entries in the same second come newest-appended first.
        let mut entries: Vec<HistoryEntry> = data
            .history
            .iter()
            .rev()
            .filter(|entry| entry.table == table && entry.record_id == record_id)
            .cloned()
            .collect();
        entries.sort_by_key(|entry| std::cmp::Reverse(entry.at));
        Ok(entries)
    }
}
