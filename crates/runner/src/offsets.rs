//! Where the next I/O goes: which file, which direction, which offset.
//!
//! Random patterns visit every block exactly once per pass, like fio's
//! default random map, but without a bitmap: a keyed bijection on the
//! smallest power-of-two domain that holds the blocks, walked until it lands
//! inside (on average under two steps). Memory stays O(1) whatever the size,
//! and the sequence repeats for the same seed (`randrepeat`).

use model::{Direction, RwMode};

/// A small fast PRNG (xorshift64*), for directions and keys.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x2545_f491_4f6c_dd1d | 1)
    }
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// A keyed permutation of `0..n`.
#[derive(Clone, Debug)]
struct Permutation {
    n: u64,
    bits: u32,
    mask: u64,
    keys: [u64; 3],
}

impl Permutation {
    fn new(n: u64, rng: &mut Rng) -> Permutation {
        let bits = (64 - n.saturating_sub(1).leading_zeros()).max(1);
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        // Multipliers must be odd to be invertible modulo 2^bits.
        let keys = [rng.next_u64() | 1, rng.next_u64(), rng.next_u64() | 1];
        Permutation {
            n,
            bits,
            mask,
            keys,
        }
    }

    /// One invertible mixing step on `bits`-bit values: multiply by an odd
    /// number, add, xor-shift right (each a bijection modulo 2^bits).
    #[inline]
    fn mix(&self, mut x: u64) -> u64 {
        let half = self.bits.div_ceil(2);
        x = x.wrapping_mul(self.keys[0]).wrapping_add(self.keys[1]) & self.mask;
        x ^= x >> half;
        x = x.wrapping_mul(self.keys[2]) & self.mask;
        x ^= x >> half;
        x
    }

    #[inline]
    fn get(&self, index: u64) -> u64 {
        let mut x = self.mix(index);
        while x >= self.n {
            x = self.mix(x);
        }
        x
    }
}

/// The I/O space of one file: `blocks` blocks of `block_bytes` from `base`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub base: u64,
    pub blocks: u64,
    pub block_bytes: u64,
}

#[derive(Clone, Debug)]
struct FileCursor {
    region: Region,
    /// Next sequential block, per direction (fio keeps one per direction).
    seq: [u64; 2],
    perm: Permutation,
    index_in_pass: u64,
}

/// The next I/O of a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub file: u32,
    pub dir: Direction,
    pub offset: u64,
}

pub struct OffsetGen {
    mode: RwMode,
    read_pct: u64,
    files: Vec<FileCursor>,
    next_file: usize,
    rng: Rng,
}

impl OffsetGen {
    pub fn new(mode: RwMode, read_pct: u32, regions: &[Region], seed: u64) -> OffsetGen {
        let mut rng = Rng::new(seed);
        let files = regions
            .iter()
            .map(|&region| FileCursor {
                region,
                seq: [0, 0],
                perm: Permutation::new(region.blocks.max(1), &mut rng),
                index_in_pass: 0,
            })
            .collect();
        OffsetGen {
            mode,
            read_pct: read_pct as u64,
            files,
            next_file: 0,
            rng,
        }
    }

    #[inline]
    fn direction(&mut self) -> Direction {
        match self.mode {
            RwMode::Read | RwMode::RandRead => Direction::Read,
            RwMode::Write | RwMode::RandWrite => Direction::Write,
            RwMode::ReadWrite | RwMode::RandRw => {
                if self.rng.next_u64() % 100 < self.read_pct {
                    Direction::Read
                } else {
                    Direction::Write
                }
            }
        }
    }

    /// The next I/O: files in round robin, one I/O each (fio's default
    /// `file_service_type`).
    #[inline]
    pub fn next_io(&mut self) -> Target {
        let dir = self.direction();
        let file = self.next_file;
        self.next_file += 1;
        if self.next_file == self.files.len() {
            self.next_file = 0;
        }
        let random = self.mode.is_random();
        let cur = &mut self.files[file];
        let block = if random {
            if cur.index_in_pass == cur.region.blocks {
                cur.index_in_pass = 0;
                cur.perm = Permutation::new(cur.region.blocks, &mut self.rng);
            }
            let b = cur.perm.get(cur.index_in_pass);
            cur.index_in_pass += 1;
            b
        } else {
            let d = dir as usize;
            let b = cur.seq[d];
            cur.seq[d] = if b + 1 >= cur.region.blocks { 0 } else { b + 1 };
            b
        };
        Target {
            file: file as u32,
            dir,
            offset: cur.region.base + block * cur.region.block_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn region(blocks: u64) -> Region {
        Region {
            base: 4096,
            blocks,
            block_bytes: 4096,
        }
    }

    #[test]
    fn sequential_wraps_within_the_region() {
        let mut g = OffsetGen::new(RwMode::Read, 100, &[region(3)], 1);
        let offs: Vec<u64> = (0..5).map(|_| g.next_io().offset).collect();
        assert_eq!(offs, vec![4096, 8192, 12288, 4096, 8192]);
    }

    #[test]
    fn random_is_repeatable_for_a_seed() {
        let mut a = OffsetGen::new(RwMode::RandRead, 100, &[region(1000)], 7);
        let mut b = OffsetGen::new(RwMode::RandRead, 100, &[region(1000)], 7);
        let mut c = OffsetGen::new(RwMode::RandRead, 100, &[region(1000)], 8);
        let xa: Vec<u64> = (0..50).map(|_| a.next_io().offset).collect();
        let xb: Vec<u64> = (0..50).map(|_| b.next_io().offset).collect();
        let xc: Vec<u64> = (0..50).map(|_| c.next_io().offset).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn mix_follows_rwmixread() {
        let mut g = OffsetGen::new(RwMode::RandRw, 75, &[region(1 << 20)], 3);
        let reads = (0..100_000)
            .filter(|_| g.next_io().dir == Direction::Read)
            .count();
        assert!((74_000..76_000).contains(&reads), "{reads}");
    }

    #[test]
    fn files_are_served_round_robin() {
        let mut g = OffsetGen::new(RwMode::Write, 0, &[region(4), region(4)], 1);
        let files: Vec<u32> = (0..4).map(|_| g.next_io().file).collect();
        assert_eq!(files, vec![0, 1, 0, 1]);
    }

    proptest! {
        #[test]
        fn a_pass_visits_every_block_once(blocks in 1u64..3000, seed: u64) {
            let mut g = OffsetGen::new(RwMode::RandWrite, 0, &[region(blocks)], seed);
            let mut seen = vec![false; blocks as usize];
            for _ in 0..blocks {
                let t = g.next_io();
                let b = ((t.offset - 4096) / 4096) as usize;
                prop_assert!(!seen[b]);
                seen[b] = true;
            }
            prop_assert!(seen.iter().all(|&s| s));
        }
    }
}
