//! What kind of work fed a figure: a job's shape (rw, block size, queue
//! depth, numjobs, direct or buffered, engine). An average of one run's
//! QD32 mixed test, another's QD4 write and GoBonnieGo's 512-byte test is a
//! number that describes no disk, so `compare` averages a column only over
//! runs whose figures came from jobs of one shape, and otherwise leaves it
//! out and names the shapes it found (see [`super::Group::mixed`]).

use super::Metric;
use crate::table::headline_figures;
use model::{JobResult, RunResult};

/// `randrw 4k qd32 x1 direct io_uring`.
pub fn of_job(job: &JobResult) -> String {
    let s = &job.spec;
    let bs = match s.bs_bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}m", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{}k", b >> 10),
        b => b.to_string(),
    };
    let direct = if s.direct { "direct" } else { "buffered" };
    format!(
        "{} {bs} qd{} x{} {direct} {}",
        s.rw.fio_name(),
        s.iodepth.max(1),
        s.numjobs.max(1),
        job.engine.fio_name()
    )
}

/// The shape of the job each metric of `result` comes from (the headline
/// rule; latency comes from the IOPS job), `None` for a metric it lacks.
/// A job of a command with its own method (`ping`'s requests, timed one
/// by one with pauses between; `gobonniego`'s tests) is named with the
/// command: it is like only the same command's, not a fio job of its shape.
pub fn of_metric(result: &RunResult, metric: Metric) -> Option<String> {
    let h = headline_figures(result);
    let figure = match metric {
        Metric::Iops | Metric::P99LatencyUs => h.iops,
        Metric::ReadMbPerS => h.read_mb_per_sec,
        Metric::WriteMbPerS => h.write_mb_per_sec,
    }?;
    let job = result.jobs.iter().find(|j| j.name == figure.job)?;
    Some(match &result.workload {
        Some(w) => format!("{}: {}", w.command, of_job(job)),
        None => of_job(job),
    })
}

/// The distinct shapes, in first-seen order, when there are two or more.
pub fn mixed(shapes: impl IntoIterator<Item = Option<String>>) -> Option<Vec<String>> {
    let mut seen: Vec<String> = Vec::new();
    for s in shapes.into_iter().flatten() {
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    (seen.len() > 1).then_some(seen)
}
