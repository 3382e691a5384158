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
//!   about 10 us, most NAND in 50-100) can do came from a cache;
//! - **a test too short to trust**: measured under 2 s or 500 I/Os, one
//!   hiccup (a flush, a garbage collection) moves its figure by itself.
//!
//! Each verdict is about one test and keeps its figures ([`Facts`]), so a
//! kind that fires on seven tests is said once ([`summaries`]: one line of
//! at most 160 characters naming the tests, with the range of their
//! figures), and no advice asks for more than the target has room for: a
//! data set larger than the free space is never asked for; what that means
//! for the figures is said instead.
//!
//! The peak at the last point of a sweep is the curve's own verdict
//! (`curve::verdict_text`, "not saturated").

use crate::subjects::{fit, LINE_MAX};
use model::units::format_bytes_binary as bytes;
use model::{JobResult, RunResult};

/// A data set read or written in less time than this is a cache's to answer.
pub const MIN_DATA_SECONDS: f64 = 25.0;
/// No rotating disk reads a random block in less (median).
pub const HDD_FLOOR_US: f64 = 1000.0;
/// No flash reads a random block in less (median).
pub const FLASH_FLOOR_US: f64 = 5.0;
/// A test measured for less than this gives a figure one hiccup (a
/// flush, a garbage collection, another process) moves by itself.
pub const TRUSTED_RUNTIME_NS: u64 = 2_000_000_000;
/// Nor is an average of fewer I/Os than this worth a headline: a slow
/// disk's sequential or QD1 test can run 2 s and do a few dozen.
pub const TRUSTED_IOS: u64 = 500;

/// The check of a data set a cache below the page cache can hold.
pub const SMALL_DATA_SET: &str = "small-data-set";
/// The check of random reads faster than the device class allows.
pub const CACHE_ANSWERING: &str = "cache-answering";
/// The check of a test measured too briefly for its figure to be trusted.
pub const TOO_SHORT: &str = "too-short";

/// One verdict on one test: what kind, for a caller that says each kind
/// once; the test; its whole text (what it means, why, the fix), kept in
/// the history; and the figures a line about several tests is made from.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub kind: &'static str,
    pub job: String,
    pub text: String,
    pub facts: Facts,
}

/// The figures behind a verdict.
#[derive(Clone, Debug, PartialEq)]
pub enum Facts {
    /// The test's data set and the rate it went through it at (bytes/s);
    /// `room`: the largest data set the target has room for.
    DataSet {
        data_bytes: u64,
        bytes_per_sec: f64,
        room: Option<u64>,
    },
    /// The median of the random reads, under the floor of the class.
    FastReads {
        p50_us: f64,
        floor_us: f64,
        class: &'static str,
    },
    /// How long and how much the test measured, and how to measure longer
    /// (the command's own words: `raise --runtime, e.g. --runtime 30s`).
    TooShort { secs: f64, ios: u64, fix: String },
}

/// The largest data set the run's target has room for: its free space (a
/// directory), or its size (a device); `None` when unknown.
pub fn room(result: &RunResult) -> Option<u64> {
    let t = result.targets.first()?;
    t.free_bytes.or(t.device_bytes)
}

/// The verdicts on every job of `result`.
pub fn verdicts(result: &RunResult) -> Vec<Verdict> {
    let target = result.targets.first();
    let rotating = target.is_some_and(|t| t.rotational == Some(true) && t.virtual_disk.is_none());
    let room = room(result);
    let mut out = Vec::new();
    for job in result
        .jobs
        .iter()
        .filter(|j| j.error.is_none() && j.spec.direct)
    {
        out.extend(small_data_set(job, room));
        out.extend(too_fast_reads(job, rotating));
    }
    out
}

fn small_data_set(job: &JobResult, room: Option<u64>) -> Option<Verdict> {
    let rate = job.read.bytes_per_sec() + job.write.bytes_per_sec();
    let data = job.spec.footprint_bytes() as f64;
    if rate <= 0.0
        || data <= 0.0
        || data >= MIN_DATA_SECONDS * rate
        || job.runtime_ns < 1_000_000_000
    {
        return None;
    }
    let need = (MIN_DATA_SECONDS * rate) as u64;
    let fix = match room {
        Some(room) if need > room => format!(
            "a data set of {MIN_DATA_SECONDS:.0} s of it would be {}, more than the {} there is \
             room for here: its figure may be a cache's, from any cache of {} or more; the \
             largest data set here, {} (--size, or fio's size=), leaves only a cache larger \
             than that to answer",
            bytes(need),
            bytes(room),
            bytes(data as u64),
            bytes(room)
        ),
        _ => format!(
            "use a data set of at least {MIN_DATA_SECONDS:.0} s of it, {} (--size, or fio's size=)",
            bytes(need)
        ),
    };
    Some(Verdict {
        kind: SMALL_DATA_SET,
        job: job.name.clone(),
        text: format!(
            "job '{}': {}/s over a data set of {}, all of it every {} s: a cache below the \
             page cache (the device's, a controller's, a virtual disk's host) can hold it and \
             answer for the disk; {fix}",
            job.name,
            bytes(rate as u64),
            bytes(data as u64),
            seconds(data / rate),
        ),
        facts: Facts::DataSet {
            data_bytes: data as u64,
            bytes_per_sec: rate,
            room,
        },
    })
}

/// Seconds with one decimal, or two under a tenth (never "0.0 s").
fn seconds(s: f64) -> String {
    match s < 0.1 {
        true => format!("{s:.2}"),
        false => format!("{s:.1}"),
    }
}

fn too_fast_reads(job: &JobResult, rotating: bool) -> Option<Verdict> {
    // The whole I/O's latency, as the table shows it: with io_uring a read
    // can complete while it is being submitted, so its wait is in slat and
    // its clat is a fraction of a microsecond, which no cache explains.
    let read = &job.read;
    let h = if read.lat.is_empty() {
        &read.clat
    } else {
        &read.lat
    };
    if !job.spec.rw.is_random() || read.ios == 0 || h.is_empty() {
        return None;
    }
    let p50_us = h.percentile(50.0) as f64 / 1e3;
    let (floor, class) = match rotating {
        true => (HDD_FLOOR_US, "a rotating disk"),
        false => (FLASH_FLOOR_US, "any flash"),
    };
    if p50_us >= floor {
        return None;
    }
    Some(Verdict {
        kind: CACHE_ANSWERING,
        job: job.name.clone(),
        text: format!(
            "job '{}': random reads took {p50_us:.1} us (median), faster than {class} can read \
             ({floor:.0} us at best): a cache answered them (the device's, a controller's, or a \
             virtual disk's host page cache); use a data set larger than that cache",
            job.name
        ),
        facts: Facts::FastReads {
            p50_us,
            floor_us: floor,
            class,
        },
    })
}

/// The tests of `result` measured too briefly to trust (under
/// [`TRUSTED_RUNTIME_NS`] or [`TRUSTED_IOS`]), each with how to get
/// figures that are (`fix`, in the command's words).
pub fn too_short(result: &RunResult, fix: &str) -> Vec<Verdict> {
    result
        .jobs
        .iter()
        .filter(|j| j.error.is_none())
        .filter(|j| j.runtime_ns < TRUSTED_RUNTIME_NS || j.total_ios() < TRUSTED_IOS)
        .map(|j| {
            let secs = j.runtime_ns as f64 / 1e9;
            let ios = j.total_ios();
            Verdict {
                kind: TOO_SHORT,
                job: j.name.clone(),
                text: format!(
                    "job '{}': measured {secs:.1} s and {ios} I/Os: too short to trust: a figure \
                     needs at least {} s and {TRUSTED_IOS} I/Os of measuring before one hiccup \
                     stops moving it; {fix}",
                    j.name,
                    TRUSTED_RUNTIME_NS / 1_000_000_000,
                ),
                facts: Facts::TooShort {
                    secs,
                    ios,
                    fix: fix.to_string(),
                },
            }
        })
        .collect()
}

/// A quick run's figures said once, for the headline: how long its tests
/// measured and what a figure to trust needs; `None` when every test
/// measured long enough.
pub fn quick_note(result: &RunResult) -> Option<String> {
    let short = too_short(result, "");
    let secs: Vec<f64> = short.iter().map(|v| v.job_secs()).collect();
    if secs.is_empty() {
        return None;
    }
    Some(format!(
        "Quick figures: {} measured {} s each; a figure to trust needs {} s and {TRUSTED_IOS} \
         I/Os of measuring: drop --quick for it\n",
        crate::subjects::fit(
            &short.iter().map(|v| v.job.as_str()).collect::<Vec<_>>(),
            distinct_jobs(result),
            40,
            |t| t.to_string()
        ),
        span(&secs, 1),
        TRUSTED_RUNTIME_NS / 1_000_000_000,
    ))
}

impl Verdict {
    fn job_secs(&self) -> f64 {
        match &self.facts {
            Facts::TooShort { secs, .. } => *secs,
            _ => 0.0,
        }
    }
}

/// How many tests the run has, a test of several directions counted once.
pub fn distinct_jobs(result: &RunResult) -> usize {
    let mut names: Vec<&str> = result.jobs.iter().map(|j| j.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}

/// `lo-hi` of `values` with `decimals`, or one figure when they print alike.
fn span(values: &[f64], decimals: usize) -> String {
    span_by(values, |v| format!("{v:.decimals$}"))
}

/// `lo-hi` of `values`, each printed by `show`, or one when they print alike.
fn span_by(values: &[f64], show: impl Fn(f64) -> String) -> String {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = (show(lo), show(hi));
    match lo == hi {
        true => lo,
        false => format!("{lo}-{hi}"),
    }
}

/// One line a kind of verdict is said in, whatever the number of tests it
/// fires on: its kind, the tests, and the line itself (`check: ...`, at
/// most [`LINE_MAX`] characters), made from the verdicts' figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub kind: &'static str,
    pub jobs: Vec<String>,
    pub line: String,
}

/// Each kind of `verdicts` once, in the order first found, naming the
/// tests it fires on (of `of_all` tests in the run).
pub fn summaries(verdicts: &[Verdict], of_all: usize) -> Vec<Summary> {
    let mut kinds: Vec<&'static str> = Vec::new();
    for v in verdicts {
        if !kinds.contains(&v.kind) {
            kinds.push(v.kind);
        }
    }
    kinds
        .into_iter()
        .map(|kind| {
            let group: Vec<&Verdict> = verdicts.iter().filter(|v| v.kind == kind).collect();
            let names: Vec<&str> = group.iter().map(|v| v.job.as_str()).collect();
            let what = summary_of(&group);
            Summary {
                kind,
                jobs: names.iter().map(|n| n.to_string()).collect(),
                line: fit(&names, of_all, LINE_MAX, |tests| {
                    format!("check: {tests}{what}")
                }),
            }
        })
        .collect()
}

/// What a group of verdicts of one kind says, after the tests' names.
fn summary_of(group: &[&Verdict]) -> String {
    let mut data = Vec::new();
    let mut passes = Vec::new();
    let mut need: f64 = 0.0;
    let mut room_left = None;
    let mut medians = Vec::new();
    let mut floor_class = None;
    let mut measured = Vec::new();
    let mut fix = String::new();
    for v in group {
        match &v.facts {
            Facts::DataSet {
                data_bytes,
                bytes_per_sec,
                room,
            } => {
                data.push(*data_bytes as f64);
                passes.push(*data_bytes as f64 / bytes_per_sec);
                need = need.max(MIN_DATA_SECONDS * bytes_per_sec);
                room_left = *room;
            }
            Facts::FastReads {
                p50_us,
                floor_us,
                class,
            } => {
                medians.push(*p50_us);
                floor_class = Some((*floor_us, *class));
            }
            Facts::TooShort { secs, fix: f, .. } => {
                measured.push(*secs);
                fix = f.clone();
            }
        }
    }
    if !data.is_empty() {
        let lo = data.iter().copied().fold(f64::INFINITY, f64::min) as u64;
        let hi = data.iter().copied().fold(0.0, f64::max) as u64;
        let sets = match lo == hi {
            true => format!("the {} data set", bytes(lo)),
            false => format!("data sets of {}-{}", bytes(lo), bytes(hi)),
        };
        let every = span_by(&passes, seconds);
        let tail = match room_left {
            Some(room) if need as u64 > room => format!(
                "a cache may answer for the disk ({MIN_DATA_SECONDS:.0} s a pass needs {}, but \
                 only {} is free)",
                bytes(need as u64),
                bytes(room)
            ),
            _ => format!(
                "a cache may answer for the disk; --size {} makes a pass {MIN_DATA_SECONDS:.0} s",
                bytes(need as u64)
            ),
        };
        return format!(" went over {sets} every {every} s: {tail}");
    }
    if let Some((floor, class)) = floor_class {
        return format!(
            ": random reads took {} us (median), faster than {class} can ({floor:.0} us): a \
             cache answered; use a data set larger than it",
            span(&medians, 1)
        );
    }
    format!(
        " measured {} s, too short to trust (a figure needs {} s and {TRUSTED_IOS} I/Os); {fix}",
        span(&measured, 1),
        TRUSTED_RUNTIME_NS / 1_000_000_000
    )
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

    /// A test measured under 2 s or 500 I/Os is too short to trust, with
    /// the command's fix; a longer one is not; a quick run says it once.
    #[test]
    fn only_tests_too_short_to_trust_are_named() {
        let mut run = result(1 << 30, 100_000, 50_000, false);
        let short = too_short(&run, "raise --runtime");
        assert_eq!(short.len(), 1, "{short:?}");
        assert!(short[0]
            .text
            .starts_with("job 'r': measured 1.0 s and 100000 I/Os: too short"));
        assert!(
            short[0].text.ends_with("; raise --runtime"),
            "{}",
            short[0].text
        );
        let line = &summaries(&short, 1)[0].line;
        assert_eq!(
            line,
            "check: r measured 1.0 s, too short to trust (a figure needs 2 s and 500 I/Os); raise --runtime"
        );
        assert!(quick_note(&run)
            .unwrap()
            .starts_with("Quick figures: r measured 1.0 s each;"));
        run.jobs[0].runtime_ns = TRUSTED_RUNTIME_NS;
        assert!(too_short(&run, "").is_empty());
        assert_eq!(quick_note(&run), None);
        run.jobs[0].read.ios = TRUSTED_IOS - 1;
        assert_eq!(too_short(&run, "")[0].job, "r");
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
        assert_eq!(summaries(&twice, 1).len(), 1);
    }

    /// io_uring can complete a read inside the submit call: its wait is in
    /// slat and its clat is under a microsecond. The check reads the whole
    /// latency, as the table does, so it does not call such a read a cache's.
    #[test]
    fn a_read_whose_wait_is_in_its_submission_is_not_a_caches() {
        let mut run = result(100 << 30, 1000, 500, false);
        run.jobs[0].read = dir(&[(500, 1000)], 4096, 1_000_000_000, Some(85_000));
        assert!(verdicts(&run).is_empty(), "{:?}", verdicts(&run));
    }
}
