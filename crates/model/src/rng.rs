//! splitmix64, the one small generator every crate draws its repeatable
//! numbers from: verify's chunk seeds and data, the report's demo noise,
//! ioping's offsets, the meta workload's names, the bootstrap's resamples.
//!
//! It lives here, in the crate everything may use, so that it is written
//! once: verify patterns and the fixtures made from them depend on each bit
//! of its output, and two copies could drift apart. splitmix64 (Steele, Lea
//! and Flood, 2014) adds a constant to its state at each step and mixes the
//! result with two multiply-xorshift rounds; the mix alone is a bijection on
//! `u64`, so distinct inputs always give distinct outputs.

/// The constant splitmix64 adds at each step: 2^64 divided by the golden
/// ratio, odd. Multiplying by it also spreads small integers over all 64
/// bits, which is how some callers derive a key from an index.
pub const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The value splitmix64 gives for `state`: the state moved on by one step
/// ([`GOLDEN_GAMMA`]) and then mixed. Used alone it is a well-mixed hash of
/// a number; [`SplitMix64`] calls it on a state that moves on each time.
#[inline]
pub fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(GOLDEN_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator: the same seed always gives the same sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let out = splitmix64(self.0);
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        out
    }

    /// Uniform in `0..n` (0 when `n` is 0); the bias of the modulo is under
    /// n / 2^64.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_reference_sequence() {
        // The first outputs of the reference splitmix64 seeded with 0
        // (Vigna's splitmix64.c), so every caller's data stays what it was.
        let mut g = SplitMix64(0);
        assert_eq!(g.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(g.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(g.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn the_generator_is_the_function_on_a_moving_state() {
        let mut g = SplitMix64(41);
        for step in 0..4u64 {
            let state = 41u64.wrapping_add(GOLDEN_GAMMA.wrapping_mul(step));
            assert_eq!(g.next_u64(), splitmix64(state));
        }
        assert!(SplitMix64(7).below(10) < 10);
        assert_eq!(SplitMix64(7).below(0), 0);
    }
}
