//! `diskbench export RUN --format json|fio-json|csv`: one run out of the
//! history for other tools: diskbench's own record (everything, histograms
//! included), fio-compatible JSON, or CSV with one row per job and
//! direction. A run of `meta` or `fileserver` has no fio-shaped jobs (file
//! operations are not reads and writes of a block size): fio's JSON and the
//! CSV are refused for it, naming `--format json`, which holds its figures.

use crate::args::DbArgs;
use crate::cmd_history::csv_field;
use crate::outcome::Exit;
use clap::{Args, ValueEnum};
use model::{Direction, RunRecord};
use report::source;
use report::stats::{dir_name, dir_stats, DIRECTIONS};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    /// The history's record: labels, prices and the full result, as JSON
    Json,
    /// fio's JSON output shape (what `diskbench fio --output-format=json`
    /// prints), with each job's latency histograms under
    /// `diskbench.histograms`, so `import` gives them back whole
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
    let record = crate::save::open(&args.db)?.get(args.id)?;
    let fio_shaped = !matches!(args.format, Format::Json);
    if let (true, true, Some(w)) = (
        fio_shaped,
        record.result.jobs.is_empty(),
        &record.result.workload,
    ) {
        eprintln!(
            "diskbench export: run {} is a `{}` run: its operations have no fio shape, so there \
             is nothing to write as fio's JSON or CSV; `diskbench export {} --format json` \
             gives its figures (under result.workload.document)",
            record.id, w.command, record.id
        );
        return Ok(Exit::Usage);
    }
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&record)?),
        Format::FioJson => print!("{}", report::json::render_with_histograms(&record.result)),
        Format::Csv => print!("{}", csv(&record)),
    }
    Ok(Exit::Ok)
}

/// Latency is the total latency (`lat`), or the completion latency where
/// an engine recorded no total, as in the `diskbench run` table. An
/// imported job gives its source's mean and percentiles where the source
/// has them; `lat_percentiles` says where p50 and p99 came from: `measured`,
/// `source` (the imported file's own figures), or `approximate` (re-derived
/// from the histogram rebuilt on import, which the source did not give).
fn csv(record: &RunRecord) -> String {
    let mut out = String::from(
        "run,job,rw,ios,bytes,runtime_ns,iops,bytes_per_sec,lat_mean_ns,lat_p50_ns,lat_p99_ns,\
         lat_percentiles\n",
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
            let (h, key) = if d.lat.is_empty() {
                (&d.clat, "clat_ns")
            } else {
                (&d.lat, "lat_ns")
            };
            let src = source::lat(job, dir, key);
            let from_source = |pct: &str| {
                let p = src.as_ref()?.percentiles.iter().find(|(k, _)| k == pct)?;
                Some(p.1 as f64)
            };
            let (mean, p50, p99, origin) =
                match (from_source("50.000000"), from_source("99.000000")) {
                    (Some(p50), Some(p99)) => (
                        src.as_ref().map_or(h.mean(), |s| s.stats.mean),
                        p50,
                        p99,
                        "source",
                    ),
                    _ => (
                        h.mean(),
                        h.percentile(50.0) as f64,
                        h.percentile(99.0) as f64,
                        if source::rebuilt(job) {
                            "approximate"
                        } else {
                            "measured"
                        },
                    ),
                };
            let lat = |v: f64| {
                if h.is_empty() {
                    String::new()
                } else {
                    format!("{v:.0}")
                }
            };
            out.push_str(&format!(
                "{},{},{},{},{},{},{:.3},{:.0},{},{},{},{}\n",
                record.id,
                csv_field(&job.name),
                dir_name(dir),
                d.ios,
                d.bytes,
                d.runtime_ns,
                d.iops(),
                d.bytes_per_sec(),
                lat(mean),
                lat(p50),
                lat(p99),
                if h.is_empty() { "" } else { origin },
            ));
        }
    }
    out
}
