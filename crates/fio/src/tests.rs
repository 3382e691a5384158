//! Job-file tests that need the crate's insides: a fixed environment (for
//! `${VAR}`, `$ncpus`, `$mb_memory`, `$pagesize`) and job files in a
//! temporary directory. Each error test asserts the `file:line` it reports.

mod engines;
mod errors;
mod example_opts;
mod files;
mod groups;
mod latency;
mod mapped_engines;
mod numa;
mod prio;
mod reporting;
mod sprandom;
mod trims;

use crate::expand::{Env, SysValues};
use crate::{parse_with, FioArgs, FioError};
use std::path::Path;

/// The numbers of the machine fio 3.33 was checked on.
pub(super) const SYS: SysValues = SysValues {
    ncpus: 2,
    mb_memory: 24105,
    pagesize: 4096,
};

/// A temporary directory to write job files into.
pub(super) struct Dir(tempfile::TempDir);

impl Dir {
    pub fn new() -> Dir {
        Dir(tempfile::tempdir().expect("a temp dir"))
    }

    /// Writes `text` to `name` (subdirectories made) and returns its path.
    pub fn file(&self, name: &str, text: &str) -> String {
        let path = self.0.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

pub(super) fn parse_env(args: &[&str], vars: &[(&str, &str)]) -> Result<FioArgs, FioError> {
    parse_with(args.iter().map(|s| s.to_string()), &Env::fixed(vars, SYS))
}

pub(super) fn parse(args: &[&str]) -> Result<FioArgs, FioError> {
    parse_env(args, &[])
}

pub(super) fn ok(args: &[&str]) -> FioArgs {
    parse(args).unwrap_or_else(|e| panic!("{args:?} should parse: {e}"))
}

/// The one job `base` and `extra` make.
pub(super) fn job_of(base: &[&str], extra: &[&str]) -> model::JobSpec {
    let args: Vec<&str> = base.iter().chain(extra).copied().collect();
    ok(&args).jobs.remove(0)
}

/// The error for `base` and `extra`, which must be refused.
pub(super) fn refusal(base: &[&str], extra: &[&str]) -> String {
    let args: Vec<&str> = base.iter().chain(extra).copied().collect();
    match parse(&args) {
        Ok(a) => panic!("{extra:?} should be refused, parsed to {a:?}"),
        Err(e) => e.to_string(),
    }
}

/// The error for `args`, checked to be located at `file:line` and to
/// contain every one of `parts`; returns the whole message.
pub(super) fn err_at(args: &[&str], file: &str, line: usize, parts: &[&str]) -> String {
    let e = match parse(args) {
        Ok(a) => panic!("{args:?} should fail, parsed to {a:?}"),
        Err(e) => e,
    };
    let at = e.origin().unwrap_or_else(|| panic!("{e} has no file:line"));
    assert_eq!((at.file.as_str(), at.line), (file, line), "{e}");
    let msg = e.to_string();
    assert!(msg.starts_with(&format!("{file}:{line}: ")), "{msg}");
    for part in parts {
        assert!(msg.contains(part), "{msg:?} should contain {part:?}");
    }
    msg
}

/// The names of the jobs, group by group.
pub(super) fn names(args: &FioArgs) -> Vec<Vec<&str>> {
    args.groups
        .iter()
        .map(|g| g.iter().map(|j| j.name.as_str()).collect())
        .collect()
}
