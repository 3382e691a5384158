//! Runs copied between histories, each exactly once: `diskbench sync`
//! (to a shared PostgreSQL history, or from one into a local file), and the
//! runs kept in the local file because their PostgreSQL history could not
//! be reached (`pending_sync`), sent by the next save that reaches it.
//!
//! A run's global id (`run_uuid`) decides: a run the other side has saved
//! is left alone, a run it has only live (its writer lost the server in the
//! middle of the run) is replaced by the whole run, and a run it lacks is
//! added under its own UUID. Copying twice therefore changes nothing.

use crate::live::finish_row;
use crate::record::{self, Row};
use crate::{Result, Store, StoreError};
use model::{RunRecord, RunState};
use std::collections::HashMap;

/// What [`Store::merge`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Runs this history did not have.
    pub added: usize,
    /// Runs it had only as live rows, now saved whole.
    pub completed: usize,
    /// Runs it had already.
    pub present: usize,
}

/// The runs of `runs` that `other` (a history's [`Store::run_uuids`])
/// lacks or has only live; runs still being written are left for later.
pub fn missing_among(runs: Vec<RunRecord>, other: &HashMap<String, bool>) -> Vec<RunRecord> {
    runs.into_iter()
        .filter(|r| r.state != RunState::Running)
        .filter(|r| other.get(&r.uuid).is_none_or(|live| *live))
        .collect()
}

impl Store {
    /// Every run's global id, and whether the run is still live here.
    pub fn run_uuids(&self) -> Result<HashMap<String, bool>> {
        self.transaction(false, |tx| {
            let rows = tx.query(
                "SELECT run_uuid, live_host FROM runs WHERE run_uuid IS NOT NULL",
                &[],
            )?;
            Ok(rows
                .into_iter()
                .filter_map(|r| Some((r[0].text()?, r[1].text().is_some())))
                .collect())
        })
    }

    /// The id of the run whose global id is `uuid`, if this history has it
    /// (`import` refuses a result it holds already, naming that id).
    pub fn id_of_uuid(&self, uuid: &str) -> Result<Option<i64>> {
        self.transaction(false, |tx| {
            let rows = tx.query("SELECT id FROM runs WHERE run_uuid = ?1", &[uuid.into()])?;
            Ok(rows.first().and_then(|r| r[0].int()))
        })
    }

    /// Adds `records` (runs of another history, keeping their UUIDs) in
    /// one transaction, each at most once; see the module's rules.
    pub fn merge(&mut self, records: &[RunRecord]) -> Result<Merged> {
        let rows = records
            .iter()
            .filter(|r| !r.uuid.is_empty())
            .map(|r| Row::of(r).map(|row| (row, r)))
            .collect::<Result<Vec<_>, _>>()?;
        self.transaction(true, |tx| {
            let mut merged = Merged::default();
            for (row, rec) in &rows {
                let found = tx.query(
                    "SELECT id, live_host FROM runs WHERE run_uuid = ?1",
                    &[row.uuid.as_str().into()],
                )?;
                match found.first() {
                    None => {
                        let id = row.insert(tx, None)?;
                        record::insert_labels(tx, id, &rec.labels)?;
                        merged.added += 1;
                    }
                    Some(r) if r[1].text().is_some() => {
                        finish_row(tx, r[0].int().unwrap_or(0), row, rec)?;
                        merged.completed += 1;
                    }
                    Some(_) => merged.present += 1,
                }
            }
            Ok(merged)
        })
    }

    /// The runs of this history that `other` (its [`Store::run_uuids`])
    /// lacks or has only live; runs still being written here are left for
    /// later.
    pub fn missing_from(&self, other: &HashMap<String, bool>) -> Result<Vec<RunRecord>> {
        Ok(missing_among(self.list(&crate::Filter::default())?, other))
    }

    /// Saves `record` here for the PostgreSQL history `server` (its URL
    /// without password), which could not be reached: [`Store::pending`]
    /// finds it for the next save that reaches that server.
    pub fn keep_for(&mut self, record: &RunRecord, server: &str) -> Result<i64> {
        let row = Row::of(record)?;
        self.transaction(true, |tx| {
            let id = row.insert(tx, None)?;
            record::insert_labels(tx, id, &record.labels)?;
            tx.execute(
                "INSERT INTO pending_sync (run_id, server) VALUES (?1, ?2)",
                &[id.into(), server.into()],
            )?;
            Ok(id)
        })
    }

    /// The runs kept here for `server` by [`Store::keep_for`].
    pub fn pending(&self, server: &str) -> Result<Vec<RunRecord>> {
        let ids = self.transaction(false, |tx| {
            tx.query(
                "SELECT run_id FROM pending_sync WHERE server = ?1 ORDER BY run_id",
                &[server.into()],
            )
        })?;
        ids.iter()
            .filter_map(|r| r[0].int())
            .map(|id| self.get(id))
            .collect()
    }

    /// Forgets that runs `ids` were waiting for a server (they got there).
    pub fn sent(&mut self, ids: &[i64]) -> Result<()> {
        self.transaction(true, |tx| {
            for id in ids {
                tx.execute(
                    "DELETE FROM pending_sync WHERE run_id = ?1",
                    &[(*id).into()],
                )?;
            }
            Ok(())
        })
    }

    /// Makes `role` a writer of this PostgreSQL history (see
    /// [`crate::grant_writer_sql`]); needs the tables' owner.
    pub fn grant_writer(&mut self, role: &str) -> Result<()> {
        if self.server.is_none() {
            return Err(StoreError::NotPostgres {
                what: "diskbench db grant-writer",
                path: self.path.clone(),
            });
        }
        let sql = crate::grant_writer_sql(role);
        self.transaction(true, |tx| {
            for statement in sql.split(";\n").filter(|s| !s.trim().is_empty()) {
                tx.execute(statement, &[])?;
            }
            Ok(())
        })
    }
}
