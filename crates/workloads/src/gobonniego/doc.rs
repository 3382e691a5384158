//! GoBonnieGo's `-json` document (version 1.0.10), key for key and in its
//! order, so scripts written for GoBonnieGo (and `diskbench import`) read
//! diskbench's output unchanged. Whatever diskbench adds sits under keys
//! GoBonnieGo never writes: `diskbench` (top level and in each run) and
//! `error` (when the run stopped early).
//!
//! Numbers are written as Go writes them (`2`, not `2.0`, for a whole
//! float) and times as Go's RFC 3339 with nanoseconds (in UTC here).

use super::{Error, Report, RunFigures, GOBONNIEGO_VERSION};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::time::{SystemTime, UNIX_EPOCH};

/// The whole `-json` document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Document {
    pub version: String,
    pub start_time: String,
    pub gobonniego_directory: String,
    #[serde(serialize_with = "go_float")]
    pub disk_space_used_gib: f64,
    pub num_readers_and_writers: u64,
    pub physical_memory_bytes: u64,
    #[serde(serialize_with = "go_float")]
    pub iops_duration_seconds: f64,
    /// GoBonnieGo writes `null` when no run finished.
    #[serde(deserialize_with = "null_is_empty")]
    pub results: Vec<DocRun>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diskbench: Option<Extras>,
    /// Why the run stopped early (diskbench only); `results` holds the runs that finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One run, as GoBonnieGo writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DocRun {
    #[serde(serialize_with = "go_float")]
    pub write_megabytes_per_second: f64,
    #[serde(serialize_with = "go_float")]
    pub read_megabytes_per_second: f64,
    #[serde(serialize_with = "go_float")]
    pub iops: f64,
    #[serde(serialize_with = "go_float")]
    pub write_seconds: f64,
    #[serde(serialize_with = "go_float")]
    pub read_seconds: f64,
    #[serde(serialize_with = "go_float")]
    pub io_seconds: f64,
    pub start_time: String,
    pub write_bytes: u64,
    pub read_bytes: u64,
    pub io_operations: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diskbench: Option<RunExtras>,
}

/// diskbench's additions to the document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Extras {
    pub tool_version: String,
    /// What stops the write clock: `fsync` (GoBonnieGo stops it at the page cache).
    pub write_timed_until: String,
    pub warnings: Vec<String>,
}

/// diskbench's counters for one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunExtras {
    pub io_reads: u64,
    pub io_writes: u64,
    pub blocks_verified: u64,
    /// `drop_caches`, `fadvise` or `none`.
    pub cache_drop_before_read: String,
    pub cache_drop_before_iops: String,
    /// Why the cache could not be dropped, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_drop_failure: Option<String>,
    /// Drops of the files' cached pages while the IOPS test ran.
    pub iops_cache_drops: u32,
}

/// What goes in `version`: the GoBonnieGo release whose format this is,
/// marked as diskbench's (`1.0.10+diskbench-0.1.0`).
pub fn version() -> String {
    format!("{GOBONNIEGO_VERSION}+{}", runner::TOOL_VERSION)
}

impl Document {
    pub fn new(report: &Report, failure: Option<&Error>) -> Document {
        Document {
            version: version(),
            start_time: rfc3339_nano(report.start),
            gobonniego_directory: report.dir.display().to_string(),
            disk_space_used_gib: report.options.size_gib,
            num_readers_and_writers: u64::from(report.options.threads),
            physical_memory_bytes: report.mem_bytes,
            iops_duration_seconds: report.options.iops_seconds,
            results: report.runs.iter().map(DocRun::new).collect(),
            diskbench: Some(Extras {
                tool_version: runner::TOOL_VERSION.to_string(),
                write_timed_until: "fsync".into(),
                warnings: report.warnings.clone(),
            }),
            error: failure.map(|e| match e {
                Error::Interrupted => {
                    "interrupted: only the runs that finished are in results".to_string()
                }
                e => e.to_string(),
            }),
        }
    }
}

impl DocRun {
    pub fn new(f: &RunFigures) -> DocRun {
        let failure = [&f.cache_before_read, &f.cache_before_iops]
            .into_iter()
            .find_map(|c| match c {
                super::CacheDrop::Failed(why) => Some(why.clone()),
                _ => None,
            });
        DocRun {
            write_megabytes_per_second: f.write_mb_per_sec(),
            read_megabytes_per_second: f.read_mb_per_sec(),
            iops: f.iops(),
            write_seconds: f.write_time.as_secs_f64(),
            read_seconds: f.read_time.as_secs_f64(),
            io_seconds: f.io_time.as_secs_f64(),
            start_time: rfc3339_nano(f.start),
            write_bytes: f.write_bytes,
            read_bytes: f.read_bytes,
            io_operations: f.io_operations,
            diskbench: Some(RunExtras {
                io_reads: f.io_reads,
                io_writes: f.io_writes,
                blocks_verified: f.blocks_verified,
                cache_drop_before_read: f.cache_before_read.key().into(),
                cache_drop_before_iops: f.cache_before_iops.key().into(),
                cache_drop_failure: failure,
                iops_cache_drops: f.iops_cache_drops,
            }),
        }
    }
}

/// A float as Go's encoding/json writes it: whole values without `.0`.
fn go_float<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        s.serialize_i64(*x as i64)
    } else {
        s.serialize_f64(*x)
    }
}

fn null_is_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<DocRun>, D::Error> {
    Ok(Option::<Vec<DocRun>>::deserialize(d)?.unwrap_or_default())
}

/// Go's `time.RFC3339Nano` in UTC: `2026-11-22T02:07:58.382174148Z`, the
/// fraction without trailing zeros.
pub fn rfc3339_nano(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let (date, clock) = date_and_clock(d.as_secs());
    let mut s = format!("{}T{clock}", date.replace('/', "-"));
    if d.subsec_nanos() > 0 {
        let frac = format!("{:09}", d.subsec_nanos());
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
    s.push('Z');
    s
}

/// The prefix of Go's `log` lines, `2026/11/22 04:28:55` (UTC here).
pub fn log_time(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (date, clock) = date_and_clock(secs);
    format!("{date} {clock}")
}

fn date_and_clock(unix_secs: u64) -> (String, String) {
    let (y, m, d) = civil_from_days((unix_secs / 86_400) as i64);
    let sod = unix_secs % 86_400;
    (
        format!("{y:04}/{m:02}/{d:02}"),
        format!("{:02}:{:02}:{:02}", sod / 3600, sod / 60 % 60, sod % 60),
    )
}

/// (year, month, day) of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const SAMPLE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/gobonniego-1.0.10-runs2.json"
    );

    #[test]
    fn the_sample_round_trips_key_for_key() {
        let text = std::fs::read_to_string(SAMPLE).unwrap();
        let doc: Document = serde_json::from_str(&text).unwrap();
        assert_eq!(doc.results.len(), 2);
        assert_eq!(doc.results[1].io_operations, 1_490_691);
        assert!(doc.diskbench.is_none());
        // Same keys, same order, same numbers (serde_json keeps the order).
        let ours = serde_json::to_string(&doc).unwrap();
        let a: serde_json::Value = serde_json::from_str(&ours).unwrap();
        let b: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(a, b);
        assert_eq!(ours.trim(), text.trim(), "byte for byte, as Go wrote it");
    }

    #[test]
    fn null_results_and_whole_floats_as_go_writes_them() {
        let text = r#"{"version":"1.0.10","start_time":"x","gobonniego_directory":"/d",
            "disk_space_used_gib":1,"num_readers_and_writers":1,"physical_memory_bytes":1,
            "iops_duration_seconds":15,"results":null}"#;
        let doc: Document = serde_json::from_str(text).unwrap();
        assert!(doc.results.is_empty());
        let out = serde_json::to_string(&doc).unwrap();
        assert!(out.contains("\"iops_duration_seconds\":15,"), "{out}");
    }

    #[test]
    fn times_as_go_formats_them() {
        let t = UNIX_EPOCH + Duration::new(1_795_313_278, 382_174_148);
        assert_eq!(rfc3339_nano(t), "2026-11-22T02:07:58.382174148Z");
        let t = UNIX_EPOCH + Duration::new(1_795_313_278, 380_000_000);
        assert_eq!(rfc3339_nano(t), "2026-11-22T02:07:58.38Z");
        assert_eq!(
            rfc3339_nano(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            log_time(UNIX_EPOCH + Duration::from_secs(1_795_313_278)),
            "2026/11/22 02:07:58"
        );
    }
}
