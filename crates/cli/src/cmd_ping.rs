//! `diskbench ping [TARGET]`: ioping with its flags and its output, so a
//! user of ioping reads the same lines, plus the percentiles ioping lacks
//! and a line saying how the I/O was done. The measuring loop lives in
//! `workloads::ping` and the formats in `tool_output::ping`; this file
//! parses ioping's flags and prints.
//!
//! Output: ioping's per-request lines, its summary block (`--- T ioping
//! statistics ---`, `requests completed`, `generated`, `min/avg/max/mdev`),
//! then `p50/p90/p99/p99.9` and the I/O mode. `-B` prints ioping's raw
//! statistics line instead. `--json` prints one document:
//!
//! ```text
//! {"tool_version", "target": {"path", "filesystem", "device", "size_bytes"},
//!  "io": {"operation", "mode", "pattern", "request_bytes", "work_offset_bytes",
//!         "work_size_bytes", "interval_ns", "warmup"},
//!  "requests": [{"request", "offset_bytes", "time_ns", "notice"}],   (not with -q/-R)
//!  "summary": {"count", "time_ns", "bytes", "min_ns", "avg_ns", "max_ns", "mdev_ns",
//!              "iops", "bytes_per_sec", "percentiles": {"50.000000": ns, ...},
//!              "generated": {"count", "time_ns", "bytes", "iops", "bytes_per_sec"}},
//!  "error": "..."}                                                   (only on failure)
//! ```
//!
//! The run is saved in the history (`--db`, `--label`, `--no-save`, as for
//! `run`): the summary as printed, the JSON document, and the requests as
//! one fio-shaped job (`ping-randread-4k`: QD1, one worker), whose IOPS and
//! MB/s are ioping's (per second of I/O time) and whose latency histogram
//! is the requests'.
//!
//! Percentile keys are fio's (`"99.900000"`, fio's default list), so tools
//! that read fio's `clat_ns.percentile` read these. `iops` and
//! `bytes_per_sec` are ioping's (per second of I/O time); `generated` holds
//! the wall-clock figures.

use crate::outcome::Exit;
use clap::{ArgAction, Args};
use runner::RunError;
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use workloads::ping::{self, format_size};

#[derive(Args)]
pub struct PingArgs {
    /// Directory (a temporary file is made in a fresh subdirectory and removed), file or block device [default: .]
    target: Option<PathBuf>,
    /// Stop after COUNT requests, the warmup included (ioping: 1k = 1000); 0 = no limit
    #[arg(short = 'c', long = "count", value_name = "COUNT")]
    count: Option<String>,
    /// Time between requests (1s, 10ms, 0 ...) [default: 1s, 0 with -R]
    #[arg(short = 'i', long = "interval", value_name = "TIME")]
    interval: Option<String>,
    /// Request size (4k, 1m, 8sector, 1page) [default: 4k, 256k with -L]
    #[arg(short = 's', long = "size", value_name = "SIZE")]
    size: Option<String>,
    /// Working set [default: 1m in a directory, 64m with -R; a file or device whole]
    #[arg(short = 'S', long = "work-size", value_name = "SIZE")]
    work_size: Option<String>,
    /// Where the working set starts in the file or device
    #[arg(short = 'o', long = "work-offset", value_name = "SIZE")]
    work_offset: Option<String>,
    /// Stop after TIME [default: no limit, 3s with -R]
    #[arg(short = 'w', long = "work-time", value_name = "TIME")]
    deadline: Option<String>,
    /// Show but do not count the first COUNT requests
    #[arg(
        short = 'a',
        long = "warmup",
        value_name = "COUNT",
        default_value = "1"
    )]
    warmup: String,
    /// Direct I/O (O_DIRECT) or fail; without -D and -C diskbench still uses it where it can
    #[arg(short = 'D', long)]
    direct: bool,
    /// Cached I/O: no cache drop before reads, no fdatasync after writes
    #[arg(short = 'C', long)]
    cached: bool,
    /// Write instead of read: a directory's own temporary file; a file needs -WWW
    #[arg(short = 'W', long = "write", action = ArgAction::Count)]
    write: u8,
    /// As many requests as possible for 3s, only the summary (-q -i 0 -w 3)
    #[arg(short = 'R', long)]
    rapid: bool,
    /// Sequential requests instead of random ones
    #[arg(short = 'L', long)]
    linear: bool,
    /// Print only the summary
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Print only ioping's raw statistics line (count, time, iops, bytes/s, min, avg, max, mdev, requests, wall ns)
    #[arg(short = 'B', long)]
    batch: bool,
    /// Print one JSON document (see `summary` and `percentiles`) on stdout
    #[arg(long)]
    json: bool,
    /// Allow -W on a block device diskbench did not create (never a mounted one), or on a file without -WWW
    #[arg(long)]
    allow_destructive: bool,
    #[command(flatten)]
    save: crate::args::SaveArgs,
}

impl PingArgs {
    fn options(&self) -> Result<ping::PingOptions, String> {
        let flag = |name: &str, r: Result<u64, ping::PingValueError>| {
            r.map_err(|e| format!("{name}: {e}"))
        };
        let time = |name: &str, v: &Option<String>| {
            v.as_deref()
                .map(|t| ping::parse_time(t).map_err(|e| format!("{name}: {e}")))
                .transpose()
        };
        let size = |name: &str, v: &Option<String>| {
            v.as_deref()
                .map(|t| flag(name, ping::parse_size(t)))
                .transpose()
        };
        Ok(ping::PingOptions {
            target: self.target.clone().unwrap_or_else(|| PathBuf::from(".")),
            count: match &self.count {
                Some(c) => flag("-c", ping::parse_count(c))?,
                None => 0,
            },
            interval: time("-i", &self.interval)?,
            size_bytes: size("-s", &self.size)?,
            work_size_bytes: size("-S", &self.work_size)?,
            work_offset_bytes: size("-o", &self.work_offset)?.unwrap_or(0),
            deadline: time("-w", &self.deadline)?,
            warmup: flag("-a", ping::parse_count(&self.warmup))?,
            direct: self.direct,
            cached: self.cached,
            write: self.write,
            rapid: self.rapid,
            sequential: self.linear,
            allow_destructive: self.allow_destructive,
        })
    }

    /// ioping's -R implies -q.
    fn quiet(&self) -> bool {
        self.quiet || self.rapid || self.batch
    }
}

pub fn run(args: PingArgs) -> anyhow::Result<Exit> {
    let started_unix_ms = dates::now_ms();
    let stop = crate::outcome::stop_on_signals()?;
    let opts = match args.options() {
        Ok(o) => o,
        Err(e) => return Ok(fail(&args, &RunError::Usage(e))),
    };
    let mut prepared = match ping::prepare(&opts, &stop) {
        Ok(p) => p,
        Err(e) => return Ok(fail(&args, &e)),
    };
    for note in &prepared.notes {
        eprintln!("diskbench ping: {note}");
    }
    let quiet = args.quiet();
    let mut requests = Vec::new();
    let arrow = if prepared.write { ">>>" } else { "<<<" };
    let head = format!(
        "{} {arrow} {}",
        format_size(prepared.size_bytes),
        prepared.info
    );
    let mut out = std::io::stdout().lock();
    let outcome = ping::run(&mut prepared, &stop, |r| {
        if args.json {
            if !quiet {
                requests.push(tool_output::ping::request_json(r));
            }
        } else if !quiet {
            // A closed stdout (`| head`) must not stop the measurement.
            let _ = writeln!(out, "{}", tool_output::ping::request_line(&head, r));
            let _ = out.flush();
        }
    });
    drop(out);
    let stats = &outcome.stats;
    let doc = tool_output::ping::document(&prepared, stats);
    let text = tool_output::ping::summary(&prepared, stats);
    if args.json {
        let mut doc = doc.clone();
        if !quiet {
            doc["requests"] = Value::Array(requests);
        }
        if let Some(e) = &outcome.failure {
            doc["error"] = json!(failure_text(e));
            doc["failure"] = crate::outcome::failure_json(e);
        }
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&tool_output::ping::reorder(doc))?
        ));
    } else if args.batch {
        emit(&format!("{}\n", tool_output::ping::raw_line(stats)));
    } else {
        emit(&text);
    }
    if let Some(e) = &outcome.failure {
        eprintln!("diskbench ping: {}", failure_text(e));
    }
    let workload = (stats.count() > 0).then(|| history::Workload {
        kind: model::RunKind::Ping,
        target: opts.target.clone(),
        started_unix_ms,
        text,
        jobs: vec![tool_output::ping::as_job(&prepared, stats)],
        document: doc,
        error: outcome.failure.as_ref().map(failure_text),
        interrupted: outcome
            .failure
            .as_ref()
            .is_some_and(RunError::is_interrupted),
    });
    Ok(crate::save::save_workload(
        workload,
        &args.save,
        Exit::of(&outcome.failure),
    ))
}

/// Prints on stdout; a closed stdout (`| head`) is not an error worth a panic.
fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn failure_text(e: &RunError) -> String {
    match e {
        RunError::Interrupted => "interrupted; the statistics so far are shown".to_string(),
        other => other.to_string(),
    }
}

/// Nothing measured (bad flags, an unusable target, a signal while the file
/// was laid out): the message, and a JSON document with `error` when JSON
/// was asked for; exit 2 for usage, 1 for runtime errors, 130/143 for signals.
fn fail(args: &PingArgs, e: &RunError) -> Exit {
    let text = match e {
        RunError::Interrupted => "interrupted before the first request: nothing measured".into(),
        other => other.to_string(),
    };
    if args.json {
        let target = args.target.clone().unwrap_or_else(|| PathBuf::from("."));
        let doc = json!({
            "tool_version": runner::TOOL_VERSION,
            "target": {"path": target.display().to_string()},
            "error": text,
            "failure": crate::outcome::failure_json(e),
        });
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ));
    }
    eprintln!("diskbench ping: {text}");
    Exit::of_kind(Some(e.kind()))
}
