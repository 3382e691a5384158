//! `diskbench export RUN --format json|fio-json|csv`: one run out of the
//! history for other tools: diskbench's own record (everything, histograms
//! included), fio-compatible JSON, or CSV with one row per job and
//! direction.

use crate::cmd_history::csv_field;
use crate::history::DbArgs;
use crate::outcome::Exit;
use clap::{Args, ValueEnum};
use model::{Direction, RunRecord};
use report::stats::{dir_name, dir_stats, DIRECTIONS};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    /// The history's record: labels, prices and the full result, as JSON
    Json,
    /// fio's JSON output shape (what `diskbench fio --output-format=json` prints)
    FioJson,
    /// One row per job and direction: IOPS, bytes/s, mean/p50/p99 latency
    Csv,
}

#[derive(Args)]
pub struct ExportArgs {
    /// The run's id (see `diskbench history`)
    #[arg(value_name = "RUN", value_parser = crate::selection::parse_run_id)]
    id: i64,
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: ExportArgs) -> anyhow::Result<Exit> {
    let record = crate::history::open(&args.db)?.get(args.id)?;
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&record)?),
        Format::FioJson => print!("{}", report::json::render(&record.result)),
        Format::Csv => print!("{}", csv(&record)),
    }
    Ok(Exit::Ok)
}

/// Latency is the total latency (`lat`), or the completion latency where
/// an engine recorded no total, as in the `diskbench run` table.
fn csv(record: &RunRecord) -> String {
    let mut out = String::from(
        "run,job,rw,ios,bytes,runtime_ns,iops,bytes_per_sec,lat_mean_ns,lat_p50_ns,lat_p99_ns\n",
    );
    for job in &record.result.jobs {
        let dirs: Vec<Direction> = DIRECTIONS
            .into_iter()
            .filter(|&d| {
                let did = dir_stats(job, d).ios > 0;
                let meant = match d {
                    Direction::Read => job.spec.rw.reads(),
                    Direction::Write => job.spec.rw.writes(),
                };
                did || meant
            })
            .collect();
        for dir in dirs {
            let d = dir_stats(job, dir);
            let h = if d.lat.is_empty() { &d.clat } else { &d.lat };
            let lat = |v: f64| {
                if h.is_empty() {
                    String::new()
                } else {
                    format!("{v:.0}")
                }
            };
            out.push_str(&format!(
                "{},{},{},{},{},{},{:.3},{:.0},{},{},{}\n",
                record.id,
                csv_field(&job.name),
                dir_name(dir),
                d.ios,
                d.bytes,
                d.runtime_ns,
                d.iops(),
                d.bytes_per_sec(),
                lat(h.mean()),
                lat(h.percentile(50.0) as f64),
                lat(h.percentile(99.0) as f64),
            ));
        }
    }
    out
}
