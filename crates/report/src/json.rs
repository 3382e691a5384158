//! fio-compatible JSON, so the tools people built for `fio --output-format=json`
//! read diskbench's output unchanged.
//!
//! The layout follows fio 3.33 (see the root `fixtures/fio-3.33-randrw.json`):
//! the same top-level keys, the same per-job keys in fio's order, the same
//! per-direction objects, and fio's number types (integers where fio has
//! integers, floats rounded to fio's 6 decimals where fio has floats).
//! diskbench's own facts (schema version, diskbench's version, host, targets, warnings, series)
//! sit under `diskbench` keys that fio readers ignore.
//!
//! What fio reports but diskbench does not measure is left out rather than
//! invented: `disk_util` when no target is on a block device (as fio leaves
//! it out then) or the run was saved before it was measured, and the
//! queue-depth distributions (`iodepth_level`, `iodepth_submit`,
//! `iodepth_complete`) of imported runs, which did not measure them.
//! `disk_util` holds what the kernel counted for each device (see
//! `model::disk`); its sectors, busy and wall times and the device's mean
//! queue depth sit under `diskbench.disk_util`. The `latency_ns/us/ms`
//! distributions are computed from the completion-latency histograms, as
//! fio does. `diskbench.mean_depth` is the number of I/Os really kept in
//! flight (see `model::depth`).
//!
//! An imported run is written as its source wrote it: fio's document and
//! job entries as they were read (`crate::source`), with diskbench's keys
//! added only where fio has none. A run imported before that record was
//! kept is derived from its rebuilt histograms, and each figure so derived
//! (percentiles, `latency_*` tables) is named in the job's
//! `diskbench.approximate`.
//!
//! Differences in meaning: rates use the nanosecond runtime rather than fio's
//! whole milliseconds; the per-interval figures (`bw_*`, `iops_*`) come from
//! 1-second intervals summed over a job's clones (fio: 500 ms windows);
//! `elapsed` is the ramp plus the measured phase; `time` is UTC.

use crate::cliff;
use crate::format::{ctime_utc, six_decimals};
use crate::source;
use crate::stats::{self, LatStats, SampleStats, DIRECTIONS};
use crate::unified;
use model::depth::{BATCH_LABELS, LEVEL_LABELS};
use model::{DepthStats, DirStats, Direction, Failure, JobResult, RunResult, UnifiedRw, Warning};
use serde_json::{json, Map, Value};

/// The whole run as fio-compatible JSON, pretty-printed, ending in a newline.
pub fn render(result: &RunResult) -> String {
    match serde_json::to_string_pretty(&to_value(result)) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        Err(e) => error_json(
            &Failure::runtime(format!("could not write the JSON output: {e}")),
            &result.tool_version,
        ),
    }
}

/// [`render`] with each job's latency histograms, whole, under
/// `diskbench.histograms` (`{"read": {"slat", "clat", "lat"}, "write": ...}`,
/// in the history's sparse form): what `diskbench export --format fio-json`
/// writes, so that importing the file back gives the measured histograms,
/// not ones rebuilt from a few percentiles. Jobs whose histograms were
/// themselves rebuilt on import carry none.
pub fn render_with_histograms(result: &RunResult) -> String {
    let mut root = to_value(result);
    if let Some(jobs) = root.get_mut("jobs").and_then(Value::as_array_mut) {
        for (value, job) in jobs.iter_mut().zip(&result.jobs) {
            let extras = value.get_mut("diskbench").and_then(Value::as_object_mut);
            if let (Some(extras), false) = (extras, source::rebuilt(job)) {
                extras.insert("histograms".into(), histograms_value(job));
            }
        }
    }
    match serde_json::to_string_pretty(&root) {
        Ok(text) => text + "\n",
        Err(e) => error_json(
            &Failure::runtime(format!("could not write the JSON output: {e}")),
            &result.tool_version,
        ),
    }
}

fn histograms_value(job: &JobResult) -> Value {
    let mut m = Map::new();
    for dir in DIRECTIONS {
        let d = stats::dir_stats(job, dir);
        let mut kinds = Map::new();
        if let Some(slat) = &d.slat {
            kinds.insert("slat".into(), json!(slat));
        }
        kinds.insert("clat".into(), json!(d.clat));
        kinds.insert("lat".into(), json!(d.lat));
        m.insert(stats::dir_name(dir).into(), Value::Object(kinds));
    }
    Value::Object(m)
}

/// The JSON printed when a run failed before it had results, so that stdout
/// is always parseable: `{"fio version", "jobs": [], "error": message,
/// "diskbench": {"failure": {...}}}`, the failure object as a run's JSON has it.
pub fn error_json(failure: &Failure, tool_version: &str) -> String {
    let value = json!({
        "fio version": model::result::FIO_VERSION,
        "jobs": [],
        "error": failure.message,
        "diskbench": {"version": tool_version, "failure": failure_value(failure)},
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_else(|_| "{}".to_string());
    text.push('\n');
    text
}

/// The run as a JSON value (keys in fio's order).
pub fn to_value(result: &RunResult) -> Value {
    let end_ms = if result.finished_unix_ms > 0 {
        result.finished_unix_ms
    } else {
        result.started_unix_ms
    };
    let mut root = Map::new();
    root.insert("fio version".into(), json!(result.fio_version()));
    root.insert("timestamp".into(), json!(end_ms / 1000));
    root.insert("timestamp_ms".into(), json!(end_ms));
    root.insert("time".into(), json!(ctime_utc(end_ms / 1000)));
    if !result.global_options.is_empty() {
        let globals: Map<String, Value> = result
            .global_options
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        root.insert("global options".into(), Value::Object(globals));
    }
    let jobs: Vec<Value> = result.jobs.iter().map(|j| job_value(result, j)).collect();
    root.insert("jobs".into(), Value::Array(jobs));
    if !result.disk_util.is_empty() {
        let disks = result.disk_util.iter().map(disk_value).collect();
        root.insert("disk_util".into(), Value::Array(disks));
    }
    root.insert("diskbench".into(), run_extras(result));
    if let Some(error) = &result.error {
        root.insert("error".into(), json!(error));
    }
    // Only present when true: fio's own JSON has no such key.
    if result.interrupted {
        root.insert("partial".into(), json!(true));
    }
    // An imported run: the source's own keys and values win, in place.
    if let Some(src) = source::run_record(result) {
        for (k, v) in src {
            root.insert(k.clone(), v.clone());
        }
    }
    Value::Object(root)
}

/// One entry of fio's `disk_util`, keys in fio 3.33's order. fio adds
/// `aggr_*` keys for a dm or md device with its slaves' sum; diskbench
/// lists the slaves as entries of their own instead.
fn disk_value(d: &model::DiskUtil) -> Value {
    json!({
        "name": d.name,
        "read_ios": d.read_ios,
        "write_ios": d.write_ios,
        "read_merges": d.read_merges,
        "write_merges": d.write_merges,
        "read_ticks": d.read_ticks,
        "write_ticks": d.write_ticks,
        "in_queue": d.in_queue,
        "util": six_decimals(d.util()),
    })
}

/// The counters fio's `disk_util` leaves out, under `diskbench.disk_util`:
/// sectors moved, the busy time and the wall time `util` divides, the
/// mean size of the requests the device received, and the mean depth of
/// its queue (iostat's aqu-sz, from `in_queue`).
fn disk_extras(d: &model::DiskUtil) -> Value {
    json!({
        "name": d.name,
        "read_sectors": d.read_sectors,
        "write_sectors": d.write_sectors,
        "io_ticks_ms": d.io_ticks,
        "time_ms": d.time_ms,
        "mean_request_bytes": d.mean_request_bytes(),
        "mean_queue_depth": six_decimals(d.mean_queue_depth()),
    })
}

/// fio's `steadystate` object: the criterion as fio prints it (a
/// percentage of the window's mean, or the measure itself), and the
/// window's seconds under `data`.
fn steadystate_value(ss: &model::SteadyStateResult) -> Value {
    let criterion = match ss.percent {
        true => format!("{:.6}%", ss.criterion),
        false => format!("{:.6}", ss.criterion),
    };
    let mut data = Map::new();
    data.insert("bw_mean".into(), json!(ss.bw_mean.round() as u64));
    data.insert("iops_mean".into(), json!(ss.iops_mean.round() as u64));
    // fio 3.42 adds the latencies for its latency criteria only.
    if ss.ss.starts_with("lat") {
        data.insert("lat_mean".into(), json!(ss.lat_mean.round() as u64));
        data.insert("lat_ns".into(), json!(ss.lat));
    }
    data.insert("iops".into(), json!(ss.iops));
    data.insert("bw".into(), json!(ss.bw));
    json!({
        "ss": ss.ss,
        "duration": ss.duration_s,
        "attained": u8::from(ss.attained),
        "criterion": criterion,
        "max_deviation": six_decimals(ss.max_deviation),
        "slope": six_decimals(ss.slope),
        "data": data,
    })
}

fn float(x: f64) -> Value {
    json!(six_decimals(x))
}

fn job_value(result: &RunResult, job: &JobResult) -> Value {
    if let Some(src) = source::record(job).and_then(|i| i.source.as_ref()) {
        return imported_job_value(src);
    }
    let mut m = Map::new();
    m.insert("jobname".into(), json!(job.name));
    m.insert("groupid".into(), json!(job.groupid));
    m.insert("error".into(), json!(job.error_code()));
    m.insert("eta".into(), json!(0));
    let elapsed_ns = job.spec.ramp_time.as_nanos() as u64 + job.runtime_ns;
    m.insert("elapsed".into(), json!(elapsed_ns.div_ceil(1_000_000_000)));
    let options: Map<String, Value> = job
        .spec
        .options
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    m.insert("job options".into(), Value::Object(options));
    if job.spec.unified_rw != UnifiedRw::Mixed {
        for dir in DIRECTIONS {
            m.insert(stats::dir_name(dir).into(), dir_value(result, job, dir));
        }
        // A trim mode's trims; fio's shape of nothing for the others.
        m.insert("trim".into(), dir_value(result, job, stats::Side::Trim));
    }
    // unified_rw_reporting: the directions summed, in their place or after them.
    if job.spec.unified_rw != UnifiedRw::None {
        let run = unified::mixed_run(result);
        let mixed = unified::mixed_job(job);
        m.insert("mixed".into(), dir_value(&run, &mixed, Direction::Read));
    }
    m.insert("sync".into(), sync_value(job));
    // fio's total_run_time: every thread's runtime added (2,000 ms for two
    // clones of one second), which usr_cpu and sys_cpu are shares of.
    let wall_ns = match job.cpu.wall_ns {
        0 => job.runtime_ns,
        w => w,
    };
    m.insert("job_runtime".into(), json!(stats::runtime_ms(wall_ns)));
    let (usr, sys) = stats::cpu_percents(job);
    m.insert("usr_cpu".into(), float(usr));
    m.insert("sys_cpu".into(), float(sys));
    m.insert("ctx".into(), json!(job.cpu.ctx()));
    m.insert("majf".into(), json!(job.cpu.major_faults));
    m.insert("minf".into(), json!(job.cpu.minor_faults));
    // Left out for runs that did not measure them (imported ones).
    if job.depth.level.iter().any(|&n| n > 0) {
        let d = &job.depth;
        for (key, labels, counts) in [
            ("iodepth_level", &LEVEL_LABELS, &d.level),
            ("iodepth_submit", &BATCH_LABELS, &d.submit),
            ("iodepth_complete", &BATCH_LABELS, &d.complete),
        ] {
            m.insert(
                key.into(),
                bucket_value(labels, &DepthStats::percents(counts)),
            );
        }
    }
    let buckets = stats::latency_buckets(job);
    m.insert(
        "latency_ns".into(),
        bucket_value(&stats::LAT_LABELS, &buckets.ns),
    );
    m.insert(
        "latency_us".into(),
        bucket_value(&stats::LAT_LABELS, &buckets.us),
    );
    m.insert(
        "latency_ms".into(),
        bucket_value(&stats::LAT_MS_LABELS, &buckets.ms),
    );
    // fio 3.33 writes these for a job with continue_on_error (or ignore_error).
    if let Some(e) = job.errors.as_ref().filter(|_| job.spec.errors.any()) {
        m.insert("total_err".into(), json!(e.total));
        m.insert("first_error".into(), json!(e.first));
    }
    let (target, window, percentile, depth) = source::latency_target(job);
    m.insert("latency_depth".into(), json!(depth));
    m.insert("latency_target".into(), json!(target));
    m.insert("latency_percentile".into(), float(percentile));
    m.insert("latency_window".into(), json!(window));
    if let Some(ss) = &job.steadystate {
        m.insert("steadystate".into(), steadystate_value(ss));
    }
    // diskbench's own: what `verify=` found (fio prints only its first failure).
    if let Some(v) = &job.verify {
        m.insert("verify".into(), json!(v));
    }
    // fio 3.33 puts `desc` after the latency_* keys, when a description is set.
    if let Some(desc) = &job.spec.description {
        m.insert("desc".into(), json!(desc));
    }
    m.insert("cliff".into(), cliff::to_json(&cliff::within_run(job)));
    let mut extras = job_extras(job);
    if source::rebuilt(job) {
        let approximate: Map<String, Value> = approximate_paths(&m)
            .into_iter()
            .map(|path| (path, json!(source::APPROX_REASON)))
            .collect();
        if let (Some(x), false) = (extras.as_object_mut(), approximate.is_empty()) {
            x.insert("approximate".into(), Value::Object(approximate));
        }
    }
    m.insert("diskbench".into(), extras);
    Value::Object(m)
}

/// An imported job's entry as the source wrote it, marked as imported
/// under `diskbench` unless the source has a `diskbench` key of its own
/// (diskbench's own output, imported back).
fn imported_job_value(src: &Map<String, Value>) -> Value {
    let mut m = src.clone();
    if !m.contains_key("diskbench") {
        m.insert("diskbench".into(), json!({"imported": true}));
    }
    Value::Object(m)
}

/// The figures of a job written from its histograms alone: what is
/// approximate when those histograms were rebuilt on import.
fn approximate_paths(job: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for dir in DIRECTIONS {
        let name = stats::dir_name(dir);
        for kind in ["slat_ns", "clat_ns", "lat_ns"] {
            if job[name]
                .get(kind)
                .and_then(|l| l.get("percentile"))
                .is_some()
            {
                out.push(format!("{name}.{kind}.percentile"));
            }
        }
    }
    let any_latency = ["latency_ns", "latency_us", "latency_ms"].iter().any(|k| {
        job[*k]
            .as_object()
            .is_some_and(|t| t.values().any(|v| v.as_f64().is_some_and(|p| p > 0.0)))
    });
    if any_latency {
        out.extend(["latency_ns", "latency_us", "latency_ms"].map(String::from));
    }
    out
}

fn dir_value(result: &RunResult, job: &JobResult, dir: impl Into<stats::Side> + Copy) -> Value {
    let d = stats::dir_stats(job, dir);
    // A verify_only job's writes were not done, but fio counts them as
    // issued: in total_ios and io_bytes, with no runtime nor latencies.
    let (replayed, replayed_bytes) = dir.into().direction().map_or((0, 0), |d| job.replayed(d));
    if d.is_unused() {
        let mut value = zero_dir_value();
        if replayed > 0 {
            value["io_bytes"] = json!(replayed_bytes);
            value["io_kbytes"] = json!(replayed_bytes >> 10);
            value["total_ios"] = json!(replayed);
        }
        return value;
    }
    let bw = stats::bw_stats(job, dir);
    let agg = match bw {
        Some(s) => stats::bw_agg_percent(s.mean, stats::group_agg(result, job, dir)),
        None => 0.0,
    };
    let mut value = figures_value(job, d, Some((bw, agg)), stats::iops_stats(job, dir));
    // fio counts the failed I/Os a job continued past in its total_ios
    // (not in its bytes).
    let failed = dir.into().direction().map_or(0, |d| job.failed_ios(d));
    if failed > 0 {
        value["total_ios"] = json!(d.ios + failed);
    }
    value
}

/// One direction's object from its figures: `bw` the per-second bandwidth
/// samples and the share of the group's (`None`: no samples, zeros).
fn figures_value(
    job: &JobResult,
    d: &DirStats,
    bw: Option<(Option<SampleStats>, f64)>,
    iops: Option<SampleStats>,
) -> Value {
    let bw_bytes = stats::per_sec(d.bytes, d.runtime_ns) as u64;
    let mut m = Map::new();
    m.insert("io_bytes".into(), json!(d.bytes));
    m.insert("io_kbytes".into(), json!(d.bytes >> 10));
    m.insert("bw_bytes".into(), json!(bw_bytes));
    m.insert("bw".into(), json!(bw_bytes / 1024));
    m.insert("iops".into(), float(d.iops()));
    m.insert("runtime".into(), json!(stats::runtime_ms(d.runtime_ns)));
    m.insert("total_ios".into(), json!(d.ios));
    m.insert("short_ios".into(), json!(0));
    m.insert("drop_ios".into(), json!(0));
    // fio's slat/clat/lat_percentiles choose where the job's list goes.
    let spec = &job.spec;
    let pcts = |on: bool, h| match on {
        true => stats::percentiles_at(h, &spec.percentile_list),
        false => Vec::new(),
    };
    let slat = d.slat.as_ref().map(LatStats::of).unwrap_or_default();
    let slat_p = match &d.slat {
        Some(h) => pcts(spec.slat_percentiles, h),
        None => Vec::new(),
    };
    m.insert("slat_ns".into(), lat_value(&slat, &slat_p));
    let clat_p = pcts(spec.clat_percentiles, &d.clat);
    m.insert("clat_ns".into(), lat_value(&LatStats::of(&d.clat), &clat_p));
    // fio's file-operation engines time the operation as a completion
    // latency only: their total latency has no samples.
    let (lat, lat_p) = match spec.engine.is_file_op() {
        true => (LatStats::default(), Vec::new()),
        false => (LatStats::of(&d.lat), pcts(spec.lat_percentiles, &d.lat)),
    };
    m.insert("lat_ns".into(), lat_value(&lat, &lat_p));
    if let Some(prios) = prios_value(d, spec) {
        m.insert("prios".into(), prios);
    }
    let (bw, agg) = bw.unwrap_or((None, 0.0));
    sample_keys(&mut m, "bw", bw, Some(agg), "bw_dev");
    sample_keys(&mut m, "iops", iops, None, "iops_stddev");
    Value::Object(m)
}

/// fio's `prios`: each priority's latencies (`clat_ns`, or `lat_ns` with
/// `lat_percentiles`), the ones with I/Os only, and only when there are
/// two or more of them (fio 3.33: a job whose I/Os all went with one
/// priority has no `prios`). A job with priority hints (fio 3.42's) gets
/// fio 3.42's `priohint` in each entry.
fn prios_value(d: &DirStats, spec: &model::JobSpec) -> Option<Value> {
    let used: Vec<_> = d.prios.iter().filter(|p| p.lat.count() > 0).collect();
    if used.len() < 2 {
        return None;
    }
    let (key, on) = match spec.lat_percentiles {
        true => ("lat_ns", true),
        false => ("clat_ns", spec.clat_percentiles),
    };
    let hinted = used
        .iter()
        .any(|p| model::prio::IoPrio::of_value(p.prio).hint > 0);
    let entries = used.iter().map(|p| {
        let prio = model::prio::IoPrio::of_value(p.prio);
        let pcts = match on {
            true => stats::percentiles_at(&p.lat, &spec.percentile_list),
            false => Vec::new(),
        };
        let mut m = Map::new();
        m.insert("prioclass".into(), json!(prio.class));
        m.insert("prio".into(), json!(prio.level));
        if hinted {
            m.insert("priohint".into(), json!(prio.hint));
        }
        m.insert(key.into(), lat_value(&LatStats::of(&p.lat), &pcts));
        Value::Object(m)
    });
    Some(Value::Array(entries.collect()))
}

/// fio's `bw_min, bw_max, bw_agg, bw_mean, bw_dev, bw_samples` (or the `iops_` ones).
fn sample_keys(
    m: &mut Map<String, Value>,
    prefix: &str,
    s: Option<SampleStats>,
    agg: Option<f64>,
    dev_key: &str,
) {
    let s = s.unwrap_or_default();
    m.insert(format!("{prefix}_min"), json!(s.min));
    m.insert(format!("{prefix}_max"), json!(s.max));
    if let Some(agg) = agg {
        m.insert(format!("{prefix}_agg"), float(agg));
    }
    m.insert(format!("{prefix}_mean"), float(s.mean));
    m.insert(dev_key.into(), float(s.stddev));
    m.insert(format!("{prefix}_samples"), json!(s.samples));
}

/// A direction that did nothing, in fio's shape (as the `trim` of a job
/// that does not trim).
fn zero_dir_value() -> Value {
    let zero = LatStats::default();
    let mut m = Map::new();
    for key in ["io_bytes", "io_kbytes", "bw_bytes", "bw"] {
        m.insert(key.into(), json!(0));
    }
    m.insert("iops".into(), float(0.0));
    for key in ["runtime", "total_ios", "short_ios", "drop_ios"] {
        m.insert(key.into(), json!(0));
    }
    for key in ["slat_ns", "clat_ns", "lat_ns"] {
        m.insert(key.into(), lat_value(&zero, &[]));
    }
    sample_keys(&mut m, "bw", None, Some(0.0), "bw_dev");
    sample_keys(&mut m, "iops", None, None, "iops_stddev");
    Value::Object(m)
}

/// `{min, max, mean, stddev, N}` and, when given, `percentile: {"99.000000": ns}`.
/// fio's `sync`: each sync's latency with the job's percentiles, and
/// `total_ios`, which fio counts for `fsync` (and a replayed log's syncs)
/// but leaves at 0 for `fdatasync` and `sync_file_range`.
fn sync_value(job: &JobResult) -> Value {
    let spec = &job.spec;
    let percentiles = stats::percentiles_at(&job.sync, &spec.percentile_list);
    let s = LatStats::of(&job.sync);
    let total = match spec.fsync_every > 0 || spec.iolog.replays() {
        true => s.n,
        false => 0,
    };
    json!({"total_ios": total, "lat_ns": lat_value(&s, &percentiles)})
}

fn lat_value(s: &LatStats, percentiles: &[(f64, u64)]) -> Value {
    let mut m = Map::new();
    m.insert("min".into(), json!(s.min));
    m.insert("max".into(), json!(s.max));
    m.insert("mean".into(), float(s.mean));
    m.insert("stddev".into(), float(s.stddev));
    m.insert("N".into(), json!(s.n));
    if !percentiles.is_empty() {
        let p: Map<String, Value> = percentiles
            .iter()
            .map(|&(pct, ns)| (format!("{pct:.6}"), json!(ns)))
            .collect();
        m.insert("percentile".into(), Value::Object(p));
    }
    Value::Object(m)
}

fn bucket_value(labels: &[&str], values: &[f64]) -> Value {
    let m: Map<String, Value> = labels
        .iter()
        .zip(values)
        .map(|(l, &v)| (l.to_string(), float(v)))
        .collect();
    Value::Object(m)
}

/// What the job's writes carried (fio's buffer options): compressing and
/// deduplicating devices give different figures on zeros, compressible and
/// random data.
fn written_data(spec: &model::JobSpec) -> Value {
    if spec.verify.is_some() {
        return json!({"kind": "verify_blocks", "unique": true});
    }
    let d = &spec.buffer_data;
    let mut m = Map::new();
    m.insert("kind".into(), json!(d.kind()));
    m.insert("unique".into(), json!(d.unique()));
    m.insert("refill".into(), json!(d.refills()));
    // Scrambling applies to the random buffers kept from write to write.
    let scrambled = d.scramble && d.kind() == "random" && !d.refills();
    m.insert("scramble".into(), json!(scrambled));
    if let Some(p) = &d.pattern {
        let hex: String = p.iter().map(|b| format!("{b:02x}")).collect();
        m.insert("pattern_hex".into(), json!(hex));
    }
    if let Some(pct) = d.compress_pct {
        m.insert("compress_percentage".into(), json!(pct));
        m.insert("compress_chunk".into(), json!(d.compress_chunk));
    }
    if d.dedupe_pct > 0 {
        m.insert("dedupe_percentage".into(), json!(d.dedupe_pct));
        m.insert("dedupe_mode".into(), json!(d.dedupe_mode.fio_name()));
        m.insert(
            "dedupe_working_set_percentage".into(),
            json!(d.dedupe_working_set_pct),
        );
    }
    Value::Object(m)
}

/// diskbench's own per-job facts, after fio's keys.
fn job_extras(job: &JobResult) -> Value {
    let series: Vec<Value> = job
        .series
        .iter()
        .map(|p| {
            let ns = p.duration_ms * 1_000_000;
            json!({
                "t_ms": p.start_ms,
                "duration_ms": p.duration_ms,
                "read_iops": float(stats::per_sec(p.read_ios, ns)),
                "read_bytes_per_sec": stats::per_sec(p.read_bytes, ns) as u64,
                "write_iops": float(stats::per_sec(p.write_ios, ns)),
                "write_bytes_per_sec": stats::per_sec(p.write_bytes, ns) as u64,
            })
        })
        .collect();
    let mut m = Map::new();
    m.insert("engine".into(), json!(job.engine.fio_name()));
    m.insert("clones".into(), json!(job.clones));
    m.insert("runtime_ns".into(), json!(job.runtime_ns));
    if let Some(mean) = job.depth.mean() {
        m.insert("mean_depth".into(), float(mean));
    }
    if job.imported.is_none() && job.spec.writes_data() {
        m.insert("data".into(), written_data(&job.spec));
    }
    // `diskbench run`'s stop once stable: the slices it judged.
    if let Some(st) = &job.stability {
        m.insert("stability".into(), crate::stability::stability_json(st));
    }
    // Part of sys_cpu: io_uring's kernel threads working for the job.
    if job.cpu.kernel_helpers_ns > 0 {
        m.insert(
            "io_uring_helpers_cpu_ns".into(),
            json!(job.cpu.kernel_helpers_ns),
        );
    }
    // A rate-limited job's response time from each I/O's scheduled start
    // (fio's clat_ns and lat_ns count from when the I/O really started).
    let response: Map<String, Value> = DIRECTIONS
        .iter()
        .filter_map(|&dir| {
            let h = stats::dir_stats(job, dir).response.as_ref()?;
            let pcts = stats::percentiles_at(h, &job.spec.percentile_list);
            Some((
                stats::dir_name(dir).to_string(),
                lat_value(&LatStats::of(h), &pcts),
            ))
        })
        .collect();
    if !response.is_empty() {
        m.insert("response_ns".into(), Value::Object(response));
    }
    if job.total_ios() > 0 {
        let cpu_ns = job.cpu.user_ns + job.cpu.system_ns;
        m.insert(
            "cpu_ns_per_io".into(),
            float(cpu_ns as f64 / job.total_ios() as f64),
        );
    }
    // What the I/O buffers really were: huge pages change what a large
    // direct I/O looks like to the device (see the engine's `buffers`).
    if let Some(b) = &job.buffers {
        m.insert(
            "buffers".into(),
            json!({
                "iomem": b.iomem.fio_name(),
                "memory": b.kind.name(),
                "bytes": b.bytes,
                "huge_page_bytes": b.huge_page_bytes,
            }),
        );
    }
    m.insert("series".into(), Value::Array(series));
    if let Some(error) = &job.error {
        m.insert("error".into(), json!(error));
    }
    if let Some(f) = &job.failure {
        m.insert("failure".into(), failure_value(f));
    }
    Value::Object(m)
}

/// diskbench's own facts about the run, after fio's `jobs`.
fn run_extras(result: &RunResult) -> Value {
    let mut m = Map::new();
    m.insert("schema_version".into(), json!(result.schema_version));
    m.insert("version".into(), json!(result.tool_version));
    m.insert("command_line".into(), json!(result.command_line));
    m.insert("started_unix_ms".into(), json!(result.started_unix_ms));
    m.insert("finished_unix_ms".into(), json!(result.finished_unix_ms));
    m.insert(
        "host".into(),
        serde_json::to_value(&result.host).unwrap_or(Value::Null),
    );
    m.insert(
        "targets".into(),
        serde_json::to_value(&result.targets).unwrap_or(Value::Null),
    );
    if !result.disk_util.is_empty() {
        let disks = result.disk_util.iter().map(disk_extras).collect();
        m.insert("disk_util".into(), Value::Array(disks));
    }
    let warnings: Vec<Value> = result.warnings.iter().map(warning_value).collect();
    m.insert("warnings".into(), Value::Array(warnings));
    m.insert("interrupted".into(), json!(result.interrupted));
    if let Some(f) = &result.failure {
        m.insert("failure".into(), failure_value(f));
    }
    if let Some(v) = &result.volume {
        m.insert(
            "volume".into(),
            serde_json::to_value(v).unwrap_or(Value::Null),
        );
    }
    Value::Object(m)
}

/// The JSON error object: `{"kind": "usage"|"runtime"|"interrupted",
/// "message", and "job", "op", "path", "offset", "len", "errno" when
/// known}`. Written for a run's `diskbench.failure` and by [`error_json`],
/// so a failure reads the same before and after anything ran.
pub fn failure_value(f: &Failure) -> Value {
    serde_json::to_value(f).unwrap_or_else(|_| json!({"message": f.message}))
}

/// `{"kind", "message" (the text users read), ...the warning's own fields}`.
fn warning_value(w: &Warning) -> Value {
    let mut m = Map::new();
    let fields = match serde_json::to_value(w) {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    };
    m.insert(
        "kind".into(),
        fields.get("kind").cloned().unwrap_or(Value::Null),
    );
    m.insert("message".into(), json!(w.to_string()));
    for (k, v) in fields {
        if k != "kind" {
            m.insert(k, v);
        }
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests;
