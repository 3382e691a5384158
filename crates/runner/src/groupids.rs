//! fio's `groupid`: the reporting groups, which are not the run order.
//!
//! The runner runs `groups` one after another (`stonewall` cut them); fio
//! reports by `groupid`, which starts afresh with each of those groups and
//! also with each job that has `new_group` (`JobSpec::new_group`) while it
//! runs at the same time as the jobs before it. Without `new_group` a
//! group's `groupid` is its index, as before.

use model::JobSpec;

/// The `groupid` of each job of `group`, whose first job's is `first`.
pub(crate) fn of(group: &[JobSpec], first: u32) -> Vec<u32> {
    let mut id = first;
    group
        .iter()
        .enumerate()
        .map(|(j, spec)| {
            if j > 0 && spec.new_group {
                id += 1;
            }
            id
        })
        .collect()
}

/// The `groupid` of every job of a run's `groups`, group by group (what
/// fio's normal output prints before the run, `NAME: (g=N): ...`).
pub fn of_run(groups: &[Vec<JobSpec>]) -> Vec<Vec<u32>> {
    let mut first = 0;
    (groups.iter())
        .map(|group| {
            let ids = of(group, first);
            first = next(&ids, first);
            ids
        })
        .collect()
}

/// The `groupid` the group after one with `ids` starts with.
pub(crate) fn next(ids: &[u32], first: u32) -> u32 {
    ids.last().map_or(first, |last| last + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_group_splits_a_running_group() {
        let job = |new_group| JobSpec {
            new_group,
            ..JobSpec::new("j")
        };
        // fio 3.33: a0 b1 c1 (b has new_group), then d2 e3 after a stonewall.
        let first = [job(false), job(true), job(false)];
        let ids = of(&first, 0);
        assert_eq!(ids, [0, 1, 1]);
        let second = [job(false), job(true)];
        assert_eq!(of(&second, next(&ids, 0)), [2, 3]);
        // On the first job of a group, new_group changes nothing.
        assert_eq!(of(&[job(true), job(false)], 4), [4, 4]);
        assert_eq!(next(&[], 5), 5);
    }
}
