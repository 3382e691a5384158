//! fio's `--status-interval=T`: every T of measuring, the output so far,
//! whole, in each format asked (a whole JSON document each time, so a
//! script can split the stream into documents and parse each), and the
//! `ndjson` stream: one line per job and interval, each line fio's JSON
//! object of that job plus `"status"` (`"interval"` or `"final"`), so a
//! consumer parses the stream line by line as it comes.
//!
//! The figures come from the runner's live hook, which hands over each
//! worker's finished seconds: I/Os, bytes, and from them bandwidth and
//! IOPS, cumulative from the job's start as fio's status dumps are.
//! Latencies are not in that feed, so the jobs still running show empty
//! latency figures until the final document; jobs of groups that already
//! ended are complete.

use fio::OutputFormat;
use model::{JobResult, RunResult};
use runner::LiveUpdate;
use serde_json::Value;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The jobs of the running group so far, and when the next document is due.
#[derive(Default)]
struct State {
    group: Option<u32>,
    jobs: Vec<JobResult>,
    /// Measured time of the group at which the next document is printed.
    next_due_ms: u64,
}

/// The live hook that prints the documents on stdout, or with `--output`
/// keeps them in `kept`, which goes to the file before the results.
/// `formats` are the output formats with the terse version.
pub fn watcher(
    interval: Duration,
    formats: (Vec<OutputFormat>, u32),
    kept: Option<Arc<Mutex<String>>>,
) -> crate::soak_loop::Watch {
    let interval_ms = (interval.as_millis() as u64).max(1);
    let state = Mutex::new(State::default());
    Arc::new(move |u: &LiveUpdate| {
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        let Some(result) = s.add(u, interval_ms) else {
            return;
        };
        let text = documents(&result, &formats.0, formats.1, u.group);
        if let Some(kept) = &kept {
            kept.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_str(&text);
            return;
        }
        let mut out = std::io::stdout().lock();
        // A closed stdout ends the run elsewhere (the final print); nothing to do here.
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    })
}

impl State {
    /// Adds the update's seconds; the run so far when a document is due.
    fn add(&mut self, u: &LiveUpdate, interval_ms: u64) -> Option<RunResult> {
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
        let mut result = u.result.clone();
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

/// The run so far in each format; `ndjson` gives the running group's jobs.
fn documents(result: &RunResult, formats: &[OutputFormat], terse: u32, group: u32) -> String {
    let mut text = String::new();
    for format in formats {
        match format {
            OutputFormat::Normal => text.push_str(&report::fio_normal::render(result)),
            OutputFormat::Json => text.push_str(&format!("{}\n", report::json::render(result))),
            OutputFormat::JsonPlus => {
                text.push_str(&format!("{}\n", report::json_plus::render(result)))
            }
            OutputFormat::Terse => text.push_str(&report::terse::render(result, terse)),
            OutputFormat::Ndjson => text.push_str(&ndjson_lines(result, Some(group))),
        }
    }
    text
}

/// One line per job (of `group` only, when given): fio's JSON object of the
/// job plus `"status"`, `"interval"` while running and `"final"` at the end.
pub fn ndjson_lines(result: &RunResult, group: Option<u32>) -> String {
    let status = if group.is_some() { "interval" } else { "final" };
    let doc = report::json::to_value(result);
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
