//! A run's time budget (`model::StableStop::budget_ns`): a suite of tests
//! that each stop once stable is given one total time instead of a fixed
//! time per test. Before each group starts, the time left is shared evenly
//! among the groups still to run, and each time-based job of this group
//! measures at most its share less its ramp (never less than the stop's
//! minimum, never more than its own runtime). A disk that holds its speed
//! finishes its tests early and the budget is never felt; one whose
//! figures wander is measured as long as the budget allows, with its
//! intervals saying how sure each figure is.

use model::{JobSpec, StableStop};
use std::borrow::Cow;
use std::time::Duration;

/// `group` with its jobs' runtimes cut to their share of the budget, when
/// `rule` has one: `elapsed` is the run's time so far, and `groups_left`
/// counts this group and those after it.
pub(crate) fn share<'a>(
    group: &'a [JobSpec],
    rule: Option<StableStop>,
    elapsed: Duration,
    groups_left: usize,
) -> Cow<'a, [JobSpec]> {
    let Some((rule, budget)) = rule.and_then(|r| Some((r, r.budget_ns?))) else {
        return Cow::Borrowed(group);
    };
    let left = Duration::from_nanos(budget).saturating_sub(elapsed);
    let share = left / groups_left.max(1) as u32;
    let floor = Duration::from_nanos(rule.min_runtime_ns);
    let cut = |job: &JobSpec| -> Option<Duration> {
        let runtime = job.runtime.filter(|_| job.time_based)?;
        let cap = share.saturating_sub(job.ramp_time).max(floor);
        (cap < runtime).then_some(cap)
    };
    if group.iter().all(|j| cut(j).is_none()) {
        return Cow::Borrowed(group);
    }
    Cow::Owned(
        group
            .iter()
            .map(|j| JobSpec {
                runtime: cut(j).or(j.runtime),
                ..j.clone()
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: Duration = Duration::from_secs(1);

    fn rule(budget_s: Option<u64>) -> StableStop {
        StableStop {
            half_width_pct: 3.0,
            min_runtime_ns: 2_000_000_000,
            min_ios: 500,
            slice_ns: 200_000_000,
            budget_ns: budget_s.map(|s| s * 1_000_000_000),
        }
    }

    fn job(runtime_s: u64, time_based: bool) -> JobSpec {
        JobSpec {
            runtime: Some(Duration::from_secs(runtime_s)),
            time_based,
            ramp_time: SEC,
            ..JobSpec::new("t")
        }
    }

    fn runtimes(group: &[JobSpec]) -> Vec<Option<Duration>> {
        group.iter().map(|j| j.runtime).collect()
    }

    #[test]
    fn each_group_gets_an_even_share_of_what_is_left_less_its_ramp() {
        let group = [job(7, true)];
        // 28 s for 7 tests: 4 s each, 3 s of it measured.
        let first = share(&group, Some(rule(Some(28))), Duration::ZERO, 7);
        assert_eq!(runtimes(&first), vec![Some(3 * SEC)]);
        // Earlier tests stopped early: 20 s left for 2 tests, but the cap
        // stays the job's own 7 s.
        let late = share(&group, Some(rule(Some(28))), 8 * SEC, 2);
        assert!(matches!(late, Cow::Borrowed(_)));
        assert_eq!(runtimes(&late), vec![Some(7 * SEC)]);
    }

    #[test]
    fn the_share_never_falls_below_the_minimum_nor_touches_other_jobs() {
        // The budget is spent: the minimum time still holds.
        let group = [job(7, true), job(7, false)];
        let over = share(&group, Some(rule(Some(28))), 40 * SEC, 3);
        assert_eq!(runtimes(&over), vec![Some(2 * SEC), Some(7 * SEC)]);
        // No budget, or no stable stop: nothing is cut.
        for r in [Some(rule(None)), None] {
            assert!(matches!(share(&group, r, 40 * SEC, 3), Cow::Borrowed(_)));
        }
    }
}
