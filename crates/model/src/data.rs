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
        }
    }
}

impl BufferData {
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
