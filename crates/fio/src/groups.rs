//! Stage three: the jobs, in order, cut into groups that run one after
//! another (the jobs of one group run at the same time). fio's `groupid`
//! counts these groups and the `new_group` splits inside them (below).
//!
//! fio's rules, checked with fio 3.33 (`groupid` in its JSON):
//! - `stonewall` (alias `wait_for_previous`) makes a job wait for every job
//!   before it, and starts a new group; on the first job it does nothing.
//!   In `[global]` it applies to every job, so each job gets its own group.
//! - `wait_for=NAME` makes a job wait for the one earlier job of that name
//!   (an unknown, later or duplicated name is an error in fio, and here),
//!   without a new group. diskbench's runner only knows groups, so this is
//!   approximated: when the waitee is in the current group, the waiting job
//!   starts a new group, i.e. it waits for *every* job of the waitee's group,
//!   and its groupid is one more than fio's. A warning says so.
//! - `new_group` starts a new reporting group (a new `groupid`) for jobs
//!   that still run at the same time as the ones before: fio's reporting
//!   groups are not its run order. Such a job stays in the running group
//!   here with `JobSpec::new_group` set, and the runner numbers the
//!   reporting groups (`exit_what=group` ends a reporting group, as in fio).
//!   On the first job, or with `stonewall`, a group starts anyway and it
//!   changes nothing.

use crate::error::{FioError, Scope};
use crate::jobs::Job;
use crate::suggest::closest;
use model::JobSpec;

pub(crate) struct Grouped {
    pub groups: Vec<Vec<JobSpec>>,
    /// Approximations the user should know about.
    pub warnings: Vec<String>,
}

pub(crate) fn group(jobs: Vec<Job>) -> Result<Grouped, FioError> {
    let mut groups: Vec<Vec<JobSpec>> = Vec::new();
    let mut current: Vec<JobSpec> = Vec::new();
    let mut warnings = Vec::new();
    // Every job placed so far: its name and its group's index.
    let mut placed: Vec<(String, usize)> = Vec::new();
    for job in jobs {
        let name = job.spec.name.clone();
        let scope = Scope::Job(name.clone());
        let at = job.order.at.as_ref().or(job.at.as_ref());
        let located = |e: FioError| e.located(at);
        let mut boundary = job.order.stonewall;
        if let Some(waitee) = &job.order.wait_for {
            let group_of_waitee = waitee_group(&placed, waitee, &scope).map_err(located)?;
            if group_of_waitee == groups.len() && !current.is_empty() {
                boundary = true;
                warnings.push(format!(
                    "job '{name}' has wait_for={waitee}: diskbench starts it once every job \
                     running with '{waitee}' has finished (not only '{waitee}'), and reports \
                     it in the next group"
                ));
            }
        }
        let mut spec = job.spec;
        spec.new_group = job.order.new_group && !boundary && !current.is_empty();
        if boundary && !current.is_empty() {
            groups.push(std::mem::take(&mut current));
        }
        placed.push((name, groups.len()));
        current.push(spec);
    }
    if !current.is_empty() {
        groups.push(current);
    }
    Ok(Grouped { groups, warnings })
}

/// The group of the one earlier job named `waitee`.
fn waitee_group(
    placed: &[(String, usize)],
    waitee: &str,
    scope: &Scope,
) -> Result<usize, FioError> {
    let mut hits = placed.iter().filter(|(n, _)| n == waitee);
    match (hits.next(), hits.next()) {
        (Some((_, g)), None) => Ok(*g),
        (Some(_), Some(_)) => Err(FioError::invalid(
            scope,
            "wait_for",
            waitee,
            format!("several jobs are named '{waitee}': wait_for needs a unique name (as in fio)"),
        )),
        (None, _) => {
            let mut problem = format!(
                "no job named '{waitee}' comes before this one: wait_for names an earlier job \
                 (as in fio)"
            );
            if let Some(s) = closest(waitee, placed.iter().map(|(n, _)| n.as_str())) {
                problem.push_str(&format!("; did you mean '{s}'?"));
            }
            Err(FioError::invalid(scope, "wait_for", waitee, problem))
        }
    }
}
