//! The options that shape what a job writes besides its results: its log
//! files (`write_*_log`, `log_*`, `per_job_logs`), the units of the normal
//! output (`kb_base`, `unit_base`) and how its directions are summed
//! (`unified_rw_reporting`), parsed into `model::job::LogSpec`,
//! `model::units::OutputUnits` and `model::UnifiedRw`.
//!
//! `kb_base` also changes how every size of the job is read; `jobs` applies
//! it around each option (see `values::with_kb_base`) and, in a job file,
//! before the section's other options, as fio does.

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::values;
use crate::values::Given;
use model::fio_plat::{MAX_COARSENESS, PLAT_BINS};
use model::{JobSpec, UnifiedRw};

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let logs = &mut spec.logs;
    match o.key {
        // An empty prefix stands for the job's name until the job is complete.
        Key::WriteBwLog => logs.bw = Some(log_prefix(o.scope, o.name, o.value)?),
        Key::WriteIopsLog => logs.iops = Some(log_prefix(o.scope, o.name, o.value)?),
        Key::WriteLatLog => logs.lat = Some(log_prefix(o.scope, o.name, o.value)?),
        Key::WriteHistLog => logs.hist = Some(log_prefix(o.scope, o.name, o.value)?),
        Key::LogAvgMsec => logs.avg_msec = o.int()?,
        Key::LogHistMsec => logs.hist_msec = o.int()?,
        Key::LogHistCoarseness => logs.hist_coarseness = coarseness(o.scope, o.name, o.text)?,
        Key::LogOffset => logs.offset = o.flag()?,
        // fio 3.33's flag; newer fio's alias of log_window_value.
        Key::LogMaxValue if o.value.is_none() => logs.max_value = true,
        Key::LogMaxValue | Key::LogWindowValue => {
            (logs.max_value, logs.both_values) = match o.text.trim() {
                "avg" | "0" => (false, false),
                "max" | "1" => (true, false),
                "both" => (false, true),
                _ => return Err(o.invalid("use avg (the default), max or both")),
            }
        }
        Key::LogIssueTime => logs.issue_time = o.flag()?,
        Key::LogPrio => logs.prio = o.flag()?,
        Key::PerJobLogs => logs.shared = !o.boolean()?,
        Key::LogCompression => logs.compression = o.size()?,
        Key::LogStoreCompressed => logs.store_compressed = o.boolean()?,
        Key::UnifiedRwReporting => {
            spec.unified_rw = match o.text.trim() {
                "none" | "0" => UnifiedRw::None,
                "mixed" | "1" => UnifiedRw::Mixed,
                "both" | "2" => UnifiedRw::Both,
                _ => {
                    return Err(o.invalid(
                        "use none (0, each direction apart: fio's default), mixed (1, summed \
                         as one) or both (2)",
                    ))
                }
            }
        }
        Key::KbBase => spec.units.kb_base_1000 = match o.int()? {
            1024 => false,
            1000 => true,
            _ => return Err(o.invalid(
                "use 1024 (4k is 4096 bytes, fio's default) or 1000 (4k is 4000 bytes, 4ki 4096)",
            )),
        },
        Key::UnitBase => {
            spec.units.bits = match o.int()? {
                0 | 8 => false,
                1 => true,
                _ => {
                    return Err(
                        o.invalid("use 0 or 8 (bandwidth in bytes, fio's default) or 1 (in bits)")
                    )
                }
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Once the job is complete: bare `write_*_log` options take the job's name.
pub(crate) fn finish(spec: &mut JobSpec) -> Result<(), FioError> {
    let job = spec.name.clone();
    let logs = &mut spec.logs;
    if logs.store_compressed && logs.hist.is_some() {
        return Err(FioError::invalid(
            &Scope::Job(job),
            "log_store_compressed",
            "1",
            "diskbench stores the bandwidth, IOPS and latency logs compressed, not the \
             histogram log: drop write_hist_log or log_store_compressed",
        ));
    }
    if logs.store_compressed && (logs.both_values || logs.issue_time) {
        return Err(FioError::invalid(
            &Scope::Job(job),
            "log_store_compressed",
            "1",
            "diskbench stores compressed logs in fio's plain sample layout, without the \
             columns of log_window_value=both or log_issue_time: drop those or \
             log_store_compressed",
        ));
    }
    for prefix in [&mut logs.bw, &mut logs.iops, &mut logs.lat, &mut logs.hist]
        .into_iter()
        .flatten()
    {
        if prefix.is_empty() {
            *prefix = job.clone();
        }
    }
    Ok(())
}

/// A log's file name prefix: the value, or "" (the job's name) when bare.
fn log_prefix(scope: &Scope, option: &str, value: Option<&str>) -> Result<String, FioError> {
    let prefix = value.unwrap_or("").trim();
    if prefix.contains('/') && prefix.ends_with('/') {
        return Err(FioError::invalid(
            scope,
            option,
            prefix,
            "give a file name prefix, e.g. write_bw_log=mylog (fio adds _bw.1.log)",
        ));
    }
    Ok(prefix.to_string())
}

/// `log_hist_coarseness`: 0 to 6, as fio documents it. fio 3.33 takes 7 and
/// more without a word and writes lines whose last bin is a partial sum,
/// which `fiologparser_hist.py` then refuses to read.
fn coarseness(scope: &Scope, name: &str, text: &str) -> Result<u32, FioError> {
    let n = values::int(scope, name, text)?;
    if n > u64::from(MAX_COARSENESS) {
        return Err(FioError::invalid(
            scope,
            name,
            text,
            format!(
                "use 0 to {MAX_COARSENESS}: each step halves the {PLAT_BINS} bins of a line \
                 (6 gives {})",
                PLAT_BINS >> MAX_COARSENESS
            ),
        ));
    }
    Ok(n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{lookup, Lookup};

    fn key(name: &str) -> Key {
        match lookup(name) {
            Lookup::Job(d) => d.key,
            other => panic!("{name}: {other:?}"),
        }
    }

    fn set(spec: &mut JobSpec, name: &str, value: Option<&str>) -> Result<bool, FioError> {
        let given = Given {
            key: key(name),
            scope: &Scope::Global,
            name,
            text: value.unwrap_or(""),
            value,
        };
        apply(spec, &given)
    }

    #[test]
    fn log_options_fill_the_log_spec() {
        let mut spec = JobSpec::new("j");
        for (name, value) in [
            ("write_hist_log", None),
            ("log_hist_msec", Some("250")),
            ("log_hist_coarseness", Some("3")),
            ("log_max_value", None),
            ("per_job_logs", Some("0")),
            ("write_lat_log", Some("l")),
        ] {
            assert_eq!(
                set(&mut spec, name, value).map_err(|e| e.to_string()),
                Ok(true),
                "{name}"
            );
        }
        finish(&mut spec).unwrap();
        let logs = &spec.logs;
        assert_eq!(logs.hist.as_deref(), Some("j"));
        assert_eq!(logs.lat.as_deref(), Some("l"));
        assert_eq!((logs.hist_msec, logs.hist_coarseness), (250, 3));
        assert!(logs.max_value && logs.shared);
        assert!(!set(&mut spec, "rw", Some("read")).unwrap());
    }

    #[test]
    fn bad_values_name_the_option_and_the_fix() {
        let mut spec = JobSpec::new("j");
        let err = set(&mut spec, "log_hist_coarseness", Some("7"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("log_hist_coarseness") && err.contains("use 0 to 6"),
            "{err}"
        );
        let err = set(&mut spec, "kb_base", Some("1023"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("kb_base") && err.contains("use 1024"), "{err}");
        let err = set(&mut spec, "unit_base", Some("2"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unit_base") && err.contains("or 1 (in bits)"),
            "{err}"
        );
        let err = set(&mut spec, "per_job_logs", Some("maybe"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("per_job_logs"), "{err}");
        assert!(set(&mut spec, "kb_base", Some("1000")).unwrap());
        assert!(set(&mut spec, "unit_base", Some("1")).unwrap());
        assert!(spec.units.kb_base_1000 && spec.units.bits);
    }
}
