//! A job's block sizes, per direction: fio's `bs` (one size), `bsrange`
//! (every multiple of the smallest up to the largest) and `bssplit`
//! (weighted sizes), and the sizes as the options gave them, which fio's
//! normal output prints before the run even where the job settles them
//! otherwise (`bs_is_seq_rand`, a direction the job does not use).

use crate::direction::PerDir;
use serde::{Deserialize, Serialize};

/// One block size of `bssplit` and its share of the I/Os, in percent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BsShare {
    pub bytes: u64,
    pub pct: u32,
}

/// The block sizes of one direction: `bs` (a range with `min == max`),
/// `bsrange` (every multiple of `min` up to `max`, equally likely) or
/// `bssplit` (weighted sizes whose shares add up to 100).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockSizes {
    Range { min_bytes: u64, max_bytes: u64 },
    Split(Vec<BsShare>),
}

impl BlockSizes {
    pub fn fixed(bytes: u64) -> BlockSizes {
        BlockSizes::Range {
            min_bytes: bytes,
            max_bytes: bytes,
        }
    }
    pub fn min_bytes(&self) -> u64 {
        match self {
            BlockSizes::Range { min_bytes, .. } => *min_bytes,
            BlockSizes::Split(s) => s.iter().map(|s| s.bytes).min().unwrap_or(0),
        }
    }
    pub fn max_bytes(&self) -> u64 {
        match self {
            BlockSizes::Range { max_bytes, .. } => *max_bytes,
            BlockSizes::Split(s) => s.iter().map(|s| s.bytes).max().unwrap_or(0),
        }
    }
    /// Every size the direction can use.
    pub fn sizes(&self) -> Vec<u64> {
        match self {
            BlockSizes::Range {
                min_bytes,
                max_bytes,
            } => (1..=max_bytes / min_bytes.max(&1))
                .map(|k| k * min_bytes)
                .collect(),
            BlockSizes::Split(s) => s.iter().map(|s| s.bytes).collect(),
        }
    }
}

/// A job's smallest and largest block sizes as its options gave them
/// ([`JobSpec::bs_as_given`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BsAsGiven {
    pub sizes: PerDir<(u64, u64)>,
    /// The trims' (the third part of `bs=R,W,T`).
    pub trim: (u64, u64),
}
