//! fio's `terse` output (`--minimal`, `--output-format=terse`): one line of
//! semicolon-separated fields per job, for scripts that cut fields by
//! position, in each of fio's `--terse-version`s (3 is fio's default). The
//! field lists are fio's HOWTO ("Terse output"); the number formats and the
//! differences between versions were checked against fio 3.33's own lines
//! (integers for sizes, rates and min/max latencies, six decimals for means
//! and deviations, latencies in microseconds).
//!
//! Version 3, per job: version, tool version, job name, group, error; then
//! read and write (each: KiB, KiB/s, IOPS, runtime ms; slat, clat, lat as
//! min, max, mean, stdev in us; 20 `P%=us` percentile fields, the job's
//! `percentile_list` padded with `0%=0` as fio pads it; bw min, max,
//! aggregate %, mean, stdev in KiB/s); CPU (usr, sys, ctx, majf, minf); the
//! 7 I/O-depth fields; 10 latency fields in us (sub-microsecond I/Os
//! counted in the first, as fio does) and 12 in ms; then, for each device
//! the run measured, 9 disk fields (name, read and write ios, merges and
//! ticks, in_queue, util %: the run's figures, the same on every job's
//! line, as fio 3.33 repeats them); then the description when the job has
//! one. That is 121 fields without devices, as fio 3.33 prints with no
//! disk statistics (e.g. for the null engine), and 130 with one.
//!
//! The other versions differ from 3 only in these ways:
//! - 2 has no tool version field and no disk fields, and puts the
//!   description on a line of its own after the job's (as `;TEXT`).
//! - 2, 4 and 5 add trims after writes, as a third direction of the same
//!   fields.
//! - 5 adds, to each direction, the number of bandwidth samples after the
//!   bandwidth fields, then the IOPS samples' min, max, mean, stdev and
//!   number.
//!
//! With `unified_rw_reporting=mixed` the directions are one, summed (see
//! `unified`), in their place: 80 fields in version 3 without devices, as
//! fio 3.33 prints.
//!
//! The I/O-depth fields are fio's `iodepth_level` (`0.0%` for an imported
//! run, which did not measure it).

use crate::stats::{self, LatStats, SampleStats, Side, DIRECTIONS};
use crate::unified;
use model::{DepthStats, Histogram, JobResult, RunResult, UnifiedRw};

/// Percentile fields per direction, used or not.
const PERCENTILE_FIELDS: usize = 20;

/// One line per job in terse `version` (2, 3, 4 or 5), each
/// ending in a newline (version 2: with the description on its own line).
pub fn render(result: &RunResult, version: u32) -> String {
    result
        .jobs
        .iter()
        .map(|job| {
            let mut fields = job_fields(result, job, version);
            let own_line = match (version, &job.spec.description) {
                (2, Some(_)) => fields.pop(),
                _ => None,
            };
            let mut line = fields.join(";");
            line.push('\n');
            if let Some(text) = own_line {
                line.push_str(&format!(";{text}\n"));
            }
            line
        })
        .collect()
}

/// A job's fields in terse `version`, in fio's order.
pub fn job_fields(result: &RunResult, job: &JobResult, version: u32) -> Vec<String> {
    let mut f = vec![version.to_string()];
    if version != 2 {
        f.push(result.fio_version().to_string());
    }
    f.extend([
        job.name.clone(),
        job.groupid.to_string(),
        job.error_code().to_string(),
    ]);
    let trims = (version != 3).then_some(Side::Trim);
    let mut sides: Vec<Side> = DIRECTIONS
        .map(Side::from)
        .into_iter()
        .chain(trims)
        .collect();
    // unified_rw_reporting=mixed: one direction, the sum, in their place.
    let summed = (job.spec.unified_rw == UnifiedRw::Mixed)
        .then(|| (unified::mixed_run(result), unified::mixed_job(job)));
    let (run, of) = match &summed {
        Some((run, mixed)) => {
            sides = vec![Side::Read];
            (run, mixed)
        }
        None => (result, job),
    };
    for side in sides {
        let samples = (stats::bw_stats(of, side), stats::iops_stats(of, side));
        let agg = stats::group_agg(run, of, side);
        dir_fields(&mut f, of, side, samples, agg, version);
    }
    let (usr, sys) = stats::cpu_percents(job);
    f.push(format!("{usr:.6}%"));
    f.push(format!("{sys:.6}%"));
    f.push(job.cpu.ctx().to_string());
    f.push(job.cpu.major_faults.to_string());
    f.push(job.cpu.minor_faults.to_string());
    let levels = DepthStats::percents(&job.depth.level);
    f.extend(levels.iter().map(|p| format!("{p:.1}%")));
    let b = stats::latency_buckets(job);
    let mut us = b.us;
    us[0] += b.ns.iter().sum::<f64>();
    f.extend(us.iter().chain(&b.ms).map(|p| format!("{p:.2}%")));
    for d in result.disk_util.iter().filter(|_| version != 2) {
        f.push(d.name.clone());
        f.extend(d.fio_counters().map(|n| n.to_string()));
        f.push(format!("{:.2}%", d.util()));
    }
    if let Some(desc) = &job.spec.description {
        f.push(desc.clone());
    }
    f
}

/// One direction's fields: `samples` are its per-second bandwidth and IOPS
/// (none for a direction that did nothing), `group_agg` its group's
/// aggregate bandwidth in bytes/s.
fn dir_fields(
    f: &mut Vec<String>,
    job: &JobResult,
    side: Side,
    samples: (Option<SampleStats>, Option<SampleStats>),
    group_agg: u64,
    version: u32,
) {
    let d = stats::dir_stats(job, side);
    // A direction without I/O ran for no time, as fio says (and the JSON);
    // a verify_only job's writes count as issued, with no runtime.
    let runtime_ns = match d.is_unused() {
        true => 0,
        false => d.runtime_ns,
    };
    let replayed_bytes = side.direction().map_or(0, |dir| job.replayed(dir).1);
    let bw_bytes = stats::per_sec(d.bytes, runtime_ns) as u64;
    f.push(((d.bytes + replayed_bytes) >> 10).to_string());
    f.push((bw_bytes / 1024).to_string());
    f.push((d.iops() as u64).to_string());
    f.push(stats::runtime_ms(runtime_ns).to_string());
    let slat = d.slat.as_ref().map(LatStats::of).unwrap_or_default();
    lat_fields(f, &slat);
    lat_fields(f, &LatStats::of(&d.clat));
    let spec = &job.spec;
    // Which latency the percentiles describe: fio's terse line has room for
    // one list, and puts the total latency's there whenever the job asked
    // for lat_percentiles (with clat_percentiles too), else the clat's.
    let h: Option<&Histogram> = match (spec.lat_percentiles, spec.clat_percentiles) {
        (true, _) => Some(&d.lat),
        (false, true) => Some(&d.clat),
        (false, false) => None,
    };
    let list: &[f64] = if h.is_some() {
        &spec.percentile_list
    } else {
        &[]
    };
    let values = h
        .map(|h| stats::percentiles_at(h, list))
        .unwrap_or_default();
    for i in 0..PERCENTILE_FIELDS {
        f.push(match list.get(i) {
            Some(&p) => {
                let ns = values.get(i).map_or(0, |&(_, ns)| ns);
                format!("{p:.6}%={}", ns / 1000)
            }
            None => "0%=0".to_string(),
        });
    }
    lat_fields(f, &LatStats::of(&d.lat));
    let (bw, iops) = samples;
    let agg = match bw {
        Some(s) => stats::bw_agg_percent(s.mean, group_agg),
        None => 0.0,
    };
    let s = bw.unwrap_or_default();
    f.push(s.min.to_string());
    f.push(s.max.to_string());
    f.push(format!("{agg:.6}%"));
    f.push(format!("{:.6}", s.mean));
    f.push(format!("{:.6}", s.stddev));
    if version == 5 {
        f.push(s.samples.to_string());
        let i = iops.unwrap_or_default();
        f.push(i.min.to_string());
        f.push(i.max.to_string());
        f.push(format!("{:.6}", i.mean));
        f.push(format!("{:.6}", i.stddev));
        f.push(i.samples.to_string());
    }
}

/// min, max (whole us), mean, stdev (us, six decimals).
fn lat_fields(f: &mut Vec<String>, s: &LatStats) {
    f.push((s.min / 1000).to_string());
    f.push((s.max / 1000).to_string());
    f.push(format!("{:.6}", s.mean / 1000.0));
    f.push(format!("{:.6}", s.stddev / 1000.0));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil;
    use model::DirStats;

    /// fio 3.33's terse v3 line without disk statistics has 121 fields.
    const FIO_V3_FIELDS: usize = 121;
    /// Each device adds 9.
    const DISK_FIELDS: usize = 9;

    #[test]
    fn field_count_is_fios() {
        let mut result = testutil::sample_run();
        result.disk_util.clear();
        let text = render(&result, 3);
        assert_eq!(text.lines().count(), 1);
        let line = text.lines().next().unwrap();
        assert_eq!(line.split(';').count(), FIO_V3_FIELDS, "{line}");
        assert!(text.ends_with('\n'));
    }

    /// A verify_only job did none of its writes: fio's line has their KiB
    /// (counted as issued) and no write runtime, though the job ran.
    #[test]
    fn a_verify_only_jobs_writes_are_counted_with_no_runtime() {
        let mut job = testutil::seq_read_job("only", 256);
        job.write = DirStats {
            runtime_ns: job.read.runtime_ns,
            ..DirStats::default()
        };
        let bytes = 256 * 4096;
        job.verify = Some(model::VerifyResult {
            replayed_writes: 256,
            replayed_bytes: bytes,
            ..model::VerifyResult::default()
        });
        let fields = job_fields(&testutil::run(vec![job.clone()]), &job, 3);
        // The write block starts after the read block's 41 fields.
        let write = &fields[5 + 41..5 + 45];
        assert_eq!(
            write,
            [
                (bytes >> 10).to_string(),
                "0".into(),
                "0".into(),
                "0".into()
            ]
        );
    }

    #[test]
    fn first_fields_of_a_known_run() {
        // randrw_job: 102088 reads of 4 KiB and 34010 writes in 3.001 s; rates
        // truncated to whole KiB/s and IOPS, as fio truncates them.
        let fields = job_fields(&testutil::sample_run(), &testutil::randrw_job(), 3);
        assert_eq!(
            &fields[..9],
            [
                "3",
                "fio-3.33",
                "randrw-75",
                "0",
                "0",
                "408352",
                "136071",
                "34017",
                "3001"
            ]
        );
        // Read slat: 5 to 7 us; clat min 0 us (121 ns).
        assert_eq!(&fields[9..11], ["5", "7"]);
        assert_eq!(fields[13], "0");
        // The 1st percentile of reads is in the 200 us bucket.
        assert_eq!(fields[17], "1.000000%=200");
        // Default list: 17 percentiles, then fio's padding.
        assert_eq!(fields[17 + 17], "0%=0");
        assert_eq!(fields[17 + 19], "0%=0");
        // Write block starts after 5 + 41 fields.
        assert_eq!(fields[46], (34010u64 * 4).to_string());
    }

    #[test]
    fn custom_list_and_description() {
        let mut result = testutil::sample_run();
        result.jobs[0].spec.percentile_list = vec![50.0, 99.0];
        result.jobs[0].spec.description = Some("a b".into());
        let fields = job_fields(&result, &result.jobs[0], 3);
        assert_eq!(fields.len(), FIO_V3_FIELDS + DISK_FIELDS + 1);
        assert!(fields[17].starts_with("50.000000%="), "{}", fields[17]);
        assert!(fields[18].starts_with("99.000000%="), "{}", fields[18]);
        assert_eq!(fields[19], "0%=0");
        assert_eq!(fields.last().unwrap(), "a b");
    }

    #[test]
    fn lat_percentiles_take_the_fields_even_with_clat_percentiles() {
        let mut result = testutil::sample_run();
        let job = &mut result.jobs[0];
        job.spec.clat_percentiles = true;
        job.spec.lat_percentiles = true;
        let us_at = |h: &Histogram| {
            let list = &job.spec.percentile_list;
            stats::percentiles_at(h, list)
                .iter()
                .map(|&(p, ns)| format!("{p:.6}%={}", ns / 1000))
                .collect::<Vec<_>>()
        };
        let (lat, clat) = (us_at(&job.read.lat), us_at(&job.read.clat));
        assert_ne!(lat, clat, "the sample's slat must move the percentiles");
        let fields = job_fields(&result, &result.jobs[0], 3);
        assert_eq!(fields[17..17 + lat.len()], lat[..]);
        // clat alone: the clat's.
        result.jobs[0].spec.lat_percentiles = false;
        let fields = job_fields(&result, &result.jobs[0], 3);
        assert_eq!(fields[17..17 + clat.len()], clat[..]);
    }

    #[test]
    fn disk_fields_follow_the_latencies_on_every_job_line() {
        // fio 3.33 on a loop device ended its line this way (ours from the
        // same counters, and a busy time that gives the same util).
        let fio_tail = "loop3;32618;0;0;0;574;0;573;55.99%";
        let mut result = testutil::suite_run();
        result.disk_util = vec![model::DiskUtil {
            name: "loop3".into(),
            read_ios: 32618,
            read_ticks: 574,
            in_queue: 573,
            io_ticks: 5599,
            time_ms: 10000,
            ..Default::default()
        }];
        let text = render(&result, 3);
        assert_eq!(text.lines().count(), result.jobs.len());
        for line in text.lines() {
            assert_eq!(line.split(';').count(), FIO_V3_FIELDS + DISK_FIELDS);
            assert!(line.ends_with(fio_tail), "{line}");
        }
        // Two devices: 9 fields each, in the run's order.
        result.disk_util.push(model::DiskUtil {
            name: "vda".into(),
            ..Default::default()
        });
        let line = render(&result, 3).lines().next().unwrap().to_string();
        assert_eq!(line.split(';').count(), FIO_V3_FIELDS + 2 * DISK_FIELDS);
        assert!(line.ends_with(&format!("{fio_tail};vda;0;0;0;0;0;0;0;0.00%")));
    }
}
