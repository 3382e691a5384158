//! The block size of each I/O of a direction: fio's `bs` (one size),
//! `bsrange` (every multiple of the smallest size up to the largest, equally
//! likely, as fio 3.33 draws them) and `bssplit` (weighted sizes).
//!
//! `bs_unaligned` draws any size of a range the way fio 3.33 does, measured
//! on 20 000 of its I/Os with `bsrange=1000-4000`: the smallest size plus a
//! uniform draw below the largest, capped at the largest, so the sizes are
//! uniform from min to max and max itself takes `min/max` of the I/Os (a
//! quarter there, as fio's 4965 of 20 000).
//!
//! A draw is one random number and, for a split, a walk over at most 64
//! cumulative shares; nothing is allocated per I/O.

use crate::draw::Rng;
use model::job::BlockSizes;

#[derive(Clone, Debug)]
enum Kind {
    Fixed(u64),
    /// `min * k` for k in `1..=steps`.
    Range {
        min: u64,
        steps: u64,
    },
    /// (cumulative percent, size), ascending.
    Split(Vec<(u64, u64)>),
    /// `bs_unaligned`: any size from `min` to `max`.
    Unaligned {
        min: u64,
        max: u64,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct SizePicker {
    kind: Kind,
    /// Every size this picker can return, ascending (for fitting into the
    /// room left); the two ends for `Unaligned`.
    sizes: Vec<u64>,
}

impl SizePicker {
    /// `unaligned`: fio's `bs_unaligned` (a range only).
    pub(crate) fn new(sizes: &BlockSizes, unaligned: bool) -> SizePicker {
        if let (
            true,
            BlockSizes::Range {
                min_bytes,
                max_bytes,
            },
        ) = (unaligned, sizes)
        {
            if min_bytes < max_bytes {
                let (min, max) = (*min_bytes, *max_bytes);
                let sizes = vec![min, max];
                return SizePicker {
                    kind: Kind::Unaligned { min, max },
                    sizes,
                };
            }
        }
        let kind = match sizes {
            BlockSizes::Range {
                min_bytes,
                max_bytes,
            } if min_bytes == max_bytes => Kind::Fixed(*min_bytes),
            BlockSizes::Range {
                min_bytes,
                max_bytes,
            } => Kind::Range {
                min: *min_bytes,
                steps: max_bytes / min_bytes,
            },
            BlockSizes::Split(shares) => {
                let mut cum = 0;
                let table = shares
                    .iter()
                    .map(|s| {
                        cum += u64::from(s.pct);
                        (cum, s.bytes)
                    })
                    .collect();
                Kind::Split(table)
            }
        };
        let mut all = sizes.sizes();
        all.sort_unstable();
        all.dedup();
        SizePicker { kind, sizes: all }
    }

    pub(crate) fn min(&self) -> u64 {
        self.sizes[0]
    }

    /// Whether I/Os come in more than one size.
    pub(crate) fn varies(&self) -> bool {
        self.sizes.len() > 1
    }

    #[inline]
    pub(crate) fn pick(&self, rng: &mut Rng) -> u64 {
        match &self.kind {
            Kind::Fixed(bytes) => *bytes,
            Kind::Range { min, steps } => min * (1 + rng.below(*steps)),
            Kind::Split(table) => {
                let r = rng.below(100);
                table
                    .iter()
                    .find(|(cum, _)| r < *cum)
                    .map_or(table[table.len() - 1].1, |s| s.1)
            }
            Kind::Unaligned { min, max } => (min + rng.below(*max)).min(*max),
        }
    }

    /// The largest size not above `room`; the smallest when none fits.
    pub(crate) fn fit(&self, room: u64) -> u64 {
        if let Kind::Unaligned { min, max } = self.kind {
            return room.clamp(min, max);
        }
        match self.sizes.partition_point(|&s| s <= room) {
            0 => self.sizes[0],
            n => self.sizes[n - 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::job::BsShare;

    fn share(kib: u64, pct: u32) -> BsShare {
        BsShare {
            bytes: kib << 10,
            pct,
        }
    }

    #[test]
    fn a_split_follows_its_shares() {
        let p = SizePicker::new(
            &BlockSizes::Split(vec![share(4, 60), share(64, 30), share(16, 10)]),
            false,
        );
        let mut rng = Rng::new(1);
        let mut counts = [0u32; 3];
        for _ in 0..100_000 {
            match p.pick(&mut rng) >> 10 {
                4 => counts[0] += 1,
                64 => counts[1] += 1,
                16 => counts[2] += 1,
                other => panic!("{other}k"),
            }
        }
        for (n, want) in counts.iter().zip([60_000, 30_000, 10_000]) {
            assert!((*n as i64 - want).abs() < 1_000, "{counts:?}");
        }
        assert_eq!(p.min(), 4096);
        assert_eq!(p.fit(20 << 10), 16 << 10);
        assert_eq!(p.fit(100), 4096);
    }

    #[test]
    fn a_range_draws_every_multiple_of_its_smallest_size_equally() {
        let p = SizePicker::new(
            &BlockSizes::Range {
                min_bytes: 4096,
                max_bytes: 16384,
            },
            false,
        );
        let mut rng = Rng::new(2);
        let mut counts = [0u32; 4];
        for _ in 0..40_000 {
            let b = p.pick(&mut rng);
            assert_eq!(b % 4096, 0);
            counts[(b / 4096 - 1) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(p.fit(13000), 12288);
    }

    #[test]
    fn an_unaligned_range_draws_like_fio() {
        let range = BlockSizes::Range {
            min_bytes: 1000,
            max_bytes: 4000,
        };
        let p = SizePicker::new(&range, true);
        let mut rng = Rng::new(3);
        let (mut at_max, mut odd, mut below_2500) = (0u32, 0u32, 0u32);
        for _ in 0..20_000 {
            let b = p.pick(&mut rng);
            assert!((1000..=4000).contains(&b), "{b}");
            at_max += u32::from(b == 4000);
            odd += u32::from(b % 2 == 1);
            below_2500 += u32::from(b < 2500);
        }
        // fio 3.33, same range: 4965 at 4000, 7530 odd, 7573 below 2500.
        for (got, fio) in [(at_max, 4965), (odd, 7530), (below_2500, 7573)] {
            assert!((got as i64 - fio).abs() < 400, "{got} vs fio's {fio}");
        }
        assert_eq!(
            (p.min(), p.fit(2222), p.fit(10), p.fit(1 << 20)),
            (1000, 2222, 1000, 4000)
        );
        // A fixed size stays fixed.
        let one = SizePicker::new(&BlockSizes::fixed(4096), true);
        assert!(!one.varies());
    }
}
