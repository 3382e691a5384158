//! The bootstrap's generator: splitmix64 (`model::rng`), so the same
//! figures always give the same interval, and the tests' simulations give
//! the same figures every time, with no crate.

use model::rng::SplitMix64;

pub(crate) struct Rng(SplitMix64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(SplitMix64(seed))
    }

    /// Uniform in (0, 1) (the tests' simulations draw from it).
    #[cfg(test)]
    pub(crate) fn uniform(&mut self) -> f64 {
        ((self.0.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Uniform in 0..n (n > 0); the bias of the modulo is under n / 2^64.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }
}
