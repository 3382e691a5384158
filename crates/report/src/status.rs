//! fio's `--status-interval=T`: the run so far, every T of measuring, made
//! from the seconds the runner's live hook hands over (I/Os, bytes, and
//! from them bandwidth and IOPS, cumulative from the job's start as fio's
//! status dumps are), and the `ndjson` stream: one line per job and
//! interval, each line fio's JSON object of that job plus `"status"`
//! (`"interval"` or `"final"`), so a consumer parses the stream line by
//! line as it comes. Latencies are not in that feed, so the jobs still
//! running show empty latency figures until the final document; jobs of
//! groups that already ended are complete. The binary prints the documents.

use model::{JobResult, JobSpec, LivePoint, RunResult};
use serde_json::Value;

/// What the live hook says of the running group.
#[derive(Clone, Copy)]
pub struct Live<'a> {
    /// The group, named by its first job's `groupid`.
    pub group: u32,
    pub jobs: &'a [JobSpec],
    pub groupids: &'a [u32],
    /// The new seconds, each with its job's position in `jobs`.
    pub points: &'a [LivePoint],
}

/// The jobs of the running group so far, and when the next document is due.
#[derive(Default)]
pub struct SoFar {
    group: Option<u32>,
    jobs: Vec<JobResult>,
    /// Measured time of the group at which the next document is due.
    next_due_ms: u64,
}

impl SoFar {
    /// Adds the live hook's new seconds (`points`) of the running `group`
    /// (its `jobs` and their `groupids`) to `so_far`, the run with the
    /// groups that already ended; the run so far when a document is due.
    pub fn add(&mut self, so_far: &RunResult, u: Live, interval_ms: u64) -> Option<RunResult> {
        if self.group != Some(u.group) {
            self.group = Some(u.group);
            self.jobs = u
                .jobs
                .iter()
                .zip(u.groupids)
                .map(|(spec, &g)| JobResult::empty(spec, g, spec.numjobs.max(1)))
                .collect();
            self.next_due_ms = interval_ms;
        }
        let mut elapsed_ms = 0;
        for p in u.points.iter().filter(|p| p.group == u.group) {
            let Some(job) = self.jobs.get_mut(p.job as usize) else {
                continue;
            };
            add_second(job, &p.point);
        }
        for job in &self.jobs {
            elapsed_ms = elapsed_ms.max(job.runtime_ns / 1_000_000);
        }
        if elapsed_ms < self.next_due_ms {
            return None;
        }
        while self.next_due_ms <= elapsed_ms {
            self.next_due_ms += interval_ms;
        }
        let mut result = so_far.clone();
        result.jobs.extend(self.jobs.iter().cloned());
        Some(result)
    }
}

/// One clone's finished second, added to its job's totals.
fn add_second(job: &mut JobResult, point: &model::SeriesPoint) {
    job.read.ios += point.read_ios;
    job.read.bytes += point.read_bytes;
    job.write.ios += point.write_ios;
    job.write.bytes += point.write_bytes;
    let end_ns = (point.start_ms + point.duration_ms) * 1_000_000;
    job.runtime_ns = job.runtime_ns.max(end_ns);
    for dir in [&mut job.read, &mut job.write] {
        if dir.ios > 0 {
            dir.runtime_ns = job.runtime_ns;
        }
    }
    let i = (point.start_ms / 1000) as usize;
    if job.series.len() <= i {
        job.series.resize(i + 1, model::SeriesPoint::default());
    }
    if job.series[i].duration_ms == 0 {
        job.series[i].start_ms = point.start_ms;
    }
    job.series[i].add(point);
}

/// One line per job (of `group` only, when given): fio's JSON object of the
/// job plus `"status"`, `"interval"` while running and `"final"` at the end.
pub fn ndjson_lines(result: &RunResult, group: Option<u32>) -> String {
    let status = if group.is_some() { "interval" } else { "final" };
    let doc = crate::json::to_value(result);
    let mut text = String::new();
    let jobs = doc.get("jobs").and_then(Value::as_array);
    for job in jobs.into_iter().flatten() {
        let in_group = job.get("groupid").and_then(Value::as_u64);
        if group.is_some_and(|g| in_group != Some(u64::from(g))) {
            continue;
        }
        let mut job = job.clone();
        if let Some(map) = job.as_object_mut() {
            map.insert("status".into(), Value::from(status));
        }
        text.push_str(&format!("{job}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_add_up_into_the_job() {
        let spec = model::JobSpec::new("a");
        let mut job = JobResult::empty(&spec, 0, 1);
        let second = |start_ms, read_ios| model::SeriesPoint {
            start_ms,
            duration_ms: 1000,
            read_ios,
            read_bytes: read_ios * 4096,
            ..model::SeriesPoint::default()
        };
        add_second(&mut job, &second(0, 10));
        add_second(&mut job, &second(1000, 30));
        add_second(&mut job, &second(1000, 2));
        assert_eq!(job.read.ios, 42);
        assert_eq!(job.read.bytes, 42 * 4096);
        assert_eq!(job.runtime_ns, 2_000_000_000);
        assert_eq!(job.read.runtime_ns, 2_000_000_000);
        assert_eq!(job.write.runtime_ns, 0);
        assert_eq!(job.series.len(), 2);
        assert_eq!(job.series[1].read_ios, 32);
    }
}
