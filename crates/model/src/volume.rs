//! What a cloud volume promised, kept with the run that measured it: the
//! published model's figures for the declared volume (`--volume`), what the
//! machine said about itself, the prediction made before the run and the
//! verdicts after it. The figures are computed by the `volumes` crate from
//! its catalogue; here they are only data, so the history keeps the
//! promise as it was when the run was made (a catalogue update later does
//! not rewrite old runs) and `compare` can price runs without the catalogue.

use serde::{Deserialize, Serialize};

/// What a burst bucket holds and spends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstUnit {
    /// I/O credits (gp2, Azure Premium P-tiers).
    Iops,
    /// Throughput credits in bytes (st1, sc1).
    Bytes,
}

/// A credit bucket: the volume runs at `ceiling` while it holds credits and
/// at the baseline after; it refills at `refill_per_sec` whenever the
/// volume does less than that.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BurstModel {
    pub unit: BurstUnit,
    /// The rate while credits last (IOPS, or bytes per second).
    pub ceiling: f64,
    /// Credits in a full bucket (I/Os or bytes), already divided by
    /// `time_scale`.
    pub bucket: f64,
    /// Credits earned per second (the baseline rate).
    pub refill_per_sec: f64,
    /// 1 for the real volume; N for a model whose bucket is N times smaller,
    /// so that its burst ends N times sooner (a testbed in minutes, not hours).
    pub time_scale: f64,
}

/// Monthly list price of the declared volume, by part.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VolumePrice {
    pub currency: String,
    pub region: String,
    /// When the prices were read from the provider's page (YYYY-MM-DD).
    pub as_of: String,
    pub capacity_month: f64,
    pub iops_month: f64,
    pub throughput_month: f64,
    /// The IOPS and throughput (provider's unit) the IOPS and throughput
    /// prices were applied to: what is provisioned above the included.
    #[serde(default)]
    pub billed_iops: f64,
    #[serde(default)]
    pub billed_throughput: f64,
    /// Per million I/O requests, where the provider charges them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_million_ios: Option<f64>,
    /// Where the figures came from: "catalogue" or "--price-* overrides".
    pub source: String,
}

impl VolumeModel {
    /// The provider's I/Os in one I/O of `mean_io` bytes: one up to the
    /// accounting size, else one per accounting size (EBS: a 1 MiB I/O
    /// is four of 256 KiB).
    pub fn counted_per_io(&self, mean_io: f64) -> f64 {
        match self.io_accounting_bytes {
            Some(acc) if acc > 0 && mean_io > acc as f64 => (mean_io / acc as f64).ceil(),
            _ => 1.0,
        }
    }

    /// The bytes one I/O of `mean_io` bytes counts as against throughput
    /// (st1, sc1: at least 1 MiB).
    pub fn counted_bytes_per_io(&self, mean_io: f64) -> f64 {
        self.io_counted_as_bytes
            .map_or(mean_io, |least| mean_io.max(least as f64))
    }
}

impl VolumePrice {
    /// Capacity, IOPS and throughput together (the I/O charge depends on use).
    pub fn monthly(&self) -> f64 {
        self.capacity_month + self.iops_month + self.throughput_month
    }
}

/// The model's figures for one declared volume.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VolumeModel {
    /// As declared, e.g. `aws:gp2:100GiB`.
    pub spec: String,
    pub provider: String,
    /// The provider's type name (gp2, pd-ssd, premium-ssd, ...).
    pub volume_type: String,
    /// The size tier the size falls in, for tiered types (Azure's P10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    pub size_gib: f64,
    pub baseline_iops: f64,
    pub baseline_bytes_per_sec: f64,
    /// How the provider states throughput ("MiB/s" or "MB/s").
    pub throughput_unit: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<BurstModel>,
    /// I/Os up to this size count as one I/O; larger ones as several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_accounting_bytes: Option<u64>,
    /// Every I/O counts as this size however small it is (st1/sc1: 1 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_counted_as_bytes: Option<u64>,
    /// The provider's page that states the two counting rules above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_accounting_source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<VolumePrice>,
    /// The provider's documentation page and when it was read.
    pub source: String,
    pub as_of: String,
    /// The instance's limit on top of the volume's, when it is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<InstanceLimit>,
}

/// A VM's own cap on its volumes (EBS-optimized bandwidth, GCE's per-vCPU caps).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InstanceLimit {
    pub instance_type: String,
    pub baseline_iops: f64,
    pub baseline_bytes_per_sec: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_iops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_bytes_per_sec: Option<f64>,
    /// How long the instance may burst (AWS: 30 minutes in 24 hours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_minutes_per_day: Option<f64>,
    pub source: String,
}

/// What the machine said about itself and the disk.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DetectedVolume {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<String>,
    /// What kind of disk the device's model string names ("EBS", ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_bytes: Option<u64>,
}

/// Before the run: what the model says the job will see.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub baseline_iops: f64,
    pub baseline_bytes_per_sec: f64,
    /// The burst ceiling, absent when the volume does not burst.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_ceiling: Option<f64>,
    /// The rate the prediction assumes the job drives (the ceiling unless
    /// the job is rate-limited), in the bucket's unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_rate: Option<f64>,
    /// From a full bucket at `job_rate`: seconds until the bucket is empty
    /// (the cliff), absent when the job does not outrun the refill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_after_s: Option<f64>,
    /// Seconds an idle volume takes to refill an empty bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refill_s: Option<f64>,
}

/// The cliff a run or soak found, held against the predicted one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CliffVerdict {
    /// The job whose series was judged.
    pub job: String,
    pub predicted_at_s: Option<f64>,
    pub predicted_before: Option<f64>,
    pub predicted_after: f64,
    pub found: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_at_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_before: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_after: Option<f64>,
    /// The bucket the cliff measured (I/Os above the after level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_bucket: Option<f64>,
    pub predicted_bucket: Option<f64>,
    /// Whether time (10%) and levels (5%) agree with the model.
    pub agrees: bool,
    pub sentence: String,
}

/// One measured figure placed against the model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FigureVerdict {
    pub job: String,
    /// `iops` or `bytes_per_sec`.
    pub figure: String,
    pub measured: f64,
    /// What the figure reached: `burst_ceiling`, `baseline`, `throughput_limit`,
    /// `instance_limit`, `above_model`, `below_model`.
    pub against: String,
    pub model_value: f64,
    pub sentence: String,
}

/// Everything about the volume a run keeps: `RunResult::volume`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VolumeReport {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<VolumeModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detected: Option<DetectedVolume>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction: Option<Prediction>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<FigureVerdict>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cliff: Option<CliffVerdict>,
    /// Contradictions between the declaration and the machine, and what
    /// could not be known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}
