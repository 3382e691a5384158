//! One pass of a phase: every worker on its run of file numbers at once,
//! timed from the moment all are ready to the end of the final sync. A pass
//! may be given a time limit (`--runtime`): each worker then starts no file
//! after it, and the pass counts only the files it finished.

use super::spec::{sequential_index, write_name};
use super::{file_size, Layout, Op, Phase, PhaseResult, Tree};
use engine::{fsops, sys};
use model::rng::splitmix64;
use model::Histogram;
use runner::offsets::Rng;
use runner::{IoError, RunError};
use rustix::fs::{self as rfs, Mode, OFlags};
use std::ffi::OsStr;
use std::ops::Range;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// Runs one pass of a phase on all workers at once, worker `t` on the file
/// numbers `ranges[t]`; the clock starts when every worker is ready (orders
/// shuffled, buffers filled) and stops after the sync. Returns the pass and
/// how many files each worker finished.
pub(super) fn run_pass(
    phase: Phase,
    lay: &Layout,
    tree: &Tree,
    stop: &AtomicBool,
    ranges: &[Range<u64>],
    time_left: Option<Duration>,
) -> Result<(PhaseResult, Vec<u64>), RunError> {
    let barrier = Barrier::new(lay.threads as usize + 1);
    let (joined, start) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..lay.threads)
            .map(|t| {
                let barrier = &barrier;
                let range = ranges[t as usize].clone();
                s.spawn(move || {
                    let mut w = Worker::new(phase, lay, tree, stop, t, range);
                    barrier.wait();
                    w.deadline = time_left.map(|d| Instant::now() + d);
                    let before = cpu_now();
                    let outcome = w.work();
                    outcome.map(|()| (w, cpu_now().saturating_sub(before)))
                })
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        let joined: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        (joined, start)
    });
    let mut result = PhaseResult {
        phase,
        files: 0,
        bytes: 0,
        elapsed: Duration::ZERO,
        sync: Duration::ZERO,
        cpu: Duration::ZERO,
        threads: lay.threads as u32,
        passes: 1,
        latency: Histogram::new(),
    };
    let mut finished = Vec::with_capacity(joined.len());
    for j in joined {
        let (w, cpu) =
            j.map_err(|_| RunError::Other(format!("a {} worker failed", phase.name())))??;
        finished.push(w.files);
        result.files += w.files;
        result.bytes += w.bytes;
        result.cpu += cpu;
        result.latency.merge(&w.latency);
    }
    if phase.syncs() && !stop.load(Ordering::Relaxed) {
        let (t0, c0) = (Instant::now(), cpu_now());
        rfs::syncfs(&tree.fds[0]).map_err(|e| {
            let what = format!("cannot sync the filesystem of {}", tree.root.display());
            IoError::new("syncfs", &tree.root, e.into()).saying(what)
        })?;
        result.sync = t0.elapsed();
        result.cpu += cpu_now().saturating_sub(c0);
    }
    result.elapsed = start.elapsed();
    Ok((result, finished))
}

fn cpu_now() -> Duration {
    let u = sys::thread_usage();
    Duration::from_nanos(u.user_ns + u.system_ns)
}

/// One client: its share of the files, its buffer, its counters.
struct Worker<'a> {
    phase: Phase,
    lay: &'a Layout,
    tree: &'a Tree,
    stop: &'a AtomicBool,
    /// When set, no file is started after it.
    deadline: Option<Instant>,
    timed_out: bool,
    share: Range<u64>,
    /// File numbers in the order the random stat/delete visit them.
    order: Vec<u64>,
    buf: Vec<u8>,
    files: u64,
    bytes: u64,
    latency: Histogram,
}

impl<'a> Worker<'a> {
    fn new(
        phase: Phase,
        lay: &'a Layout,
        tree: &'a Tree,
        stop: &'a AtomicBool,
        t: u64,
        share: Range<u64>,
    ) -> Self {
        let mut order = Vec::new();
        if phase.is_random() && phase.op() != Op::Create {
            order.extend(share.clone());
            let mut rng = Rng::new(lay.seed ^ splitmix64(phase as u64) ^ splitmix64(t));
            for i in (1..order.len()).rev() {
                order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
            }
        }
        let mut buf = vec![0u8; lay.chunk as usize];
        engine::fill_random(&mut buf, lay.seed | 1);
        Worker {
            phase,
            lay,
            tree,
            stop,
            deadline: None,
            timed_out: false,
            share,
            order,
            buf,
            files: 0,
            bytes: 0,
            latency: Histogram::new(),
        }
    }

    /// The user stopped the run, or the pass's time is up.
    fn stopped(&mut self) -> bool {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.timed_out = true;
        }
        self.timed_out || self.stop.load(Ordering::Relaxed)
    }

    fn work(&mut self) -> Result<(), RunError> {
        if self.share.is_empty() {
            return Ok(());
        }
        let random = self.phase.is_random();
        let mut name = Vec::with_capacity(32);
        match (self.phase.op(), random) {
            (Op::Create, _) => {
                for i in self.share.clone() {
                    if self.stopped() {
                        break;
                    }
                    write_name(&mut name, self.lay.seed, i, random);
                    self.create(
                        self.lay.dir_of(i),
                        &name,
                        file_size(self.lay.seed, self.lay.min, self.lay.max, i),
                    )?;
                }
            }
            (op, true) => {
                let order = std::mem::take(&mut self.order);
                for &i in &order {
                    if self.stopped() {
                        break;
                    }
                    write_name(&mut name, self.lay.seed, i, true);
                    self.stat_or_delete(op, self.lay.dir_of(i), &name)?;
                }
            }
            (op, false) => self.walk(op)?,
        }
        if !self.stopped() && self.files != self.share.end - self.share.start {
            return Err(RunError::Other(format!(
                "{}: touched {} of this worker's {} files: something else changed {}",
                self.phase.name(),
                self.files,
                self.share.end - self.share.start,
                self.tree.root.display()
            )));
        }
        Ok(())
    }

    /// Sequential stat/delete: readdir order, this worker's files only.
    fn walk(&mut self, op: Op) -> Result<(), RunError> {
        let (first, last) = (
            self.lay.dir_of(self.share.start),
            self.lay.dir_of(self.share.end - 1),
        );
        for d in first..=last {
            let mut dir =
                rfs::Dir::read_from(&self.tree.fds[d]).map_err(|e| self.fail("read", d, b"", e))?;
            while let Some(entry) = dir.read() {
                if self.stopped() {
                    return Ok(());
                }
                let entry = entry.map_err(|e| self.fail("read", d, b"", e))?;
                let name = entry.file_name().to_bytes();
                match sequential_index(name) {
                    Some(i) if self.share.contains(&i) => self.stat_or_delete(op, d, name)?,
                    _ => continue,
                }
            }
        }
        Ok(())
    }

    fn stat_or_delete(&mut self, op: Op, d: usize, name: &[u8]) -> Result<(), RunError> {
        if op == Op::Stat {
            self.stat(d, name)
        } else {
            self.delete(d, name)
        }
    }

    fn create(&mut self, d: usize, name: &[u8], size: u64) -> Result<(), RunError> {
        let t0 = Instant::now();
        let how = fsops::Create::NewForWriting;
        let fd = fsops::create_file(&self.tree.fds[d], OsStr::from_bytes(name), how)
            .map_err(|e| self.fail("create", d, name, e))?;
        let mut left = size;
        while left > 0 {
            let n = left.min(self.lay.chunk) as usize;
            match rustix::io::write(&fd, &self.buf[..n]) {
                Ok(0) => return Err(self.fail("write", d, name, rustix::io::Errno::NOSPC)),
                Ok(w) => left -= w as u64,
                Err(e) => return Err(self.fail("write", d, name, e)),
            }
        }
        drop(fd);
        self.done(t0, size);
        Ok(())
    }

    fn stat(&mut self, d: usize, name: &[u8]) -> Result<(), RunError> {
        let t0 = Instant::now();
        let dir = &self.tree.fds[d];
        let path = OsStr::from_bytes(name);
        let st = fsops::stat(dir, path).map_err(|e| self.fail("stat", d, name, e))?;
        let size = st.st_size.max(0) as u64;
        if size > 0 {
            let flags = OFlags::RDONLY | OFlags::CLOEXEC;
            let fd = rfs::openat(dir, path, flags, Mode::empty())
                .map_err(|e| self.fail("open", d, name, e))?;
            let mut got = 0;
            while got < size {
                let n = (size - got).min(self.lay.chunk) as usize;
                match rustix::io::read(&fd, &mut self.buf[..n]) {
                    Ok(0) => {
                        return Err(self.fail(
                            "read (file shorter than stat said)",
                            d,
                            name,
                            rustix::io::Errno::IO,
                        ))
                    }
                    Ok(r) => got += r as u64,
                    Err(e) => return Err(self.fail("read", d, name, e)),
                }
            }
        }
        self.done(t0, size);
        Ok(())
    }

    fn delete(&mut self, d: usize, name: &[u8]) -> Result<(), RunError> {
        let t0 = Instant::now();
        fsops::unlink(&self.tree.fds[d], OsStr::from_bytes(name))
            .map_err(|e| self.fail("delete", d, name, e))?;
        self.done(t0, 0);
        Ok(())
    }

    fn done(&mut self, t0: Instant, bytes: u64) {
        self.latency.record(t0.elapsed().as_nanos() as u64);
        self.files += 1;
        self.bytes += bytes;
    }

    fn fail(&self, op: &'static str, d: usize, name: &[u8], e: rustix::io::Errno) -> RunError {
        let path = self.tree.paths[d].join(OsStr::from_bytes(name));
        let what = format!("{}: cannot {op} {}", self.phase.name(), path.display());
        IoError::new(op, &path, e.into()).saying(what).into()
    }
}
