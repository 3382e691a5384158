//! `diskbench history`: the runs kept, one line each, with the figures
//! people compare (IOPS, Read MB/s, Write MB/s by the headline rule of
//! `report::table`), filtered by label, time and command. A run's status
//! says whether it was saved whole (ok, interrupted, error) or is only
//! known from what was written while it ran (running, killed), and a
//! soak's runs show its id and their number.

use crate::args::DbArgs;
use crate::outcome::Exit;
use crate::selection::Filters;
use clap::{Args, ValueEnum};
use dates::format_utc;
use model::{RunRecord, RunState, SoakRef};
use serde_json::json;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
}

#[derive(Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    filters: Filters,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: HistoryArgs) -> anyhow::Result<Exit> {
    let filter = match args.filters.filter() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("diskbench history: {e}");
            return Ok(Exit::Usage);
        }
    };
    let store = crate::save::open(&args.db)?;
    let runs = store.list(&filter)?;
    let rows: Vec<Row> = runs.iter().map(Row::of).collect();
    match args.format {
        Format::Table if rows.is_empty() => {
            eprintln!("no runs in {} match", store.path().display())
        }
        Format::Table => print!("{}", table(&rows)),
        Format::Csv => print!("{}", csv(&rows)),
        Format::Json => {
            let list: Vec<_> = runs.iter().zip(&rows).map(|(r, row)| row.json(r)).collect();
            println!("{}", serde_json::to_string_pretty(&list)?);
        }
    }
    Ok(Exit::Ok)
}

/// One run's line: the text of every column.
struct Row {
    id: i64,
    started_ms: u64,
    command: &'static str,
    labels: String,
    target: String,
    device: String,
    iops: Option<f64>,
    read_mb: Option<f64>,
    write_mb: Option<f64>,
    status: &'static str,
    /// How many warnings and checks the run kept: a mark beside its status.
    warnings: usize,
    soak: Option<SoakRef>,
}

/// ok, interrupted or error for a run saved whole; running or killed for
/// one only written while it ran.
fn status(r: &RunRecord) -> &'static str {
    match r.state {
        RunState::Saved if r.result.interrupted => "interrupted",
        RunState::Saved if r.result.error.is_some() => "error",
        RunState::Saved => "ok",
        state => state.name(),
    }
}

impl Row {
    fn of(r: &RunRecord) -> Row {
        let h = report::headline_figures(&r.result);
        let t = r.result.targets.first();
        Row {
            id: r.id,
            started_ms: r.result.started_unix_ms,
            command: r.kind.name(),
            labels: r
                .labels
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(","),
            target: t.map(|t| t.path.clone()).unwrap_or_default(),
            device: t.and_then(|t| t.device.clone()).unwrap_or_default(),
            iops: h.iops.map(|f| f.value),
            read_mb: h.read_mb_per_sec.map(|f| f.value),
            write_mb: h.write_mb_per_sec.map(|f| f.value),
            status: status(r),
            warnings: r.result.warnings.len(),
            soak: r.soak.clone(),
        }
    }

    fn json(&self, r: &RunRecord) -> serde_json::Value {
        json!({
            "id": self.id,
            "command": self.command,
            "started_unix_ms": r.result.started_unix_ms,
            "finished_unix_ms": r.result.finished_unix_ms,
            "command_line": r.result.command_line,
            "labels": r.labels,
            "prices": r.prices,
            "interrupted": r.result.interrupted,
            "error": r.result.error,
            "host": r.result.host,
            "target": r.result.targets.first(),
            "iops": self.iops,
            "read_mb_per_s": self.read_mb,
            "write_mb_per_s": self.write_mb,
            "status": self.status,
            "warnings": r.result.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "state": r.state,
            "soak": self.soak.as_ref().map(|s| &s.id),
            "soak_run": self.soak.as_ref().map(|s| s.run),
        })
    }
}

fn fixed(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.decimals$}"))
}

fn table(rows: &[Row]) -> String {
    let mut cells = vec![[
        "id",
        "started (UTC)",
        "command",
        "labels",
        "target",
        "device",
        "IOPS",
        "Read MB/s",
        "Write MB/s",
        "status",
        "soak",
    ]
    .map(String::from)
    .to_vec()];
    for r in rows {
        cells.push(vec![
            r.id.to_string(),
            format_utc(r.started_ms),
            r.command.to_string(),
            r.labels.clone(),
            r.target.clone(),
            r.device.clone(),
            fixed(r.iops, 0),
            fixed(r.read_mb, 1),
            fixed(r.write_mb, 1),
            match r.warnings {
                0 => r.status.to_string(),
                1 => format!("{}, 1 warning", r.status),
                n => format!("{}, {n} warnings", r.status),
            },
            r.soak
                .as_ref()
                .map(|s| format!("{} #{}", s.id, s.run))
                .unwrap_or_default(),
        ]);
    }
    let right = [
        true, false, false, false, false, false, true, true, true, false, false,
    ];
    let widths: Vec<usize> = (0..right.len())
        .map(|c| {
            cells
                .iter()
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &cells {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                let w = widths[c];
                if right[c] {
                    format!("{cell:>w$}")
                } else {
                    format!("{cell:<w$}")
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// A CSV field, quoted when it holds a comma, quote or line break.
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "id,started_unix_ms,started_utc,command,labels,target,device,iops,read_mb_per_s,write_mb_per_s,status,soak,soak_run\n",
    );
    let num = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    for r in rows {
        let fields = [
            r.id.to_string(),
            r.started_ms.to_string(),
            format_utc(r.started_ms),
            r.command.to_string(),
            r.labels.clone(),
            r.target.clone(),
            r.device.clone(),
            num(r.iops),
            num(r.read_mb),
            num(r.write_mb),
            r.status.to_string(),
            r.soak.as_ref().map(|s| s.id.clone()).unwrap_or_default(),
            r.soak
                .as_ref()
                .map(|s| s.run.to_string())
                .unwrap_or_default(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}
