//! `diskbench meta [-n NUM[:MAX[:MIN[:DIRS]]]] [DIR]`: bonnie++'s `-n`
//! file create / stat / delete test (the work is in [`workloads::meta`], the
//! formats in `tool_output::meta`),
//! printed three ways so bonnie++ users can read it at a glance and scripts
//! can parse it:
//!
//! - text: bonnie++'s "Sequential Create / Random Create" block (`+++++`
//!   where a phase took under 500 ms, as bonnie++ prints; latency is the
//!   slowest file, as bonnie++'s), then a table of every phase with the
//!   figure it hides, starred, and latency percentiles;
//! - `--runtime T`: each phase measured for T, so none is `+++++`
//!   ([`workloads::meta`] repeats or cuts passes);
//! - `--json`: `{"phases": [{"name", "files", "operations", "files_per_sec",
//!   "latency_ns": {"min", "mean", "p50", "p90", "p99", "p99.9", "max"}, ...}]}`;
//! - `--csv`: bonnie++ 2.0's CSV line (format 1.98), for bon_csv2txt and
//!   bon_csv2html.
//!
//! The run is saved in the history (`--db`, `--label`, `--no-save`, as for
//! `run`) with its text and JSON, whichever was printed: file operations
//! have no fio shape, so the run has no jobs, and `history` shows no IOPS
//! or MB/s for it; `show` prints the text, `export --format json` the JSON
//! (under `result.workload.document`).

use crate::outcome::Exit;
use clap::Args;
use runner::RunError;
use serde_json::json;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use workloads::meta::{self, FileSpec, MetaOptions, Phase, PhaseResult};

#[derive(Args)]
pub struct MetaArgs {
    /// bonnie++'s -n: NUM×1024 files of MIN..MAX bytes (default 0: empty files; k, m, g
    /// suffixes) spread over DIRS directories (default 1); a fifth field sets the write and
    /// read size (CHUNK, default 8k)
    #[arg(
        short = 'n',
        value_name = "NUM[:MAX[:MIN[:DIRS]]]",
        default_value = "16",
        allow_hyphen_values = true
    )]
    n: String,
    /// Directory for the test files (default: the current one); they go in a fresh
    /// subdirectory, removed at the end
    dir: Option<PathBuf>,
    /// The same as DIR, as bonnie++ spells it
    #[arg(short = 'd', value_name = "DIR", conflicts_with = "dir")]
    dash_d: Option<PathBuf>,
    /// Parallel clients, each on its own share of the files (bonnie++ has one)
    #[arg(long, default_value_t = 1)]
    threads: u32,
    /// Print JSON on stdout: phases[] with files, files_per_sec and latency_ns
    /// (min, mean, p50, p90, p99, p99.9, max)
    #[arg(long)]
    json: bool,
    /// Print bonnie++ 2.0's CSV line (format 1.98) instead of the tables
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    /// Machine name for the table and the CSV line (default: the host name), as bonnie++ -m
    #[arg(short = 'm', value_name = "NAME")]
    machine: Option<String>,
    /// Seed for the names, sizes and random orders (default: from the clock), as bonnie++ -z
    #[arg(short = 'z', long, value_name = "SEED")]
    seed: Option<u64>,
    /// Measure each phase for about TIME (e.g. 5s), so each has a figure: a phase done sooner
    /// is repeated over the same files (put back untimed), one not done by then stops there.
    /// At least 500 ms, bonnie++'s shortest trusted phase
    #[arg(long, value_name = "TIME")]
    runtime: Option<String>,
    /// Exact number of files instead of NUM×1024 (for tests)
    #[arg(long, hide = true)]
    files: Option<u64>,
    #[command(flatten)]
    save: crate::args::SaveArgs,
}

pub fn run(args: MetaArgs) -> anyhow::Result<Exit> {
    let spec = match FileSpec::parse(&args.n) {
        Ok(s) => s,
        Err(e) => return Ok(refuse(&args, &e.to_string())),
    };
    let phase_time = match args.runtime.as_deref().map(phase_time).transpose() {
        Ok(t) => t,
        Err(e) => return Ok(refuse(&args, &e)),
    };
    let opts = MetaOptions {
        spec,
        files: args.files,
        threads: args.threads,
        seed: args.seed.unwrap_or_else(clock_seed),
        phase_time,
    };
    let dir = args
        .dir
        .clone()
        .or_else(|| args.dash_d.clone())
        .unwrap_or_else(|| PathBuf::from("."));
    if let Some(t) = phase_time {
        let phases = meta::Phase::ALL.len() as u32;
        eprintln!(
            "diskbench meta: expected time: about {} ({phases} phases of {}; putting the files \
             back between passes included, over by {})",
            secs(t * phases),
            secs(t),
            secs(meta::phase_wall_budget(t * phases))
        );
    }
    let started_unix_ms = dates::now_ms();
    let stop = crate::outcome::stop_on_signals()?;
    let mut progress = Progress(std::io::stderr().is_terminal());
    let outcome = meta::run(&opts, &dir, &stop, &mut progress);
    for w in &outcome.result.warnings {
        eprintln!("warning: {w}");
    }
    match &outcome.failure {
        Some(RunError::Interrupted) => {
            eprintln!("diskbench meta: interrupted; finished phases are shown, test files removed")
        }
        Some(e) => eprintln!("diskbench meta: {e}"),
        None => {}
    }
    let machine = args.machine.clone().unwrap_or_else(hostname);
    let doc = tool_output::meta::to_json(&outcome);
    let measured = !outcome.result.phases.is_empty();
    let text = tool_output::meta::text(&outcome.result, &machine);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if measured {
        if args.csv {
            println!("{}", tool_output::meta::csv_line(&outcome.result, &machine));
        } else {
            print!("{text}");
        }
    }
    let workload = measured.then(|| history::Workload {
        kind: model::RunKind::Meta,
        target: dir,
        started_unix_ms,
        text,
        document: doc,
        jobs: Vec::new(),
        error: outcome.failure.as_ref().map(ToString::to_string),
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

/// A duration for people, to the millisecond: `6 s`, `0.75 s`.
fn secs(d: std::time::Duration) -> String {
    format!("{} s", d.as_millis() as f64 / 1000.0)
}

/// `--runtime`: a duration above 0, raised to bonnie++'s 500 ms (with a
/// note) since a shorter phase would have no figure, which is what the
/// option is for.
fn phase_time(text: &str) -> Result<std::time::Duration, String> {
    let t = model::units::parse_duration(text).map_err(|e| format!("--runtime: {e}"))?;
    if t.is_zero() {
        return Err(
            "--runtime 0 measures nothing: give a time per phase, e.g. --runtime 5s".into(),
        );
    }
    if t < meta::MIN_TRUSTED {
        eprintln!(
            "diskbench meta: note: --runtime {text} is under 500 ms, too short to time a phase \
             (bonnie++ prints +++++): each phase runs 500 ms"
        );
    }
    Ok(t.max(meta::MIN_TRUSTED))
}

/// A usage error before anything ran: the message on stderr (and in JSON), exit 2.
fn refuse(args: &MetaArgs, message: &str) -> Exit {
    if args.json {
        println!("{}", json!({ "phases": [], "error": message }));
    }
    eprintln!("diskbench meta: {message}");
    Exit::Usage
}

fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    (nanos ^ (std::process::id() as u64) << 20) & 0xffff_ffff
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// bonnie++'s progress lines on stderr, when it is a terminal.
struct Progress(bool);

impl meta::Observer for Progress {
    fn phase_started(&mut self, phase: Phase) {
        if self.0 {
            eprint!("{}...", phase.label());
        }
    }
    fn phase_finished(&mut self, r: &PhaseResult, _: &Path) {
        if self.0 {
            eprintln!("done ({:.0} files/s).", r.files_per_sec());
        }
    }
}
