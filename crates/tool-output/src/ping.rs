//! ioping's output, as `diskbench ping` prints it: the per-request lines,
//! the summary block (`--- T ioping statistics ---`, `requests
//! completed`, `generated`, `min/avg/max/mdev`) with the percentiles ioping
//! lacks and how the I/O was done, `-B`'s raw line, the JSON document, and
//! the requests as the fio-shaped job the history keeps.

use serde_json::{json, Map, Value};
use std::time::Duration;
use workloads::ping::{self, format_count, format_size, format_time, IoMode, Prepared};

/// The counted requests as the fio job they are: one worker at QD1, every
/// request's time in the latency histogram, and ioping's rates (per second
/// of I/O time, not of wall time with its `-i` pauses).
pub fn as_job(p: &Prepared, s: &ping::PingStats) -> model::JobResult {
    use model::RwMode;
    let rw = match (p.write, p.sequential) {
        (false, false) => RwMode::RandRead,
        (false, true) => RwMode::Read,
        (true, false) => RwMode::RandWrite,
        (true, true) => RwMode::Write,
    };
    let bs = model::units::format_size(p.size_bytes);
    let name = format!("ping-{}-{bs}", rw.fio_name());
    let mut spec = model::JobSpec::new(name.clone());
    spec.rw = rw;
    spec.bs_bytes = p.size_bytes;
    spec.direct = p.mode == IoMode::Direct;
    spec.size_bytes = Some(p.work_size_bytes);
    spec.offset_bytes = p.work_offset_bytes;
    spec.options = vec![
        ("rw".into(), rw.fio_name().into()),
        ("bs".into(), bs),
        ("iodepth".into(), "1".into()),
        ("direct".into(), u8::from(spec.direct).to_string()),
    ];
    let done = model::DirStats {
        ios: s.count(),
        bytes: s.count() * s.size_bytes,
        runtime_ns: s.sum_ns.min(u128::from(u64::MAX)) as u64,
        slat: None,
        clat: s.histogram.clone(),
        lat: s.histogram.clone(),
        response: None,
        prios: Vec::new(),
    };
    let (read, write) = match p.write {
        true => (model::DirStats::default(), done),
        false => (done, model::DirStats::default()),
    };
    model::JobResult {
        name,
        engine: model::EngineKind::Sync,
        runtime_ns: s.load_ns,
        read,
        write,
        ..model::JobResult::empty(&spec, 0, 1)
    }
}

/// `4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=1 time=136.3 us (warmup)`;
/// `head` is everything before the colon.
pub fn request_line(head: &str, r: &ping::Request) -> String {
    let notice = r
        .notice
        .map(|n| format!(" ({})", n.name()))
        .unwrap_or_default();
    format!(
        "{head}: request={} time={}{notice}",
        r.index,
        format_time(r.time_ns)
    )
}

fn mode_text(p: &Prepared) -> String {
    let how = match p.mode {
        IoMode::Direct => "direct I/O (O_DIRECT)",
        IoMode::NonCached if p.write => "buffered I/O, fdatasync after each write",
        IoMode::NonCached => "buffered I/O, cache dropped before each read",
        IoMode::Cached => "cached I/O (-C)",
    };
    let sync = if p.write && p.sync_writes && p.mode == IoMode::Direct {
        ", fdatasync after each write"
    } else {
        ""
    };
    let pattern = if p.sequential { "sequential" } else { "random" };
    let op = if p.write { "writes" } else { "reads" };
    format!(
        "{how}{sync}; {pattern} {} {op} in a {} working set",
        format_size(p.size_bytes),
        format_size(p.work_size_bytes)
    )
}

fn warmup_text(warmup: u64) -> String {
    match warmup {
        0 => "every request counted (-a 0)".to_string(),
        1 => "request 1 was a warmup, not counted, as in ioping".to_string(),
        n => format!("requests 1-{n} were warmups, not counted, as in ioping"),
    }
}

/// ioping's summary block, then the percentiles and how the I/O was done.
pub fn summary(p: &Prepared, s: &ping::PingStats) -> String {
    let h = &s.histogram;
    let verb = if p.write { "written" } else { "read" };
    let pcts = [50.0, 90.0, 99.0, 99.9].map(|q| format_time(h.percentile(q)));
    let generated_bytes = s.requests * s.size_bytes;
    format!(
        "\n--- {} ioping statistics ---\n\
         {} requests completed in {}, {} {verb}, {} iops, {}/s\n\
         generated {} requests in {}, {}, {} iops, {}/s\n\
         min/avg/max/mdev = {} / {} / {} / {}\n\
         p50/p90/p99/p99.9 = {}\n\
         ({}; {})\n",
        p.info,
        format_count(s.count()),
        format_time(s.sum_ns as u64),
        format_size(s.count() * s.size_bytes),
        format_count(s.iops() as u64),
        format_size(s.bytes_per_sec() as u64),
        format_count(s.requests),
        format_time(s.load_ns),
        format_size(generated_bytes),
        format_count(s.load_iops() as u64),
        format_size(s.load_bytes_per_sec() as u64),
        format_time(h.min()),
        format_time(h.mean() as u64),
        format_time(h.max()),
        format_time(h.stddev() as u64),
        pcts.join(" / "),
        mode_text(p),
        warmup_text(p.warmup)
    )
}

/// ioping -B: `count time iops bytes/s min avg max mdev requests wall_ns`.
pub fn raw_line(s: &ping::PingStats) -> String {
    let h = &s.histogram;
    format!(
        "{} {} {:.0} {:.0} {} {:.0} {} {:.0} {} {}",
        s.count(),
        s.sum_ns,
        s.iops(),
        s.bytes_per_sec(),
        h.min(),
        h.mean(),
        h.max(),
        h.stddev(),
        s.requests,
        s.load_ns
    )
}

pub fn request_json(r: &ping::Request) -> Value {
    json!({
        "request": r.index,
        "offset_bytes": r.offset_bytes,
        "time_ns": r.time_ns,
        "notice": r.notice.map(ping::Notice::name),
    })
}

pub fn document(p: &Prepared, s: &ping::PingStats) -> Value {
    let h = &s.histogram;
    let mut percentiles = Map::new();
    for q in model::DEFAULT_PERCENTILES {
        percentiles.insert(format!("{q:.6}"), json!(h.percentile(q)));
    }
    let interval_ns = p.interval.as_nanos() as u64;
    json!({
        "tool_version": runner::TOOL_VERSION,
        "target": {
            "path": p.info.shown,
            "filesystem": p.info.fstype,
            "device": p.info.device,
            "size_bytes": p.info.size_bytes,
        },
        "io": {
            "operation": if p.write { "write" } else { "read" },
            "mode": p.mode.name(),
            "fdatasync_after_write": p.write && p.sync_writes,
            "pattern": if p.sequential { "sequential" } else { "random" },
            "request_bytes": p.size_bytes,
            "work_offset_bytes": p.work_offset_bytes,
            "work_size_bytes": p.work_size_bytes,
            "interval_ns": interval_ns,
            "deadline_ns": p.deadline.map(|d: Duration| d.as_nanos() as u64),
            "warmup": p.warmup,
        },
        "summary": {
            "count": s.count(),
            "time_ns": s.sum_ns as u64,
            "bytes": s.count() * s.size_bytes,
            "min_ns": h.min(),
            "avg_ns": h.mean(),
            "max_ns": h.max(),
            "mdev_ns": h.stddev(),
            "iops": s.iops(),
            "bytes_per_sec": s.bytes_per_sec(),
            "percentiles": percentiles,
            "generated": {
                "count": s.requests,
                "time_ns": s.load_ns,
                "bytes": s.requests * s.size_bytes,
                "iops": s.load_iops(),
                "bytes_per_sec": s.load_bytes_per_sec(),
            },
        },
    })
}

/// Puts `requests` before `summary` (the order a reader expects).
pub fn reorder(doc: Value) -> Value {
    let Value::Object(mut map) = doc else {
        return doc;
    };
    let mut out = Map::new();
    for key in [
        "tool_version",
        "target",
        "io",
        "requests",
        "summary",
        "error",
        "failure",
    ] {
        if let Some(v) = map.remove(key) {
            out.insert(key.to_string(), v);
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warmups_are_said_as_ioping_counts_them() {
        assert_eq!(warmup_text(0), "every request counted (-a 0)");
        assert!(warmup_text(1).starts_with("request 1 was a warmup"));
        assert!(warmup_text(3).starts_with("requests 1-3 were warmups"));
    }

    #[test]
    fn documents_put_the_requests_before_the_summary() {
        let doc = json!({"summary": 1, "extra": 0, "requests": [], "tool_version": "x"});
        let keys: Vec<String> = match reorder(doc) {
            Value::Object(m) => m.keys().cloned().collect(),
            other => panic!("{other}"),
        };
        assert_eq!(keys, ["tool_version", "requests", "summary"]);
    }
}
