//! `diskbench ping [TARGET]`: ioping with its flags and its output, so a
//! user of ioping reads the same lines, plus the percentiles ioping lacks
//! and a line saying how the I/O was done. The measuring loop lives in
//! `workloads::ping`; this file parses ioping's flags and prints.
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
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;
use workloads::ping::{self, format_count, format_size, format_time, IoMode, Prepared};

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
        let flag = |name: &str, r: Result<u64, String>| r.map_err(|e| format!("{name}: {e}"));
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
                requests.push(request_json(r));
            }
        } else if !quiet {
            // A closed stdout (`| head`) must not stop the measurement.
            let _ = writeln!(out, "{}", request_line(&head, r));
            let _ = out.flush();
        }
    });
    drop(out);
    let stats = &outcome.stats;
    let doc = document(&prepared, stats);
    let text = summary(&prepared, stats);
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
            serde_json::to_string_pretty(&reorder(doc))?
        ));
    } else if args.batch {
        emit(&format!("{}\n", raw_line(stats)));
    } else {
        emit(&text);
    }
    if let Some(e) = &outcome.failure {
        eprintln!("diskbench ping: {}", failure_text(e));
    }
    let workload = (stats.count() > 0).then(|| crate::history::Workload {
        kind: model::RunKind::Ping,
        target: opts.target.clone(),
        started_unix_ms,
        text,
        jobs: vec![as_job(&prepared, stats)],
        document: doc,
        error: outcome.failure.as_ref().map(failure_text),
        interrupted: outcome
            .failure
            .as_ref()
            .is_some_and(RunError::is_interrupted),
    });
    Ok(crate::history::save_workload(
        workload,
        &args.save,
        Exit::of(&outcome.failure),
    ))
}

/// The counted requests as the fio job they are: one worker at QD1, every
/// request's time in the latency histogram, and ioping's rates (per second
/// of I/O time, not of wall time with its `-i` pauses).
fn as_job(p: &Prepared, s: &ping::PingStats) -> model::JobResult {
    use model::RwMode;
    let rw = match (p.write, p.sequential) {
        (false, false) => RwMode::RandRead,
        (false, true) => RwMode::Read,
        (true, false) => RwMode::RandWrite,
        (true, true) => RwMode::Write,
    };
    let bs = model::units::format_size(p.size_bytes);
    let name = format!("ping-{}-{bs}", rw.fio_name());
    let mut spec = model::JobSpec::new(name.clone());
    spec.rw = rw;
    spec.bs_bytes = p.size_bytes;
    spec.direct = p.mode == IoMode::Direct;
    spec.size_bytes = Some(p.work_size_bytes);
    spec.offset_bytes = p.work_offset_bytes;
    spec.options = vec![
        ("rw".into(), rw.fio_name().into()),
        ("bs".into(), bs),
        ("iodepth".into(), "1".into()),
        ("direct".into(), u8::from(spec.direct).to_string()),
    ];
    let done = model::DirStats {
        ios: s.count(),
        bytes: s.count() * s.size_bytes,
        runtime_ns: s.sum_ns.min(u128::from(u64::MAX)) as u64,
        slat: None,
        clat: s.histogram.clone(),
        lat: s.histogram.clone(),
        response: None,
        prios: Vec::new(),
    };
    let (read, write) = match p.write {
        true => (model::DirStats::default(), done),
        false => (done, model::DirStats::default()),
    };
    model::JobResult {
        name,
        engine: model::EngineKind::Sync,
        runtime_ns: s.load_ns,
        read,
        write,
        ..model::JobResult::empty(&spec, 0, 1)
    }
}

/// `4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=1 time=136.3 us (warmup)`;
/// `head` is everything before the colon.
fn request_line(head: &str, r: &ping::Request) -> String {
    let notice = r
        .notice
        .map(|n| format!(" ({})", n.name()))
        .unwrap_or_default();
    format!(
        "{head}: request={} time={}{notice}",
        r.index,
        format_time(r.time_ns)
    )
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

fn mode_text(p: &Prepared) -> String {
    let how = match p.mode {
        IoMode::Direct => "direct I/O (O_DIRECT)",
        IoMode::NonCached if p.write => "buffered I/O, fdatasync after each write",
        IoMode::NonCached => "buffered I/O, cache dropped before each read",
        IoMode::Cached => "cached I/O (-C)",
    };
    let sync = if p.write && p.sync_writes && p.mode == IoMode::Direct {
        ", fdatasync after each write"
    } else {
        ""
    };
    let pattern = if p.sequential { "sequential" } else { "random" };
    let op = if p.write { "writes" } else { "reads" };
    format!(
        "{how}{sync}; {pattern} {} {op} in a {} working set",
        format_size(p.size_bytes),
        format_size(p.work_size_bytes)
    )
}

fn warmup_text(warmup: u64) -> String {
    match warmup {
        0 => "every request counted (-a 0)".to_string(),
        1 => "request 1 was a warmup, not counted, as in ioping".to_string(),
        n => format!("requests 1-{n} were warmups, not counted, as in ioping"),
    }
}

/// ioping's summary block, then the percentiles and how the I/O was done.
fn summary(p: &Prepared, s: &ping::PingStats) -> String {
    let h = &s.histogram;
    let verb = if p.write { "written" } else { "read" };
    let pcts = [50.0, 90.0, 99.0, 99.9].map(|q| format_time(h.percentile(q)));
    let generated_bytes = s.requests * s.size_bytes;
    format!(
        "\n--- {} ioping statistics ---\n\
         {} requests completed in {}, {} {verb}, {} iops, {}/s\n\
         generated {} requests in {}, {}, {} iops, {}/s\n\
         min/avg/max/mdev = {} / {} / {} / {}\n\
         p50/p90/p99/p99.9 = {}\n\
         ({}; {})\n",
        p.info,
        format_count(s.count()),
        format_time(s.sum_ns as u64),
        format_size(s.count() * s.size_bytes),
        format_count(s.iops() as u64),
        format_size(s.bytes_per_sec() as u64),
        format_count(s.requests),
        format_time(s.load_ns),
        format_size(generated_bytes),
        format_count(s.load_iops() as u64),
        format_size(s.load_bytes_per_sec() as u64),
        format_time(h.min()),
        format_time(h.mean() as u64),
        format_time(h.max()),
        format_time(h.stddev() as u64),
        pcts.join(" / "),
        mode_text(p),
        warmup_text(p.warmup)
    )
}

/// ioping -B: `count time iops bytes/s min avg max mdev requests wall_ns`.
fn raw_line(s: &ping::PingStats) -> String {
    let h = &s.histogram;
    format!(
        "{} {} {:.0} {:.0} {} {:.0} {} {:.0} {} {}",
        s.count(),
        s.sum_ns,
        s.iops(),
        s.bytes_per_sec(),
        h.min(),
        h.mean(),
        h.max(),
        h.stddev(),
        s.requests,
        s.load_ns
    )
}

fn request_json(r: &ping::Request) -> Value {
    json!({
        "request": r.index,
        "offset_bytes": r.offset_bytes,
        "time_ns": r.time_ns,
        "notice": r.notice.map(ping::Notice::name),
    })
}

fn document(p: &Prepared, s: &ping::PingStats) -> Value {
    let h = &s.histogram;
    let mut percentiles = Map::new();
    for q in model::DEFAULT_PERCENTILES {
        percentiles.insert(format!("{q:.6}"), json!(h.percentile(q)));
    }
    let interval_ns = p.interval.as_nanos() as u64;
    json!({
        "tool_version": runner::TOOL_VERSION,
        "target": {
            "path": p.info.shown,
            "filesystem": p.info.fstype,
            "device": p.info.device,
            "size_bytes": p.info.size_bytes,
        },
        "io": {
            "operation": if p.write { "write" } else { "read" },
            "mode": p.mode.name(),
            "fdatasync_after_write": p.write && p.sync_writes,
            "pattern": if p.sequential { "sequential" } else { "random" },
            "request_bytes": p.size_bytes,
            "work_offset_bytes": p.work_offset_bytes,
            "work_size_bytes": p.work_size_bytes,
            "interval_ns": interval_ns,
            "deadline_ns": p.deadline.map(|d: Duration| d.as_nanos() as u64),
            "warmup": p.warmup,
        },
        "summary": {
            "count": s.count(),
            "time_ns": s.sum_ns as u64,
            "bytes": s.count() * s.size_bytes,
            "min_ns": h.min(),
            "avg_ns": h.mean(),
            "max_ns": h.max(),
            "mdev_ns": h.stddev(),
            "iops": s.iops(),
            "bytes_per_sec": s.bytes_per_sec(),
            "percentiles": percentiles,
            "generated": {
                "count": s.requests,
                "time_ns": s.load_ns,
                "bytes": s.requests * s.size_bytes,
                "iops": s.load_iops(),
                "bytes_per_sec": s.load_bytes_per_sec(),
            },
        },
    })
}

/// Puts `requests` before `summary` (the order a reader expects).
fn reorder(doc: Value) -> Value {
    let Value::Object(mut map) = doc else {
        return doc;
    };
    let mut out = Map::new();
    for key in [
        "tool_version",
        "target",
        "io",
        "requests",
        "summary",
        "error",
        "failure",
    ] {
        if let Some(v) = map.remove(key) {
            out.insert(key.to_string(), v);
        }
    }
    Value::Object(out)
}
