//! The reader's side: is a chunk what was written, and if not, what is it?
//!
//! With the expected generation known (the job wrote the chunk, or
//! `verify_only` replayed its writes), the whole expected chunk can be
//! rebuilt, so even a chunk whose header was hit is told apart from one that
//! was never written. Without it (a read job checking an earlier run's
//! data), each chunk is checked on its own: its header must be whole, for
//! this offset and file, and its data must match its checksum.

use crate::expect::Expected;
use crate::fill::{Format, Header, Stamp, MAGIC};
use crate::{chunk_seed, Mismatch};
use model::verify::{MismatchKind, VerifyAlgo};

/// A chunk differing from its rebuild in at most one byte in this many is
/// damaged in place; more, and it holds other data (a stale block).
const DAMAGE_RATIO: usize = 8;

impl Format {
    /// Checks one read of whole chunks at file offset `offset` and pushes a
    /// [`Mismatch`] per bad chunk; `expect` says what the job wrote at a
    /// chunk's offset (`None`: check the chunk on its own). Returns the
    /// number of chunks checked. The buffer is changed (headers swapped back).
    pub fn check(
        &self,
        buf: &mut [u8],
        file: u32,
        offset: u64,
        job_seed: u64,
        expect: impl Fn(u64) -> Option<Expected>,
        out: &mut Vec<Mismatch>,
    ) -> u64 {
        let mut checked = 0;
        for (start, chunk) in self.chunks(buf) {
            let at = offset + start as u64;
            checked += 1;
            if let Err(m) = self.check_chunk(chunk, file, at, job_seed, expect(at)) {
                out.push(m);
            }
        }
        checked
    }

    /// What the chunk at `offset` should hold, as it lies on the device (for
    /// `verify_dump`): from the expectation, else from the chunk's own
    /// header when that is whole. `read` is the chunk as checked.
    pub fn expected_chunk(
        &self,
        read: &[u8],
        file: u32,
        offset: u64,
        job_seed: u64,
        expected: Option<Expected>,
    ) -> Option<Vec<u8>> {
        let stamp = match (expected, self.algo) {
            (_, VerifyAlgo::Pattern) => Stamp {
                file,
                writer: 0,
                generation: 0,
                seed: 0,
            },
            (Some(e), _) => e.stamp(job_seed, file, offset),
            (None, _) => self.read_header(read)?.stamp,
        };
        let mut chunk = vec![0u8; read.len()];
        self.fill_chunk(&mut chunk, offset, stamp);
        Some(chunk)
    }

    /// Checks one chunk: a pattern is rebuilt and compared; a stamped chunk
    /// must have a whole header for this place (and, when known, for the
    /// last write there), then data matching it.
    fn check_chunk(
        &self,
        chunk: &mut [u8],
        file: u32,
        offset: u64,
        job_seed: u64,
        expected: Option<Expected>,
    ) -> Result<(), Mismatch> {
        let length = chunk.len() as u64;
        let mismatch = |kind, first: Option<usize>, expected: String, found: String| Mismatch {
            kind,
            offset,
            length,
            first_bad_byte: first.map(|p| offset + self.on_device(p) as u64),
            expected,
            found,
            in_header: false,
        };
        let in_header = |m: Mismatch| Mismatch {
            in_header: true,
            ..m
        };
        match self.algo {
            VerifyAlgo::Null => Ok(()),
            VerifyAlgo::Pattern => self.check_pattern(chunk, file, offset, job_seed, &mismatch),
            _ => {
                self.swap_header(chunk);
                let Some(h) = self.read_header(chunk) else {
                    let m = self.headless(chunk, file, offset, job_seed, expected, &mismatch);
                    return Err(in_header(m));
                };
                (self.check_header(&h, file, offset, job_seed, expected, &mismatch))
                    .map_err(in_header)?;
                self.check_data(chunk, offset, h.stamp, &mismatch)
            }
        }
    }

    /// A pattern chunk against its rebuild; with `%o` in the pattern, a
    /// chunk can say where it was meant to go.
    fn check_pattern(
        &self,
        chunk: &[u8],
        file: u32,
        offset: u64,
        job_seed: u64,
        mismatch: &impl Fn(MismatchKind, Option<usize>, String, String) -> Mismatch,
    ) -> Result<(), Mismatch> {
        let want = self
            .expected_chunk(chunk, file, offset, job_seed, None)
            .expect("a pattern chunk can always be rebuilt");
        let Some(d) = compare(&want, chunk) else {
            return Ok(());
        };
        if let Some(meant) = self.pattern_offset(chunk).filter(|&o| o != offset) {
            let theirs = self.expected_chunk(chunk, file, meant, job_seed, None);
            if theirs.as_deref() == Some(chunk) {
                return Err(mismatch(
                    MismatchKind::Misdirected,
                    None,
                    format!("the chunk for offset {offset}"),
                    format!("the chunk for offset {meant}"),
                ));
            }
        }
        Err(self.by_bytes(d, chunk, mismatch, "the pattern"))
    }

    /// A whole header must be for this offset and file and, when the last
    /// write here is known, from that write: its writer, its generation
    /// (older: stale; newer than any write: corrupted), unless
    /// `verify_write_sequence=0`, and this job's seed, unless
    /// `verify_header_seed=0` (fio 3.42's two checks of its header).
    fn check_header(
        &self,
        h: &Header,
        file: u32,
        offset: u64,
        job_seed: u64,
        expected: Option<Expected>,
        mismatch: &impl Fn(MismatchKind, Option<usize>, String, String) -> Mismatch,
    ) -> Result<(), Mismatch> {
        if h.offset != offset || h.stamp.file != file {
            let place = |o: u64, f: u32| match f == file {
                true => format!("the chunk for offset {o}"),
                false => format!("the chunk for offset {o} of file #{f}"),
            };
            return Err(mismatch(
                MismatchKind::Misdirected,
                None,
                place(offset, file),
                place(h.offset, h.stamp.file),
            ));
        }
        let Some(e) = expected else {
            return Ok(());
        };
        let g = h.stamp.generation;
        if self.write_sequence && h.stamp.writer != e.writer {
            return Err(mismatch(
                MismatchKind::Misdirected,
                None,
                format!("a chunk written by clone {}", e.writer),
                format!("one written by clone {}", h.stamp.writer),
            ));
        }
        if self.write_sequence && !e.accepts(g) {
            let kind = match g < e.generation {
                true => MismatchKind::Stale,
                false => MismatchKind::Corrupted,
            };
            return Err(mismatch(
                kind,
                None,
                format!("generation {} (the last write)", e.generation),
                format!("generation {g}"),
            ));
        }
        if self.header_seed && h.stamp.seed != chunk_seed(job_seed, file, offset, g) {
            return Err(mismatch(
                MismatchKind::Misdirected,
                None,
                "data seeded by this job".into(),
                "a chunk written by another job (its seed differs)".into(),
            ));
        }
        Ok(())
    }

    /// The data after a good header must match its checksum; if not, the
    /// rebuilt chunk says how much differs.
    fn check_data(
        &self,
        chunk: &[u8],
        offset: u64,
        stamp: Stamp,
        mismatch: &impl Fn(MismatchKind, Option<usize>, String, String) -> Mismatch,
    ) -> Result<(), Mismatch> {
        if self.data_matches(chunk, offset) {
            return Ok(());
        }
        let mut want = vec![0u8; chunk.len()];
        self.fill_chunk(&mut want, offset, stamp);
        self.swap_header(&mut want);
        Err(match compare(&want, chunk) {
            Some(d) => self.by_bytes(d, chunk, mismatch, "the data written"),
            // Same bytes, other checksum: only the stored sum can be off,
            // and the header's CRC vouches for it; say so plainly.
            None => mismatch(
                MismatchKind::Corrupted,
                None,
                "a data checksum matching the header".into(),
                "another checksum".into(),
            ),
        })
    }

    /// A chunk whose header is not whole: zeros, damage, or other data.
    fn headless(
        &self,
        chunk: &[u8],
        file: u32,
        offset: u64,
        job_seed: u64,
        expected: Option<Expected>,
        mismatch: &impl Fn(MismatchKind, Option<usize>, String, String) -> Mismatch,
    ) -> Mismatch {
        let want_words = match expected {
            Some(e) => format!("generation {} (the last write)", e.generation),
            None => "a chunk written with verify".into(),
        };
        if chunk.iter().all(|&b| b == 0) {
            return mismatch(
                MismatchKind::Stale,
                None,
                want_words,
                "zeros (the write never reached the device)".into(),
            );
        }
        if let Some(e) = expected {
            let mut want = vec![0u8; chunk.len()];
            self.fill_chunk(&mut want, offset, e.stamp(job_seed, file, offset));
            self.swap_header(&mut want);
            if let Some(d) = compare(&want, chunk) {
                return self.by_bytes(d, chunk, mismatch, "the data written");
            }
        }
        let magic_off = chunk[..8].iter().zip(MAGIC).filter(|(a, b)| a != b).count();
        match magic_off <= 2 {
            true => mismatch(
                MismatchKind::Corrupted,
                None,
                "a whole header".into(),
                "a damaged header (its CRC or its zero padding does not match)".into(),
            ),
            false => mismatch(
                MismatchKind::Stale,
                None,
                want_words,
                "data without a diskbench header (what was there before the write)".into(),
            ),
        }
    }

    /// Few bytes off: damaged in place; many: other (older) data.
    fn by_bytes(
        &self,
        d: Diff,
        chunk: &[u8],
        mismatch: &impl Fn(MismatchKind, Option<usize>, String, String) -> Mismatch,
        what: &str,
    ) -> Mismatch {
        if d.count * DAMAGE_RATIO > chunk.len() {
            let found = match chunk.iter().all(|&b| b == 0) {
                true => "zeros (the write never reached the device)".to_string(),
                false => format!("other data ({} of {} bytes differ)", d.count, chunk.len()),
            };
            return mismatch(MismatchKind::Stale, Some(d.first), what.to_string(), found);
        }
        mismatch(
            MismatchKind::Corrupted,
            Some(d.first),
            format!("byte 0x{:02x}", d.expected),
            format!(
                "0x{:02x} ({} of {} bytes differ)",
                d.found,
                d.count,
                chunk.len()
            ),
        )
    }
}

/// Where two chunks first differ, and how much.
struct Diff {
    first: usize,
    count: usize,
    expected: u8,
    found: u8,
}

fn compare(want: &[u8], got: &[u8]) -> Option<Diff> {
    let first = want.iter().zip(got).position(|(a, b)| a != b)?;
    let count = want.iter().zip(got).filter(|(a, b)| a != b).count();
    Some(Diff {
        first,
        count,
        expected: want[first],
        found: got[first],
    })
}
