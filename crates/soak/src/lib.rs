//! Soaks: the same jobs run again and again (`--runs N`, `--duration D`,
//! `--until-throttled`, `--until-steady`, `--ci PCT` on `run` and `fio`).
//! A cloud disk can be fast for twenty minutes and then lose most of its
//! speed (GCE's 20 GiB standard disk did in Brian Cunnie's 2018 benchmark of
//! cloud disks, "Benchmarking the Disk Speed of IaaSes"); one run reports the burst and
//! misleads, so a soak repeats the same jobs and keeps every run.
//!
//! This crate is the soak's reasoning, apart from running it: the checked
//! [`Plan`] and when it says to stop, each run's one-line summary, each
//! job's lowest, median and highest figures across the runs ([`spread`]),
//! and the soak's closing list in text, terse and JSON. The loop that
//! measures, prints and saves each run is the `diskbench` binary's; this
//! crate prints nothing and runs no I/O, so every rule here is tested on
//! made-up runs.

pub mod spread;

use model::SoakRef;
use report::soak::JobVerdict;
use runner::{RunError, RunOutcome};
use std::time::Duration;

/// Flags that mean nothing without others: a usage error that names the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error(
        "--max-duration bounds --until-throttled or --until-steady: add one, or use --duration D \
         for a soak of fixed length"
    )]
    MaxDurationAlone,
    #[error("--pause is the idle time between repeated runs: add --runs N or --duration D")]
    PauseAlone,
}

/// What ends a soak besides its number of runs and its duration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Until {
    Throttled,
    Steady,
    /// Every job's median IOPS within this percentage (95% interval half-width).
    Precise(f64),
}

/// `--ci` without `--max-rounds`: 20 runs give an interval of the median
/// between the 6th and 15th values, enough for a few percent on a quiet disk.
pub const DEFAULT_MAX_CI_RUNS: u32 = 20;

/// `--until-throttled` stops after a day at most unless told otherwise.
pub const DEFAULT_MAX_THROTTLED: Duration = Duration::from_secs(24 * 3600);
/// SNIA's PTS gives up on steady state after 25 rounds.
pub const DEFAULT_MAX_STEADY_RUNS: u32 = 25;

/// What the repetition flags ask for, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    pub runs: Option<u32>,
    pub duration: Option<Duration>,
    pub pause: Duration,
    pub until: Option<Until>,
    /// Idle this long after the runs and measure again (`--recovery-check`).
    pub recovery: Option<Duration>,
}

impl Plan {
    /// Whether another run follows `done` runs after `elapsed`: a run
    /// starts only while the duration, pause included, has not passed, and
    /// while what `--until-*` waits for has not come.
    pub fn more_after(
        &self,
        done: u32,
        elapsed: Duration,
        verdicts: &[JobVerdict],
        spreads: &[spread::JobSpread],
    ) -> bool {
        let arrived = match self.until {
            Some(Until::Throttled) => report::soak::throttled(verdicts),
            Some(Until::Steady) => report::soak::steady(verdicts),
            Some(Until::Precise(pct)) => spread::precise(spreads, pct),
            None => false,
        };
        !arrived
            && self.runs.is_none_or(|n| done < n)
            && self.duration.is_none_or(|d| elapsed + self.pause < d)
    }

    /// Says what an `--until-*` soak waited for and whether it came.
    pub fn until_outcome(
        &self,
        verdicts: &[JobVerdict],
        spreads: &[spread::JobSpread],
    ) -> Option<(bool, &'static str)> {
        match self.until? {
            Until::Throttled => Some((report::soak::throttled(verdicts), "a throttling cliff")),
            Until::Steady => Some((report::soak::steady(verdicts), "steady state")),
            Until::Precise(pct) => Some((
                spread::precise(spreads, pct),
                "the precision --ci asked for",
            )),
        }
    }
}

/// One run that just ended, for the command to print.
pub struct Finished<'a> {
    pub outcome: &'a RunOutcome,
    /// 1-based, and the planned number when `--runs` gave one.
    pub run: u32,
    pub of: Option<u32>,
    /// True for a single run and for the last run of a soak.
    pub last: bool,
    pub soak: Option<&'a SoakRef>,
    /// When the run started, from the start of the soak.
    pub at: Duration,
}

impl Finished<'_> {
    /// `run 3/30 at 0:12:34: IOPS 3634, Read 512.3 MB/s, Write 301.2 MB/s`;
    /// a figure the run has not is `n/a` without its unit (`Write n/a`).
    pub fn line(&self) -> String {
        let of = self.of.map(|n| format!("/{n}")).unwrap_or_default();
        let h = report::headline_figures(&self.outcome.result);
        let fig = |f: Option<report::HeadlineFigure>, decimals: usize, unit: &str| {
            f.map_or("n/a".to_string(), |f| {
                format!("{:.decimals$}{unit}", f.value)
            })
        };
        let mut line = format!(
            "run {}{of} at {}: IOPS {}, Read {}, Write {}",
            self.run,
            clock(self.at),
            fig(h.iops, 0, ""),
            fig(h.read_mb_per_sec, 1, " MB/s"),
            fig(h.write_mb_per_sec, 1, " MB/s")
        );
        match &self.outcome.failure {
            Some(RunError::Interrupted) => line.push_str(" (interrupted)"),
            Some(_) => line.push_str(" (failed)"),
            None => {}
        }
        line
    }
}

/// `H:MM:SS`.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// One line of the list printed at the end of a soak.
pub struct RunLine {
    pub id: Option<i64>,
    pub started_unix_ms: u64,
    pub line: String,
}

/// What a soak (or a single run) came to.
pub struct Summary {
    pub soak: Option<String>,
    pub runs: Vec<RunLine>,
    pub elapsed: Duration,
    /// Each job's cliff, steady state and recovery over the soak's runs.
    pub verdicts: Vec<JobVerdict>,
    /// Each job's min / median / max across the runs (the recovery run left out).
    pub spreads: Vec<spread::JobSpread>,
    /// What `--until-*` waited for and whether it came: (attained, what).
    pub until: Option<(bool, &'static str)>,
    /// Sentences about how the soak ended, for the text output.
    pub notes: Vec<String>,
    /// Each job's cliff over the runs against the declared volume's (`--volume`).
    pub volume_cliffs: Vec<model::volume::CliffVerdict>,
}

impl Summary {
    pub fn new(soak: Option<String>) -> Summary {
        Summary {
            soak,
            runs: Vec::new(),
            elapsed: Duration::ZERO,
            verdicts: Vec::new(),
            spreads: Vec::new(),
            until: None,
            notes: Vec::new(),
            volume_cliffs: Vec::new(),
        }
    }
}

/// After run `k` went well and was not the recovery run: whether another
/// run follows (`more`), or else the recovery run after a cliff.
pub fn next_step(
    plan: Option<Plan>,
    k: u32,
    elapsed: Duration,
    verdicts: &[JobVerdict],
    spreads: &[spread::JobSpread],
) -> (bool, bool) {
    let Some(p) = plan else {
        return (false, false);
    };
    let more = p.more_after(k, elapsed, verdicts, spreads);
    let recover = !more && p.recovery.is_some() && verdicts.iter().any(|v| v.cliff.detected);
    (more, recover)
}

/// The soak's closing figures: its time, the spread across runs, whether
/// `--until` came, and the notes on what was not done; `clean` when no
/// run failed and nothing stopped the soak.
pub fn finish(
    summary: &mut Summary,
    plan: Option<Plan>,
    verdicts: &[JobVerdict],
    spreads: &spread::SpreadTracker,
    elapsed: Duration,
    clean: bool,
) {
    summary.elapsed = elapsed;
    summary.spreads = spreads.spreads();
    summary.until = plan.and_then(|p| p.until_outcome(verdicts, &summary.spreads));
    if summary.verdicts.is_empty() {
        summary.verdicts = verdicts.to_vec();
    }
    if let Some(p) = &plan {
        if let Some((false, what)) = summary.until {
            summary.notes.push(format!(
                "{what} did not come within the limit ({})",
                limit_text(p)
            ));
        }
        let cliff = summary.verdicts.iter().any(|v| v.cliff.detected);
        if p.recovery.is_some() && !cliff && clean {
            summary
                .notes
                .push("no cliff was found, so there was nothing to recover from: --recovery-check skipped".into());
        }
    }
}

pub fn limit_text(p: &Plan) -> String {
    match (p.runs, p.duration) {
        (Some(n), Some(d)) => format!("{n} runs or {}", clock(d)),
        (Some(n), None) => format!("{n} runs"),
        (None, Some(d)) => clock(d),
        (None, None) => "none".into(),
    }
}

/// `20261122-143000-3f9a`: the start (UTC) sorts soaks by time, the random
/// suffix keeps two soaks started in the same second apart.
pub fn new_soak_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let stamp: String = dates::format_utc(dates::now_ms())
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | ':' => None,
            c => Some(c),
        })
        .collect();
    format!("{stamp}-{:04x}", h.finish() & 0xffff)
}

/// The list that ends a soak's text output: one line per run.
pub fn list_text(s: &Summary) -> String {
    let Some(id) = &s.soak else {
        return String::new();
    };
    let mut out = format!(
        "\nsoak {id}: {} run{} in {} (diskbench history --soak {id})\n",
        s.runs.len(),
        if s.runs.len() == 1 { "" } else { "s" },
        clock(s.elapsed)
    );
    for r in &s.runs {
        let saved =
            r.id.map_or("not saved".to_string(), |id| format!("history run {id}"));
        out.push_str(&format!(
            "  {} ({}, started {} UTC)\n",
            r.line,
            saved,
            dates::format_utc(r.started_unix_ms)
        ));
    }
    out.push_str(&spread::text(&s.spreads));
    if !s.verdicts.is_empty() {
        out.push_str("\nOver the runs:\n");
        out.push_str(&report::soak::text(&s.verdicts));
    }
    if let Some((true, what)) = s.until {
        out.push_str(&format!("Stopped: {what} came.\n"));
    }
    for note in &s.notes {
        out.push_str(&format!("Note: {note}.\n"));
    }
    for c in &s.volume_cliffs {
        out.push_str(&format!("Volume: {}: {}.\n", c.job, c.sentence));
    }
    out
}

/// The soak's summary for `--output-format=terse`, after the runs' terse
/// lines. fio's terse format has no soak, so these are diskbench's own
/// lines, semicolon-separated as fio's are, each starting with its kind and
/// the format's version (1); an empty field is "none":
///
/// - `diskbench-soak;1;ID;RUNS;ELAPSED_S;PLANNED_RUNS;DURATION_LIMIT_S;PAUSE_S;UNTIL;ATTAINED`
///   (`UNTIL` is what `--until-*` waited for, `ATTAINED` 1 or 0);
/// - per run, `diskbench-soak-run;1;N;HISTORY_ID;STARTED_UNIX_MS`;
/// - per job, `diskbench-soak-job;1;NAME;RUNS;CLIFF;CLIFF_AT_RUN;IOPS_BEFORE;IOPS_AFTER;DROP_PCT;STEADY`
///   (`CLIFF` 1 or 0; `STEADY` 1 or 0, empty with fewer runs than SNIA's window);
/// - per job, `diskbench-soak-spread;1;NAME;RUNS;IOPS_MIN;IOPS_MEDIAN;IOPS_MAX;MBPS_MIN;MBPS_MEDIAN;MBPS_MAX;P99_CLAT_US_MIN;P99_CLAT_US_MEDIAN;P99_CLAT_US_MAX`
///   (across the runs; MB = 10^6 bytes).
pub fn soak_terse(s: &Summary, plan: &Plan) -> String {
    let Some(id) = &s.soak else {
        return String::new();
    };
    let opt = |v: Option<String>| v.unwrap_or_default();
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    let mut out = format!(
        "diskbench-soak;1;{id};{};{:.3};{};{};{:.3};{};{}\n",
        s.runs.len(),
        s.elapsed.as_secs_f64(),
        opt(plan.runs.map(|n| n.to_string())),
        opt(plan.duration.map(|d| format!("{:.3}", d.as_secs_f64()))),
        plan.pause.as_secs_f64(),
        opt(s.until.map(|(_, what)| what.to_string())),
        opt(s.until.map(|(attained, _)| flag(attained))),
    );
    for (n, r) in s.runs.iter().enumerate() {
        out.push_str(&format!(
            "diskbench-soak-run;1;{};{};{}\n",
            n + 1,
            opt(r.id.map(|id| id.to_string())),
            r.started_unix_ms
        ));
    }
    for v in &s.verdicts {
        let c = &v.cliff;
        out.push_str(&format!(
            "diskbench-soak-job;1;{};{};{};{};{:.0};{:.0};{:.1};{}\n",
            v.name,
            v.runs,
            flag(c.detected),
            opt(c.at_run.filter(|_| c.detected).map(|r| r.to_string())),
            c.before_iops,
            c.after_iops,
            c.drop_pct,
            opt(v.steady.as_ref().map(|st| flag(st.attained))),
        ));
    }
    for sp in &s.spreads {
        out.push_str(&spread::terse(sp));
    }
    out
}

/// The JSON of a soak: every run's own document, in order, under `runs`.
pub fn soak_json(s: &Summary, plan: &Plan, docs: &[String]) -> String {
    let runs: Vec<serde_json::Value> = docs
        .iter()
        .map(|d| serde_json::from_str(d).unwrap_or_else(|_| serde_json::Value::String(d.clone())))
        .collect();
    let ids: Vec<Option<i64>> = s.runs.iter().map(|r| r.id).collect();
    let mut jobs = report::soak::to_json(&s.verdicts);
    for job in jobs.as_array_mut().into_iter().flatten() {
        let sp = s.spreads.iter().find(|sp| job["name"] == sp.name.as_str());
        if let Some(sp) = sp {
            job["across_runs"] = spread::to_json(sp);
        }
    }
    let doc = serde_json::json!({
        "soak": {
            "id": s.soak,
            "runs": runs.len(),
            "planned_runs": plan.runs,
            "duration_limit_s": plan.duration.map(|d| d.as_secs_f64()),
            "pause_s": plan.pause.as_secs_f64(),
            "elapsed_s": s.elapsed.as_secs_f64(),
            "history_ids": ids,
            "until": s.until.map(|(attained, what)| serde_json::json!({
                "waited_for": what,
                "attained": attained,
            })),
            "recovery_check_s": plan.recovery.map(|d| d.as_secs_f64()),
            "jobs": jobs,
            "volume_cliffs": s.volume_cliffs,
        },
        "runs": runs,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_says_when_to_stop() {
        let s = Duration::from_secs;
        let none: Vec<JobVerdict> = Vec::new();
        let p = Plan {
            runs: Some(3),
            duration: None,
            pause: Duration::ZERO,
            until: None,
            recovery: None,
        };
        assert!(p.more_after(2, s(100), &none, &[]) && !p.more_after(3, s(0), &none, &[]));
        let p = Plan {
            runs: None,
            duration: Some(s(3)),
            pause: Duration::from_millis(200),
            ..p
        };
        assert!(p.more_after(9, s(2), &none, &[]));
        assert!(
            !p.more_after(1, Duration::from_millis(2900), &none, &[]),
            "the pause counts"
        );
        let both = Plan { runs: Some(2), ..p };
        assert!(!both.more_after(2, s(0), &none, &[]));
    }

    #[test]
    fn soak_ids_are_a_time_and_a_random_suffix() {
        let (a, b) = (new_soak_id(), new_soak_id());
        assert_eq!(a.len(), "20261122-143000-3f9a".len(), "{a}");
        assert!(a.as_bytes()[8] == b'-' && a.as_bytes()[15] == b'-', "{a}");
        assert!(a[..8].bytes().all(|c| c.is_ascii_digit()), "{a}");
        assert!(b[16..].bytes().all(|c| c.is_ascii_hexdigit()), "{b}");
    }
}
