//! Which runs of the history a command reads: run ids, or filters by label,
//! time and command. `history`, `compare`, `report` and `chart` all select
//! runs this way, so the same flags mean the same runs everywhere.

use crate::args::parse_label;
use clap::Args;
use dates::{now_ms, parse_when};
use model::{RunKind, RunRecord};
use store::{Filter, Store};

#[derive(Args, Clone)]
pub struct Filters {
    /// Only runs with this label (repeatable: all must match)
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    pub labels: Vec<(String, String)>,
    /// Only runs started at or after: 2026-11-22, 2026-11-22T14:30 (UTC), or an age: 7d, 12h
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only runs started at or before (a bare date includes that whole day)
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only runs made by this command
    #[arg(long, value_name = "COMMAND", value_parser = RunKind::ALL.map(RunKind::name))]
    pub command: Option<String>,
    /// Only the runs of this soak (`--runs`/`--duration`; its id is printed at its end)
    #[arg(long, value_name = "ID")]
    pub soak: Option<String>,
}

impl Filters {
    /// The store's filter; an error is a usage error whose text names the bad time.
    pub fn filter(&self) -> Result<Filter, dates::NotATime> {
        let now = now_ms();
        let when = |t: &Option<String>, end: bool| {
            t.as_deref().map(|t| parse_when(t, now, end)).transpose()
        };
        Ok(Filter {
            labels: self.labels.clone(),
            since_unix_ms: when(&self.since, false)?,
            until_unix_ms: when(&self.until, true)?,
            kind: self.command.as_deref().and_then(RunKind::parse),
            soak: self.soak.clone(),
        })
    }
}

/// A run id as `history` lists them; anything else is named with the fix
/// (the parser's own "invalid digit found in string" tells a user nothing).
pub fn parse_run_id(text: &str) -> Result<i64, String> {
    match text.trim().parse::<i64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => Err(format!(
            "'{text}' is not a run id: use the number in the id column of `diskbench history`, e.g. 3"
        )),
    }
}

#[derive(Args, Clone)]
pub struct Selection {
    /// Run ids (see `diskbench history`); default: every run the filters match
    #[arg(value_name = "RUN", value_parser = parse_run_id)]
    pub runs: Vec<i64>,
    #[command(flatten)]
    pub filters: Filters,
}

/// Why no runs could be selected: bad input (exit 2) or a store problem (exit 1).
pub enum SelectError {
    Usage(String),
    Store(anyhow::Error),
}

impl Selection {
    /// Whether any run id or filter was given (else every run is meant).
    pub fn chooses(&self) -> bool {
        let f = &self.filters;
        !self.runs.is_empty()
            || !f.labels.is_empty()
            || f.since.is_some()
            || f.until.is_some()
            || f.command.is_some()
            || f.soak.is_some()
    }

    pub fn load(&self, store: &Store) -> Result<Vec<RunRecord>, SelectError> {
        if !self.runs.is_empty() {
            return self
                .runs
                .iter()
                .map(|&id| store.get(id).map_err(|e| SelectError::Usage(e.to_string())))
                .collect();
        }
        let filter = self
            .filters
            .filter()
            .map_err(|e| SelectError::Usage(e.to_string()))?;
        let runs = store
            .list(&filter)
            .map_err(|e| SelectError::Store(e.into()))?;
        if runs.is_empty() {
            return Err(SelectError::Usage(format!(
                "no runs in {} match: see `diskbench history`, or save some with `diskbench run`",
                store.path().display()
            )));
        }
        Ok(runs)
    }
}

/// Loads the selection or maps the failure to an exit code, printing why.
pub fn load_or_exit(
    command: &str,
    selection: &Selection,
    store: &Store,
) -> Result<Vec<RunRecord>, anyhow::Result<crate::outcome::Exit>> {
    match selection.load(store) {
        Ok(runs) => Ok(runs),
        Err(SelectError::Usage(msg)) => {
            eprintln!("diskbench {command}: {msg}");
            Err(Ok(crate::outcome::Exit::Usage))
        }
        Err(SelectError::Store(e)) => Err(Err(e)),
    }
}
