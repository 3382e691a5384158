//! A run as the history keeps it: the full result plus what the user said
//! about it (labels, prices) and where it came from. The store writes and
//! reads these; `compare` and the HTML report only read them.

use crate::RunResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which command produced a run, so `diskbench show` can print it the way
/// it was printed when it ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// `diskbench run`: the suite's table and headline.
    Suite,
    /// `diskbench fio`: fio's normal output.
    Fio,
    /// Imported from a fio JSON file.
    ImportedFio,
    /// Imported from GoBonnieGo's `-json` output.
    ImportedGoBonnieGo,
    /// `diskbench ping`: ioping's output (`RunResult::workload`).
    Ping,
    /// `diskbench meta`: bonnie++ -n's file create/stat/delete rates.
    Meta,
    /// `diskbench fileserver`: dbench's table and throughput.
    Fileserver,
    /// `diskbench gobonniego`: GoBonnieGo's lines, one run each.
    GoBonnieGo,
    /// One point of `diskbench sweep`: a fio-shaped run, printed as fio's.
    Sweep,
    /// One point walked by `diskbench limit`, likewise.
    Limit,
    /// `diskbench fit WORKLOAD`: a workload's checks, one job each, with
    /// the verdicts as its text (`RunResult::workload`).
    Fit,
}

impl RunKind {
    /// Every kind, in the order `--command` lists them.
    pub const ALL: [RunKind; 11] = [
        RunKind::Suite,
        RunKind::Fio,
        RunKind::Sweep,
        RunKind::Limit,
        RunKind::Fit,
        RunKind::Ping,
        RunKind::Meta,
        RunKind::Fileserver,
        RunKind::GoBonnieGo,
        RunKind::ImportedFio,
        RunKind::ImportedGoBonnieGo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RunKind::Suite => "run",
            RunKind::Fio => "fio",
            RunKind::ImportedFio => "import-fio",
            RunKind::ImportedGoBonnieGo => "import-gobonniego",
            RunKind::Ping => "ping",
            RunKind::Meta => "meta",
            RunKind::Fileserver => "fileserver",
            RunKind::GoBonnieGo => "gobonniego",
            RunKind::Sweep => "sweep",
            RunKind::Limit => "limit",
            RunKind::Fit => "fit",
        }
    }
    pub fn parse(text: &str) -> Option<RunKind> {
        RunKind::ALL.into_iter().find(|k| k.name() == text)
    }
}

/// What a command that is not fio-shaped (ping, meta, fileserver,
/// gobonniego) measured, in its own terms: the history keeps its output as
/// printed, so `show` prints it as it was, and its JSON document, so
/// `export` gives every figure. Where its work has a fio shape (ping's
/// requests, GoBonnieGo's three tests) the run's `jobs` hold it too, for
/// `history`'s columns and `compare`; meta's and fileserver's file
/// operations have none, and their `jobs` stay empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkloadReport {
    /// The command (`RunKind::name`), e.g. "ping".
    pub command: String,
    /// Its normal text output (what it prints without `--json`).
    pub text: String,
    /// Its `--json` document.
    pub document: serde_json::Value,
}

/// What the storage costs, when the user says (`--price-*`): for the cost
/// columns of `diskbench compare`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    /// Dollars (or any currency) per GiB-month of provisioned capacity.
    pub per_gib_month: Option<f64>,
    /// Per million I/O requests (e.g. AWS magnetic volumes).
    pub per_million_ios: Option<f64>,
    /// A flat monthly price (e.g. provisioned IOPS, or a VPS plan).
    pub per_month: Option<f64>,
}

impl Prices {
    pub fn is_empty(&self) -> bool {
        self.per_gib_month.is_none() && self.per_million_ios.is_none() && self.per_month.is_none()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The history's id (0 before the run is saved).
    pub id: i64,
    pub kind: RunKind,
    /// `--label key=value`, e.g. provider=aws, disk=gp2.
    pub labels: BTreeMap<String, String>,
    pub prices: Prices,
    /// Everything measured, with the merged histograms of every job.
    pub result: RunResult,
    /// The soak (`--runs`, `--duration`) this run is one of, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soak: Option<SoakRef>,
    /// Whether the run was saved whole or is only known from what was
    /// written while it ran.
    #[serde(default, skip_serializing_if = "RunState::is_saved")]
    pub state: RunState,
    /// The run's id in every history (a UUID): the same run copied into
    /// another database (`diskbench sync`) keeps it, so it is never saved
    /// twice. Empty before the run is saved: the history then gives it one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uuid: String,
}

/// Ties the runs of one soak together, whatever their labels: runs saved by
/// one `diskbench run --runs 30` share `id`, and `run` numbers them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SoakRef {
    /// Unique per soak: its start time (UTC) and a random suffix, e.g.
    /// `20261122-143000-3f9a`, so ids sort by time.
    pub id: String,
    /// 1-based position of this run in the soak.
    pub run: u32,
}

/// How much of a run the history holds. A run is written while it goes on
/// (its per-second series), and saved whole when it ends; a process killed
/// in between (SIGKILL, a crash, a lost machine) leaves it `Killed`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Saved whole when it ended (finished, failed or interrupted).
    #[default]
    Saved,
    /// Still being measured by a live process: the series so far.
    Running,
    /// Its process ended without saving it: the series up to its last write.
    Killed,
}

impl RunState {
    pub fn is_saved(&self) -> bool {
        *self == RunState::Saved
    }
    pub fn name(self) -> &'static str {
        match self {
            RunState::Saved => "saved",
            RunState::Running => "running",
            RunState::Killed => "killed",
        }
    }
}

/// One finished second of one worker, handed over while the run goes on so
/// the history can keep the series of a run that never ends cleanly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LivePoint {
    /// The job's group (0-based, as `JobResult::groupid`).
    pub group: u32,
    /// The job's position in its group.
    pub job: u32,
    /// Which clone (`numjobs`) of the job.
    pub clone: u32,
    pub point: crate::SeriesPoint,
}
