use std::collections::BTreeMap;

use serde_json::Value;
use site_model::{HistoryEntry, Record, Records, SiteError, TableSchema, async_trait};

use super::SqlSite;
use super::rows::db_id;

impl SqlSite {
    async fn records_of(&self, table: &str) -> Result<Vec<Record>, SiteError> {
        let query =
            sqlx::query("SELECT data FROM site_records WHERE tbl = $1 ORDER BY id").bind(table);
        self.all(query).await
    }
}

#[async_trait]
impl Records for SqlSite {
    async fn tables(&self) -> Result<Vec<TableSchema>, SiteError> {
        let mut tables: Vec<TableSchema> = self
            .all(sqlx::query("SELECT data FROM site_tables"))
            .await?;
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(tables)
    }

    async fn table(&self, name: &str) -> Result<TableSchema, SiteError> {
        let query = sqlx::query("SELECT data FROM site_tables WHERE name = $1").bind(name);
        self.one(query, || format!("table {name}")).await
    }

    async fn record(&self, table: &str, id: u64) -> Result<Record, SiteError> {
        self.table(table).await?;
        let query = sqlx::query("SELECT data FROM site_records WHERE tbl = $1 AND id = $2")
            .bind(table)
            .bind(db_id(id));
        self.one(query, || format!("record {table}:{id}")).await
    }

    async fn find_records(
        &self,
        table: &str,
        equals: &BTreeMap<String, Value>,
    ) -> Result<Vec<Record>, SiteError> {
        let schema = self.table(table).await?;
        if let Some(unknown) = equals
            .keys()
            .find(|field| *field != "id" && schema.field(field).is_none())
        {
            return Err(SiteError::invalid(table, format!("no field `{unknown}`")));
        }
        let mut records = self.records_of(table).await?;
        records.retain(|record| {
            equals.iter().all(|(field, wanted)| {
                if field == "id" {
                    return wanted.as_u64() == Some(record.id);
                }
                record.values.for_host().get(field).unwrap_or(&Value::Null) == wanted
            })
        });
        Ok(records)
    }

    async fn search_records(
        &self,
        table: &str,
        needle: &str,
        limit: usize,
    ) -> Result<Vec<Record>, SiteError> {
        let schema = self.table(table).await?;
        let mut records = self.records_of(table).await?;
        records.retain(|record| schema.search_matches(record, needle));
        records.truncate(limit);
        Ok(records)
    }

    async fn history(&self, table: &str, record_id: u64) -> Result<Vec<HistoryEntry>, SiteError> {
        // Newest first; entries of one second newest-appended first.
        let query = sqlx::query(
            "SELECT data FROM site_history WHERE tbl = $1 AND record_id = $2
             ORDER BY at DESC, seq DESC",
        )
        .bind(table)
        .bind(db_id(record_id));
        self.all(query).await
    }
}
