//! A `RunRecord` to and from a `runs` row (plus its `labels` rows). The
//! result JSON is the truth when reading; the host and target columns are
//! copies of it for filtering in SQL, written once and never read back.

use crate::error::RecordError;
use crate::live::Owner;
use model::{LivePoint, Prices, RunKind, RunRecord, RunResult, RunState, SoakRef};
use rusqlite::types::Value;
use rusqlite::{params, Connection, Row as SqlRow, Transaction};
use std::collections::BTreeMap;

/// The columns [`Raw::from_row`] reads, in its order.
pub(crate) const COLUMNS: &str =
    "id, kind, result_json, price_per_gib_month, price_per_million_ios, \
     price_per_month, soak_id, soak_run, live_host, live_pid, live_pid_start, \
     live_heartbeat_unix_ms, live_group";

/// The columns a saved run writes, in the order of [`Row::values`].
const WRITTEN: [&str; 29] = [
    "kind",
    "started_unix_ms",
    "finished_unix_ms",
    "saved_unix_ms",
    "command_line",
    "tool_version",
    "interrupted",
    "error",
    "result_json",
    "host_name",
    "host_kernel",
    "host_cpu_model",
    "host_cpus",
    "host_mem_bytes",
    "target_path",
    "target_filesystem",
    "target_mount_source",
    "target_mount_options",
    "target_device",
    "target_model",
    "target_device_bytes",
    "target_rotational",
    "target_scheduler",
    "target_logical_block_bytes",
    "price_per_gib_month",
    "price_per_million_ios",
    "price_per_month",
    "soak_id",
    "soak_run",
];

/// SQLite integers are signed: values past `i64::MAX` (never seen in
/// practice for times and sizes) are clamped rather than wrapped.
pub(crate) fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The values of one `runs` row, ready to insert.
pub(crate) struct Row<'a> {
    kind: &'static str,
    result_json: String,
    command_line: String,
    record: &'a RunRecord,
}

impl<'a> Row<'a> {
    pub(crate) fn of(record: &'a RunRecord) -> Result<Row<'a>, serde_json::Error> {
        Ok(Row {
            kind: record.kind.name(),
            result_json: serde_json::to_string(&record.result)?,
            command_line: shell_words(&record.result.command_line),
            record,
        })
    }

    /// The values of [`WRITTEN`], in order.
    fn values(&self) -> Vec<Value> {
        let r = &self.record.result;
        let h = &r.host;
        let t = r.targets.first().cloned().unwrap_or_default();
        let p = &self.record.prices;
        let soak = self.record.soak.as_ref();
        vec![
            self.kind.to_string().into(),
            to_i64(r.started_unix_ms).into(),
            to_i64(r.finished_unix_ms).into(),
            to_i64(now_unix_ms()).into(),
            self.command_line.clone().into(),
            r.tool_version.clone().into(),
            r.interrupted.into(),
            r.error.clone().into(),
            self.result_json.clone().into(),
            h.hostname.clone().into(),
            h.kernel.clone().into(),
            h.cpu_model.clone().into(),
            h.cpus.into(),
            to_i64(h.mem_bytes).into(),
            (!t.path.is_empty()).then_some(t.path).into(),
            t.filesystem.into(),
            t.mount_source.into(),
            t.mount_options.into(),
            t.device.into(),
            t.model.into(),
            t.device_bytes.map(to_i64).into(),
            t.rotational.into(),
            t.scheduler.into(),
            t.logical_block_bytes.map(to_i64).into(),
            p.per_gib_month.into(),
            p.per_million_ios.into(),
            p.per_month.into(),
            soak.map(|s| s.id.clone()).into(),
            soak.map(|s| s.run).into(),
        ]
    }

    pub(crate) fn insert(&self, tx: &Transaction) -> rusqlite::Result<i64> {
        let marks = (1..=WRITTEN.len())
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!("INSERT INTO runs ({}) VALUES ({marks})", WRITTEN.join(", "));
        tx.prepare_cached(&sql)?
            .execute(rusqlite::params_from_iter(self.values()))?;
        Ok(tx.last_insert_rowid())
    }

    /// Writes every column of run `id` (and clears its live columns when
    /// `live` is `None`, which makes it a saved run); false when no such row.
    pub(crate) fn update(
        &self,
        tx: &Transaction,
        id: i64,
        live: Option<&LiveColumns>,
    ) -> rusqlite::Result<bool> {
        let mut values = self.values();
        let mut sets: Vec<String> = WRITTEN
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c} = ?{}", i + 1))
            .collect();
        let live_values: [Value; 5] = match live {
            Some(l) => [
                l.owner.host.clone().into(),
                l.owner.pid.into(),
                to_i64(l.owner.start_ticks).into(),
                to_i64(l.heartbeat_unix_ms).into(),
                l.group.into(),
            ],
            None => std::array::from_fn(|_| Value::Null),
        };
        for (name, value) in LIVE_COLUMNS.iter().zip(live_values) {
            values.push(value);
            sets.push(format!("{name} = ?{}", values.len()));
        }
        values.push(id.into());
        let sql = format!(
            "UPDATE runs SET {} WHERE id = ?{}",
            sets.join(", "),
            values.len()
        );
        let changed = tx
            .prepare_cached(&sql)?
            .execute(rusqlite::params_from_iter(values))?;
        Ok(changed > 0)
    }
}

/// The columns that make a row live, in the order [`Row::update`] sets them.
const LIVE_COLUMNS: [&str; 5] = [
    "live_host",
    "live_pid",
    "live_pid_start",
    "live_heartbeat_unix_ms",
    "live_group",
];

/// What marks a row as a run still being written.
pub(crate) struct LiveColumns {
    pub(crate) owner: Owner,
    pub(crate) heartbeat_unix_ms: u64,
    pub(crate) group: u32,
}

pub(crate) fn insert_labels(
    tx: &Transaction,
    id: i64,
    labels: &BTreeMap<String, String>,
) -> rusqlite::Result<()> {
    let mut stmt =
        tx.prepare_cached("INSERT INTO labels (run_id, key, value) VALUES (?1, ?2, ?3)")?;
    for (key, value) in labels {
        stmt.execute(params![id, key, value])?;
    }
    Ok(())
}

pub(crate) fn labels_of(conn: &Connection, id: i64) -> rusqlite::Result<BTreeMap<String, String>> {
    let mut stmt = conn.prepare_cached("SELECT key, value FROM labels WHERE run_id = ?1")?;
    let rows = stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

/// A `runs` row as read, before the JSON is decoded.
pub(crate) struct Raw {
    pub(crate) id: i64,
    kind: String,
    result_json: String,
    prices: Prices,
    soak: Option<SoakRef>,
    pub(crate) live: Option<LiveColumns>,
}

impl Raw {
    pub(crate) fn from_row(r: &SqlRow) -> rusqlite::Result<Raw> {
        let soak_id: Option<String> = r.get(6)?;
        let soak_run: Option<i64> = r.get(7)?;
        let live_host: Option<String> = r.get(8)?;
        let live = match live_host {
            Some(host) => Some(LiveColumns {
                owner: Owner {
                    host,
                    pid: r
                        .get::<_, Option<i64>>(9)?
                        .unwrap_or(0)
                        .clamp(0, u32::MAX as i64) as u32,
                    start_ticks: r.get::<_, Option<i64>>(10)?.unwrap_or(0).max(0) as u64,
                },
                heartbeat_unix_ms: r.get::<_, Option<i64>>(11)?.unwrap_or(0).max(0) as u64,
                group: r
                    .get::<_, Option<i64>>(12)?
                    .unwrap_or(0)
                    .clamp(0, u32::MAX as i64) as u32,
            }),
            None => None,
        };
        Ok(Raw {
            id: r.get(0)?,
            kind: r.get(1)?,
            result_json: r.get(2)?,
            prices: Prices {
                per_gib_month: r.get(3)?,
                per_million_ios: r.get(4)?,
                per_month: r.get(5)?,
            },
            soak: soak_id.map(|id| SoakRef {
                id,
                run: soak_run.unwrap_or(0).clamp(0, u32::MAX as i64) as u32,
            }),
            live,
        })
    }

    /// The record; a live row's placeholder jobs are filled from `points`.
    pub(crate) fn into_record(
        self,
        labels: BTreeMap<String, String>,
        points: &[LivePoint],
    ) -> Result<RunRecord, RecordError> {
        let kind = RunKind::parse(&self.kind)
            .ok_or_else(|| RecordError::UnknownKind(self.kind.clone()))?;
        let mut result: RunResult =
            serde_json::from_str(&self.result_json).map_err(RecordError::Json)?;
        if kind == RunKind::ImportedFio {
            mark_rebuilt(&mut result);
        }
        let state = match &self.live {
            None => RunState::Saved,
            Some(live) => crate::live::rebuild(&mut result, live, points),
        };
        Ok(RunRecord {
            id: self.id,
            kind,
            labels,
            prices: self.prices,
            result,
            soak: self.soak,
            state,
        })
    }
}

/// Runs imported before diskbench kept fio's own record (`model::Imported`)
/// hold only histograms rebuilt from fio's figures. Their jobs get an empty
/// record when read, so the reports know that what they derive from those
/// histograms is approximate, not fio's. Nothing in the file changes: the
/// result JSON of such a run is what that diskbench wrote.
fn mark_rebuilt(result: &mut RunResult) {
    for job in &mut result.jobs {
        job.imported.get_or_insert_with(model::Imported::default);
    }
}

pub(crate) fn now_unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The command line as one string a shell would split back the same way
/// (for people reading the table with `sqlite3`; the JSON keeps the argv).
fn shell_words(argv: &[String]) -> String {
    let plain = |a: &str| {
        !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_=./,:@%+".contains(c))
    };
    argv.iter()
        .map(|a| {
            if plain(a) {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_are_quoted_only_where_needed() {
        let argv = ["diskbench", "fio", "--name=a b", "it's", ""].map(String::from);
        assert_eq!(
            shell_words(&argv),
            r"diskbench fio '--name=a b' 'it'\''s' ''"
        );
    }
}
