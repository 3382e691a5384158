//! A `RunRecord` to and from a `runs` row (plus its `labels` rows), the
//! same for every database (see `dialect`). The result JSON is the truth
//! when reading; the host and target columns are copies of it for filtering
//! in SQL, written once and never read back.

use crate::backend::Tx;
use crate::dialect::Cell;
use crate::error::RecordError;
use crate::live_row::{now_unix_ms, LiveColumns, Owner};
use crate::Result;
use model::{LivePoint, Prices, RunKind, RunRecord, RunResult, RunState, SoakRef};
use std::collections::BTreeMap;

/// The columns [`Raw::from_cells`] reads, in its order.
pub(crate) const COLUMNS: &str =
    "id, kind, result_json, price_per_gib_month, price_per_million_ios, \
     price_per_month, soak_id, soak_run, live_host, live_pid, live_pid_start, \
     live_heartbeat_unix_ms, live_group, run_uuid";

/// The columns a saved run writes, in the order of [`Row::values`].
const WRITTEN: [&str; 33] = [
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
    "run_uuid",
    "host_machine_id",
    "host_vendor",
    "host_product",
];

/// SQLite integers are signed: values past `i64::MAX` (never seen in
/// practice for times and sizes) are clamped rather than wrapped.
pub(crate) fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The values of one `runs` row, ready to insert.
pub(crate) struct Row<'a> {
    kind: &'static str,
    /// The record's own, or a new one for a record that has none yet.
    pub(crate) uuid: String,
    /// Whether `uuid` was made here: an update then keeps the row's own.
    fresh_uuid: bool,
    result_json: String,
    command_line: String,
    record: &'a RunRecord,
}

impl<'a> Row<'a> {
    pub(crate) fn of(record: &'a RunRecord) -> Result<Row<'a>, serde_json::Error> {
        Ok(Row {
            kind: record.kind.name(),
            uuid: match record.uuid.is_empty() {
                true => new_uuid(),
                false => record.uuid.clone(),
            },
            fresh_uuid: record.uuid.is_empty(),
            result_json: serde_json::to_string(&record.result)?,
            command_line: shell_words(&record.result.command_line),
            record,
        })
    }

    /// The values of [`WRITTEN`], in order.
    fn values(&self) -> Vec<Cell> {
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
            self.uuid.as_str().into(),
            h.machine_id.clone().into(),
            h.vendor.clone().into(),
            h.product.clone().into(),
        ]
    }

    /// Inserts the row (live when `live` says so); returns its id.
    pub(crate) fn insert(&self, tx: &mut dyn Tx, live: Option<&LiveColumns>) -> Result<i64> {
        let mut names: Vec<&str> = WRITTEN.to_vec();
        let mut values = self.values();
        if let Some(l) = live {
            names.extend(LIVE_COLUMNS);
            values.extend(live_values(Some(l)));
        }
        let marks = (1..=values.len())
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "INSERT INTO runs ({}) VALUES ({marks}) RETURNING id",
            names.join(", ")
        );
        let rows = tx.query(&sql, &values)?;
        Ok(rows.first().and_then(|r| r[0].int()).unwrap_or(0))
    }

    /// Writes every column of run `id` (and clears its live columns when
    /// `live` is `None`, which makes it a saved run); false when no such row.
    pub(crate) fn update(
        &self,
        tx: &mut dyn Tx,
        id: i64,
        live: Option<&LiveColumns>,
    ) -> Result<bool> {
        let mut values = self.values();
        let mut sets: Vec<String> = WRITTEN
            .iter()
            .enumerate()
            .map(|(i, c)| match *c {
                "run_uuid" if self.fresh_uuid => format!("{c} = COALESCE({c}, ?{})", i + 1),
                _ => format!("{c} = ?{}", i + 1),
            })
            .collect();
        for (name, value) in LIVE_COLUMNS.iter().zip(live_values(live)) {
            values.push(value);
            sets.push(format!("{name} = ?{}", values.len()));
        }
        values.push(id.into());
        let sql = format!(
            "UPDATE runs SET {} WHERE id = ?{}",
            sets.join(", "),
            values.len()
        );
        Ok(tx.execute(&sql, &values)? > 0)
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

/// The values of [`LIVE_COLUMNS`]: all NULL for a saved run.
fn live_values(live: Option<&LiveColumns>) -> [Cell; 5] {
    match live {
        Some(l) => [
            l.owner.host.as_str().into(),
            l.owner.pid.into(),
            to_i64(l.owner.start_ticks).into(),
            to_i64(l.heartbeat_unix_ms).into(),
            l.group.into(),
        ],
        None => std::array::from_fn(|_| Cell::Null),
    }
}

pub(crate) fn insert_labels(
    tx: &mut dyn Tx,
    id: i64,
    labels: &BTreeMap<String, String>,
) -> Result<()> {
    for (key, value) in labels {
        tx.execute(
            "INSERT INTO labels (run_id, key, value) VALUES (?1, ?2, ?3)",
            &[id.into(), key.as_str().into(), value.as_str().into()],
        )?;
    }
    Ok(())
}

/// A run's labels, each key with its value.
type Labels = BTreeMap<String, String>;

pub(crate) fn labels_of(tx: &mut dyn Tx, id: i64) -> Result<Labels> {
    let rows = tx.query(
        "SELECT key, value FROM labels WHERE run_id = ?1",
        &[id.into()],
    )?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r[0].text().unwrap_or_default(),
                r[1].text().unwrap_or_default(),
            )
        })
        .collect())
}

/// A new global run id (a random UUID).
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A `runs` row as read, before the JSON is decoded.
pub(crate) struct Raw {
    pub(crate) id: i64,
    kind: String,
    result_json: String,
    prices: Prices,
    soak: Option<SoakRef>,
    pub(crate) live: Option<LiveColumns>,
    uuid: String,
}

impl Raw {
    /// A row read with [`COLUMNS`].
    pub(crate) fn from_cells(r: &[Cell]) -> Raw {
        let u32_of = |c: &Cell| c.int().unwrap_or(0).clamp(0, u32::MAX as i64) as u32;
        let u64_of = |c: &Cell| c.int().unwrap_or(0).max(0) as u64;
        let live = r[8].text().map(|host| LiveColumns {
            owner: Owner {
                host,
                pid: u32_of(&r[9]),
                start_ticks: u64_of(&r[10]),
            },
            heartbeat_unix_ms: u64_of(&r[11]),
            group: u32_of(&r[12]),
        });
        Raw {
            id: r[0].int().unwrap_or(0),
            kind: r[1].text().unwrap_or_default(),
            result_json: r[2].text().unwrap_or_default(),
            prices: Prices {
                per_gib_month: r[3].real(),
                per_million_ios: r[4].real(),
                per_month: r[5].real(),
            },
            soak: r[6].text().map(|id| SoakRef {
                id,
                run: u32_of(&r[7]),
            }),
            live,
            uuid: r[13].text().unwrap_or_default(),
        }
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
            Some(live) => crate::live_row::rebuild(&mut result, live, points),
        };
        Ok(RunRecord {
            id: self.id,
            kind,
            labels,
            prices: self.prices,
            result,
            soak: self.soak,
            state,
            uuid: self.uuid,
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
