//! Verified writes: what each written chunk carries, and what a chunk that
//! reads back wrong tells.
//!
//! A write job with `verify=` cuts every I/O into chunks of
//! `verify_interval` bytes (the block size by default). Each chunk starts
//! with a header (offset, length, generation, writer, seed, file, the data's
//! checksum, and a CRC of the header itself) followed by data drawn from the
//! seed. Because the expected contents can be rebuilt from the header's
//! fields, a chunk that reads back wrong is not just "bad":
//! - a header for another offset (or file, or writer) is a **misdirected**
//!   write: the block landed in the wrong place;
//! - an older generation, zeros, or data without a header (the bytes laid out
//!   before) is a **stale** block: the last write to it was lost;
//! - the right header with the wrong data, or a few changed bytes anywhere,
//!   is **corrupted** data, and the first bad byte is named.
//!
//! This crate does no I/O: the runner hands it buffers and the expected
//! generations ([`Expectations`]), and reports what it returns.

mod check;
mod checksum;
mod error;
mod expect;
mod fill;

pub use checksum::{digest, digest_len, MAX_DIGEST};
pub use error::FormatError;
pub use expect::{Expectations, Expected};
pub use fill::{Format, Stamp};
pub use model::verify::MismatchKind;

/// What was wrong with one chunk, before the runner adds its path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub kind: MismatchKind,
    /// The chunk's offset in its file.
    pub offset: u64,
    pub length: u64,
    /// The first byte that differs, from the start of the file.
    pub first_bad_byte: Option<u64>,
    pub expected: String,
    pub found: String,
    /// The chunk's header was bad (unreadable, or not this chunk's): there
    /// is no whole chunk to hold it against, so fio's `verify_dump` writes
    /// only what was read, as `FILE.OFFSET.hdr_fail`.
    pub in_header: bool,
}

/// The chunk format of a job with `verify=` (`None` without), checked
/// against its block sizes: every write must hold whole chunks.
pub fn chunk_format(spec: &model::JobSpec) -> Result<Option<Format>, FormatError> {
    use model::Direction;
    let Some(v) = &spec.verify else {
        return Ok(None);
    };
    let sizes = [Direction::Read, Direction::Write].map(|d| spec.block_sizes_of(d));
    let min_block = sizes
        .iter()
        .map(|s| s.min_bytes())
        .min()
        .unwrap_or(spec.bs_bytes);
    let format = Format::new(v, min_block)?;
    let write_sizes = sizes[1].sizes();
    let align = [spec.blockalign_bytes.write].into_iter().filter(|&a| a > 0);
    if let Some(s) = write_sizes
        .into_iter()
        .chain(align)
        .find(|s| !s.is_multiple_of(format.grain))
    {
        return Err(FormatError::Chunks {
            interval: format.grain,
            size: s,
        });
    }
    Ok(Some(format))
}

/// The seed of one chunk's data: a mix of the job's seed, the file, the
/// chunk's offset and its generation, so that no two writes of a run carry
/// the same bytes and a later run (`verify_only`) can rebuild them.
pub fn chunk_seed(job_seed: u64, file: u32, offset: u64, generation: u64) -> u64 {
    let mut x = job_seed ^ 0x6462_7665_7269_6679; // "dbverify"
    for v in [file as u64, offset, generation] {
        x = model::rng::splitmix64(x ^ v);
    }
    x
}
