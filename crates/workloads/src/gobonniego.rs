//! GoBonnieGo's benchmark (github.com/cunnie/gobonniego), measured the way
//! it measures so its users recognise the figures, but honestly.
//!
//! Its method, kept: one file per thread, written with buffered 64 KiB
//! writes of one random block repeated; read back in 64 KiB blocks with
//! every 127th block compared with what was written; then, for a fixed
//! time, 512-byte operations at random byte offsets, every tenth a write.
//! File sizes, names (`bonnie.N`), rates (MB = 10^6 bytes) and the `-runs`
//! / `-seconds` loop follow GoBonnieGo exactly.
//!
//! What diskbench does better, and why:
//! - the write phase is timed until every file is *fsynced* and closed
//!   (GoBonnieGo stops its clock when the data reaches the page cache, so
//!   its write figure is memory speed whenever the data fits in RAM);
//! - the page cache is dropped before the read and the IOPS tests whoever
//!   runs it: `/proc/sys/vm/drop_caches` when allowed (root), else
//!   `posix_fadvise(DONTNEED)` on every file, which works for anyone
//!   because the files are synced first (GoBonnieGo only tries as root,
//!   and without a sync its drop leaves the just-written dirty data cached);
//! - during the IOPS test the files' cached pages are dropped every three
//!   seconds (GoBonnieGo drops as root every three seconds), readahead is
//!   switched off (`FADV_RANDOM`) so one 512-byte read does not cache its
//!   neighbours, and the files are fsynced inside the timed window so the
//!   writes count as disk writes;
//! - the read/write split of the IOPS test, the verified blocks and the way
//!   the cache was dropped are counted and reported; a verification
//!   mismatch is an error naming the file and offset.
//!
//! [`run`] measures; the CLI (`crates/cli/src/cmd_gobonniego.rs`) parses
//! GoBonnieGo's flags and prints; [`doc::Document`] is GoBonnieGo's `-json`
//! document, shared by whoever writes or reads that format.

pub mod doc;
pub mod flags;
mod phases;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant, SystemTime};

pub use phases::{host_cache_drop_allowed, verify_block, CacheDrop};

/// The GoBonnieGo release whose method and output this follows.
pub const GOBONNIEGO_VERSION: &str = "1.0.10";
/// GoBonnieGo's sequential block: 64 KiB.
pub const BLOCK_BYTES: usize = 64 << 10;
/// GoBonnieGo's IOPS operation: 512 bytes.
pub const IOPS_OP_BYTES: usize = 512;
/// Every this many blocks the read test compares one with what was written.
pub const VERIFY_EVERY_BLOCKS: u64 = 127;
/// One operation in this many is a write in the IOPS test.
pub const WRITE_EVERY_OPS: u64 = 10;
/// How often the IOPS test drops the files' cached pages.
pub const IOPS_DROP_INTERVAL: Duration = Duration::from_secs(3);
/// GoBonnieGo's default IOPS test duration.
pub const DEFAULT_IOPS_SECONDS: f64 = 15.0;
/// More threads than this is a typo, not a benchmark.
pub const MAX_THREADS: u32 = 4096;

/// What the user asked for, in GoBonnieGo's units.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The directory under which a fresh test directory is made.
    pub dir: PathBuf,
    /// Total size of the files in GiB (GoBonnieGo's `-size`).
    pub size_gib: f64,
    pub runs: u32,
    /// Keep starting runs until this many seconds have passed since the start.
    pub seconds: u64,
    pub threads: u32,
    pub iops_seconds: f64,
    /// Drop the whole host's page cache before the read and IOPS tests when
    /// allowed (root), as GoBonnieGo does; false (`-no-drop-caches`) drops
    /// only the test files' pages (posix_fadvise), leaving other programs'
    /// cached files alone.
    pub drop_host_cache: bool,
}

impl Options {
    /// GoBonnieGo's defaults, but for the directory: twice the RAM, one
    /// run, one thread per CPU, a 15-second IOPS test. The directory is the
    /// current one, as for every other diskbench command (GoBonnieGo's is
    /// the temp directory, often tmpfs, which would measure memory).
    pub fn defaults() -> Options {
        Options {
            dir: PathBuf::from("."),
            size_gib: runner::probe::mem_total_bytes().map_or(0.0, default_size_gib),
            runs: 1,
            seconds: 0,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            iops_seconds: DEFAULT_IOPS_SECONDS,
            drop_host_cache: true,
        }
    }

    /// Bytes in each thread's file, as GoBonnieGo computes it: the size in
    /// whole MiB split over the threads, rounded up to whole 64 KiB blocks.
    pub fn file_bytes(&self) -> u64 {
        let mib = (self.size_gib * 1024.0) as u64;
        let per_thread = (mib << 20) / u64::from(self.threads.max(1));
        per_thread.div_ceil(BLOCK_BYTES as u64) * BLOCK_BYTES as u64
    }

    /// Bytes written by one run: every thread's file.
    pub fn total_bytes(&self) -> u64 {
        self.file_bytes() * u64::from(self.threads)
    }

    /// Refuses what cannot run, saying which flag to fix.
    pub fn validate(&self) -> Result<(), Error> {
        let usage = |m: String| Err(Error::Usage(m));
        if !self.size_gib.is_finite() || self.size_gib <= 0.0 {
            return usage(format!(
                "-size {} is not a size: give the total in GiB, more than 0 (e.g. -size 0.5)",
                self.size_gib
            ));
        }
        if self.size_gib * 1024.0 < 1.0 {
            return usage(format!(
                "-size {} GiB is under 1 MiB, GoBonnieGo's smallest unit: give at least -size 0.001",
                self.size_gib
            ));
        }
        if self.threads == 0 || self.threads > MAX_THREADS {
            return usage(format!(
                "-threads {} is out of range: give 1 to {MAX_THREADS} (default: one per CPU)",
                self.threads
            ));
        }
        if self.runs == 0 && self.seconds == 0 {
            return usage("-runs 0 with -seconds 0 runs nothing: give -runs 1 or more".into());
        }
        if !self.iops_seconds.is_finite() || self.iops_seconds <= 0.0 || self.iops_seconds > 1e7 {
            return usage(format!(
                "-iops-duration {} is not a duration: give seconds, more than 0 (e.g. 0.5)",
                self.iops_seconds
            ));
        }
        Ok(())
    }
}

/// GoBonnieGo's default `-size`: twice the RAM, in whole MiB, as GiB.
pub fn default_size_gib(mem_bytes: u64) -> f64 {
    (2 * (mem_bytes >> 20)) as f64 / 1024.0
}

/// Why a run failed. The CLI maps `Usage` to exit 2, `Interrupted` to 130
/// and the others to 1.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Io(String),
    #[error(
        "data corruption in {}: the 64 KiB block read back at offset {block_offset} differs \
         from the block written, first at byte offset {offset}; the disk, filesystem or \
         cache returned wrong data",
        path.display()
    )]
    Corrupt {
        path: PathBuf,
        block_offset: u64,
        offset: u64,
    },
    #[error("interrupted")]
    Interrupted,
}

impl From<runner::RunError> for Error {
    fn from(e: runner::RunError) -> Error {
        match e.kind() {
            model::FailureKind::Usage => Error::Usage(e.to_string()),
            model::FailureKind::Interrupted => Error::Interrupted,
            model::FailureKind::Runtime => Error::Io(e.to_string()),
        }
    }
}

/// One run's figures: GoBonnieGo's, and the counters diskbench adds.
#[derive(Clone, Debug)]
pub struct RunFigures {
    pub start: SystemTime,
    pub write_bytes: u64,
    pub write_time: Duration,
    pub read_bytes: u64,
    pub read_time: Duration,
    pub io_operations: u64,
    pub io_time: Duration,
    pub io_reads: u64,
    pub io_writes: u64,
    /// Blocks compared with the written block in the read test.
    pub blocks_verified: u64,
    pub cache_before_read: CacheDrop,
    pub cache_before_iops: CacheDrop,
    /// Times the IOPS test dropped the files' cached pages while it ran.
    pub iops_cache_drops: u32,
}

impl RunFigures {
    fn new() -> RunFigures {
        RunFigures {
            start: SystemTime::now(),
            write_bytes: 0,
            write_time: Duration::ZERO,
            read_bytes: 0,
            read_time: Duration::ZERO,
            io_operations: 0,
            io_time: Duration::ZERO,
            io_reads: 0,
            io_writes: 0,
            blocks_verified: 0,
            cache_before_read: CacheDrop::NotYet,
            cache_before_iops: CacheDrop::NotYet,
            iops_cache_drops: 0,
        }
    }
    pub fn write_mb_per_sec(&self) -> f64 {
        mb_per_sec(self.write_bytes, self.write_time)
    }
    pub fn read_mb_per_sec(&self) -> f64 {
        mb_per_sec(self.read_bytes, self.read_time)
    }
    pub fn iops(&self) -> f64 {
        per_sec(self.io_operations, self.io_time)
    }
}

/// MB/s as GoBonnieGo prints it: 10^6 bytes per second.
pub fn mb_per_sec(bytes: u64, time: Duration) -> f64 {
    per_sec(bytes, time) / 1e6
}

fn per_sec(count: u64, time: Duration) -> f64 {
    let s = time.as_secs_f64();
    if s > 0.0 {
        count as f64 / s
    } else {
        0.0
    }
}

/// Everything measured, complete runs only.
#[derive(Clone, Debug)]
pub struct Report {
    pub start: SystemTime,
    /// The test directory (removed when the run ends).
    pub dir: PathBuf,
    pub options: Options,
    pub mem_bytes: u64,
    pub runs: Vec<RunFigures>,
    /// For the user: what makes a figure doubtful and how to fix it.
    pub warnings: Vec<String>,
}

/// The report, and why it stopped early if it did.
pub struct Outcome {
    pub report: Report,
    pub failure: Option<Error>,
}

/// What [`run`] tells its caller as it goes, so figures print as soon as
/// they are known (GoBonnieGo prints each line when its test ends).
pub enum Event<'a> {
    /// The test directory exists and has room; nothing written yet.
    Started {
        dir: &'a Path,
    },
    /// A run's files are written, synced and closed; the read test is next.
    /// Tests may change the files here (e.g. to check the verification).
    Written {
        run: usize,
        figures: &'a RunFigures,
        files: &'a [PathBuf],
    },
    CacheDropped {
        run: usize,
        before: &'static str,
        how: &'a CacheDrop,
    },
    Read {
        run: usize,
        figures: &'a RunFigures,
    },
    Iops {
        run: usize,
        figures: &'a RunFigures,
    },
}

/// Runs the benchmark in a fresh directory under `opts.dir`, removed when
/// this returns (on success, error or interrupt). `stop` ends it early.
pub fn run(opts: &Options, stop: &AtomicBool, on: &mut dyn FnMut(&Event)) -> Outcome {
    let mut report = Report {
        start: SystemTime::now(),
        dir: PathBuf::new(),
        options: opts.clone(),
        mem_bytes: runner::probe::mem_total_bytes().unwrap_or(0),
        runs: Vec::new(),
        warnings: Vec::new(),
    };
    let started = Instant::now();
    let created = create_missing(&opts.dir);
    let made_here = matches!(created, Ok(true));
    let mut ws = runner::Workspace::default();
    let failure = created
        .and_then(|_| prepare(opts, &mut ws))
        .and_then(|dir| {
            report.dir = dir;
            on(&Event::Started { dir: &report.dir });
            all_runs(opts, &mut report, started, stop, on)
        })
        .err();
    drop(ws);
    if made_here {
        let _ = std::fs::remove_dir(&opts.dir);
    }
    Outcome { report, failure }
}

/// GoBonnieGo makes a missing `-dir` (one level, as `mkdir`); so does this,
/// and removes it again at the end. True when it was made here.
fn create_missing(dir: &Path) -> Result<bool, Error> {
    let parent = dir.parent().map(|p| match p.as_os_str().is_empty() {
        true => Path::new("."),
        false => p,
    });
    if dir.exists() || !parent.is_some_and(Path::is_dir) {
        return Ok(false); // missing parents: the workspace says what to fix
    }
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::Usage(format!(
            "-dir {}: cannot create it: {e}; give a writable directory",
            dir.display()
        ))),
    }
}

/// Checks the options and the free space, and makes the test directory.
fn prepare(opts: &Options, ws: &mut runner::Workspace) -> Result<PathBuf, Error> {
    opts.validate()?;
    let dir = ws.dir_in(&opts.dir)?;
    let need = opts.total_bytes();
    let (free, _) = engine::sys::free_space(&dir).map_err(|e| {
        Error::Io(format!(
            "cannot read the free space of {}: {e}",
            dir.display()
        ))
    })?;
    if need > free {
        return Err(Error::Usage(format!(
            "-size {} needs {need} bytes ({:.2} GiB: {} files of {} bytes) in {}, which has only \
             {free} bytes ({:.2} GiB) free: give a smaller -size or a -dir on a larger filesystem",
            opts.size_gib,
            need as f64 / (1u64 << 30) as f64,
            opts.threads,
            opts.file_bytes(),
            opts.dir.display(),
            free as f64 / (1u64 << 30) as f64,
        )));
    }
    Ok(dir)
}

/// GoBonnieGo's loop: at least `runs` runs, and until `seconds` have passed.
fn all_runs(
    opts: &Options,
    report: &mut Report,
    started: Instant,
    stop: &AtomicBool,
    on: &mut dyn FnMut(&Event),
) -> Result<(), Error> {
    let block = phases::random_block();
    let files: Vec<PathBuf> = (0..opts.threads)
        .map(|i| report.dir.join(format!("bonnie.{i}")))
        .collect();
    let until = Duration::from_secs(opts.seconds);
    let mut i = 0usize;
    while i < opts.runs as usize || started.elapsed() < until {
        let figures = one_run(opts, i, &files, &block, stop, &mut report.warnings, on)?;
        cache_warning(report, &figures, i);
        report.runs.push(figures);
        i += 1;
    }
    Ok(())
}

fn one_run(
    opts: &Options,
    run: usize,
    files: &[PathBuf],
    block: &[u8],
    stop: &AtomicBool,
    warnings: &mut Vec<String>,
    on: &mut dyn FnMut(&Event),
) -> Result<RunFigures, Error> {
    let mut f = RunFigures::new();
    phases::remove_files(files)?;
    let w = phases::write_phase(files, opts.file_bytes(), block, stop)?;
    (f.write_bytes, f.write_time) = (w.bytes, w.time);
    on(&Event::Written {
        run,
        figures: &f,
        files,
    });
    f.cache_before_read = phases::drop_cache(files, opts.drop_host_cache);
    on(&Event::CacheDropped {
        run,
        before: "read",
        how: &f.cache_before_read,
    });
    let r = phases::read_phase(files, block, stop)?;
    (f.read_bytes, f.read_time, f.blocks_verified) = (r.bytes, r.time, r.verified);
    warnings.extend(r.cpu_bound.iter().map(|t| cpu_warning(run, "read", t)));
    on(&Event::Read { run, figures: &f });
    f.cache_before_iops = phases::drop_cache(files, opts.drop_host_cache);
    on(&Event::CacheDropped {
        run,
        before: "IOPS",
        how: &f.cache_before_iops,
    });
    let io = phases::iops_phase(files, Duration::from_secs_f64(opts.iops_seconds), stop)?;
    f.io_operations = io.reads + io.writes;
    (f.io_reads, f.io_writes, f.io_time) = (io.reads, io.writes, io.time);
    f.iops_cache_drops = io.drops;
    warnings.extend(io.cpu_bound.iter().map(|t| cpu_warning(run, "IOPS", t)));
    on(&Event::Iops { run, figures: &f });
    Ok(f)
}

fn cpu_warning(run: usize, test: &str, (thread, busy_pct): &(usize, f64)) -> String {
    format!(
        "run {}: thread {thread} of the {test} test was CPU-bound ({busy_pct:.0}% busy): the \
         figure measures the CPU as much as the disk; use more -threads",
        run + 1
    )
}

/// GoBonnieGo's figures are inflated when the data fits in the cache and
/// the cache was not emptied; say so when that happened here.
fn cache_warning(report: &mut Report, f: &RunFigures, run: usize) {
    let data = f.write_bytes;
    if report.mem_bytes == 0 || data >= 2 * report.mem_bytes {
        return;
    }
    for (test, how) in [
        ("read", &f.cache_before_read),
        ("IOPS", &f.cache_before_iops),
    ] {
        if let CacheDrop::Failed(why) = how {
            report.warnings.push(format!(
                "run {}: the {test} figure is inflated by the page cache: {:.2} GiB of data is \
                 under twice the RAM ({:.2} GiB) and the cache could not be dropped ({why}); \
                 run as root or use -size {:.0} (twice the RAM)",
                run + 1,
                data as f64 / (1u64 << 30) as f64,
                report.mem_bytes as f64 / (1u64 << 30) as f64,
                default_size_gib(report.mem_bytes).ceil(),
            ));
        }
    }
}

#[cfg(test)]
mod tests;
