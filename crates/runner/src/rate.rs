//! fio's rate options: caps (`rate`, `rate_iops`, `rate_process`) and
//! floors (`rate_min`, `rate_iops_min`, `rate_cycle`).
//!
//! A cap is a schedule, not a sleep after each I/O: each direction has the
//! time its next I/O is due, pushed forward by `len / rate` per I/O (an
//! exponential draw of that mean for `poisson`). An I/O that comes late (the
//! device was slow, a thinktime stalled the job) leaves the schedule where
//! it was, so the job catches up and the average holds, as fio's does; the
//! catching up is bounded to one `rate_cycle` behind, so a long stall is not
//! followed by a long burst. `rate_iops` with several block sizes caps bytes
//! at `iops * smallest size`, as fio does.
//!
//! Floors are checked at the end of every `rate_cycle` (from the first full
//! one): a direction that did less than its floor in that cycle fails the
//! job, with fio's message. fio checks only when an I/O happens to complete
//! near a cycle's end, so it sometimes lets a slow cycle pass; diskbench
//! checks every cycle.

use crate::clock::Clock;
use crate::offsets::Rng;
use model::job::RateProcess;
use model::{DirStats, Direction, JobSpec};

pub(crate) struct RateCaps {
    /// Ticks per byte of each direction; 0 for no cap.
    ticks_per_byte: [f64; 2],
    next_due: [u64; 2],
    /// The pure schedule, never forgiven: when each direction's next I/O
    /// was meant to start, for the response time (`next_due` may skip ahead
    /// after a long stall; this does not).
    intended: [u64; 2],
    poisson: bool,
    /// How far behind its schedule a direction may fall and still catch up.
    backlog_ticks: u64,
    ignore_thinktime: bool,
}

impl RateCaps {
    /// `None` when the job caps neither direction.
    pub(crate) fn new(spec: &JobSpec, clock: &Clock, start: u64) -> Option<RateCaps> {
        let rate = &spec.rate;
        if !rate.caps() {
            return None;
        }
        let ticks_per_sec = clock.ticks(1_000_000_000) as f64;
        let per_byte = |dir: Direction| {
            let bytes = match *rate.bytes_per_sec.get(dir) {
                0 => rate.iops.get(dir) * spec.block_sizes_of(dir).min_bytes(),
                b => b,
            };
            match bytes {
                0 => 0.0,
                b => ticks_per_sec / b as f64,
            }
        };
        Some(RateCaps {
            ticks_per_byte: [per_byte(Direction::Read), per_byte(Direction::Write)],
            next_due: [start; 2],
            intended: [start; 2],
            poisson: rate.process == RateProcess::Poisson,
            backlog_ticks: clock.ticks(rate.cycle_ms * 1_000_000),
            ignore_thinktime: rate.ignore_thinktime,
        })
    }

    /// When the next I/O of `dir` may start (never later than the job's
    /// start for an uncapped direction).
    #[inline]
    pub(crate) fn due(&self, dir: Direction) -> u64 {
        self.next_due[dir as usize]
    }

    /// Books an I/O of `len` bytes in `dir`, issued at `now`; returns when
    /// the schedule meant it to start (`None` for an uncapped direction).
    pub(crate) fn charge(
        &mut self,
        dir: Direction,
        len: u64,
        now: u64,
        rng: &mut Rng,
    ) -> Option<u64> {
        let d = dir as usize;
        let per_byte = self.ticks_per_byte[d];
        if per_byte == 0.0 {
            return None;
        }
        let mut gap = len as f64 * per_byte;
        if self.poisson {
            gap *= -(1.0 - rng.unit()).ln();
        }
        let from = self.next_due[d].max(now.saturating_sub(self.backlog_ticks));
        self.next_due[d] = from + gap as u64;
        let meant = self.intended[d];
        self.intended[d] += gap as u64;
        Some(meant)
    }

    /// After a thinktime stall: with `rate_ignore_thinktime`, carry on at the
    /// rate from now instead of catching up.
    pub(crate) fn after_stall(&mut self, now: u64) {
        if self.ignore_thinktime {
            for due in self.next_due.iter_mut().chain(&mut self.intended) {
                *due = (*due).max(now);
            }
        }
    }
}

pub(crate) struct RateFloors {
    /// Bytes per second and I/Os per second each direction must reach (0: none).
    min_bytes: [u64; 2],
    min_ios: [u64; 2],
    cycle_ms: u64,
    cycle_ticks: u64,
    next_check: u64,
    /// Bytes and I/Os done at the last check.
    last: [(u64, u64); 2],
}

impl RateFloors {
    /// `None` when the job sets no floor; checks start one cycle after `start`.
    pub(crate) fn new(spec: &JobSpec, clock: &Clock, start: u64) -> Option<RateFloors> {
        let rate = &spec.rate;
        if !rate.floors() {
            return None;
        }
        let dirs = [Direction::Read, Direction::Write];
        let used = [spec.rw.reads(), spec.rw.writes()];
        let cycle_ticks = clock.ticks(rate.cycle_ms * 1_000_000).max(1);
        Some(RateFloors {
            min_bytes: dirs.map(|d| *rate.min_bytes_per_sec.get(d) * u64::from(used[d as usize])),
            min_ios: dirs.map(|d| *rate.min_iops.get(d) * u64::from(used[d as usize])),
            cycle_ms: rate.cycle_ms,
            cycle_ticks,
            next_check: start + cycle_ticks,
            last: [(0, 0); 2],
        })
    }

    /// At the end of each cycle, the error when a direction fell below its floor.
    #[inline]
    pub(crate) fn check(&mut self, now: u64, dirs: &[DirStats; 2]) -> Result<(), RateShortfall> {
        if now < self.next_check {
            return Ok(());
        }
        // Cycles with no completion at all count as one long cycle.
        let cycles = 1 + (now - self.next_check) / self.cycle_ticks;
        self.next_check += cycles * self.cycle_ticks;
        let secs = (cycles * self.cycle_ms) as f64 / 1000.0;
        for (d, stats) in dirs.iter().enumerate() {
            let (bytes, ios) = (stats.bytes - self.last[d].0, stats.ios - self.last[d].1);
            self.last[d] = (stats.bytes, stats.ios);
            let (bw, iops) = (bytes as f64 / secs, ios as f64 / secs);
            let short = |option, floor, got| RateShortfall {
                direction: ["read", "write"][d],
                option,
                floor,
                got,
                over_ms: cycles * self.cycle_ms,
            };
            if self.min_bytes[d] > 0 && bw < self.min_bytes[d] as f64 {
                return Err(short("rate_min", self.min_bytes[d], bw as u64));
            }
            if self.min_ios[d] > 0 && iops < self.min_ios[d] as f64 {
                return Err(short("rate_iops_min", self.min_ios[d], iops as u64));
            }
        }
        Ok(())
    }
}

/// A direction that fell below its floor over the last cycles: which floor,
/// what it asked, what the job got and over how long.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RateShortfall {
    /// `read` or `write`.
    pub direction: &'static str,
    /// `rate_min` (bytes per second) or `rate_iops_min`.
    pub option: &'static str,
    pub floor: u64,
    pub got: u64,
    pub over_ms: u64,
}

impl std::fmt::Display for RateShortfall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let RateShortfall {
            direction,
            option,
            floor,
            got,
            over_ms,
        } = self;
        match *option {
            "rate_min" => write!(
                f,
                "{direction} rate_min={floor}B/s not met, got {got}B/s over {over_ms} ms: \
                 lower rate_min, or check the device"
            ),
            _ => write!(
                f,
                "{direction} {option}={floor} not met, got {got} IOPS over {over_ms} ms: \
                 lower {option}, or check the device"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(iops: u64) -> JobSpec {
        let mut s = JobSpec::new("r");
        s.rate.iops.read = iops;
        s
    }

    #[test]
    fn linear_caps_space_ios_evenly_and_catch_up_at_most_a_cycle() {
        let clock = Clock::new();
        let sec = clock.ticks(1_000_000_000);
        let mut caps = RateCaps::new(&spec(500), &clock, 0).unwrap();
        let mut rng = Rng::new(1);
        assert_eq!(caps.charge(Direction::Read, 4096, 0, &mut rng), Some(0));
        let gap = caps.due(Direction::Read);
        assert!((sec / 500).abs_diff(gap) <= sec / 500 / 100, "{gap}");
        assert_eq!(caps.due(Direction::Write), 0);
        // Ten seconds late: the schedule restarts one cycle (1 s) behind,
        // but the I/O was meant to start right after the first one.
        let meant = caps.charge(Direction::Read, 4096, 10 * sec, &mut rng);
        assert!(caps.due(Direction::Read).abs_diff(9 * sec + gap) <= gap / 100);
        assert_eq!(
            meant,
            Some(gap),
            "the response time counts from the schedule"
        );
        assert_eq!(caps.charge(Direction::Write, 4096, 0, &mut rng), None);
    }

    #[test]
    fn poisson_gaps_have_the_same_mean() {
        let clock = Clock::new();
        let mut s = spec(1000);
        s.rate.process = RateProcess::Poisson;
        let mut caps = RateCaps::new(&s, &clock, 0).unwrap();
        let mut rng = Rng::new(5);
        for _ in 0..100_000 {
            let due = caps.due(Direction::Read);
            caps.charge(Direction::Read, 4096, due, &mut rng);
        }
        let secs = caps.due(Direction::Read) as f64 / clock.ticks(1_000_000_000) as f64;
        assert!((98.0..102.0).contains(&secs), "{secs}");
    }

    #[test]
    fn a_floor_fails_the_cycle_that_misses_it() {
        let clock = Clock::new();
        let mut s = spec(0);
        s.rate.min_iops.read = 100;
        let mut floors = RateFloors::new(&s, &clock, 0).unwrap();
        let sec = clock.ticks(1_000_000_000);
        let mut dirs = [DirStats::default(), DirStats::default()];
        dirs[0].ios = 150;
        assert_eq!(floors.check(sec / 2, &dirs), Ok(()));
        assert_eq!(floors.check(sec, &dirs), Ok(()));
        dirs[0].ios = 200;
        let err = floors.check(2 * sec, &dirs).unwrap_err().to_string();
        assert!(
            err.starts_with("read rate_iops_min=100 not met, got 50 IOPS"),
            "{err}"
        );
    }
}
