//! Before a run, what the model says the job will see (baseline, burst
//! ceiling, when the bucket empties at the job's rate, how long it takes
//! to refill); after it, each measured figure placed against the model,
//! and a cliff found held against the cliff predicted.
//!
//! Tolerances: a figure "is" a model figure within 5% (a throttle's own
//! accounting and a second's rounding move it a little); a cliff agrees
//! when its time is within 10% of the prediction and its levels within 5%.

use crate::catalogue::Catalogue;
use crate::counting::{self, Counted};
use model::volume::{
    BurstUnit, CliffVerdict, DetectedVolume, FigureVerdict, InstanceLimit, Prediction, VolumeModel,
};

/// A figure within this share of a model figure is that figure.
pub const LEVEL_TOLERANCE: f64 = 0.05;
/// A cliff within this share of the predicted time is the predicted cliff.
pub const TIME_TOLERANCE: f64 = 0.10;

/// The prediction for a job driving `job_rate` (IOPS, or bytes per second
/// for a throughput bucket); `None` assumes the job drives the ceiling.
pub fn predict(m: &VolumeModel, job_rate: Option<f64>) -> Prediction {
    let mut p = Prediction {
        baseline_iops: m.baseline_iops,
        baseline_bytes_per_sec: m.baseline_bytes_per_sec,
        ..Prediction::default()
    };
    if let Some(b) = m.burst {
        let rate = job_rate.map_or(b.ceiling, |r| r.min(b.ceiling));
        p.burst_ceiling = Some(b.ceiling);
        p.job_rate = Some(rate);
        p.empty_after_s = (rate > b.refill_per_sec).then(|| b.bucket / (rate - b.refill_per_sec));
        p.refill_s = (b.refill_per_sec > 0.0).then(|| b.bucket / b.refill_per_sec);
    }
    p
}

/// Thousands separated: 5,400,000.
pub fn grouped(v: f64) -> String {
    let s = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 {
        out.insert(0, '-');
    }
    out
}

/// `33 min 20 s`, `5 h 0 min`, `50.0 s`.
pub fn span(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.1} s")
    } else if seconds < 7200.0 {
        format!(
            "{} min {} s",
            (seconds / 60.0) as u64,
            (seconds % 60.0) as u64
        )
    } else {
        format!(
            "{} h {} min",
            (seconds / 3600.0) as u64,
            ((seconds % 3600.0) / 60.0) as u64
        )
    }
}

/// A throughput in the provider's unit: `125 MiB/s`.
pub fn throughput_text(m: &VolumeModel, bytes_per_sec: f64) -> String {
    let unit = crate::figures::unit_bytes(&m.throughput_unit);
    format!("{} {}", grouped(bytes_per_sec / unit), m.throughput_unit)
}

fn rate_text(m: &VolumeModel, unit: BurstUnit, v: f64) -> String {
    match unit {
        BurstUnit::Iops => format!("{} IOPS", grouped(v)),
        BurstUnit::Bytes => throughput_text(m, v),
    }
}

/// The headline before the run: one line for people.
pub fn headline(m: &VolumeModel, p: &Prediction) -> String {
    let tier = m
        .tier
        .as_deref()
        .map(|t| format!(" {t},"))
        .unwrap_or_default();
    let mut s = format!(
        "volume {}: {} {}{} {} GiB: baseline {} IOPS, {}",
        m.spec,
        m.provider,
        m.volume_type,
        tier,
        crate::predict::grouped(m.size_gib),
        grouped(m.baseline_iops),
        throughput_text(m, m.baseline_bytes_per_sec)
    );
    match m.burst {
        None => s.push_str("; no burst"),
        Some(b) => {
            let credits = match b.unit {
                BurstUnit::Iops => format!("{} I/O", grouped(b.bucket)),
                BurstUnit::Bytes => format!("{} MiB", grouped(b.bucket / 1_048_576.0)),
            };
            s.push_str(&format!(
                "; burst to {} on a {credits} bucket",
                rate_text(m, b.unit, b.ceiling)
            ));
            if b.time_scale != 1.0 {
                s.push_str(&format!(" (time-scaled 1/{})", b.time_scale));
            }
            if let (Some(t), Some(rate)) = (p.empty_after_s, p.job_rate) {
                s.push_str(&format!(
                    ": a full bucket empties after {} at {}, then {}",
                    span(t),
                    rate_text(m, b.unit, rate),
                    rate_text(m, b.unit, b.refill_per_sec)
                ));
            }
            if let Some(r) = p.refill_s {
                s.push_str(&format!("; refills in {} idle", span(r)));
            }
        }
    }
    if let Some(i) = &m.instance {
        s.push_str(&instance_text(m, i));
    }
    s.push_str(&format!(
        " (published figures as of {}: {})",
        m.as_of, m.source
    ));
    s
}

/// The instance's caps, and whether its baseline is below the volume's
/// figures (then the instance's own burst, not the volume's, ends first).
fn instance_text(m: &VolumeModel, i: &InstanceLimit) -> String {
    let mut s = format!(
        "; instance {} allows {} IOPS, {} MB/s",
        i.instance_type,
        grouped(i.burst_iops.unwrap_or(i.baseline_iops)),
        grouped(i.burst_bytes_per_sec.unwrap_or(i.baseline_bytes_per_sec) / 1e6)
    );
    if let Some(minutes) = i.burst_minutes_per_day {
        s.push_str(&format!(
            " for {minutes:.0} min a day, {} IOPS, {} MB/s after",
            grouped(i.baseline_iops),
            grouped(i.baseline_bytes_per_sec / 1e6)
        ));
    }
    let volume_iops = m
        .burst
        .map_or(m.baseline_iops, |b| b.ceiling.max(m.baseline_iops));
    if i.baseline_iops < volume_iops || i.baseline_bytes_per_sec < m.baseline_bytes_per_sec {
        s.push_str(" (below the volume's figures: the instance limits first)");
    }
    s
}

/// One job's figures: I/Os and bytes per second over its run.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    pub iops: f64,
    pub bytes_per_sec: f64,
}

impl Measured {
    /// A finished job's reads and writes together, per second of its runtime.
    pub fn of(job: &model::JobResult) -> Measured {
        let seconds = job.runtime_ns as f64 / 1e9;
        let per_s = |v: u64| {
            if seconds > 0.0 {
                v as f64 / seconds
            } else {
                0.0
            }
        };
        Measured {
            iops: per_s(job.read.ios + job.write.ios),
            bytes_per_sec: per_s(job.read.bytes + job.write.bytes),
        }
    }
}

/// The rate the first job drives in the bucket's unit, when it says
/// (`rate_iops`, `rate`, times its clones); else `None`, and the
/// prediction assumes the burst ceiling.
pub fn job_rate(groups: &[Vec<model::JobSpec>], vm: &VolumeModel) -> Option<f64> {
    let job = groups.first()?.first()?;
    let unit = vm.burst?.unit;
    let clones = f64::from(job.numjobs.max(1));
    let rate = &job.rate;
    let value = match unit {
        model::volume::BurstUnit::Iops => (rate.iops.read + rate.iops.write) as f64,
        model::volume::BurstUnit::Bytes => {
            (rate.bytes_per_sec.read + rate.bytes_per_sec.write) as f64
        }
    };
    (value > 0.0).then_some(value * clones)
}

fn near(v: f64, target: f64) -> bool {
    target > 0.0 && (v - target).abs() / target <= LEVEL_TOLERANCE
}

/// The job's IOPS and throughput placed against the model, each counted
/// as the provider counts it ([`crate::counting`]) and named with that
/// count and the rule; a job whose I/Os are so large that the volume's
/// throughput limit binds first is judged on throughput only.
pub fn judge(m: &VolumeModel, job: &str, x: Measured) -> Vec<FigureVerdict> {
    let mut out = Vec::new();
    let c = Counted::of(m, x.iops, x.bytes_per_sec);
    let (counted_iops, counted_bytes) = (c.iops, c.bytes_per_sec);
    let v = |figure: &str, measured: f64, against: &str, model_value: f64, sentence: String| {
        FigureVerdict {
            job: job.to_string(),
            figure: figure.into(),
            measured,
            against: against.into(),
            model_value,
            sentence,
        }
    };
    let name = &m.volume_type;
    let iops_text = counting::iops_text(m, x.iops, &c);
    let iops_burst = m.burst.filter(|b| b.unit == BurstUnit::Iops);
    let top = iops_burst.map_or(m.baseline_iops, |b| b.ceiling.max(m.baseline_iops));
    if let Some(i) = instance_hit(m, counted_iops, counted_bytes) {
        out.push(v("iops", x.iops, "instance_limit", i.1, i.0));
    } else if c.throughput_bound {
        // Judged on throughput below.
    } else if let Some(b) = iops_burst.filter(|b| near(counted_iops, b.ceiling)) {
        let until = predict(m, Some(counted_iops))
            .empty_after_s
            .map(|t| {
                format!(
                    ". Baseline {} IOPS from about {} at this rate",
                    grouped(b.refill_per_sec),
                    span(t)
                )
            })
            .unwrap_or_default();
        out.push(v(
            "iops",
            x.iops,
            "burst_ceiling",
            b.ceiling,
            format!(
                "{iops_text}: the {name} burst ceiling ({}){until}",
                grouped(b.ceiling)
            ),
        ));
    } else if near(counted_iops, m.baseline_iops) {
        let after = if iops_burst.is_some() {
            ", the burst bucket spent"
        } else {
            ""
        };
        out.push(v(
            "iops",
            x.iops,
            "baseline",
            m.baseline_iops,
            format!(
                "{iops_text}: {name}'s baseline ({}){after}",
                grouped(m.baseline_iops)
            ),
        ));
    } else if counted_iops > top * (1.0 + LEVEL_TOLERANCE) {
        out.push(v("iops", x.iops, "above_model", top, format!(
            "{iops_text}: above {name}'s {} IOPS: a cache answered, or the volume is not the one declared",
            grouped(top)
        )));
    } else if x.bytes_per_sec < 0.9 * m.baseline_bytes_per_sec || m.baseline_bytes_per_sec == 0.0 {
        out.push(v("iops", x.iops, "below_model", top, format!(
            "{iops_text}: below {name}'s {} IOPS: the job (its depth, its block size) or the machine limits it, not the volume",
            grouped(top)
        )));
    }
    let limit = match m.burst.filter(|b| b.unit == BurstUnit::Bytes) {
        Some(b) if near(counted_bytes, b.ceiling) => ("burst_ceiling", b.ceiling),
        _ => ("throughput_limit", m.baseline_bytes_per_sec),
    };
    // Far above the IOPS model, a throughput "at the limit" is a coincidence of the cache's.
    let iops_above = out.iter().any(|v| v.against == "above_model");
    let (against, value) = limit;
    if value <= 0.0 || iops_above {
        return out;
    }
    let mb = counting::bytes_text(m, x.bytes_per_sec, &c);
    let why = match (c.throughput_bound, counting::rule_text(m)) {
        (false, _) => String::new(),
        (true, Some(rule)) if c.per_io > 1.0 => format!(
            " (judged on throughput: at {} per I/O, which {name} counts as {} I/Os by its rule, {rule}, its {} binds before its {} IOPS)",
            counting::io_size(c.mean_io),
            c.per_io,
            throughput_text(m, value),
            grouped(top)
        ),
        (true, _) => format!(
            " (judged on throughput: at {} per I/O, {name}'s {} binds before its {} IOPS)",
            counting::io_size(c.mean_io),
            throughput_text(m, value),
            grouped(top)
        ),
    };
    if counted_bytes >= 0.9 * value && counted_bytes <= value * (1.0 + LEVEL_TOLERANCE) {
        let what = if against == "burst_ceiling" {
            "burst ceiling"
        } else {
            "limit"
        };
        out.push(v(
            "bytes_per_sec",
            x.bytes_per_sec,
            against,
            value,
            format!("{mb}: {name}'s {} {what}{why}", throughput_text(m, value)),
        ));
    } else if counted_bytes > value * (1.0 + LEVEL_TOLERANCE)
        && m.burst
            .is_none_or(|b| counted_bytes > b.ceiling * 1.05 || b.unit == BurstUnit::Iops)
    {
        out.push(v("bytes_per_sec", x.bytes_per_sec, "above_model", value, format!(
            "{mb}: above {name}'s {}{why}: a cache answered, or the volume is not the one declared", throughput_text(m, value)
        )));
    } else if c.throughput_bound && counted_bytes < 0.9 * value {
        out.push(v("bytes_per_sec", x.bytes_per_sec, "below_model", value, format!(
            "{mb}: below {name}'s {}{why}: the job (its depth) or the machine limits it, not the volume",
            throughput_text(m, value)
        )));
    }
    out
}

/// When the instance's cap, not the volume's, is what the job reached.
fn instance_hit(m: &VolumeModel, iops: f64, bytes: f64) -> Option<(String, f64)> {
    let i = m.instance.as_ref()?;
    let volume_top = m
        .burst
        .map_or(m.baseline_iops, |b| b.ceiling.max(m.baseline_iops));
    let caps = [
        (i.baseline_iops, iops, "IOPS"),
        (i.burst_iops.unwrap_or(0.0), iops, "IOPS"),
        (i.baseline_bytes_per_sec, bytes, "bytes"),
        (i.burst_bytes_per_sec.unwrap_or(0.0), bytes, "bytes"),
    ];
    caps.iter()
        .find(|&&(cap, v, what)| near(v, cap) && (what == "bytes" || cap < volume_top * 0.95))
        .map(|&(cap, _, what)| {
            let figure = if what == "IOPS" {
                format!("{} IOPS", grouped(cap))
            } else {
                format!("{} MB/s", grouped(cap / 1e6))
            };
            (
                format!(
                    "{}: limited by the instance's ({}) EBS bandwidth ({figure}), not the volume",
                    if what == "IOPS" {
                        format!("{} IOPS", grouped(iops))
                    } else {
                        format!("{} MB/s", grouped(bytes / 1e6))
                    },
                    i.instance_type
                ),
                cap,
            )
        })
}

/// A cliff a run or soak found (levels in the bucket's unit).
#[derive(Clone, Copy, Debug)]
pub struct FoundCliff {
    pub at_s: f64,
    pub before: f64,
    pub after: f64,
    pub bucket: f64,
}

impl FoundCliff {
    /// A cliff from a job's figures before and after it and the I/Os
    /// served above the after level, in the bucket's unit: bytes for a
    /// throughput bucket, else I/Os counted as the provider counts them (a
    /// 1 MiB I/O is four of EBS's 256 KiB ones), as the model's ceiling and
    /// bucket are. `None` for a volume without a bucket.
    pub fn of(
        m: &VolumeModel,
        at_s: f64,
        before: Measured,
        after: Measured,
        burst_ios: f64,
    ) -> Option<FoundCliff> {
        let per_io = match before.iops > 0.0 {
            true => before.bytes_per_sec / before.iops,
            false => 0.0,
        };
        let (before, after, bucket) = match m.burst?.unit {
            BurstUnit::Bytes => (
                before.bytes_per_sec,
                after.bytes_per_sec,
                burst_ios * per_io,
            ),
            BurstUnit::Iops => {
                let counted = Counted::of(m, before.iops, before.bytes_per_sec).per_io;
                (
                    before.iops * counted,
                    after.iops * counted,
                    burst_ios * counted,
                )
            }
        };
        Some(FoundCliff {
            at_s,
            before,
            after,
            bucket,
        })
    }
}

/// The cliff found (or not, over `measured_s` seconds) against the model's.
pub fn judge_cliff(
    m: &VolumeModel,
    found: Option<FoundCliff>,
    measured_s: f64,
) -> Option<CliffVerdict> {
    let b = m.burst?;
    let unit = b.unit;
    let name = &m.volume_type;
    let mut v = CliffVerdict {
        predicted_after: b.refill_per_sec,
        predicted_bucket: Some(b.bucket),
        ..CliffVerdict::default()
    };
    let Some(f) = found else {
        let p = predict(m, None);
        v.predicted_at_s = p.empty_after_s;
        v.predicted_before = Some(b.ceiling);
        let due = p
            .empty_after_s
            .filter(|&t| measured_s > t * (1.0 + TIME_TOLERANCE));
        v.agrees = due.is_none();
        v.sentence = match due {
            Some(t) => format!(
                "no cliff in {}, but {name}'s bucket should have run dry after {} at {}: the bucket was not full, the job was slower than the ceiling, or the volume is not {name}",
                span(measured_s), span(t), rate_text(m, unit, b.ceiling)
            ),
            None => format!(
                "no cliff: the run ({}) ended before {name}'s bucket could run dry{}",
                span(measured_s),
                p.empty_after_s.map(|t| format!(" ({} at the ceiling)", span(t))).unwrap_or_default()
            ),
        };
        return Some(v);
    };
    // The job's pre-cliff rate sets when the bucket empties; the model's
    // ceiling is what it should have been.
    let p = predict(m, Some(f.before));
    v.predicted_at_s = p.empty_after_s;
    v.predicted_before = Some(b.ceiling);
    v.found = true;
    v.found_at_s = Some(f.at_s);
    v.found_before = Some(f.before);
    v.found_after = Some(f.after);
    v.found_bucket = Some(f.bucket);
    let time_ok = p
        .empty_after_s
        .is_some_and(|t| (f.at_s - t).abs() / t <= TIME_TOLERANCE);
    let levels_ok = near(f.before, b.ceiling) && near(f.after, b.refill_per_sec);
    v.agrees = time_ok && levels_ok;
    let pct = |a: f64, b: f64| (a - b) / b * 100.0;
    v.sentence = format!(
        "cliff at {} (predicted {}{}): {} -> {} (model {} -> {}); bucket {} (model {}): {}",
        span(f.at_s),
        p.empty_after_s.map_or("never".into(), span),
        p.empty_after_s
            .map(|t| format!(", {:+.1}%", pct(f.at_s, t)))
            .unwrap_or_default(),
        rate_text(m, unit, f.before),
        rate_text(m, unit, f.after),
        rate_text(m, unit, b.ceiling),
        rate_text(m, unit, b.refill_per_sec),
        grouped(f.bucket),
        grouped(b.bucket),
        if v.agrees {
            format!("agrees with {name}")
        } else {
            format!("does not agree with {name}")
        }
    );
    Some(v)
}

/// The instance's own cap for this volume, from the instance table.
pub fn instance_limit(
    c: &Catalogue,
    d: &DetectedVolume,
    volume_type: &str,
    vcpus: Option<u32>,
) -> Option<InstanceLimit> {
    match d.provider.as_deref()? {
        "aws" => {
            let t = d.instance_type.as_deref()?;
            let i = c.instances.aws.iter().find(|i| i.instance_type == t)?;
            Some(InstanceLimit {
                instance_type: t.into(),
                baseline_iops: i.baseline_iops,
                baseline_bytes_per_sec: i.baseline_mbit_s * 1e6 / 8.0,
                burst_iops: Some(i.burst_iops),
                burst_bytes_per_sec: Some(i.burst_mbit_s * 1e6 / 8.0),
                burst_minutes_per_day: Some(i.burst_minutes_per_day),
                source: i.source.clone(),
            })
        }
        "gcp" => {
            let n = vcpus?;
            let g =
                c.instances.gcp_vcpu.iter().find(|g| {
                    g.disk_type == volume_type && (g.vcpus_from..=g.vcpus_to).contains(&n)
                })?;
            Some(InstanceLimit {
                instance_type: format!("{n} vCPUs ({})", g.machine_series),
                baseline_iops: g.iops,
                baseline_bytes_per_sec: g.throughput_mib_s * 1_048_576.0,
                source: g.source.clone(),
                ..InstanceLimit::default()
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
