//! Sanity verdicts: figures a disk cannot give, said with what to change.
//! The runner's own warnings (`model::Warning`) already cover a CPU-bound
//! worker, a queue kept shallower than asked and buffered I/O on a data set
//! the page cache holds; these add what only the figures show:
//!
//! - **a data set too small for its speed**: a job with direct I/O that
//!   goes through its whole data set in under [`MIN_DATA_SECONDS`] seconds
//!   can be answered by a cache below the page cache (the device's DRAM, a
//!   RAID controller's, a hypervisor's host page cache behind a virtual
//!   disk), and then measures that cache;
//! - **reads faster than the device class allows**: a random read with
//!   direct I/O whose median latency is under what any rotating disk
//!   ([`HDD_FLOOR_US`]: a seek and half a turn) or any flash
//!   ([`FLASH_FLOOR_US`]: the fastest NAND and 3D XPoint media read in
//!   about 10 us, most NAND in 50-100) can do came from a cache.
//!
//! The peak at the last point of a sweep is the curve's own verdict
//! (`curve::verdict_text`, "not saturated").

use model::{JobResult, RunResult};

/// A data set read or written in less time than this is a cache's to answer.
pub const MIN_DATA_SECONDS: f64 = 25.0;
/// No rotating disk reads a random block in less (median).
pub const HDD_FLOOR_US: f64 = 1000.0;
/// No flash reads a random block in less (median).
pub const FLASH_FLOOR_US: f64 = 5.0;

/// One verdict: what kind, for a caller that shows each kind once, and its text.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub kind: &'static str,
    pub text: String,
}

/// The verdicts on every job of `result`.
pub fn verdicts(result: &RunResult) -> Vec<Verdict> {
    let target = result.targets.first();
    let rotating = target.is_some_and(|t| t.rotational == Some(true) && t.virtual_disk.is_none());
    let mut out = Vec::new();
    for job in result
        .jobs
        .iter()
        .filter(|j| j.error.is_none() && j.spec.direct)
    {
        out.extend(small_data_set(job));
        out.extend(too_fast_reads(job, rotating));
    }
    out
}

fn small_data_set(job: &JobResult) -> Option<Verdict> {
    let rate = job.read.bytes_per_sec() + job.write.bytes_per_sec();
    let data = job.spec.footprint_bytes() as f64;
    if rate <= 0.0
        || data <= 0.0
        || data >= MIN_DATA_SECONDS * rate
        || job.runtime_ns < 1_000_000_000
    {
        return None;
    }
    Some(Verdict {
        kind: "small-data-set",
        text: format!(
            "job '{}': {}/s over a data set of {}, all of it every {:.1} s: a cache below the \
             page cache (the device's, a controller's, a virtual disk's host) can hold it and \
             answer for the disk; use a data set of at least {:.0} s of it, {} (--size, or fio's \
             size=)",
            job.name,
            model::units::format_bytes_binary(rate as u64),
            model::units::format_bytes_binary(data as u64),
            data / rate,
            MIN_DATA_SECONDS,
            model::units::format_bytes_binary((MIN_DATA_SECONDS * rate) as u64)
        ),
    })
}

fn too_fast_reads(job: &JobResult, rotating: bool) -> Option<Verdict> {
    if !job.spec.rw.is_random() || job.read.ios == 0 || job.read.clat.is_empty() {
        return None;
    }
    let p50_us = job.read.clat.percentile(50.0) as f64 / 1e3;
    let (floor, class) = match rotating {
        true => (HDD_FLOOR_US, "a rotating disk"),
        false => (FLASH_FLOOR_US, "any flash"),
    };
    if p50_us >= floor {
        return None;
    }
    Some(Verdict {
        kind: "cache-answering",
        text: format!(
            "job '{}': random reads took {p50_us:.1} us (median), faster than {class} can read \
             ({floor:.0} us at best): a cache answered them (the device's, a controller's, or a \
             virtual disk's host page cache); use a data set larger than that cache",
            job.name
        ),
    })
}

/// Each kind once, in order: for a sweep, whose points say the same thing.
pub fn distinct(verdicts: impl IntoIterator<Item = Verdict>) -> Vec<Verdict> {
    let mut out: Vec<Verdict> = Vec::new();
    for v in verdicts {
        if !out.iter().any(|o| o.kind == v.kind) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::dir;
    use model::{JobSpec, RwMode, TargetInfo};

    /// A direct random read over `size` at `ios` a second, each in `lat_ns`.
    fn result(size: u64, ios: u64, lat_ns: u64, rotational: bool) -> RunResult {
        let mut spec = JobSpec::new("r");
        spec.rw = RwMode::RandRead;
        spec.direct = true;
        spec.size_bytes = Some(size);
        let second = 1_000_000_000;
        let job = JobResult {
            read: dir(&[(lat_ns, ios)], 4096, second, None),
            runtime_ns: second,
            ..JobResult::empty(&spec, 0, 1)
        };
        RunResult {
            jobs: vec![job],
            targets: vec![TargetInfo {
                rotational: Some(rotational),
                ..TargetInfo::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_data_set_read_in_seconds_is_a_caches() {
        // 100k x 4 KiB a second is 410 MB/s; 1 GiB is 2.6 s of it.
        let v = verdicts(&result(1 << 30, 100_000, 50_000, false));
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(v[0].text.contains("every 2.6 s"), "{}", v[0].text);
        assert!(
            v[0].text.contains("at least 25 s of it, 9.5 GiB"),
            "{}",
            v[0].text
        );
        // 100 GiB is 262 s of it: fine.
        assert!(verdicts(&result(100 << 30, 100_000, 50_000, false)).is_empty());
    }

    #[test]
    fn reads_faster_than_the_device_class_are_a_caches() {
        let big = 100 << 30;
        let flash = verdicts(&result(big, 1000, 2_000, false));
        assert_eq!(flash.len(), 1, "{flash:?}");
        assert!(
            flash[0].text.contains("faster than any flash"),
            "{}",
            flash[0].text
        );
        assert!(verdicts(&result(big, 1000, 80_000, false)).is_empty());
        let hdd = verdicts(&result(big, 100, 200_000, true));
        assert!(hdd[0].text.contains("a rotating disk"), "{hdd:?}");
        assert!(verdicts(&result(big, 100, 8_000_000, true)).is_empty());
        let twice = [hdd.clone(), hdd].concat();
        assert_eq!(distinct(twice).len(), 1);
    }
}
