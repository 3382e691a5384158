//! Where each I/O goes: the distribution of random offsets
//! (`random_distribution`, `norandommap`, `percentage_random`,
//! `random_generator`) and which file of a job is next
//! (`file_service_type`). The runner's `offsets` module draws from these.

use crate::direction::PerDir;
use crate::serde_defaults::one;
use serde::{Deserialize, Serialize};

/// One zone of `random_distribution=zoned`: `access_pct` of the I/Os go to
/// the next `size` of the region (percent of it for `zoned`, bytes for
/// `zoned_abs`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Zone {
    pub access_pct: f64,
    pub size: f64,
}

/// fio's `random_distribution`, for one direction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// Uniform (fio's default).
    #[default]
    Random,
    /// `zipf:theta[:center]`; without a center the hot blocks are scattered.
    Zipf { theta: f64, center: Option<f64> },
    /// `pareto:h[:center]`.
    Pareto { h: f64, center: Option<f64> },
    /// `normal:dev[:center]`: deviation in percent of the region, centred on
    /// `center` (0.5 by default).
    Normal { dev_pct: f64, center: Option<f64> },
    /// Sizes in percent of the region.
    Zoned(Vec<Zone>),
    /// Sizes in bytes.
    ZonedAbs(Vec<Zone>),
    /// `sequence:2,0,1` (fio 3.42): these block indices in this order, over
    /// and over; with `RandomSpec::sequence_stride`, each round moves on by
    /// the sequence's length (2 0 1, then 5 3 4, ...). Both directions.
    Sequence(Vec<u64>),
}

/// fio's `random_generator`. diskbench has one generator of its own (a keyed
/// permutation, see the runner's `offsets`): whichever is named, the
/// sequence of offsets differs from fio's but follows the same distribution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RandomGenerator {
    #[default]
    Tausworthe,
    Lfsr,
    Tausworthe64,
}

impl RandomGenerator {
    pub fn parse(text: &str) -> Option<RandomGenerator> {
        Some(match text {
            "tausworthe" => RandomGenerator::Tausworthe,
            "lfsr" => RandomGenerator::Lfsr,
            "tausworthe64" => RandomGenerator::Tausworthe64,
            _ => return None,
        })
    }
    pub fn fio_name(self) -> &'static str {
        match self {
            RandomGenerator::Tausworthe => "tausworthe",
            RandomGenerator::Lfsr => "lfsr",
            RandomGenerator::Tausworthe64 => "tausworthe64",
        }
    }
}

fn all_random() -> PerDir<u32> {
    PerDir::both(100)
}

/// Where random I/Os go: `random_distribution`, `norandommap`,
/// `percentage_random`, `random_generator`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomSpec {
    pub distribution: PerDir<Distribution>,
    /// Draw every offset afresh instead of visiting each block once per pass.
    pub norandommap: bool,
    /// Percent of the I/Os of a random pattern that are random; the others
    /// continue sequentially from the previous I/O.
    #[serde(default = "all_random")]
    pub percentage_random: PerDir<u32>,
    pub generator: RandomGenerator,
    /// `random_sequence_stride`: see [`Distribution::Sequence`].
    #[serde(default)]
    pub sequence_stride: bool,
}

impl Default for RandomSpec {
    fn default() -> RandomSpec {
        RandomSpec {
            distribution: PerDir::default(),
            norandommap: false,
            percentage_random: all_random(),
            generator: RandomGenerator::Tausworthe,
            sequence_stride: false,
        }
    }
}

/// fio's `file_service_type`: which file of a job the next I/O goes to.
///
/// The skewed kinds draw a file for every I/O, ranked by file number: file
/// 0 is the hottest for zipf and pareto (their shapes as in
/// [`Distribution`], over the files instead of the positions, and not
/// scattered), normal is a bell centred on the middle file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileService {
    /// One file after the other (fio's default).
    #[default]
    RoundRobin,
    /// Each file until it is done.
    Sequential,
    Random,
    /// `zipf:THETA`: Zipf's law over the files.
    Zipf {
        theta: f64,
    },
    /// `pareto:H`: a share 1-H of the I/Os on the first share H of the files.
    Pareto {
        h: f64,
    },
    /// `normal:DEV` (or `gauss`): deviation in percent of the files.
    Normal {
        dev_pct: f64,
    },
}

impl FileService {
    /// The distribution a skewed kind draws files from; `None` for the others.
    pub fn distribution(self) -> Option<Distribution> {
        match self {
            FileService::Zipf { theta } => Some(Distribution::Zipf {
                theta,
                center: None,
            }),
            FileService::Pareto { h } => Some(Distribution::Pareto { h, center: None }),
            FileService::Normal { dev_pct } => Some(Distribution::Normal {
                dev_pct,
                center: None,
            }),
            _ => None,
        }
    }
}

/// `file_service_type=KIND[:N]`: N I/Os to a file before switching (always
/// 1 for the skewed kinds, whose postfix is their parameter).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileServiceSpec {
    pub kind: FileService,
    #[serde(default = "one")]
    pub switch_every: u32,
}

impl Default for FileServiceSpec {
    fn default() -> FileServiceSpec {
        FileServiceSpec {
            kind: FileService::RoundRobin,
            switch_every: 1,
        }
    }
}

/// fio's offset modifier after `rw=` (`rw=read:-8k`, `rw=randread:8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RwStep {
    /// A sequential pattern skips this many bytes after each I/O
    /// (negative: it goes backwards), as fio's `rw=write:4k`.
    Skip(i64),
    /// A random pattern draws a new offset every this many I/Os, the ones
    /// between following on sequentially, as fio's `rw=randread:8`.
    RandomEvery(u64),
}

/// fio's `zonemode=strided`: the I/O stays in one zone of `range` bytes
/// until `size` bytes were transferred there (going round the zone when
/// `size` is larger), then moves `range + skip` bytes on, back to the start
/// past the end of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StridedZones {
    pub range: u64,
    pub size: u64,
    pub skip: u64,
}

/// Where a job's I/Os start and how they move beyond the plain patterns:
/// fio's `offset_increment`, the `rw=` offset modifier and strided zones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetSteps {
    /// Clone `n` (of `numjobs`) starts at `offset + n * increment`.
    pub increment: u64,
    pub rw_step: Option<RwStep>,
    #[serde(default)]
    pub strided: Option<StridedZones>,
}

/// fio's `sprandom` (fio 3.42) with `spr_op`, `spr_num_regions` and
/// `spr_cs`: instead of uniform random writes, one pass that writes the
/// device's physical capacity (the size inflated by the over-provisioning
/// ratio) in regions, rewriting some blocks of each region so that the
/// regions end up with the share of stale blocks a drive has in steady
/// state under random writes. The sequence is the runner's
/// (`offsets::sprandom`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpRandom {
    /// `sprandom=1`.
    pub enabled: bool,
    /// `spr_op`: spare capacity over the user capacity, in (0, 1).
    pub over_provisioning: f64,
    /// `spr_num_regions`: at least 1.
    pub regions: u32,
    /// `spr_cs`: the device's write cache in bytes; 0 for none.
    pub cache_bytes: u64,
}

impl Default for SpRandom {
    /// fio's defaults: off, 15% over-provisioning, 100 regions, no cache.
    fn default() -> SpRandom {
        SpRandom {
            enabled: false,
            over_provisioning: 0.15,
            regions: 100,
            cache_bytes: 0,
        }
    }
}
