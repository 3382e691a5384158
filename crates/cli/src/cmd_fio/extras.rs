//! The smaller parts of fio's command line that act outside the jobs: the
//! files of `--inflate-log` and `--bandwidth-log` (their text is
//! `report::fio_logs`'s), the trigger (`--trigger-file`,
//! `--trigger-timeout`, `--trigger`) and what `--debug` can show.

use anyhow::Context;
use fio::CliOptions;
use model::RunResult;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// fio's `--inflate-log=FILE`: the file read, its samples as fio's log
/// lines ([`report::fio_logs::inflate`]).
pub fn inflate_log(path: &Path) -> anyhow::Result<String> {
    let data =
        std::fs::read(path).with_context(|| format!("reading the log {}", path.display()))?;
    Ok(report::fio_logs::inflate(
        &data,
        &path.display().to_string(),
    )?)
}

/// fio's `--bandwidth-log[=NAME]`: `NAME-read_bw.log`, `NAME-write_bw.log`
/// and `NAME-trim_bw.log` (`agg-...` when bare), as
/// [`report::fio_logs::bandwidth_logs`] gives them.
pub fn write_bandwidth_logs(prefix: &str, result: &RunResult) -> anyhow::Result<()> {
    for (name, text) in report::fio_logs::bandwidth_logs(result) {
        let path = format!("{prefix}-{name}_bw.log");
        std::fs::write(&path, text).with_context(|| format!("writing {path}"))?;
    }
    Ok(())
}

/// Watches for the trigger: when `--trigger-file` exists or
/// `--trigger-timeout` has passed, the jobs are stopped (and the results so
/// far printed, as after Ctrl-C) and the `--trigger` command runs, as fio
/// does for power-cut tests. `fired` says whether it did.
pub fn watch_trigger(cli: &CliOptions, stop: Arc<AtomicBool>) -> Option<Arc<AtomicBool>> {
    if cli.trigger_file.is_none() && cli.trigger_timeout.is_none() {
        return None;
    }
    let fired = Arc::new(AtomicBool::new(false));
    let (file, timeout, command) = (
        cli.trigger_file.clone(),
        cli.trigger_timeout,
        cli.trigger.clone(),
    );
    let flag = Arc::clone(&fired);
    let start = Instant::now();
    std::thread::spawn(move || {
        loop {
            let by_file = file.as_deref().is_some_and(|f| Path::new(f).exists());
            let by_time = timeout.is_some_and(|t| start.elapsed() >= t);
            if by_file || by_time {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        flag.store(true, Ordering::SeqCst);
        eprintln!("diskbench fio: trigger: stopping the jobs");
        stop.store(true, Ordering::SeqCst);
        if let Some(command) = command {
            match std::process::Command::new("sh")
                .arg("-c")
                .arg(&command)
                .status()
            {
                Ok(s) if s.success() => {}
                Ok(s) => eprintln!("diskbench fio: trigger command '{command}' ended with {s}"),
                Err(e) => eprintln!("diskbench fio: trigger command '{command}': {e}"),
            }
        }
    });
    Some(fired)
}

/// Whether `--debug` asked for `category` (or `all`).
pub fn debugs(cli: &CliOptions, category: &str) -> bool {
    cli.debug.iter().any(|c| c == category || c == "all")
}

/// `--debug=parse` (or `all`): fio's trace of the options read, on stdout
/// as fio prints it (see `fio::parse_trace`).
pub(super) fn parse_trace(parsed: &fio::FioArgs) {
    if debugs(&parsed.cli, "parse") {
        let pid = std::process::id();
        for line in fio::parse_trace(parsed) {
            println!("parse    {pid:<5} {line}");
        }
    }
}

/// `--debug=io` (or `all`): fio's line for each completed I/O
/// ([`runner::trace`]), on stdout where fio prints its debug lines.
pub fn io_trace(cli: &CliOptions) -> Option<runner::trace::IoTraceFn> {
    if !debugs(cli, "io") {
        return None;
    }
    let pid = std::process::id();
    Some(Arc::new(move |t: &runner::trace::IoTrace| {
        use std::io::Write;
        // A closed stdout ends nothing here: the run's own output says so.
        let _ = writeln!(std::io::stdout().lock(), "{}", t.fio_line(pid));
    }))
}

/// `fio: set debug option CAT` for each category named (not `all`), on
/// stdout first, as fio says them while it reads its options.
pub fn debug_set_lines(cli: &CliOptions) {
    for category in cli.debug.iter().filter(|c| *c != "all") {
        println!("fio: set debug option {category}");
    }
}

/// What `--debug` shows beyond `parse` (fio's trace, [`parse_trace`]),
/// `random` (the seeds with the output, `report::fio_debug`) and `io` (each
/// I/O, [`io_trace`]): for the other categories a note, kept with the
/// run's checks (fio's stderr stays empty), says where to look instead.
pub fn debug_note(cli: &CliOptions) -> Option<model::Warning> {
    let others: Vec<&str> = cli
        .debug
        .iter()
        .map(String::as_str)
        .filter(|c| !matches!(*c, "parse" | "random" | "io"))
        .collect();
    (!others.is_empty()).then(|| model::Warning::Approximation {
        note: format!(
            "debug {}: diskbench has no trace of its own for this; the JSON output's \
             diskbench section has the queue depth kept, the buffers and the disk counters, and \
             `strace -f` shows every system call",
            others.join(",")
        ),
    })
}

/// `error_dump=1` (fio's default): each error a job continued past, on
/// stderr as fio prints them (the first `ErrorCount::DUMPED` of a job; the
/// rest are counted in its `total_err`).
pub(super) fn dump_errors(result: &model::RunResult) {
    for job in &result.jobs {
        let Some(errors) = &job.errors else { continue };
        for message in &errors.dumped {
            eprintln!(
                "diskbench fio: job '{}': continued past: {message}",
                job.name
            );
        }
        let more = errors.total.saturating_sub(errors.dumped.len() as u64);
        if job.spec.errors.dump && more > 0 {
            eprintln!(
                "diskbench fio: job '{}': continued past {more} more errors (total_err {})",
                job.name, errors.total
            );
        }
    }
}

/// fio's lines on stderr for each bad chunk `verify=` kept, for a job that
/// failed on them (fio prints each as it finds it; a job that continues
/// past verify errors counts them instead).
pub(super) fn verify_failures(result: &model::RunResult) {
    for job in result.jobs.iter().filter(|j| j.error.is_some()) {
        let Some(v) = &job.verify else { continue };
        for f in &v.failures {
            eprintln!("{}", f.fio_lines(&v.algo));
        }
    }
}
