//! A `RunRecord` to and from a `runs` row (plus its `labels` rows). The
//! result JSON is the truth when reading; the host and target columns are
//! copies of it for filtering in SQL, written once and never read back.

use model::{Prices, RunKind, RunRecord, RunResult};
use rusqlite::{params, Connection, Row as SqlRow, Transaction};
use std::collections::BTreeMap;

/// The columns [`Raw::from_row`] reads, in its order.
pub(crate) const COLUMNS: &str =
    "id, kind, result_json, price_per_gib_month, price_per_million_ios, price_per_month";

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

    pub(crate) fn insert(&self, tx: &Transaction) -> rusqlite::Result<i64> {
        let r = &self.record.result;
        let h = &r.host;
        let t = r.targets.first().cloned().unwrap_or_default();
        let p = &self.record.prices;
        tx.execute(
            "INSERT INTO runs (kind, started_unix_ms, finished_unix_ms, saved_unix_ms, command_line,
                tool_version, interrupted, error, result_json,
                host_name, host_kernel, host_cpu_model, host_cpus, host_mem_bytes,
                target_path, target_filesystem, target_mount_source, target_mount_options,
                target_device, target_model, target_device_bytes, target_rotational,
                target_scheduler, target_logical_block_bytes,
                price_per_gib_month, price_per_million_ios, price_per_month)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)",
            params![
                self.kind,
                to_i64(r.started_unix_ms),
                to_i64(r.finished_unix_ms),
                to_i64(now_unix_ms()),
                self.command_line,
                r.tool_version,
                r.interrupted,
                r.error,
                self.result_json,
                h.hostname,
                h.kernel,
                h.cpu_model,
                h.cpus,
                to_i64(h.mem_bytes),
                (!t.path.is_empty()).then_some(&t.path),
                t.filesystem,
                t.mount_source,
                t.mount_options,
                t.device,
                t.model,
                t.device_bytes.map(to_i64),
                t.rotational,
                t.scheduler,
                t.logical_block_bytes.map(to_i64),
                p.per_gib_month,
                p.per_million_ios,
                p.per_month,
            ],
        )?;
        Ok(tx.last_insert_rowid())
    }
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
}

impl Raw {
    pub(crate) fn from_row(r: &SqlRow) -> rusqlite::Result<Raw> {
        Ok(Raw {
            id: r.get(0)?,
            kind: r.get(1)?,
            result_json: r.get(2)?,
            prices: Prices {
                per_gib_month: r.get(3)?,
                per_million_ios: r.get(4)?,
                per_month: r.get(5)?,
            },
        })
    }

    pub(crate) fn into_record(self, labels: BTreeMap<String, String>) -> Result<RunRecord, String> {
        let kind =
            RunKind::parse(&self.kind).ok_or_else(|| format!("unknown kind '{}'", self.kind))?;
        let result: RunResult = serde_json::from_str(&self.result_json)
            .map_err(|e| format!("its result JSON does not decode: {e}"))?;
        Ok(RunRecord {
            id: self.id,
            kind,
            labels,
            prices: self.prices,
            result,
        })
    }
}

fn now_unix_ms() -> u64 {
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
