//! fio's `exitall` (with `exit_what`) and `exitall_on_error`: when a job
//! with them ends (or fails), other jobs are told to stop: those of its
//! reporting group (`groupid`, which `new_group` splits off the jobs
//! running with them) by default, every running job with
//! `exit_what=stonewall`, and with `exit_what=all` or `exitall_on_error`
//! every job, and no later group starts.
//!
//! Stopping uses each job's own stop flag (the one `steadystate` and a
//! failing clone already set), so a job ended this way finishes as fio's
//! does: its I/O so far is reported, it is not an error.

use model::control::{ExitRules, ExitWhat};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One group's stop flags, shared by its workers.
pub(crate) struct GroupExit {
    /// Each job's stop flag, by its place in the group.
    pub(crate) stops: Vec<Arc<AtomicBool>>,
    /// Each job's `groupid`, by its place in the group.
    pub(crate) groupids: Vec<u32>,
    /// Set when no later group may start; read by the runner between groups.
    pub(crate) rest_of_run: Arc<AtomicBool>,
}

impl GroupExit {
    /// The job at `job` (its place in the group), with `rules`, has ended,
    /// in error or not.
    pub(crate) fn job_ended(&self, job: usize, rules: &ExitRules, failed: bool) {
        let on_error = failed && rules.on_error;
        let mine = self.groupids.get(job).copied();
        for (stop, id) in self.stops.iter().zip(&self.groupids) {
            let ends =
                on_error || (rules.exitall && (rules.what != ExitWhat::Group || Some(*id) == mine));
            if ends {
                stop.store(true, Ordering::Relaxed);
            }
        }
        if on_error || (rules.exitall && rules.what == ExitWhat::All) {
            self.rest_of_run.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(n: usize) -> GroupExit {
        split(vec![0; n])
    }

    fn split(groupids: Vec<u32>) -> GroupExit {
        GroupExit {
            stops: groupids
                .iter()
                .map(|_| Arc::new(AtomicBool::new(false)))
                .collect(),
            groupids,
            rest_of_run: Arc::new(AtomicBool::new(false)),
        }
    }

    fn stopped(g: &GroupExit) -> (Vec<bool>, bool) {
        let each = g.stops.iter().map(|s| s.load(Ordering::Relaxed)).collect();
        (each, g.rest_of_run.load(Ordering::Relaxed))
    }

    #[test]
    fn exitall_ends_the_group_and_exit_what_all_the_run() {
        let plain = group(2);
        plain.job_ended(0, &ExitRules::default(), true);
        assert_eq!(stopped(&plain), (vec![false, false], false));

        let mut rules = ExitRules {
            exitall: true,
            ..ExitRules::default()
        };
        let g = group(2);
        g.job_ended(0, &rules, false);
        assert_eq!(stopped(&g), (vec![true, true], false));

        rules.what = ExitWhat::All;
        let g = group(2);
        g.job_ended(0, &rules, false);
        assert_eq!(stopped(&g), (vec![true, true], true));
    }

    #[test]
    fn exit_what_group_ends_the_reporting_group_stonewall_every_job() {
        // exitwhat.fio: slow1 and fast1 (new_group) run together, in groupids 0 and 1.
        let mut rules = ExitRules {
            exitall: true,
            ..ExitRules::default()
        };
        let g = split(vec![0, 1, 1]);
        g.job_ended(0, &rules, false);
        assert_eq!(stopped(&g), (vec![true, false, false], false));
        let g = split(vec![0, 1, 1]);
        g.job_ended(2, &rules, false);
        assert_eq!(stopped(&g), (vec![false, true, true], false));
        rules.what = ExitWhat::Stonewall;
        let g = split(vec![0, 1, 1]);
        g.job_ended(0, &rules, false);
        assert_eq!(stopped(&g), (vec![true; 3], false));
        rules.what = ExitWhat::All;
        let g = split(vec![0, 1, 1]);
        g.job_ended(0, &rules, false);
        assert_eq!(stopped(&g), (vec![true; 3], true));
    }

    #[test]
    fn exitall_on_error_acts_on_failure_only() {
        let rules = ExitRules {
            on_error: true,
            ..ExitRules::default()
        };
        let g = group(3);
        g.job_ended(0, &rules, false);
        assert_eq!(stopped(&g), (vec![false; 3], false));
        g.job_ended(0, &rules, true);
        assert_eq!(stopped(&g), (vec![true; 3], true));
    }
}
