//! How a provider counts a job's I/Os, and which of its limits a job's
//! block size meets first. EBS counts an SSD I/O up to 256 KiB as one and
//! a larger one as one per 256 KiB (a 1 MiB read is four), and an HDD I/O
//! as at least 1 MiB; a verdict that holds "1,737 IOPS" against gp3's
//! 3,000 without saying so compares two different counts. Here each
//! figure is counted by the provider's rule (from the catalogue, with its
//! source), the verdict names the count and the rule, and a job whose
//! I/Os are large enough that the volume's throughput limit binds before
//! its IOPS limit (1 MiB on gp3: 125 MiB/s is 125 I/Os, far under 3,000)
//! is judged on throughput alone.

use crate::predict::grouped;
use model::volume::{BurstUnit, VolumeModel};

/// A job's figures as the provider counts them.
#[derive(Clone, Debug)]
pub struct Counted {
    /// The job's mean I/O size, in bytes.
    pub mean_io: f64,
    /// Provider I/Os per job I/O (1 up to the accounting size).
    pub per_io: f64,
    pub iops: f64,
    pub bytes_per_sec: f64,
    /// True when the volume's throughput limit binds before its IOPS
    /// limit at this I/O size: the job is judged on throughput.
    pub throughput_bound: bool,
}

impl Counted {
    pub fn of(m: &VolumeModel, iops: f64, bytes_per_sec: f64) -> Counted {
        let mean_io = if iops > 0.0 {
            bytes_per_sec / iops
        } else {
            0.0
        };
        let per_io = m.counted_per_io(mean_io);
        // The bytes each I/O counts as against throughput.
        let counted_io = m.counted_bytes_per_io(mean_io);
        let top_iops = m
            .burst
            .filter(|b| b.unit == BurstUnit::Iops)
            .map_or(m.baseline_iops, |b| b.ceiling.max(m.baseline_iops));
        let top_bytes = m
            .burst
            .filter(|b| b.unit == BurstUnit::Bytes)
            .map_or(m.baseline_bytes_per_sec, |b| {
                b.ceiling.max(m.baseline_bytes_per_sec)
            });
        // What the IOPS limit allows in bytes at this I/O size.
        let iops_allow = top_iops / per_io * counted_io;
        Counted {
            mean_io,
            per_io,
            iops: iops * per_io,
            bytes_per_sec: iops * counted_io,
            throughput_bound: mean_io > 0.0 && top_bytes > 0.0 && iops_allow > top_bytes * 1.05,
        }
    }
}

/// `4 KiB`, `1 MiB`, `1.5 MiB`.
pub fn io_size(bytes: f64) -> String {
    let kib = bytes / 1024.0;
    match kib >= 1024.0 {
        true => format!("{} MiB", trim(kib / 1024.0)),
        false => format!("{} KiB", trim(kib)),
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// The provider's counting rule in words, with its source; `None` for a
/// type whose catalogue entry has no rule (each I/O counts as one).
pub fn rule_text(m: &VolumeModel) -> Option<String> {
    rule_words(
        m.io_accounting_bytes,
        m.io_counted_as_bytes,
        m.io_accounting_source.as_deref(),
    )
}

/// [`rule_text`] from the catalogue's figures (bytes) and source.
pub fn rule_words(up_to: Option<u64>, least: Option<u64>, source: Option<&str>) -> Option<String> {
    let source = source.map(|s| format!(" ({s})")).unwrap_or_default();
    let least = least.map(|b| format!("each I/O counts as at least {}", io_size(b as f64)));
    let up_to = up_to.map(|b| {
        let size = io_size(b as f64);
        format!("I/Os up to {size} count as one, larger ones as one per {size}")
    });
    let parts: Vec<String> = [up_to, least].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| format!("{}{source}", parts.join("; ")))
}

/// `2,998 IOPS of 4 KiB (one I/O each to gp2: I/Os up to 256 KiB count
/// as one)`, or with the provider's count and the rule's source when it
/// differs from the job's (`..., 1,200 as gp2 counts them (...)`).
pub fn iops_text(m: &VolumeModel, iops: f64, c: &Counted) -> String {
    let of = match c.mean_io > 0.0 {
        true => format!(" of {}", io_size(c.mean_io)),
        false => String::new(),
    };
    let name = &m.volume_type;
    let rule = match (rule_text(m), m.io_accounting_bytes) {
        (Some(rule), _) if c.per_io > 1.0 => {
            format!(", {} as {name} counts them ({rule})", grouped(c.iops))
        }
        (_, Some(acc)) => format!(
            " (one I/O each to {name}: I/Os up to {} count as one)",
            io_size(acc as f64)
        ),
        _ => format!(" (each one I/O: {name} has no I/O size rule in the catalogue)"),
    };
    format!("{} IOPS{of}{rule}", grouped(iops))
}

/// `1,821 MB/s`, with the provider's count when it counts more than was
/// moved (st1: every I/O as at least 1 MiB).
pub fn bytes_text(m: &VolumeModel, bytes_per_sec: f64, c: &Counted) -> String {
    let mb = format!("{} MB/s", grouped(bytes_per_sec / 1e6));
    match rule_text(m) {
        Some(rule) if c.bytes_per_sec > bytes_per_sec * 1.001 => format!(
            "{mb}, {} MB/s as {} counts it ({rule})",
            grouped(c.bytes_per_sec / 1e6),
            m.volume_type
        ),
        _ => mb,
    }
}
