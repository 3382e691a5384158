//! fio's latency-histogram layout ("plat" bins), so that diskbench's own
//! histograms can be written as fio's `write_hist_log` lines and read by
//! fio's `fiologparser_hist.py`.
//!
//! The layout, as fio 3.33 documents it in `tools/hist/fiologparser_hist.py`
//! (`_plat_idx_to_val`, `--group_nr` 29) and in its HOWTO, and as its log
//! files show (1856 bins a line at coarseness 0):
//! - bins 0 to 127 hold one nanosecond each (bin `i` is `i` ns);
//! - then 64 bins per power of two: a value whose top bit is bit `m` (7 to
//!   33) goes to bin `(m - 5) * 64 + (v >> (m - 6)) % 64`, `2^(m-6)` ns wide;
//! - 29 groups of 64 bins in all; values from 2^34 ns (17.2 s) on are
//!   counted in the last bin, as fio does.
//!
//! diskbench's histogram ([`crate::histogram`]) is exact below 128 ns too,
//! then has 128 buckets per power of two, each aligned to its width: every
//! diskbench bucket lies inside exactly one fio bin (the two buckets of a
//! power of two's `2k`-th and `2k+1`-th slot make up its `k`-th fio bin), so
//! converting bucket by bucket loses nothing fio's layout can hold. The
//! tests check this for every bucket.
//!
//! `log_hist_coarseness=N` sums runs of `2^N` bins (N from 0 to 6), as fio
//! does; 1856 is a multiple of 64, so every coarse bin is whole.

use crate::histogram::Histogram;

/// Bins per power of two, as a power of two (fio's `FIO_IO_U_PLAT_BITS`).
pub const PLAT_BITS: u32 = 6;
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// Groups of 64 bins (fio's `FIO_IO_U_PLAT_GROUP_NR` in fio 3.x).
pub const PLAT_GROUPS: usize = 29;
/// Bins in a line of a hist log at coarseness 0.
pub const PLAT_BINS: usize = PLAT_GROUPS << PLAT_BITS;
/// The largest `log_hist_coarseness` fio documents.
pub const MAX_COARSENESS: u32 = 6;

/// The fio bin of a latency in ns.
pub fn bin_of(value_ns: u64) -> usize {
    if value_ns < PLAT_VAL << 1 {
        return value_ns as usize;
    }
    let msb = 63 - value_ns.leading_zeros();
    let error_bits = msb - PLAT_BITS;
    let index =
        (u64::from(error_bits) + 1) * PLAT_VAL + ((value_ns >> error_bits) & (PLAT_VAL - 1));
    (index as usize).min(PLAT_BINS - 1)
}

/// The lowest value (ns) and the width of fio bin `bin`, as
/// `fiologparser_hist.py` computes them (the last bin also holds everything
/// above it).
pub fn bin_range(bin: usize) -> (u64, u64) {
    let bin = bin as u64;
    if bin < PLAT_VAL << 1 {
        return (bin, 1);
    }
    let error_bits = (bin >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + u64::from(PLAT_BITS));
    (base + (bin % PLAT_VAL) * (1 << error_bits), 1 << error_bits)
}

/// `h`'s counts in fio's 1856 bins, bucket by bucket (see the module comment).
pub fn bins(h: &Histogram) -> Vec<u64> {
    let mut out = vec![0u64; PLAT_BINS];
    for (low, count) in h.buckets() {
        out[bin_of(low)] += count;
    }
    out
}

/// Sums of `2^coarseness` neighbouring bins (`log_hist_coarseness`);
/// `coarseness` is at most [`MAX_COARSENESS`].
pub fn coarsen(bins: &[u64], coarseness: u32) -> Vec<u64> {
    let stride = 1usize << coarseness.min(MAX_COARSENESS);
    bins.chunks(stride).map(|c| c.iter().sum()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histogram::{bucket_of, bucket_range, BUCKETS};

    #[test]
    fn every_diskbench_bucket_lies_in_one_fio_bin() {
        for index in 0..BUCKETS {
            let (low, width) = bucket_range(index);
            let last = low + (width - 1);
            assert_eq!(bin_of(low), bin_of(last), "bucket {index}: {low}..={last}");
            assert_eq!((bucket_of(low), bucket_of(last)), (index, index));
        }
    }

    #[test]
    fn bins_match_fiologparser_hist() {
        // `_plat_idx_to_val(idx, edge=0)` of fiologparser_hist.py, by hand:
        // idx 127 -> 127, 128 -> 128 (2 wide), 191 -> 254, 192 -> 256 (4 wide).
        assert_eq!(bin_range(127), (127, 1));
        assert_eq!(bin_range(128), (128, 2));
        assert_eq!(bin_range(191), (254, 2));
        assert_eq!(bin_range(192), (256, 4));
        // The last bin: 2^33 + 63 * 2^27.
        assert_eq!(
            bin_range(PLAT_BINS - 1),
            ((1 << 33) + 63 * (1 << 27), 1 << 27)
        );
        for bin in 0..PLAT_BINS {
            let (low, width) = bin_range(bin);
            assert_eq!(bin_of(low), bin);
            assert_eq!(bin_of(low + width - 1), bin);
            if bin + 1 < PLAT_BINS {
                assert_eq!(bin_range(bin + 1).0, low + width, "bins are contiguous");
            }
        }
        assert_eq!(bin_of(1 << 34), PLAT_BINS - 1);
        assert_eq!(bin_of(u64::MAX), PLAT_BINS - 1);
    }

    #[test]
    fn conversion_keeps_every_count_in_its_bin() {
        let mut h = Histogram::new();
        let values = [
            0,
            5,
            127,
            128,
            129,
            130,
            1000,
            1001,
            65_535,
            1 << 20,
            3 << 30,
            1 << 40,
            u64::MAX,
        ];
        for (i, &v) in values.iter().enumerate() {
            h.record_n(v, i as u64 + 1);
        }
        let b = bins(&h);
        assert_eq!(b.iter().sum::<u64>(), h.count());
        let mut want = vec![0u64; PLAT_BINS];
        for (i, &v) in values.iter().enumerate() {
            want[bin_of(v)] += i as u64 + 1;
        }
        assert_eq!(b, want);
    }

    #[test]
    fn coarseness_sums_neighbours() {
        let bins: Vec<u64> = (0..PLAT_BINS as u64).collect();
        for c in 0..=MAX_COARSENESS {
            let coarse = coarsen(&bins, c);
            assert_eq!(coarse.len(), PLAT_BINS >> c);
            assert_eq!(coarse.iter().sum::<u64>(), bins.iter().sum::<u64>());
        }
        // fio's coarseness 6 line has 29 bins; the first sums 0..63 ns.
        assert_eq!(coarsen(&bins, 6)[0], (0..64).sum::<u64>());
    }
}
