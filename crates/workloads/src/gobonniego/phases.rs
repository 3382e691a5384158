//! GoBonnieGo's three timed tests (write, read with verification, 512-byte
//! IOPS), one thread per file, and the cache drops between them.
//!
//! Each test's time runs from just before its threads start to the moment
//! the last one finishes, as GoBonnieGo times them; each thread also
//! reports how busy its CPU was, so a CPU-bound figure can be flagged.

use super::{Error, BLOCK_BYTES, IOPS_DROP_INTERVAL, IOPS_OP_BYTES, VERIFY_EVERY_BLOCKS};
use engine::sys;
use runner::offsets::Rng;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A thread busier than this share of its wall time was CPU-bound.
const CPU_BOUND_PCT: f64 = 90.0;

/// How the page cache was emptied before a test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheDrop {
    /// The run stopped before this test.
    NotYet,
    /// `/proc/sys/vm/drop_caches` (root), after the files were fsynced.
    DropCaches,
    /// `posix_fadvise(DONTNEED)` on every file, after it was fsynced.
    Fadvise,
    /// Neither worked: the test may read from the cache.
    Failed(String),
}

impl CacheDrop {
    /// The JSON name: `drop_caches`, `fadvise`, `none` or `not_reached`.
    pub fn key(&self) -> &'static str {
        match self {
            CacheDrop::NotYet => "not_reached",
            CacheDrop::DropCaches => "drop_caches",
            CacheDrop::Fadvise => "fadvise",
            CacheDrop::Failed(_) => "none",
        }
    }

    /// For people: what was done.
    pub fn describe(&self) -> String {
        match self {
            CacheDrop::NotYet => "not reached".into(),
            CacheDrop::DropCaches => {
                "files fsynced, then /proc/sys/vm/drop_caches (as root)".into()
            }
            CacheDrop::Fadvise => {
                "files fsynced, then posix_fadvise(DONTNEED) on each (drop_caches needs root)"
                    .into()
            }
            CacheDrop::Failed(why) => format!("NOT dropped: {why}"),
        }
    }
}

/// What one test measured over all threads.
#[derive(Default)]
pub struct Phase {
    pub bytes: u64,
    pub time: Duration,
    pub verified: u64,
    pub reads: u64,
    pub writes: u64,
    /// Cache drops made while the test ran.
    pub drops: u32,
    /// (thread, % busy) of each CPU-bound thread.
    pub cpu_bound: Vec<(usize, f64)>,
}

/// One random 64 KiB block (incompressible, so compression cannot flatter
/// the figures), different for every invocation as GoBonnieGo's.
pub fn random_block() -> Vec<u8> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut block = vec![0u8; BLOCK_BYTES];
    engine::fill_random(&mut block, nanos ^ (u64::from(std::process::id()) << 32));
    block
}

/// Removes the previous run's files (GoBonnieGo starts each run afresh).
pub fn remove_files(files: &[PathBuf]) -> Result<(), Error> {
    for p in files {
        match fs::remove_file(p) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                return Err(Error::Io(format!("remove {}: {e}", p.display())))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Writes each file from `block` repeated (`bytes` per file), buffered,
/// then fsyncs and closes it: the time includes getting the data to disk.
pub fn write_phase(
    files: &[PathBuf],
    bytes: u64,
    block: &[u8],
    stop: &AtomicBool,
) -> Result<Phase, Error> {
    let (per_thread, mut phase) = in_threads(files, stop, None, |_, path, halt| {
        write_file(path, bytes, block, halt)
    })?;
    phase.bytes = per_thread.iter().sum();
    Ok(phase)
}

fn write_file(path: &Path, bytes: u64, block: &[u8], halt: &Halt) -> Result<u64, Error> {
    let mut f = File::create(path).map_err(|e| io_error("create", path, 0, 0, e))?;
    let mut at = 0u64;
    while at < bytes {
        halt.check()?;
        f.write_all(block)
            .map_err(|e| io_error("write", path, at, block.len(), e))?;
        at += block.len() as u64;
    }
    f.sync_all()
        .map_err(|e| io_error("fsync", path, 0, at as usize, e))?;
    drop(f);
    Ok(at)
}

/// Reads each file in 64 KiB blocks, comparing every 127th with `block`.
pub fn read_phase(files: &[PathBuf], block: &[u8], stop: &AtomicBool) -> Result<Phase, Error> {
    let (per_thread, mut phase) = in_threads(files, stop, None, |_, path, halt| {
        read_file(path, block, halt)
    })?;
    phase.bytes = per_thread.iter().map(|t| t.0).sum();
    phase.verified = per_thread.iter().map(|t| t.1).sum();
    Ok(phase)
}

/// Bytes read and blocks verified.
fn read_file(path: &Path, block: &[u8], halt: &Halt) -> Result<(u64, u64), Error> {
    let mut f = File::open(path).map_err(|e| io_error("open", path, 0, 0, e))?;
    let mut buf = vec![0u8; BLOCK_BYTES];
    let (mut at, mut blocks, mut verified) = (0u64, 0u64, 0u64);
    loop {
        halt.check()?;
        let n = fill(&mut f, &mut buf).map_err(|e| io_error("read", path, at, BLOCK_BYTES, e))?;
        if n == 0 {
            break;
        }
        blocks += 1;
        if blocks.is_multiple_of(VERIFY_EVERY_BLOCKS) {
            verify_block(block, &buf[..n], path, at)?;
            verified += 1;
        }
        at += n as u64;
        if n < BLOCK_BYTES {
            break;
        }
    }
    Ok((at, verified))
}

/// Reads until `buf` is full or the file ends; the bytes read.
fn fill(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Compares a block read at `block_offset` of `path` with the one written;
/// a mismatch names the file and the offset of the first differing byte.
pub fn verify_block(
    written: &[u8],
    read: &[u8],
    path: &Path,
    block_offset: u64,
) -> Result<(), Error> {
    let want = &written[..read.len().min(written.len())];
    match want.iter().zip(read).position(|(a, b)| a != b) {
        None if want.len() == read.len() => Ok(()),
        first => Err(Error::Corrupt {
            path: path.to_path_buf(),
            block_offset,
            offset: block_offset + first.unwrap_or(want.len()) as u64,
        }),
    }
}

/// For `time`, 512-byte operations at random offsets of each file, every
/// tenth a write (of the XOR of the blocks read, as GoBonnieGo), then an
/// fsync inside the timed window; cached pages are dropped every 3 s.
pub fn iops_phase(files: &[PathBuf], time: Duration, stop: &AtomicBool) -> Result<Phase, Error> {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let handles: Vec<File> = files.iter().filter_map(|p| File::open(p).ok()).collect();
    let drop_all = || {
        for f in &handles {
            let _ = sys::drop_cache(f);
        }
    };
    let (per_thread, mut phase) = in_threads(
        files,
        stop,
        Some((IOPS_DROP_INTERVAL, &drop_all)),
        |i, path, halt| {
            let key = (i as u64 + 1).wrapping_mul(model::rng::GOLDEN_GAMMA);
            iops_file(path, time, seed ^ key, halt)
        },
    )?;
    phase.reads = per_thread.iter().map(|t| t.0).sum();
    phase.writes = per_thread.iter().map(|t| t.1).sum();
    Ok(phase)
}

/// Reads and writes done on one file.
fn iops_file(path: &Path, time: Duration, seed: u64, halt: &Halt) -> Result<(u64, u64), Error> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| io_error("open", path, 0, 0, e))?;
    let size = f
        .metadata()
        .map_err(|e| io_error("stat", path, 0, 0, e))?
        .len();
    // Readahead would cache a read's neighbours and flatter later reads.
    let _ = sys::advise(&f, sys::Advice::Random);
    let span = size.saturating_sub(IOPS_OP_BYTES as u64).max(1);
    let mut rng = Rng::new(seed);
    let (mut data, mut sum) = ([0u8; IOPS_OP_BYTES], [0u8; IOPS_OP_BYTES]);
    let (mut reads, mut writes) = (0u64, 0u64);
    let start = Instant::now();
    let mut i = 0u64;
    while start.elapsed() < time {
        halt.check()?;
        let at = rng.next_u64() % span;
        if !i.is_multiple_of(super::WRITE_EVERY_OPS) {
            f.read_exact_at(&mut data, at)
                .map_err(|e| io_error("read", path, at, IOPS_OP_BYTES, e))?;
            sum.iter_mut().zip(&data).for_each(|(s, d)| *s ^= d);
            reads += 1;
        } else {
            f.write_all_at(&sum, at)
                .map_err(|e| io_error("write", path, at, IOPS_OP_BYTES, e))?;
            writes += 1;
        }
        i += 1;
    }
    f.sync_all().map_err(|e| io_error("fsync", path, 0, 0, e))?;
    Ok((reads, writes))
}

/// Whether this process may write `/proc/sys/vm/drop_caches`, which empties
/// the page cache of the whole host (root, and a writable /proc/sys).
pub fn host_cache_drop_allowed() -> bool {
    rustix::fs::access(DROP_CACHES, rustix::fs::Access::WRITE_OK).is_ok()
}

const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// Empties the page cache of `files` before a test: fsync each (only clean
/// pages can be dropped), then drop_caches if allowed and `host` (the whole
/// host's cache), and fadvise anyway.
pub fn drop_cache(files: &[PathBuf], host: bool) -> CacheDrop {
    let mut opened = Vec::with_capacity(files.len());
    for p in files {
        match File::open(p).and_then(|f| f.sync_all().map(|()| f)) {
            Ok(f) => opened.push(f),
            Err(e) => return CacheDrop::Failed(format!("fsync {}: {e}", p.display())),
        }
    }
    // "1": the page cache only; dentries and inodes do not hold file data.
    let global = match host {
        true => OpenOptions::new()
            .write(true)
            .open(DROP_CACHES)
            .and_then(|mut f| f.write_all(b"1")),
        false => Err(io::Error::other("not asked (-no-drop-caches)")),
    };
    let mut advised = Ok(());
    for (f, p) in opened.iter().zip(files) {
        if let Err(e) = sys::drop_cache(f) {
            advised = Err(format!("posix_fadvise {}: {e}", p.display()));
        }
    }
    match (global, advised) {
        (Ok(()), _) => CacheDrop::DropCaches,
        (Err(_), Ok(())) => CacheDrop::Fadvise,
        (Err(g), Err(a)) => CacheDrop::Failed(format!("/proc/sys/vm/drop_caches: {g}; {a}")),
    }
}

fn io_error(op: &str, path: &Path, offset: u64, len: usize, e: io::Error) -> Error {
    Error::Io(format!(
        "{op} {} at offset {offset} ({len} bytes): {e}",
        path.display()
    ))
}

/// Tells a test's threads to stop: the user's signal, or another thread's error.
struct Halt<'a> {
    user: &'a AtomicBool,
    failed: AtomicBool,
}

impl Halt<'_> {
    fn check(&self) -> Result<(), Error> {
        if self.user.load(Ordering::Relaxed) || self.failed.load(Ordering::Relaxed) {
            Err(Error::Interrupted)
        } else {
            Ok(())
        }
    }
}

type Tick<'a> = Option<(Duration, &'a dyn Fn())>;

/// Runs `work` on each file in its own thread; each thread's result, and
/// the test's time and CPU-bound threads. `tick` runs every interval on
/// the calling thread while the workers run. The first real error wins
/// over the `Interrupted` it causes in the other threads.
fn in_threads<T: Send>(
    files: &[PathBuf],
    stop: &AtomicBool,
    tick: Tick,
    work: impl Fn(usize, &Path, &Halt) -> Result<T, Error> + Sync,
) -> Result<(Vec<T>, Phase), Error> {
    let halt = Halt {
        user: stop,
        failed: AtomicBool::new(false),
    };
    let start = Instant::now();
    let (tx, rx) = mpsc::channel();
    let mut outputs: Vec<Option<T>> = (0..files.len()).map(|_| None).collect();
    let mut phase = Phase::default();
    let mut failure: Option<Error> = None;
    std::thread::scope(|s| {
        for (i, path) in files.iter().enumerate() {
            let (tx, halt, work) = (tx.clone(), &halt, &work);
            s.spawn(move || {
                let cpu0 = sys::thread_usage();
                let t0 = Instant::now();
                let out = work(i, path, halt);
                let end = Instant::now();
                let cpu1 = sys::thread_usage();
                let busy_ns =
                    (cpu1.user_ns + cpu1.system_ns).saturating_sub(cpu0.user_ns + cpu0.system_ns);
                let busy = 100.0 * busy_ns as f64 / (end - t0).as_nanos().max(1) as f64;
                if out.is_err() {
                    halt.failed.store(true, Ordering::Relaxed);
                }
                let _ = tx.send((i, out, end, busy));
            });
        }
        drop(tx);
        let mut next_tick = tick.map(|(every, _)| start + every);
        loop {
            let got = match next_tick {
                Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
                None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            };
            match got {
                Ok((i, out, end, busy)) => {
                    phase.time = phase.time.max(end - start);
                    if busy > CPU_BOUND_PCT {
                        phase.cpu_bound.push((i, busy));
                    }
                    match out {
                        Ok(v) => outputs[i] = Some(v),
                        Err(e) => match failure {
                            None | Some(Error::Interrupted) => failure = Some(e),
                            _ => {}
                        },
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let (Some((every, f)), Some(at)) = (tick, next_tick.as_mut()) {
                        f();
                        phase.drops += 1;
                        *at += every;
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    Ok((outputs.into_iter().flatten().collect(), phase))
}
