//! fio's `flow`, `flow_id` and `flow_sleep`: the jobs of a group that share
//! a `flow_id` keep their I/Os in the ratio of their `flow` weights.
//!
//! Each flow counts the I/Os its clones have issued (one atomic, shared by
//! their threads) and the weights of the clones still running. Before an
//! I/O a clone compares its share of the flow's I/Os with its share of the
//! weights: ahead of it, it waits (`flow_sleep` microseconds, or until one
//! of its I/Os completes) and tries again; else it counts the I/O, in its
//! own count and the flow's. A clone's weight leaves the flow when it ends,
//! so the others are not held back by a job that no longer runs, and so do
//! its I/Os: the ones left were in the ratio of their weights among
//! themselves, and stay so from the first I/O after. (Leaving its I/Os in
//! the count would put every clone left below its new share at once, and
//! they would all run unthrottled until the count caught up: jobs of
//! weights 1:2 beside one of 3 that ends halfway went 1:1 for seconds and
//! ended near 1:1.5 over the run, where fio holds 1:2.)
//!
//! Flows live for one group (the jobs that run together): fio's flows
//! count across the whole run, which only matters to jobs of one flow
//! separated by a `stonewall`, and those never run together anyway.

use model::JobSpec;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One flow: what its clones issued, and their weights.
#[derive(Default)]
pub(crate) struct Flow {
    issued: AtomicU64,
    weights: AtomicU64,
}

/// The flows of a group's jobs, by `flow_id`, with every clone's weight.
pub(crate) fn of_group(group: &[JobSpec]) -> HashMap<u32, Arc<Flow>> {
    let mut flows: HashMap<u32, Arc<Flow>> = HashMap::new();
    for spec in group.iter().filter(|s| s.flow.weight > 0) {
        let flow = flows.entry(spec.flow.id).or_default();
        let weight = u64::from(spec.flow.weight) * u64::from(spec.numjobs.max(1));
        flow.weights.fetch_add(weight, Ordering::Relaxed);
    }
    flows
}

/// One clone's place in its flow; its weight leaves the flow when dropped.
pub(crate) struct FlowShare {
    flow: Arc<Flow>,
    weight: u64,
    mine: u64,
}

impl FlowShare {
    /// The share of a clone of `spec` in `flows` (`None` outside any flow).
    pub(crate) fn of(spec: &JobSpec, flows: &HashMap<u32, Arc<Flow>>) -> Option<FlowShare> {
        let flow = flows.get(&spec.flow.id).filter(|_| spec.flow.weight > 0)?;
        Some(FlowShare {
            flow: Arc::clone(flow),
            weight: u64::from(spec.flow.weight),
            mine: 0,
        })
    }

    /// Whether the clone may issue an I/O now (it is counted if so): its
    /// share of the flow's I/Os is not above its share of the weights.
    pub(crate) fn take(&mut self) -> bool {
        let issued = self.flow.issued.load(Ordering::Relaxed);
        let weights = self.flow.weights.load(Ordering::Relaxed);
        // mine / issued > weight / weights, without dividing by zero.
        let ahead = u128::from(self.mine) * u128::from(weights)
            > u128::from(self.weight) * u128::from(issued);
        if issued > 0 && ahead {
            return false;
        }
        self.flow.issued.fetch_add(1, Ordering::Relaxed);
        self.mine += 1;
        true
    }
}

impl Drop for FlowShare {
    fn drop(&mut self) {
        self.flow.issued.fetch_sub(self.mine, Ordering::Relaxed);
        self.flow.weights.fetch_sub(self.weight, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::control::Flow as FlowSpec;

    fn job(weight: u32, id: u32) -> JobSpec {
        JobSpec {
            flow: FlowSpec {
                weight,
                id,
                sleep_us: 0,
            },
            ..JobSpec::new("j")
        }
    }

    #[test]
    fn shares_follow_the_weights_and_a_finished_clone_leaves() {
        let group = [job(1, 0), job(8, 0), job(0, 0)];
        let flows = of_group(&group);
        assert!(FlowShare::of(&group[2], &flows).is_none());
        let mut a = FlowShare::of(&group[0], &flows).unwrap();
        let mut b = FlowShare::of(&group[1], &flows).unwrap();
        // Both try in turn, as fast as they can: 1:8, give or take one I/O.
        let (mut na, mut nb) = (0i64, 0i64);
        for _ in 0..900 {
            na += i64::from(a.take());
            nb += i64::from(b.take());
        }
        assert!((nb - 8 * na).abs() <= 8, "{na}:{nb}");
        // Once b has ended, a is held back by nothing.
        drop(b);
        assert!((0..50).all(|_| a.take()));
    }

    #[test]
    fn the_ones_left_keep_their_ratio_from_the_first_io_after_one_ends() {
        // fio's t/jobs/t0014: weights 1, 2 and 3; the 3 ends halfway.
        let group = [job(1, 1), job(2, 1), job(3, 1)];
        let flows = of_group(&group);
        let mut shares: Vec<FlowShare> = group
            .iter()
            .map(|j| FlowShare::of(j, &flows).unwrap())
            .collect();
        for _ in 0..600 {
            for s in shares.iter_mut() {
                s.take();
            }
        }
        drop(shares.pop());
        let (mut na, mut nb) = (0i64, 0i64);
        for _ in 0..300 {
            na += i64::from(shares[0].take());
            nb += i64::from(shares[1].take());
        }
        assert!((nb - 2 * na).abs() <= 2, "after the 3 ended, {na}:{nb}");
    }

    #[test]
    fn flows_are_apart_by_id() {
        let group = [job(1, 1), job(3, 2)];
        let flows = of_group(&group);
        let mut a = FlowShare::of(&group[0], &flows).unwrap();
        let mut b = FlowShare::of(&group[1], &flows).unwrap();
        assert!((0..20).all(|_| a.take() && b.take()));
    }
}
