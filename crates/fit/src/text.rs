//! The verdicts in words, one line per requirement with its source under
//! it, then the workload's answer: "WAL fdatasync p99 2.43 ms, needs
//! < 10 ms: fit, 4.1x under the limit (9,566 syncs; 95% interval
//! 2.31-2.60 ms)"; "not fit: 3.1x the limit"; a figure without a limit
//! says who gives none.

use crate::catalogue::{Figure, Workload};
use crate::judge::{Judged, Report, Verdict};
use model::units::thousands;
use std::fmt::Write as _;

/// A latency in ns as milliseconds with three significant figures, or in
/// microseconds under 0.1 ms (a tmpfs's syncs would read "0.00 ms").
pub fn ms(ns: f64) -> String {
    let v = ns / 1e6;
    match v {
        v if v < 0.1 => format!("{:.1} us", ns / 1e3),
        v if v < 10.0 => format!("{v:.2} ms"),
        v if v < 100.0 => format!("{v:.1} ms"),
        v => format!("{v:.0} ms"),
    }
}

/// A figure in its unit.
pub fn figure(f: Figure, value: f64) -> String {
    match f {
        Figure::SyncP99 | Figure::CommitEstimate => ms(value),
        Figure::WriteOps => format!("{} ops/s", thousands(value.round() as u64)),
        Figure::WriteMbS => format!("{value:.1} MB/s"),
    }
}

fn limit_text(j: &Judged, limit: f64) -> String {
    // A limit as its source gives it: 10 ms, not 10.0 ms.
    let given = match limit.fract() == 0.0 && j.figure.larger_is_better() {
        true => figure(j.figure, limit),
        false if (limit / 1e6).fract() == 0.0 => format!("{} ms", limit / 1e6),
        false => figure(j.figure, limit),
    };
    match j.figure.larger_is_better() {
        true => format!("needs >= {given}"),
        false => format!("needs < {given}"),
    }
}

fn how_sure(j: &Judged) -> String {
    let Some(m) = &j.measured else {
        return String::new();
    };
    let count = match j.figure {
        Figure::SyncP99 | Figure::CommitEstimate => format!("{} syncs", thousands(m.count)),
        Figure::WriteOps | Figure::WriteMbS => format!("{} writes", thousands(m.count)),
    };
    match m.interval {
        None => format!(" ({count})"),
        Some(i) => match i.high {
            Some(h) => format!(" ({count}; 95% interval {}-{})", ms(i.low), ms(h)),
            None => format!(
                " ({count}; 95% interval from {}, unbounded above: too few syncs past the p99)",
                ms(i.low)
            ),
        },
    }
}

/// One requirement's line.
pub fn line(j: &Judged) -> String {
    let Some(m) = &j.measured else {
        return format!("{}: not measured (the check gave no such figure)", j.label);
    };
    let value = figure(j.figure, m.value);
    let sure = how_sure(j);
    let unsure = match (j.sure, j.verdict) {
        (false, Verdict::Fit | Verdict::NotFit) => {
            "; the interval crosses the limit, so another run may say otherwise"
        }
        _ => "",
    };
    match (j.verdict, j.limit, j.ratio) {
        (Verdict::Fit, Some(limit), Some(r)) => {
            let margin = match j.figure.larger_is_better() {
                true => format!("{r:.1}x the minimum"),
                false => format!("{:.1}x under the limit", 1.0 / r),
            };
            format!(
                "{} {value}, {}: fit, {margin}{sure}{unsure}",
                j.label,
                limit_text(j, limit)
            )
        }
        (Verdict::NotFit, Some(limit), Some(r)) => {
            let margin = match j.figure.larger_is_better() {
                true => format!("{:.0}% of the minimum", r * 100.0),
                false => format!("{r:.1}x the limit"),
            };
            format!(
                "{} {value}, {}: not fit, {margin}{sure}{unsure}",
                j.label,
                limit_text(j, limit)
            )
        }
        _ => format!(
            "{}: {value}, no verdict: {}{sure}",
            j.label,
            j.note.as_deref().unwrap_or("no source gives a limit")
        ),
    }
}

/// A source in one line: document, address, date, and whether the date
/// was read on the page.
pub fn source(s: &crate::Source) -> String {
    let date = match s.checked.date_confirmed {
        true => s.date.clone(),
        false => format!("{} (a version's date, not read on the page)", s.date),
    };
    format!("{}, {}, {date}", s.document, s.url)
}

/// The whole report in words.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", r.workload, r.about);
    for j in &r.requirements {
        let _ = writeln!(out, "  {}", line(j));
        if let (Some(note), Some(_)) = (&j.note, j.limit) {
            let _ = writeln!(out, "    how: {note}");
        }
        if let Some(p) = &j.volume {
            let _ = writeln!(out, "    volume {}", p.words);
        }
        let _ = writeln!(out, "    source: {}", source(&j.source));
        if !j.source.checked.confirmed {
            let _ = writeln!(
                out,
                "    not confirmed against the page: {}",
                j.source.checked.what
            );
        }
    }
    if let Some(c) = &r.choice {
        let ranked: Vec<String> = c
            .ranking
            .iter()
            .map(|(name, v)| format!("{name} {}", thousands(v.round() as u64)))
            .collect();
        let _ = writeln!(out, "  ops/s, fastest first: {}", ranked.join(", "));
        if let Some((best, _)) = c.ranking.first() {
            let _ = writeln!(out, "  fastest here: {best}: use {} = {best}", c.setting);
        }
    }
    let answer = match r.fit {
        Some(true) => "fit: every requirement is kept".to_string(),
        Some(false) => {
            let broken = r
                .requirements
                .iter()
                .filter(|j| j.verdict == Verdict::NotFit)
                .count();
            let with_limit = r.requirements.iter().filter(|j| j.limit.is_some()).count();
            format!("not fit: {broken} of {with_limit} requirements broken")
        }
        None if r
            .requirements
            .iter()
            .any(|j| j.verdict == Verdict::NotMeasured) =>
        {
            "no verdict: a check measured nothing".to_string()
        }
        None => "no verdict: no source gives a number, the figures are above".to_string(),
    };
    let _ = writeln!(out, "{}: {answer}", r.workload);
    out
}

/// `diskbench fit` without a workload: every workload, its checks and limits.
pub fn listing(all: &[Workload]) -> String {
    let mut out = String::from("Workloads (diskbench fit WORKLOAD DIR):\n");
    for w in all {
        let _ = writeln!(out, "  {:<17} {}", w.name, w.about);
        for c in &w.checks {
            for r in &c.requirements {
                let limit = match (r.max_ms, r.min) {
                    (Some(ms), _) => format!("< {ms} ms"),
                    (None, Some(min)) => format!(">= {min}"),
                    (None, None) => "no published limit".to_string(),
                };
                let checked = match r.source.checked.confirmed {
                    true => format!("read {}", r.source.checked.on),
                    false => "not confirmed against the page".to_string(),
                };
                let _ = writeln!(
                    out,
                    "      {}: {limit} ({}, {}; {checked})",
                    r.label, r.source.url, r.source.date
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::ms;

    #[test]
    fn latencies_under_a_tenth_of_a_millisecond_are_in_microseconds() {
        assert_eq!(ms(4_300.0), "4.3 us");
        assert_eq!(ms(99_000.0), "99.0 us");
        assert_eq!(ms(2_430_000.0), "2.43 ms");
        assert_eq!(ms(31_000_000.0), "31.0 ms");
    }
}
