//! The two draws every random choice of a job is made with: a small fast
//! generator (xorshift64*, seeded through splitmix64 so every seed gives
//! its own sequence) and a keyed permutation of `0..n`, which visits every
//! block of a file once per pass without a bitmap.
//!
//! They sit below the offset generator, the block-size picker and the
//! skewed distributions, which all draw with them; none of those is needed
//! to make a draw, so this file imports nothing of the runner.

/// A small fast PRNG (xorshift64*), for directions and keys.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Every seed gives its own sequence: the seed is mixed (splitmix64's
    /// finalizer, a bijection) rather than forced odd, which made seeds 2k
    /// and 2k+1 give the same offsets.
    pub fn new(seed: u64) -> Rng {
        let z = model::rng::splitmix64(seed);
        // xorshift must not start at zero.
        Rng(if z == 0 { 0x2545_f491_4f6c_dd1d } else { z })
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
    /// A number in `0..n` (`n > 0`), by multiply-shift rather than a division.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
    /// A number in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// A keyed permutation of `0..n`.
#[derive(Clone, Debug)]
pub(crate) struct Permutation {
    n: u64,
    bits: u32,
    mask: u64,
    keys: [u64; 3],
}

impl Permutation {
    pub(crate) fn new(n: u64, rng: &mut Rng) -> Permutation {
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
    pub(crate) fn get(&self, index: u64) -> u64 {
        let mut x = self.mix(index);
        while x >= self.n {
            x = self.mix(x);
        }
        x
    }
}
