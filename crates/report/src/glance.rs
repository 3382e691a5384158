//! A run's warnings and checks read at a glance: each kind said once, on one
//! line of at most 160 characters naming the tests it fires on, instead of
//! one long line per test that repeats the same explanation seven times.
//! The long form (each test's whole text: what it means, why, the fix) is
//! printed under its line when asked (`--explain`), and the JSON and the
//! history keep every warning in full, per test, whatever is printed.

use crate::sanity::{self, Verdict};
use crate::subjects::{fit, LINE_MAX};
use model::units::format_bytes_binary as bytes;
use model::{RunResult, Warning};

/// One kind of warning or check, said once.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The warning's kind (`device_shared`) or the check's (`small-data-set`).
    pub kind: String,
    /// The line at a glance: `warning: ...` or `check: ...`.
    pub line: String,
    /// Each test's whole text, for `--explain`.
    pub full: Vec<String>,
}

/// The findings of a run: `warnings` (the runner's, each kind once) then
/// the command's checks (`verdicts`, each kind once) but those of the
/// `unsaid` kinds. The runner's short-run warning is left out of a test the
/// command found too short to trust (said or not): one thing, said once.
pub fn findings(
    result: &RunResult,
    warnings: &[&Warning],
    verdicts: &[Verdict],
    unsaid: &[&str],
) -> Vec<Finding> {
    let of_all = sanity::distinct_jobs(result);
    let too_short = |job: &str| {
        verdicts
            .iter()
            .any(|v| v.kind == sanity::TOO_SHORT && v.job == job)
    };
    let warnings: Vec<&Warning> = warnings
        .iter()
        .copied()
        .filter(|w| !matches!(w, Warning::ShortRun { job, .. } if too_short(job)))
        .collect();
    let verdicts: Vec<Verdict> = verdicts
        .iter()
        .filter(|v| !unsaid.contains(&v.kind))
        .cloned()
        .collect();
    let mut kinds: Vec<String> = Vec::new();
    for w in &warnings {
        let kind = w.kind_name();
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    let mut out: Vec<Finding> = kinds
        .into_iter()
        .map(|kind| {
            let group: Vec<&Warning> = warnings
                .iter()
                .copied()
                .filter(|w| w.kind_name() == kind)
                .collect();
            Finding {
                line: warning_line(&group, of_all),
                full: group.iter().map(|w| w.to_string()).collect(),
                kind,
            }
        })
        .collect();
    out.extend(of_checks(&verdicts, of_all));
    out
}

/// A command's checks (`report::sanity`'s verdicts), each kind once,
/// naming the tests (or a sweep's points) it fires on, of `of_all`.
pub fn of_checks(verdicts: &[Verdict], of_all: usize) -> Vec<Finding> {
    sanity::summaries(verdicts, of_all)
        .into_iter()
        .map(|s| Finding {
            kind: s.kind.to_string(),
            line: s.line,
            full: verdicts
                .iter()
                .filter(|v| v.kind == s.kind)
                .map(|v| v.text.clone())
                .collect(),
        })
        .collect()
}

/// A kept run's warnings and checks as `run` said them, each kind once
/// (`diskbench show`). The checks are made again from the kept figures,
/// since they are a function of them, each for the tests the run kept it
/// for; a too-short check keeps the fix the run gave (its text's last
/// clause). A check the figures do not give again (an imported one) and a
/// warning about the target are said whole. The kinds in `unsaid` (a
/// quick run's too-short) are left out, as the run left them out.
pub fn said_again(result: &RunResult, unsaid: &[&str]) -> String {
    let kept: Vec<(&str, &str, &str)> = result
        .warnings
        .iter()
        .filter_map(|w| match w {
            Warning::Check {
                name,
                job: Some(job),
                text,
            } => Some((name.as_str(), job.as_str(), text.as_str())),
            _ => None,
        })
        .collect();
    let is_kept = |v: &Verdict| kept.iter().any(|(k, j, _)| *k == v.kind && *j == v.job);
    let fix = kept
        .iter()
        .find(|(k, _, _)| *k == sanity::TOO_SHORT)
        .and_then(|(_, _, text)| text.rsplit_once("; "))
        .map_or("", |(_, fix)| fix);
    let mut verdicts = sanity::too_short(result, fix);
    verdicts.extend(sanity::verdicts(result));
    verdicts.retain(is_kept);
    let made_again = |w: &Warning| match w {
        Warning::Check {
            name,
            job: Some(job),
            ..
        } => verdicts.iter().any(|v| v.kind == name && v.job == *job),
        _ => false,
    };
    let warnings: Vec<&Warning> = result.warnings.iter().filter(|w| !made_again(w)).collect();
    render(&findings(result, &warnings, &verdicts, unsaid), false)
}

/// The findings' lines; with `explain`, each test's whole text under its
/// line, indented.
pub fn render(findings: &[Finding], explain: bool) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&f.line);
        out.push('\n');
        if explain {
            for text in &f.full {
                out.push_str("  ");
                out.push_str(text);
                out.push('\n');
            }
        }
    }
    out
}

/// The largest of `values`, or 0.
fn most(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, f64::max)
}

/// One kind of the runner's warnings on one line: the tests it fires on,
/// then what it means in short and the fix; the long text is each
/// warning's `Display`.
fn warning_line(group: &[&Warning], of_all: usize) -> String {
    let names: Vec<&str> = group.iter().filter_map(|w| w.job()).collect();
    let Some(first) = group.first() else {
        return String::new();
    };
    let what = match first {
        Warning::CpuBound { .. } => {
            let pct = most(group.iter().map(|w| match w {
                Warning::CpuBound { cpu_pct, .. } => *cpu_pct,
                _ => 0.0,
            }));
            format!(
                "a worker was on the CPU up to {pct:.0}% of the time: the benchmark, not the \
                 disk, was the limit; raise numjobs"
            )
        }
        Warning::DataSetFitsInCache { ram_bytes, .. } => format!(
            "buffered I/O on a data set the page cache holds ({} of RAM): figures of memory; \
             use direct=1",
            bytes(*ram_bytes)
        ),
        Warning::EngineFallback { wanted, used, .. } => {
            format!("ioengine={wanted} is not available here; {used} ran instead")
        }
        Warning::SparseFile { .. } => "a file to read has holes, which never reach the disk; \
             let diskbench create the file, or fill it first"
            .to_string(),
        Warning::CacheNotDropped { .. } => {
            "the page cache could not be dropped: buffered reads may come from memory".to_string()
        }
        Warning::ShortRun { .. } => {
            let ms = group.iter().filter_map(|w| match w {
                Warning::ShortRun { runtime_ms, .. } => Some(*runtime_ms),
                _ => None,
            });
            format!(
                "measured for only {} ms or less: noisy figures; use a larger size or \
                 runtime=, time_based=1",
                ms.max().unwrap_or(0)
            )
        }
        Warning::FaultsInjected { .. } => "faults were injected on purpose: this run tests error \
             handling, its figures are not the disk's"
            .to_string(),
        Warning::FileKept { .. } => {
            "unlink=1 left files diskbench did not create; delete them yourself if you mean to"
                .to_string()
        }
        Warning::DepthNotKept { iodepth, .. } => {
            let depth = group.iter().filter_map(|w| match w {
                Warning::DepthNotKept { mean_depth, .. } => Some(*mean_depth),
                _ => None,
            });
            format!(
                "the queue was kept at QD {:.1} or less of {iodepth} asked: figures of a \
                 shallower queue; raise numjobs or batch",
                most(depth)
            )
        }
        Warning::RequestsSplit {
            device,
            asked_bytes,
            received_bytes,
            ..
        } => format!(
            "{device} got {} requests for I/Os of {}: the kernel split them, figures of the \
             smaller size; use a smaller bs",
            bytes(*received_bytes),
            bytes(*asked_bytes)
        ),
        Warning::DeviceShared { device, .. } => {
            let pct = most(group.iter().map(|w| match w {
                Warning::DeviceShared {
                    requests,
                    bytes,
                    job_ios,
                    job_bytes,
                    ..
                } => match requests > job_ios {
                    true => 100.0 * requests.saturating_sub(*job_ios) as f64 / *requests as f64,
                    false => {
                        100.0 * bytes.saturating_sub(*job_bytes) as f64 / (*bytes).max(1) as f64
                    }
                },
                _ => 0.0,
            }));
            format!(
                "{device} was shared, up to {pct:.0}% of its work another's: figures may be low; \
                 measure on an idle device"
            )
        }
        Warning::DepthCapped { engine, .. } => format!(
            "ioengine={engine} does one I/O at a time: the figures are QD1's; use io_uring or \
             libaio for a deeper queue"
        ),
        // Said whole: a note of the job file, a target, or a check of a
        // kind this version does not know (an imported run's).
        Warning::NotALocalDisk { .. } | Warning::Approximation { .. } | Warning::Check { .. }
            if group.len() == 1 =>
        {
            return format!("warning: {first}");
        }
        Warning::NotALocalDisk { .. } | Warning::Approximation { .. } | Warning::Check { .. } => {
            format!("{} more like it (--explain says each)", group.len() - 1)
        }
    };
    match (names.is_empty(), first) {
        (
            _,
            Warning::NotALocalDisk { .. } | Warning::Approximation { .. } | Warning::Check { .. },
        ) => {
            format!("warning: {first}; {what}")
        }
        (true, _) => format!("warning: {what}"),
        (false, _) => fit(&names, of_all, LINE_MAX, |tests| {
            format!("warning: {tests}: {what}")
        }),
    }
}

#[cfg(test)]
mod tests;
