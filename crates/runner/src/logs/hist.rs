//! fio's completion-latency histogram log (`write_hist_log`,
//! `log_hist_msec`, `log_hist_coarseness`): `NAME_clat_hist.N.log`, read by
//! fio's `fiologparser_hist.py`.
//!
//! Each line is `time_ms, direction, bs, bin0, bin1, ...`: the clat
//! histogram of the I/Os of that direction completed since its previous
//! line, in fio's bins (1856 of them, or 1856 >> coarseness; see
//! `model::fio_plat`), values in ns. What fio 3.33 writes, and so we do:
//! - a direction's line is written by the first of its completions at or
//!   after the end of its interval (the interval being `log_hist_msec`), is
//!   stamped with that completion's time and counts it; `bs` is its size;
//! - `log_offset` does not add a column here;
//! - without `log_hist_msec` the file is created and stays empty.
//!
//! Two differences, both so that the file holds every I/O the results
//! count: a direction's last, partial interval is written when the job ends
//! (fio 3.33 drops it), stamped with the job's end; and after an idle spell
//! the next interval ends on the next multiple of `log_hist_msec` (fio moves
//! it on by one interval per line, so a direction idle for ten intervals
//! then writes ten near-empty lines in a row).
//!
//! The window's counts are kept in diskbench's own histogram (one
//! leading-zero count and an increment per I/O) and converted bucket by
//! bucket when a line is written.

use super::out::Out;
use super::Sample;
use crate::clock::Clock;
use crate::error::IoError;
use model::{fio_plat, Histogram};
use std::io::{self, Write};

struct Window {
    hist: Histogram,
    /// The time (ticks) at or after which the next completion ends the window.
    due: u64,
    last_len: u64,
}

pub(super) struct HistLog {
    out: Out,
    /// Interval in ticks; `None`: no `log_hist_msec`, the file stays empty.
    ticks: Option<u64>,
    coarseness: u32,
    start: u64,
    /// Read, write, trim.
    dirs: [Window; 3],
}

impl HistLog {
    pub(super) fn new(out: Out, msec: u64, coarseness: u32, clock: &Clock, start: u64) -> HistLog {
        let ticks = (msec > 0).then(|| clock.ticks(msec * 1_000_000).max(1));
        let window = || Window {
            hist: Histogram::new(),
            due: start + ticks.unwrap_or(0),
            last_len: 0,
        };
        HistLog {
            out,
            ticks,
            coarseness,
            start,
            dirs: [window(), window(), window()],
        }
    }

    /// The end of the ramp: what came before is dropped.
    pub(super) fn restart(&mut self, start: u64) {
        self.start = start;
        for w in &mut self.dirs {
            w.hist = Histogram::new();
            w.due = start + self.ticks.unwrap_or(0);
        }
    }

    pub(super) fn record(&mut self, s: &Sample, clock: &Clock) -> io::Result<()> {
        let Some(ticks) = self.ticks else {
            return Ok(());
        };
        let w = &mut self.dirs[s.log_dir()];
        w.hist.record(s.clat_ns);
        w.last_len = s.len;
        if s.at < w.due {
            return Ok(());
        }
        // The next multiple of the interval after this completion.
        w.due += (s.at - w.due) / ticks * ticks + ticks;
        let ms = clock.nanos(self.start, s.at) / 1_000_000;
        self.write_line(ms, s.log_dir())
    }

    fn write_line(&mut self, ms: u64, dir: usize) -> io::Result<()> {
        let w = &mut self.dirs[dir];
        let bins = fio_plat::coarsen(&fio_plat::bins(&w.hist), self.coarseness);
        w.hist = Histogram::new();
        self.out
            .w
            .write_all(line(ms, dir, w.last_len, &bins).as_bytes())
    }

    /// Writes each direction's partial interval, stamped `end`, and the file.
    pub(super) fn finish(mut self, end: u64, clock: &Clock) -> Result<(), IoError> {
        let ms = clock.nanos(self.start, end) / 1_000_000;
        let mut result = Ok(());
        for dir in 0..self.dirs.len() {
            if self.ticks.is_some() && !self.dirs[dir].hist.is_empty() && result.is_ok() {
                result = self.write_line(ms, dir);
            }
        }
        let out = self.out;
        match result {
            Ok(()) => out.finish(),
            Err(e) => {
                let failed =
                    IoError::new("write", out.path(), e).saying("writing the job's histogram log");
                let _ = out.finish();
                Err(failed)
            }
        }
    }
}

/// `time, dir, bs, bin0, bin1, ...`, fio's line.
fn line(ms: u64, dir: usize, bs: u64, bins: &[u64]) -> String {
    use std::fmt::Write as _;
    let mut text = String::with_capacity(16 + bins.len() * 3);
    let _ = write!(text, "{ms}, {dir}, {bs}");
    for b in bins {
        let _ = write!(text, ", {b}");
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::Direction;

    fn sample(clock: &Clock, start: u64, ms: u64, dir: Direction, clat_ns: u64) -> Sample {
        Sample {
            at: start + clock.ticks(ms * 1_000_000),
            dir,
            trim: false,
            len: 4096,
            offset: 0,
            slat_ns: None,
            clat_ns,
            lat_ns: clat_ns,
            prio: 0,
            issued: 0,
        }
    }

    fn lines(path: &std::path::Path) -> Vec<Vec<u64>> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| l.split(", ").map(|f| f.parse().unwrap()).collect())
            .collect()
    }

    #[test]
    fn one_line_per_direction_per_interval_and_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("h").display().to_string();
        let clock = Clock::new();
        let start = clock.now();
        let out = Out::open(&prefix, "clat_hist", 1, false).unwrap();
        let mut log = HistLog::new(out, 100, 0, &clock, start);
        for (ms, dir, ns) in [
            (10, Direction::Read, 100),
            (20, Direction::Write, 5000),
            (100, Direction::Read, 300), // ends the read window, counted in it
            (150, Direction::Read, 1000), // next read window
            (420, Direction::Write, 200), // ends the write window after an idle spell
            (450, Direction::Write, 200), // the next one ends at 500
        ] {
            log.record(&sample(&clock, start, ms, dir, ns), &clock)
                .unwrap();
        }
        log.finish(start + clock.ticks(470_000_000), &clock)
            .unwrap();
        let got = lines(&dir.path().join("h_clat_hist.1.log"));
        let heads: Vec<(u64, u64, u64)> = got.iter().map(|l| (l[0], l[1], l[2])).collect();
        // The clock may round a tick: allow the ms to be one off.
        let want = [(100, 0), (420, 1), (470, 0), (470, 1)];
        assert_eq!(heads.len(), want.len(), "{heads:?}");
        for ((ms, d, bs), (want_ms, want_d)) in heads.iter().zip(want) {
            assert!(
                ms.abs_diff(want_ms) <= 1 && *d == want_d && *bs == 4096,
                "{heads:?}"
            );
        }
        let bin = |ns: u64| 3 + fio_plat::bin_of(ns);
        assert!(got.iter().all(|l| l.len() == 3 + fio_plat::PLAT_BINS));
        assert_eq!((got[0][bin(100)], got[0][bin(300)]), (1, 1));
        assert_eq!((got[1][bin(5000)], got[1][bin(200)]), (1, 1));
        assert_eq!(got[2][bin(1000)], 1);
        assert_eq!(got[3][bin(200)], 1);
        let total: u64 = got.iter().map(|l| l[3..].iter().sum::<u64>()).sum();
        assert_eq!(total, 6, "every I/O is in the file");
    }

    #[test]
    fn coarse_lines_and_no_interval() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("c").display().to_string();
        let clock = Clock::new();
        let start = clock.now();
        let mut log = HistLog::new(
            Out::open(&prefix, "clat_hist", 1, false).unwrap(),
            50,
            6,
            &clock,
            start,
        );
        log.record(&sample(&clock, start, 60, Direction::Read, 70), &clock)
            .unwrap();
        log.finish(start, &clock).unwrap();
        let got = lines(&dir.path().join("c_clat_hist.1.log"));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].len(), 3 + 29);
        assert_eq!(got[0][3 + 1], 1, "70 ns is in the second group of 64 bins");
        // Without log_hist_msec the file exists and stays empty, as in fio.
        let mut log = HistLog::new(
            Out::open(&prefix, "e", 1, false).unwrap(),
            0,
            0,
            &clock,
            start,
        );
        log.record(&sample(&clock, start, 60, Direction::Read, 70), &clock)
            .unwrap();
        log.finish(start, &clock).unwrap();
        assert_eq!(
            std::fs::read_to_string(format!("{prefix}_e.1.log")).unwrap(),
            ""
        );
    }
}
