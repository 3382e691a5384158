//! What a write carries when the job asks for more than diskbench's default
//! (random buffers made unique per write, `queue::stamp`): fio's
//! `zero_buffers`, `buffer_pattern`, `refill_buffers`, `scramble_buffers=0`,
//! `buffer_compress_percentage`/`buffer_compress_chunk` and
//! `dedupe_percentage`/`dedupe_mode`/`dedupe_working_set_percentage`
//! (see `model::data`).
//!
//! Each unique buffer is made from a seed, so a duplicate is the same seed
//! made again: no buffers are kept for dedupe. Checked against fio 3.33's
//! files: a pattern or zeros are written as they are (no scrambling), and
//! `buffer_compress_percentage=50` with its 512-byte chunks writes 256
//! random bytes then 256 zeros, chunk after chunk.

use crate::dedupe::DedupeShare;
use crate::offsets::Rng;
use model::data::{BufferData, DedupeMode};

pub(super) struct DataFiller {
    data: BufferData,
    rng: Rng,
    /// Seeds handed out to unique buffers so far.
    uniques: u64,
    /// `working_set`: the first this many unique buffers are the set.
    working_set: u64,
    /// Mixed into every seed, so two workers' buffers differ.
    salt: u64,
    /// `dedupe_global`: this worker's part of the shared working set.
    share: Option<DedupeShare>,
}

/// What the caller does with the buffer after [`DataFiller::fill`].
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Then {
    /// The buffer is ready.
    Done,
    /// The buffer keeps its random data: make this write unique (scramble).
    Scramble,
}

impl DataFiller {
    /// `None` for diskbench's default data.
    pub(super) fn new(
        data: &BufferData,
        job_blocks: u64,
        seed: u64,
        share: Option<DedupeShare>,
    ) -> Option<DataFiller> {
        if data.is_default() {
            return None;
        }
        let working_set = data.working_set_blocks(job_blocks);
        Some(DataFiller {
            data: data.clone(),
            rng: Rng::new(seed ^ 0xd1b5_4a32_d192_ed03),
            uniques: 0,
            working_set,
            salt: seed,
            share: share.filter(|_| data.shares_working_set()),
        })
    }

    /// Fills the first `len` bytes of `buf` for the next write.
    pub(super) fn fill(&mut self, buf: &mut [u8], len: usize) -> Then {
        let len = len.min(buf.len());
        let buf = &mut buf[..len];
        let d = &self.data;
        let fixed_only = d.compress_pct.is_none() && (d.pattern.is_some() || d.zero);
        if fixed_only {
            fixed(buf, d.pattern.as_deref());
            return Then::Done;
        }
        if !d.refills() {
            return match d.scramble {
                true => Then::Scramble,
                false => Then::Done,
            };
        }
        let seed = self.next_seed();
        match self.data.compress_pct {
            None => engine::fill_random(buf, seed),
            Some(pct) => compressible(buf, seed, pct, &self.data),
        }
        Then::Done
    }

    /// The seed of the next buffer: a new one, or with `dedupe_percentage`
    /// an earlier one again (with `dedupe_global`, one of the shared set's,
    /// which the worker's own first unique buffers are part of).
    fn next_seed(&mut self) -> u64 {
        let d = &self.data;
        let dup = d.dedupe_pct > 0 && self.uniques > 0 && self.rng.below(100) < d.dedupe_pct.into();
        if let Some(share) = self.share {
            let shared = match dup {
                true => Some(self.rng.below(share.total)),
                false => (self.uniques < share.len).then(|| {
                    self.uniques += 1;
                    share.start + self.uniques - 1
                }),
            };
            if let Some(index) = shared {
                return seed_of(index, SHARED_SALT);
            }
        }
        let index = match (dup, d.dedupe_mode) {
            (false, _) => {
                self.uniques += 1;
                self.uniques - 1
            }
            (true, DedupeMode::Repeat) => self.uniques - 1,
            (true, DedupeMode::WorkingSet) => self.rng.below(self.working_set.min(self.uniques)),
        };
        seed_of(index, self.salt)
    }
}

/// The salt of the shared working set's buffers (`dedupe_global`): the same
/// in every worker, unlike each worker's own.
const SHARED_SALT: u64 = 0x5ead_ed5e_7000_0001;

/// The seed of unique buffer `index` of a worker (or of the shared set) of `salt`.
fn seed_of(index: u64, salt: u64) -> u64 {
    (index.wrapping_mul(model::rng::GOLDEN_GAMMA) ^ salt) | 1
}

/// `buffer_pattern` repeated, or zeros.
fn fixed(buf: &mut [u8], pattern: Option<&[u8]>) {
    match pattern.filter(|p| !p.is_empty()) {
        None => buf.fill(0),
        Some(p) => {
            for (b, v) in buf.iter_mut().zip(p.iter().cycle()) {
                *b = *v;
            }
        }
    }
}

/// Each chunk: `100 - pct` percent random, the rest the fixed pattern.
fn compressible(buf: &mut [u8], seed: u64, pct: u32, d: &BufferData) {
    let chunk = match d.compress_chunk {
        0 => buf.len(),
        c => c as usize,
    }
    .max(1);
    for (i, part) in buf.chunks_mut(chunk).enumerate() {
        let random = part.len() * (100 - pct.min(100) as usize) / 100;
        engine::fill_random(&mut part[..random], seed ^ (i as u64) << 32);
        fixed(&mut part[random..], d.pattern.as_deref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filler(data: BufferData) -> DataFiller {
        DataFiller::new(&data, 1000, 1, None).expect("not the default")
    }

    #[test]
    fn the_default_needs_no_filler() {
        assert!(DataFiller::new(&BufferData::default(), 10, 1, None).is_none());
    }

    #[test]
    fn patterns_and_zeros_are_written_as_they_are() {
        let mut f = filler(BufferData {
            pattern: Some(vec![0xde, 0xad, 0xbe, 0xef]),
            ..BufferData::default()
        });
        let mut buf = vec![7u8; 16];
        assert_eq!(f.fill(&mut buf, 10), Then::Done);
        assert_eq!(
            buf[..10],
            [0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef, 0xde, 0xad]
        );
        assert_eq!(buf[10..], [7; 6], "past len is untouched");
        let mut z = filler(BufferData {
            zero: true,
            ..BufferData::default()
        });
        z.fill(&mut buf, 16);
        assert_eq!(buf, [0; 16]);
    }

    #[test]
    fn compress_percentage_makes_chunks_of_random_then_zeros() {
        let mut f = filler(BufferData {
            compress_pct: Some(50),
            ..BufferData::default()
        });
        let mut buf = vec![0u8; 4096];
        f.fill(&mut buf, 4096);
        for chunk in buf.chunks(512) {
            assert!(chunk[..256].iter().filter(|b| **b == 0).count() < 16);
            assert!(chunk[256..].iter().all(|b| *b == 0));
        }
    }

    #[test]
    fn dedupe_percentage_repeats_about_that_share_of_buffers() {
        for mode in [DedupeMode::Repeat, DedupeMode::WorkingSet] {
            let mut f = filler(BufferData {
                dedupe_pct: 40,
                dedupe_mode: mode,
                ..BufferData::default()
            });
            let mut seen = std::collections::HashSet::new();
            let mut buf = vec![0u8; 64];
            let writes = 2000;
            for _ in 0..writes {
                f.fill(&mut buf, 64);
                seen.insert(buf.clone());
            }
            let dup_pct = (writes - seen.len()) * 100 / writes;
            assert!(
                (35..=45).contains(&dup_pct),
                "{mode:?}: {dup_pct}% repeated"
            );
        }
    }

    #[test]
    fn refill_gives_every_write_new_data_and_scramble_off_keeps_the_buffer() {
        let mut f = filler(BufferData {
            refill: true,
            ..BufferData::default()
        });
        let (mut a, mut b) = (vec![0u8; 64], vec![0u8; 64]);
        f.fill(&mut a, 64);
        f.fill(&mut b, 64);
        assert_ne!(a, b);
        let mut plain = filler(BufferData {
            scramble: false,
            ..BufferData::default()
        });
        let before = a.clone();
        assert_eq!(plain.fill(&mut a, 64), Then::Done);
        assert_eq!(a, before);
    }
}
