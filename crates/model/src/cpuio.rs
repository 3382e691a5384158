//! fio's `cpuio` engine as understood: a job that moves no data and keeps
//! one CPU busy `load_pct` of the time, in bursts of `chunk` each followed
//! by a sleep (`chunk * (100 - load) / load`, the job's thinktime), until
//! its runtime passes or, with `exit_on_io_done`, the jobs that do I/O
//! beside it have ended. Each burst is one "I/O" of the job's count.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// `cpumode=`: what a burst does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CpuMode {
    /// A busy loop (fio's default).
    #[default]
    Noop,
    /// Sorting an array of 256 Ki integers, again and again, for the burst.
    Qsort,
}

/// `cpuload`, `cpuchunks`, `cpumode`, `exit_on_io_done`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuLoad {
    /// 1..=100: the share of one CPU kept busy.
    pub load_pct: u32,
    /// `cpuchunks` (µs in fio): one burst.
    pub chunk: Duration,
    pub mode: CpuMode,
    /// End when the run's other (I/O) jobs of the group have ended.
    pub exit_on_io_done: bool,
}

impl CpuLoad {
    /// fio's default burst: 50 ms.
    pub const DEFAULT_CHUNK: Duration = Duration::from_micros(50_000);

    /// The sleep after each burst that makes the load `load_pct`.
    pub fn idle(&self) -> Duration {
        let pct = self.load_pct.clamp(1, 100);
        self.chunk * (100 - pct) / pct
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idle_time_makes_the_load() {
        let at = |load_pct| CpuLoad {
            load_pct,
            chunk: CpuLoad::DEFAULT_CHUNK,
            mode: CpuMode::Noop,
            exit_on_io_done: false,
        };
        assert_eq!(at(50).idle(), Duration::from_millis(50));
        assert_eq!(at(25).idle(), Duration::from_millis(150));
        assert_eq!(at(100).idle(), Duration::ZERO);
    }
}
