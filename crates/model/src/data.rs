//! What a job writes: fio's buffer options. Compressing and deduplicating
//! SSDs and cloud volumes give very different figures on zeros, on
//! compressible data and on random data, so the data is part of what was
//! measured and the JSON says what it was ([`BufferData::describe`]).
//!
//! diskbench's default is fio's: random buffers, each write made unique
//! ("scrambled": the offset and a sequence number at the start of every
//! 4 KiB), so no device can compress or deduplicate them.

use serde::{Deserialize, Serialize};

/// fio's `dedupe_mode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DedupeMode {
    /// A duplicate repeats the previous unique buffer.
    #[default]
    Repeat,
    /// A duplicate repeats one of a working set of unique buffers
    /// (`dedupe_working_set_percentage` of the job's blocks).
    WorkingSet,
}

impl DedupeMode {
    pub fn fio_name(self) -> &'static str {
        match self {
            DedupeMode::Repeat => "repeat",
            DedupeMode::WorkingSet => "working_set",
        }
    }
}

/// fio's buffer options for one job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferData {
    /// `zero_buffers`.
    pub zero: bool,
    /// `refill_buffers`: fresh random data for every write.
    pub refill: bool,
    /// `scramble_buffers` (default on).
    pub scramble: bool,
    /// `buffer_pattern`, as bytes, repeated.
    pub pattern: Option<Vec<u8>>,
    /// `buffer_compress_percentage`: this share of each chunk is the fixed
    /// pattern (zeros, or `buffer_pattern`), the rest random.
    pub compress_pct: Option<u32>,
    /// `buffer_compress_chunk` (fio's default 512; 0: the whole block).
    pub compress_chunk: u64,
    /// `dedupe_percentage`: this share of writes repeats an earlier buffer.
    pub dedupe_pct: u32,
    pub dedupe_mode: DedupeMode,
    /// `dedupe_working_set_percentage` (fio's default 5).
    pub dedupe_working_set_pct: u32,
    /// `dedupe_global`: the working set is shared by every job of the run
    /// that sets it, each giving an equal share of its own (`working_set`
    /// mode only: a `repeat` duplicate repeats the job's own last buffer,
    /// as in fio 3.33).
    #[serde(default)]
    pub dedupe_global: bool,
}

impl Default for BufferData {
    fn default() -> BufferData {
        BufferData {
            zero: false,
            refill: false,
            scramble: true,
            pattern: None,
            compress_pct: None,
            compress_chunk: 512,
            dedupe_pct: 0,
            dedupe_mode: DedupeMode::Repeat,
            dedupe_working_set_pct: 5,
            dedupe_global: false,
        }
    }
}

impl BufferData {
    /// Whether the writes carry diskbench's default data: `dedupe_global`
    /// alone changes nothing (it shares the duplicates of `dedupe_percentage`).
    pub fn is_default(&self) -> bool {
        let plain = BufferData {
            dedupe_global: false,
            ..self.clone()
        };
        plain == BufferData::default()
    }

    /// The blocks of the `working_set` of a job (or clone) of `job_blocks`
    /// blocks: `dedupe_working_set_percentage` of them, at least one.
    pub fn working_set_blocks(&self, job_blocks: u64) -> u64 {
        (job_blocks * u64::from(self.dedupe_working_set_pct) / 100).max(1)
    }

    /// Whether the job takes part in a run-wide dedupe working set.
    pub fn shares_working_set(&self) -> bool {
        self.dedupe_global && self.dedupe_pct > 0 && self.dedupe_mode == DedupeMode::WorkingSet
    }

    /// Whether every write is fresh random data: `refill_buffers`, or (as
    /// fio turns it on) compression or dedupe asked for.
    pub fn refills(&self) -> bool {
        self.refill || self.compress_pct.is_some_and(|p| p != 100) || self.dedupe_pct > 0
    }

    /// What the written data is, in a word: `random`, `zeros`, `pattern`,
    /// `compressible`; deduplicable data says so separately.
    pub fn kind(&self) -> &'static str {
        match self {
            _ if self.compress_pct.is_some() => "compressible",
            BufferData {
                pattern: Some(_), ..
            } => "pattern",
            BufferData { zero: true, .. } => "zeros",
            _ => "random",
        }
    }

    /// Whether every write is different from every other (nothing for a
    /// device to deduplicate).
    pub fn unique(&self) -> bool {
        let random = matches!(self.kind(), "random" | "compressible");
        random && self.dedupe_pct == 0 && (self.refills() || self.scramble)
    }
}
