//! fio's `unified_rw_reporting`: a job's reads, writes and trims summed as
//! one direction, which fio names `mixed` (its JSON's `"mixed"` object,
//! its normal output's `mixed:` and `MIXED:` lines). With `mixed` that
//! direction replaces the three; with `both` it follows them.
//!
//! The sum is a job whose `read` holds every I/O (counts, bytes, latency
//! histograms, per-priority latencies, each second's I/Os) and whose other
//! directions are empty, so every output renders it with the code that
//! renders reads; the runtime is the longest direction's, as fio's is.
//! A group's aggregate for `mixed` is of its jobs summed the same way.

use model::{DirStats, JobResult, RunResult, UnifiedRw};

/// Whether any job of `result` reports its directions summed.
pub fn any(result: &RunResult) -> bool {
    result
        .jobs
        .iter()
        .any(|j| j.spec.unified_rw != UnifiedRw::None)
}

/// `job` with its directions summed into `read`.
pub fn mixed_job(job: &JobResult) -> JobResult {
    let mut mixed = job.clone();
    let mut all = job.read.clone();
    all.merge(&job.write);
    all.merge(&job.trim);
    mixed.read = all;
    mixed.write = DirStats::default();
    mixed.trim = DirStats::default();
    for p in &mut mixed.series {
        p.read_ios += p.write_ios + p.trim_ios;
        p.read_bytes += p.write_bytes + p.trim_bytes;
        (p.write_ios, p.write_bytes, p.trim_ios, p.trim_bytes) = (0, 0, 0, 0);
    }
    mixed
}

/// `result` with every job summed: the run its `mixed` figures and their
/// group aggregates are rendered from.
pub fn mixed_run(result: &RunResult) -> RunResult {
    let mut run = result.clone();
    for job in &mut run.jobs {
        *job = mixed_job(job);
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil;

    #[test]
    fn mixed_sums_every_direction_into_one() {
        let job = testutil::randrw_job();
        let mixed = mixed_job(&job);
        assert_eq!(mixed.read.ios, job.read.ios + job.write.ios);
        assert_eq!(mixed.read.bytes, job.read.bytes + job.write.bytes);
        assert_eq!(
            mixed.read.clat.count(),
            job.read.clat.count() + job.write.clat.count()
        );
        assert_eq!(mixed.write.ios, 0);
        let ios = |j: &JobResult| j.series.iter().map(|p| p.ios()).sum::<u64>();
        assert_eq!(ios(&mixed), ios(&job));
        assert!(mixed.series.iter().all(|p| p.write_ios == 0));
    }

    fn run_with(u: UnifiedRw) -> RunResult {
        let mut result = testutil::sample_run();
        result.jobs[0].spec.unified_rw = u;
        result
    }

    #[test]
    fn json_has_mixed_in_place_of_the_directions_or_after_them() {
        let job = testutil::randrw_job();
        let all = job.read.ios + job.write.ios;
        let doc = crate::json_plus::to_value(&run_with(UnifiedRw::Mixed));
        let j = &doc["jobs"][0];
        for dir in ["read", "write", "trim"] {
            assert!(j.get(dir).is_none(), "{dir} with mixed");
        }
        assert_eq!(j["mixed"]["total_ios"], all);
        let clat = &j["mixed"]["clat_ns"];
        assert_eq!(clat["N"], all);
        let bins: u64 = clat["bins"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(bins, all);
        let doc = crate::json::to_value(&run_with(UnifiedRw::Both));
        let keys: Vec<&String> = doc["jobs"][0].as_object().unwrap().keys().collect();
        let at = |k: &str| keys.iter().position(|x| *x == k).unwrap();
        assert!(at("read") < at("write") && at("trim") < at("mixed") && at("mixed") < at("sync"));
        let doc = crate::json::to_value(&run_with(UnifiedRw::None));
        assert!(doc["jobs"][0].get("mixed").is_none());
    }

    #[test]
    fn normal_and_terse_outputs_sum_the_directions_as_fio_does() {
        let text = crate::fio_normal::render(&run_with(UnifiedRw::Mixed));
        assert!(text.contains("\n  mixed: IOPS="), "{text}");
        assert!(
            !text.contains("\n  read: ") && !text.contains("\n  write: "),
            "{text}"
        );
        assert!(text.contains("\n  MIXED: bw="), "{text}");
        assert!(!text.contains("   READ: "), "{text}");
        let text = crate::fio_normal::render(&run_with(UnifiedRw::Both));
        let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} in {text}"));
        assert!(at("\n  read: ") < at("\n  write: ") && at("\n  write: ") < at("\n  mixed: "));
        assert!(at("   READ: ") < at("  MIXED: "));
        // fio 3.33's terse line with mixed: one direction's 41 fields, not two.
        let mut result = run_with(UnifiedRw::Mixed);
        result.disk_util.clear();
        let line = crate::terse::render(&result, 3);
        assert_eq!(line.trim_end().split(';').count(), 121 - 41, "{line}");
    }
}
