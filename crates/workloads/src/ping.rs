//! ioping's latency probe: one request at a time, timed alone, so each line
//! is the latency of one I/O and nothing else. ioping's users should find
//! their flags, their units (`4k`, `10ms`, `1k` requests) and their numbers
//! here; what differs is what diskbench does by default to keep them honest.
//!
//! What is measured, as ioping measures it:
//!
//! - A request is one `pread` (or `pwrite`, followed by `fdatasync` unless
//!   cached), timed with the monotonic clock around that call alone.
//! - The first `warmup` requests (default 1) are shown but not counted.
//! - `iops` and the bandwidth of the `requests completed` line are ioping's:
//!   counted requests over the *sum of their times* (so `1 / avg`), not over
//!   the wall clock; the `generated` line gives the wall-clock figures.
//! - Offsets are random in the working set, aligned to the request size
//!   (`-L`: sequential, wrapping); a directory gets a fresh file of random
//!   data (1 MiB, 64 MiB with `-R`), a file or device is used whole.
//!
//! What differs from ioping: without `-D` or `-C` ioping reads through the
//! page cache after dropping the request's range (`posix_fadvise`
//! DONTNEED). diskbench uses direct I/O (O_DIRECT) whenever the target
//! supports it and the request size is aligned, and falls back to ioping's
//! method (with a note) otherwise; `-C` asks for the cache. A file the user
//! named is written only with ioping's `-WWW` or `--allow-destructive`; a
//! block device only through [`runner::guard::check_writable`].

use engine::{sys, BufferPool};
use model::rng::SplitMix64;
use model::Warning;
use runner::{IoError, RunError, Workspace};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod stats;
mod units;

pub use stats::{Notice, PingStats};
pub use units::{
    format_count, format_size, format_time, parse_count, parse_size, parse_time, PingValueError,
};
use units::{KIB, MIB};

/// The temporary file's name inside diskbench's own fresh directory.
pub const TEMP_FILE: &str = "ioping.tmp";

// -------------------------------------------------------------- options --

/// The flags, already parsed from ioping's syntax; `None` means ioping's default.
#[derive(Clone, Debug)]
pub struct PingOptions {
    pub target: PathBuf,
    /// `-c`: stop after this many requests, warmup included; 0 = no limit.
    pub count: u64,
    /// `-i`: time between request starts (1 s; 0 with `-R`).
    pub interval: Option<Duration>,
    /// `-s`: request size (4 KiB; 256 KiB with `-L`).
    pub size_bytes: Option<u64>,
    /// `-S`: working set (1 MiB for a directory, 64 MiB with `-R`; else whole).
    pub work_size_bytes: Option<u64>,
    /// `-o`: where the working set starts.
    pub work_offset_bytes: u64,
    /// `-w`: stop after this long (3 s with `-R`; 0 = no limit).
    pub deadline: Option<Duration>,
    /// `-a`: requests shown but not counted at the start.
    pub warmup: u64,
    pub direct: bool,
    pub cached: bool,
    /// `-W` repeated: 1 writes a directory's own file, 3 (`-WWW`) a file too.
    pub write: u8,
    pub rapid: bool,
    pub sequential: bool,
    pub allow_destructive: bool,
}

impl Default for PingOptions {
    fn default() -> Self {
        PingOptions {
            target: PathBuf::from("."),
            count: 0,
            interval: None,
            size_bytes: None,
            work_size_bytes: None,
            work_offset_bytes: 0,
            deadline: None,
            warmup: 1,
            direct: false,
            cached: false,
            write: 0,
            rapid: false,
            sequential: false,
            allow_destructive: false,
        }
    }
}

/// How requests reach the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoMode {
    /// O_DIRECT: the page cache is bypassed.
    Direct,
    /// ioping's default: buffered, the request's range dropped from the cache
    /// before each read and each write followed by `fdatasync`.
    NonCached,
    /// `-C`: buffered, the cache allowed.
    Cached,
}

impl IoMode {
    pub fn name(self) -> &'static str {
        match self {
            IoMode::Direct => "direct",
            IoMode::NonCached => "non-cached",
            IoMode::Cached => "cached",
        }
    }
}

/// The target as ioping names it: `/tmp (ext4 /dev/vda 252.0 GiB)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetInfo {
    /// The path as the user gave it.
    pub shown: String,
    pub fstype: String,
    pub device: String,
    /// Filesystem size (for a directory or file) or device size.
    pub size_bytes: u64,
}

impl std::fmt::Display for TargetInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let size = format_size(self.size_bytes);
        write!(f, "{} ({} {} {size})", self.shown, self.fstype, self.device)
    }
}

/// A target opened and ready: everything the loop needs, decided up front.
pub struct Prepared {
    pub info: TargetInfo,
    pub mode: IoMode,
    pub write: bool,
    /// `fdatasync` after each write (ioping does unless `-C`).
    pub sync_writes: bool,
    pub size_bytes: u64,
    pub work_offset_bytes: u64,
    pub work_size_bytes: u64,
    pub sequential: bool,
    pub interval: Duration,
    pub deadline: Option<Duration>,
    pub count: u64,
    pub warmup: u64,
    /// What the user should know before the numbers (printed on stderr).
    pub notes: Vec<String>,
    /// The file actually read or written.
    pub path: PathBuf,
    file: File,
    buffer: BufferPool,
    /// Holds the temporary file of a directory target; removes it on drop.
    _workspace: Option<Workspace>,
}

fn usage(text: String) -> RunError {
    RunError::Usage(text)
}

fn runtime(op: &'static str, path: &Path, e: io::Error) -> RunError {
    IoError::new(op, path, e).into()
}

#[derive(Clone, Copy)]
enum Kind {
    Dir,
    File(u64),
    Device,
}

/// Checks the target and the flags, creates a directory's temporary file,
/// opens what will be measured and chooses the I/O mode.
pub fn prepare(opts: &PingOptions, stop: &AtomicBool) -> Result<Prepared, RunError> {
    let target = &opts.target;
    let size = opts
        .size_bytes
        .unwrap_or(if opts.sequential { 256 * KIB } else { 4 * KIB });
    if size == 0 {
        return Err(usage(
            "request size must be greater than zero: give -s 4k or more".into(),
        ));
    }
    let (kind, meta) = classify(target)?;
    let write = opts.write > 0;
    let mut notes = Vec::new();
    let (path, target_bytes, work_size, workspace) = place(opts, kind, size, stop)?;
    let offset = opts.work_offset_bytes;
    let work_size = working_set(target, target_bytes, offset, work_size, size)?;
    let is_dev = matches!(kind, Kind::Device);
    let (file, mode, mem_align) = open_measured(opts, &path, is_dev, write, size, &mut notes)?;
    if mode != IoMode::Direct && (!opts.sequential || mode == IoMode::NonCached) {
        // ioping: no readahead for random or non-cached reads.
        let _ = sys::advise(&file, sys::Advice::Random);
    }
    if !write && matches!(kind, Kind::File(_)) && meta.blocks() * 512 < work_size / 10 * 9 {
        notes.push(
            Warning::SparseFile {
                path: target.display().to_string(),
                allocated_bytes: meta.blocks() * 512,
                size_bytes: work_size,
            }
            .to_string(),
        );
    }
    let info = target_info(target, is_dev, target_bytes);
    if info.fstype == "tmpfs" {
        notes.push(format!(
            "{} is on tmpfs, whose data lives in RAM: these are memory latencies, not a disk's",
            target.display()
        ));
    }
    let deadline = opts
        .deadline
        .or(opts.rapid.then_some(Duration::from_secs(3)))
        .filter(|d| !d.is_zero());
    let interval = opts.interval.unwrap_or(if opts.rapid {
        Duration::ZERO
    } else {
        Duration::from_secs(1)
    });
    Ok(Prepared {
        info,
        mode,
        write,
        sync_writes: !opts.cached,
        size_bytes: size,
        work_offset_bytes: offset,
        work_size_bytes: work_size,
        sequential: opts.sequential,
        interval,
        deadline,
        count: opts.count,
        warmup: opts.warmup,
        notes,
        path,
        file,
        buffer: BufferPool::new(1, size as usize, mem_align.max(4096) as usize),
        _workspace: workspace,
    })
}

/// What the target is (directory, file with its length, block device),
/// with its metadata; anything else is a usage error.
fn classify(target: &Path) -> Result<(Kind, fs::Metadata), RunError> {
    let meta = match fs::metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(usage(format!(
                "{} does not exist: give a directory (a temporary file is made in it), a file \
                 or a block device",
                target.display()
            )))
        }
        Err(e) => return Err(runtime("stat", target, e)),
    };
    let ft = meta.file_type();
    let kind = if ft.is_dir() {
        Kind::Dir
    } else if ft.is_file() {
        Kind::File(meta.len())
    } else if ft.is_block_device() {
        Kind::Device
    } else {
        return Err(usage(format!(
            "{} is neither a directory, a file nor a block device: give one of those",
            target.display()
        )));
    };
    Ok((kind, meta))
}

/// Where the requests go: a temporary file laid out in a directory (kept
/// in the returned workspace), or the file or device itself, which is
/// written only with consent. Returns the path, the target's size and the
/// working set asked for (0: all of it).
fn place(
    opts: &PingOptions,
    kind: Kind,
    size: u64,
    stop: &AtomicBool,
) -> Result<(PathBuf, u64, u64, Option<Workspace>), RunError> {
    let target = &opts.target;
    let write = opts.write > 0;
    let mut workspace = None;
    let (path, target_bytes, work_size) = match kind {
        Kind::Dir => {
            let default = if opts.rapid { 64 * MIB } else { MIB };
            let work = opts.work_size_bytes.unwrap_or(default.max(size));
            let mut ws = Workspace::default();
            let dir = ws.dir_in(target)?;
            let path = dir.join(TEMP_FILE);
            let need = opts.work_offset_bytes + work;
            check_free_space(target, need)?;
            lay_out(&path, need, stop)?;
            if !opts.cached {
                // Honest by default: the first reads must not find it cached.
                let f = File::open(&path).map_err(|e| runtime("open", &path, e))?;
                let _ = sys::drop_cache(&f);
            }
            workspace = Some(ws);
            (path, need, work)
        }
        Kind::File(len) => {
            if write && opts.write < 3 && !opts.allow_destructive {
                return Err(usage(format!(
                    "-W would overwrite the data of {}, a file diskbench did not create: repeat \
                     it as -WWW (as ioping asks) or pass --allow-destructive if you mean it, or \
                     give a directory to write a temporary file in",
                    target.display()
                )));
            }
            (target.clone(), len, opts.work_size_bytes.unwrap_or(0))
        }
        Kind::Device => {
            let mut dev = File::open(target).map_err(|e| runtime("open", target, e))?;
            let len = dev.seek(SeekFrom::End(0)).map_err(|e| {
                let what = format!("size of {}", target.display());
                RunError::from(IoError::new("lseek", target, e).saying(what))
            })?;
            if write {
                runner::guard::check_writable(target, &dev, len, opts.allow_destructive)
                    .map_err(|why| usage(format!("-W refused: {why}")))?;
            }
            (target.clone(), len, opts.work_size_bytes.unwrap_or(0))
        }
    };
    Ok((path, target_bytes, work_size, workspace))
}

/// The working set in bytes: what was asked (0: from `offset` to the end),
/// checked against the target's size and the request size.
fn working_set(
    target: &Path,
    target_bytes: u64,
    offset: u64,
    work_size: u64,
    size: u64,
) -> Result<u64, RunError> {
    if work_size > target_bytes || offset > target_bytes - work_size {
        return Err(usage(format!(
            "{} is too small for this: {} bytes, but the working set needs {} from offset {}; \
             lower -S or -o",
            target.display(),
            target_bytes,
            work_size,
            offset
        )));
    }
    let work_size = match work_size {
        0 => target_bytes - offset,
        asked => asked,
    };
    if size > work_size {
        return Err(usage(format!(
            "request size {size} is too big for this target (working set {work_size} bytes): \
             lower -s or raise -S"
        )));
    }
    Ok(work_size)
}

fn check_free_space(dir: &Path, need: u64) -> Result<(), RunError> {
    if let Ok((free, _)) = sys::free_space(dir) {
        if free < need {
            return Err(usage(format!(
                "{} has {} free but the temporary file needs {}: lower -S or choose another \
                 directory",
                dir.display(),
                format_size(free),
                format_size(need)
            )));
        }
    }
    Ok(())
}

/// Writes `len` bytes of random data into a new file and syncs it, as ioping
/// prepares `ioping.tmp` (reads of a sparse file would never reach the disk).
fn lay_out(path: &Path, len: u64, stop: &AtomicBool) -> Result<(), RunError> {
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| runtime("create", path, e))?;
    let mut chunk = vec![0u8; MIB as usize];
    let mut at = 0u64;
    while at < len {
        if stop.load(Ordering::Relaxed) {
            return Err(RunError::Interrupted);
        }
        let n = (len - at).min(MIB) as usize;
        engine::fill_random(&mut chunk[..n], at ^ 0x1f83_d9ab_fb41_bd6b);
        f.write_all(&chunk[..n]).map_err(|e| {
            let what = format!(
                "laying out {}: write of {n} bytes at offset {at}",
                path.display()
            );
            IoError::new("write", path, e).saying(what).at(at)
        })?;
        at += n as u64;
    }
    f.sync_all().map_err(|e| runtime("fsync", path, e))
}

/// Opens the measured file: O_DIRECT when asked (`-D`) or by default when
/// the target allows it, else buffered. Returns the file, the mode and the
/// buffer memory alignment.
fn open_measured(
    opts: &PingOptions,
    path: &Path,
    is_dev: bool,
    write: bool,
    size: u64,
    notes: &mut Vec<String>,
) -> Result<(File, IoMode, u64), RunError> {
    let open = |direct: bool| {
        let mut o = OpenOptions::new();
        o.read(true).write(write);
        if direct {
            o.custom_flags(libc::O_DIRECT);
        }
        o.open(path)
    };
    let fallback = if opts.cached {
        IoMode::Cached
    } else {
        IoMode::NonCached
    };
    if opts.direct || !opts.cached {
        let target = opts.target.display();
        let (why_not, fix) = match open(true) {
            Ok(f) => {
                let (mem, off) = dio_alignment(&f, path, is_dev);
                let misaligned = [("-s", size), ("-o", opts.work_offset_bytes)]
                    .into_iter()
                    .find(|(_, v)| !v.is_multiple_of(off));
                match misaligned {
                    None => return Ok((f, IoMode::Direct, mem)),
                    Some((flag, value)) => (
                        format!(
                            "{flag} {value} is not a multiple of {off} bytes, the direct I/O \
                             alignment of {target}"
                        ),
                        format!("use a multiple of {off} (e.g. -s 4k)"),
                    ),
                }
            }
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => (
                format!("{target} does not support direct I/O (O_DIRECT)"),
                "choose another filesystem".to_string(),
            ),
            Err(e) => return Err(open_error(path, write, e)),
        };
        if opts.direct {
            return Err(usage(format!(
                "-D: {why_not}: {fix}, or drop -D (diskbench then uses buffered I/O as ioping \
                 does)"
            )));
        }
        let how = if write {
            "fdatasync after each write"
        } else {
            "the cache dropped before each read (posix_fadvise DONTNEED)"
        };
        notes.push(format!(
            "{why_not}, so this is buffered I/O with {how}, as ioping does; for direct I/O, {fix}"
        ));
    }
    let f = open(false).map_err(|e| open_error(path, write, e))?;
    if fallback == IoMode::Cached && !write {
        notes.push("-C: reads may come from the page cache, not the disk".into());
    }
    Ok((f, fallback, 512))
}

fn open_error(path: &Path, write: bool, e: io::Error) -> RunError {
    let how = if write { "writing" } else { "reading" };
    let what = format!("cannot open {} for {how}", path.display());
    IoError::new("open", path, e).saying(what).into()
}

/// `(memory, offset)` alignment for O_DIRECT: statx DIOALIGN, else the
/// device's logical block size, else 512.
fn dio_alignment(file: &File, path: &Path, is_dev: bool) -> (u64, u64) {
    if let Some((mem, off)) = sys::dio_alignment(file) {
        return (mem as u64, off as u64);
    }
    if is_dev {
        if let Ok(lbs) = sys::logical_block_size(file) {
            return (lbs as u64, lbs as u64);
        }
    }
    let lbs = runner::probe::logical_block_size_of(path).unwrap_or(512);
    (lbs, lbs)
}

/// ioping's `(fstype device size)`: the mount's for a directory or file,
/// `block device SIZE` for a device.
fn target_info(target: &Path, is_dev: bool, device_bytes: u64) -> TargetInfo {
    let shown = target.display().to_string();
    if is_dev {
        return TargetInfo {
            shown,
            fstype: "block".into(),
            device: "device".into(),
            size_bytes: device_bytes,
        };
    }
    let probe = runner::probe::target(target);
    let device = probe.mount_source.unwrap_or_default();
    let device = if device.starts_with('/') {
        fs::canonicalize(&device).map_or(device, |p| p.display().to_string())
    } else {
        device
    };
    TargetInfo {
        shown,
        fstype: probe.filesystem.unwrap_or_default(),
        device,
        size_bytes: sys::free_space(target).map_or(0, |(_, total)| total),
    }
}

// ----------------------------------------------------------------- loop --

/// One finished request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// 1-based, warmup included, as ioping's `request=`.
    pub index: u64,
    pub offset_bytes: u64,
    pub time_ns: u64,
    pub notice: Option<Notice>,
}

/// The statistics so far and, when the loop stopped early, why.
pub struct PingOutcome {
    pub stats: PingStats,
    pub failure: Option<RunError>,
}

/// ioping's offsets are random, not reproducible; so are ours: splitmix64
/// seeded from the clock and the process id.
fn seeded_rng() -> SplitMix64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    SplitMix64(t ^ ((std::process::id() as u64) << 32))
}

impl Prepared {
    /// One request at `offset`, timed alone: its time in ns and when it ended.
    fn request(&mut self, index: u64, offset: u64) -> Result<(u64, Instant), RunError> {
        let len = self.size_bytes as usize;
        let op = if self.write { "write" } else { "read" };
        let request = format!(
            "{op} of {len} bytes at offset {offset} in {}",
            self.path.display()
        );
        let failed = |what: String| RunError::Other(format!("{request}: {what}"));
        // The OS error of the request, or of `step` done for it.
        let os_failed = |step: Option<(&'static str, &str)>, e: io::Error| {
            let (call, what) = match step {
                Some((call, step)) => (call, format!("{request}: {step}")),
                None => (op, request.clone()),
            };
            IoError::new(call, &self.path, e).saying(what).at(offset)
        };
        if !self.write && self.mode == IoMode::NonCached {
            sys::drop_cache_range(&self.file, offset, len as u64).map_err(|e| {
                let step = "posix_fadvise(DONTNEED) before it failed";
                os_failed(Some(("posix_fadvise", step)), e).fix("retry with -C")
            })?;
        }
        // One slot, never lent: ping does its I/O with plain pread/pwrite.
        let buf = self
            .buffer
            .slot(0)
            .and_then(|b| b.get_mut(..len))
            .ok_or_else(|| failed(format!("no {len}-byte buffer for the request")))?;
        if self.write {
            engine::fill_random(buf, index ^ 0x2545_f491_4f6c_dd1d);
        }
        let start = Instant::now();
        let done = if self.write {
            self.file.write_at(buf, offset)
        } else {
            self.file.read_at(buf, offset)
        };
        let synced = match done {
            Ok(n) if self.write && self.sync_writes => self
                .file
                .sync_data()
                .map(|()| n)
                .map_err(|e| os_failed(Some(("fdatasync", "fdatasync after it")), e)),
            other => other.map_err(|e| os_failed(None, e)),
        };
        let end = Instant::now();
        match synced {
            Ok(n) if n == len => Ok((end.duration_since(start).as_nanos() as u64, end)),
            Ok(n) => Err(failed(format!("only {n} bytes were transferred"))),
            Err(e) => Err(e.into()),
        }
    }
}

/// Sleeps until `until` as ioping does, in one nanosleep (of at most a
/// second, so a stop is seen within a second whatever thread the signal
/// reached), cut short by a signal: the CLI's signal thread then sets
/// `stop` a moment later, which is waited for briefly.
fn sleep_until(until: Instant, stop: &AtomicBool) {
    loop {
        let now = Instant::now();
        if now >= until || stop.load(Ordering::Relaxed) {
            return;
        }
        if !sys::sleep_unless_signalled((until - now).min(Duration::from_secs(1))) {
            for _ in 0..100 {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

/// Runs requests until `-c`, `-w` or `stop`, calling `each` after each one
/// (outside its timing). Intervals are kept as ioping keeps them: the next
/// request starts `interval` after the previous one started, or at once if
/// that time has passed.
pub fn run(p: &mut Prepared, stop: &AtomicBool, mut each: impl FnMut(&Request)) -> PingOutcome {
    let mut stats = PingStats::new(p.size_bytes);
    let mut rng = seeded_rng();
    let blocks = p.work_size_bytes / p.size_bytes;
    let mut seq = 0u64;
    let mut failure = None;
    let start = Instant::now();
    let deadline = p.deadline.map(|d| start + d);
    let mut next = start;
    while !stop.load(Ordering::Relaxed) {
        let index = stats.requests + 1;
        let within = if p.sequential {
            seq
        } else {
            rng.below(blocks) * p.size_bytes
        };
        let offset = p.work_offset_bytes + within;
        let (ns, end) = match p.request(index, offset) {
            Ok(done) => done,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        next += p.interval;
        if end > next {
            next = end;
        }
        let notice = stats.add(index, ns, p.warmup);
        each(&Request {
            index,
            offset_bytes: offset,
            time_ns: ns,
            notice,
        });
        seq += p.size_bytes;
        if seq + p.size_bytes > p.work_size_bytes {
            seq = 0;
        }
        let counted_out = p.count > 0 && index >= p.count;
        if counted_out || deadline.is_some_and(|d| next >= d) {
            break;
        }
        sleep_until(next, stop);
    }
    stats.load_ns = start.elapsed().as_nanos() as u64;
    if failure.is_none() && stop.load(Ordering::Relaxed) {
        failure = Some(RunError::Interrupted);
    }
    PingOutcome { stats, failure }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick(dir: &Path) -> PingOptions {
        PingOptions {
            target: dir.to_path_buf(),
            count: 6,
            interval: Some(Duration::ZERO),
            work_size_bytes: Some(64 * KIB),
            ..PingOptions::default()
        }
    }

    #[test]
    fn ping_reads_a_directorys_own_file_and_removes_it() {
        let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
        let stop = AtomicBool::new(false);
        let mut p = prepare(&quick(dir.path()), &stop).unwrap();
        assert!(p.path.ends_with(TEMP_FILE));
        let mut seen = Vec::new();
        let out = run(&mut p, &stop, |r| seen.push(r.clone()));
        assert!(out.failure.is_none(), "{:?}", out.failure);
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[0].notice, Some(Notice::Warmup));
        assert_eq!(out.stats.count(), 5);
        for r in &seen {
            assert_eq!(r.offset_bytes % 4096, 0);
            assert!(r.offset_bytes < 64 * KIB);
        }
        drop(p);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn ping_sequential_offsets_wrap() {
        let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
        let stop = AtomicBool::new(false);
        let opts = PingOptions {
            sequential: true,
            size_bytes: Some(16 * KIB),
            ..quick(dir.path())
        };
        let mut p = prepare(&opts, &stop).unwrap();
        let mut offsets = Vec::new();
        run(&mut p, &stop, |r| offsets.push(r.offset_bytes / KIB));
        assert_eq!(offsets, [0, 16, 32, 48, 0, 16]);
    }

    #[test]
    fn ping_stops_at_once_when_asked() {
        let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
        let stop = AtomicBool::new(false);
        let interval = Duration::from_secs(30);
        let opts = PingOptions {
            count: 0,
            interval: Some(interval),
            ..quick(dir.path())
        };
        let mut p = prepare(&opts, &stop).unwrap();
        let began = Instant::now();
        let out = run(&mut p, &stop, |_| stop.store(true, Ordering::Relaxed));
        // The stop, asked at the first request, cut the sleep after it: the
        // run ended before the interval it would have slept.
        assert!(began.elapsed() < interval, "{:?}", began.elapsed());
        assert_eq!(out.stats.requests, 1);
        assert!(matches!(out.failure, Some(RunError::Interrupted)));
    }
}
