//! bonnie++'s file test (`-n`) output, as `diskbench meta` prints it: a
//! heading, the file-test block as bonnie++ prints it (so its readers find
//! their columns), diskbench's per-phase table with latency percentiles,
//! the notes that say how to read them, bonnie++ 2.0's CSV line, and the
//! JSON document.

use serde_json::{json, Value};
use std::fmt::Write as _;
use workloads::meta::{self, MetaOutcome, MetaResult, Phase, PhaseResult};

fn latency_json(r: &PhaseResult) -> Value {
    let h = &r.latency;
    json!({
        "min": h.min(),
        "mean": h.mean().round() as u64,
        "p50": h.percentile(50.0),
        "p90": h.percentile(90.0),
        "p99": h.percentile(99.0),
        "p99.9": h.percentile(99.9),
        "max": h.max(),
    })
}

pub fn to_json(outcome: &MetaOutcome) -> Value {
    let r = &outcome.result;
    let phases: Vec<Value> = r
        .phases
        .iter()
        .map(|p| {
            json!({
                "name": p.phase.name(),
                "files": p.files,
                "operations": p.latency.count(),
                "files_per_sec": p.files_per_sec(),
                "elapsed_ns": p.elapsed.as_nanos() as u64,
                "sync_ns": p.sync.as_nanos() as u64,
                "bytes": p.bytes,
                "cpu_pct": p.cpu_pct(),
                "too_short": p.too_short(),
                "passes": p.passes,
                "latency_ns": latency_json(p),
            })
        })
        .collect();
    let mut doc = json!({
        "tool": runner::TOOL_VERSION,
        "test": "meta",
        "directory": r.directory.display().to_string(),
        "num": r.spec.num,
        "files": r.files,
        "max_size_bytes": r.spec.max_bytes,
        "min_size_bytes": r.spec.min_bytes,
        "dirs": r.spec.dirs,
        "chunk_size_bytes": r.spec.chunk_bytes,
        "threads": r.threads,
        "seed": r.seed,
        "phase_time_ns": r.phase_time.map(|t| t.as_nanos() as u64),
        "phases": phases,
        "warnings": r.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
    });
    if let Some(e) = &outcome.failure {
        doc["error"] = json!(e.to_string());
        doc["failure"] = report::json::failure_value(&e.failure());
    }
    doc
}

/// Whether the bonnie++ block shows `+++++` for a phase: under 500 ms, as
/// bonnie++, unless `--runtime` asked for a figure from every phase (a
/// phase then falls short only when putting its files back took up its
/// budget; its figure is then shown, and starred in the table below).
fn hidden(r: &MetaResult, x: &PhaseResult) -> bool {
    x.too_short() && r.phase_time.is_none()
}

/// The phase, if it finished.
fn phase(r: &MetaResult, p: Phase) -> Option<&PhaseResult> {
    r.phases.iter().find(|x| x.phase == p)
}

/// NUM's own field as bonnie++ shows it: `16`, `16:4096:1024`, `16:4096:1024/16`.
fn size_label(r: &MetaResult) -> String {
    let mut s = num_of(r).to_string();
    if r.spec.max_bytes > 0 {
        let _ = write!(s, ":{}:{}", r.spec.max_bytes, r.spec.min_bytes);
    }
    if r.spec.dirs > 1 {
        let _ = write!(s, "/{}", r.spec.dirs);
    }
    s
}

/// NUM: files in units of 1024 (rounded up when --files set an exact count).
fn num_of(r: &MetaResult) -> u64 {
    r.files.div_ceil(meta::FILES_PER_NUM)
}

/// A latency as bonnie++ prints it: whole us under 100 ms, whole ms under 100 s.
fn bonnie_latency(ns: u64) -> String {
    let secs = ns as f64 / 1e9;
    if ns == 0 {
        String::new()
    } else if secs > 99.999_999 {
        format!("{}s", secs as u64)
    } else if secs > 0.099_999 {
        format!("{}ms", (secs * 1e3) as u64)
    } else {
        format!("{}us", (secs * 1e6) as u64)
    }
}

/// A time in the phase table, as the `run` table writes one (`86.3 us`).
fn short_ns(ns: u64) -> String {
    report::format::latency(ns as f64)
}

/// The text output: a heading, the file-test block as bonnie++ prints it
/// (so its readers find their columns), diskbench's per-phase table with
/// latency percentiles, and the notes that say how to read them.
pub fn text(r: &MetaResult, machine: &str) -> String {
    let mut out = String::new();
    let files_word = if r.spec.dirs > 1 {
        format!("{} directories", r.spec.dirs)
    } else {
        "one directory".into()
    };
    let sizes = if r.spec.max_bytes == 0 {
        "empty".to_string()
    } else {
        format!("{}..{} bytes", r.spec.min_bytes, r.spec.max_bytes)
    };
    let _ = writeln!(
        out,
        "diskbench meta: {} files ({sizes}) in {files_word}, {} thread{}, on {}",
        r.files,
        r.threads,
        if r.threads == 1 { "" } else { "s" },
        r.directory.display()
    );
    bonnie_block(&mut out, r, machine);
    phase_table(&mut out, r);
    notes(&mut out, r);
    out
}

/// bonnie++'s file-test block: files per second and %CPU per phase
/// (`+++++` where too short to trust), then each phase's worst latency.
fn bonnie_block(out: &mut String, r: &MetaResult, machine: &str) {
    out.push_str(
        "                    ------Sequential Create------ --------Random Create--------\n",
    );
    let _ = writeln!(
        out,
        "{:<19.19} -Create-- --Stat--- -Delete-- -Create-- --Stat--- -Delete--",
        machine
    );
    let label = match (r.spec.min_bytes > 0, r.spec.max_bytes > 0) {
        (true, _) => "files:max:min       ",
        (false, true) => "files:max           ",
        _ => "              files ",
    };
    let _ = writeln!(
        out,
        "{label} /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP"
    );
    let _ = write!(out, "{:>19}", size_label(r));
    for p in Phase::ALL {
        match phase(r, p) {
            None => out.push_str("          "),
            Some(x) if hidden(r, x) => out.push_str(" +++++ +++"),
            Some(x) => {
                let _ = write!(
                    out,
                    " {:>5} {:>3}",
                    x.files_per_sec() as u64,
                    x.cpu_pct() as u64
                );
            }
        }
    }
    out.push_str("\nLatency          ");
    for p in Phase::ALL {
        let max = phase(r, p).map_or(0, |x| x.latency.max());
        let _ = write!(out, " {:>9}", bonnie_latency(max));
    }
    out.push_str("\n\n");
}

/// One row per phase: files, rate, elapsed, the closing sync, CPU and the
/// latency percentiles (`*` marks a phase too short to trust).
fn phase_table(out: &mut String, r: &MetaResult) {
    let _ = writeln!(
        out,
        "{:<18} {:>8} {:>10} {:>9} {:>8} {:>5}  {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "phase",
        "files",
        "files/s",
        "elapsed",
        "sync",
        "%CPU",
        "min",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max"
    );
    for x in &r.phases {
        let h = &x.latency;
        let star = if x.too_short() { "*" } else { " " };
        let _ =
            writeln!(
            out,
            "{:<18} {:>8} {:>9.0}{star} {:>9} {:>8} {:>5.0}  {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
            x.phase.name(),
            x.files,
            x.files_per_sec(),
            format!("{:.3} s", x.elapsed.as_secs_f64()),
            if x.phase.syncs() { short_ns(x.sync.as_nanos() as u64) } else { "-".into() },
            x.cpu_pct(),
            short_ns(h.min()),
            short_ns(h.percentile(50.0)),
            short_ns(h.percentile(90.0)),
            short_ns(h.percentile(99.0)),
            short_ns(h.percentile(99.9)),
            short_ns(h.max()),
        );
    }
}

fn notes(out: &mut String, r: &MetaResult) {
    out.push_str(
        "latency is per file; files/s counts the whole phase, with the sync that ends create and \
         delete\n",
    );
    if let Some(t) = r.phase_time {
        let _ = writeln!(
            out,
            "each phase measured for {:.1} s (--runtime): repeated over the same files when done \
             sooner (files counts every pass), stopped there when not",
            t.as_secs_f64()
        );
    }
    if r.phases.iter().any(PhaseResult::too_short) {
        out.push_str(
            "* under 500 ms: too short to trust (bonnie++ prints +++++); use a larger -n or a \
             longer --runtime\n",
        );
    }
}

/// bonnie++ 2.0's CSV line (format 1.98) with the file test filled in and
/// the throughput test empty, field for field as bonnie++ prints it.
pub fn csv_line(r: &MetaResult, machine: &str) -> String {
    let mut f: Vec<String> = vec![
        "1.98".into(),
        "2.00a".into(),
        machine.replace(',', " "),
        r.threads.to_string(),
        r.seed.to_string(),
    ];
    f.extend(std::iter::repeat_n(String::new(), 16));
    f.push(num_of(r).to_string());
    let (max, min) = (r.spec.max_bytes, r.spec.min_bytes);
    f.push(if max > 0 {
        max.to_string()
    } else {
        String::new()
    });
    f.push(if max > 0 && min > 0 {
        min.to_string()
    } else {
        String::new()
    });
    // bonnie++ 2.00a never fills in file_chunk_size.
    f.push(String::new());
    f.push(if r.spec.dirs > 1 {
        r.spec.dirs.to_string()
    } else {
        String::new()
    });
    for p in Phase::ALL {
        match phase(r, p) {
            None => f.extend([String::new(), String::new()]),
            Some(x) if hidden(r, x) => f.extend(["+++++".into(), "+++".into()]),
            Some(x) => f.extend([
                (x.files_per_sec() as u64).to_string(),
                (x.cpu_pct() as u64).to_string(),
            ]),
        }
    }
    f.extend(std::iter::repeat_n(String::new(), 6));
    for p in Phase::ALL {
        f.push(bonnie_latency(phase(r, p).map_or(0, |x| x.latency.max())));
    }
    f.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_as_bonnie_prints_it_whole_us_then_ms_then_s() {
        assert_eq!(bonnie_latency(0), "", "no latency, no figure");
        assert_eq!(bonnie_latency(86_300), "86us");
        assert_eq!(bonnie_latency(99_000_000), "99000us");
        assert_eq!(bonnie_latency(250_000_000), "250ms");
        assert_eq!(bonnie_latency(120_000_000_000), "120s");
    }
}
