//! The result as dbench prints it (its table, with a p99 column added at
//! the end so scripts reading dbench's four columns still work, and its
//! `Throughput` line), and as JSON.

use super::replay::Summary;
use serde_json::{json, Value};

/// dbench's table and summary line:
///
/// ```text
///  Operation      Count    AvgLat    MaxLat    P99Lat
///  --------------------------------------------------
///  NTCreateX      68095     0.028    23.074     0.112
///
/// Throughput 198.929 MB/sec  1 clients  1 procs  max_latency=100.797 ms
/// ```
pub fn text(s: &Summary) -> String {
    let ms = |ns: f64| ns / 1e6;
    let mut out = format!(
        "\n {:<9} {:>10} {:>9} {:>9} {:>9}\n {}\n",
        "Operation",
        "Count",
        "AvgLat",
        "MaxLat",
        "P99Lat",
        "-".repeat(50)
    );
    for (kind, h) in &s.ops {
        out.push_str(&format!(
            " {:<9} {:>10} {:>9.3} {:>9.3} {:>9.3}\n",
            kind.name(),
            h.count(),
            ms(h.mean()),
            ms(h.max() as f64),
            ms(h.percentile(99.0) as f64)
        ));
    }
    out.push_str(&format!(
        "\nThroughput {} MB/sec  {} clients  {} procs  max_latency={:.3} ms\n",
        g6(s.throughput_mb_per_sec()),
        s.clients,
        s.clients,
        ms(s.max_latency_ns() as f64)
    ));
    out
}

/// The result as one JSON object (units in the key names).
pub fn json(s: &Summary, tool: &str) -> Value {
    let secs = s.duration.as_secs_f64();
    let wall = (s.duration + s.warmup).as_secs_f64().max(1e-9);
    let operations: Vec<Value> = s
        .ops
        .iter()
        .map(|(kind, h)| {
            json!({
                "name": kind.name(),
                "count": h.count(),
                "mean_ns": h.mean().round() as u64,
                "p99_ns": h.percentile(99.0),
                "max_ns": h.max(),
            })
        })
        .collect();
    let samples: Vec<Value> = s
        .samples
        .iter()
        .map(|m| {
            json!({
                "client": m.client,
                "line": m.line,
                "operation": m.keyword,
                "expected": m.expected.as_str(),
                "got": m.got.as_str(),
                "detail": m.detail,
            })
        })
        .collect();
    json!({
        "tool_version": tool,
        "workload": "fileserver",
        "loadfile": s.load,
        "throughput_mb_per_sec": s.throughput_mb_per_sec(),
        "throughput_bytes_per_sec": if secs > 0.0 { s.bytes() as f64 / secs } else { 0.0 },
        "clients": s.clients,
        "procs": s.clients,
        "duration_s": secs,
        "warmup_s": s.warmup.as_secs_f64(),
        "max_latency_ms": s.max_latency_ns() as f64 / 1e6,
        "bytes_read": s.bytes_read,
        "bytes_written": s.bytes_written,
        "loops": s.loops,
        "operations": operations,
        "status_mismatches": s.mismatches,
        "mismatch_samples": samples,
        "short_reads": s.short_reads,
        "usr_cpu": 100.0 * s.usr_ns as f64 / 1e9 / wall,
        "sys_cpu": 100.0 * s.sys_ns as f64 / 1e9 / wall,
        "interrupted": s.interrupted,
    })
}

/// C's `%g`: six significant digits, trailing zeros dropped (dbench's format).
pub fn g6(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_finite() {
            "0".into()
        } else {
            x.to_string()
        };
    }
    let exp = x.abs().log10().floor() as i32;
    if !(-4..6).contains(&exp) {
        let text = format!("{x:.5e}");
        let (mantissa, e) = text.split_once('e').unwrap_or((&text, "0"));
        let mantissa = trim_zeros(mantissa);
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (5 - exp).max(0) as usize;
    trim_zeros(&format!("{x:.decimals$}")).to_string()
}

fn trim_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::g6;

    #[test]
    fn g6_matches_c() {
        assert_eq!(g6(198.929_4), "198.929");
        assert_eq!(g6(7.698_21), "7.69821");
        assert_eq!(g6(1.9996), "1.9996");
        assert_eq!(g6(588.978), "588.978");
        assert_eq!(g6(2.0), "2");
        assert_eq!(g6(0.0), "0");
        assert_eq!(g6(1234567.0), "1.23457e+06");
        assert_eq!(g6(0.000_012_5), "1.25e-05");
    }
}
