//! What ends a job early besides its own size or runtime: fio's `exitall`
//! (with `exit_what`) and `exitall_on_error`, where one job finishing (or
//! failing) ends others.

use serde::{Deserialize, Serialize};

/// fio's `exit_what`: which jobs a finished `exitall` job ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitWhat {
    /// The jobs of its reporting group, its `groupid` (fio's default):
    /// not those `new_group` split off while they run with it.
    #[default]
    Group,
    /// Every running job; the next group (after a `stonewall`) still starts.
    Stonewall,
    /// Every job, and no later group starts.
    All,
}

impl ExitWhat {
    pub fn parse(text: &str) -> Option<ExitWhat> {
        match text {
            "group" => Some(ExitWhat::Group),
            "stonewall" => Some(ExitWhat::Stonewall),
            "all" => Some(ExitWhat::All),
            _ => None,
        }
    }

    pub fn fio_name(self) -> &'static str {
        match self {
            ExitWhat::Group => "group",
            ExitWhat::Stonewall => "stonewall",
            ExitWhat::All => "all",
        }
    }
}

/// fio's `exitall`, `exit_what` and `exitall_on_error` for one job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitRules {
    /// `exitall`: when this job ends, end others.
    pub exitall: bool,
    /// `exit_what`: which others.
    pub what: ExitWhat,
    /// `exitall_on_error`: when this job fails, end every job and start no
    /// later group.
    pub on_error: bool,
}

/// fio's `flow`, `flow_id` and `flow_sleep`: token-based flow control
/// between the jobs that share a `flow_id`. Each job's share of the I/Os
/// the flow has issued is kept at most its share of the flow's weights: a
/// job ahead of its share waits (`flow_sleep` microseconds, when given)
/// and tries again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flow {
    /// `flow`: the job's weight; 0 (the default) leaves it out of any flow.
    pub weight: u32,
    /// `flow_id`: the flow it is counted in (fio's default 0, the global flow).
    pub id: u32,
    /// `flow_sleep`: microseconds to wait when held back (0: retry at once).
    pub sleep_us: u64,
}
