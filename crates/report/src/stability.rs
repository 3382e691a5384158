//! How precise each headline figure is, for a run whose tests stopped once
//! stable (`model::Stability`): the mean of the test's short slices (the
//! rate of its whole slices, which the test stopped on) with its 95%
//! interval (batch means of neighbouring slices, then the studentized
//! bootstrap: no independence of single slices nor normality assumed),
//! and when the test stopped. The headline figure itself stays the whole measured
//! phase's rate, as in every other output, partial last slice included.

use crate::table::headline_figures;
use analysis::stats::series_mean_interval;
use model::RunResult;

/// One line per headline figure whose job carries slices; empty otherwise.
pub fn headline_intervals(result: &RunResult) -> String {
    let h = headline_figures(result);
    let figures = [
        ("IOPS", h.iops.as_ref(), 1.0, 0),
        ("Read MB/s", h.read_mb_per_sec.as_ref(), 1e6, 1),
        ("Write MB/s", h.write_mb_per_sec.as_ref(), 1e6, 1),
    ];
    let mut out = String::new();
    for (label, figure, unit, decimals) in figures {
        let Some(f) = figure else { continue };
        let Some(job) = result.jobs.iter().find(|j| j.name == f.job) else {
            continue;
        };
        let Some(st) = &job.stability else { continue };
        let counts = match label {
            "IOPS" => &st.slice_ios,
            _ => &st.slice_bytes,
        };
        let rates: Vec<f64> = st.rates(counts).iter().map(|r| r / unit).collect();
        let n = rates.len();
        let how = match st.stopped_early {
            true => format!(
                "stopped when within {}% at {:.1} s",
                st.half_width_pct,
                job.runtime_ns as f64 / 1e9
            ),
            false => format!(
                "not within {}% by its cap of {:.1} s (to know it better, measure longer: \
                 --runtime 30s)",
                st.half_width_pct,
                job.runtime_ns as f64 / 1e9
            ),
        };
        let interval = match series_mean_interval(&rates) {
            Some(iv) => {
                let batches = match iv.batch {
                    1 => String::new(),
                    b => format!(" (in {} batches of {b})", iv.batches),
                };
                format!(
                    "{:.decimals$}{batches}, 95% CI {:.decimals$}-{:.decimals$} (±{:.1}%)",
                    iv.mean,
                    iv.low,
                    iv.high,
                    iv.half_width_pct()
                )
            }
            None => "too few uncorrelated slices for a 95% CI".to_string(),
        };
        out.push_str(&format!(
            "  {label:<10} {:.decimals$}: mean of {n} slices of {} ms {interval}; {how}\n",
            f.value,
            st.slice_ns / 1_000_000,
        ));
    }
    match out.is_empty() {
        true => out,
        false => format!("How precise (each test's rate in short slices):\n{out}"),
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
        assert!(
            text.contains("IOPS       5000: mean of 8 slices of 250 ms 5000, 95% CI 49"),
            "{text}"
        );
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
            text.contains(
                "mean of 12 slices of 250 ms 5000 (in 6 batches of 2), 95% CI 5000-5000 (±0.0%)"
            ),
            "{text}"
        );
    }

    /// A test still wandering at its cap: said, with how to know it better.
    #[test]
    fn a_test_stopped_at_its_cap_says_how_to_know_it_better() {
        let mut result = stopped_after(vec![900, 1400, 1000, 1300, 800, 1500, 1100, 1200]);
        result.jobs[0].stability.as_mut().unwrap().stopped_early = false;
        let text = headline_intervals(&result);
        assert!(text.contains("not within 3% by its cap of 2.0 s"), "{text}");
        assert!(text.contains("measure longer: --runtime 30s"), "{text}");
    }
}
