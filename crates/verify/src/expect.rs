//! What a job wrote where: the generation of the last write to each chunk,
//! so the verify pass knows what every chunk should hold.
//!
//! One `u64` per chunk, in pages allocated on first write, so a job that
//! writes a small part of a large device pays for that part only. fio keeps
//! a tree node per written block for the same purpose.
//!
//! Two writes to one chunk can be in flight at once (a random job with
//! `norandommap`, or the next pass of the random map meeting the end of the
//! last one at a high iodepth); the device may then keep either, so both are
//! accepted (`alt`). fio warns that such jobs give false verify errors; here
//! they do not.
//!
//! A chunk read back and checked by a `verify_backlog` pass is marked, and
//! the final pass reads only the chunks not checked since their last write:
//! fio reads 100 MiB for a 100 MiB `rw=write` job with `verify_backlog=32`,
//! not 200 (each write is checked once, as it drops the block from its list).

use crate::chunk_seed;
use crate::fill::Stamp;
use std::collections::HashMap;

const PAGE: usize = 4096;

/// The top bit of a chunk's slot: checked since its last write.
const CHECKED: u64 = 1 << 63;

/// What the job wrote last at one chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    pub generation: u64,
    /// Another generation the device may hold instead (a racing write).
    pub alt: Option<u64>,
    pub writer: u16,
}

impl Expected {
    pub fn accepts(&self, generation: u64) -> bool {
        generation == self.generation || Some(generation) == self.alt
    }

    pub(crate) fn stamp(&self, job_seed: u64, file: u32, offset: u64) -> Stamp {
        Stamp {
            file,
            writer: self.writer,
            generation: self.generation,
            seed: chunk_seed(job_seed, file, offset, self.generation),
        }
    }
}

/// The expected generations of one writer's files.
#[derive(Debug)]
pub struct Expectations {
    interval: u64,
    writer: u16,
    files: Vec<FileTable>,
}

#[derive(Debug, Default)]
struct FileTable {
    base: u64,
    chunks: u64,
    pages: Vec<Option<Box<[u64]>>>,
    alt: HashMap<u64, u64>,
    written: u64,
}

impl Expectations {
    /// `files`: each file's region as (first byte, length); chunks of `interval`.
    pub fn new(files: &[(u64, u64)], interval: u64, writer: u16) -> Expectations {
        let interval = interval.max(1);
        Expectations {
            interval,
            writer,
            files: files
                .iter()
                .map(|&(base, len)| {
                    let chunks = len / interval;
                    FileTable {
                        base,
                        chunks,
                        pages: vec![None; (chunks as usize).div_ceil(PAGE)],
                        ..FileTable::default()
                    }
                })
                .collect(),
        }
    }

    fn index(&self, file: u32, offset: u64) -> Option<(&FileTable, usize)> {
        let t = self.files.get(file as usize)?;
        let c = offset.checked_sub(t.base)? / self.interval;
        (c < t.chunks).then_some((t, c as usize))
    }

    /// `file`'s table and the chunks `len` bytes at `offset` cover.
    fn chunks_mut(
        &mut self,
        file: u32,
        offset: u64,
        len: u64,
    ) -> Option<(&mut FileTable, std::ops::Range<u64>)> {
        let interval = self.interval;
        let t = self.files.get_mut(file as usize)?;
        let first = offset.checked_sub(t.base)? / interval;
        let end = (first + len / interval).min(t.chunks);
        Some((t, first..end))
    }

    /// Records a write of `len` bytes at `offset` as generation `generation`;
    /// `racing`: the generation of a write to the same place still in flight.
    pub fn wrote(
        &mut self,
        file: u32,
        offset: u64,
        len: u64,
        generation: u64,
        racing: Option<u64>,
    ) {
        let Some((t, chunks)) = self.chunks_mut(file, offset, len) else {
            return;
        };
        for c in chunks {
            let page = t.pages[c as usize / PAGE].get_or_insert_with(|| vec![0; PAGE].into());
            let slot = &mut page[c as usize % PAGE];
            if *slot == 0 {
                t.written += 1;
            }
            *slot = generation;
            match racing {
                Some(g) => t.alt.insert(c, g),
                None => t.alt.remove(&c),
            };
        }
    }

    /// What the chunk at `offset` should hold, if the job wrote it.
    pub fn expected(&self, file: u32, offset: u64) -> Option<Expected> {
        let (t, c) = self.index(file, offset)?;
        let generation = t.pages[c / PAGE].as_ref()?[c % PAGE] & !CHECKED;
        (generation != 0).then(|| Expected {
            generation,
            alt: t.alt.get(&(c as u64)).copied(),
            writer: self.writer,
        })
    }

    /// Marks the written chunks of `len` bytes at `offset` as checked: the
    /// final pass skips them until they are written again.
    pub fn checked(&mut self, file: u32, offset: u64, len: u64) {
        let Some((t, chunks)) = self.chunks_mut(file, offset, len) else {
            return;
        };
        for c in chunks {
            if let Some(page) = &mut t.pages[c as usize / PAGE] {
                let slot = &mut page[c as usize % PAGE];
                if *slot != 0 {
                    *slot |= CHECKED;
                }
            }
        }
    }

    /// Chunks written so far, over all files.
    pub fn written(&self) -> u64 {
        self.files.iter().map(|t| t.written).sum()
    }

    /// The written chunks of `file` not checked since their last write, as
    /// runs of adjacent chunks (offset, length) no longer than `max_len`
    /// bytes, in offset order.
    pub fn written_runs(&self, file: u32, max_len: u64) -> Vec<(u64, u64)> {
        let Some(t) = self.files.get(file as usize) else {
            return Vec::new();
        };
        let per_run = (max_len / self.interval).max(1);
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for (p, page) in t.pages.iter().enumerate() {
            let Some(page) = page else { continue };
            for (i, &g) in page.iter().enumerate() {
                let c = (p * PAGE + i) as u64;
                if g == 0 || g & CHECKED != 0 || c >= t.chunks {
                    continue;
                }
                let at = t.base + c * self.interval;
                match runs.last_mut() {
                    Some((o, l)) if *o + *l == at && *l / self.interval < per_run => {
                        *l += self.interval
                    }
                    _ => runs.push((at, self.interval)),
                }
            }
        }
        runs
    }

    pub fn files(&self) -> u32 {
        self.files.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_write_wins_and_a_racing_one_is_accepted() {
        let mut e = Expectations::new(&[(0, 1 << 20)], 4096, 0);
        assert_eq!(e.expected(0, 8192), None);
        e.wrote(0, 8192, 8192, 1, None);
        e.wrote(0, 8192, 4096, 2, Some(1));
        let a = e.expected(0, 8192).unwrap();
        assert_eq!((a.generation, a.alt), (2, Some(1)));
        assert!(a.accepts(1) && a.accepts(2) && !a.accepts(3));
        let b = e.expected(0, 12288).unwrap();
        assert_eq!((b.generation, b.alt), (1, None));
        e.wrote(0, 8192, 4096, 3, None);
        assert_eq!(e.expected(0, 8192).unwrap().alt, None);
        assert_eq!(e.written(), 2);
        // Outside the region, or another file: nothing known.
        assert_eq!(e.expected(0, 1 << 20), None);
        assert_eq!(e.expected(1, 8192), None);
    }

    #[test]
    fn runs_join_adjacent_chunks_up_to_the_limit() {
        let mut e = Expectations::new(&[(4096, 64 * 4096)], 4096, 0);
        for c in [0u64, 1, 2, 3, 4, 10, 11] {
            e.wrote(0, 4096 + c * 4096, 4096, c + 1, None);
        }
        assert_eq!(
            e.written_runs(0, 16384),
            vec![
                (4096, 16384),
                (4096 + 4 * 4096, 4096),
                (4096 + 10 * 4096, 8192)
            ]
        );
    }

    #[test]
    fn a_checked_chunk_is_left_out_until_written_again() {
        let mut e = Expectations::new(&[(0, 8 * 4096)], 4096, 0);
        for c in 0u64..4 {
            e.wrote(0, c * 4096, 4096, c + 1, None);
        }
        e.checked(0, 4096, 2 * 4096);
        assert_eq!(
            e.written_runs(0, 1 << 20),
            vec![(0, 4096), (3 * 4096, 4096)]
        );
        // Still expected as written, with its generation.
        assert_eq!(e.expected(0, 4096).unwrap().generation, 2);
        e.wrote(0, 8192, 4096, 9, None);
        assert_eq!(
            e.written_runs(0, 1 << 20),
            vec![(0, 4096), (2 * 4096, 2 * 4096)]
        );
        assert_eq!(e.written(), 4);
    }
}
