//! The chunk format and the writer's side: [`Format`] fills a write buffer
//! with headed chunks (or the `verify_pattern`), and rebuilds what a chunk
//! should hold when one reads back wrong.
//!
//! Header, little-endian, at the start of each chunk (or swapped to
//! `verify_offset`):
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `dbverify` |
//! | 8..16 | offset of the chunk in its file |
//! | 16..20 | length of the chunk |
//! | 20 | method (`verify=`) |
//! | 21 | format version (1) |
//! | 22..24 | writer (the clone that wrote it) |
//! | 24..32 | generation (the writer's write count) |
//! | 32..40 | seed of the data |
//! | 40..44 | file (index in the job) |
//! | 44..48 | zero |
//! | 48..48+n | checksum of the data (n bytes, by method) |
//! | 48+n..52+n | CRC-32C of everything above |
//!
//! The header is padded to 8 bytes with zeros (checked as they are read
//! back); the data follows it to the chunk's end.

use crate::checksum::{digest, digest_len};
use crate::error::FormatError;
use model::rng::splitmix64;
use model::verify::{PatternPiece, VerifyAlgo, VerifySpec};

pub(crate) const MAGIC: &[u8; 8] = b"dbverify";
pub(crate) const VERSION: u8 = 1;
pub(crate) const FIXED: usize = 48;

/// Who wrote a chunk, and which write it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub file: u32,
    pub writer: u16,
    pub generation: u64,
    pub seed: u64,
}

/// A header as read back (fields only; whether it is whole is checked apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub offset: u64,
    pub length: u32,
    pub algo: u8,
    pub stamp: Stamp,
}

/// How a job's chunks are laid out: the method, the chunk size, where the
/// header sits, and the data (random from the seed, or the pattern).
#[derive(Clone, Debug)]
pub struct Format {
    pub algo: VerifyAlgo,
    /// `verify_interval`: the size of a chunk.
    pub interval: u64,
    /// The unit chunks are cut from, and the job's table of writes counts
    /// in: the chunk itself when it divides the smallest write, else that
    /// write (fio's `verify_interval` need not divide `bs`: a 4096-byte
    /// block with verify_interval=3791 is a chunk of 3791 bytes and one of
    /// the 305 left).
    pub grain: u64,
    pub header_offset: u64,
    pub(crate) header_len: usize,
    pattern: Option<Vec<PatternPiece>>,
    /// The pattern's bytes, built once; `%o` pieces are zeros here and
    /// `offset_at` lists where each starts.
    unit: Vec<u8>,
    offset_at: Vec<usize>,
    /// `verify_pattern_interval`: the pattern starts again every this many
    /// bytes of a chunk (0: once per chunk).
    pattern_interval: usize,
    /// `verify_write_sequence`: a chunk the job wrote must be from its last
    /// write there (its writer and generation).
    pub(crate) write_sequence: bool,
    /// `verify_header_seed`: a chunk the job wrote must carry its seed.
    pub(crate) header_seed: bool,
}

impl Format {
    /// The format of a job whose writes are all multiples of `min_block`
    /// bytes; `Err` says which option to change.
    pub fn new(spec: &VerifySpec, min_block: u64) -> Result<Format, FormatError> {
        let algo = spec.algo;
        // A chunk is at most the smallest I/O: fio cuts each I/O into
        // chunks of verify_interval, and one shorter than that is one chunk.
        let interval = match spec.interval {
            0 => min_block,
            n => n.min(min_block),
        };
        let header_len = match algo.has_header() {
            true => (FIXED + digest_len(algo) + 4).div_ceil(8) * 8,
            false => 0,
        };
        let grain = match min_block.is_multiple_of(interval) {
            true => interval,
            false => min_block,
        };
        // The shortest chunk: the one left at the end of a grain.
        let shortest = match grain % interval {
            0 => interval,
            left => left,
        };
        if (shortest as usize) < header_len {
            return Err(match shortest == interval {
                true => FormatError::HeaderTooBig {
                    interval,
                    algo: algo.fio_name(),
                    header_len,
                },
                false => FormatError::Divide {
                    interval,
                    min_block,
                    left: shortest,
                    header_len,
                },
            });
        }
        // verify_offset moves the header; verify=pattern and null write
        // none, so there is nothing to move (fio runs such a job as if it
        // were not set).
        let ho = match algo.has_header() {
            true => spec.header_offset,
            false => 0,
        };
        if ho != 0 && (ho < header_len as u64 || ho + header_len as u64 > shortest) {
            return Err(FormatError::HeaderOffset {
                offset: ho,
                header_len,
                most: shortest.saturating_sub(header_len as u64),
                interval: shortest,
            });
        }
        if algo.needs_pattern() && spec.pattern.is_none() {
            return Err(FormatError::NoPattern);
        }
        let (mut unit, mut offset_at) = (Vec::new(), Vec::new());
        for piece in spec.pattern.iter().flatten() {
            match piece {
                PatternPiece::Bytes(b) => unit.extend_from_slice(b),
                PatternPiece::Offset => {
                    offset_at.push(unit.len());
                    unit.extend_from_slice(&[0; 8]);
                }
            }
        }
        Ok(Format {
            algo,
            interval,
            grain,
            header_offset: ho,
            header_len,
            pattern: spec.pattern.clone(),
            unit,
            offset_at,
            pattern_interval: spec.pattern_interval as usize,
            write_sequence: spec.write_sequence,
            header_seed: spec.header_seed,
        })
    }

    /// Fills `buf` (one write of whole chunks, starting at file offset
    /// `offset`) with chunks stamped `stamp`; each chunk's seed is
    /// [`crate::chunk_seed`] of `job_seed`.
    pub fn fill(&self, buf: &mut [u8], offset: u64, job_seed: u64, stamp: Stamp) {
        for (start, chunk) in self.chunks(buf) {
            let at = offset + start as u64;
            let seed = crate::chunk_seed(job_seed, stamp.file, at, stamp.generation);
            self.fill_chunk(chunk, at, Stamp { seed, ..stamp });
        }
    }

    /// The chunks of a buffer of whole grains, each with where it starts
    /// in the buffer: `interval` bytes at a time from each grain's start,
    /// the last of a grain shorter when the interval does not divide it.
    pub(crate) fn chunks<'a>(
        &self,
        buf: &'a mut [u8],
    ) -> impl Iterator<Item = (usize, &'a mut [u8])> + 'a {
        let (grain, step) = (self.grain as usize, self.interval as usize);
        buf.chunks_exact_mut(grain)
            .enumerate()
            .flat_map(move |(g, unit)| {
                unit.chunks_mut(step)
                    .enumerate()
                    .map(move |(i, c)| (g * grain + i * step, c))
            })
    }

    /// One chunk as it goes to the device.
    pub(crate) fn fill_chunk(&self, chunk: &mut [u8], offset: u64, stamp: Stamp) {
        match self.algo {
            VerifyAlgo::Pattern => self.fill_pattern(chunk, offset, 0),
            VerifyAlgo::Null => random_bytes(chunk, stamp.seed),
            _ => {
                let h = self.header_len;
                match &self.pattern {
                    Some(_) => self.fill_pattern(&mut chunk[h..], offset, h),
                    None => random_bytes(&mut chunk[h..], stamp.seed),
                }
                self.write_header(chunk, offset, stamp);
                self.swap_header(chunk);
            }
        }
    }

    fn write_header(&self, chunk: &mut [u8], offset: u64, s: Stamp) {
        let n = digest_len(self.algo);
        let length = chunk.len() as u32;
        let (head, data) = chunk.split_at_mut(self.header_len);
        head.fill(0);
        head[0..8].copy_from_slice(MAGIC);
        head[8..16].copy_from_slice(&offset.to_le_bytes());
        head[16..20].copy_from_slice(&length.to_le_bytes());
        head[20] = algo_id(self.algo);
        head[21] = VERSION;
        head[22..24].copy_from_slice(&s.writer.to_le_bytes());
        head[24..32].copy_from_slice(&s.generation.to_le_bytes());
        head[32..40].copy_from_slice(&s.seed.to_le_bytes());
        head[40..44].copy_from_slice(&s.file.to_le_bytes());
        digest(self.algo, data, &mut head[FIXED..FIXED + n]);
        let crc = crc32c::crc32c(&head[..FIXED + n]);
        head[FIXED + n..FIXED + n + 4].copy_from_slice(&crc.to_le_bytes());
    }

    /// Moves the header to `verify_offset` (and back: the swap is its own inverse).
    pub(crate) fn swap_header(&self, chunk: &mut [u8]) {
        let (ho, h) = (self.header_offset as usize, self.header_len);
        if ho == 0 {
            return;
        }
        let (front, back) = chunk.split_at_mut(ho);
        front[..h].swap_with_slice(&mut back[..h]);
    }

    /// Where byte `p` of the chunk as written (header first) lies on the device.
    pub(crate) fn on_device(&self, p: usize) -> usize {
        let (ho, h) = (self.header_offset as usize, self.header_len);
        match ho {
            0 => p,
            _ if p < h => ho + p,
            _ if p >= ho && p < ho + h => p - ho,
            _ => p,
        }
    }

    /// Reads a header's fields; `None` unless the magic, the header's CRC,
    /// the method and the version are right.
    pub(crate) fn read_header(&self, chunk: &[u8]) -> Option<Header> {
        let n = digest_len(self.algo);
        let head = chunk.get(..self.header_len)?;
        if &head[0..8] != MAGIC || head[21] != VERSION || head[20] != algo_id(self.algo) {
            return None;
        }
        let crc = u32::from_le_bytes(head[FIXED + n..FIXED + n + 4].try_into().ok()?);
        if crc != crc32c::crc32c(&head[..FIXED + n]) {
            return None;
        }
        // The padding to 8 bytes is written as zeros and no CRC covers it:
        // a changed byte there is damage too.
        if head[FIXED + n + 4..].iter().any(|&b| b != 0) {
            return None;
        }
        let u64_at = |a: usize| u64::from_le_bytes(head[a..a + 8].try_into().unwrap());
        Some(Header {
            offset: u64_at(8),
            length: u32::from_le_bytes(head[16..20].try_into().unwrap()),
            algo: head[20],
            stamp: Stamp {
                writer: u16::from_le_bytes([head[22], head[23]]),
                generation: u64_at(24),
                seed: u64_at(32),
                file: u32::from_le_bytes(head[40..44].try_into().unwrap()),
            },
        })
    }

    /// Whether the data's checksum matches the one in the (whole) header;
    /// for `pattern_hdr`, whether the data is the pattern.
    pub(crate) fn data_matches(&self, chunk: &[u8], offset: u64) -> bool {
        if self.algo == VerifyAlgo::PatternHdr {
            let h = self.header_len;
            let mut want = vec![0u8; chunk.len() - h];
            self.fill_pattern(&mut want, offset, h);
            return want == chunk[h..];
        }
        let n = digest_len(self.algo);
        if n == 0 {
            return true;
        }
        let mut sum = [0u8; crate::MAX_DIGEST];
        digest(self.algo, &chunk[self.header_len..], &mut sum);
        sum[..n] == chunk[FIXED..FIXED + n]
    }

    /// The offset a `%o` pattern chunk carries (read at the first `%o`).
    pub(crate) fn pattern_offset(&self, chunk: &[u8]) -> Option<u64> {
        let at = *self.offset_at.first()?;
        let bytes = chunk.get(at..at + 8)?;
        Some(u64::from_le_bytes(bytes.try_into().ok()?))
    }

    /// The pattern's bytes for the chunk at `offset`, from byte `from` of the
    /// chunk on (`%o` becomes the offset); with `verify_pattern_interval`,
    /// the pattern starts again at every interval, `%o` its offset.
    fn fill_pattern(&self, out: &mut [u8], offset: u64, from: usize) {
        let every = self.pattern_interval;
        if every == 0 {
            return self.fill_pattern_once(out, offset, from);
        }
        let mut done = 0;
        while done < out.len() {
            let at = from + done;
            let (piece, within) = (at / every, at % every);
            let n = (every - within).min(out.len() - done);
            let piece_offset = offset + (piece * every) as u64;
            self.fill_pattern_once(&mut out[done..done + n], piece_offset, within);
            done += n;
        }
    }

    /// One instance of the pattern, from its byte `from` on.
    fn fill_pattern_once(&self, out: &mut [u8], offset: u64, from: usize) {
        let patched;
        let unit = match self.offset_at.is_empty() {
            true => &self.unit,
            false => {
                let mut u = self.unit.clone();
                for &at in &self.offset_at {
                    u[at..at + 8].copy_from_slice(&offset.to_le_bytes());
                }
                patched = u;
                &patched
            }
        };
        if unit.is_empty() {
            out.fill(0);
            return;
        }
        for (i, b) in out.iter_mut().enumerate() {
            *b = unit[(from + i) % unit.len()];
        }
    }
}

/// Data drawn from `seed`, 8 bytes per step.
pub(crate) fn random_bytes(out: &mut [u8], seed: u64) {
    let mut state = seed;
    let mut words = out.chunks_exact_mut(8);
    for w in &mut words {
        state = state.wrapping_add(1);
        w.copy_from_slice(&splitmix64(state).to_le_bytes());
    }
    let tail = words.into_remainder();
    let last = splitmix64(state.wrapping_add(1)).to_le_bytes();
    let n = tail.len();
    tail.copy_from_slice(&last[..n]);
}

fn algo_id(algo: VerifyAlgo) -> u8 {
    algo as u8 + 1
}
