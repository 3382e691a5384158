//! Where a random I/O lands among a file's `n` positions, for fio's
//! `random_distribution` (and `norandommap`).
//!
//! The shapes are fio's, measured with fio 3.33's `write_iolog`: zipf is
//! Zipf's law over the positions (the hottest of 16384 takes 21% at
//! theta 1.2, as 1/H(n, 1.2) predicts); pareto:h puts a share 1-h of the
//! I/Os on the hottest share h of the positions (position `n * u^p`, p =
//! ln h / ln(1-h)); normal is a bell of deviation dev% of the positions. fio
//! then spreads the hot positions over the file, so do we, with a keyed
//! permutation: the sequence differs from fio's, the hit rates do not. A
//! center (`zipf:1.2:0.25`) puts the hottest position there, as in fio.
//! Zoned distributions pick a zone by its share, then a position in it
//! uniformly; they are not spread.
//!
//! With several block sizes, the random map also remembers which units of
//! the file the pass has covered ([`Coverage`]), as fio's does: an I/O
//! starts on a unit not yet covered and stops at the first covered one, so
//! sizes shrink as the pass fills (fio 3.33, `bssplit=4k/50:64k/50`, one
//! pass of 64 MiB: 3262 I/Os of 20.6 KiB on average, 55% of them 4k and 16%
//! 64k; diskbench: the same within a few percent).
//!
//! Zipf draws use rejection-inversion (Hörmann and Derflinger, 1996): exact,
//! O(1) per draw and O(1) memory for any number of positions.

use crate::draw::{Permutation, Rng, Shuffle};
use model::job::{Distribution, Zone};

/// One zone in positions: the cumulative access share (percent) that ends at
/// it, and its first position and length.
#[derive(Clone, Debug)]
struct ZoneRange {
    cum_pct: f64,
    start: u64,
    len: u64,
}

#[derive(Clone, Debug)]
enum Kind {
    /// Every position once per pass, in a keyed order: fio's random map.
    Map {
        perm: Shuffle,
        index: u64,
    },
    /// Fresh uniform draws (`norandommap`).
    Uniform,
    /// Uniform from a 32-bit draw scaled to the positions: fio's
    /// `random_generator=tausworthe` named on a file of more than 2^32
    /// blocks reaches at most 2^32 of them (fio switches to tausworthe64
    /// there only when no generator is named).
    Uniform32,
    Zipf(Zipf),
    /// Position `n * u^pow` before spreading.
    Pareto {
        pow: f64,
    },
    /// Mean and deviation in positions, before spreading.
    Normal {
        mean: f64,
        dev: f64,
    },
    Zoned(Vec<ZoneRange>),
    /// fio's `sequence`: `blocks` in order, the `k`-th position overall
    /// moved on by a whole sequence per round when `stride`.
    Sequence {
        blocks: Vec<u64>,
        stride: bool,
        k: u64,
    },
}

/// The position of the `k`-th I/O (from 0) of `sequence:blocks`: block
/// `blocks[k % len]`, plus `len` for each round before it with `stride`.
pub(crate) fn sequence_position(blocks: &[u64], stride: bool, k: u64) -> u64 {
    let len = blocks.len().max(1) as u64;
    let round = if stride { k / len * len } else { 0 };
    round + blocks.get((k % len) as usize).copied().unwrap_or(0)
}

/// How many I/Os of `sequence:blocks` land among `n` positions before the
/// first one past them (where fio ends the job), or `None` if none ever is.
pub(crate) fn sequence_fits(blocks: &[u64], stride: bool, n: u64) -> Option<u64> {
    let len = blocks.len().max(1) as u64;
    let top = blocks.iter().copied().max().unwrap_or(0);
    // The rounds before this one lie wholly inside; this one leaves
    // (with a stride, rounds move on until one does).
    let round = match stride {
        true => n.saturating_sub(top).div_ceil(len),
        false => 0,
    };
    (round * len..(round + 1) * len).find(|&k| sequence_position(blocks, stride, k) >= n)
}

/// Refuses a job whose `sequence` distribution would reach past the end of
/// a file before the job is done: fio ends the job at that I/O, which
/// diskbench does not carry out yet. `io_budget`: the job's blocks over its
/// loops (`None`: time-based).
pub(crate) fn check_sequence(
    spec: &model::JobSpec,
    regions: &[crate::region::Region],
    io_budget: Option<u64>,
) -> Result<(), crate::RunError> {
    let Some(Distribution::Sequence(blocks)) = [
        spec.random.distribution.get(model::Direction::Read),
        spec.random.distribution.get(model::Direction::Write),
    ]
    .into_iter()
    .find(|d| matches!(d, Distribution::Sequence(_))) else {
        return Ok(());
    };
    if !spec.rw.is_random() {
        return Ok(());
    }
    let bs = spec.bs_bytes.max(1);
    let loops = u64::from(spec.loops.max(1));
    let ios = io_budget.map(|blocks| {
        let bytes = spec
            .io_size_bytes
            .map_or(blocks.saturating_mul(bs), |b| b.saturating_mul(loops));
        let n = spec
            .number_ios
            .map_or(u64::MAX, |n| n.saturating_mul(loops));
        bytes.div_ceil(bs).min(n)
    });
    let stride = spec.random.sequence_stride;
    for r in regions {
        let Some(k) = sequence_fits(blocks, stride, r.blocks) else {
            continue;
        };
        if ios.is_some_and(|ios| k >= ios) {
            continue;
        }
        let block = sequence_position(blocks, stride, k);
        return Err(crate::RunError::Usage(format!(
            "job '{}': random_distribution=sequence: I/O {} would go to block {block}, past the \
             {} blocks of its file; fio ends the job there, which diskbench does not carry out \
             yet: use a size of more than {block} blocks, or fewer I/Os (io_size, number_ios; \
             not time_based)",
            spec.name,
            k + 1,
            r.blocks,
        )));
    }
    Ok(())
}

#[derive(Clone, Debug)]
pub(crate) struct Sampler {
    n: u64,
    kind: Kind,
    /// Spreads the positions of skewed distributions over the file.
    spread: Permutation,
    /// Added (mod n) after spreading: puts the hottest position at the center.
    shift: u64,
    /// For the random map with several block sizes: the units covered this pass.
    coverage: Option<Coverage>,
    /// Positions are ranks, not spread: position 0 is the hottest of zipf
    /// and pareto (`file_service_type`, where ranks are files).
    ranked: bool,
    /// Passes of the random map ended so far (its permutation or coverage
    /// started again): the worker drops the file's cache on each.
    pub(crate) passes_ended: u64,
}

/// One bit per unit of a file: covered by an I/O of this pass; and one bit
/// per word of those: all 64 covered, so a search skips them.
#[derive(Clone, Debug)]
struct Coverage {
    words: Vec<u64>,
    full: Vec<u64>,
    units: u64,
    /// Units not covered yet; at 0 the pass is over.
    left: u64,
}

/// The largest file the coverage bitmap follows: 2^31 units (256 MiB of
/// bits, 8 TiB at 4 KiB); beyond it, I/Os keep their sizes (see `General`).
const MAX_COVERAGE_UNITS: u64 = 1 << 31;

impl Coverage {
    fn new(units: u64) -> Coverage {
        let words = units.div_ceil(64) as usize;
        let mut c = Coverage {
            words: vec![0; words],
            full: vec![0; words.div_ceil(64)],
            units,
            left: units,
        };
        c.reset();
        c
    }

    /// A new pass. Bits past the end count as covered, so no search returns them.
    fn reset(&mut self) {
        self.words.fill(0);
        self.full.fill(0);
        self.left = self.units;
        if !self.units.is_multiple_of(64) {
            let last = self.words.len() - 1;
            self.words[last] = !0 << (self.units % 64);
        }
        if !self.words.len().is_multiple_of(64) {
            let last = self.full.len() - 1;
            self.full[last] = !0 << (self.words.len() % 64);
        }
    }

    #[inline]
    fn is_set(&self, unit: u64) -> bool {
        self.words[(unit / 64) as usize] & (1 << (unit % 64)) != 0
    }

    fn set(&mut self, unit: u64) {
        let w = (unit / 64) as usize;
        self.words[w] |= 1 << (unit % 64);
        if self.words[w] == !0 {
            self.full[w / 64] |= 1 << (w % 64);
        }
        self.left -= 1;
    }

    /// The first unit not covered at or after `from`, going round past the
    /// end; call only while `left > 0`.
    fn next_free(&self, from: u64) -> u64 {
        let w = (from / 64) as usize;
        let here = !self.words[w] & (!0 << (from % 64));
        if here != 0 {
            return w as u64 * 64 + u64::from(here.trailing_zeros());
        }
        let mut i = w + 1;
        loop {
            if i >= self.words.len() {
                i = 0;
            }
            let s = i / 64;
            let open = !self.full[s] & (!0 << (i % 64));
            if open != 0 {
                let j = s * 64 + open.trailing_zeros() as usize;
                return j as u64 * 64 + u64::from((!self.words[j]).trailing_zeros());
            }
            i = (s + 1) * 64;
        }
    }

    /// Covers up to `want` units from `first` (not covered), stopping
    /// before one already covered or the end; how many it covered.
    fn take_run(&mut self, first: u64, want: u64) -> u64 {
        self.set(first);
        let mut n = 1;
        while n < want && first + n < self.units && !self.is_set(first + n) {
            self.set(first + n);
            n += 1;
        }
        n
    }
}

impl Sampler {
    /// `n` positions of `unit_bytes` each; `units`: how many the file holds
    /// (`n` leaves out those where the smallest block would not fit), and
    /// `sizes_vary`: whether I/Os come in several sizes (see [`Coverage`]).
    pub(crate) fn new(
        dist: &Distribution,
        norandommap: bool,
        (n, units): (u64, u64),
        unit_bytes: u64,
        sizes_vary: bool,
        rng: &mut Rng,
    ) -> Sampler {
        let n = n.max(1);
        let spread = Permutation::new(n, rng);
        let center = |c: &Option<f64>| match c {
            Some(c) => {
                let at = ((c * n as f64) as u64).min(n - 1);
                (at + n - spread.get(0)) % n
            }
            None => 0,
        };
        let (kind, shift) = match dist {
            Distribution::Random if norandommap => (Kind::Uniform, 0),
            Distribution::Random => (
                Kind::Map {
                    perm: Shuffle::new(n, rng),
                    index: 0,
                },
                0,
            ),
            Distribution::Zipf { theta, center: c } => {
                (Kind::Zipf(Zipf::new(n, *theta)), center(c))
            }
            Distribution::Pareto { h, center: c } => (
                Kind::Pareto {
                    pow: h.ln() / (1.0 - h).ln(),
                },
                center(c),
            ),
            Distribution::Normal { dev_pct, center: c } => (
                Kind::Normal {
                    mean: c.unwrap_or(0.5) * n as f64,
                    dev: dev_pct / 100.0 * n as f64,
                },
                0,
            ),
            Distribution::Zoned(zones) => (
                Kind::Zoned(zoned(zones, n, |pct| pct / 100.0 * n as f64)),
                0,
            ),
            Distribution::ZonedAbs(zones) => (
                Kind::Zoned(zoned(zones, n, |bytes| bytes / unit_bytes as f64)),
                0,
            ),
            Distribution::Sequence(blocks) => (
                Kind::Sequence {
                    blocks: blocks.clone(),
                    stride: false,
                    k: 0,
                },
                0,
            ),
        };
        let coverage = match kind {
            Kind::Map { .. } if sizes_vary && units <= MAX_COVERAGE_UNITS => {
                Some(Coverage::new(units.max(1)))
            }
            _ => None,
        };
        Sampler {
            n,
            kind,
            spread,
            shift,
            coverage,
            ranked: false,
            passes_ended: 0,
        }
    }

    /// With `random_sequence_stride`: a `sequence` moves on each round.
    pub(crate) fn sequence_stride(mut self, on: bool) -> Sampler {
        if let Kind::Sequence { stride, .. } = &mut self.kind {
            *stride = on;
        }
        self
    }

    /// Uniform draws without the random map from a 32-bit number (see
    /// [`Kind::Uniform32`]) when `on` and there are more than 2^32 positions.
    pub(crate) fn narrow_to_32_bits(mut self, on: bool) -> Sampler {
        if on && self.n > 1 << 32 && matches!(self.kind, Kind::Uniform) {
            self.kind = Kind::Uniform32;
        }
        self
    }

    /// Draws of `dist` over `n` ranks, not spread: 0 is the hottest of
    /// zipf and pareto, normal is centred on `n / 2`. For choosing one of
    /// `n` files (`file_service_type=zipf:1.2`).
    pub(crate) fn ranked(dist: &Distribution, n: u64, rng: &mut Rng) -> Sampler {
        let mut s = Sampler::new(dist, true, (n, n), 1, false, rng);
        s.ranked = true;
        s.shift = 0;
        s
    }

    /// The next position and how many of the `want` units from it the I/O
    /// may cover: all of them, unless the random map follows coverage. Then,
    /// as fio 3.33 does, a uniform pick that falls on a covered unit moves on
    /// to the next one not covered, so I/Os start where free runs start.
    #[inline]
    pub(crate) fn next_run(&mut self, rng: &mut Rng, want: u64) -> (u64, u64) {
        let Some(cov) = &mut self.coverage else {
            return (self.next(rng), want);
        };
        if cov.left == 0 {
            cov.reset();
            self.passes_ended += 1;
        }
        let start = cov.next_free(rng.below(cov.units));
        (start, cov.take_run(start, want))
    }

    /// The next position, in `0..n`.
    #[inline]
    pub(crate) fn next(&mut self, rng: &mut Rng) -> u64 {
        let n = self.n;
        let rank = match &mut self.kind {
            Kind::Map { perm, index } => {
                if *index == n {
                    *index = 0;
                    *perm = Shuffle::new(n, rng);
                    self.passes_ended += 1;
                }
                *index += 1;
                return perm.next();
            }
            Kind::Uniform => return rng.below(n),
            Kind::Uniform32 => {
                let r = u128::from(rng.next_u64() >> 32);
                return ((r * u128::from(n)) >> 32) as u64;
            }
            Kind::Zoned(zones) => {
                let u = rng.unit() * 100.0;
                let z = zones
                    .iter()
                    .find(|z| u < z.cum_pct)
                    .unwrap_or(&zones[zones.len() - 1]);
                return z.start + rng.below(z.len);
            }
            // Not spread: the blocks are the user's. The runner checked that
            // the job's I/Os stay inside the file (`sequence_fits`).
            Kind::Sequence { blocks, stride, k } => {
                *k += 1;
                return sequence_position(blocks, *stride, *k - 1).min(n - 1);
            }
            Kind::Zipf(z) => z.sample(rng),
            Kind::Pareto { pow } => ((rng.unit().powf(*pow) * n as f64) as u64).min(n - 1),
            Kind::Normal { mean, dev } => {
                // Box-Muller; a draw beyond the ends wraps around.
                let (u1, u2) = (1.0 - rng.unit(), rng.unit());
                let g = *mean + *dev * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                (g.rem_euclid(n as f64) as u64).min(n - 1)
            }
        };
        if self.ranked {
            return rank;
        }
        (self.spread.get(rank) + self.shift) % n
    }
}

/// Zones in positions; each at least one position, none past the end.
fn zoned(zones: &[Zone], n: u64, positions: impl Fn(f64) -> f64) -> Vec<ZoneRange> {
    let mut start = 0u64;
    let mut cum = 0.0;
    let mut out = Vec::with_capacity(zones.len());
    for z in zones {
        cum += z.access_pct;
        let len = (positions(z.size).round() as u64).max(1);
        let first = start.min(n - 1);
        out.push(ZoneRange {
            cum_pct: cum,
            start: first,
            len: len.min(n - first),
        });
        start = start.saturating_add(len);
    }
    out
}

/// Zipf's law over ranks `0..n` (0 the most frequent), exponent `s`.
#[derive(Clone, Debug)]
struct Zipf {
    n: f64,
    s: f64,
    h_x1: f64,
    h_n: f64,
    cut: f64,
}

impl Zipf {
    fn new(n: u64, s: f64) -> Zipf {
        let h_x1 = big_h(1.5, s) - 1.0;
        let h_n = big_h(n as f64 + 0.5, s);
        let cut = 2.0 - big_h_inv(big_h(2.5, s) - small_h(2.0, s), s);
        Zipf {
            n: n as f64,
            s,
            h_x1,
            h_n,
            cut,
        }
    }

    fn sample(&self, rng: &mut Rng) -> u64 {
        loop {
            let u = self.h_n + rng.unit() * (self.h_x1 - self.h_n);
            let x = big_h_inv(u, self.s);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.cut || u >= big_h(k + 0.5, self.s) - small_h(k, self.s) {
                return k as u64 - 1;
            }
        }
    }
}

/// x^-s.
fn small_h(x: f64, s: f64) -> f64 {
    (-s * x.ln()).exp()
}

/// The integral of x^-s: (x^(1-s) - 1) / (1-s), stable near s = 1.
fn big_h(x: f64, s: f64) -> f64 {
    let log_x = x.ln();
    exp_m1_over((1.0 - s) * log_x) * log_x
}

fn big_h_inv(x: f64, s: f64) -> f64 {
    let t = (x * (1.0 - s)).max(-1.0);
    (ln_1p_over(t) * x).exp()
}

/// ln(1+x)/x, 1 at 0.
fn ln_1p_over(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// (e^x - 1)/x, 1 at 0.
fn exp_m1_over(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_repeats_or_strides_as_the_howto_says() {
        // HOWTO (fio 3.42): sequence:2,0,1 repeats 2 0 1; with
        // random_sequence_stride each round moves on by 3: 2 0 1 5 3 4 ...
        let mut rng = Rng::new(1);
        let dist = Distribution::Sequence(vec![2, 0, 1]);
        for (stride, want) in [(false, [2, 0, 1, 2, 0, 1]), (true, [2, 0, 1, 5, 3, 4])] {
            let mut s =
                Sampler::new(&dist, false, (12, 12), 4096, false, &mut rng).sequence_stride(stride);
            let got: Vec<u64> = (0..6).map(|_| s.next(&mut rng)).collect();
            assert_eq!(got, want, "stride {stride}");
        }
        // Where the sequence first leaves a file of n blocks (fio ends the job).
        assert_eq!(sequence_fits(&[2, 0, 1], false, 12), None);
        assert_eq!(sequence_fits(&[3, 20], false, 10), Some(1));
        assert_eq!(sequence_fits(&[2, 0, 1], true, 5), Some(3));
        assert_eq!(sequence_fits(&[2, 0, 1], true, 12), Some(12));
        assert_eq!(sequence_fits(&[0, 1, 2], true, 5), Some(5));
    }

    const N: u64 = 16384;

    /// Hits per position over `draws` draws.
    fn hits(dist: Distribution, draws: u32) -> Vec<u32> {
        let mut rng = Rng::new(9);
        let mut s = Sampler::new(&dist, false, (N, N), 4096, false, &mut rng);
        let mut hits = vec![0u32; N as usize];
        for _ in 0..draws {
            hits[s.next(&mut rng) as usize] += 1;
        }
        hits
    }

    /// Share of the draws on the hottest `frac` of the positions.
    fn top(hits: &[u32], frac: f64) -> f64 {
        let mut sorted = hits.to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let total: u32 = sorted.iter().sum();
        let take = (hits.len() as f64 * frac) as usize;
        sorted[..take].iter().sum::<u32>() as f64 / total as f64
    }

    #[test]
    fn zipf_follows_zipfs_law() {
        // H(16384, 1.2) = 4.874: the hottest position takes 1/4.874 = 20.5%
        // and the hottest 1% (164) take H(164, 1.2)/H(16384, 1.2) = 77.7%.
        let h = hits(
            Distribution::Zipf {
                theta: 1.2,
                center: None,
            },
            1_000_000,
        );
        let hottest = *h.iter().max().unwrap() as f64 / 1e6;
        assert!((0.200..0.210).contains(&hottest), "{hottest}");
        let t = top(&h, 0.01);
        assert!((0.770..0.785).contains(&t), "{t}");
    }

    #[test]
    fn pareto_puts_one_minus_h_on_the_hottest_h() {
        let h = hits(
            Distribution::Pareto {
                h: 0.2,
                center: None,
            },
            1_000_000,
        );
        let t = top(&h, 0.2);
        assert!((0.795..0.805).contains(&t), "{t}");
    }

    #[test]
    fn a_center_holds_the_hottest_position() {
        let h = hits(
            Distribution::Zipf {
                theta: 1.2,
                center: Some(0.25),
            },
            100_000,
        );
        let hottest = h.iter().enumerate().max_by_key(|(_, &c)| c).unwrap().0;
        assert_eq!(hottest as u64, N / 4);
    }

    #[test]
    fn normal_has_its_deviation() {
        // Before spreading, 68% of the draws fall within one deviation.
        let mut rng = Rng::new(3);
        let mut s = Sampler::new(
            &Distribution::Normal {
                dev_pct: 10.0,
                center: None,
            },
            false,
            (N, N),
            4096,
            false,
            &mut rng,
        );
        let inverse: std::collections::HashMap<u64, u64> = (0..N)
            .map(|r| ((s.spread.get(r) + s.shift) % N, r))
            .collect();
        let within = (0..100_000)
            .filter(|_| {
                let rank = inverse[&s.next(&mut rng)] as f64;
                (rank - N as f64 / 2.0).abs() <= N as f64 / 10.0
            })
            .count();
        assert!((67_000..69_300).contains(&within), "{within}");
    }

    #[test]
    fn zones_get_their_shares() {
        let zones = [(60.0, 10.0), (30.0, 20.0), (10.0, 70.0)]
            .map(|(access_pct, size)| Zone { access_pct, size })
            .to_vec();
        let h = hits(Distribution::Zoned(zones), 100_000);
        let share = |from: f64, to: f64| {
            let r = (from * N as f64) as usize..(to * N as f64) as usize;
            h[r].iter().sum::<u32>() as f64 / 100_000.0
        };
        assert!((0.59..0.61).contains(&share(0.0, 0.1)));
        assert!((0.29..0.31).contains(&share(0.1, 0.3)));
        assert!((0.09..0.11).contains(&share(0.3, 1.0)));
    }

    #[test]
    fn with_several_sizes_the_map_stops_ios_at_covered_units() {
        let mut rng = Rng::new(4);
        let mut s = Sampler::new(&Distribution::Random, false, (N, N), 4096, true, &mut rng);
        let mut covered = vec![0u32; N as usize];
        let mut ios = 0;
        let mut total = 0;
        while total < N {
            let (p, run) = s.next_run(&mut rng, 16);
            assert!((1..=16).contains(&run));
            for u in p..p + run {
                covered[u as usize] += 1;
            }
            total += run;
            ios += 1;
        }
        // One pass covers every unit exactly once, with I/Os cut short.
        assert!(covered.iter().all(|&c| c == 1));
        assert!(ios > N / 16 && ios < N, "{ios}");
    }

    #[test]
    fn coverage_finds_the_next_free_unit_round_the_end() {
        let mut c = Coverage::new(200);
        assert_eq!(c.take_run(10, 300), 190);
        assert_eq!(c.next_free(150), 0);
        assert_eq!(c.take_run(0, 5), 5);
        assert_eq!(c.next_free(0), 5);
        assert_eq!(c.take_run(5, 100), 5);
        assert_eq!(c.left, 0);
        c.reset();
        assert_eq!((c.left, c.next_free(199)), (200, 199));
    }

    #[test]
    fn the_map_visits_every_position_once_per_pass() {
        let h = hits(Distribution::Random, 2 * N as u32);
        assert!(h.iter().all(|&c| c == 2));
    }
}
