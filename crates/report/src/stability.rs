//! How precise each headline figure is, for a run whose tests stopped once
//! stable (`model::Stability`): the mean of the test's short slices (the
//! rate of its whole slices, which the test stopped on) with its 95%
//! interval (batch means of neighbouring slices, then the studentized
//! bootstrap: no independence of single slices nor normality assumed),
//! and when the test stopped. The headline figure itself stays the whole measured
//! phase's rate, as in every other output, partial last slice included, so
//! it and the slices' mean differ a little (49356 against 48289): the line
//! says which figure the interval is of. The JSON carries the same
//! intervals in each job's `diskbench.stability`.

use crate::table::headline_figures;
use analysis::stats::{series_mean_interval, SeriesInterval};
use model::{RunResult, Stability};

/// The interval a job's stop judged: the mean rate of its whole slices
/// (I/Os or bytes per second) with its 95% interval; `None` without slices
/// or with too few uncorrelated ones.
pub fn job_interval(st: &Stability, of: Rate) -> Option<SeriesInterval> {
    let counts = match of {
        Rate::Iops => &st.slice_ios,
        Rate::Bytes => &st.slice_bytes,
    };
    series_mean_interval(&st.rates(counts))
}

/// Which rate of the slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    Iops,
    Bytes,
}

/// A job's `diskbench.stability` in the JSON: the slices it judged and
/// the intervals it reached, each named as the interval of the slices'
/// mean rate (which is not the job's whole-phase figure: that one also
/// holds the partial last slice).
pub fn stability_json(st: &Stability) -> serde_json::Value {
    let mut doc = serde_json::json!(st);
    let interval = |of: Rate| match job_interval(st, of) {
        Some(iv) => serde_json::json!({
            "of": "mean rate of the whole slices, per second",
            "mean": iv.mean,
            "low": iv.low,
            "high": iv.high,
            "half_width_pct": iv.half_width_pct(),
            "confidence": analysis::stats::CONFIDENCE,
            "batch": iv.batch,
            "batches": iv.batches,
        }),
        None => serde_json::Value::Null,
    };
    if let Some(map) = doc.as_object_mut() {
        map.insert("iops_interval".into(), interval(Rate::Iops));
        map.insert("bytes_per_sec_interval".into(), interval(Rate::Bytes));
    }
    doc
}

/// One line per headline figure whose job carries slices; empty otherwise.
/// The figure printed first is the headline's (the whole measured phase);
/// the header says once that the interval is of the slices' mean, so no
/// reader takes it for the interval of the headline figure, and a last
/// line says once how to know better a figure still wandering at its cap.
pub fn headline_intervals(result: &RunResult) -> String {
    let h = headline_figures(result);
    let figures = [
        ("IOPS", h.iops.as_ref(), 1.0, 0),
        ("Read MB/s", h.read_mb_per_sec.as_ref(), 1e6, 1),
        ("Write MB/s", h.write_mb_per_sec.as_ref(), 1e6, 1),
    ];
    let mut out = String::new();
    let mut slice_ms = None;
    let mut capped = None;
    for (label, figure, unit, decimals) in figures {
        let Some(f) = figure else { continue };
        let Some(job) = result.jobs.iter().find(|j| j.name == f.job) else {
            continue;
        };
        let Some(st) = &job.stability else { continue };
        slice_ms.get_or_insert(st.slice_ns / 1_000_000);
        let rate = match label {
            "IOPS" => Rate::Iops,
            _ => Rate::Bytes,
        };
        let n = match rate {
            Rate::Iops => st.slice_ios.len(),
            Rate::Bytes => st.slice_bytes.len(),
        };
        let secs = job.runtime_ns as f64 / 1e9;
        let how = match st.stopped_early {
            true => format!("stopped when within {}% at {secs:.1} s", st.half_width_pct),
            false => {
                capped.get_or_insert(st.half_width_pct);
                format!(
                    "not within {}% by its cap of {secs:.1} s",
                    st.half_width_pct
                )
            }
        };
        let interval = match job_interval(st, rate) {
            Some(iv) => {
                let batches = match iv.batch {
                    1 => String::new(),
                    b => format!(", in {} batches of {b}", iv.batches),
                };
                format!(
                    "95% CI {:.decimals$}-{:.decimals$} (±{:.1}%) of {:.decimals$} ({n} slices{batches})",
                    iv.low / unit,
                    iv.high / unit,
                    iv.half_width_pct(),
                    iv.mean / unit,
                )
            }
            None => format!("too few uncorrelated slices for a 95% CI ({n} slices)"),
        };
        out.push_str(&format!(
            "  {label:<10} {:.decimals$}: {interval}; {how}\n",
            f.value,
        ));
    }
    if let Some(pct) = capped {
        out.push_str(&format!(
            "  To know a figure not within {pct}% by its cap better, measure longer: --runtime 30s\n"
        ));
    }
    match slice_ms {
        None => out,
        Some(ms) => format!(
            "How precise (each figure is its whole measured phase's; the interval, of the mean of \
             its test's {ms} ms slices):\n{out}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::dir;
    use model::{JobResult, JobSpec, Stability};

    /// A run whose headline IOPS job stopped early after `slice_ios` (4 KiB
    /// I/Os in 250 ms slices).
    fn stopped_after(slice_ios: Vec<u64>) -> RunResult {
        let ns = slice_ios.len() as u64 * 250_000_000;
        let ios: u64 = slice_ios.iter().sum();
        let job = JobResult {
            read: dir(&[(100_000, ios)], 4096, ns, None),
            runtime_ns: ns,
            stability: Some(Stability {
                half_width_pct: 3.0,
                slice_ns: 250_000_000,
                slice_bytes: slice_ios.iter().map(|n| n * 4096).collect(),
                slice_ios,
                stopped_early: true,
            }),
            ..JobResult::empty(&JobSpec::new(crate::HEADLINE_IOPS_JOB), 0, 1)
        };
        RunResult {
            jobs: vec![job],
            ..Default::default()
        }
    }

    #[test]
    fn a_stable_test_gets_its_interval_and_when_it_stopped() {
        let result = stopped_after(vec![1250, 1240, 1260, 1250, 1250, 1255, 1245, 1250]);
        let text = headline_intervals(&result);
        assert!(text.contains("IOPS       5000: 95% CI 49"), "{text}");
        assert!(text.contains(") of 5000 (8 slices);"), "{text}");
        assert!(text.contains("stopped when within 3% at 2.0 s"), "{text}");
        let doc: serde_json::Value = serde_json::from_str(&crate::json::render(&result)).unwrap();
        let st = &doc["jobs"][0]["diskbench"]["stability"];
        assert_eq!(st["slice_ios"][0], 1250, "{doc}");
        assert_eq!(st["stopped_early"], true);
        let plain = RunResult {
            jobs: vec![JobResult::empty(&JobSpec::new("x"), 0, 1)],
            ..Default::default()
        };
        assert_eq!(headline_intervals(&plain), "");
    }

    /// A limited disk catching up after each slow slice: the interval is
    /// that of pairs, and says so.
    #[test]
    fn alternating_slices_are_judged_in_pairs() {
        let result = stopped_after((0..12).map(|i| [1000, 1500][i % 2]).collect());
        let text = headline_intervals(&result);
        assert!(
            text.contains("95% CI 5000-5000 (±0.0%) of 5000 (12 slices, in 6 batches of 2)"),
            "{text}"
        );
    }

    /// The headline figure holds the partial last slice, the interval is
    /// the whole slices' mean's: the line names both, and the JSON's
    /// `diskbench.stability` carries the interval the text prints.
    #[test]
    fn the_interval_is_named_as_the_slices_mean_and_kept_in_the_json() {
        let mut result = stopped_after(vec![1250, 1240, 1260, 1250, 1250, 1255, 1245, 1250]);
        // A partial slice of 100 ms at a faster rate after the whole ones.
        let job = &mut result.jobs[0];
        job.runtime_ns += 100_000_000;
        job.read.ios += 600;
        job.read.bytes += 600 * 4096;
        let headline = headline_figures(&result).iops.unwrap().value;
        let st = result.jobs[0].stability.clone().unwrap();
        let iv = job_interval(&st, Rate::Iops).unwrap();
        assert!((headline - iv.mean).abs() > 1.0, "{headline} {iv:?}");
        let text = headline_intervals(&result);
        let line = format!(
            "IOPS       {headline:.0}: 95% CI {:.0}-{:.0} (±{:.1}%) of {:.0} (8 slices);",
            iv.low,
            iv.high,
            iv.half_width_pct(),
            iv.mean
        );
        assert!(text.contains(&line), "{line}\n{text}");
        let doc: serde_json::Value = serde_json::from_str(&crate::json::render(&result)).unwrap();
        let json = &doc["jobs"][0]["diskbench"]["stability"]["iops_interval"];
        assert_eq!(json["low"].as_f64(), Some(iv.low), "{doc}");
        assert_eq!(json["high"].as_f64(), Some(iv.high), "{doc}");
        assert_eq!(json["mean"].as_f64(), Some(iv.mean), "{doc}");
        let bytes = &doc["jobs"][0]["diskbench"]["stability"]["bytes_per_sec_interval"];
        let biv = job_interval(&st, Rate::Bytes).unwrap();
        assert_eq!(bytes["high"].as_f64(), Some(biv.high), "{doc}");
    }

    /// A test still wandering at its cap: said, with how to know it better.
    #[test]
    fn a_test_stopped_at_its_cap_says_how_to_know_it_better() {
        let mut result = stopped_after(vec![900, 1400, 1000, 1300, 800, 1500, 1100, 1200]);
        result.jobs[0].stability.as_mut().unwrap().stopped_early = false;
        let text = headline_intervals(&result);
        assert!(text.contains("not within 3% by its cap of 2.0 s"), "{text}");
        assert!(text.contains("measure longer: --runtime 30s"), "{text}");
        // What a slice is and how to know better are said once, whatever
        // the number of figures.
        assert!(text.starts_with("How precise (each figure is its whole measured phase's; the interval, of the mean of its test's 250 ms slices):\n"), "{text}");
        assert_eq!(text.matches("measure longer").count(), 1, "{text}");
        assert_eq!(text.matches("ms slices").count(), 1, "{text}");
    }
}
