//! I/O priorities: the job's own (`prio`, `prioclass`, `priohint`, set on
//! its thread with ioprio_set) and the per-I/O ones of the libaio and
//! io_uring engines (`cmdprio_percentage`, `cmdprio_bssplit`, with
//! `cmdprio_class`, `cmdprio`, `cmdprio_hint`), carried in each I/O's
//! iocb or SQE. The runner draws which I/Os get the command priority
//! ([`CmdPrioDir::pick`]); the kernel's ioprio layout is [`IoPrio::value`];
//! `log_prio` (how the logs show them) is `LogSpec::prio`.

use crate::direction::{Direction, PerDir};
use crate::Histogram;
use serde::{Deserialize, Serialize};

/// The kernel's I/O priority classes (`ionice(1)`): 0 none, 1 real-time,
/// 2 best-effort, 3 idle.
pub const CLASS_RT: u8 = 1;
pub const CLASS_BE: u8 = 2;
pub const CLASS_IDLE: u8 = 3;

/// One I/O priority: a class, a level inside it (0 highest, 7 lowest) and
/// a hint (a device's command duration limit descriptor; 0 none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoPrio {
    pub class: u8,
    pub level: u8,
    #[serde(default)]
    pub hint: u16,
}

impl IoPrio {
    /// The kernel's 16-bit ioprio: class in bits 13-15, hint in bits 3-12,
    /// level in bits 0-2 (`<linux/ioprio.h>`). It is also what fio's logs
    /// show with `log_prio=1`.
    pub fn value(self) -> u16 {
        (u16::from(self.class) << 13) | ((self.hint & 0x3ff) << 3) | u16::from(self.level & 7)
    }

    /// Back from [`IoPrio::value`].
    pub fn of_value(value: u16) -> IoPrio {
        IoPrio {
            class: (value >> 13) as u8,
            level: (value & 7) as u8,
            hint: (value >> 3) & 0x3ff,
        }
    }
}

/// One entry of `cmdprio_bssplit`: `pct` percent of the I/Os of `bytes`
/// go with `prio` (`None`: the one `cmdprio_class`/`cmdprio`/
/// `cmdprio_hint` make).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmdPrioShare {
    pub bytes: u64,
    pub pct: u32,
    pub prio: Option<IoPrio>,
}

/// The per-I/O priorities of one direction.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmdPrioDir {
    /// `cmdprio_percentage`: this share of every I/O gets `prio`.
    pub percentage: u32,
    /// `cmdprio_class`, `cmdprio`, `cmdprio_hint` (fio's default class is
    /// the highest, real-time).
    pub prio: IoPrio,
    /// `cmdprio_bssplit`, instead of a percentage: the shares of each
    /// block size, in the order given (several entries of one size add up,
    /// at most 100).
    pub bssplit: Vec<CmdPrioShare>,
}

impl CmdPrioDir {
    /// Whether any I/O of this direction can get a command priority.
    pub fn active(&self) -> bool {
        self.percentage > 0 || self.bssplit.iter().any(|s| s.pct > 0)
    }

    /// The priority of one I/O of `bytes`, `draw` being uniform in
    /// 0..100: `None` when it goes with the job's own priority.
    pub fn pick(&self, bytes: u64, draw: u32) -> Option<IoPrio> {
        if self.percentage > 0 {
            return (draw < self.percentage).then_some(self.prio);
        }
        let mut below = 0;
        for share in self.bssplit.iter().filter(|s| s.bytes == bytes) {
            below += share.pct;
            if draw < below {
                return Some(share.prio.unwrap_or(self.prio));
            }
        }
        None
    }

    /// Every priority this direction can give, in the order given, each once.
    pub fn prios(&self) -> Vec<IoPrio> {
        let mut out: Vec<IoPrio> = Vec::new();
        let given = match self.percentage {
            0 => self
                .bssplit
                .iter()
                .filter(|s| s.pct > 0)
                .map(|s| s.prio.unwrap_or(self.prio))
                .collect(),
            _ => vec![self.prio],
        };
        for p in given {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }
}

/// A job's priorities.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrioSpec {
    /// `prioclass`/`prio`/`priohint`: set on the job's thread before its
    /// first I/O (`prio` alone is in the best-effort class, as in fio).
    pub job: Option<IoPrio>,
    /// The engine's per-I/O priorities, per direction.
    pub cmd: PerDir<CmdPrioDir>,
}

impl PrioSpec {
    /// Whether the engine gives some I/Os a priority of their own.
    pub fn per_io(&self) -> bool {
        self.cmd.read.active() || self.cmd.write.active()
    }

    /// The ioprio value of an I/O without a command priority: the job's.
    pub fn default_value(&self) -> u16 {
        self.job.map_or(0, IoPrio::value)
    }

    /// The ioprio value of one I/O of `dir` and `bytes`, `draw` uniform in 0..100.
    pub fn value_of(&self, dir: Direction, bytes: u64, draw: u32) -> u16 {
        match self.cmd.get(dir).pick(bytes, draw) {
            Some(p) => p.value(),
            None => self.default_value(),
        }
    }
}

/// One priority's latencies in a direction (fio's `prios` entries, for a
/// direction with per-I/O priorities): completion latencies, or total
/// latencies with `lat_percentiles`, as fio keeps one of the two.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrioLatency {
    /// The ioprio value ([`IoPrio::value`]).
    pub prio: u16,
    pub lat: Histogram,
}

impl PrioSpec {
    /// The priorities whose latencies `dir` keeps apart, in fio's order:
    /// the job's own first, then the per-I/O ones as given; none for a
    /// direction without per-I/O priorities.
    pub fn kept_apart(&self, dir: Direction) -> Vec<PrioLatency> {
        let cmd = self.cmd.get(dir);
        if !cmd.active() {
            return Vec::new();
        }
        let mut values = vec![self.default_value()];
        for p in cmd.prios() {
            if !values.contains(&p.value()) {
                values.push(p.value());
            }
        }
        values
            .into_iter()
            .map(|prio| PrioLatency {
                prio,
                lat: Histogram::new(),
            })
            .collect()
    }
}

/// Adds `other`'s priorities' latencies to `into` (clones and
/// `group_reporting`): the same priority merged, a new one appended.
pub fn merge_latencies(into: &mut Vec<PrioLatency>, other: &[PrioLatency]) {
    for o in other {
        match into.iter_mut().find(|p| p.prio == o.prio) {
            Some(p) => p.lat.merge(&o.lat),
            None => into.push(o.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_the_kernels_layout() {
        let rt = IoPrio {
            class: CLASS_RT,
            level: 0,
            hint: 0,
        };
        assert_eq!(rt.value(), 0x2000);
        let idle = IoPrio {
            class: CLASS_IDLE,
            level: 2,
            hint: 0,
        };
        assert_eq!(idle.value(), 0x6002);
        let hinted = IoPrio {
            class: CLASS_BE,
            level: 0,
            hint: 3,
        };
        assert_eq!(hinted.value(), 0x4018);
        assert_eq!(IoPrio::of_value(0x4018), hinted);
    }

    #[test]
    fn bssplit_entries_of_one_size_add_up_in_order() {
        let p = |class, level| IoPrio {
            class,
            level,
            hint: 0,
        };
        let dir = CmdPrioDir {
            percentage: 0,
            prio: p(CLASS_RT, 0),
            bssplit: vec![
                CmdPrioShare {
                    bytes: 65536,
                    pct: 25,
                    prio: Some(p(1, 1)),
                },
                CmdPrioShare {
                    bytes: 65536,
                    pct: 75,
                    prio: Some(p(3, 2)),
                },
                CmdPrioShare {
                    bytes: 1 << 20,
                    pct: 10,
                    prio: None,
                },
            ],
        };
        assert_eq!(dir.pick(65536, 24), Some(p(1, 1)));
        assert_eq!(dir.pick(65536, 25), Some(p(3, 2)));
        assert_eq!(dir.pick(65536, 99), Some(p(3, 2)));
        assert_eq!(dir.pick(1 << 20, 9), Some(p(CLASS_RT, 0)));
        assert_eq!(dir.pick(1 << 20, 10), None);
        assert_eq!(dir.pick(4096, 0), None);
        assert_eq!(dir.prios(), vec![p(1, 1), p(3, 2), p(CLASS_RT, 0)]);
    }
}
