//! `log_store_compressed=1`: a log kept as fio keeps it compressed, so
//! that `fio --inflate-log` (and `diskbench fio --inflate-log`) turn it back
//! into the lines the plain log would hold. The file (`NAME_bw.N.log.fz`)
//! is a run of zlib streams, one per chunk of `log_compression` bytes of
//! samples (1 MiB when that is not given), each sample in fio's binary
//! layout, little-endian: time (u64, ms), value (u64), direction (u32; its
//! top bit says an offset follows, the next that the priority is the raw
//! ioprio value, `log_prio`), priority (u16) and 2 bytes of padding, block
//! size (u64), then the offset (u64) with `log_offset`: 32 or 40 bytes.
//! Chunks are compressed as the job runs, so memory stays at one chunk.

use flate2::write::ZlibEncoder;
use flate2::Compression;
use std::io::{self, Write};

/// The direction field's flags.
const OFFSET_BIT: u32 = 0x8000_0000;
const PRIO_BIT: u32 = 0x4000_0000;

/// The chunk size when `log_compression` is not given.
const DEFAULT_CHUNK: usize = 1 << 20;

/// One line of a log, whichever way it is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub ms: u64,
    pub value: u64,
    /// With `log_window_value=both`: the window's largest value.
    pub value1: Option<u64>,
    pub dir: u8,
    pub bs: u64,
    /// With `log_offset`.
    pub offset: Option<u64>,
    /// The I/O's ioprio value (0 on windowed lines).
    pub prio: u16,
    /// With `log_issue_time`: when the I/O was issued, in ns from the start.
    pub issued: Option<u64>,
}

/// Samples waiting to be compressed as one chunk.
pub(crate) struct Packer {
    raw: Vec<u8>,
    chunk: usize,
    /// `log_prio`: the priority is the raw value, flagged so.
    log_prio: bool,
}

impl Packer {
    /// `chunk`: `log_compression` in bytes (0: the default).
    pub(crate) fn new(chunk: u64, log_prio: bool) -> Packer {
        let chunk = match chunk {
            0 => DEFAULT_CHUNK,
            n => usize::try_from(n).unwrap_or(DEFAULT_CHUNK),
        };
        Packer {
            raw: Vec::with_capacity(chunk.min(DEFAULT_CHUNK) + 40),
            chunk,
            log_prio,
        }
    }

    /// Adds `e`, and writes a compressed chunk to `w` when one is full.
    pub(crate) fn push(&mut self, e: &Entry, w: &mut impl Write) -> io::Result<()> {
        let mut dir = u32::from(e.dir);
        if e.offset.is_some() {
            dir |= OFFSET_BIT;
        }
        if self.log_prio {
            dir |= PRIO_BIT;
        }
        self.raw.extend_from_slice(&e.ms.to_le_bytes());
        self.raw.extend_from_slice(&e.value.to_le_bytes());
        self.raw.extend_from_slice(&dir.to_le_bytes());
        self.raw.extend_from_slice(&e.prio.to_le_bytes());
        self.raw.extend_from_slice(&[0, 0]);
        self.raw.extend_from_slice(&e.bs.to_le_bytes());
        if let Some(offset) = e.offset {
            self.raw.extend_from_slice(&offset.to_le_bytes());
        }
        match self.raw.len() >= self.chunk {
            true => self.flush(w),
            false => Ok(()),
        }
    }

    /// Compresses what is waiting as one zlib stream onto `w`.
    pub(crate) fn flush(&mut self, w: &mut impl Write) -> io::Result<()> {
        if self.raw.is_empty() {
            return Ok(());
        }
        let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
        z.write_all(&self.raw)?;
        w.write_all(&z.finish()?)?;
        self.raw.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::read::ZlibDecoder;
    use std::io::Read;

    #[test]
    fn each_full_chunk_is_a_zlib_stream_of_fios_samples() {
        // Two 40-byte samples per chunk of 64 bytes: a stream per 2.
        let mut p = Packer::new(64, false);
        let mut out = Vec::new();
        for i in 0..5u64 {
            let e = Entry {
                ms: i,
                value: 100 + i,
                dir: 1,
                bs: 4096,
                offset: Some(i * 4096),
                prio: 0,
                value1: None,
                issued: None,
            };
            p.push(&e, &mut out).unwrap();
        }
        p.flush(&mut out).unwrap();
        let mut rest = &out[..];
        let mut streams = Vec::new();
        while !rest.is_empty() {
            let mut z = ZlibDecoder::new(rest);
            let mut raw = Vec::new();
            z.read_to_end(&mut raw).unwrap();
            rest = &rest[z.total_in() as usize..];
            streams.push(raw);
        }
        assert_eq!(
            streams.iter().map(Vec::len).collect::<Vec<_>>(),
            [80, 80, 40]
        );
        let first = &streams[0];
        assert_eq!(u64::from_le_bytes(first[8..16].try_into().unwrap()), 100);
        let dir = u32::from_le_bytes(first[16..20].try_into().unwrap());
        assert_eq!(dir, 1 | OFFSET_BIT);
        assert_eq!(u64::from_le_bytes(first[72..80].try_into().unwrap()), 4096);
    }
}
