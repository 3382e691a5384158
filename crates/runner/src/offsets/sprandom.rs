//! fio's `sprandom`: precondition an SSD for random writes in one pass of
//! its physical capacity, instead of the two or more full passes of uniform
//! random writes it takes to reach the steady state.
//!
//! **What the steady state looks like.** Under uniform random writes over
//! `U` user blocks, a block written `k` host writes ago is still the current
//! copy of its logical block with probability `(1 - 1/U)^k ≈ e^(-k/U)`. A
//! drive holds `P = U (1 + op)` physical blocks (`op`: `spr_op`, the spare
//! share). When its garbage collection reclaims the oldest data first (which
//! greedy collection comes close to under uniform writes), every erase block
//! still holds a share `x` of valid blocks when it is reclaimed; those are
//! copied, so only `1 - x` of all writes are the host's. Data `p` physical
//! blocks back from the newest was then written `p (1 - x)` host writes ago
//! and is valid with probability `e^(-p (1 - x) / U)`. At the oldest end
//! (`p = P`) that is `x` itself, so `x = e^(-(1 + op)(1 - x))`: 0.75 for
//! `op` = 0.15. The valid blocks add up to `∫₀ᴾ e^(-p (1 - x) / U) dp = U`,
//! one valid copy of each logical block, as they must.
//!
//! **How one pass gets there.** The pass writes `P` blocks, cut into
//! `spr_num_regions` regions of equal length written one after the other,
//! oldest first. Every logical block is written once as an original, in a
//! random order (a keyed permutation, as the plain random pattern uses); the
//! other `P - U` writes rewrite blocks of the region just before, which
//! leaves stale copies there. Region `i` of `R`, with `a = R - 1 - i` regions
//! written after it, should keep a share `q^a` of its blocks valid: the
//! profile above with one step per region. `q` is the one number for which
//! the valid blocks add up to `U` (`Σ length_i q^(a_i) = U`), found by
//! bisection; as regions get many the oldest region's share tends to `x`
//! (0.75 for `op` = 0.15), and with 4 regions it is 0.746, 0.823, 0.907,
//! 1.0 from the oldest, where fio 3.42 reports 0.75, 0.83, 0.91, 1.0. So
//! the newest region has no stale blocks, and region `i`'s `(1 - q^a)`
//! share is rewritten during region `i + 1`, among its fresh writes.
//!
//! **The device cache** (`spr_cs`). A rewrite that reaches the drive while
//! the original is still in its write cache may replace it there, and the
//! stale copy is never written to flash. With a cache size, a region's
//! rewrites wait until its fresh writes are done (as fio does), so at least
//! those lie between an original and its rewrite; the plan is refused when
//! a region's fresh writes are fewer bytes than the cache. Without one they
//! are spread evenly through the region.
//!
//! Memory: a uniform sample of each region's blocks is kept for the next
//! region to rewrite (reservoir sampling, so one sample per region, of the
//! size it needs): 8 bytes per rewrite of the two regions under way, about
//! half a region at 15% over-provisioning. More regions, less memory, as
//! fio's documentation says of its own.

use super::{Passes, Permutation, Region, Rng, Target};
use model::job::SpRandom;
use model::{Direction, JobSpec};

/// The writes of each region: fresh originals, and rewrites of the region
/// before it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Plan {
    /// Per region, first writes of logical blocks; they add up to the user
    /// blocks.
    fresh: Vec<u64>,
    /// Per region, rewrites of the previous region's blocks (none in the
    /// first).
    rewrites: Vec<u64>,
    /// `spr_cs` given: rewrites come after the region's fresh writes.
    deferred: bool,
    /// The share of its blocks a region keeps valid per region written
    /// after it (`q` above).
    kept_per_region: f64,
}

impl Plan {
    /// The plan of `spec`'s pass over `regions` (its files), if it has
    /// `sprandom`; `Err` says why it cannot have one, and what to change.
    pub(crate) fn for_job(spec: &JobSpec, regions: &[Region]) -> Result<Option<Plan>, String> {
        if !spec.sprandom.enabled {
            return Ok(None);
        }
        let [file] = regions else {
            return Err(format!(
                "sprandom preconditions one device or file, and this job has {} files: give \
                 one filename (nrfiles=1)",
                regions.len()
            ));
        };
        Plan::new(file.blocks, file.block_bytes, &spec.sprandom).map(Some)
    }

    /// The plan for `user_blocks` blocks of `block_bytes`; `Err` says why
    /// these options cannot make one, and what to change.
    pub(crate) fn new(user_blocks: u64, block_bytes: u64, spr: &SpRandom) -> Result<Plan, String> {
        let op = spr.over_provisioning;
        if !(op > 0.0 && op < 1.0) {
            return Err(format!(
                "spr_op={op} is not a share between 0 and 1 (exclusive): give the spare \
                 capacity the drive's maker states, e.g. spr_op=0.07 or 0.28"
            ));
        }
        let physical = physical_blocks(user_blocks, op);
        let regions = u64::from(spr.regions);
        if regions == 0 || regions > physical {
            return Err(format!(
                "spr_num_regions={} does not fit: every region needs at least one of the \
                 {physical} writes of this size (the size times 1+spr_op, in blocks): give \
                 from 1 to {physical} regions",
                spr.regions
            ));
        }
        let part = |i: u64| (u128::from(physical) * u128::from(i) / u128::from(regions)) as u64;
        let lengths: Vec<u64> = (0..regions).map(|i| part(i + 1) - part(i)).collect();
        let q = kept_share(&lengths, user_blocks);
        let invalid = stale_counts(&lengths, q);
        let plan = Plan::from_counts(&lengths, &invalid, user_blocks, spr.cache_bytes > 0, q);
        plan.check_cache(block_bytes, spr.cache_bytes)?;
        Ok(plan)
    }

    /// Region `i + 1` rewrites `invalid[i]` of region `i`'s blocks, and
    /// fills the rest of its length with fresh writes; the last region
    /// takes whatever fresh blocks are left, so that every block is written
    /// once as an original whatever the rounding did.
    fn from_counts(
        lengths: &[u64],
        invalid: &[u64],
        user_blocks: u64,
        deferred: bool,
        q: f64,
    ) -> Plan {
        let n = lengths.len();
        let mut rewrites = vec![0; n];
        let mut fresh = vec![0; n];
        let mut fresh_so_far = 0;
        for i in 0..n {
            if i > 0 {
                // Never more than the region before has, nor than this one holds.
                rewrites[i] = invalid[i - 1].min(lengths[i - 1]).min(lengths[i]);
            }
            let left = user_blocks - fresh_so_far;
            fresh[i] = match i + 1 == n {
                true => left,
                false => (lengths[i] - rewrites[i]).min(left),
            };
            fresh_so_far += fresh[i];
        }
        Plan {
            fresh,
            rewrites,
            deferred,
            kept_per_region: q,
        }
    }

    /// With a cache, the fresh writes that separate a region's originals
    /// from their rewrites must fill it.
    fn check_cache(&self, block_bytes: u64, cache_bytes: u64) -> Result<(), String> {
        if cache_bytes == 0 {
            return Ok(());
        }
        // Region i's originals are followed by region i + 1's fresh
        // writes before region i + 1 rewrites any of them.
        let shortest = (self.fresh.iter().zip(&self.rewrites))
            .skip(1)
            .filter(|(_, &rewrites)| rewrites > 0)
            .map(|(&fresh, _)| fresh)
            .min();
        match shortest {
            Some(f) if f.saturating_mul(block_bytes) < cache_bytes => Err(format!(
                "spr_cs={cache_bytes} is larger than the fresh writes that come between a \
                 region's originals and their rewrites ({} bytes in the shortest of the {regions} \
                 regions, each of which is about {} bytes): the rewrites could meet their \
                 originals in the drive's cache; give fewer regions (spr_num_regions) or a \
                 smaller spr_cs",
                f * block_bytes,
                self.length(0) * block_bytes,
                regions = self.regions(),
            )),
            _ => Ok(()),
        }
    }

    /// All the writes of the pass: the user blocks once, plus the rewrites.
    pub(crate) fn writes(&self) -> u64 {
        self.fresh.iter().sum::<u64>() + self.rewrites.iter().sum::<u64>()
    }

    fn regions(&self) -> usize {
        self.fresh.len()
    }

    fn length(&self, region: usize) -> u64 {
        self.fresh[region] + self.rewrites[region]
    }

    /// The share of region `region`'s blocks the model keeps valid at the
    /// end of the pass.
    #[cfg(test)]
    fn kept_share_of(&self, region: usize) -> f64 {
        let age = (self.regions() - 1 - region) as i32;
        self.kept_per_region.powi(age)
    }
}

/// The physical capacity in whole blocks, rounded down as fio does. A
/// share such as 0.15 is not exact in binary, and 100 blocks at 0.15 must
/// give 115 (fio's figure), not 114.99999 rounded down.
fn physical_blocks(user_blocks: u64, op: f64) -> u64 {
    let spare = user_blocks as f64 * op * (1.0 + 1e-12);
    user_blocks + spare.floor() as u64
}

/// `q` such that regions of `lengths` (oldest first), keeping `q^age` of
/// their blocks, keep `user_blocks` in all; the sum grows with `q`, from the
/// newest region's length at 0 to all the writes at 1. One region has no
/// later one to leave stale blocks in: it keeps everything.
fn kept_share(lengths: &[u64], user_blocks: u64) -> f64 {
    // Horner's rule: ((l0 q + l1) q + l2) ... = Σ l_i q^(n-1-i).
    let kept = |q: f64| lengths.iter().fold(0.0, |acc, &l| acc * q + l as f64);
    let target = user_blocks as f64;
    if lengths.len() < 2 || kept(1.0) <= target {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..64 {
        let mid = (lo + hi) / 2.0;
        match kept(mid) < target {
            true => lo = mid,
            false => hi = mid,
        }
    }
    (lo + hi) / 2.0
}

/// The stale blocks each region should end with, `length (1 - q^age)`,
/// rounded so that the running total stays the nearest whole number to the
/// exact one (the counts then add up to `P - U` without drift).
fn stale_counts(lengths: &[u64], q: f64) -> Vec<u64> {
    let n = lengths.len();
    let mut exact_total = 0.0;
    let mut given: u64 = 0;
    (0..n)
        .map(|i| {
            let age = (n - 1 - i) as i32;
            exact_total += lengths[i] as f64 * (1.0 - q.powi(age));
            let now = exact_total.round() as u64;
            let count = now.saturating_sub(given);
            given = given.max(now);
            count
        })
        .collect()
}

/// The pass under way: which block each write goes to.
#[derive(Clone, Debug)]
pub(crate) struct Writer {
    plan: Plan,
    user_blocks: u64,
    /// The order of the originals, and how many were written.
    originals: Permutation,
    next_original: u64,
    region: usize,
    /// Writes done in the current region, and how many were rewrites.
    done: u64,
    rewritten: u64,
    /// The previous region's blocks to rewrite in this one, in random order.
    to_rewrite: Vec<u64>,
    /// A uniform sample of this region's blocks, of the size the next
    /// region rewrites, and how many writes it was drawn from.
    sample: Vec<u64>,
    sampled_from: u64,
    rng: Rng,
}

impl Writer {
    pub(crate) fn new(plan: Plan, user_blocks: u64, mut rng: Rng) -> Writer {
        let originals = Permutation::new(user_blocks.max(1), &mut rng);
        let mut w = Writer {
            plan,
            user_blocks,
            originals,
            next_original: 0,
            region: 0,
            done: 0,
            rewritten: 0,
            to_rewrite: Vec::new(),
            sample: Vec::new(),
            sampled_from: 0,
            rng,
        };
        w.sample = Vec::with_capacity(w.sample_size() as usize);
        w
    }

    /// How many of the current region's blocks the next one rewrites.
    fn sample_size(&self) -> u64 {
        self.plan
            .rewrites
            .get(self.region + 1)
            .copied()
            .unwrap_or(0)
    }

    /// The next write, in `region` (the job's file), counting a new pass
    /// in `passes`.
    pub(crate) fn next_target(
        &mut self,
        dir: Direction,
        region: Region,
        passes: &mut Passes,
    ) -> Target {
        let (block, new_pass) = self.next_block();
        if new_pass {
            passes.end(0);
        }
        Target {
            file: 0,
            dir,
            offset: region.base + block * region.block_bytes,
            len: region.block_bytes,
        }
    }

    /// The block of the next write, and whether a new pass began with it
    /// (after the last region the pass starts over, with a new order).
    pub(crate) fn next_block(&mut self) -> (u64, bool) {
        let mut new_pass = false;
        while self.done == self.plan.length(self.region) {
            new_pass |= self.next_region();
        }
        let block = match self.rewrite_now() {
            true => {
                self.rewritten += 1;
                self.to_rewrite
                    .pop()
                    .expect("a sample as large as the rewrites")
            }
            false => {
                let b = self.originals.get(self.next_original);
                self.next_original += 1;
                b
            }
        };
        self.done += 1;
        self.keep_in_sample(block);
        (block, new_pass)
    }

    /// Whether the current write is a rewrite: the region's rewrites spread
    /// evenly over it, or after its fresh writes when they are deferred.
    fn rewrite_now(&self) -> bool {
        let (k, total) = (self.done, self.plan.length(self.region));
        let rewrites = self.plan.rewrites[self.region];
        if self.plan.deferred {
            return k >= self.plan.fresh[self.region];
        }
        // The k-th write is a rewrite when it moves floor(k r / n) up.
        let due = |k: u64| (u128::from(k) * u128::from(rewrites) / u128::from(total)) as u64;
        due(k + 1) > self.rewritten && self.rewritten < rewrites
    }

    /// Reservoir sampling: after `t` writes, each of them is in the sample
    /// with the same chance.
    fn keep_in_sample(&mut self, block: u64) {
        let size = self.sample_size();
        if size == 0 {
            return;
        }
        if self.sampled_from < size {
            self.sample.push(block);
        } else {
            let slot = self.rng.below(self.sampled_from + 1);
            if slot < size {
                self.sample[slot as usize] = block;
            }
        }
        self.sampled_from += 1;
    }

    /// Moves on to the next region (or the next pass: `true`), whose
    /// rewrites take the sample, shuffled.
    fn next_region(&mut self) -> bool {
        let new_pass = self.region + 1 == self.plan.regions();
        let mut sample = std::mem::take(&mut self.sample);
        for i in (1..sample.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            sample.swap(i, j);
        }
        self.to_rewrite = sample;
        (self.done, self.rewritten, self.sampled_from) = (0, 0, 0);
        if new_pass {
            self.region = 0;
            self.to_rewrite.clear();
            self.originals = Permutation::new(self.user_blocks.max(1), &mut self.rng);
            self.next_original = 0;
        } else {
            self.region += 1;
        }
        self.sample = Vec::with_capacity(self.sample_size() as usize);
        new_pass
    }
}

#[cfg(test)]
mod tests;
