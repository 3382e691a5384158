//! The saturation curve of a sweep: p99 latency against IOPS, one line per
//! group (a sweep, or what `--by` labels group), a point per setting tried,
//! both axes logarithmic. A disk that saturates draws a line that climbs
//! straight up at the right: IOPS stop growing while latency does. Each
//! line's knee is marked in its colour.

use super::line::{stacked, Line, Mark, Panel, XAxis};
use super::scale::{compact, latency_us};
use super::{colour, dashed, LegendEntry};
use crate::curve::{lines, verdict};
use model::RunRecord;

/// The chart of the sweep points among `records`; `None` when there are none.
pub fn curve_chart(records: &[RunRecord], by: &[String]) -> Option<String> {
    let groups = lines(records, by);
    if groups.is_empty() {
        return None;
    }
    let mut drawn = Vec::new();
    let mut legend: Vec<LegendEntry> = Vec::new();
    let mut marks = Vec::new();
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for (i, (name, points)) in groups.iter().enumerate() {
        for p in points.iter().filter(|p| p.iops > 0.0) {
            lo = lo.min(p.iops);
            hi = hi.max(p.iops);
        }
        let pts = points
            .iter()
            .filter(|p| p.iops > 0.0)
            .map(|p| {
                let tip = format!(
                    "{name}, {}: {:.0} IOPS, p99 {}",
                    p.setting(),
                    p.iops,
                    latency_us(p.p99_us)
                );
                (p.iops.log10(), p.p99_us, Some(tip))
            })
            .collect();
        drawn.push(Line {
            colour: colour(i),
            dashed: dashed(i),
            markers: true,
            points: pts,
        });
        let knee = verdict(points).and_then(|v| v.knee);
        let note = match (knee, verdict(points).is_some_and(|v| v.saturated())) {
            _ if points.len() == 1 => ", one point: no curve".to_string(),
            (Some(k), _) => format!(", knee at {}", points[k].setting()),
            (None, false) => ", not saturated".to_string(),
            (None, true) => String::new(),
        };
        if let Some(k) = knee.filter(|_| points[0].iops > 0.0) {
            marks.push(Mark {
                from: points[k].iops.max(f64::MIN_POSITIVE).log10(),
                to: None,
                label: format!("knee {}", points[k].setting()),
                colour: colour(i),
            });
        }
        legend.push((format!("{name}{note}"), colour(i), dashed(i)));
    }
    if hi <= 0.0 {
        return None;
    }
    // Whole steps of 1, 2 and 5 around the IOPS seen, so a flat curve
    // (every point near one figure) still has an axis to sit on.
    let lo_exp = lo.log10().floor();
    let hi_exp = (hi * 1.0001).log10().ceil().max(lo_exp + 1.0);
    let mut ticks = Vec::new();
    let mut decade = lo_exp;
    while decade < hi_exp + 0.5 {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powf(decade);
            let x = v.log10();
            if x >= lo_exp - 1e-9 && x <= hi_exp + 1e-9 {
                ticks.push((x, compact(v)));
            }
        }
        decade += 1.0;
    }
    let x = XAxis {
        title: "IOPS (log scale)".into(),
        lo: lo_exp,
        hi: hi_exp,
        ticks,
        fmt: compact,
        marks,
    };
    let panels = vec![Panel {
        title: "p99 latency (log scale)".into(),
        log: true,
        fmt: latency_us,
        lines: drawn,
        height: 300.0,
    }];
    Some(stacked(
        "curve",
        "Saturation curve: p99 latency against IOPS, a point per setting swept",
        &x,
        &panels,
        &legend,
    ))
}
