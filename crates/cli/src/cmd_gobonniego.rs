//! `diskbench gobonniego [FLAGS]`: GoBonnieGo's command line and output, so
//! its users type what they know and read what they know.
//!
//! GoBonnieGo parses its flags with Go's `flag` package (`-dir /tmp`,
//! `--dir`, `-dir=/tmp`, `-json=false`), which clap does not speak:
//! [`workloads::gobonniego::flags`] parses them, and anything it does not
//! know is a usage error (exit 2) that names the flag. The measuring is in
//! [`workloads::gobonniego`]; this file prints: the result lines on stdout
//! as each test ends (or the `-json` document at the end), GoBonnieGo's
//! `-v` diagnostics, how the cache was dropped and the warnings on stderr.
//!
//! Each GoBonnieGo run is saved in the history (diskbench's `--db`,
//! `--label`, `--no-save`, `--price-*`, as for `run`) as `import` saves a
//! GoBonnieGo `-json` file, by the same conversion: three jobs named for
//! what GoBonnieGo did, plus the run's lines and its part of the document.
//!
//! Before anything is written it says, once, what it will do to the page
//! cache: as root that is the whole host's cache, which every other program
//! on the machine feels, so nobody should learn it afterwards. `-dir`
//! defaults to the current directory, as every other diskbench command.

use crate::outcome::Exit;
use workloads::gobonniego::flags::{check, parse};
use workloads::gobonniego::{self as gbg, doc, CacheDrop, Event, Options};

const USAGE_HINT: &str = "diskbench gobonniego -h lists the flags";

pub fn run(args: Vec<String>) -> anyhow::Result<Exit> {
    let (args, save) = match crate::save::split_save_args(args) {
        Ok(split) => split,
        Err(e) => {
            eprintln!("diskbench gobonniego: {e} ({USAGE_HINT})");
            return Ok(Exit::Usage);
        }
    };
    let wants_json = args
        .iter()
        .any(|a| matches!(a.trim_start_matches('-'), "json" | "json=true" | "json=1"));
    let flags = match parse(&args).and_then(check) {
        Ok(f) => f,
        Err(e) => {
            if wants_json {
                println!("{}", serde_json::json!({ "error": e.to_string() }));
            }
            eprintln!("diskbench gobonniego: {e} ({USAGE_HINT})");
            return Ok(Exit::Usage);
        }
    };
    if flags.help {
        print!("{}", help());
        return Ok(Exit::Ok);
    }
    if flags.version {
        println!("gobonniego version {}", doc::version());
        return Ok(Exit::Ok);
    }
    let stop = crate::outcome::stop_on_signals()?;
    let opts = &flags.opts;
    log(&format!(
        "diskbench gobonniego starting. version: {}, runs: {}, seconds: {}, threads: {}, disk \
         space to use (MiB): {}",
        doc::version(),
        opts.runs,
        opts.seconds,
        opts.threads,
        (opts.size_gib * 1024.0) as u64
    ));
    if flags.verbose {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        log(&format!("Number of CPU cores: {cpus}"));
        let mem = runner::probe::mem_total_bytes().unwrap_or(0);
        log(&format!("Total system RAM (MiB): {}", mem >> 20));
    }
    let mut printer = Printer {
        verbose: flags.verbose,
        json: flags.json,
        last_drop: None,
        lines: Vec::new(),
        drop_host_cache: opts.drop_host_cache,
    };
    let out = gbg::run(opts, &stop, &mut |e| printer.event(e));
    for w in &out.report.warnings {
        eprintln!("diskbench gobonniego: warning: {w}");
    }
    let document = doc::Document::new(&out.report, out.failure.as_ref());
    if flags.json {
        println!("{}", serde_json::to_string(&document)?);
    }
    let exit = match &out.failure {
        None => Exit::Ok,
        Some(gbg::Error::Usage(m)) => {
            eprintln!("diskbench gobonniego: {m}");
            Exit::Usage
        }
        Some(gbg::Error::Interrupted) => {
            eprintln!(
                "diskbench gobonniego: interrupted; finished runs are shown, test files removed"
            );
            Exit::of_kind(Some(model::FailureKind::Interrupted))
        }
        Some(e) => {
            eprintln!("diskbench gobonniego: {e}; test files removed");
            Exit::Runtime
        }
    };
    Ok(save_runs(&document, &opts.dir, &printer.lines, &save, exit))
}

/// Saves each finished GoBonnieGo run as its own history entry, converted
/// as `import` converts GoBonnieGo's `-json` output.
fn save_runs(
    document: &doc::Document,
    dir: &std::path::Path,
    lines: &[(usize, String)],
    save: &crate::args::SaveArgs,
    exit: Exit,
) -> Exit {
    if save.no_save {
        return exit;
    }
    let value = match serde_json::to_value(document) {
        Ok(v) => v,
        Err(e) => return not_saved(&e.to_string(), exit),
    };
    let finished = value["results"].as_array().map_or(0, Vec::len);
    if finished == 0 {
        return crate::save::save_workload(None, save, exit);
    }
    let command_line = history::command_line();
    let runs = match import::gobonniego::parse(&value, &command_line) {
        Ok(runs) => runs,
        Err(e) => return not_saved(&e.to_string(), exit),
    };
    let target = runner::probe::target(dir);
    let mut exit = exit;
    for (i, mut result) in runs.into_iter().enumerate() {
        let mut own = value.clone();
        own["results"] = serde_json::Value::Array(vec![value["results"][i].clone()]);
        let text: String = lines
            .iter()
            .filter(|(run, _)| *run == i)
            .map(|(_, line)| format!("{line}\n"))
            .collect();
        result.host = runner::probe::host();
        result.targets = vec![target.clone()];
        result.workload = Some(model::WorkloadReport {
            command: model::RunKind::GoBonnieGo.name().to_string(),
            text,
            document: own,
        });
        let none = history::Written::none();
        let kind = model::RunKind::GoBonnieGo;
        exit = crate::save::save_run(kind, &result, None, none, save, exit).0;
    }
    exit
}

/// The runs could not be turned into history entries: said, and a clean exit becomes 1.
fn not_saved(why: &str, exit: Exit) -> Exit {
    eprintln!("diskbench gobonniego: not saved: {why}; the results above are complete");
    match exit {
        Exit::Ok => Exit::Runtime,
        other => other,
    }
}

/// A diagnostic line on stderr, timestamped as Go's `log` does.
fn log(line: &str) {
    eprintln!("{} {line}", doc::log_time(std::time::SystemTime::now()));
}

/// Prints each test's figures as it ends, as GoBonnieGo does.
struct Printer {
    verbose: bool,
    json: bool,
    /// The cache-drop method last reported, so it is said once unless -v.
    last_drop: Option<CacheDrop>,
    /// Whether the whole host's cache is to be dropped (not `-no-drop-caches`).
    drop_host_cache: bool,
    /// Each result line with its run (0-based), for the history.
    lines: Vec<(usize, String)>,
}

impl Printer {
    fn event(&mut self, e: &Event) {
        match e {
            Event::Started { dir } => {
                // Once, before anything is written: dropping the host's
                // cache touches every program on it, so it is said first.
                eprintln!(
                    "diskbench gobonniego: {}",
                    cache_notice(gbg::host_cache_drop_allowed(), self.drop_host_cache)
                );
                if self.verbose {
                    log(&format!("Bonnie working directory: {}", dir.display()))
                }
            }
            Event::Written {
                figures: f, run, ..
            } => {
                self.amount("Written", f.write_bytes, f.write_time);
                self.line(
                    *run,
                    format!("Sequential Write MB/s: {:.2}", f.write_mb_per_sec()),
                );
            }
            Event::CacheDropped { run, before, how } => {
                if self.verbose || self.last_drop.as_ref() != Some(how) {
                    log(&format!(
                        "Cache before the {before} test of run {}: {}",
                        run + 1,
                        how.describe()
                    ));
                }
                self.last_drop = Some((*how).clone());
            }
            Event::Read { figures: f, run } => {
                self.amount("Read", f.read_bytes, f.read_time);
                if self.verbose {
                    log(&format!(
                        "Blocks verified (every {}th): {}",
                        gbg::VERIFY_EVERY_BLOCKS,
                        f.blocks_verified
                    ));
                }
                self.line(
                    *run,
                    format!("Sequential Read MB/s: {:.2}", f.read_mb_per_sec()),
                );
            }
            Event::Iops { figures: f, run } => {
                if self.verbose {
                    log(&format!("operations {}", f.io_operations));
                    log(&format!(
                        "Duration (seconds): {:.6}",
                        f.io_time.as_secs_f64()
                    ));
                    log(&format!(
                        "IOPS mix: {} reads, {} writes ({:.1}% reads); cache dropped {} times \
                         while it ran",
                        f.io_reads,
                        f.io_writes,
                        100.0 * f.io_reads as f64 / f.io_operations.max(1) as f64,
                        f.iops_cache_drops
                    ));
                }
                self.line(*run, format!("IOPS: {:.0}", f.iops()));
            }
        }
    }

    /// GoBonnieGo's `-v` lines for a sequential test.
    fn amount(&self, what: &str, bytes: u64, time: std::time::Duration) {
        if self.verbose {
            log(&format!("{what} (MiB): {}", bytes >> 20));
            log(&format!("{what} (MB): {:.6}", bytes as f64 / 1e6));
            log(&format!("Duration (seconds): {:.6}", time.as_secs_f64()));
        }
    }

    fn line(&mut self, run: usize, text: String) {
        if !self.json {
            println!("{text}");
        }
        self.lines.push((run, text));
    }
}

/// What the run will do to the page cache, said before it does it:
/// `allowed` is whether it may drop the whole host's (root), `asked`
/// whether it should (not `-no-drop-caches`).
fn cache_notice(allowed: bool, asked: bool) -> &'static str {
    match (allowed, asked) {
        (true, true) => {
            "before each read and IOPS test the page cache of the WHOLE HOST is dropped \
             (echo 1 > /proc/sys/vm/drop_caches, allowed as root, as GoBonnieGo does): every \
             program's cached files are evicted, not only the test files, and are read from \
             disk again afterwards; -no-drop-caches drops only the test files' pages"
        }
        (_, false) => {
            "before each read and IOPS test the test files' cached pages are dropped \
             (posix_fadvise DONTNEED); the whole host's page cache is left alone \
             (-no-drop-caches)"
        }
        (false, true) => {
            "before each read and IOPS test the test files' cached pages are dropped \
             (posix_fadvise DONTNEED); dropping the whole host's page cache \
             (/proc/sys/vm/drop_caches) needs root and is not done"
        }
    }
}

fn help() -> String {
    let d = Options::defaults();
    format!(
        "GoBonnieGo's benchmark, measured honestly: sequential write (timed to fsync), \
         sequential read\n(cache dropped, every 127th block verified), 512-byte IOPS (1 write in \
         10). MB = 10^6 bytes.\n\n\
         Usage: diskbench gobonniego [flags]   (flags as -flag, --flag, -flag=value)\n\
         \x20 -dir string\n\
         \x20   \tThe directory in which the test files go (in a fresh subdirectory, removed at \
         the end) (default \"{}\")\n\
         \x20 -iops-duration float\n\
         \x20   \tThe duration in seconds to run the IOPS benchmark (default {})\n\
         \x20 -json\n\
         \x20   \tPrint GoBonnieGo's JSON document to stdout (diagnostics stay on stderr)\n\
         \x20 -no-drop-caches\n\
         \x20   \tDrop only the test files' cached pages before the read and IOPS tests, not \
         the whole host's page cache (which GoBonnieGo drops as root)\n\
         \x20 -runs int\n\
         \x20   \tThe number of test runs (default 1)\n\
         \x20 -seconds int\n\
         \x20   \tKeep starting runs until this many seconds have passed (and -runs are done)\n\
         \x20 -size float\n\
         \x20   \tThe amount of disk space to use (in GiB), defaults to twice the physical RAM \
         (default {})\n\
         \x20 -threads int\n\
         \x20   \tThe number of concurrent readers/writers, defaults to the number of CPU cores \
         (default {})\n\
         \x20 -v\tVerbose: diagnostics on stderr (RAM, cores, bytes, durations, cache drops, \
         IOPS mix)\n\
         \x20 -version\n\
         \x20   \tPrint the version and exit\n\n\
         History (diskbench's own flags, as for `diskbench run`; each run is saved):\n\
         \x20 --db PATH\n\
         \x20   \tHistory database (default: $DISKBENCH_DB, else \
         $XDG_DATA_HOME/diskbench/history.sqlite3)\n\
         \x20 --label KEY=VALUE\n\
         \x20   \tLabel the runs, e.g. --label disk=gp2 (repeatable)\n\
         \x20 --no-save\n\
         \x20   \tDo not keep the runs in the history\n\
         \x20 --price-gib-month, --price-per-million-ios, --price-month PRICE\n\
         \x20   \tPrices, for the cost columns of `diskbench compare`\n",
        d.dir.display(),
        d.iops_seconds,
        d.size_gib,
        d.threads
    )
}
