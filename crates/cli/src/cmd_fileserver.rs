//! `diskbench fileserver [NPROCS] [DIR]`: dbench's file-server load, with
//! dbench's flags (`-t` seconds, `-c` loadfile, `-D` directory, `-s` O_SYNC,
//! `--no-resolve`, NPROCS as a bare number) beside diskbench's own, so
//! `dbench -t 30 -c client.txt -D /mnt 2` becomes
//! `diskbench fileserver -t 30 -c client.txt -D /mnt 2`. The load itself
//! lives in `workloads::fileserver`; this file checks the flags, sets up
//! the test directory and prints.
//!
//! Everything that can be wrong with the input (flags, a loadfile line, the
//! directory, the free space) is found before any file is written: exit 2.
//! `--json` prints one document (`throughput_mb_per_sec`, `clients`,
//! `duration_s`, `max_latency_ms`, `operations: [{name, count, mean_ns,
//! p99_ns, max_ns}]`, ...), with `error` when the run did not end well.
//!
//! The run is saved in the history (`--db`, `--label`, `--no-save`, as for
//! `run`) with dbench's table and the JSON, whichever was printed; its file
//! operations have no fio shape, so it has no jobs (no IOPS or MB/s in
//! `history`): `show` prints the table, `export --format json` the JSON.

use crate::outcome::Exit;
use clap::Args;
use runner::RunError;
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;
use workloads::fileserver::{
    self, ClientConfig, Loadfile, Options, Phase, Progress, ProgressFn, Summary,
};

/// More clients than this would mostly measure thread switching (and each
/// keeps ~0.6 MiB of histograms).
const MAX_CLIENTS: u32 = 1024;

#[derive(Args)]
#[command(after_help = "\
The measured phase follows a warmup of a fifth of its length, as dbench's \
(dbench -t 30 runs 6 s of warmup, then 30 s). Throughput is the bytes read \
and written in the measured phase over its length, in MB of 10^6 bytes, as \
dbench counts them. Like dbench, the load goes through the page cache; \
Flush is an fsync, and -s opens every file O_SYNC.")]
pub struct FileserverArgs {
    /// Directory for the test files [default: .] and/or dbench's NPROCS (a bare number; write ./8 for a directory named 8)
    #[arg(value_name = "NPROCS|DIR", num_args = 0..=2)]
    positional: Vec<String>,
    /// Directory for the test files (dbench -D); they go in a fresh subdirectory, removed after
    #[arg(short = 'D', long = "directory", value_name = "DIR")]
    directory: Option<PathBuf>,
    /// Simulated clients, one thread each, each in its own tree clients/clientN [default: 1]
    #[arg(long, value_name = "N")]
    clients: Option<String>,
    /// Length of the measured phase: 30, 30s, 2m (dbench -t, in seconds) [default: 60s]
    #[arg(short = 't', long, value_name = "TIME", visible_alias = "timelimit")]
    duration: Option<String>,
    /// Warmup before the measured phase [default: a fifth of --duration, as dbench; 0 with --loops]
    #[arg(long, value_name = "TIME")]
    warmup: Option<String>,
    /// Replay this dbench loadfile (dbench -c), e.g. /usr/share/dbench/client.txt [default: the built-in mix]
    #[arg(short = 'c', long, value_name = "FILE")]
    loadfile: Option<PathBuf>,
    /// Replay the load this many times per client instead of for --duration
    #[arg(long, value_name = "N")]
    loops: Option<String>,
    /// Skip the case-insensitive lookup of missing names (dbench --no-resolve)
    #[arg(long)]
    no_resolve: bool,
    /// Run a loadfile's timed lines back to back instead of waiting for their times
    #[arg(long)]
    ignore_timestamps: bool,
    /// Open every file O_SYNC (dbench -s)
    #[arg(short = 's', long)]
    sync: bool,
    /// Print one JSON document on stdout instead of dbench's table
    #[arg(long)]
    json: bool,
    /// Print the built-in mix as a dbench loadfile and exit
    #[arg(long)]
    show_mix: bool,
    #[command(flatten)]
    save: crate::args::SaveArgs,
}

/// The checked flags.
struct Plan {
    dir: PathBuf,
    load: Loadfile,
    opts: Options,
}

pub fn run(args: FileserverArgs) -> anyhow::Result<Exit> {
    if args.show_mix {
        print!("{}", fileserver::builtin_mix_text());
        return Ok(Exit::Ok);
    }
    let plan = match plan(&args) {
        Ok(plan) => plan,
        Err(e) => return Ok(fail(&args, &RunError::Usage(e))),
    };
    let started_unix_ms = dates::now_ms();
    // Before the directory exists, so a signal never leaves it behind.
    let stop = crate::outcome::stop_on_signals()?;
    let mut workspace = runner::Workspace::default();
    let base = match workspace.dir_in(&plan.dir) {
        Ok(base) => base,
        Err(e) => return Ok(fail(&args, &e)),
    };
    let opts = Options {
        stop,
        progress: progress_line(),
        ..plan.opts
    };
    eprintln!(
        "diskbench fileserver: {} client{}, {} ({} lines), {} in {}",
        opts.clients,
        if opts.clients == 1 { "" } else { "s" },
        plan.load.name,
        plan.load.lines.len(),
        match opts.loops {
            Some(n) => format!("{n} pass{} each", if n == 1 { "" } else { "es" }),
            None => format!(
                "{} s after {} s of warmup",
                secs(opts.duration),
                secs(opts.warmup)
            ),
        },
        base.display()
    );
    let summary = fileserver::run(&plan.load, &base, &opts);
    if opts.progress.is_some() {
        eprint!("\r\x1b[2K");
    }
    drop(workspace);
    let (exit, printed) = finish(&args, &plan.load, &summary);
    let workload = (summary.ops.iter().any(|(_, h)| h.count() > 0)).then(|| history::Workload {
        kind: model::RunKind::Fileserver,
        target: plan.dir.clone(),
        started_unix_ms,
        text: fileserver::report::text(&summary),
        document: printed.document,
        jobs: Vec::new(),
        error: printed.error,
        interrupted: summary.interrupted,
    });
    Ok(crate::save::save_workload(workload, &args.save, exit))
}

/// What `finish` printed, for the history.
struct Printed {
    document: serde_json::Value,
    error: Option<String>,
}

fn secs(d: Duration) -> String {
    workloads::fileserver::report::g6(d.as_secs_f64())
}

fn plan(args: &FileserverArgs) -> Result<Plan, String> {
    let (nprocs, dir) = positional(args)?;
    let clients = match (&args.clients, nprocs) {
        (Some(text), Some(n)) if text.trim() != n.to_string() => {
            return Err(format!(
                "--clients {text} and NPROCS {n} disagree: give the number of clients once"
            ))
        }
        (Some(text), _) => count(text, "--clients")?,
        (None, Some(n)) => n,
        (None, None) => 1,
    };
    if clients == 0 || clients > MAX_CLIENTS {
        return Err(format!(
            "{clients} clients: give between 1 and {MAX_CLIENTS} (--clients N, or N alone as dbench's NPROCS)"
        ));
    }
    let duration = time(args.duration.as_deref().unwrap_or("60s"), "--duration")?;
    if duration.is_zero() {
        return Err("--duration 0: give the length of the measured phase, e.g. 30s".into());
    }
    let loops = args
        .loops
        .as_deref()
        .map(|text| match count(text, "--loops")? {
            0 => Err(
                "--loops 0: give at least 1 pass, or leave --loops out to run for --duration"
                    .to_string(),
            ),
            n => Ok(u64::from(n)),
        })
        .transpose()?;
    if loops.is_some() && args.duration.is_some() {
        return Err("--loops and --duration both say when to stop: give one".into());
    }
    let warmup = match (&args.warmup, loops) {
        (Some(text), _) => time(text, "--warmup")?,
        (None, Some(_)) => Duration::ZERO,
        (None, None) => duration / 5,
    };
    let load = match &args.loadfile {
        Some(path) => Loadfile::read(path).map_err(|e| e.to_string())?,
        None => fileserver::builtin_mix(),
    };
    fileserver::check_space(&load, clients, &dir).map_err(|e| e.to_string())?;
    let opts = Options {
        clients,
        duration,
        warmup,
        loops,
        timed: !args.ignore_timestamps,
        client: ClientConfig {
            resolve: !args.no_resolve,
            sync: args.sync,
        },
        ..Options::default()
    };
    Ok(Plan { dir, load, opts })
}

/// dbench's `dbench [options] NPROCS`, and diskbench's `[DIR]`: a bare
/// number is NPROCS, anything else the directory.
fn positional(args: &FileserverArgs) -> Result<(Option<u32>, PathBuf), String> {
    let mut nprocs = None;
    let mut dir = args.directory.clone();
    for arg in &args.positional {
        if !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_digit()) {
            if nprocs.is_some() {
                return Err(format!(
                    "two client counts ({} and {arg}): give NPROCS once (write ./{arg} for a directory named {arg})",
                    nprocs.unwrap_or(0)
                ));
            }
            nprocs = Some(count(arg, "NPROCS")?);
        } else if dir.is_some() {
            return Err(format!(
                "two directories ({} and {arg}): give the directory once",
                dir.as_ref()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default()
            ));
        } else {
            dir = Some(PathBuf::from(arg));
        }
    }
    Ok((nprocs, dir.unwrap_or_else(|| PathBuf::from("."))))
}

fn count(text: &str, what: &str) -> Result<u32, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{what} {text}: give a whole number, e.g. {what} 4"))
}

fn time(text: &str, what: &str) -> Result<Duration, String> {
    model::units::parse_duration(text).map_err(|e| format!("{what}: {e}"))
}

/// dbench's once-a-second line, on stderr when it is a terminal.
fn progress_line() -> Option<ProgressFn> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    Some(Box::new(|p: &Progress| {
        let phase = match p.phase {
            Phase::Warmup => "warmup",
            Phase::Execute => "execute",
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[2K{:>4} {:>9} {:>8.2} MB/sec  {phase} {:>3} sec  latency {:.3} ms",
            p.clients, p.ops, p.mb_per_sec, p.seconds, p.latency_ms
        );
        let _ = err.flush();
    }))
}

/// Prints the result and what went wrong, and chooses the exit code.
fn finish(args: &FileserverArgs, load: &Loadfile, s: &Summary) -> (Exit, Printed) {
    for m in &s.samples {
        eprintln!(
            "{}:{}: client {}: {} returned {}, the loadfile expects {}{}",
            load.name,
            m.line,
            m.client,
            m.keyword,
            m.got,
            m.expected,
            m.detail
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        );
    }
    let failure = if s.interrupted {
        Some(model::Failure::new(
            model::FailureKind::Interrupted,
            "interrupted: results so far are shown, test files removed",
        ))
    } else if s.mismatches > 0 {
        Some(model::Failure::runtime(format!(
            "{} operation{} returned a status other than the loadfile's (the first {} above): \
             the replay no longer follows the load (dbench stops a client at its first; \
             diskbench stops one after {})",
            s.mismatches,
            if s.mismatches == 1 { "" } else { "s" },
            s.samples.len(),
            fileserver::MAX_MISMATCHES
        )))
    } else {
        None
    };
    if s.short_reads > 0 {
        eprintln!(
            "warning: {} ReadX calls got fewer bytes than the loadfile's server returned: the files are shorter than the load expects",
            s.short_reads
        );
    }
    let mut doc = fileserver::report::json(s, runner::TOOL_VERSION);
    if let Some(f) = &failure {
        doc["error"] = json!(f.message);
        doc["failure"] = report::json::failure_value(f);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        print!("{}", fileserver::report::text(s));
    }
    if let Some(f) = &failure {
        eprintln!("diskbench fileserver: {}", f.message);
    }
    let exit = Exit::of_kind(failure.as_ref().map(|f| f.kind));
    let printed = Printed {
        document: doc,
        error: failure.map(|f| f.message),
    };
    (exit, printed)
}

/// Nothing measured: the message (and a JSON document with `error`), exit 2
/// for usage errors, 1 for runtime ones.
fn fail(args: &FileserverArgs, e: &RunError) -> Exit {
    if args.json {
        let doc = json!({
            "tool_version": runner::TOOL_VERSION,
            "workload": "fileserver",
            "error": e.to_string(),
            "failure": crate::outcome::failure_json(e),
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    eprintln!("diskbench fileserver: {e}");
    Exit::of_kind(Some(e.kind()))
}
