//! Saturation curves: the points of a sweep (`diskbench sweep`, one saved
//! run per point, tied by the [`SWEEP_LABEL`] label) as a table, the verdict
//! on where the curve bends ([`analysis::curve`]), and the lines the curve
//! chart draws. A point's figures add up every job of its run: IOPS and
//! MB/s summed, latency from the merged histograms of both directions.

#[cfg(test)]
mod tests;

use crate::compare::group_runs;
use crate::format::mb_per_sec;
use analysis::curve::{judge_curve, littles_law_depth, CurvePoint, CurveVerdict, KneeRules};
use model::{Histogram, RunRecord, RunResult};
use std::collections::BTreeMap;

/// The label every run of one sweep carries, its value the sweep's id.
pub const SWEEP_LABEL: &str = "sweep";

/// One measured point of a curve.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPoint {
    pub iodepth: u32,
    pub numjobs: u32,
    /// `randread 4k` or `randrw 70% read 4k`: the shape that stays fixed along a line.
    pub shape: String,
    pub iops: f64,
    pub mb_per_sec: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub mean_us: f64,
    /// fio's `rate_iops` of a rate-limited point (`diskbench limit`).
    pub rate_iops: Option<String>,
    /// The history's id of the run, 0 when not saved.
    pub run_id: i64,
}

impl SweepPoint {
    /// The point of one run; `None` when it measured nothing.
    pub fn of(result: &RunResult) -> Option<SweepPoint> {
        let first = result.jobs.first()?;
        let mut h = Histogram::new();
        let (mut iops, mut bytes) = (0.0, 0.0);
        for job in &result.jobs {
            for d in [&job.read, &job.write] {
                // A rate-limited job's latency counts from when each I/O
                // was due, so a stall is not hidden (coordinated omission).
                let latency = match &d.response {
                    Some(r) => r,
                    None if d.lat.is_empty() => &d.clat,
                    None => &d.lat,
                };
                h.merge(latency);
                iops += d.iops();
                bytes += d.bytes_per_sec();
            }
        }
        if h.is_empty() {
            return None;
        }
        let spec = &first.spec;
        let mix = match spec.rw.reads() && spec.rw.writes() {
            true => format!(" {}% read", spec.rwmix_read_pct),
            false => String::new(),
        };
        let option = |names: &[&str]| {
            spec.options
                .iter()
                .rev()
                .find(|(k, _)| names.contains(&k.as_str()))
                .map(|(_, v)| v.clone())
        };
        let bs = option(&["bs", "blocksize"]).unwrap_or_else(|| "4k".to_string());
        Some(SweepPoint {
            iodepth: spec.iodepth,
            numjobs: spec.numjobs,
            shape: format!("{}{mix} {bs}", spec.rw.fio_name()),
            iops,
            mb_per_sec: mb_per_sec(bytes),
            p50_us: h.percentile(50.0) as f64 / 1e3,
            p99_us: h.percentile(99.0) as f64 / 1e3,
            p999_us: h.percentile(99.9) as f64 / 1e3,
            mean_us: h.mean() / 1e3,
            rate_iops: option(&["rate_iops"]),
            run_id: 0,
        })
    }

    /// I/Os asked to be in flight: depth times jobs.
    pub fn in_flight(&self) -> u32 {
        self.iodepth * self.numjobs
    }

    /// `QD4`, `QD4 x2 jobs`, `QD8 @5000/s` (rate-limited).
    pub fn setting(&self) -> String {
        let rate = self
            .rate_iops
            .as_ref()
            .map_or(String::new(), |r| format!(" @{r}/s"));
        match self.numjobs {
            1 => format!("QD{}{rate}", self.iodepth),
            n => format!("QD{} x{n} jobs{rate}", self.iodepth),
        }
    }

    /// Little's law: the depth the device was really kept at.
    pub fn depth_kept(&self) -> f64 {
        littles_law_depth(self.iops, self.mean_us)
    }

    fn curve_point(&self) -> CurvePoint {
        CurvePoint {
            setting: f64::from(self.in_flight()),
            iops: self.iops,
            p99_us: self.p99_us,
        }
    }
}

/// The verdict on one line of points (in the order swept).
pub fn verdict(points: &[SweepPoint]) -> Option<CurveVerdict> {
    let curve: Vec<CurvePoint> = points.iter().map(SweepPoint::curve_point).collect();
    judge_curve(&curve, &KneeRules::default())
}

/// The table's header line.
pub fn table_header() -> String {
    format!(
        "{:>20} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6}\n",
        "setting", "IOPS", "MB/s", "p50 ms", "p99 ms", "p99.9 ms", "mean ms", "kept"
    )
}

/// One point's line of the table (`kept`: the depth Little's law gives).
pub fn table_row(p: &SweepPoint) -> String {
    format!(
        "{:>20} {:>10.0} {:>9.1} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>6.1}\n",
        p.setting(),
        p.iops,
        p.mb_per_sec,
        p.p50_us / 1e3,
        p.p99_us / 1e3,
        p.p999_us / 1e3,
        p.mean_us / 1e3,
        p.depth_kept()
    )
}

/// The table of one line's points.
pub fn table(points: &[SweepPoint]) -> String {
    let rows: String = points.iter().map(table_row).collect();
    format!("{}{rows}", table_header())
}

/// What the curve says, in sentences: the knee, whether more depth buys
/// only latency, and whether it is saturated at all. Every sentence comes
/// from `analysis::curve`'s one definition (stated in the knee's line), so
/// none can be refuted by another: past a knee nothing adds 5%, and a
/// curve with a knee is saturated.
pub fn verdict_text(points: &[SweepPoint]) -> String {
    let Some(v) = verdict(points) else {
        return "nothing was measured, so there is no curve\n".into();
    };
    let rules = KneeRules::default();
    let mut out = String::new();
    let peak = &points[v.peak];
    out.push_str(&format!(
        "peak: {:.0} IOPS at {} (p99 {:.3} ms)\n",
        peak.iops,
        peak.setting(),
        peak.p99_us / 1e3
    ));
    match v.knee {
        Some(k) => {
            let p = &points[k];
            out.push_str(&format!(
                "knee: {} ({:.0} IOPS, p99 {:.3} ms): no larger setting adds {:.0}% IOPS to it, \
                 and the next raises p99 by over {:.0}%\n",
                p.setting(),
                p.iops,
                p.p99_us / 1e3,
                rules.min_gain_pct,
                rules.max_p99_rise_pct
            ));
            if points.len() > k + 1 {
                out.push_str(&format!(
                    "more depth than {} buys only latency: IOPS stay within {:.0}% while mean \
                     latency grows {:.1}x\n",
                    p.setting(),
                    rules.min_gain_pct,
                    points[points.len() - 1].mean_us / p.mean_us.max(f64::MIN_POSITIVE)
                ));
            }
        }
        None if v.saturated() && points.len() > 1 => out.push_str(&format!(
            "no knee: the largest setting adds under {:.0}% IOPS to the best before it, but where \
             IOPS stop growing by {:.0}%, p99 did not rise by over {:.0}% at the next setting\n",
            rules.min_gain_pct, rules.min_gain_pct, rules.max_p99_rise_pct
        )),
        None => {}
    }
    if points.len() == 1 {
        out.push_str("one point is no curve: give --qd (or --jobs) two settings or more\n");
    } else if !v.saturated() {
        let last = &points[points.len() - 1];
        out.push_str(&format!(
            "not saturated: IOPS still grew at the largest setting tried ({}): try more depth \
             or jobs\n",
            last.setting()
        ));
    }
    out
}

/// The runs of `records` that are sweep points, as lines: grouped by the
/// `by` labels (the sweep's id when none), then by shape; along a line the
/// points go by I/Os in flight. A line whose depth does not vary (a sweep
/// over `--jobs` at one depth) goes by jobs instead.
pub fn lines(records: &[RunRecord], by: &[String]) -> Vec<(String, Vec<SweepPoint>)> {
    let sweeps: Vec<RunRecord> = records
        .iter()
        .filter(|r| r.labels.contains_key(SWEEP_LABEL))
        .cloned()
        .collect();
    let by: Vec<String> = match by.is_empty() {
        true => vec![SWEEP_LABEL.to_string()],
        false => by.to_vec(),
    };
    let mut out = Vec::new();
    for (labels, runs) in group_runs(&sweeps, &by) {
        let name = crate::charts::bar::group_label(&by, &labels);
        let mut by_shape: BTreeMap<(String, u32), Vec<SweepPoint>> = BTreeMap::new();
        for r in runs {
            if let Some(mut p) = SweepPoint::of(&r.result) {
                p.run_id = r.id;
                by_shape
                    .entry((p.shape.clone(), p.numjobs))
                    .or_default()
                    .push(p);
            }
        }
        let one_point_each = by_shape.values().all(|v| v.len() == 1);
        let mut merged: BTreeMap<(String, u32), Vec<SweepPoint>> = BTreeMap::new();
        for ((shape, jobs), points) in by_shape {
            let key = match one_point_each {
                true => (shape, 0),
                false => (shape, jobs),
            };
            merged.entry(key).or_default().extend(points);
        }
        for ((shape, jobs), mut points) in merged {
            points.sort_by(|a, b| {
                (a.in_flight(), a.iodepth, &a.rate_iops)
                    .cmp(&(b.in_flight(), b.iodepth, &b.rate_iops))
                    .then(a.iops.total_cmp(&b.iops))
            });
            let points = median_of_repeats(points);
            let what = match jobs {
                0 | 1 => shape,
                n => format!("{shape} x{n} jobs"),
            };
            out.push((format!("{name}: {what}"), points));
        }
    }
    out
}

/// A point measured several times (`sweep --ci`) stands for its setting by
/// its median run: the one with the median IOPS (the lower of the middle
/// two), so its latencies are a real run's, not a blend. `points` come
/// sorted by setting, then IOPS.
pub fn median_of_repeats(points: Vec<SweepPoint>) -> Vec<SweepPoint> {
    let same = |a: &SweepPoint, b: &SweepPoint| {
        (a.iodepth, a.numjobs, &a.rate_iops) == (b.iodepth, b.numjobs, &b.rate_iops)
    };
    let mut out: Vec<SweepPoint> = Vec::new();
    let mut run: Vec<SweepPoint> = Vec::new();
    for p in points {
        if run.last().is_some_and(|last| !same(last, &p)) {
            out.push(run[(run.len() - 1) / 2].clone());
            run.clear();
        }
        run.push(p);
    }
    if !run.is_empty() {
        out.push(run[(run.len() - 1) / 2].clone());
    }
    out
}

/// One line per curve among `records` for `compare`: its knee (or that it
/// is not saturated) and its peak, so two disks' curves compare in a
/// glance; empty when no run is a sweep point.
pub fn knees_text(records: &[RunRecord], by: &[String]) -> String {
    let mut out = String::new();
    for (name, points) in lines(records, by) {
        let Some(v) = verdict(&points) else { continue };
        let peak = &points[v.peak];
        let knee = match (v.knee, v.saturated()) {
            _ if points.len() == 1 => "one point, no curve".to_string(),
            (Some(k), _) => format!(
                "knee at {} ({:.0} IOPS, p99 {:.3} ms)",
                points[k].setting(),
                points[k].iops,
                points[k].p99_us / 1e3
            ),
            (None, true) => {
                "no knee (IOPS stopped growing by 5% without p99 rising by 50%)".to_string()
            }
            (None, false) => "not saturated".to_string(),
        };
        out.push_str(&format!(
            "  {name}: {knee}; peak {:.0} IOPS at {} (p99 {:.3} ms)\n",
            peak.iops,
            peak.setting(),
            peak.p99_us / 1e3
        ));
    }
    match out.is_empty() {
        true => out,
        false => format!("\nSaturation curves (diskbench sweep):\n{out}"),
    }
}
