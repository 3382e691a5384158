//! bonnie++'s `-n` test: how fast a filesystem creates, stats and deletes
//! many small files, first in name order, then in an order that looks random
//! to it. Mail spools, caches and build trees live or die by these rates,
//! which block-I/O benchmarks never show.
//!
//! What it does, phase by phase, as bonnie++ 2.0 does (its behaviour was
//! read from its documentation and traced with strace; none of its code is
//! used here):
//!
//! - Names are the file's number in 10 hex digits and 0 to 12 random
//!   letters or digits: number first in the sequential phases (so name order
//!   is creation order), last in the random ones (so name order is random).
//!   With DIRS > 1 the files go, by number, in equal runs into `00000`,
//!   `00001`, ...; a fresh directory tree is made before each create phase
//!   and removed after each delete phase, outside the timing.
//! - create: `openat(O_CREAT|O_EXCL|O_WRONLY)`, MIN..=MAX bytes of random
//!   data written in CHUNK-byte writes (default 8 KiB), `close`. No fsync
//!   per file (bonnie++ only does that with `-b`); the phase ends with a
//!   `syncfs` of the test filesystem inside the timing, as bonnie++ ends it
//!   with `sync()`, so files/s includes getting the files onto the disk.
//! - sequential stat / delete: each directory read with readdir, and each of
//!   the worker's files in it `stat`ed (and, when not empty, opened and read
//!   whole) or unlinked in readdir order. Delete ends with `syncfs`.
//! - random stat / delete: the worker's files in a shuffled order.
//!
//! Latency is per file: the open+write+close, stat+open+read+close or
//! unlink itself (readdir and the final sync count in files/s, not in it).
//! `threads` parallel clients each take an equal run of the file numbers
//! (and so their own directories when DIRS >= threads); bonnie++ has one.
//! A phase under 500 ms is reported but flagged, where bonnie++ prints
//! `+++++`; with a time per phase ([`MetaOptions::phase_time`], the CLI's
//! `--runtime`) each phase lasts that long and so has a figure (see
//! [`passes`] for how). The stat phases follow the creates, so the inodes are cached,
//! as in bonnie++: those rates are the kernel's, not the disk's.

use engine::sys;
use model::Histogram;
use runner::{IoError, RunError, Workspace};
use rustix::fd::OwnedFd;
use rustix::fs::{self as rfs, Access, Mode, OFlags};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod passes;
mod spec;
mod worker;
pub use passes::{phase_wall_budget, WALL_BUDGET};
pub use spec::{file_name, file_size, FileSpec, FileSpecError, SpecProblem};

/// Files per unit of NUM.
pub const FILES_PER_NUM: u64 = 1024;
/// bonnie++ prints `+++++` for a phase shorter than this.
pub const MIN_TRUSTED: Duration = Duration::from_millis(500);
/// bonnie++'s limit on DIRS.
pub const MAX_DIRS: u64 = 99_999;

/// What to run.
#[derive(Clone, Debug)]
pub struct MetaOptions {
    pub spec: FileSpec,
    /// Exact number of files instead of NUM×1024 (tests use small counts).
    pub files: Option<u64>,
    /// Parallel clients (bonnie++ has one).
    pub threads: u32,
    /// Seed for the names' random letters, the sizes and the random orders.
    pub seed: u64,
    /// Measure each phase for this long (passes cut short or repeated);
    /// `None`: one pass over all the files, as bonnie++.
    pub phase_time: Option<Duration>,
}

impl MetaOptions {
    pub fn files(&self) -> u64 {
        self.files.unwrap_or_else(|| self.spec.files())
    }
}

/// The six phases, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SequentialCreate,
    SequentialStat,
    SequentialDelete,
    RandomCreate,
    RandomStat,
    RandomDelete,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Create,
    Stat,
    Delete,
}

impl Phase {
    pub const ALL: [Phase; 6] = [
        Phase::SequentialCreate,
        Phase::SequentialStat,
        Phase::SequentialDelete,
        Phase::RandomCreate,
        Phase::RandomStat,
        Phase::RandomDelete,
    ];

    /// The name in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Phase::SequentialCreate => "sequential_create",
            Phase::SequentialStat => "sequential_stat",
            Phase::SequentialDelete => "sequential_delete",
            Phase::RandomCreate => "random_create",
            Phase::RandomStat => "random_stat",
            Phase::RandomDelete => "random_delete",
        }
    }

    /// bonnie++'s progress line for the phase.
    pub fn label(self) -> &'static str {
        match self {
            Phase::SequentialCreate => "Create files in sequential order",
            Phase::SequentialStat => "Stat files in sequential order",
            Phase::SequentialDelete => "Delete files in sequential order",
            Phase::RandomCreate => "Create files in random order",
            Phase::RandomStat => "Stat files in random order",
            Phase::RandomDelete => "Delete files in random order",
        }
    }

    pub fn is_random(self) -> bool {
        matches!(
            self,
            Phase::RandomCreate | Phase::RandomStat | Phase::RandomDelete
        )
    }

    fn op(self) -> Op {
        match self {
            Phase::SequentialCreate | Phase::RandomCreate => Op::Create,
            Phase::SequentialStat | Phase::RandomStat => Op::Stat,
            Phase::SequentialDelete | Phase::RandomDelete => Op::Delete,
        }
    }

    /// Create and delete phases end with a sync of the filesystem, timed.
    pub fn syncs(self) -> bool {
        self.op() != Op::Stat
    }
}

/// One finished phase.
#[derive(Clone, Debug)]
pub struct PhaseResult {
    pub phase: Phase,
    /// Files created, stat'ed or deleted, counted as each operation
    /// succeeds, over all passes.
    pub files: u64,
    /// Data written (create) or read (stat).
    pub bytes: u64,
    /// Wall time of the phase, the final sync included.
    pub elapsed: Duration,
    /// The `syncfs` that ends create and delete phases (zero for stat).
    pub sync: Duration,
    /// CPU time (user + system) of the workers and of the sync.
    pub cpu: Duration,
    pub threads: u32,
    /// Passes over the files that were timed and added (1 without a
    /// phase time; see [`passes`]).
    pub passes: u32,
    /// One value per file, in ns.
    pub latency: Histogram,
}

impl PhaseResult {
    pub fn files_per_sec(&self) -> f64 {
        self.files as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// Shorter than bonnie++'s 500 ms: the rate is too noisy to trust.
    pub fn too_short(&self) -> bool {
        self.elapsed < MIN_TRUSTED
    }
    /// CPU time over wall time, in percent (bonnie++'s %CP; over 100 with threads).
    pub fn cpu_pct(&self) -> f64 {
        100.0 * self.cpu.as_secs_f64() / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Something the user should know about the figures.
#[derive(Clone, Debug, PartialEq)]
pub enum MetaWarning {
    /// Phases shorter than 500 ms.
    TooShort { phases: Vec<&'static str> },
    /// Phases whose threads were on the CPU nearly all the time.
    CpuBound { phases: Vec<&'static str> },
}

impl fmt::Display for MetaWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetaWarning::TooShort { phases } => write!(
                f,
                "{} took under 500 ms: too short to trust (bonnie++ prints +++++ there); \
                 use a larger -n, e.g. -n 64 or -n 128, or a longer --runtime",
                phases.join(", ")
            ),
            MetaWarning::CpuBound { phases } => write!(
                f,
                "{} kept each thread over 90% busy on the CPU: the kernel's metadata code and \
                 caches set the pace, not the disk (stats follow the creates, so inodes are \
                 cached, as in bonnie++); try --threads 2 or more",
                phases.join(", ")
            ),
        }
    }
}

/// The run: its parameters and the phases that finished.
#[derive(Clone, Debug)]
pub struct MetaResult {
    pub spec: FileSpec,
    pub files: u64,
    pub threads: u32,
    pub seed: u64,
    /// The time each phase was measured for, when one was asked.
    pub phase_time: Option<Duration>,
    /// The directory the user named.
    pub directory: PathBuf,
    pub phases: Vec<PhaseResult>,
    pub warnings: Vec<MetaWarning>,
}

pub struct MetaOutcome {
    pub result: MetaResult,
    /// Why the run stopped early (usage, runtime error, interrupt), if it did.
    pub failure: Option<RunError>,
}

/// Told when each phase starts and ends: the CLI shows progress, tests look
/// at the files (`files_dir` holds them, or the `00000`... directories).
pub trait Observer {
    fn phase_started(&mut self, _phase: Phase) {}
    fn phase_finished(&mut self, _result: &PhaseResult, _files_dir: &Path) {}
}

/// An observer that does nothing.
pub struct Quiet;
impl Observer for Quiet {}

/// Runs the six phases on a fresh subdirectory of `parent`, which is
/// removed at the end (also on error and interrupt: `stop` is checked
/// between files).
pub fn run(
    opts: &MetaOptions,
    parent: &Path,
    stop: &AtomicBool,
    observer: &mut dyn Observer,
) -> MetaOutcome {
    let mut result = MetaResult {
        spec: opts.spec.clone(),
        files: opts.files(),
        threads: opts.threads,
        seed: opts.seed,
        phase_time: opts.phase_time,
        directory: parent.to_path_buf(),
        phases: Vec::new(),
        warnings: Vec::new(),
    };
    let failure = run_phases(opts, parent, stop, observer, &mut result.phases).err();
    result.warnings = warnings(&result.phases);
    MetaOutcome { result, failure }
}

fn warnings(phases: &[PhaseResult]) -> Vec<MetaWarning> {
    let mut out = Vec::new();
    let short: Vec<_> = phases
        .iter()
        .filter(|p| p.too_short())
        .map(|p| p.phase.name())
        .collect();
    if !short.is_empty() {
        out.push(MetaWarning::TooShort { phases: short });
    }
    let busy: Vec<_> = phases
        .iter()
        .filter(|p| !p.too_short() && p.cpu_pct() > 90.0 * p.threads as f64)
        .map(|p| p.phase.name())
        .collect();
    if !busy.is_empty() {
        out.push(MetaWarning::CpuBound { phases: busy });
    }
    out
}

fn run_phases(
    opts: &MetaOptions,
    parent: &Path,
    stop: &AtomicBool,
    observer: &mut dyn Observer,
    done: &mut Vec<PhaseResult>,
) -> Result<(), RunError> {
    let lay = Layout::new(opts)?;
    check_target(parent, &lay)?;
    let mut workspace = Workspace::default();
    let root = workspace.dir_in(parent)?.join("files");
    let run_start = Instant::now();
    for random in [false, true] {
        let tree = Tree::make(&root, lay.dirs)?;
        let mut present = vec![0; lay.threads as usize];
        // How long one file took to create, syncs included: a delete
        // phase's first reset creates its files again.
        let mut per_file = Duration::ZERO;
        for op in [Op::Create, Op::Stat, Op::Delete] {
            let index = random as usize * 3 + op as usize;
            let phase = Phase::ALL[index];
            if stop.load(Ordering::Relaxed) {
                return Err(RunError::Interrupted);
            }
            observer.phase_started(phase);
            let first_reset = match op {
                Op::Delete => per_file * present.iter().sum::<u64>() as u32,
                _ => Duration::ZERO,
            };
            let clock = opts
                .phase_time
                .map(|t| passes::PhaseClock::new(t, run_start, index as u32, first_reset));
            let result = passes::measure(phase, &lay, &tree, stop, clock, &mut present)?;
            if op == Op::Create && result.files > 0 {
                per_file = result.elapsed / result.files as u32;
            }
            if stop.load(Ordering::Relaxed) {
                return Err(RunError::Interrupted);
            }
            observer.phase_finished(&result, &root);
            done.push(result);
        }
        tree.remove()?;
    }
    Ok(())
}

/// Who does what: file numbers, their directories, sizes and names.
#[derive(Clone, Copy, Debug)]
struct Layout {
    files: u64,
    dirs: u64,
    threads: u64,
    seed: u64,
    min: u64,
    max: u64,
    chunk: u64,
}

impl Layout {
    fn new(opts: &MetaOptions) -> Result<Layout, RunError> {
        let files = opts.files();
        let usage = |m: String| Err(RunError::Usage(m));
        if files == 0 {
            return usage("no files to test: give -n 1 or more".into());
        }
        if opts.threads == 0 || opts.threads as u64 > files {
            return usage(format!(
                "--threads {}: give 1 to {} (one thread per file at most)",
                opts.threads,
                files.min(1024)
            ));
        }
        if opts.spec.dirs > files {
            return usage(format!(
                "DIRS {} is more directories than the {files} files: give fewer directories",
                opts.spec.dirs
            ));
        }
        Ok(Layout {
            files,
            dirs: opts.spec.dirs,
            threads: opts.threads as u64,
            seed: opts.seed,
            min: opts.spec.min_bytes,
            max: opts.spec.max_bytes,
            chunk: opts.spec.chunk_bytes,
        })
    }

    /// Files go by number in equal runs into the directories.
    fn dir_of(&self, index: u64) -> usize {
        (index as u128 * self.dirs as u128 / self.files as u128) as usize
    }

    /// The file numbers worker `t` owns.
    fn share(&self, t: u64) -> Range<u64> {
        let at = |k: u64| (k as u128 * self.files as u128 / self.threads as u128) as u64;
        at(t)..at(t + 1)
    }
}

/// Refuses a target the run cannot use: missing, not writable, too full.
fn check_target(parent: &Path, lay: &Layout) -> Result<(), RunError> {
    let shown = parent.display();
    let refuse = |message: String, errno: Option<i32>| Err(RunError::place(parent, message, errno));
    match std::fs::metadata(parent) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return refuse(
                format!("{shown} is not a directory: give a directory for the test files"),
                None,
            )
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return refuse(
                format!("directory {shown} does not exist: create it or give another DIR"),
                e.raw_os_error(),
            )
        }
        Err(e) => return refuse(format!("{shown}: {e}"), e.raw_os_error()),
    }
    if let Err(e) = rfs::access(parent, Access::WRITE_OK | Access::EXEC_OK) {
        let errno = Some(e.raw_os_error());
        if let Some(why) = runner::probe::read_only_refusal(parent) {
            return refuse(why, errno);
        }
        return refuse(
            format!("cannot write in {shown} ({e}): give a directory you can write to"),
            errno,
        );
    }
    let (avail, _) = sys::free_space(parent).map_err(|e| {
        IoError::new("statvfs", parent, e).saying(format!("cannot read the free space of {shown}"))
    })?;
    let vfs = rfs::statvfs(parent).map_err(|e| {
        IoError::new("statvfs", parent, e.into()).saying(format!("cannot statvfs {shown}"))
    })?;
    let block = vfs.f_frsize.max(512);
    let need = lay
        .max
        .div_ceil(block)
        .saturating_mul(block)
        .saturating_mul(lay.files);
    if need > avail {
        return refuse(
            format!(
                "{} files of up to {} bytes need up to {} but {shown} has {} free: use a \
                 smaller -n NUM or MAX, or another directory",
                lay.files,
                lay.max,
                model::units::format_bytes_binary(need),
                model::units::format_bytes_binary(avail)
            ),
            None,
        );
    }
    let inodes = lay.files + lay.dirs + 2;
    if vfs.f_files > 0 && inodes > vfs.f_favail {
        return refuse(
            format!(
                "{} files need {inodes} inodes but {shown} has {} free: use a smaller -n NUM",
                lay.files, vfs.f_favail
            ),
            None,
        );
    }
    Ok(())
}

/// The directories of one create → stat → delete cycle, open for `*at` calls.
struct Tree {
    root: PathBuf,
    paths: Vec<PathBuf>,
    fds: Vec<OwnedFd>,
}

impl Tree {
    fn make(root: &Path, dirs: u64) -> Result<Tree, RunError> {
        let paths: Vec<PathBuf> = if dirs == 1 {
            vec![root.to_path_buf()]
        } else {
            (0..dirs).map(|d| root.join(format!("{d:05}"))).collect()
        };
        let fail = |(op, words): (&'static str, &str), p: &Path, e: std::io::Error| {
            IoError::new(op, p, e).saying(format!("cannot {words} {}", p.display()))
        };
        let (mkdir, open) = (("mkdir", "create directory"), ("open", "open"));
        std::fs::create_dir(root).map_err(|e| fail(mkdir, root, e))?;
        let mut fds = Vec::with_capacity(paths.len());
        for p in &paths {
            if p != root {
                std::fs::create_dir(p).map_err(|e| fail(mkdir, p, e))?;
            }
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            fds.push(rfs::open(p, flags, Mode::empty()).map_err(|e| fail(open, p, e.into()))?);
        }
        Ok(Tree {
            root: root.to_path_buf(),
            paths,
            fds,
        })
    }

    /// Removes the (now empty) directories; files left behind are an error.
    fn remove(self) -> Result<(), RunError> {
        drop(self.fds);
        for p in self.paths.iter().filter(|p| **p != self.root) {
            std::fs::remove_dir(p).map_err(|e| left_behind(p, e))?;
        }
        std::fs::remove_dir(&self.root).map_err(|e| left_behind(&self.root, e))
    }
}

fn left_behind(p: &Path, e: std::io::Error) -> RunError {
    let what = format!("cannot remove {} after the delete phase", p.display());
    IoError::new("rmdir", p, e)
        .saying(what)
        .note("(did something else write there?)")
        .into()
}

#[cfg(test)]
mod tests;
