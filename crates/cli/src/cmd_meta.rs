//! `diskbench meta [-n NUM[:MAX[:MIN[:DIRS]]]] [DIR]`: bonnie++'s `-n`
//! file create / stat / delete test (the work is in [`workloads::meta`]),
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
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use workloads::meta::{self, FileSpec, MetaOptions, MetaOutcome, MetaResult, Phase, PhaseResult};

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
        Err(e) => return Ok(refuse(&args, &e)),
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
    let doc = to_json(&outcome);
    let measured = !outcome.result.phases.is_empty();
    let text = text(&outcome.result, &machine);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if measured {
        if args.csv {
            println!("{}", csv_line(&outcome.result, &machine));
        } else {
            print!("{text}");
        }
    }
    let workload = measured.then(|| crate::history::Workload {
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
    Ok(crate::history::save_workload(
        workload,
        &args.save,
        Exit::of(&outcome.failure),
    ))
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

fn latency_json(r: &PhaseResult) -> Value {
    let h = &r.latency;
    json!({
        "min": h.min(),
        "mean": h.mean().round() as u64,
        "p50": h.percentile(50.0),
        "p90": h.percentile(90.0),
        "p99": h.percentile(99.0),
        "p99.9": h.percentile(99.9),
        "max": h.max(),
    })
}

fn to_json(outcome: &MetaOutcome) -> Value {
    let r = &outcome.result;
    let phases: Vec<Value> = r
        .phases
        .iter()
        .map(|p| {
            json!({
                "name": p.phase.name(),
                "files": p.files,
                "operations": p.latency.count(),
                "files_per_sec": p.files_per_sec(),
                "elapsed_ns": p.elapsed.as_nanos() as u64,
                "sync_ns": p.sync.as_nanos() as u64,
                "bytes": p.bytes,
                "cpu_pct": p.cpu_pct(),
                "too_short": p.too_short(),
                "passes": p.passes,
                "latency_ns": latency_json(p),
            })
        })
        .collect();
    let mut doc = json!({
        "tool": runner::TOOL_VERSION,
        "test": "meta",
        "directory": r.directory.display().to_string(),
        "num": r.spec.num,
        "files": r.files,
        "max_size_bytes": r.spec.max_bytes,
        "min_size_bytes": r.spec.min_bytes,
        "dirs": r.spec.dirs,
        "chunk_size_bytes": r.spec.chunk_bytes,
        "threads": r.threads,
        "seed": r.seed,
        "phase_time_ns": r.phase_time.map(|t| t.as_nanos() as u64),
        "phases": phases,
        "warnings": r.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
    });
    if let Some(e) = &outcome.failure {
        doc["error"] = json!(e.to_string());
        doc["failure"] = crate::outcome::failure_json(e);
    }
    doc
}

/// Whether the bonnie++ block shows `+++++` for a phase: under 500 ms, as
/// bonnie++, unless `--runtime` asked for a figure from every phase (a
/// phase then falls short only when putting its files back took up its
/// budget; its figure is then shown, and starred in the table below).
fn hidden(r: &MetaResult, x: &PhaseResult) -> bool {
    x.too_short() && r.phase_time.is_none()
}

/// The phase, if it finished.
fn phase(r: &MetaResult, p: Phase) -> Option<&PhaseResult> {
    r.phases.iter().find(|x| x.phase == p)
}

/// NUM's own field as bonnie++ shows it: `16`, `16:4096:1024`, `16:4096:1024/16`.
fn size_label(r: &MetaResult) -> String {
    let mut s = num_of(r).to_string();
    if r.spec.max_bytes > 0 {
        let _ = write!(s, ":{}:{}", r.spec.max_bytes, r.spec.min_bytes);
    }
    if r.spec.dirs > 1 {
        let _ = write!(s, "/{}", r.spec.dirs);
    }
    s
}

/// NUM: files in units of 1024 (rounded up when --files set an exact count).
fn num_of(r: &MetaResult) -> u64 {
    r.files.div_ceil(meta::FILES_PER_NUM)
}

/// A latency as bonnie++ prints it: whole us under 100 ms, whole ms under 100 s.
fn bonnie_latency(ns: u64) -> String {
    let secs = ns as f64 / 1e9;
    if ns == 0 {
        String::new()
    } else if secs > 99.999_999 {
        format!("{}s", secs as u64)
    } else if secs > 0.099_999 {
        format!("{}ms", (secs * 1e3) as u64)
    } else {
        format!("{}us", (secs * 1e6) as u64)
    }
}

/// A time in the phase table, as the `run` table writes one (`86.3 us`).
fn short_ns(ns: u64) -> String {
    report::format::latency(ns as f64)
}

/// The text output: a heading, the file-test block as bonnie++ prints it
/// (so its readers find their columns), diskbench's per-phase table with
/// latency percentiles, and the notes that say how to read them.
fn text(r: &MetaResult, machine: &str) -> String {
    let mut out = String::new();
    let files_word = if r.spec.dirs > 1 {
        format!("{} directories", r.spec.dirs)
    } else {
        "one directory".into()
    };
    let sizes = if r.spec.max_bytes == 0 {
        "empty".to_string()
    } else {
        format!("{}..{} bytes", r.spec.min_bytes, r.spec.max_bytes)
    };
    let _ = writeln!(
        out,
        "diskbench meta: {} files ({sizes}) in {files_word}, {} thread{}, on {}",
        r.files,
        r.threads,
        if r.threads == 1 { "" } else { "s" },
        r.directory.display()
    );
    bonnie_block(&mut out, r, machine);
    phase_table(&mut out, r);
    notes(&mut out, r);
    out
}

/// bonnie++'s file-test block: files per second and %CPU per phase
/// (`+++++` where too short to trust), then each phase's worst latency.
fn bonnie_block(out: &mut String, r: &MetaResult, machine: &str) {
    out.push_str(
        "                    ------Sequential Create------ --------Random Create--------\n",
    );
    let _ = writeln!(
        out,
        "{:<19.19} -Create-- --Stat--- -Delete-- -Create-- --Stat--- -Delete--",
        machine
    );
    let label = match (r.spec.min_bytes > 0, r.spec.max_bytes > 0) {
        (true, _) => "files:max:min       ",
        (false, true) => "files:max           ",
        _ => "              files ",
    };
    let _ = writeln!(
        out,
        "{label} /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP"
    );
    let _ = write!(out, "{:>19}", size_label(r));
    for p in Phase::ALL {
        match phase(r, p) {
            None => out.push_str("          "),
            Some(x) if hidden(r, x) => out.push_str(" +++++ +++"),
            Some(x) => {
                let _ = write!(
                    out,
                    " {:>5} {:>3}",
                    x.files_per_sec() as u64,
                    x.cpu_pct() as u64
                );
            }
        }
    }
    out.push_str("\nLatency          ");
    for p in Phase::ALL {
        let max = phase(r, p).map_or(0, |x| x.latency.max());
        let _ = write!(out, " {:>9}", bonnie_latency(max));
    }
    out.push_str("\n\n");
}

/// One row per phase: files, rate, elapsed, the closing sync, CPU and the
/// latency percentiles (`*` marks a phase too short to trust).
fn phase_table(out: &mut String, r: &MetaResult) {
    let _ = writeln!(
        out,
        "{:<18} {:>8} {:>10} {:>9} {:>8} {:>5}  {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "phase",
        "files",
        "files/s",
        "elapsed",
        "sync",
        "%CPU",
        "min",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max"
    );
    for x in &r.phases {
        let h = &x.latency;
        let star = if x.too_short() { "*" } else { " " };
        let _ =
            writeln!(
            out,
            "{:<18} {:>8} {:>9.0}{star} {:>9} {:>8} {:>5.0}  {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
            x.phase.name(),
            x.files,
            x.files_per_sec(),
            format!("{:.3} s", x.elapsed.as_secs_f64()),
            if x.phase.syncs() { short_ns(x.sync.as_nanos() as u64) } else { "-".into() },
            x.cpu_pct(),
            short_ns(h.min()),
            short_ns(h.percentile(50.0)),
            short_ns(h.percentile(90.0)),
            short_ns(h.percentile(99.0)),
            short_ns(h.percentile(99.9)),
            short_ns(h.max()),
        );
    }
}

fn notes(out: &mut String, r: &MetaResult) {
    out.push_str(
        "latency is per file; files/s counts the whole phase, with the sync that ends create and \
         delete\n",
    );
    if let Some(t) = r.phase_time {
        let _ = writeln!(
            out,
            "each phase measured for {:.1} s (--runtime): repeated over the same files when done \
             sooner (files counts every pass), stopped there when not",
            t.as_secs_f64()
        );
    }
    if r.phases.iter().any(PhaseResult::too_short) {
        out.push_str(
            "* under 500 ms: too short to trust (bonnie++ prints +++++); use a larger -n or a \
             longer --runtime\n",
        );
    }
}

/// bonnie++ 2.0's CSV line (format 1.98) with the file test filled in and
/// the throughput test empty, field for field as bonnie++ prints it.
fn csv_line(r: &MetaResult, machine: &str) -> String {
    let mut f: Vec<String> = vec![
        "1.98".into(),
        "2.00a".into(),
        machine.replace(',', " "),
        r.threads.to_string(),
        r.seed.to_string(),
    ];
    f.extend(std::iter::repeat_n(String::new(), 16));
    f.push(num_of(r).to_string());
    let (max, min) = (r.spec.max_bytes, r.spec.min_bytes);
    f.push(if max > 0 {
        max.to_string()
    } else {
        String::new()
    });
    f.push(if max > 0 && min > 0 {
        min.to_string()
    } else {
        String::new()
    });
    // bonnie++ 2.00a never fills in file_chunk_size.
    f.push(String::new());
    f.push(if r.spec.dirs > 1 {
        r.spec.dirs.to_string()
    } else {
        String::new()
    });
    for p in Phase::ALL {
        match phase(r, p) {
            None => f.extend([String::new(), String::new()]),
            Some(x) if hidden(r, x) => f.extend(["+++++".into(), "+++".into()]),
            Some(x) => f.extend([
                (x.files_per_sec() as u64).to_string(),
                (x.cpu_pct() as u64).to_string(),
            ]),
        }
    }
    f.extend(std::iter::repeat_n(String::new(), 6));
    for p in Phase::ALL {
        f.push(bonnie_latency(phase(r, p).map_or(0, |x| x.latency.max())));
    }
    f.join(",")
}
