//! fio's `exitall` (with `exit_what`) and `exitall_on_error`: when a job
//! with them ends (or fails), the other jobs of its group are told to stop,
//! and with `exit_what=all` or `exitall_on_error` no later group starts.
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
    /// Set when no later group may start; read by the runner between groups.
    pub(crate) rest_of_run: Arc<AtomicBool>,
}

impl GroupExit {
    /// A job with `rules` has ended, in error or not.
    pub(crate) fn job_ended(&self, rules: &ExitRules, failed: bool) {
        let on_error = failed && rules.on_error;
        if rules.exitall || on_error {
            for stop in &self.stops {
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
        GroupExit {
            stops: (0..n).map(|_| Arc::new(AtomicBool::new(false))).collect(),
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
        plain.job_ended(&ExitRules::default(), true);
        assert_eq!(stopped(&plain), (vec![false, false], false));

        let mut rules = ExitRules {
            exitall: true,
            ..ExitRules::default()
        };
        let g = group(2);
        g.job_ended(&rules, false);
        assert_eq!(stopped(&g), (vec![true, true], false));

        rules.what = ExitWhat::All;
        let g = group(2);
        g.job_ended(&rules, false);
        assert_eq!(stopped(&g), (vec![true, true], true));
    }

    #[test]
    fn exitall_on_error_acts_on_failure_only() {
        let rules = ExitRules {
            on_error: true,
            ..ExitRules::default()
        };
        let g = group(3);
        g.job_ended(&rules, false);
        assert_eq!(stopped(&g), (vec![false; 3], false));
        g.job_ended(&rules, true);
        assert_eq!(stopped(&g), (vec![true; 3], true));
    }
}
