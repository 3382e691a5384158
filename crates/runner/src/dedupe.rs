//! fio's `dedupe_global`: the `working_set` of `dedupe_percentage` shared by
//! every clone of the run that sets it. Each gives an equal part of its own
//! working set (its working set divided by the number of clones taking
//! part; fio's "spread evenly"): its first unique buffers are that part of
//! the shared set, and each duplicate it writes is drawn from the whole
//! set, so two jobs' files hold the same blocks. Checked against fio 3.33's
//! files (`dedupe-global.fio`: two jobs of 25,600 blocks, 50% duplicates, a
//! 50% working set): each file holds about 16,800 distinct blocks, and the
//! two files about 8,000 blocks in common; without `dedupe_global`, about
//! 12,800 and none.
//!
//! A clone's blocks are counted from its `size` and `bs` before its files
//! are laid out, as fio counts its working set from `size` (which it needs
//! explicitly, with one file per job).

use model::JobSpec;
use std::collections::BTreeMap;

/// One clone's part of the shared working set: buffers `start..start + len`
/// of the set of `total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DedupeShare {
    pub start: u64,
    pub len: u64,
    pub total: u64,
}

/// The shares of the run's clones that take part, by thread number (each
/// clone's number among the run's threads, from 1, as the runner gives it).
#[derive(Debug, Default)]
pub(crate) struct DedupeShares(BTreeMap<u32, DedupeShare>);

impl DedupeShares {
    pub(crate) fn of(groups: &[Vec<JobSpec>]) -> DedupeShares {
        let mut thread = 0u32;
        let mut sets = Vec::new();
        for spec in groups.iter().flatten() {
            for _ in 0..spec.numjobs.max(1) {
                thread += 1;
                if spec.buffer_data.shares_working_set() {
                    let blocks = spec.size_bytes.unwrap_or(0) / spec.bs_bytes.max(1);
                    sets.push((thread, spec.buffer_data.working_set_blocks(blocks)));
                }
            }
        }
        let n = sets.len() as u64;
        let mut shares = BTreeMap::new();
        let mut start = 0;
        for (thread, set) in sets {
            let len = (set / n).max(1);
            shares.insert(
                thread,
                DedupeShare {
                    start,
                    len,
                    total: 0,
                },
            );
            start += len;
        }
        for share in shares.values_mut() {
            share.total = start;
        }
        DedupeShares(shares)
    }

    pub(crate) fn get(&self, thread_number: u32) -> Option<DedupeShare> {
        self.0.get(&thread_number).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::data::DedupeMode;

    fn job(name: &str, global: bool, numjobs: u32) -> JobSpec {
        let mut spec = JobSpec::new(name);
        spec.size_bytes = Some(100 << 20);
        spec.numjobs = numjobs;
        let d = &mut spec.buffer_data;
        d.dedupe_pct = 50;
        d.dedupe_mode = DedupeMode::WorkingSet;
        d.dedupe_working_set_pct = 50;
        d.dedupe_global = global;
        spec
    }

    #[test]
    fn the_set_is_spread_evenly_over_the_clones_taking_part() {
        let groups = vec![
            vec![job("a", true, 1), job("x", false, 2)],
            vec![job("b", true, 1)],
        ];
        let shares = DedupeShares::of(&groups);
        // a is thread 1, x threads 2 and 3, b thread 4: 12,800 blocks each
        // of a and b's working sets, halved.
        let a = shares.get(1).expect("a takes part");
        let b = shares.get(4).expect("b takes part");
        assert_eq!((a.start, a.len, a.total), (0, 6400, 12800));
        assert_eq!((b.start, b.len, b.total), (6400, 6400, 12800));
        assert!(shares.get(2).is_none() && shares.get(3).is_none());
    }
}
