//! I/O priorities (`model::prio`): the job's own is set on its thread
//! before its first I/O (ioprio_set), so every I/O without a priority of
//! its own has it, as in fio; the engine's per-I/O ones (`cmdprio_*`) are
//! drawn here for each I/O and travel in its request (the iocb's
//! `aio_reqprio`, the SQE's `ioprio`).

use super::Worker;
use crate::error::{IoError, RunError};
use crate::offsets::Rng;
use engine::sys;
use model::prio::CLASS_RT;
use model::{Direction, JobSpec};

/// `prioclass`/`prio`/`priohint` on the calling thread (the job's own).
pub(super) fn set_thread_prio(spec: &JobSpec) -> Result<(), RunError> {
    let Some(prio) = spec.prio.job else {
        return Ok(());
    };
    sys::set_thread_ioprio(prio.value()).map_err(|e| {
        let needs_root = prio.class == CLASS_RT && e.kind() == std::io::ErrorKind::PermissionDenied;
        let io = IoError::without_path("ioprio_set", e).saying(format!(
            "prioclass={} prio={}: cannot set the job's I/O priority",
            prio.class, prio.level
        ));
        let io = match needs_root {
            true => io.fix("the real-time class needs root (CAP_SYS_ADMIN or CAP_SYS_NICE)"),
            false => io,
        };
        RunError::in_job(&spec.name, io)
    })
}

/// The draw of the per-I/O priorities: `None` for a job without them.
pub(super) fn draw(spec: &JobSpec, seed: u64) -> Option<Rng> {
    spec.prio.per_io().then(|| Rng::new(seed ^ 0xc0d_9e10))
}

impl Worker<'_> {
    /// The ioprio value an I/O of `dir` and `len` goes with: a command
    /// priority for the share `cmdprio_*` asks, else the job's own (0 for
    /// none: the thread's).
    pub(super) fn io_prio(&mut self, dir: Direction, len: u64) -> u16 {
        let prio = &self.plan.spec.prio;
        match &mut self.parts.prio {
            Some(rng) => prio.value_of(dir, len, rng.below(100) as u32),
            None => prio.default_value(),
        }
    }
}
