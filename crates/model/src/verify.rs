//! fio's `verify` options as understood ([`VerifySpec`]), and what a verify
//! pass found ([`VerifyResult`]).
//!
//! Every written chunk carries a header (offset, length, generation, seed,
//! checksum), so a mismatch is not only "bad": the reader can tell a corrupted
//! chunk from a stale one (a lost write) and from one that belongs elsewhere
//! (a misdirected write). The format and the checks live in the `verify`
//! crate; this module is the data the parser, the runner and the reports share.

use serde::{Deserialize, Serialize};

/// fio's `verify=` methods.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerifyAlgo {
    Md5,
    Crc64,
    #[default]
    Crc32c,
    Crc32,
    Crc16,
    Crc7,
    Xxhash,
    Sha1,
    Sha256,
    Sha512,
    /// The header only (fio keeps the name for old job files).
    Meta,
    /// The `verify_pattern` bytes only, no header.
    Pattern,
    /// Write and read back, check nothing (fio: for testing internals).
    Null,
    /// `pattern_hdr`: the `verify_pattern` bytes after a header; the data
    /// is checked against the pattern, the header for its place and write.
    PatternHdr,
}

impl VerifyAlgo {
    pub const NAMES: &'static str =
        "md5, crc64, crc32c, crc32c-intel, crc32, crc16, crc7, xxhash, sha1, sha256, sha512, meta, pattern, pattern_hdr, null";

    pub fn parse(text: &str) -> Option<VerifyAlgo> {
        Some(match text {
            "md5" => VerifyAlgo::Md5,
            "crc64" => VerifyAlgo::Crc64,
            "crc32c" | "crc32c-intel" => VerifyAlgo::Crc32c,
            "crc32" => VerifyAlgo::Crc32,
            "crc16" => VerifyAlgo::Crc16,
            "crc7" => VerifyAlgo::Crc7,
            "xxhash" => VerifyAlgo::Xxhash,
            "sha1" => VerifyAlgo::Sha1,
            "sha256" => VerifyAlgo::Sha256,
            "sha512" => VerifyAlgo::Sha512,
            "meta" => VerifyAlgo::Meta,
            "pattern" => VerifyAlgo::Pattern,
            "pattern_hdr" => VerifyAlgo::PatternHdr,
            "null" => VerifyAlgo::Null,
            _ => return None,
        })
    }

    pub fn fio_name(self) -> &'static str {
        match self {
            VerifyAlgo::Md5 => "md5",
            VerifyAlgo::Crc64 => "crc64",
            VerifyAlgo::Crc32c => "crc32c",
            VerifyAlgo::Crc32 => "crc32",
            VerifyAlgo::Crc16 => "crc16",
            VerifyAlgo::Crc7 => "crc7",
            VerifyAlgo::Xxhash => "xxhash",
            VerifyAlgo::Sha1 => "sha1",
            VerifyAlgo::Sha256 => "sha256",
            VerifyAlgo::Sha512 => "sha512",
            VerifyAlgo::Meta => "meta",
            VerifyAlgo::Pattern => "pattern",
            VerifyAlgo::PatternHdr => "pattern_hdr",
            VerifyAlgo::Null => "null",
        }
    }

    /// Whether the chunks' data is `verify_pattern` (which the job must give).
    pub fn needs_pattern(self) -> bool {
        matches!(self, VerifyAlgo::Pattern | VerifyAlgo::PatternHdr)
    }

    /// Chunks carry diskbench's header (all but `pattern` and `null`).
    pub fn has_header(self) -> bool {
        !matches!(self, VerifyAlgo::Pattern | VerifyAlgo::Null)
    }
}

/// One piece of a `verify_pattern`: bytes, or `%o` (the chunk's offset, as
/// 8 little-endian bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PatternPiece {
    Bytes(Vec<u8>),
    Offset,
}

/// What `verify*` asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifySpec {
    pub algo: VerifyAlgo,
    /// `do_verify`: read back and check after writing (fio: on).
    pub do_verify: bool,
    /// `verify_only`: do not write; check what an earlier run of the same job wrote.
    pub only: bool,
    /// `verify_interval`: bytes per header (0: the block size).
    pub interval: u64,
    /// `verify_offset`: where in each chunk the header is swapped to.
    pub header_offset: u64,
    /// `verify_pattern`: the data of each chunk instead of random bytes.
    pub pattern: Option<Vec<PatternPiece>>,
    /// `verify_fatal`: stop at the first bad chunk (fio: check everything).
    pub fatal: bool,
    /// `verify_dump`: write the expected and the received chunk to files.
    pub dump: bool,
    /// `verify_backlog`: check what was written every this many writes (0: at the end).
    pub backlog: u64,
    /// `verify_backlog_batch`: how many of those to check (0: all of them).
    pub backlog_batch: u64,
    /// `verify_write_sequence` (newer fio than 3.33; on by default): a chunk must be
    /// from the job's last write there (its writer and generation). Off, a
    /// chunk whose header is for its place and whose data matches its
    /// checksum passes, as when jobs write over each other's blocks.
    #[serde(default = "crate::serde_defaults::default_true")]
    pub write_sequence: bool,
    /// `verify_header_seed` (newer fio than 3.33; on by default): a chunk the job
    /// wrote must carry the seed its data was made from (each clone has its
    /// own). Off, a chunk another clone wrote passes if it is whole.
    #[serde(default = "crate::serde_defaults::default_true")]
    pub header_seed: bool,
    /// `verify_pattern_interval`: the pattern starts again every this many
    /// bytes of a chunk, `%o` then the offset of that piece (0: once per chunk).
    #[serde(default)]
    pub pattern_interval: u64,
    /// `verify_state_save` (fio: on): a write job leaves a state file saying
    /// how many writes it completed, for a later `verify_state_load`.
    #[serde(default = "crate::serde_defaults::default_true")]
    pub state_save: bool,
    /// `verify_state_load`: check only as far as the saved state says the
    /// writing job got.
    #[serde(default)]
    pub state_load: bool,
    /// `verify_policy=fsynced`: the saved state counts only the writes
    /// completed before the job's last fsync (fio's default, `completed`:
    /// every completed write).
    #[serde(default)]
    pub fsynced: bool,
    /// Where the state files go: fio's `--aux-path` (`None`: the current
    /// directory).
    #[serde(default)]
    pub state_dir: Option<String>,
}

impl Default for VerifySpec {
    fn default() -> Self {
        VerifySpec {
            algo: VerifyAlgo::default(),
            do_verify: true,
            only: false,
            interval: 0,
            header_offset: 0,
            pattern: None,
            fatal: false,
            dump: false,
            backlog: 0,
            backlog_batch: 0,
            write_sequence: true,
            header_seed: true,
            pattern_interval: 0,
            state_save: true,
            state_load: false,
            fsynced: false,
            state_dir: None,
        }
    }
}

/// What was wrong with a chunk that did not read back as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MismatchKind {
    /// The chunk is the one written here, but its bytes changed.
    Corrupted,
    /// The chunk holds older data: the last write to it was lost.
    Stale,
    /// The chunk holds a block written for another place (a misdirected write).
    Misdirected,
}

impl MismatchKind {
    pub fn describe(self) -> &'static str {
        match self {
            MismatchKind::Corrupted => "corrupted data",
            MismatchKind::Stale => "stale block (a lost write)",
            MismatchKind::Misdirected => "misdirected write (a block from another offset)",
        }
    }
}

/// One bad chunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyFailure {
    pub path: String,
    /// Where the chunk starts, in bytes from the start of the file.
    pub offset: u64,
    pub length: u64,
    pub kind: MismatchKind,
    /// The first byte that differs, from the start of the file, when known.
    pub first_bad_byte: Option<u64>,
    /// What was expected and what was found, in words ("offset 8192",
    /// "generation 5", "byte 0x3a").
    pub expected: String,
    pub found: String,
    /// The read the chunk was checked in (fio's "requested block"); zero in
    /// runs saved before it was kept.
    #[serde(default)]
    pub io_offset: u64,
    #[serde(default)]
    pub io_length: u64,
}

impl VerifyFailure {
    /// fio's lines on stderr for a chunk that failed its check (method
    /// `algo`): `crc32c: verify failed at file F offset O, length L
    /// (requested block: offset=O, length=L)`, then what was expected and
    /// what was received, indented as fio indents its checksums.
    pub fn fio_lines(&self, algo: &str) -> String {
        format!(
            "{algo}: verify failed at file {} offset {}, length {} (requested block: offset={}, length={})\n       Expected: {}\n       Received: {}",
            self.path, self.offset, self.length, self.io_offset, self.io_length, self.expected, self.found
        )
    }
}

impl std::fmt::Display for VerifyFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at offset {}, length {}: {}",
            self.path,
            self.offset,
            self.length,
            self.kind.describe()
        )?;
        if let Some(b) = self.first_bad_byte {
            write!(f, ", first bad byte at offset {b}")?;
        }
        write!(f, "; expected {}, found {}", self.expected, self.found)
    }
}

/// What a job's verification found (diskbench's own JSON key `verify`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyResult {
    pub algo: String,
    /// Chunks read back and checked.
    pub checked: u64,
    /// Chunks that did not match, and how many of each kind.
    pub bad: u64,
    pub corrupted: u64,
    pub stale: u64,
    pub misdirected: u64,
    /// The first bad chunks, in the order they were found (at most
    /// [`VerifyResult::KEPT`]).
    pub failures: Vec<VerifyFailure>,
    /// `verify_only`: the writes (and their bytes) the job stood for
    /// without doing them, the earlier run's, replayed to know what to
    /// check. fio counts them in the write direction's `total_ios` and
    /// `io_bytes` (with no runtime, so no bandwidth); zero otherwise.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub replayed_writes: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub replayed_bytes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl VerifyResult {
    /// Failures kept in full; the rest are only counted.
    pub const KEPT: usize = 16;

    pub fn record(&mut self, failure: VerifyFailure) {
        self.bad += 1;
        match failure.kind {
            MismatchKind::Corrupted => self.corrupted += 1,
            MismatchKind::Stale => self.stale += 1,
            MismatchKind::Misdirected => self.misdirected += 1,
        }
        if self.failures.len() < Self::KEPT {
            self.failures.push(failure);
        }
    }

    /// Adds another clone's result.
    pub fn merge(&mut self, other: &VerifyResult) {
        if self.algo.is_empty() {
            self.algo = other.algo.clone();
        }
        self.checked += other.checked;
        self.bad += other.bad;
        self.corrupted += other.corrupted;
        self.stale += other.stale;
        self.misdirected += other.misdirected;
        self.replayed_writes += other.replayed_writes;
        self.replayed_bytes += other.replayed_bytes;
        let room = Self::KEPT.saturating_sub(self.failures.len());
        self.failures
            .extend(other.failures.iter().take(room).cloned());
    }

    /// Puts the kept failures in file and offset order (reads of a verify
    /// pass complete in any order).
    pub fn sort(&mut self) {
        self.failures
            .sort_by(|a, b| (&a.path, a.offset).cmp(&(&b.path, b.offset)));
    }

    /// The job's error line: how many chunks were bad, and the first one.
    pub fn error(&self) -> Option<String> {
        let first = self.failures.first()?;
        Some(format!(
            "verify ({}): {} of {} chunks bad ({} corrupted, {} stale, {} misdirected); first: {first}",
            self.algo, self.bad, self.checked, self.corrupted, self.stale, self.misdirected
        ))
    }
}
