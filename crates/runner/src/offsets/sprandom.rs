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
//! **How one pass gets there.** The pass is cut into `spr_num_regions`
//! (`R`) regions written one after the other, oldest first, each of `P / R`
//! writes rounded down (fio's `region_write_count`). Every logical block is
//! written once as an original, in a random order (a keyed permutation, as
//! the plain random pattern uses); the other writes rewrite blocks of the
//! region just before, which leaves stale copies there. Each region is to
//! keep the share of valid blocks fio 3.42 aims at (`profile`): from 1 in
//! the newest to fio's close fraction for `x` in the oldest (0.752 for
//! `op` = 0.15; with 4 regions 0.752, 0.827, 0.909, 1.0 from the oldest,
//! as fio reports), so region `k` rewrites `length (1 - kept[k - 1])` of
//! region `k - 1`'s blocks among its originals. The pass ends when the
//! originals run out; those shares need not keep exactly `U` blocks, so
//! that is near the end of the last region, or, with originals left, in
//! one more region of at most `length` originals. fio never writes more
//! than `P` blocks, and stops there even with originals left: with many
//! regions and a large `op`, a few percent of the blocks are then never
//! written (fio: 3809 of 4096 for 16 MiB, `op` 0.9, 200 regions). diskbench
//! does the same, so that its writes are fio's.
//!
//! **Rounding, and how fio's counts differ.** fio picks each block of a
//! region for a rewrite at random, with the region's stale share as the
//! chance, so its rewrite counts scatter around `length (1 - kept)` (by
//! about ±8 for 294 blocks at 25%) and change with `randseed`, and so do
//! where its pass ends and its total (1145 to 1177 writes for 4 MiB in 4
//! regions over 40 seeds). No rule without fio's random numbers gives its
//! exact counts; diskbench writes the expected ones, each region's rounded
//! so that the running total stays the nearest whole number to the exact
//! one (1174 for that pass; fio's default seed gives 1168).
//! `bench/sprandom_fio_figures.py` records fio's counts over a grid of
//! sizes (`tests/fixtures/sprandom_fio_3_42.csv`), and `fio_figures` checks
//! diskbench's against them. Within a region fio writes one original, then
//! the rewrites, then the other originals; that order changes the counts
//! only for regions shorter than one original and their rewrites (fio then
//! lengthens the region), which the plan mirrors; diskbench spreads the
//! rewrites evenly through the region instead (see below).
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

use super::{Passes, Region, Rng, Shuffle, Target};
use model::job::SpRandom;
use model::{Direction, JobSpec};

/// The writes of each region: fresh originals, and rewrites of the region
/// before it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Plan {
    /// Per region, first writes of logical blocks; they add up to the user
    /// blocks, or fewer when the pass reaches the physical capacity first.
    fresh: Vec<u64>,
    /// Per region, rewrites of the previous region's blocks (none in the
    /// first).
    rewrites: Vec<u64>,
    /// `spr_cs` given: rewrites come after the region's fresh writes.
    deferred: bool,
    /// Per region of the `spr_num_regions`, oldest first, the share of
    /// its blocks it is to keep valid (see `profile`).
    kept: Vec<f64>,
}

/// Why a job's `sprandom` options cannot make a plan, and what to change.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum PlanError {
    #[error(
        "sprandom preconditions one device or file, and this job has {files} files: give \
         one filename (nrfiles=1)"
    )]
    Files { files: usize },
    #[error(
        "spr_op={op} is not a share between 0 and 1 (exclusive): give the spare \
         capacity the drive's maker states, e.g. spr_op=0.07 or 0.28"
    )]
    Spare { op: f64 },
    #[error(
        "spr_num_regions={regions} does not fit: every region needs at least one of the \
         {physical} writes of this size (the size times 1+spr_op, in blocks): give \
         from 1 to {physical} regions"
    )]
    Regions { regions: u32, physical: u64 },
    #[error(
        "spr_cs={cache} is larger than a region ({region_bytes} bytes: the size times 1+spr_op over \
         spr_num_regions={regions}), as fio refuses too: give fewer regions or a \
         smaller spr_cs"
    )]
    CacheOverRegion {
        cache: u64,
        region_bytes: u64,
        regions: u64,
    },
    #[error(
        "spr_cs={cache} is larger than the fresh writes that come between a \
         region's originals and their rewrites ({fresh_bytes} bytes in the shortest of the {regions} \
         regions, each of which is about {region_bytes} bytes): the rewrites could meet their \
         originals in the drive's cache; give fewer regions (spr_num_regions) or a \
         smaller spr_cs"
    )]
    CacheOverFresh {
        cache: u64,
        fresh_bytes: u64,
        region_bytes: u64,
        regions: usize,
    },
}

impl Plan {
    /// The plan of `spec`'s pass over `regions` (its files), if it has
    /// `sprandom`; `Err` says why it cannot have one, and what to change.
    pub(crate) fn for_job(spec: &JobSpec, regions: &[Region]) -> Result<Option<Plan>, PlanError> {
        if !spec.sprandom.enabled {
            return Ok(None);
        }
        let [file] = regions else {
            return Err(PlanError::Files {
                files: regions.len(),
            });
        };
        Plan::new(file.blocks, file.block_bytes, &spec.sprandom).map(Some)
    }

    /// The plan for `user_blocks` blocks of `block_bytes`; `Err` says why
    /// these options cannot make one, and what to change.
    pub(crate) fn new(
        user_blocks: u64,
        block_bytes: u64,
        spr: &SpRandom,
    ) -> Result<Plan, PlanError> {
        let op = spr.over_provisioning;
        if !(op > 0.0 && op < 1.0) {
            return Err(PlanError::Spare { op });
        }
        let physical = physical_blocks(user_blocks, op);
        let regions = u64::from(spr.regions);
        if regions == 0 || regions > physical {
            return Err(PlanError::Regions {
                regions: spr.regions,
                physical,
            });
        }
        // fio's region length: the physical capacity shared out, rounded
        // down (its `region_write_count`), the same for every region.
        let length = physical / regions;
        let region_bytes = physical.saturating_mul(block_bytes) / regions;
        if regions > 1 && spr.cache_bytes > region_bytes {
            return Err(PlanError::CacheOverRegion {
                cache: spr.cache_bytes,
                region_bytes,
                regions,
            });
        }
        let kept = profile::kept_shares(op, spr.regions as usize);
        let stale = stale_counts(length, &kept);
        let (fresh, rewrites) = region_writes(length, &stale, user_blocks, physical);
        let plan = Plan {
            fresh,
            rewrites,
            deferred: spr.cache_bytes > 0,
            kept,
        };
        plan.check_cache(block_bytes, spr.cache_bytes)?;
        Ok(plan)
    }

    /// With a cache, the fresh writes that separate a region's originals
    /// from their rewrites must fill it.
    fn check_cache(&self, block_bytes: u64, cache_bytes: u64) -> Result<(), PlanError> {
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
            Some(f) if f.saturating_mul(block_bytes) < cache_bytes => {
                Err(PlanError::CacheOverFresh {
                    cache: cache_bytes,
                    fresh_bytes: f * block_bytes,
                    region_bytes: self.length(0) * block_bytes,
                    regions: self.regions(),
                })
            }
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
    /// end of the pass (all of a region past `spr_num_regions`).
    #[cfg(test)]
    fn kept_share_of(&self, region: usize) -> f64 {
        self.kept.get(region).copied().unwrap_or(1.0)
    }
}

/// The physical capacity in whole blocks, rounded down as fio does. A
/// share such as 0.15 is not exact in binary, and 100 blocks at 0.15 must
/// give 115 (fio's figure), not 114.99999 rounded down.
fn physical_blocks(user_blocks: u64, op: f64) -> u64 {
    let spare = user_blocks as f64 * op * (1.0 + 1e-12);
    user_blocks + spare.floor() as u64
}

/// The rewrites of each region, of the one before it: region `k` leaves
/// `length (1 - kept[k - 1])` of region `k - 1`'s blocks stale. fio draws
/// each count at random around that figure; here each is rounded so that
/// the running total stays the nearest whole number to the exact one.
fn stale_counts(length: u64, kept: &[f64]) -> Vec<u64> {
    let mut exact_total = 0.0;
    let mut given: u64 = 0;
    let mut counts = vec![0; kept.len()];
    for k in 1..kept.len() {
        exact_total += length as f64 * (1.0 - kept[k - 1]);
        let now = exact_total.round() as u64;
        counts[k] = now.saturating_sub(given);
        given = given.max(now);
    }
    counts
}

/// Per region, its fresh writes and its rewrites, as fio's pass goes: each
/// region is `length` writes, one original, its rewrites, and originals up
/// to the length (one original at least), until the originals run out. With
/// originals left after the last region, one more region of originals
/// follows, at most `length`. The pass never goes past the physical
/// capacity (it stops in the middle of a region at it), and originals left
/// then are never written, as in fio.
fn region_writes(
    length: u64,
    stale: &[u64],
    user_blocks: u64,
    physical: u64,
) -> (Vec<u64>, Vec<u64>) {
    let (mut fresh, mut rewrites) = (Vec::new(), Vec::new());
    let (mut left, mut room, mut before) = (user_blocks, physical, 0);
    // The asked regions, then one more of originals only.
    for stale in stale.iter().copied().chain([0]) {
        if left == 0 || room == 0 {
            break;
        }
        // Never more than the region before holds.
        let wanted = stale.min(before);
        let first = 1;
        let rewrite = wanted.min(room - first);
        let rest = (length.saturating_sub(first + rewrite))
            .min(left - first)
            .min(room - first - rewrite);
        fresh.push(first + rest);
        rewrites.push(rewrite);
        before = first + rest + rewrite;
        (left, room) = (left - first - rest, room - before);
    }
    (fresh, rewrites)
}

/// The pass under way: which block each write goes to.
#[derive(Clone, Debug)]
pub(crate) struct Writer {
    plan: Plan,
    user_blocks: u64,
    /// The order of the originals.
    originals: Shuffle,
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
        let originals = Shuffle::new(user_blocks.max(1), &mut rng);
        let mut w = Writer {
            plan,
            user_blocks,
            originals,
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
            false => self.originals.next(),
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
            self.originals = Shuffle::new(self.user_blocks.max(1), &mut self.rng);
        } else {
            self.region += 1;
        }
        self.sample = Vec::with_capacity(self.sample_size() as usize);
        new_pass
    }
}

mod profile;

#[cfg(test)]
mod fio_figures;
#[cfg(test)]
mod tests;
