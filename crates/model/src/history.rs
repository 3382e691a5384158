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
}

impl RunKind {
    pub fn name(self) -> &'static str {
        match self {
            RunKind::Suite => "run",
            RunKind::Fio => "fio",
            RunKind::ImportedFio => "import-fio",
            RunKind::ImportedGoBonnieGo => "import-gobonniego",
        }
    }
    pub fn parse(text: &str) -> Option<RunKind> {
        [
            RunKind::Suite,
            RunKind::Fio,
            RunKind::ImportedFio,
            RunKind::ImportedGoBonnieGo,
        ]
        .into_iter()
        .find(|k| k.name() == text)
    }
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
}
