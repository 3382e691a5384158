//! The requirement catalogue: `catalogue/workloads.toml`, read once and
//! checked. Every workload has checks (an I/O pattern as fio options, run
//! as its own job) and every check has requirements (a figure of that job,
//! a limit when a source gives one, and the source: document, address,
//! date). A limit without a source, or a source without an address or a
//! date, is refused when the catalogue is read, so no threshold is printed
//! that the user cannot look up.

use crate::FitError;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

const TEXT: &str = include_str!("../catalogue/workloads.toml");

/// Which figure of a check's job a requirement reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// The 99th percentile of the job's syncs (fio's `sync` latencies), as
    /// `diskbench fio` prints it.
    SyncP99,
    /// Writes per second, each with the sync the job asks after it: the
    /// "ops/sec" of pg_test_fsync.
    WriteOps,
    /// Bytes written per second, the syncs' time included, in MB/s (10^6).
    WriteMbS,
    /// A bbolt commit's p99 from its parts: 2 x (write p99 + sync p99).
    CommitEstimate,
}

impl Figure {
    /// Whether a larger figure is better (a rate) or worse (a latency).
    pub fn larger_is_better(self) -> bool {
        matches!(self, Figure::WriteOps | Figure::WriteMbS)
    }
}

/// Where a requirement comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    pub document: String,
    pub url: String,
    /// The document's date (or its version's), YYYY-MM-DD.
    pub date: String,
    /// Whether someone read the page and found what it is cited for
    /// (empty in reports saved before it existed; the catalogue refuses
    /// a source without it).
    #[serde(default)]
    pub checked: Checked,
}

/// What reading a source's page found, so a figure that was not confirmed
/// is not printed as if it were.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Checked {
    /// When it was read, YYYY-MM-DD.
    pub on: String,
    /// The page says what the requirement cites it for (the number, or
    /// that it gives none).
    pub confirmed: bool,
    /// The date above was read on the page (else it is the version's
    /// release date, or from memory).
    pub date_confirmed: bool,
    /// What was read, where, and what was not confirmed.
    pub what: String,
}

/// One rule about one figure of a check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Requirement {
    pub label: String,
    pub figure: Figure,
    /// The most the figure may be (latencies), in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ms: Option<f64>,
    /// The least the figure may be (rates), in the figure's unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// Why there is no limit, or how the figure is made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub source: Source,
}

impl Requirement {
    /// The limit as the figure's own value, in its unit (ns for latencies).
    pub fn limit(&self) -> Option<f64> {
        match (self.max_ms, self.min) {
            (Some(ms), _) => Some(ms * 1e6),
            (None, Some(min)) => Some(min),
            (None, None) => None,
        }
    }
}

/// One I/O pattern of a workload, run as one job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The job's name, so the figures are found again in a run.
    pub name: String,
    pub what: String,
    /// fio options, without the job's name, directory or runtime.
    pub fio: Vec<String>,
    /// Runs for its `runtime` (wrapping over its size) rather than once over its size.
    pub time_based: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// Its clones write one file of this name instead of one each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_file: Option<String>,
    #[serde(rename = "requirement")]
    pub requirements: Vec<Requirement>,
}

impl Check {
    /// The check as one fio job's command line: its options, its name and
    /// `runtime` (the caller's, else the catalogue's). A size-bound check
    /// given a runtime stops at whichever comes first, as fio does.
    pub fn fio_args(&self, runtime: Option<&str>) -> Vec<String> {
        let mut args = vec![format!("--name={}", self.name)];
        args.extend(self.fio.iter().cloned());
        if let Some(r) = runtime.or(self.runtime.as_deref()) {
            args.push(format!("--runtime={r}"));
        }
        if self.time_based {
            args.push("--time_based=1".into());
        }
        args
    }
}

/// Which setting the fastest check names (PostgreSQL's `wal_sync_method`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choose {
    pub setting: String,
    pub figure: Figure,
}

/// A program whose needs of a disk are checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub name: String,
    pub about: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choose: Option<Choose>,
    #[serde(rename = "check")]
    pub checks: Vec<Check>,
}

#[derive(Deserialize)]
struct File {
    workload: Vec<Workload>,
}

/// Every workload, read and checked once.
pub fn catalogue() -> &'static [Workload] {
    static CATALOGUE: OnceLock<Vec<Workload>> = OnceLock::new();
    CATALOGUE.get_or_init(|| match parse(TEXT) {
        Ok(w) => w,
        // The text is compiled in and a test reads it: a broken catalogue
        // cannot reach a user.
        Err(e) => panic!("{e}"),
    })
}

/// A workload by name; an unknown name is an error listing the known ones.
pub fn find(name: &str) -> Result<&'static Workload, FitError> {
    let all = catalogue();
    all.iter()
        .find(|w| w.name == name)
        .ok_or_else(|| FitError::UnknownWorkload {
            given: name.to_string(),
            known: all
                .iter()
                .map(|w| w.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Reads a catalogue and refuses one whose rules cannot be looked up.
pub fn parse(text: &str) -> Result<Vec<Workload>, FitError> {
    let file: File = toml::from_str(text).map_err(|e| FitError::Catalogue(e.to_string()))?;
    for w in &file.workload {
        if w.checks.is_empty() {
            return Err(FitError::Catalogue(format!("{} has no check", w.name)));
        }
        for c in &w.checks {
            if c.requirements.is_empty() {
                return Err(FitError::Catalogue(format!(
                    "{} has no requirement",
                    c.name
                )));
            }
            for r in &c.requirements {
                check_requirement(&c.name, r)?;
            }
        }
    }
    Ok(file.workload)
}

fn check_requirement(check: &str, r: &Requirement) -> Result<(), FitError> {
    let bad = |why: &str| Err(FitError::Catalogue(format!("{check}: '{}' {why}", r.label)));
    if !r.source.url.starts_with("https://") {
        return bad("has no https:// address for its source");
    }
    if r.source.document.trim().is_empty() {
        return bad("does not name its source document");
    }
    let d = r.source.date.as_bytes();
    let dated = d.len() == 10
        && d[4] == b'-'
        && d[7] == b'-'
        && d.iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
    if !dated {
        return bad("has no date (YYYY-MM-DD) for its source");
    }
    if r.source.checked.what.trim().is_empty() {
        return bad("does not say what its source's page was found to say (checked.what)");
    }
    match (r.max_ms, r.min, r.figure.larger_is_better()) {
        (Some(_), Some(_), _) => bad("has both a maximum and a minimum"),
        (Some(_), None, true) => bad("puts a maximum on a rate: use min"),
        (None, Some(_), false) => bad("puts a minimum on a latency: use max_ms"),
        (None, None, _) if r.note.is_none() => bad("has no limit and no note saying why"),
        _ => Ok(()),
    }
}
