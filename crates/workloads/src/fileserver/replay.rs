//! Runs a loadfile: one thread per client, each replaying the file from the
//! top again and again (as dbench does) until the time is up, the loop
//! count is reached or a signal stops it.
//!
//! Timing follows dbench: a warmup (dbench's default is a fifth of the
//! run), then the measured phase; only operations that *start* in the
//! measured phase count. Each operation's latency goes into a per-client,
//! per-operation histogram (merged at the end); throughput is the bytes
//! read and written in the measured phase over its length, in MB of 10^6
//! bytes as dbench counts them. A line with a time in its first column
//! waits for that time (from the start of the pass) when `timed` is set,
//! as dbench 4 does; its latency is measured after the wait.

use super::loadfile::{Line, Loadfile, Op, OpKind};
use super::ops::{Client, ClientConfig};
use super::status::Status;
use model::Histogram;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// A client that keeps getting statuses other than the loadfile's has left
/// the load it was meant to replay; it stops after this many.
pub const MAX_MISMATCHES: u64 = 1000;
/// Mismatches kept (with line and reason) per client for the report.
const SAMPLES: usize = 10;

/// The progress callback.
pub type ProgressFn = Box<dyn Fn(&Progress) + Send + Sync>;

pub struct Options {
    pub clients: u32,
    /// The measured phase (ignored with `loops`).
    pub duration: Duration,
    pub warmup: Duration,
    /// Replay the file this many times per client instead of for `duration`.
    pub loops: Option<u64>,
    /// Wait for the times in the loadfile's first column.
    pub timed: bool,
    pub client: ClientConfig,
    pub stop: Arc<AtomicBool>,
    /// Keep every client's operation log in the summary (tests).
    pub trace: bool,
    /// Called about once a second from the calling thread.
    pub progress: Option<ProgressFn>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            clients: 1,
            duration: Duration::from_secs(60),
            warmup: Duration::from_secs(12),
            loops: None,
            timed: true,
            client: ClientConfig {
                resolve: true,
                sync: false,
            },
            stop: Arc::new(AtomicBool::new(false)),
            trace: false,
            progress: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Warmup,
    Execute,
}

/// dbench's once-a-second line: `2  81771  459.47 MB/sec  warmup  1 sec  latency 1.002 ms`.
#[derive(Clone, Debug)]
pub struct Progress {
    pub clients: u32,
    pub ops: u64,
    pub phase: Phase,
    /// Seconds into the phase.
    pub seconds: u64,
    /// MB/s of the measured phase so far (of the warmup so far during it).
    pub mb_per_sec: f64,
    /// The longest operation of the last second.
    pub latency_ms: f64,
}

/// An operation whose status differs from the loadfile's.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub client: u32,
    pub line: u32,
    pub keyword: &'static str,
    pub expected: Status,
    pub got: Status,
    pub detail: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TraceEntry {
    pub line: u32,
    pub kind: OpKind,
    pub status: Status,
}

#[derive(Debug)]
pub struct Summary {
    pub load: String,
    pub clients: u32,
    pub warmup: Duration,
    /// The measured phase, from its start to the end of the last operation.
    pub duration: Duration,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Per operation, in dbench's order, those that ran in the measured phase.
    pub ops: Vec<(OpKind, Histogram)>,
    /// Passes over the whole file, all clients together.
    pub loops: u64,
    pub mismatches: u64,
    pub samples: Vec<Mismatch>,
    /// ReadX calls that got fewer bytes than the loadfile's server returned.
    pub short_reads: u64,
    pub usr_ns: u64,
    pub sys_ns: u64,
    pub interrupted: bool,
    /// Each client's operation log (with `trace`).
    pub traces: Vec<Vec<TraceEntry>>,
}

impl Summary {
    pub fn bytes(&self) -> u64 {
        self.bytes_read + self.bytes_written
    }

    /// dbench's figure: bytes read and written per second, in 10^6 bytes.
    pub fn throughput_mb_per_sec(&self) -> f64 {
        let secs = self.duration.as_secs_f64();
        if secs > 0.0 {
            self.bytes() as f64 / secs / 1e6
        } else {
            0.0
        }
    }

    pub fn max_latency_ns(&self) -> u64 {
        self.ops.iter().map(|(_, h)| h.max()).max().unwrap_or(0)
    }

    pub fn count(&self, kind: OpKind) -> u64 {
        self.ops
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(0, |(_, h)| h.count())
    }
}

/// Whether `got` is what the line expects. dbench ignores Mkdir's status:
/// `\clients` is shared by every client and outlives each pass, so making
/// it again finds it there; an existing directory counts as made.
fn as_expected(op: &Op, expected: &Status, got: &Status) -> bool {
    expected == got
        || (matches!(op, Op::Mkdir { .. })
            && *expected == Status::Ok
            && *got == Status::ObjectNameCollision)
}

/// What a client thread shares with the progress monitor.
#[derive(Default)]
#[repr(align(64))]
struct Live {
    ops: AtomicU64,
    measured_bytes: AtomicU64,
    max_ns: AtomicU64,
}

struct Clock {
    start: Instant,
    measure_from: Instant,
    deadline: Option<Instant>,
}

struct ClientResult {
    hists: Vec<Option<Histogram>>,
    bytes_read: u64,
    bytes_written: u64,
    loops: u64,
    mismatches: u64,
    samples: Vec<Mismatch>,
    short_reads: u64,
    usr_ns: u64,
    sys_ns: u64,
    interrupted: bool,
    measure_from: Instant,
    finished: Instant,
    trace: Vec<TraceEntry>,
}

/// Replays `load` in `base` (an empty directory the caller removes after).
pub fn run(load: &Loadfile, base: &Path, opts: &Options) -> Summary {
    let n = opts.clients.max(1);
    let lives: Vec<Live> = (0..n).map(|_| Live::default()).collect();
    let barrier = Barrier::new(n as usize + 1);
    let running = AtomicUsize::new(n as usize);
    let warmup = opts.warmup;
    let results: Vec<ClientResult> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|id| {
                let (live, barrier, running) = (&lives[id as usize], &barrier, &running);
                s.spawn(move || {
                    let _leaving = Leaving(running);
                    let mut client = Client::new(base, id, opts.client, load.max_io());
                    barrier.wait();
                    let start = Instant::now();
                    let clock = Clock {
                        start,
                        measure_from: start + warmup,
                        deadline: match opts.loops {
                            Some(_) => None,
                            None => Some(start + warmup + opts.duration),
                        },
                    };
                    client_loop(&mut client, id, load, opts, &clock, live)
                })
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        monitor(opts, &lives, &running, start, warmup);
        handles
            .into_iter()
            .map(|h| h.join().expect("a client thread panicked"))
            .collect()
    });
    summarize(load, opts, warmup, results)
}

/// Counts a client out when its thread ends, even by a panic, so the
/// monitor never waits for it forever.
struct Leaving<'a>(&'a AtomicUsize);

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}

/// Calls the progress callback once a second until every client is done.
fn monitor(
    opts: &Options,
    lives: &[Live],
    running: &AtomicUsize,
    start: Instant,
    warmup: Duration,
) {
    let mut next = start + Duration::from_secs(1);
    while running.load(Relaxed) > 0 {
        std::thread::sleep(Duration::from_millis(50));
        let now = Instant::now();
        if now < next {
            continue;
        }
        next += Duration::from_secs(1);
        let Some(progress) = &opts.progress else {
            continue;
        };
        let elapsed = now - start;
        let (phase, in_phase) = match elapsed.checked_sub(warmup) {
            Some(measured) => (Phase::Execute, measured),
            None => (Phase::Warmup, elapsed),
        };
        let ops = lives.iter().map(|l| l.ops.load(Relaxed)).sum();
        let bytes: u64 = lives.iter().map(|l| l.measured_bytes.load(Relaxed)).sum();
        let max_ns = lives
            .iter()
            .map(|l| l.max_ns.swap(0, Relaxed))
            .max()
            .unwrap_or(0);
        let secs = in_phase.as_secs_f64();
        progress(&Progress {
            clients: opts.clients,
            ops,
            phase,
            seconds: in_phase.as_secs(),
            mb_per_sec: if phase == Phase::Execute && secs > 0.0 {
                bytes as f64 / secs / 1e6
            } else {
                0.0
            },
            latency_ms: max_ns as f64 / 1e6,
        });
    }
}

/// Sleeps until `when`; false if the run must end first.
fn wait_until(when: Instant, deadline: Option<Instant>, stop: &AtomicBool) -> bool {
    loop {
        let now = Instant::now();
        if now >= when {
            return true;
        }
        if stop.load(Relaxed) || deadline.is_some_and(|d| now >= d) {
            return false;
        }
        let mut nap = (when - now).min(Duration::from_millis(100));
        if let Some(d) = deadline {
            nap = nap.min(d.saturating_duration_since(now));
        }
        std::thread::sleep(nap);
    }
}

fn client_loop(
    client: &mut Client,
    id: u32,
    load: &Loadfile,
    opts: &Options,
    clock: &Clock,
    live: &Live,
) -> ClientResult {
    let used = load.counts();
    let cpu0 = engine::sys::thread_usage();
    let mut r = ClientResult {
        hists: used.iter().map(|&c| (c > 0).then(Histogram::new)).collect(),
        bytes_read: 0,
        bytes_written: 0,
        loops: 0,
        mismatches: 0,
        samples: Vec::new(),
        short_reads: 0,
        usr_ns: 0,
        sys_ns: 0,
        interrupted: false,
        measure_from: clock.measure_from,
        finished: clock.start,
        trace: Vec::new(),
    };
    'run: loop {
        let pass_start = Instant::now();
        for line in &load.lines {
            if opts.stop.load(Relaxed) {
                r.interrupted = true;
                break 'run;
            }
            if let (true, Some(at)) = (opts.timed, line.at) {
                if !wait_until(
                    pass_start + Duration::from_secs_f64(at),
                    clock.deadline,
                    &opts.stop,
                ) {
                    r.interrupted = opts.stop.load(Relaxed);
                    break 'run;
                }
            }
            let t0 = Instant::now();
            let done = client.execute(&line.op);
            let t1 = Instant::now();
            r.finished = t1;
            let ns = (t1 - t0).as_nanos() as u64;
            let kind = line.op.kind();
            if t0 >= clock.measure_from {
                if let Some(h) = &mut r.hists[kind as usize] {
                    h.record(ns);
                }
                r.bytes_read += done.read;
                r.bytes_written += done.written;
                live.measured_bytes
                    .fetch_add(done.read + done.written, Relaxed);
            }
            live.ops.fetch_add(1, Relaxed);
            live.max_ns.fetch_max(ns, Relaxed);
            r.short_reads += u64::from(done.short_read);
            if opts.trace {
                r.trace.push(TraceEntry {
                    line: line.number,
                    kind,
                    status: done.status.clone(),
                });
            }
            if !as_expected(&line.op, &line.expect, &done.status) {
                r.mismatches += 1;
                if r.samples.len() < SAMPLES {
                    r.samples.push(mismatch(id, line, done.status, done.detail));
                }
                if r.mismatches >= MAX_MISMATCHES {
                    break 'run;
                }
            }
            if clock.deadline.is_some_and(|d| t1 >= d) {
                break 'run;
            }
        }
        client.close_all();
        r.loops += 1;
        if opts.loops.is_some_and(|n| r.loops >= n) {
            break;
        }
    }
    client.close_all();
    let cpu1 = engine::sys::thread_usage();
    r.usr_ns = cpu1.user_ns.saturating_sub(cpu0.user_ns);
    r.sys_ns = cpu1.system_ns.saturating_sub(cpu0.system_ns);
    r
}

fn mismatch(client: u32, line: &Line, got: Status, detail: Option<String>) -> Mismatch {
    Mismatch {
        client,
        line: line.number,
        keyword: line.op.kind().keyword(),
        expected: line.expect.clone(),
        got,
        detail,
    }
}

fn summarize(
    load: &Loadfile,
    opts: &Options,
    warmup: Duration,
    results: Vec<ClientResult>,
) -> Summary {
    let from = results.iter().map(|r| r.measure_from).min();
    let to = results.iter().map(|r| r.finished).max();
    let mut merged: Vec<Option<Histogram>> = vec![None; OpKind::COUNT];
    let mut s = Summary {
        load: load.name.clone(),
        clients: opts.clients.max(1),
        warmup,
        duration: match (from, to) {
            (Some(from), Some(to)) => to.saturating_duration_since(from),
            _ => Duration::ZERO,
        },
        bytes_read: 0,
        bytes_written: 0,
        ops: Vec::new(),
        loops: 0,
        mismatches: 0,
        samples: Vec::new(),
        short_reads: 0,
        usr_ns: 0,
        sys_ns: 0,
        interrupted: false,
        traces: Vec::new(),
    };
    for r in results {
        for (m, h) in merged.iter_mut().zip(&r.hists) {
            if let Some(h) = h {
                m.get_or_insert_with(Histogram::new).merge(h);
            }
        }
        s.bytes_read += r.bytes_read;
        s.bytes_written += r.bytes_written;
        s.loops += r.loops;
        s.mismatches += r.mismatches;
        s.samples.extend(r.samples);
        s.short_reads += r.short_reads;
        s.usr_ns += r.usr_ns;
        s.sys_ns += r.sys_ns;
        s.interrupted |= r.interrupted;
        s.traces.push(r.trace);
    }
    s.ops = OpKind::ALL
        .into_iter()
        .zip(merged)
        .filter_map(|(k, h)| h.filter(|h| h.count() > 0).map(|h| (k, h)))
        .collect();
    s
}
