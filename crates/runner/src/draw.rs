//! The draws every random choice of a job is made with: a small fast
//! generator (xorshift64*, seeded through splitmix64 so every seed gives
//! its own sequence); a random order of `0..n` ([`Shuffle`]), which visits
//! every block of a file once per pass without a bitmap; and a keyed
//! bijection of `0..n` ([`Permutation`]) that spreads the hot ranks of the
//! skewed distributions over a file.
//!
//! The order of a pass must look random to a statistical test of the
//! sequence itself (fio's suite runs a runs test on the offsets of a 256-block
//! randread): a keyed hash of the index 0, 1, 2, ... made of two
//! multiply/xor-shift rounds kept serial structure on small domains, where
//! a quarter of the seeds failed the runs test at 5%. [`Shuffle`] steps a
//! full-period generator instead and scrambles its output.
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

/// The bits of the smallest power of two `>= n` (at least 1), and its mask.
fn domain(n: u64) -> (u32, u64) {
    let bits = (64 - n.saturating_sub(1).leading_zeros()).max(1);
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    (bits, mask)
}

/// A keyed bijection of `0..n` with random access (`get(rank)`), for
/// spreading ranks over a file. Its values taken in index order are not
/// random enough for the order of a pass: that is [`Shuffle`].
#[derive(Clone, Debug)]
pub(crate) struct Permutation {
    n: u64,
    bits: u32,
    mask: u64,
    keys: [u64; 3],
}

impl Permutation {
    pub(crate) fn new(n: u64, rng: &mut Rng) -> Permutation {
        let (bits, mask) = domain(n);
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

/// A random order of `0..n`: each number once in `n` calls of
/// [`Shuffle::next`], the same order for the same draws of the `Rng`, in
/// constant memory.
///
/// A linear congruential generator modulo `2^bits` (the smallest power of
/// two `>= n`) with a multiplier `= 1 mod 4` and an odd increment has full
/// period (Hull-Dobell): `2^bits` steps visit every value once. Its low
/// bits are weak, so each state goes through a bijection of `bits`-bit
/// values (xor-shift by half the bits, odd multiply, xor-shift by a third,
/// odd multiply, xor-shift by half) before use; values `>= n` are skipped.
/// The multiplier is `5 mod 8`, not just `1 mod 4`: those `1 mod 8` (1
/// itself among them, a mere counter) left a few seeds in a hundred with
/// orders a runs test rejects at p < 0.0001 on 256 blocks; two shifts of
/// half the bits did the same. A step costs 3 multiplies, 1 add,
/// 3 xor-shifts and 3 masks; a draw takes `2^bits / n` steps on average
/// (below 2).
#[derive(Clone, Debug)]
pub(crate) struct Shuffle {
    n: u64,
    mask: u64,
    shifts: [u32; 2],
    state: u64,
    mul: u64,
    inc: u64,
    scramble: [u64; 2],
}

impl Shuffle {
    pub(crate) fn new(n: u64, rng: &mut Rng) -> Shuffle {
        let (bits, mask) = domain(n);
        Shuffle {
            n,
            mask,
            shifts: [bits.div_ceil(2), bits.div_ceil(3)],
            state: rng.next_u64() & mask,
            // = 1 mod 4 with an odd increment: the full period.
            mul: (rng.next_u64() << 3) | 5,
            inc: rng.next_u64() | 1,
            // Odd: invertible modulo 2^bits.
            scramble: [rng.next_u64() | 1, rng.next_u64() | 1],
        }
    }

    /// The next number of the order; after `n` calls every number of
    /// `0..n` has come once.
    #[inline]
    pub(crate) fn next(&mut self) -> u64 {
        let (mask, [half, third]) = (self.mask, self.shifts);
        loop {
            self.state = self.state.wrapping_mul(self.mul).wrapping_add(self.inc) & mask;
            let mut y = self.state;
            y ^= y >> half;
            y = y.wrapping_mul(self.scramble[0]) & mask;
            y ^= y >> third;
            y = y.wrapping_mul(self.scramble[1]) & mask;
            y ^= y >> half;
            if y < self.n {
                return y;
            }
        }
    }
}

#[cfg(test)]
mod tests;
