//! The smaller parts of fio's command line that act outside the jobs:
//! inflating a log fio stored compressed (`--inflate-log`), the aggregate
//! bandwidth logs (`--bandwidth-log`), the trigger (`--trigger-file`,
//! `--trigger-timeout`, `--trigger`) and what `--debug` can show.

use anyhow::Context;
use fio::CliOptions;
use model::RunResult;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// fio's `--inflate-log=FILE`: a log written with `log_store_compressed=1`
/// is a run of zlib streams (one per `log_compression` chunk) holding fio's
/// samples in binary, which this prints as fio's log lines. The layout is
/// fio 3.33's, as its own `--inflate-log` reads it: little-endian records of
/// time (u64, ms), value (u64), direction (u32, whose top bit says an
/// offset follows), priority (u16, 2 bytes of padding) and block size (u64),
/// then the offset (u64) when flagged; 32 or 40 bytes.
pub fn inflate_log(path: &Path) -> anyhow::Result<String> {
    let data =
        std::fs::read(path).with_context(|| format!("reading the log {}", path.display()))?;
    let mut rest: &[u8] = &data;
    let mut raw = Vec::new();
    while !rest.is_empty() {
        let mut stream = flate2::bufread::ZlibDecoder::new(rest);
        stream.read_to_end(&mut raw).with_context(|| {
            format!(
                "{} is not a log fio stored compressed (zlib streams): bad data {} bytes in",
                path.display(),
                data.len() - rest.len()
            )
        })?;
        let used = stream.total_in() as usize;
        if used == 0 {
            break;
        }
        rest = &rest[used.min(rest.len())..];
    }
    samples_text(&raw).with_context(|| format!("inflating {}", path.display()))
}

const OFFSET_BIT: u32 = 0x8000_0000;
const PRIO_BIT: u32 = 0x4000_0000;
/// The flag bits fio keeps in the direction field.
const FLAG_BITS: u32 = 0xF000_0000;

fn samples_text(mut raw: &[u8]) -> anyhow::Result<String> {
    let u64_at =
        |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
    let mut text = String::new();
    while !raw.is_empty() {
        anyhow::ensure!(
            raw.len() >= 32,
            "{} bytes left over after the last sample",
            raw.len()
        );
        let ddir_field = u32::from_le_bytes(raw[16..20].try_into().unwrap_or([0; 4]));
        let prio = u16::from_le_bytes(raw[20..22].try_into().unwrap_or([0; 2]));
        let (time, value, bs) = (u64_at(raw, 0), u64_at(raw, 8), u64_at(raw, 24));
        let ddir = ddir_field & !FLAG_BITS;
        anyhow::ensure!(
            ddir <= 2,
            "a sample with direction {ddir}: not one of fio's logs"
        );
        // Without log_prio, fio prints 1 for the real-time class, else 0.
        let prio = match ddir_field & PRIO_BIT {
            0 => u16::from(prio >> 13 == 1),
            _ => prio,
        };
        let size = if ddir_field & OFFSET_BIT != 0 {
            anyhow::ensure!(raw.len() >= 40, "a sample cut short");
            let offset = u64_at(raw, 32);
            text.push_str(&format!(
                "{time}, {value}, {ddir}, {bs}, {offset}, {prio}\n"
            ));
            40
        } else {
            text.push_str(&format!("{time}, {value}, {ddir}, {bs}, {prio}\n"));
            32
        };
        raw = &raw[size..];
    }
    Ok(text)
}

/// fio's `--bandwidth-log[=NAME]`: `NAME-read_bw.log`, `NAME-write_bw.log`
/// and `NAME-trim_bw.log` (`agg-...` when bare), one line per second of the
/// run: time (ms), bandwidth (KiB/s), direction (0 read, 1 write, 2 trim),
/// block size 0, offset 0, summed over every job. (fio 3.33 run locally
/// creates the three files and leaves them empty; diskbench fills them from
/// its per-second series.)
pub fn write_bandwidth_logs(prefix: &str, result: &RunResult) -> anyhow::Result<()> {
    let mut seconds: Vec<(u64, u64, u64)> = Vec::new();
    for job in &result.jobs {
        for point in &job.series {
            let i = (point.start_ms / 1000) as usize;
            if seconds.len() <= i {
                seconds.resize(i + 1, (0, 0, 0));
            }
            seconds[i].0 = seconds[i].0.max(point.duration_ms);
            seconds[i].1 += point.read_bytes;
            seconds[i].2 += point.write_bytes;
        }
    }
    let kib_per_s = |bytes: u64, ms: u64| bytes * 1000 / 1024 / ms.max(1);
    for (dir, name) in [(0, "read"), (1, "write"), (2, "trim")] {
        let mut text = String::new();
        for (i, &(ms, read, write)) in seconds.iter().enumerate() {
            let bytes = match dir {
                0 => read,
                1 => write,
                _ => continue,
            };
            if ms == 0 {
                continue;
            }
            let end_ms = i as u64 * 1000 + ms;
            text.push_str(&format!(
                "{end_ms}, {}, {dir}, 0, 0\n",
                kib_per_s(bytes, ms)
            ));
        }
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

/// What `--debug` shows: `parse` (or `all`) prints the jobs as understood on
/// stderr; for the other categories a note says where to look instead.
pub fn debug_notes(cli: &CliOptions, groups: &[Vec<fio::JobSpec>]) {
    if cli.debug.is_empty() {
        return;
    }
    let parse = cli.debug.iter().any(|c| c == "parse" || c == "all");
    if parse {
        eprint!(
            "diskbench fio: debug parse: the jobs as understood:\n{}",
            fio::showcmd(groups)
        );
    }
    let others: Vec<&str> = cli
        .debug
        .iter()
        .map(String::as_str)
        .filter(|c| *c != "parse")
        .collect();
    if !others.is_empty() {
        eprintln!(
            "diskbench fio: debug {}: diskbench has no trace of its own for this; the JSON output's \
             diskbench section has the queue depth kept, the buffers and the disk counters, and \
             `strace -f` shows every system call",
            others.join(",")
        );
    }
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
