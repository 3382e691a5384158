//! What one worker records while it runs: per direction, counts and
//! slat/clat/lat histograms; per second, a point of the series and, when a
//! live listener asked for them (`RunOptions::live_latency`), that second's
//! latency histograms. Those are the difference of two copies of the `lat`
//! histograms, taken as each second closes, so they cost nothing per I/O.

use crate::clock::Clock;
use model::{DepthStats, DirStats, Direction, Histogram, SeriesPoint};

pub struct Recorder {
    pub dirs: [DirStats; 2],
    /// The trims of a trim mode: counts and latencies, no submission
    /// latency (a trim is done synchronously, see `worker::trim`), and the
    /// series' trim counts.
    pub trim: DirStats,
    /// How long each sync the job asked for took (`fsync=`, `fdatasync=`,
    /// `sync_file_range=`, a replayed `sync`).
    pub sync: Histogram,
    /// fio's depth distributions; the mean is filled in by `finish`.
    pub depth: DepthStats,
    pub series: Vec<SeriesPoint>,
    current: SeriesPoint,
    /// The `lat` histograms (read, write) as the last second closed, when
    /// live latencies are wanted.
    latency_mark: Option<[Histogram; 2]>,
    /// Closed seconds' latencies not yet handed to the live listener, each
    /// with its second's `start_ms` (as the series point's).
    pub latency_seconds: Vec<(u64, [Histogram; 2])>,
    start_tick: u64,
    next_boundary: u64,
    second_ticks: u64,
}

impl Recorder {
    pub fn new(clock: &Clock, start_tick: u64, with_slat: bool, live_latency: bool) -> Recorder {
        let dir = || DirStats {
            slat: with_slat.then(Histogram::new),
            ..DirStats::default()
        };
        let second_ticks = clock.ticks(1_000_000_000).max(1);
        Recorder {
            dirs: [dir(), dir()],
            trim: DirStats::default(),
            sync: Histogram::new(),
            depth: DepthStats::default(),
            series: Vec::new(),
            current: SeriesPoint::default(),
            latency_mark: live_latency.then(|| [Histogram::new(), Histogram::new()]),
            latency_seconds: Vec::new(),
            start_tick,
            next_boundary: start_tick + second_ticks,
            second_ticks,
        }
    }

    #[inline]
    pub fn slat(&mut self, dir: Direction, ns: u64, times: u64) {
        if let Some(h) = &mut self.dirs[dir as usize].slat {
            h.record_n(ns, times);
        }
    }

    /// A sync that took `ns`.
    pub fn synced(&mut self, ns: u64) {
        self.sync.record(ns);
    }

    /// Closes the seconds that ended before `now`.
    #[inline]
    pub fn advance(&mut self, now: u64) {
        while now >= self.next_boundary {
            let index = self.series.len() as u64;
            self.current.start_ms = index * 1000;
            self.current.duration_ms = 1000;
            self.series.push(self.current);
            self.current = SeriesPoint::default();
            if self.latency_mark.is_some() {
                self.close_latency_second(index * 1000);
            }
            self.next_boundary += self.second_ticks;
        }
    }

    /// Keeps the latencies of the second starting at `start_ms`, which just
    /// closed. `advance` runs before the completions seen at its `now` are
    /// recorded, so the histograms hold exactly the closed seconds' I/Os.
    /// Out of line: once a second, and kept out of the per-I/O path's code.
    #[cold]
    #[inline(never)]
    fn close_latency_second(&mut self, start_ms: u64) {
        let Some(mark) = &mut self.latency_mark else {
            return;
        };
        let now = [self.dirs[0].lat.clone(), self.dirs[1].lat.clone()];
        let second = [now[0].since(&mark[0]), now[1].since(&mark[1])];
        *mark = now;
        self.latency_seconds.push((start_ms, second));
    }

    /// The response time of an I/O of a rate-limited job.
    #[inline]
    pub fn response(&mut self, dir: Direction, ns: u64) {
        let d = &mut self.dirs[dir as usize];
        d.response.get_or_insert_with(Histogram::new).record(ns);
    }

    #[inline]
    pub fn completed(&mut self, dir: Direction, bytes: u64, clat_ns: u64, lat_ns: u64) {
        let d = &mut self.dirs[dir as usize];
        d.ios += 1;
        d.bytes += bytes;
        d.clat.record(clat_ns);
        d.lat.record(lat_ns);
        self.current.clat_ns += clat_ns;
        match dir {
            Direction::Read => {
                self.current.read_ios += 1;
                self.current.read_bytes += bytes;
            }
            Direction::Write => {
                self.current.write_ios += 1;
                self.current.write_bytes += bytes;
            }
        }
    }

    /// The latency of an I/O of ioprio `prio`, for a direction that keeps
    /// its priorities apart (see `with_prios`).
    #[inline]
    pub fn prio_latency(&mut self, dir: Direction, prio: u16, ns: u64) {
        let kept = &mut self.dirs[dir as usize].prios;
        if let Some(p) = kept.iter_mut().find(|p| p.prio == prio) {
            p.lat.record(ns);
        }
    }

    /// The priorities each direction keeps apart (`PrioSpec::kept_apart`).
    pub fn with_prios(mut self, prios: &model::prio::PrioSpec) -> Recorder {
        for dir in [Direction::Read, Direction::Write] {
            self.dirs[dir as usize].prios = prios.kept_apart(dir);
        }
        self
    }

    /// A trim of `bytes` that took `ns`, timed around the call.
    #[inline]
    pub fn trimmed(&mut self, bytes: u64, ns: u64) {
        let d = &mut self.trim;
        d.ios += 1;
        d.bytes += bytes;
        d.clat.record(ns);
        d.lat.record(ns);
        self.current.trim_ios += 1;
        self.current.trim_bytes += bytes;
        self.current.clat_ns += ns;
    }

    /// Ends the measured phase at `end`: sets runtimes and keeps a last,
    /// partial interval when it holds any time.
    pub fn finish(mut self, clock: &Clock, end: u64) -> Recorded {
        self.advance(end);
        let runtime_ns = clock.nanos(self.start_tick, end);
        let index = self.series.len() as u64;
        let tail_ms = runtime_ns / 1_000_000 - (index * 1000).min(runtime_ns / 1_000_000);
        if tail_ms > 0 || self.current.ios() > 0 {
            self.current.start_ms = index * 1000;
            self.current.duration_ms = tail_ms.max(1);
            self.series.push(self.current);
        }
        let [mut read, mut write] = self.dirs;
        read.runtime_ns = runtime_ns;
        write.runtime_ns = runtime_ns;
        self.trim.runtime_ns = runtime_ns;
        // Little's law: an I/O holds its slot from the moment it is queued
        // until its completion is seen, which is its lat (a trim's: the call).
        self.depth.in_flight_ns = read.lat.sum() + write.lat.sum() + self.trim.lat.sum();
        self.depth.measured_ns = runtime_ns as u128;
        Recorded {
            read,
            write,
            trim: self.trim,
            sync: self.sync,
            series: self.series,
            runtime_ns,
            depth: self.depth,
        }
    }
}

/// What one worker measured, from [`Recorder::finish`].
pub struct Recorded {
    pub read: DirStats,
    pub write: DirStats,
    pub trim: DirStats,
    pub sync: Histogram,
    pub series: Vec<SeriesPoint>,
    pub runtime_ns: u64,
    pub depth: DepthStats,
}
